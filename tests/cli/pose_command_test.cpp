// SPDX-License-Identifier: MIT
// pose_command_test.cpp — `morphkit pose` end to end: outputs, exit codes, no partial files.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/npy.h"
#include "morphkit/io/pose_writers.h"
#include "morphkit/model/files.h"
#include "test_support.h"

namespace morphkit {
namespace {

std::filesystem::path cli() {
  return test::cliPath();
}

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
  EXPECT_EQ(runCli("pose " + model.string() + " --out " + (dir / "x.json/under/a/file.json").string()), 0);
  EXPECT_EQ(runCli("pose " + model.string() + " --out " + (dir / "x.json/under/a/file.json/y.json").string()),
            1);  // a file in the way
  // Output folders are created (tests/cli/cli_conventions_test.cpp).
  EXPECT_EQ(runCli("pose " + model.string() + " --out " + (dir / "no/such/dir/x.json").string()), 0);
  EXPECT_FALSE(std::filesystem::exists(dir / "two.obj"));
  EXPECT_FALSE(std::filesystem::exists(dir / "x.txt"));
}

// Positions of every posed primitive of `model` at `times`, from the library (the CLI's reference).
std::vector<PoseResult> libraryPoses(const std::filesystem::path& model, uint32_t animation,
                                     const std::vector<double>& times) {
  Expected<Asset> asset = loadAsset(model);
  EXPECT_TRUE(asset.ok());
  std::vector<PoseResult> cases;
  for (double t : times) {
    PoseOptions options;
    options.animation = animation;
    options.time = t;
    Expected<PoseResult> pose = poseAsset(*asset, kNone, options);
    EXPECT_TRUE(pose.ok());
    cases.push_back(std::move(*pose));
  }
  return cases;
}

TEST(PoseCommand, NpyHoldsFramesByVerticesByThreeOfOnePrimitive) {
  MORPHKIT_REQUIRE_SHARED();
  const auto model = test::assetsDir() / "Fox/glTF-Binary/Fox.glb";
  const auto dir = test::scratchDir();
  // 0.1:0.5:0.1 is half-open: 0.1, 0.2, 0.3, 0.4 (each A + k·STEP).
  ASSERT_EQ(runCli("pose " + model.string() + " --anim 2 --time 0.1:0.5:0.1 --out " + (dir / "fox.npy").string()), 0);
  auto npy = decodeNpy(*readFile(dir / "fox.npy"));
  ASSERT_TRUE(npy.ok()) << npy.error().message;
  const std::vector<double> times{0.1, 0.1 + 0.1, 0.1 + 2 * 0.1, 0.1 + 3 * 0.1};
  const auto cases = libraryPoses(model, 2, times);
  ASSERT_EQ(cases[0].meshes.size(), 1u);
  const uint32_t vertices = cases[0].meshes[0].vertex_count;
  EXPECT_EQ(npy->descr, "<f4");
  EXPECT_EQ(npy->shape, (std::vector<uint64_t>{4, vertices, 3}));
  ASSERT_EQ(npy->data.size(), size_t(4) * vertices * 3 * 4);
  for (size_t f = 0; f < 4; ++f) {
    EXPECT_EQ(std::memcmp(npy->data.data() + f * vertices * 12, cases[f].meshes[0].positions.data(), vertices * 12), 0)
        << "frame " << f;
  }
}

TEST(PoseCommand, NpzHoldsEveryPrimitiveAndTheTimes) {
  MORPHKIT_REQUIRE_SHARED();
  const auto model = test::assetsDir() / "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb";
  const auto dir = test::scratchDir();
  ASSERT_EQ(runCli("pose " + model.string() + " --time 0,0.5 --device cpu --out " + (dir / "p.npz").string()), 0);
  // Two primitives do not fit one .npy: a usage error, and no file.
  EXPECT_EQ(runCli("pose " + model.string() + " --out " + (dir / "p.npy").string()), 2);
  EXPECT_FALSE(std::filesystem::exists(dir / "p.npy"));
  auto arrays = decodeNpz(*readFile(dir / "p.npz"));
  ASSERT_TRUE(arrays.ok()) << arrays.error().message;
  const auto cases = libraryPoses(model, kNone, {0.0, 0.5});
  ASSERT_EQ(cases[0].meshes.size(), 2u);
  std::vector<std::string> names;
  for (const auto& [name, array] : *arrays) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"times", "node1_mesh0_prim0_positions", "node1_mesh0_prim0_normals",
                                             "node1_mesh0_prim1_positions", "node1_mesh0_prim1_normals"}));
  const auto& positions = (*arrays)[3].second;  // primitive 1
  const uint32_t vertices = cases[0].meshes[1].vertex_count;
  EXPECT_EQ(positions.shape, (std::vector<uint64_t>{2, vertices, 3}));
  EXPECT_EQ(std::memcmp(positions.data.data() + vertices * 12, cases[1].meshes[1].positions.data(), vertices * 12), 0);
  EXPECT_EQ((*arrays)[0].second.descr, "<f8");
}

// --positions-only (CPU): the same positions as a full pose, bit for bit, and no normals: null in the JSON, no
// "_normals" array in the .npz. GPU, --compare, .glb and .obj with it are usage errors that write nothing.
TEST(PoseCommand, PositionsOnlyKeepsThePositionsAndDropsTheNormals) {
  const auto dir = test::scratchDir();
  const std::string demo = (dir / "demo.glb").string();
  ASSERT_EQ(runCli("make-demo " + demo + " --vertices 600 --targets 8 --no-capture"), 0);
  const std::string pose = "pose " + demo + " --anim 0 --time 0,0.4 --cpu-path fast";
  ASSERT_EQ(runCli(pose + " --out " + (dir / "full.npz").string()), 0);
  ASSERT_EQ(runCli(pose + " --positions-only --out " + (dir / "only.npz").string()), 0);
  auto full = decodeNpz(*readFile(dir / "full.npz"));
  auto only = decodeNpz(*readFile(dir / "only.npz"));
  ASSERT_TRUE(full.ok() && only.ok());
  std::vector<std::string> names;
  for (const auto& [name, array] : *only) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"times", "node0_mesh0_prim0_positions"}));
  ASSERT_EQ(full->size(), 3u);                                // times, positions, normals
  EXPECT_EQ((*only)[1].second.data, (*full)[1].second.data);  // positions, bit for bit
  ASSERT_EQ(runCli(pose + " --positions-only --out " + (dir / "only.json").string()), 0);
  const std::string json = readText(dir / "only.json");
  EXPECT_NE(json.find("\"normals\":null"), std::string::npos);
  EXPECT_NE(json.find("\"positions\":["), std::string::npos);
  for (const std::string& bad :
       std::vector<std::string>{" --positions-only --device gpu", " --positions-only --compare",
                                " --positions-only --out " + (dir / "p.glb").string(),
                                " --positions-only --out " + (dir / "p.obj").string()}) {
    EXPECT_EQ(runCli(pose + bad), 2) << bad;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "p.glb"));
  EXPECT_FALSE(std::filesystem::exists(dir / "p.obj"));
}

TEST(PoseCommand, TimeRangesAreHalfOpenAndMixWithSingleTimes) {
  MORPHKIT_REQUIRE_SHARED();
  const auto model = test::assetsDir() / "SimpleMorph/glTF/SimpleMorph.gltf";
  const auto dir = test::scratchDir();
  ASSERT_EQ(runCli("pose " + model.string() + " --anim 0 --time 0:1:0.25,2 --out " + (dir / "a.json").string()), 0);
  const auto cases = libraryPoses(model, 0, {0.0, 0.25, 0.5, 0.75, 2.0});
  EXPECT_EQ(readText(dir / "a.json"), writePoseJson(cases, model.string()));
  EXPECT_EQ(runCli("pose " + model.string() + " --time 1:0:0.1"), 2);
  EXPECT_EQ(runCli("pose " + model.string() + " --time 0:1:0"), 2);
  EXPECT_EQ(runCli("pose " + model.string() + " --time 0:1"), 2);
  EXPECT_EQ(runCli("pose " + model.string() + " --time 0:1e9:1e-3"), 2);  // over a million times
}

}  // namespace
}  // namespace morphkit
