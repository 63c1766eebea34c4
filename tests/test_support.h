// Shared helpers for the test binaries: locating ../shared, the CLI, scratch folders.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace morphkit::test {

inline bool runningInCi() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

inline std::filesystem::path sharedDir() {
  const char* dir = std::getenv("MORPHKIT_SHARED_DIR");
  return dir ? std::filesystem::path(dir) : std::filesystem::path("../shared");
}
inline std::filesystem::path assetsDir() { return sharedDir() / "assets" / "gltf"; }
inline std::filesystem::path referenceDir() { return sharedDir() / "reference"; }

inline std::filesystem::path cliPath() {
  const char* cli = std::getenv("MORPHKIT_CLI");
  return cli ? std::filesystem::path(cli) : std::filesystem::path("morphkit");
}

// A fresh scratch folder per test.
inline std::filesystem::path scratchDir() {
  const char* tmp = std::getenv("MORPHKIT_TEST_TMP");
  auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::path(tmp ? tmp : "/tmp/morphkit-test") /
                              (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace morphkit::test

// Skips when ../shared is absent on a user's machine; with CI=true a missing ../shared fails the test.
#define MORPHKIT_REQUIRE_SHARED()                                                              \
  do {                                                                                         \
    if (!std::filesystem::exists(::morphkit::test::assetsDir())) {                             \
      if (::morphkit::test::runningInCi()) FAIL() << "CI=true but ../shared is missing";        \
      GTEST_SKIP() << "../shared not found (MORPHKIT_REQUIRE_SHARED)";                          \
    }                                                                                          \
  } while (0)
