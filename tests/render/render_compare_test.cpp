// SPDX-License-Identifier: MIT
// What the user sees (docs/OPTIMIZE.md): optimize's render-check poses (renderCheckPoses) and the renderer's
// comparison of two assets (morphkit/render/render_compare.h compareRenders), on the textured demo:
//   poses      rest, the furthest-reaching target alone, the first clip near 1/3 and 2/3; without a clip, targets
//   identical  an asset against itself and against its own .glb reloaded: every difference 0
//   webp       the textures re-encoded as WebP (optimize --textures webp): small but not zero
//   broken     a flat base colour instead of the texture, the mesh moved, or a texture the renderer cannot draw
//              (as a KTX2 one: then also a warning): large
//   cli        optimize --textures webp checks unasked (renderDiff in --json; not with keep or ktx2); without a
//              device that is a note, and --render-check one error line, exit 1; --no-render-check leaves it out
// Frames are 64² (CI time); the numbers at optimize's 256² are in docs/OPTIMIZE.md.
#include "morphkit/render/render_compare.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/files.h"
#include "morphkit/optimize/optimize.h"
#include "morphkit/vk/gpu.h"
#include "optimize_support.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

Asset texturedDemo(bool clips = true) {
  DemoOptions demo;
  demo.targets = 4;
  demo.vertices = 600;
  demo.material = DemoMaterial::kTextured;
  demo.texture_size = 128;
  Asset asset = test::validated(makeDemoAsset(demo));
  if (!clips) asset.animations.clear();
  return asset;
}

std::vector<std::string> labels(const std::vector<LabelledPose>& poses) {
  std::vector<std::string> out;
  for (const LabelledPose& pose : poses) out.push_back(pose.label);
  return out;
}

TEST(RenderCheckPoses, RestTheFurthestTargetAndTwoTimesOfTheFirstClip) {
  const Asset asset = texturedDemo();
  Expected<std::vector<LabelledPose>> poses = renderCheckPoses(asset);
  ASSERT_TRUE(poses.ok()) << poses.error().message;
  ASSERT_EQ(poses->size(), 4u) << testing::PrintToString(labels(*poses));
  EXPECT_EQ((*poses)[0].label, "the rest pose (every weight 0)");
  EXPECT_NE((*poses)[1].label.find("alone at weight 1"), std::string::npos) << (*poses)[1].label;
  for (size_t i : {2u, 3u}) {
    EXPECT_EQ((*poses)[i].animation, 0u);
    EXPECT_EQ((*poses)[i].label.rfind("animations[0]", 0), 0u) << (*poses)[i].label;
  }
  EXPECT_LT((*poses)[2].time, (*poses)[3].time);
  // The same choice every time: nothing depends on the output.
  EXPECT_EQ(labels(*poses), labels(renderCheckPoses(asset).value()));
}

TEST(RenderCheckPoses, WithoutAClipThreeTargets) {
  const Asset asset = texturedDemo(false);
  Expected<std::vector<LabelledPose>> poses = renderCheckPoses(asset);
  ASSERT_TRUE(poses.ok()) << poses.error().message;
  ASSERT_EQ(poses->size(), 4u) << testing::PrintToString(labels(*poses));
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_NE((*poses)[i].label.find("alone at weight 1"), std::string::npos) << (*poses)[i].label;
    EXPECT_EQ((*poses)[i].animation, kNone);
  }
}

TEST(PixelDifference, MeanPercentileAndMaxOfTheLargestChannel) {
  // 100 pixels: 98 equal, one off by 7 in green, one off by 200 in blue (alpha differences ignored).
  std::vector<uint8_t> a(400, 100), b(400, 100);
  b[4 * 10 + 1] = 107;
  b[4 * 20 + 2] = 255;
  a[4 * 20 + 2] = 55;
  b[4 * 30 + 3] = 0;
  Expected<PixelDifference> d = measurePixelDifference(a, b, 10, 10);
  ASSERT_TRUE(d.ok());
  EXPECT_DOUBLE_EQ(d->mean_abs, 2.07);
  EXPECT_EQ(d->p99, 7u);  // the 99th of 100 ranks
  EXPECT_EQ(d->max, 200u);
  EXPECT_FALSE(measurePixelDifference(a, b, 10, 11).ok());
  RenderDifference all;
  addFrameDifference(all, "one", *d);
  addFrameDifference(all, "two", PixelDifference{3.0, 1, 2});
  EXPECT_EQ(all.frames.size(), 2u);
  EXPECT_DOUBLE_EQ(all.worst_mean, 3.0);
  EXPECT_EQ(all.worst_p99, 7u);
  EXPECT_EQ(all.worst_max, 200u);
}

class RenderCompareTest : public test::VulkanTest {
 protected:
  static RenderOptions smallFrames() {
    RenderOptions options;
    options.width = options.height = 64;
    options.shadow_size = 256;
    return options;
  }
  RenderDifference compare(const Asset& reference, const Asset& candidate) {
    Expected<std::vector<LabelledPose>> poses = renderCheckPoses(reference);
    EXPECT_TRUE(poses.ok()) << poses.error().message;
    if (!poses) return {};
    Expected<RenderDifference> diff = compareRenders(*context_, reference, candidate, *poses, smallFrames());
    EXPECT_TRUE(diff.ok()) << diff.error().message;
    if (!diff) return {};
    EXPECT_EQ(diff->frames.size(), poses->size());
    EXPECT_EQ(diff->width, 64u);
    return *diff;
  }
};

TEST_F(RenderCompareTest, IdenticalAssetsDifferByNothing) {
  MORPHKIT_REQUIRE_GPU(context_);
  const Asset asset = texturedDemo();
  Expected<std::vector<uint8_t>> glb = writeGlb(asset);
  ASSERT_TRUE(glb.ok()) << glb.error().message;
  Expected<Asset> reloaded = loadAssetFromMemory(*glb, asset.base_dir);
  ASSERT_TRUE(reloaded.ok()) << reloaded.error().message;
  for (const Asset* other : {&asset, static_cast<const Asset*>(&*reloaded)}) {
    const RenderDifference diff = compare(asset, *other);
    EXPECT_EQ(diff.worst_mean, 0.0);
    EXPECT_EQ(diff.worst_p99, 0u);
    EXPECT_EQ(diff.worst_max, 0u);
    EXPECT_TRUE(diff.warnings.empty()) << testing::PrintToString(diff.warnings);
  }
}

TEST_F(RenderCompareTest, WebpTexturesDifferALittle) {
  MORPHKIT_REQUIRE_GPU(context_);
  const Asset input = texturedDemo();
  OptimizeOptions options;
  options.textures = TextureFormat::kWebp;
  const test::Optimized run = test::optimizeOrDie(input, options);
  const RenderDifference diff = compare(input, run.asset);
  EXPECT_GT(diff.worst_mean, 0.0);  // the file did change
  EXPECT_LT(diff.worst_mean, 2.0);  // but not what a viewer sees, on average ...
  EXPECT_LE(diff.worst_p99, 12u);   // ... nor on 99 % of the pixels
}

TEST_F(RenderCompareTest, BrokenOutputsDifferALot) {
  MORPHKIT_REQUIRE_GPU(context_);
  const Asset input = texturedDemo();
  Asset flat = input;  // the base colour texture gone: a flat green in its place
  flat.materials[0].base_color_texture = {};
  flat.materials[0].base_color_factor[0] = 0.1f;
  flat.materials[0].base_color_factor[2] = 0.1f;
  Asset moved = input;  // the whole model a tenth of its height to the right
  for (Node& node : moved.nodes) node.translation.x += 0.05;
  Asset undrawable = input;  // the base colour texture has no image the renderer can draw (as a KTX2 one)
  undrawable.textures[undrawable.materials[0].base_color_texture.texture].source = kNone;
  for (const Asset* broken : {&flat, &moved, &undrawable}) {
    const RenderDifference diff = compare(input, *broken);
    EXPECT_GT(diff.worst_mean, 5.0);
    EXPECT_GT(diff.worst_p99, 60u);
    // Only the renderer's failure to draw is a warning: the first two draw what they hold.
    EXPECT_EQ(diff.warnings.empty(), broken != &undrawable) << testing::PrintToString(diff.warnings);
  }
}

// The small textured demo as d.glb in a fresh folder.
std::filesystem::path demoDir() {
  const std::filesystem::path dir = test::scratchDir();
  Expected<std::vector<uint8_t>> glb = writeGlb(texturedDemo());
  EXPECT_TRUE(glb.ok());
  if (glb) {
    EXPECT_TRUE(writeFileAtomic(dir / "d.glb", std::span<const uint8_t>(*glb)).ok());
  }
  return dir;
}

// VK_ICD_FILENAMES pointed nowhere while it lives: the loader finds no driver (kNoDevice), as on a machine without one.
struct NoVulkanDriver {
  NoVulkanDriver() {
    if (const char* old = std::getenv("VK_ICD_FILENAMES")) saved = old;
    setenv("VK_ICD_FILENAMES", "/nonexistent/icd.json", 1);
  }
  ~NoVulkanDriver() {
    if (saved) {
      setenv("VK_ICD_FILENAMES", saved->c_str(), 1);
    } else {
      unsetenv("VK_ICD_FILENAMES");
    }
  }
  std::optional<std::string> saved;
};

TEST(OptimizeRenderCheck, WebpTexturesAreCheckedUnasked) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const std::filesystem::path dir = demoDir();
  test::CliRun run = test::runMorphkit(dir, "optimize d.glb --out o.glb --textures webp --json --no-progress");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element report = parser.parse(run.out);
  simdjson::dom::element diff = report["renderDiff"];
  EXPECT_EQ(uint64_t(diff["width"]), kRenderCheckSize);
  EXPECT_EQ(uint64_t(diff["height"]), kRenderCheckSize);
  simdjson::dom::array poses = diff["poses"];
  EXPECT_EQ(poses.size(), 4u);
  for (simdjson::dom::element pose : poses) {
    EXPECT_FALSE(std::string_view(pose["pose"]).empty());
    EXPECT_LE(double(pose["meanAbs"]), double(diff["worstMean"]));
    EXPECT_LE(uint64_t(pose["p99"]), uint64_t(diff["worstP99"]));
    EXPECT_LE(uint64_t(pose["p99"]), uint64_t(pose["max"]));
  }
  EXPECT_GT(double(diff["worstMean"]), 0.0);
  EXPECT_LT(double(diff["worstMean"]), 2.0);
  // The table prints it too.
  run = test::runMorphkit(dir, "optimize d.glb --out o.glb --textures webp --no-progress");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("render check 256x256"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("the rest pose"), std::string::npos) << run.out;
}

TEST(OptimizeRenderCheck, WithoutADeviceANoteUnlessAsked) {
  const std::filesystem::path dir = demoDir();
  NoVulkanDriver no_driver;
  test::CliRun run = test::runMorphkit(dir, "optimize d.glb --out o.glb --textures webp --json --no-progress");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.find("renderDiff"), std::string::npos);
  EXPECT_NE(run.out.find("render check skipped: "), std::string::npos) << run.out;
  run = test::runMorphkit(dir, "optimize d.glb --out o.glb --render-check --no-progress");
  EXPECT_EQ(run.exit_code, 1);
  const size_t error = run.err.find("morphkit: error: --render-check: ");
  ASSERT_NE(error, std::string::npos) << run.err;
  EXPECT_EQ(run.err.find('\n', error), run.err.size() - 1) << run.err;  // one line, the last
  EXPECT_EQ(run.err.find("morphkit: error:", error + 1), std::string::npos) << run.err;
}

TEST(OptimizeRenderCheck, LeftOutWhenTexturesAreKeptOrWhenTold) {
  const std::filesystem::path dir = demoDir();
  for (const char* args : {"optimize d.glb --out o.glb --json --no-progress",
                           "optimize d.glb --out o.glb --textures webp --no-render-check --json --no-progress"}) {
    test::CliRun run = test::runMorphkit(dir, args);
    ASSERT_EQ(run.exit_code, 0) << args << "\n" << run.err;
    EXPECT_EQ(run.out.find("renderDiff"), std::string::npos) << args;
    EXPECT_EQ(run.out.find("render check"), std::string::npos) << args;
  }
  EXPECT_EQ(test::runMorphkit(dir, "optimize d.glb --out o.glb --render-check --no-render-check").exit_code, 2);
}

}  // namespace
}  // namespace morphkit
