// SPDX-License-Identifier: MIT
// Node materials in the renderer (RenderOptions::node_material, `morphkit render --material`), lavapipe or any
// Vulkan device, validation on (any message fails: VulkanTest's TearDown):
//   equal    examples/morph_skin_pbr.json on AnimatedMorphCube mid-animation, examples/static_pbr.json on a model
//            without morph targets, and morph_skin_pbr.json on a skinned model render the same image as the
//            built-in PBR path in the default look (studio environment, Neutral): the path metric of
//            tests/render/render_golden_test.cpp, mean |Δ| ≤ 0.5/255 per channel and ≤ 0.1 % of pixels with a channel
//            off by > 8/255.
//   differs  a graph with a constant emissive color does not (the metric can fail).
//   light    examples/morph_skin_pbr.json on a morphed + skinned make-demo head, three frames of its "talk" clip,
//            under three looks (the studio environment with Neutral; a .hdr made here, rotated, with exposure, ACES
//            and the environment as background; the studio with no tone curve and negative exposure) equals the
//            built-in path: mean |Δ| ≤ 1/255 and ≤ 0.5 % of pixels with a channel off by > 16/255 per frame. The
//            looks must differ from each other (the light is really in the comparison).
//   cli      `render --material GRAPH` writes frames (exit 0); a missing graph exits 1 with one error line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "morphkit/demo/demo.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/material/node_material.h"
#include "morphkit/model/files.h"
#include "morphkit/render/environment.h"
#include "morphkit/render/render.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

constexpr uint32_t kSize = 128;

std::filesystem::path sourceDir() {
  return test::sourceDir();
}
std::filesystem::path example(const char* name) {
  return sourceDir() / "examples" / name;
}

DecodedImage asDecoded(const RenderedImage& image) {
  return DecodedImage{image.width, image.height, image.rgba};
}

class RenderNodeMaterialTest : public test::VulkanTest {
 protected:
  // One frame of `asset` at `time` of animation `animation` (kNone: rest pose), framed on that pose; the
  // built-in PBR path when `material` is null.
  RenderedImage render(const Asset& asset, const NodeMaterial* material, uint32_t animation, double time) {
    RenderOptions options;
    options.width = options.height = kSize;
    options.shadow_size = 256;
    options.morph_path = MorphPath::kVertex;
    options.node_material = material;  // the default look: node materials get the studio light and Neutral too
    auto renderer = createRenderer(*context_, asset, options);
    EXPECT_TRUE(renderer.ok()) << renderer.error().message;
    if (!renderer) return {};
    auto bounds = posedBounds(asset, kNone, animation, time, time, 1);
    EXPECT_TRUE(bounds.ok());
    if (bounds) setRendererCamera(**renderer, frameBounds(*bounds, 1.0f), *bounds);
    RenderFrameInput input;
    input.animation = animation;
    input.time = time;
    auto image = renderFrame(**renderer, input);
    EXPECT_TRUE(image.ok()) << image.error().message;
    info_ = rendererInfo(**renderer);
    destroyRenderer(*renderer);
    return image ? *image : RenderedImage{};
  }

  static Expected<ImageDiff> diff(const RenderedImage& a, const RenderedImage& b) {
    return diffImages(asDecoded(a), asDecoded(b), 8);
  }
  static void expectSame(const RenderedImage& a, const RenderedImage& b, const std::string& what) {
    ASSERT_EQ(a.rgba.size(), size_t(kSize) * kSize * 4) << what;
    auto d = diff(a, b);
    ASSERT_TRUE(d.ok()) << d.error().message;
    EXPECT_LE(d->mean_abs, 0.5) << what;
    EXPECT_LE(d->fraction_over, 0.001) << what << ": max " << d->max_abs;
    if (d->mean_abs > 0.5 || d->fraction_over > 0.001) {  // for inspection, beside the test binary
      const std::filesystem::path dir = std::filesystem::read_symlink("/proc/self/exe").parent_path();
      for (auto [name, image] : {std::pair{"node_builtin.png", asDecoded(a)}, std::pair{"node_node.png", asDecoded(b)},
                                 std::pair{"node_diff.png", d->diff}}) {
        auto png = encodePng(image.rgba, image.width, image.height);
        if (png) (void)writeFileAtomic(dir / name, std::span<const uint8_t>(*png));
      }
    }
  }
  static NodeMaterial graph(const char* name) {
    auto material = loadNodeMaterial(example(name).string());
    EXPECT_TRUE(material.ok()) << material.error().message;
    return material ? std::move(*material) : NodeMaterial{};
  }

  RendererInfo info_;
};

TEST_F(RenderNodeMaterialTest, MorphSkinGraphEqualsBuiltInOnAnimatedMorphCube) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto asset = loadAsset(test::assetsDir() / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const NodeMaterial material = graph("morph_skin_pbr.json");
  ASSERT_TRUE(nodeMaterialUsesMorph(material));
  RenderedImage rest = render(*asset, nullptr, kNone, 0.0);
  RenderedImage builtin = render(*asset, nullptr, 0, 1.0);  // mid-animation: both targets partly on
  RenderedImage node = render(*asset, &material, 0, 1.0);
  EXPECT_EQ(info_.path, MorphPath::kVertex);
  EXPECT_EQ(info_.draws, 1u);
  expectSame(builtin, node, "AnimatedMorphCube t=1.0, morph_skin_pbr.json vs built-in");
  // The frame really morphs (otherwise equality would not show the node morph path works).
  auto moved = diff(rest, builtin);
  ASSERT_TRUE(moved.ok());
  EXPECT_GT(moved->fraction_over, 0.01) << "the animated frame should differ from the rest pose";
}

TEST_F(RenderNodeMaterialTest, StaticGraphEqualsBuiltInWithoutMorphTargets) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto asset = loadAsset(test::assetsDir() / "InterpolationTest/glTF-Binary/InterpolationTest.glb");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const NodeMaterial material = graph("static_pbr.json");
  ASSERT_FALSE(nodeMaterialUsesMorph(material));
  RenderedImage builtin = render(*asset, nullptr, 0, 0.5);
  RenderedImage node = render(*asset, &material, 0, 0.5);
  expectSame(builtin, node, "InterpolationTest, static_pbr.json vs built-in");
}

TEST_F(RenderNodeMaterialTest, MorphSkinGraphEqualsBuiltInOnSkinnedModel) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto asset = loadAsset(test::assetsDir() / "Fox/glTF-Binary/Fox.glb");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const NodeMaterial material = graph("morph_skin_pbr.json");
  RenderedImage builtin = render(*asset, nullptr, 0, 0.7);
  RenderedImage node = render(*asset, &material, 0, 0.7);
  expectSame(builtin, node, "Fox t=0.7, morph_skin_pbr.json vs built-in");
}

// Node materials read the same decoded primitive and texture references as every other path: Fox_unnormalized
// (weights rescaled at decode) and Fox_gltfpack (quantized UVs + KHR_texture_transform) drawn by the graph equal
// Fox.glb drawn by the built-in shaders.
TEST_F(RenderNodeMaterialTest, FieldFileEqualsItsSourceModel) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto fox = loadAsset(test::assetsDir() / "Fox/glTF-Binary/Fox.glb");
  ASSERT_TRUE(fox.ok()) << fox.error().message;
  const NodeMaterial material = graph("morph_skin_pbr.json");
  RenderedImage builtin = render(*fox, nullptr, 0, 0.7);
  for (const char* file : {"Fox_unnormalized.glb", "Fox_gltfpack.glb"}) {  // rescaled weights; KHR_texture_transform
    auto asset = loadAsset(test::sharedDir() / "field" / "assets" / file);
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    expectSame(builtin, render(*asset, &material, 0, 0.7),
               std::string(file) + " t=0.7, morph_skin_pbr.json vs Fox built-in");
  }
}

TEST_F(RenderNodeMaterialTest, DifferentGraphGivesADifferentImage) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto asset = loadAsset(test::assetsDir() / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  auto material = parseNodeMaterial(R"({"name": "red", "blocks": [
    {"id": "c", "type": "Constant", "value": [1, 0, 0, 1]},
    {"id": "out", "type": "PbrOutput", "inputs": {"baseColor": "c"}}]})");
  ASSERT_TRUE(material.ok()) << material.error().message;
  RenderedImage builtin = render(*asset, nullptr, 0, 1.0);
  RenderedImage node = render(*asset, &*material, 0, 1.0);
  auto d = diff(builtin, node);
  ASSERT_TRUE(d.ok());
  EXPECT_GT(d->fraction_over, 0.01);
}

// What the renderer gives every lit surface besides the key light (docs/RENDER.md "Look").
struct Look {
  const char* name;
  const EnvironmentMaps* maps = nullptr;
  float exposure_ev = 0.0f;
  ToneMapping tone_mapping = ToneMapping::kNeutral;
  float rotation_deg = 0.0f;
  bool background_environment = false;
};

// An environment unlike the studio: a blue sky over a warm ground, and a small bright sun low in the −X, +Z quarter.
HdrImage sunsetEnvironment() {
  HdrImage image;
  image.width = 64;
  image.height = 32;
  for (uint32_t y = 0; y < image.height; ++y) {
    for (uint32_t x = 0; x < image.width; ++x) {
      const float up = 1.0f - 2.0f * (float(y) + 0.5f) / float(image.height);  // +1 at the top row
      float r = up > 0 ? 0.25f + 0.2f * (1 - up) : 0.35f, g = up > 0 ? 0.35f + 0.1f * (1 - up) : 0.22f,
            b = up > 0 ? 0.9f : 0.12f;
      if (x >= 40 && x < 44 && y >= 12 && y < 15) r = 40.0f, g = 28.0f, b = 12.0f;  // the sun
      image.rgb.insert(image.rgb.end(), {r, g, b});
    }
  }
  return image;
}

// morph_skin_pbr.json against the built-in path on a morph + skin asset, frame by frame, under several looks: node
// materials light with the renderer's own light (lighting.glsl), not a copy of it.
TEST_F(RenderNodeMaterialTest, MorphSkinGraphIsLitLikeBuiltInUnderEveryLook) {
  MORPHKIT_REQUIRE_GPU(context_);
  DemoOptions demo;
  demo.targets = 24;
  demo.vertices = 1500;
  demo.bones = 4;
  auto asset = makeDemoAsset(demo);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  ASSERT_FALSE(asset->skins.empty());
  ASSERT_FALSE(asset->animations.empty());
  const NodeMaterial material = graph("morph_skin_pbr.json");
  ASSERT_TRUE(nodeMaterialUsesMorph(material) && nodeMaterialUsesSkinning(material));

  const HdrImage sunset = sunsetEnvironment();
  const HdrImage studio_image = studioEnvironment();
  auto studio = createEnvironmentMaps(*context_, &studio_image);
  ASSERT_TRUE(studio.ok()) << studio.error().message;
  auto other = createEnvironmentMaps(*context_, &sunset);
  ASSERT_TRUE(other.ok()) << other.error().message;
  const Look looks[] = {{"studio", *studio},
                        {"sunset.hdr", *other, 0.7f, ToneMapping::kAces, 60.0f, true},
                        {"studio, no tone curve", *studio, -1.0f, ToneMapping::kOff}};
  constexpr uint32_t kLookSize = 96;
  const double times[] = {0.4, 1.1, 2.3};  // "talk": jaw and weights moving
  auto bounds = posedBounds(*asset, kNone, 0, 0.0, 3.0, 16);
  ASSERT_TRUE(bounds.ok()) << bounds.error().message;

  // Each look's frames, built-in (null) or node material.
  auto renderLook = [&](const Look& look, const NodeMaterial* node) {
    std::vector<RenderedImage> frames;
    RenderOptions options;
    options.width = options.height = kLookSize;
    options.shadow_size = 256;
    options.morph_path = MorphPath::kVertex;
    options.node_material = node;
    options.environment_maps = look.maps;
    options.exposure_ev = look.exposure_ev;
    options.tone_mapping = look.tone_mapping;
    options.environment_rotation_deg = look.rotation_deg;
    options.background_environment = look.background_environment;
    auto renderer = createRenderer(*context_, *asset, options);
    EXPECT_TRUE(renderer.ok()) << renderer.error().message;
    if (!renderer) return frames;
    setRendererCamera(**renderer, frameBounds(*bounds, 1.0f), *bounds);
    for (double t : times) {
      RenderFrameInput input;
      input.animation = 0;
      input.time = t;
      auto image = renderFrame(**renderer, input);
      EXPECT_TRUE(image.ok()) << image.error().message;
      if (image) frames.push_back(std::move(*image));
    }
    destroyRenderer(*renderer);
    return frames;
  };

  std::vector<RenderedImage> first_builtin;
  for (const Look& look : looks) {
    const std::vector<RenderedImage> builtin = renderLook(look, nullptr);
    const std::vector<RenderedImage> node = renderLook(look, &material);
    ASSERT_EQ(builtin.size(), std::size(times));
    ASSERT_EQ(node.size(), std::size(times));
    for (size_t f = 0; f < builtin.size(); ++f) {
      auto d = diffImages(asDecoded(builtin[f]), asDecoded(node[f]), 16);
      ASSERT_TRUE(d.ok()) << d.error().message;
      const std::string what = std::string(look.name) + ", t=" + std::to_string(times[f]);
      std::printf("[ light ] %-24s t=%.1f  mean %.3f/255, %.2f %% > 16/255, max %u\n", look.name, times[f], d->mean_abs,
                  100.0 * d->fraction_over, d->max_abs);
      EXPECT_LE(d->mean_abs, 1.0) << what;
      EXPECT_LE(d->fraction_over, 0.005) << what << ": max " << d->max_abs;
      if (d->mean_abs > 1.0 || d->fraction_over > 0.005) {  // for inspection, beside the test binary
        const std::filesystem::path dir = std::filesystem::read_symlink("/proc/self/exe").parent_path();
        for (auto [name, image] :
             {std::pair{"light_builtin.png", asDecoded(builtin[f])}, std::pair{"light_node.png", asDecoded(node[f])},
              std::pair{"light_diff.png", d->diff}}) {
          auto png = encodePng(image.rgba, image.width, image.height);
          if (png) (void)writeFileAtomic(dir / name, std::span<const uint8_t>(*png));
        }
      }
    }
    // The look is really in the comparison: each one lights the head differently from the studio default.
    if (first_builtin.empty()) {
      first_builtin = builtin;
    } else {
      auto d = diffImages(asDecoded(first_builtin[0]), asDecoded(builtin[0]), 16);
      ASSERT_TRUE(d.ok());
      EXPECT_GT(d->fraction_over, 0.05) << look.name << " should not look like the studio default";
    }
  }
  destroyEnvironmentMaps(*other);
  destroyEnvironmentMaps(*studio);
}

using test::CliRun;

CliRun morphkit(const std::filesystem::path& dir, const std::string& args) {
  return test::runMorphkit(dir, args);
}

TEST_F(RenderNodeMaterialTest, CliMaterialWritesFrames) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto dir = test::scratchDir();
  const std::string asset = (test::assetsDir() / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf").string();
  CliRun run = morphkit(dir, "render '" + asset + "' --frames 0:2 --size 48x48 --out frames --validation --material '" +
                                 example("morph_skin_pbr.json").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* name : {"frames/frame_0000.png", "frames/frame_0001.png", "frames/contact_sheet.png"}) {
    auto bytes = readFile(dir / name);
    ASSERT_TRUE(bytes.ok()) << name;
    EXPECT_TRUE(decodePng(*bytes).ok()) << name;
  }
}

TEST(RenderNodeMaterialCli, BadGraphPathExitsOneWithOneLine) {
  MORPHKIT_REQUIRE_SHARED();
  auto dir = test::scratchDir();
  const std::string asset = (test::assetsDir() / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf").string();
  CliRun run = morphkit(dir, "render '" + asset + "' --frames 0:1 --size 16x16 --material no_such_graph.json");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(run.err.rfind("morphkit: error: no_such_graph.json: ", 0), 0u) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "AnimatedMorphCube_render"));
}

}  // namespace
}  // namespace morphkit
