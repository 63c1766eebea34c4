// SPDX-License-Identifier: MIT
// pose_command_test.cpp — `morphkit pose` end to end: outputs, exit codes, no partial files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include "morphkit/gltf.h"
#include "morphkit/pose.h"
#include "test_support.h"

namespace morphkit {
namespace {

std::filesystem::path cli() { return test::cliPath(); }

int runCli(const std::string& args) {
  const std::string command = cli().string() + " " + args + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PoseCommand, WritesTheSameJsonAsTheLibrary) {
  MORPHKIT_REQUIRE_SHARED();
  const auto model = test::assetsDir() / "SkinMorphEdgeCases/skin_morph.glb";
  const auto out = test::scratchDir() / "pose.json";
  ASSERT_EQ(runCli(model.string() + " pose --anim 1 --time 0.25,0.5 --out " + out.string()), 2)  // FILE first
      << "usage error expected when the subcommand comes after FILE";
  ASSERT_EQ(runCli("pose " + model.string() + " --anim cubic --time 0.25,0.5 --cpu-path fast --threads 2 --out " +
                   out.string()),
            0);
  Expected<Asset> asset = loadAsset(model);
  ASSERT_TRUE(asset.ok());
  std::vector<PoseResult> cases;
  for (double t : {0.25, 0.5}) {
    PoseOptions options;
    options.animation = 1;
    options.time = t;
    options.path = CpuPath::kFast;
    Expected<PoseResult> pose = poseAsset(*asset, kNone, options);
    ASSERT_TRUE(pose.ok());
    cases.push_back(std::move(*pose));
  }
  EXPECT_EQ(readText(out), writePoseJson(cases, model.string()));
}

TEST(PoseCommand, ObjAndGlbOutputs) {
  MORPHKIT_REQUIRE_SHARED();
  const auto model = test::assetsDir() / "Fox/glTF-Binary/Fox.glb";
  const auto dir = test::scratchDir();
  ASSERT_EQ(runCli("pose " + model.string() + " --anim 0 --time 0.5 --out " + (dir / "fox.obj").string()), 0);
  const std::string obj = readText(dir / "fox.obj");
  EXPECT_NE(obj.find("o node"), std::string::npos);
  EXPECT_NE(obj.find("\nf "), std::string::npos);
  ASSERT_EQ(runCli("pose " + model.string() + " --anim 0 --time 0.5 --out " + (dir / "fox.glb").string()), 0);
  Expected<Asset> posed = loadAsset(dir / "fox.glb");
  ASSERT_TRUE(posed.ok()) << posed.error().message;
  ASSERT_EQ(posed->meshes.size(), 1u);
  EXPECT_TRUE(posed->skins.empty());
}

TEST(PoseCommand, ErrorsAndUsage) {
  MORPHKIT_REQUIRE_SHARED();
  const auto model = test::assetsDir() / "Fox/glTF-Binary/Fox.glb";
  const auto dir = test::scratchDir();
  EXPECT_EQ(runCli("pose " + model.string()), 0);
  EXPECT_EQ(runCli("pose " + model.string() + " --anim 99"), 1);
  EXPECT_EQ(runCli("pose " + model.string() + " --anim NoSuchClip"), 1);
  EXPECT_EQ(runCli("pose " + model.string() + " --scene 5"), 1);
  EXPECT_EQ(runCli("pose " + (dir / "missing.glb").string()), 1);
  EXPECT_EQ(runCli("pose " + model.string() + " --cpu-path gpu"), 2);
  EXPECT_EQ(runCli("pose " + model.string() + " --time abc"), 2);
  EXPECT_EQ(runCli("pose " + model.string() + " --time 1,2 --out " + (dir / "two.obj").string()), 2);
  EXPECT_EQ(runCli("pose " + model.string() + " --out " + (dir / "x.txt").string()), 2);
  EXPECT_EQ(runCli("pose"), 2);
  // Failed writes leave nothing behind.
  EXPECT_EQ(runCli("pose " + model.string() + " --out " + (dir / "no/such/dir/x.json").string()), 1);
  EXPECT_FALSE(std::filesystem::exists(dir / "two.obj"));
  EXPECT_FALSE(std::filesystem::exists(dir / "x.txt"));
}

}  // namespace
}  // namespace morphkit
