// SPDX-License-Identifier: MIT
// `morphkit make-demo`: the file it writes, its summary line / JSON, and its exit codes.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/files.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::CliRun;

CliRun makeDemo(const std::filesystem::path& dir, const std::string& args) {
  return test::runMorphkit(dir, "make-demo " + args);
}

TEST(MakeDemoCommand, WritesTheDemoAssetAndASummary) {
  auto dir = test::scratchDir();
  CliRun run = makeDemo(dir, "head.glb --targets 7 --vertices 1200 --bones 5 --seed 9");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.err.empty()) << run.err;
  auto bytes = readFile(dir / "head.glb");
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  // The CLI writes exactly what the library produces for the same options.
  auto asset = makeDemoAsset({.targets = 7, .vertices = 1200, .bones = 5, .seed = 9});
  ASSERT_TRUE(asset.ok());
  auto expected = writeGlb(*asset);
  ASSERT_TRUE(expected.ok());
  EXPECT_TRUE(*bytes == *expected);
  uint32_t vertices = asset->accessors[findAttribute(asset->meshes[0].primitives[0].attributes, "POSITION")].count;
  EXPECT_EQ(run.out, "head.glb: " + std::to_string(vertices) + " vertices, " +
                         std::to_string(asset->accessors[asset->meshes[0].primitives[0].indices].count / 3) +
                         " triangles, 7 targets, 5 bones, 3 animations, " + std::to_string(bytes->size()) + " bytes\n" +
                         "head_capture.csv: face capture, 240 rows at 60 fps (Live Link Face layout: 52 blend shapes + "
                         "9 rotations)\n");
  // The sample capture beside it is the library's, for the same seed.
  auto capture = makeDemoCapture({.seed = 9});
  ASSERT_TRUE(capture.ok());
  EXPECT_EQ(test::slurp(dir / "head_capture.csv"), *capture);
  auto loaded = loadAsset(dir / "head.glb");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->meshes[0].target_names.size(), 7u);
  EXPECT_EQ(loaded->skins[0].joints.size(), 5u);
}

TEST(MakeDemoCommand, JsonSummary) {
  auto dir = test::scratchDir();
  CliRun run = makeDemo(dir, "d.glb --targets 0 --vertices 8 --bones 1 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  size_t size = std::filesystem::file_size(dir / "d.glb");
  EXPECT_EQ(run.out,
            "{\"file\":\"d.glb\",\"vertices\":8,\"triangles\":12,\"targets\":0,\"bones\":1,\"animations\":2,"
            "\"seed\":1,\"material\":\"skin\",\"bytes\":" +
                std::to_string(size) + ",\"capture\":\"d_capture.csv\",\"captureRows\":240,\"replaced\":false}\n");
  run = makeDemo(dir, "e.glb --targets 0 --vertices 8 --bones 1 --no-capture --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find(",\"capture\":null,\"captureRows\":0,\"replaced\":"), std::string::npos) << run.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "e_capture.csv"));
  run = makeDemo(dir, "f.glb --targets 0 --vertices 8 --bones 1 --capture-seconds 0.5 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"captureRows\":30,"), std::string::npos) << run.out;
}

// --material: each variant is written, named in the summary and the JSON, and its file carries the material
// (tests/gltf/material_extensions_test.cpp checks the fields); an unknown name is a usage error with no file.
TEST(MakeDemoCommand, MaterialVariants) {
  auto dir = test::scratchDir();
  CliRun run = makeDemo(dir, "c.glb --targets 0 --vertices 100 --no-capture --material clearcoat");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find(" animations, material clearcoat, "), std::string::npos) << run.out;
  auto loaded = loadAsset(dir / "c.glb");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->materials[0].clearcoat.factor, 1.0f);
  run = makeDemo(dir, "t.glb --targets 0 --vertices 100 --no-capture --material textured --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"material\":\"textured\","), std::string::npos) << run.out;
  run = makeDemo(dir, "s.glb --targets 0 --vertices 100 --no-capture");
  EXPECT_EQ(run.out.find("material"), std::string::npos) << run.out;  // the default is not named
  CliRun bad = makeDemo(dir, "x.glb --material velvet");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--material"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.glb"));
}

TEST(MakeDemoCommand, BadOptionsFailCleanly) {
  auto dir = test::scratchDir();
  // Out-of-range values are usage errors like malformed ones (docs/CLI.md: exit 2).
  CliRun bounds = makeDemo(dir, "x.glb --targets 5000");
  EXPECT_EQ(bounds.exit_code, 2);
  EXPECT_EQ(bounds.err, "morphkit: error: make-demo: targets 5000 outside 0..4096\n");
  EXPECT_TRUE(bounds.out.empty());
  EXPECT_FALSE(std::filesystem::exists(dir / "x.glb"));

  CliRun huge = makeDemo(dir, "x.glb --vertices 99999999999");
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_NE(huge.err.find("vertices"), std::string::npos) << huge.err;

  EXPECT_EQ(makeDemo(dir, "x.glb --bones -1").exit_code, 2);
  EXPECT_EQ(makeDemo(dir, "x.glb --targets abc").exit_code, 2);
  EXPECT_EQ(makeDemo(dir, "").exit_code, 2);  // OUT is required
  EXPECT_FALSE(std::filesystem::exists(dir / "x.glb"));

  // The output's folder is created; a file in its way is one error line naming the output once.
  std::ofstream(dir / "plain") << "x";
  CliRun unwritable = makeDemo(dir, "plain/x.glb --vertices 100 --targets 1");
  EXPECT_EQ(unwritable.exit_code, 1);
  EXPECT_EQ(unwritable.err.rfind("morphkit: error: plain/x.glb: cannot create the folder: ", 0), 0u) << unwritable.err;
  EXPECT_EQ(makeDemo(dir, "no/such/dir/x.glb --vertices 100 --targets 1 --no-capture").exit_code, 0);
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "no/such/dir/x.glb"));

  CliRun bad_capture = makeDemo(dir, "x.glb --vertices 100 --targets 1 --capture-seconds 0");
  EXPECT_EQ(bad_capture.exit_code, 2);
  EXPECT_EQ(bad_capture.err, "morphkit: error: make-demo: capture seconds outside (0, 3600]\n");
  // The capture's folder is the asset's: a capture that cannot be written takes the asset with it.
  std::filesystem::create_directories(dir / "x_capture.csv");  // a folder where the file should go
  CliRun blocked = makeDemo(dir, "x.glb --vertices 100 --targets 1");
  EXPECT_EQ(blocked.exit_code, 1);
  EXPECT_EQ(blocked.err.rfind("morphkit: error: x_capture.csv: ", 0), 0u) << blocked.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.glb"));
}

}  // namespace
}  // namespace morphkit
