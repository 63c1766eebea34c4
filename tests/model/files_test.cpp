// SPDX-License-Identifier: MIT
// writeFileAtomic in a folder an attacker can write to (issue 9, class 3): planted symlinks and files under the
// temporary names are never written through, permissions are those of a plain write, and nothing is left behind.
#include "morphkit/model/files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "files_internal.h"
#include "gltf_test_util.h"
#include "test_support.h"

namespace morphkit {
namespace {

namespace fs = std::filesystem;

std::span<const uint8_t> bytesOf(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

mode_t modeOf(const fs::path& path) {
  struct stat st;
  EXPECT_EQ(::lstat(path.c_str(), &st), 0);
  return st.st_mode & 0777;
}

// The attacker knows (or guesses) the next temporary names and plants a symlink to a victim file under each.
TEST(WriteFileAtomic, NeverWritesThroughAPlantedSymlink) {
  fs::path dir = test::scratchDir();
  fs::path victim = dir / "victim.txt";
  test::writeText(victim, "precious");
  fs::path out = dir / "out.json";
  std::vector<std::string> suffixes = {"aaaa", "bbbb", "cccc"};
  fs::create_symlink(victim, dir / "out.json.tmp-aaaa");
  fs::create_symlink(victim, dir / "out.json.tmp-bbbb");
  size_t next = 0;
  Status written = files_detail::writeFileAtomic(out, bytesOf("{\"ok\":1}"), [&] { return suffixes.at(next++); });
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(test::slurp(victim), "precious");
  EXPECT_EQ(test::slurp(out), "{\"ok\":1}");
  EXPECT_FALSE(fs::is_symlink(out));
  EXPECT_TRUE(fs::is_symlink(dir / "out.json.tmp-aaaa"));  // the planted links are skipped, not replaced
  EXPECT_EQ(next, 3u);
  EXPECT_EQ(entries(dir),
            (std::vector<std::string>{"out.json", "out.json.tmp-aaaa", "out.json.tmp-bbbb", "victim.txt"}));
}

TEST(WriteFileAtomic, GivesUpCleanlyWhenEveryNameIsTaken) {
  fs::path dir = test::scratchDir();
  test::writeText(dir / "out.bin.tmp-x", "planted");
  Status written = files_detail::writeFileAtomic(dir / "out.bin", bytesOf("data"), [] { return std::string("x"); });
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().code, Error::kIo);
  EXPECT_EQ(test::slurp(dir / "out.bin.tmp-x"), "planted");
  EXPECT_FALSE(fs::exists(dir / "out.bin"));
}

TEST(WriteFileAtomic, ReplacesASymlinkAtTheDestinationInsteadOfFollowingIt) {
  fs::path dir = test::scratchDir();
  fs::path victim = dir / "victim.txt";
  test::writeText(victim, "precious");
  fs::create_symlink(victim, dir / "out.obj");
  ASSERT_TRUE(writeFileAtomic(dir / "out.obj", std::string_view("v 0 0 0\n")).ok());
  EXPECT_EQ(test::slurp(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(dir / "out.obj"));
  EXPECT_EQ(test::slurp(dir / "out.obj"), "v 0 0 0\n");
}

TEST(WriteFileAtomic, PermissionsAreThoseOfAPlainWrite) {
  fs::path dir = test::scratchDir();
  mode_t old_mask = ::umask(027);
  Status a = writeFileAtomic(dir / "new.json", std::string_view("{}"));
  ::umask(022);
  Status b = writeFileAtomic(dir / "other.json", std::string_view("{}"));
  ::umask(old_mask);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(modeOf(dir / "new.json"), mode_t(0640));  // 0666 & ~027, not mkstemp's 0600
  EXPECT_EQ(modeOf(dir / "other.json"), mode_t(0644));
  // Replacing an existing file keeps its bits, as writing into it would.
  fs::permissions(dir / "new.json", fs::perms(0604));
  ASSERT_TRUE(writeFileAtomic(dir / "new.json", std::string_view("{\"x\":1}")).ok());
  EXPECT_EQ(modeOf(dir / "new.json"), mode_t(0604));
  EXPECT_EQ(test::slurp(dir / "new.json"), "{\"x\":1}");
}

TEST(WriteFileAtomic, RemovesTheTemporaryOnEveryErrorPath) {
  fs::path dir = test::scratchDir();
  // rename(2) fails: the destination is a non-empty folder.
  fs::create_directories(dir / "taken" / "child");
  Status onto_folder = writeFileAtomic(dir / "taken", std::string_view("x"));
  EXPECT_FALSE(onto_folder.ok());
  EXPECT_EQ(entries(dir), std::vector<std::string>{"taken"});
  // open(2) fails: the folder does not exist.
  EXPECT_FALSE(writeFileAtomic(dir / "missing" / "out.json", std::string_view("x")).ok());
  EXPECT_EQ(entries(dir), std::vector<std::string>{"taken"});
  // A name near NAME_MAX (255) still gets a temporary that fits.
  std::string long_name(250, 'n');
  ASSERT_TRUE(writeFileAtomic(dir / long_name, std::string_view("x")).ok());
  EXPECT_EQ(entries(dir).size(), 2u);
}

}  // namespace
}  // namespace morphkit
