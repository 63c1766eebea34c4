// SPDX-License-Identifier: MIT
// Vulkan context: device selection, memory types, buffers, submission, timestamps, error mapping.
#include "vk_context.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>

#include "morphkit_bench/gpu_bench.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

using test::VulkanTest;

TEST_F(VulkanTest, DeviceInfoDescribesAUsableDevice) {
  MORPHKIT_REQUIRE_GPU(context_);
  const GpuDeviceInfo& info = gpuDeviceInfo(*context_);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.api_version, VK_API_VERSION_1_2);
  EXPECT_GT(info.device_local_bytes, 0u);
  EXPECT_TRUE(info.validation);
}

TEST_F(VulkanTest, BufferRoundTripThroughStaging) {
  MORPHKIT_REQUIRE_GPU(context_);
  std::vector<uint32_t> data(100000);
  std::iota(data.begin(), data.end(), 7u);
  Expected<GpuBuffer> buffer = createBuffer(*context_, data.size() * 4, MemoryUse::kDevice);
  ASSERT_TRUE(buffer) << buffer.error().message;
  EXPECT_NE(buffer->address, 0u);
  ASSERT_TRUE(uploadToBuffer(*context_, *buffer, 0, data.data(), data.size() * 4));
  std::vector<uint32_t> back(data.size() - 10, 0xDEADBEEFu);
  ASSERT_TRUE(downloadFromBuffer(*context_, *buffer, 40, back.data(), back.size() * 4));
  EXPECT_TRUE(std::equal(back.begin(), back.end(), data.begin() + 10));
  // Out-of-range copies are refused, not recorded.
  Status bad = uploadToBuffer(*context_, *buffer, buffer->size, data.data(), 4);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Error::kInvalidArgument);
  destroyBuffer(*context_, *buffer);
  EXPECT_EQ(buffer->buffer, VK_NULL_HANDLE);
}

TEST_F(VulkanTest, MemoryTypeSelectionFailsLoudly) {
  MORPHKIT_REQUIRE_GPU(context_);
  // No allowed type at all: an error naming the flags, never type 0.
  Expected<uint32_t> none = findMemoryType(*context_, 0u, MemoryUse::kDevice);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, Error::kVulkan);
  EXPECT_NE(none.error().message.find("DEVICE_LOCAL"), std::string::npos);
  // Every type allowed: the chosen one has the required flags.
  Expected<uint32_t> upload = findMemoryType(*context_, ~0u, MemoryUse::kUpload);
  ASSERT_TRUE(upload);
  const VkMemoryPropertyFlags flags = context_->memory.memoryTypes[*upload].propertyFlags;
  EXPECT_TRUE(flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
  EXPECT_TRUE(flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
}

TEST_F(VulkanTest, OversizedBufferIsOutOfMemory) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<GpuBuffer> huge = createBuffer(*context_, context_->max_allocation + 1, MemoryUse::kDevice);
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().code, Error::kOutOfMemory);
}

TEST_F(VulkanTest, CopyKernelCopiesAndIsTimed) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<double> us = measureCopyMicroseconds(*context_, 1 << 20, 2);
  ASSERT_TRUE(us) << us.error().message;
  if (gpuDeviceInfo(*context_).timestamps) {
    EXPECT_GT(*us, 0.0);
  }
}

// The warm-up (warmUpGpu): copy-kernel submissions for the asked wall time, clean under validation (each copy
// writes the same destination: the barriers between them must be right); 0 returns at once.
TEST_F(VulkanTest, WarmUpKeepsTheDeviceBusyForTheAskedTime) {
  MORPHKIT_REQUIRE_GPU(context_);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(warmUpGpu(*context_, 30.0));
  const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(elapsed_ms, 30.0);
  EXPECT_TRUE(warmUpGpu(*context_, 0.0));
  EXPECT_TRUE(warmUpGpu(*context_, -1.0));
  EXPECT_TRUE(gpuValidationMessages(*context_).empty());
}

// The default warm-up is for GPUs; a CPU implementation (lavapipe) has no clocks to raise. An explicit value wins.
TEST(WarmUp, DefaultDependsOnTheDeviceType) {
  GpuDeviceInfo device;
  for (GpuDeviceType type :
       {GpuDeviceType::kDiscrete, GpuDeviceType::kIntegrated, GpuDeviceType::kVirtual, GpuDeviceType::kOther}) {
    device.type = type;
    EXPECT_EQ(warmUpMilliseconds(-1.0, device), kGpuWarmUpMilliseconds) << gpuDeviceTypeName(type);
    EXPECT_EQ(warmUpMilliseconds(0.0, device), 0.0);
  }
  device.type = GpuDeviceType::kCpu;
  EXPECT_EQ(warmUpMilliseconds(-1.0, device), 0.0);
  EXPECT_EQ(warmUpMilliseconds(25.0, device), 25.0);
}

// Pipeline statistics (bench's `regs`) are captured only when asked and offered; lavapipe does not offer them, so
// here they stay off either way and a pipeline reports no registers.
TEST(VulkanContextTest, PipelineStatisticsOnlyWhenAskedAndOffered) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  for (bool asked : {false, true}) {
    GpuContextOptions options;
    options.pipeline_statistics = asked;
    Expected<VulkanContext*> context = createVulkanContext(options);
    ASSERT_TRUE(context) << context.error().message;
    if (!asked) {
      EXPECT_FALSE((*context)->pipeline_statistics);
    }
    EXPECT_EQ(pipelineRegisters(**context, VK_NULL_HANDLE), -1);
    EXPECT_TRUE(pipelineStatistics(**context, VK_NULL_HANDLE).empty());
    destroyVulkanContext(*context);
  }
}

TEST(VulkanContextTest, DeviceIndexOutOfRangeIsNoDevice) {
  GpuContextOptions options;
  options.device_index = 1000;
  Expected<VulkanContext*> context = createVulkanContext(options);
  ASSERT_FALSE(context);
  EXPECT_EQ(context.error().code, Error::kNoDevice);
  EXPECT_NE(context.error().message.find("1000"), std::string::npos);
}

TEST(VulkanContextTest, ResultsMapToErrors) {
  EXPECT_EQ(vulkanFailure("vkX", VK_ERROR_OUT_OF_DEVICE_MEMORY).code, Error::kOutOfMemory);
  EXPECT_EQ(vulkanFailure("vkX", VK_ERROR_OUT_OF_HOST_MEMORY).code, Error::kOutOfMemory);
  EXPECT_EQ(vulkanFailure("vkX", VK_ERROR_DEVICE_LOST).code, Error::kDeviceLost);
  Failure other = vulkanFailure("vkCreateDevice", VK_ERROR_INITIALIZATION_FAILED);
  EXPECT_EQ(other.code, Error::kVulkan);
  EXPECT_EQ(other.message, "vkCreateDevice: VK_ERROR_INITIALIZATION_FAILED (-3)");
  EXPECT_NE(vulkanFailure("vkX", VK_ERROR_DEVICE_LOST).message.find("VK_ERROR_DEVICE_LOST"), std::string::npos);
}

TEST(VulkanContextTest, MissingDriverIsNoDeviceWithInstallHint) {
  // Point the loader at no driver at all: creation must fail with kNoDevice and the install hint.
  const char* old = std::getenv("VK_ICD_FILENAMES");
  std::string saved = old ? old : "";
  setenv("VK_ICD_FILENAMES", "/nonexistent/icd.json", 1);
  Expected<VulkanContext*> context = createVulkanContext({});
  if (old)
    setenv("VK_ICD_FILENAMES", saved.c_str(), 1);
  else
    unsetenv("VK_ICD_FILENAMES");
  if (context) {
    destroyVulkanContext(*context);
    FAIL() << "a context was created without any driver";
  }
  EXPECT_EQ(context.error().code, Error::kNoDevice) << context.error().message;
  EXPECT_NE(context.error().message.find("no Vulkan device (install mesa-vulkan-drivers for a CPU implementation)"),
            std::string::npos)
      << context.error().message;
}

}  // namespace
}  // namespace morphkit
