// SPDX-License-Identifier: MIT
// Shared helpers for the test binaries: locating ../shared, the CLI, scratch folders.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace morphkit::test {

inline bool runningInCi() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

inline std::filesystem::path sharedDir() {
  const char* dir = std::getenv("MORPHKIT_SHARED_DIR");
  return dir ? std::filesystem::path(dir) : std::filesystem::path("../shared");
}
// The repository's root (tests/CMakeLists.txt defines MORPHKIT_SOURCE_DIR). Not derived from __FILE__:
// compiler caches (ccache base_dir) and -ffile-prefix-map make __FILE__ relative to the build folder.
inline std::filesystem::path sourceDir() {
  return MORPHKIT_SOURCE_DIR;
}
inline std::filesystem::path assetsDir() {
  return sharedDir() / "assets" / "gltf";
}
inline std::filesystem::path referenceDir() {
  return sharedDir() / "reference";
}

// Every .gltf and .glb under assetsDir(), sorted (so tests walk the models in the same order everywhere).
inline std::vector<std::filesystem::path> sharedModelFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(assetsDir())) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".gltf" || ext == ".glb")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The CLI binary: $MORPHKIT_CLI (ctest sets it), else the build tree's src/cli/morphkit beside this test's
// tests/ folder (a test binary run by hand), else `morphkit` on PATH.
inline std::filesystem::path cliPath() {
  if (const char* cli = std::getenv("MORPHKIT_CLI")) return cli;
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::filesystem::path sibling = self.parent_path().parent_path() / "src" / "cli" / "morphkit";
  if (!ec && std::filesystem::exists(sibling, ec)) return sibling;
  return "morphkit";
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

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// One run of the morphkit CLI: exit status and what it printed.
struct CliRun {
  int exit_code = -1;
  std::string out, err;
};

// Runs `morphkit ARGS` (ARGS quoted by the caller) inside `dir`; stdout and stderr pass through dir/cli.out|err,
// which are removed afterwards.
inline CliRun runMorphkit(const std::filesystem::path& dir, const std::string& args) {
  std::string command = "cd '" + dir.string() + "' && '" + cliPath().string() + "' " + args + " > cli.out 2> cli.err";
  int status = std::system(command.c_str());
  CliRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = slurp(dir / "cli.out");
  run.err = slurp(dir / "cli.err");
  std::filesystem::remove(dir / "cli.out");  // tests check that failed commands leave no files behind
  std::filesystem::remove(dir / "cli.err");
  return run;
}

// The Khronos glTF validator, installed by scripts/install-validator (tools/validator).
inline bool validatorAvailable() {
  return std::system("command -v node >/dev/null 2>&1") == 0 &&
         std::filesystem::exists(sourceDir() / "tools/validator/node_modules/gltf-validator/package.json");
}

}  // namespace morphkit::test

// Skips when ../shared is absent on a user's machine; with CI=true a missing ../shared fails the test.
#define MORPHKIT_REQUIRE_SHARED()                                                        \
  do {                                                                                   \
    if (!std::filesystem::exists(::morphkit::test::assetsDir())) {                       \
      if (::morphkit::test::runningInCi()) FAIL() << "CI=true but ../shared is missing"; \
      GTEST_SKIP() << "../shared not found (MORPHKIT_REQUIRE_SHARED)";                   \
    }                                                                                    \
  } while (0)

// Skips when node or the validator (scripts/install-validator) is missing on a user's machine; fails under CI=true.
#define MORPHKIT_REQUIRE_VALIDATOR()                                                                   \
  do {                                                                                                 \
    if (!::morphkit::test::validatorAvailable()) {                                                     \
      if (::morphkit::test::runningInCi()) FAIL() << "CI=true but node or gltf-validator is missing";  \
      GTEST_SKIP() << "node or gltf-validator missing: run scripts/install-validator (CI=true fails)"; \
    }                                                                                                  \
  } while (0)

// Skips without a Vulkan device on a user's machine; fails under CI=true (the test includes morphkit/vk/gpu.h).
#define MORPHKIT_REQUIRE_GPU_DEVICE()                                                            \
  do {                                                                                           \
    auto probe = ::morphkit::createVulkanContext();                                              \
    if (!probe) {                                                                                \
      if (::morphkit::test::runningInCi() || probe.error().code != ::morphkit::Error::kNoDevice) \
        FAIL() << probe.error().message;                                                         \
      GTEST_SKIP() << probe.error().message << " (MORPHKIT_REQUIRE_GPU)";                        \
    }                                                                                            \
    ::morphkit::destroyVulkanContext(*probe);                                                    \
  } while (0)
