// SPDX-License-Identifier: MIT
// Outputs that keep what the file has: a posed OBJ's .mtl and its base-colour image, render's transparent
// background (RGBA with alpha; the video refuses it), the inspect table's materials and textures.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "demo_dir_support.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/files.h"
#include "morphkit/render/render.h"
#include "morphkit/vk/gpu.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::CliRun;

std::filesystem::path fox() {
  return test::assetsDir() / "Fox/glTF-Binary/Fox.glb";
}

TEST(Outputs, ObjCarriesAnMtlThatNamesTheBaseColourImage) {
  MORPHKIT_REQUIRE_SHARED();
  auto dir = test::scratchDir();
  CliRun run = test::runMorphkit(dir, "pose '" + fox().string() + "' --anim 0 --time 0.5 --out posed/fox.obj");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "morphkit: wrote posed/fox_image0.png (" +
                         std::to_string(std::filesystem::file_size(dir / "posed/fox_image0.png")) +
                         " bytes)\nmorphkit: wrote posed/fox.mtl (" +
                         std::to_string(std::filesystem::file_size(dir / "posed/fox.mtl")) +
                         " bytes)\nmorphkit: wrote posed/fox.obj (" +
                         std::to_string(std::filesystem::file_size(dir / "posed/fox.obj")) + " bytes)\n");
  const std::string obj = test::slurp(dir / "posed/fox.obj");
  EXPECT_TRUE(obj.starts_with("# morphkit pose\nmtllib fox.mtl\no node")) << obj.substr(0, 80);
  EXPECT_NE(obj.find("\nusemtl material0\n"), std::string::npos);
  const std::string mtl = test::slurp(dir / "posed/fox.mtl");
  EXPECT_EQ(mtl, "# morphkit pose\n\nnewmtl material0\nKd 1 1 1\nd 1\nmap_Kd fox_image0.png\n");
  // The image is the file's own bytes (Fox keeps its PNG in a bufferView).
  auto asset = loadAsset(fox());
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  auto bytes = imageBytes(*asset, 0);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(test::slurp(dir / "posed/fox_image0.png"), std::string(bytes->begin(), bytes->end()));

  // To stdout the OBJ goes alone, without mtllib.
  CliRun piped = test::runMorphkit(dir, "pose '" + fox().string() + "' --anim 0 --time 0.5 --out - --format obj");
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_TRUE(piped.out.starts_with("# morphkit pose\no node")) << piped.out.substr(0, 80);
}

TEST(Outputs, InspectTableListsMaterialsAndTextures) {
  MORPHKIT_REQUIRE_SHARED();
  auto dir = test::scratchDir();
  CliRun run = test::runMorphkit(dir, "inspect '" + fox().string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\nmaterials:\n  0 fox_material         baseColor 1 1 1 1; textures: baseColor 0; OPAQUE\n"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("\ntextures:\n  0 images[0] - bufferViews[7] (image/png)\n"), std::string::npos) << run.out;
}

// Alpha of every pixel of a frame.
std::vector<uint8_t> alphaOf(const std::filesystem::path& png) {
  const std::string text = test::slurp(png);
  auto decoded = decodePng(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  EXPECT_TRUE(decoded.ok());
  std::vector<uint8_t> alpha;
  for (size_t i = 3; decoded.ok() && i < decoded->rgba.size(); i += 4) alpha.push_back(decoded->rgba[i]);
  return alpha;
}

TEST(Outputs, TransparentBackgroundKeepsAlphaAndTheVideoRefusesIt) {
  auto dir = test::smallDemoDir();
  CliRun refused = test::runMorphkit(dir, "render demo.glb --background transparent --size 16x16 --out t");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err,
            "morphkit: error: --background transparent: animation.mp4 cannot keep alpha; add --no-video (the PNG "
            "frames keep it)\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "t"));

  MORPHKIT_REQUIRE_GPU_DEVICE();
  ASSERT_EQ(test::runMorphkit(dir, "render demo.glb --anim rest --size 24x24 --no-video --out o").exit_code, 0);
  CliRun clear =
      test::runMorphkit(dir, "render demo.glb --anim rest --size 24x24 --no-video --background transparent --out t");
  ASSERT_EQ(clear.exit_code, 0) << clear.err;
  const std::vector<uint8_t> opaque = alphaOf(dir / "o/frame_0000.png"), alpha = alphaOf(dir / "t/frame_0000.png");
  ASSERT_EQ(alpha.size(), 24u * 24u);
  EXPECT_TRUE(std::all_of(opaque.begin(), opaque.end(), [](uint8_t a) { return a == 255; }));
  EXPECT_GT(std::count(alpha.begin(), alpha.end(), 0), 0);    // the background
  EXPECT_GT(std::count(alpha.begin(), alpha.end(), 255), 0);  // the head
}

}  // namespace
}  // namespace morphkit
