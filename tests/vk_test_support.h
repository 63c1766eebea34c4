// SPDX-License-Identifier: MIT
// Helpers for the Vulkan tests (tests/vk_*_test.cpp): one validated context per test suite, and a check
// after every test that the validation layer reported nothing.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "morphkit/vk/gpu.h"
#include "test_support.h"

// Skips when no Vulkan device exists on a user's machine; with CI=true a missing device FAILS the test
// (like MORPHKIT_REQUIRE_SHARED). `context` is a VulkanContext* that is null when creation failed.
#define MORPHKIT_REQUIRE_GPU(context)                                                                             \
  do {                                                                                                            \
    if (!(context)) {                                                                                             \
      if (::morphkit::test::runningInCi() || ::morphkit::test::gpuFailure().code != ::morphkit::Error::kNoDevice) \
        FAIL() << "Vulkan context: " << ::morphkit::test::gpuFailure().message;                                   \
      GTEST_SKIP() << ::morphkit::test::gpuFailure().message << " (MORPHKIT_REQUIRE_GPU)";                        \
    }                                                                                                             \
  } while (0)

namespace morphkit::test {

// createVulkanContext pins the loaded drivers and layers under ASan (src/vk/vk_context.cpp), so their
// allocations stay symbolized and the suppressions below (third-party code only, like tests/lsan.supp) apply.
// morphkit's own objects are checked by the validation layer at vkDestroyDevice.

}  // namespace morphkit::test

// Defined here because each test binary is a single translation unit.
extern "C" __attribute__((used, visibility("default"))) const char* __lsan_default_suppressions() {
  return "leak:libvulkan_lvp.so\nleak:libLLVM\nleak:libVkLayer_khronos_validation.so\n";
}

namespace morphkit::test {

inline Failure& gpuFailure() {
  static Failure failure{Error::kNoDevice, ""};
  return failure;
}

inline std::string joinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

// A suite-wide context with the validation layer on. Every test must call MORPHKIT_REQUIRE_GPU(context_).
class VulkanTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    GpuContextOptions options;
    options.validation = true;
    Expected<VulkanContext*> created = createVulkanContext(options);
    if (created) {
      context_ = *created;
    } else {
      gpuFailure() = created.error();
    }
  }
  static void TearDownTestSuite() {
    if (!context_) return;
    std::vector<std::string> messages;
    destroyVulkanContext(context_, &messages);
    context_ = nullptr;
    // Objects left alive are reported at vkDestroyDevice: fail the suite on any message.
    EXPECT_TRUE(messages.empty()) << joinLines(messages);
  }
  void TearDown() override {
    if (!context_) return;
    std::vector<std::string> messages = gpuValidationMessages(*context_);
    clearGpuValidationMessages(*context_);
    EXPECT_TRUE(messages.empty()) << "validation messages:\n" << joinLines(messages);
  }
  static inline VulkanContext* context_ = nullptr;
};

}  // namespace morphkit::test
