// SPDX-License-Identifier: MIT
// `morphkit make-demo`: the file it writes, its summary line / JSON, and its exit codes.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/image/image.h"
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
            "\"seed\":1,\"material\":\"skin\",\"textureSize\":null,\"bytes\":" +
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
  run = makeDemo(dir, "t.glb --targets 0 --vertices 100 --no-capture --material textured --texture-size 64 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"material\":\"textured\","), std::string::npos) << run.out;
  run = makeDemo(dir, "s.glb --targets 0 --vertices 100 --no-capture");
  EXPECT_EQ(run.out.find("material"), std::string::npos) << run.out;  // the default is not named
  CliRun bad = makeDemo(dir, "x.glb --material velvet");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--material"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.glb"));
}

// --material textured --texture-size N: three N² images (base colour, normal, occlusion-roughness-metallic) with the
// fine detail of a photographed skin: lossless PNG keeps more than a quarter of their raw RGB bytes (the 64² colour
// bands they replace kept under 1 %), the normals are unit vectors that lean (pores, grain), and they follow the
// seed. A size outside 16..4096, or on another material, is a usage error with no file.
TEST(MakeDemoCommand, TexturedMaterialHasSkinTexturesOfTheGivenSize) {
  auto dir = test::scratchDir();
  CliRun run =
      makeDemo(dir, "t.glb --targets 0 --vertices 100 --no-capture --material textured --texture-size 96 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"textureSize\":96"), std::string::npos) << run.out;
  auto loaded = loadAsset(dir / "t.glb");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  ASSERT_EQ(loaded->images.size(), 3u);
  size_t image_bytes = 0;
  std::vector<DecodedImage> maps;
  for (uint32_t i = 0; i < 3; ++i) {
    auto bytes = imageBytes(*loaded, i);
    ASSERT_TRUE(bytes.ok());
    image_bytes += bytes->size();
    auto image = decodeImage(*bytes);
    ASSERT_TRUE(image.ok()) << image.error().message;
    EXPECT_EQ(image->width, 96u);
    EXPECT_EQ(image->height, 96u);
    EXPECT_GT(bytes->size(), size_t(96 * 96 * 3) / 4) << loaded->images[i].name;
    maps.push_back(std::move(*image));
  }
  EXPECT_GT(image_bytes, std::filesystem::file_size(dir / "t.glb") / 2);  // the file is mostly images
  double leaning = 0;
  for (size_t p = 0; p < 96 * 96; ++p) {
    const uint8_t* n = &maps[1].rgba[p * 4];
    const double x = n[0] / 127.5 - 1, y = n[1] / 127.5 - 1, z = n[2] / 127.5 - 1;
    EXPECT_NEAR(std::sqrt(x * x + y * y + z * z), 1.0, 0.02) << p;
    EXPECT_GT(z, 0.5) << p;
    leaning += std::sqrt(x * x + y * y);
  }
  EXPECT_GT(leaning / (96 * 96), 0.05);  // not a flat normal map
  run = makeDemo(dir, "u.glb --targets 0 --vertices 100 --no-capture --material textured --texture-size 96 --seed 2");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto other = loadAsset(dir / "u.glb");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(decodeImage(*imageBytes(*other, 0))->rgba, maps[0].rgba);
  run = makeDemo(dir, "v.glb --targets 0 --vertices 100 --no-capture --material textured --texture-size 96");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(test::slurp(dir / "v.glb"), test::slurp(dir / "t.glb"));  // same options and seed, same bytes

  for (const char* bad : {"--material textured --texture-size 15", "--material textured --texture-size 4097",
                          "--material textured --texture-size -1", "--material textured --texture-size 2k",
                          "--texture-size 64", "--material skin --texture-size 64"}) {
    CliRun refused = makeDemo(dir, std::string("x.glb --no-capture ") + bad);
    EXPECT_EQ(refused.exit_code, 2) << bad;
    EXPECT_NE(refused.err.find("texture-size"), std::string::npos) << bad << ": " << refused.err;
    EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "x.glb")) << bad;
  }
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
