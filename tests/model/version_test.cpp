// SPDX-License-Identifier: MIT
// The version lives in one place, project(VERSION) in CMakeLists.txt: the generated morphkit/version.h and
// `morphkit --version` must agree with it.
#include "morphkit/version.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "test_support.h"

namespace morphkit {
namespace {

std::string projectVersion() {
  const std::string cmake = test::slurp(test::sourceDir() / "CMakeLists.txt");
  const std::string key = "project(morphkit VERSION ";
  const size_t start = cmake.find(key);
  if (start == std::string::npos) return {};
  const size_t first = start + key.size();
  size_t last = first;
  while (last < cmake.size() && (std::isdigit((unsigned char)cmake[last]) || cmake[last] == '.')) ++last;
  return cmake.substr(first, last - first);
}

TEST(Version, HeaderMatchesProjectVersion) {
  const std::string version = projectVersion();
  ASSERT_FALSE(version.empty()) << "no project(morphkit VERSION x.y.z) in CMakeLists.txt";
  EXPECT_EQ(version, MORPHKIT_VERSION_STRING);
  EXPECT_EQ(version, std::to_string(MORPHKIT_VERSION_MAJOR) + "." + std::to_string(MORPHKIT_VERSION_MINOR) + "." +
                         std::to_string(MORPHKIT_VERSION_PATCH));
  EXPECT_EQ(MORPHKIT_VERSION, MORPHKIT_VERSION_MAJOR * 10000 + MORPHKIT_VERSION_MINOR * 100 + MORPHKIT_VERSION_PATCH);
}

TEST(Version, CliPrintsTheProjectVersion) {
  auto dir = test::scratchDir();
  test::CliRun run = test::runMorphkit(dir, "--version");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "morphkit " + projectVersion() + "\n");
}

// The changelog names the current version (Keep a Changelog: "## [x.y.z]").
TEST(Version, ChangelogHasTheVersion) {
  const std::string changelog = test::slurp(test::sourceDir() / "CHANGELOG.md");
  EXPECT_NE(changelog.find("## [" + projectVersion() + "]"), std::string::npos);
}

}  // namespace
}  // namespace morphkit
