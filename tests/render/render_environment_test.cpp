// SPDX-License-Identifier: MIT
// The image-based light (morphkit/render/environment.h) and the look options (the .hdr codec: tests/image):
//   parse      tone curves and background colours (no device)
//   maps       the roughest level of a uniform environment is that radiance; of a sky-over-black one, the cosine
//              irradiance E/π = (1 + sin latitude) / 2 at every texel; the studio's mean
//   furnace    a base-colour-1 material (glTF's default, metallic 1 roughness 1) in a uniform environment with no
//              key light and no tone curve renders that radiance: the multiple-scattering IBL keeps energy
//   orient     a half-red (−Z) / half-green (+Z) environment lights a surface facing +Z green, and rotated 180°
//              red (three.js's equirect convention and rotation sign)
//   default    the default look (studio + key light + neutral) on SimpleSkin, SimpleMorph and the Blender exports:
//              no more than 2 % of the model's pixels darker than 8/255
//   cli        bad values are usage errors (exit 2); a missing, truncated or non-HDR file is one error line, exit 1
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "gltf_test_util.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/files.h"
#include "morphkit/render/environment.h"
#include "morphkit/render/render.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

TEST(RenderLook, ParsesToneCurvesAndBackgrounds) {
  EXPECT_EQ(parseToneMapping("neutral"), ToneMapping::kNeutral);
  EXPECT_EQ(parseToneMapping("aces"), ToneMapping::kAces);
  EXPECT_EQ(parseToneMapping("none"), ToneMapping::kOff);
  EXPECT_FALSE(parseToneMapping("filmic"));
  EXPECT_STREQ(toneMappingName(ToneMapping::kAces), "aces");
  float rgba[4];
  ASSERT_TRUE(parseBackgroundColor("255,0,188", rgba));
  EXPECT_FLOAT_EQ(rgba[0], 1.0f);
  EXPECT_FLOAT_EQ(rgba[1], 0.0f);
  EXPECT_NEAR(rgba[2], 0.5f, 0.003f);  // sRGB 188 is linear 0.5
  EXPECT_EQ(rgba[3], 1.0f);
  for (const char* bad : {"", "1,2", "1,2,3,4", "256,0,0", "-1,0,0", "a,b,c", "1,,2", "1, 2,3"}) {
    EXPECT_FALSE(parseBackgroundColor(bad, rgba)) << bad;
  }
}

class EnvironmentTest : public test::VulkanTest {
 protected:
  // One frame of `file` from the auto camera with `options` (128², vertex path).
  RenderedImage render(const std::filesystem::path& file, RenderOptions options) {
    auto asset = loadAsset(file);
    EXPECT_TRUE(asset.ok()) << file;
    if (!asset) return {};
    options.width = options.height = 128;
    options.shadow_size = 256;
    auto renderer = createRenderer(*context_, *asset, options);
    EXPECT_TRUE(renderer.ok()) << renderer.error().message;
    if (!renderer) return {};
    auto image = renderFrame(**renderer, RenderFrameInput{});
    EXPECT_TRUE(image.ok());
    destroyRenderer(*renderer);
    return image ? *image : RenderedImage{};
  }
  // Pixels that differ from the clear colour (the model's pixels).
  static std::vector<const uint8_t*> modelPixels(const RenderedImage& image) {
    std::vector<const uint8_t*> out;
    for (size_t i = 0; i + 3 < image.rgba.size(); i += 4) {
      const uint8_t* p = &image.rgba[i];
      if (p[0] != image.rgba[0] || p[1] != image.rgba[1] || p[2] != image.rgba[2]) out.push_back(p);
    }
    return out;
  }
};

HdrImage uniformImage(float r, float g, float b) {
  HdrImage image{64, 32, {}};
  for (int i = 0; i < 64 * 32; ++i) image.rgb.insert(image.rgb.end(), {r, g, b});
  return image;
}

TEST_F(EnvironmentTest, UniformEnvironmentIsItsOwnIrradiance) {
  MORPHKIT_REQUIRE_GPU(context_);
  const HdrImage image = uniformImage(0.5f, 0.25f, 2.0f);
  auto maps = createEnvironmentMaps(*context_, &image);
  ASSERT_TRUE(maps.ok()) << maps.error().message;
  auto info = environmentInfo(*context_, **maps);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->width, 64u);
  EXPECT_EQ(info->levels, 3u);
  const float expected[3] = {0.5f, 0.25f, 2.0f};
  // The roughest prefiltered level of a uniform environment is that radiance (to half-float precision).
  ASSERT_EQ(info->roughest.size(), size_t(info->roughest_width) * info->roughest_height * 3);
  for (size_t i = 0; i < info->roughest.size(); ++i) ASSERT_NEAR(info->roughest[i], expected[i % 3], 0.004f) << i;
  // The split-sum table: A + B (the white furnace of the lobe) in (0, 1], close to 1 for smooth surfaces.
  ASSERT_EQ(info->table.size(), size_t(info->table_size) * info->table_size * 2);
  for (size_t t = 0; t < info->table.size(); t += 2) {
    ASSERT_GT(info->table[t] + info->table[t + 1], 0.3f) << t;
    ASSERT_LE(info->table[t] + info->table[t + 1], 1.01f) << t;
  }
  const size_t smooth = (0 * info->table_size + info->table_size - 1) * 2;  // roughness ~0, N·V ~1
  EXPECT_GT(info->table[smooth] + info->table[smooth + 1], 0.97f);
  destroyEnvironmentMaps(*maps);

  const HdrImage studio = studioEnvironment();
  auto studio_maps = createEnvironmentMaps(*context_, &studio);
  ASSERT_TRUE(studio_maps.ok());
  auto studio_info = environmentInfo(*context_, **studio_maps);
  EXPECT_EQ(studio_info->width, 512u);
  EXPECT_EQ(studio_info->levels, 6u);  // 512 … 16 wide, as three.js's 256-face PMREM has 6 levels
  // The roughest level's solid-angle-weighted mean is the studio's mean radiance; brighter above (+Y) than below.
  const uint32_t w = studio_info->roughest_width, h = studio_info->roughest_height;
  double sum = 0, weight = 0;
  for (uint32_t y = 0; y < h; ++y) {
    const double ring = std::cos((0.5 - (y + 0.5) / h) * 3.14159265358979);
    for (uint32_t x = 0; x < w; ++x) sum += ring * studio_info->roughest[(size_t(y) * w + x) * 3 + 1];
    weight += ring * w;
  }
  EXPECT_GT(sum / weight, 0.2);
  EXPECT_LT(sum / weight, 0.45);
  EXPECT_GT(studio_info->roughest[1], studio_info->roughest[(size_t(h - 1) * w) * 3 + 1]);
  destroyEnvironmentMaps(*studio_maps);
}

// A white sky over a black ground: the irradiance of a hemisphere light, E/π = (1 + sin β) / 2 at latitude β, is
// what the roughest level holds at every texel (the diffuse term reads it; three.js's PMREM holds the same there).
TEST_F(EnvironmentTest, RoughestLevelIsTheCosineIrradiance) {
  MORPHKIT_REQUIRE_GPU(context_);
  HdrImage sky{64, 32, {}};
  for (int i = 0; i < 64 * 32; ++i) {
    const float v = i / 64 < 16 ? 1.0f : 0.0f;
    sky.rgb.insert(sky.rgb.end(), {v, v, v});
  }
  auto maps = createEnvironmentMaps(*context_, &sky);
  ASSERT_TRUE(maps.ok()) << maps.error().message;
  auto info = environmentInfo(*context_, **maps);
  ASSERT_TRUE(info.ok());
  const uint32_t w = info->roughest_width, h = info->roughest_height;
  ASSERT_EQ(info->roughest.size(), size_t(w) * h * 3);
  for (uint32_t y = 0; y < h; ++y) {
    const double latitude = (0.5 - (y + 0.5) / h) * 3.14159265358979;
    const double expected = (1.0 + std::sin(latitude)) / 2.0;
    for (uint32_t x = 0; x < w; ++x) {
      for (int c = 0; c < 3; ++c)
        ASSERT_NEAR(info->roughest[(size_t(y) * w + x) * 3 + c], expected, 0.01) << x << "," << y;
    }
  }
  destroyEnvironmentMaps(*maps);
}

TEST_F(EnvironmentTest, WhiteFurnaceRendersTheEnvironmentRadiance) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  const HdrImage image = uniformImage(0.5f, 0.5f, 0.5f);
  RenderOptions options;
  options.environment = EnvironmentKind::kImage;
  options.environment_image = &image;
  options.key_light = false;
  options.tone_mapping = ToneMapping::kOff;
  options.msaa = 1;  // no edge pixels blended with the background
  // The Blender cube has no material: glTF's default, base colour 1, metallic 1, roughness 1.
  const RenderedImage frame = render(test::assetsDir() / "BlenderIO_01_cs_morph/01_cs_morph.gltf", options);
  const auto pixels = modelPixels(frame);
  ASSERT_GT(pixels.size(), 1000u);
  for (const uint8_t* p : pixels) {
    for (int c = 0; c < 3; ++c) ASSERT_NEAR(int(p[c]), 188, 4) << "linear 0.5 is sRGB 188";
  }
  // The same with tone mapping: Neutral leaves 0.5 − 0.04 (its black-level offset) → sRGB 181.
  options.tone_mapping = ToneMapping::kNeutral;
  const RenderedImage toned = render(test::assetsDir() / "BlenderIO_01_cs_morph/01_cs_morph.gltf", options);
  for (const uint8_t* p : modelPixels(toned)) ASSERT_NEAR(int(p[1]), 182, 4);
}

TEST_F(EnvironmentTest, EquirectOrientationAndRotationFollowThreeJs) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  // Columns u < 0.5 show directions with z < 0 (atan2(z, x) < 0): red there, green where z > 0.
  HdrImage image{64, 32, {}};
  for (int y = 0; y < 32; ++y) {
    for (int x = 0; x < 64; ++x) image.rgb.insert(image.rgb.end(), {x < 32 ? 1.0f : 0.0f, x < 32 ? 0.0f : 1.0f, 0});
  }
  RenderOptions options;
  options.environment = EnvironmentKind::kImage;
  options.environment_image = &image;
  options.key_light = false;
  const auto file = test::assetsDir() / "SimpleMorph/glTF/SimpleMorph.gltf";  // one triangle facing +Z
  auto dominant = [&](float rotation) {
    options.environment_rotation_deg = rotation;
    const RenderedImage frame = render(file, options);
    int64_t red = 0, green = 0;
    for (const uint8_t* p : modelPixels(frame)) red += p[0], green += p[1];
    EXPECT_GT(red + green, 0);
    return red > 2 * green ? 'r' : green > 2 * red ? 'g' : '?';
  };
  EXPECT_EQ(dominant(0.0f), 'g');
  EXPECT_EQ(dominant(180.0f), 'r');
}

TEST_F(EnvironmentTest, DefaultLookIsNotBlack) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  for (const char* file :
       {"SimpleSkin/glTF/SimpleSkin.gltf", "SimpleMorph/glTF/SimpleMorph.gltf",
        "BlenderIO_01_cs_morph/01_cs_morph.gltf", "BlenderIO_03_skinned_cylinder/03_skinned_cylinder.gltf"}) {
    const RenderedImage frame = render(test::assetsDir() / file, RenderOptions{});
    const auto pixels = modelPixels(frame);
    ASSERT_GT(pixels.size(), 100u) << file;
    size_t dark = 0;
    for (const uint8_t* p : pixels) dark += std::max({p[0], p[1], p[2]}) < 8;
    EXPECT_LE(double(dark) / double(pixels.size()), 0.02) << file;
    // And with no environment the default material is black again (the test can fail).
    RenderOptions off;
    off.environment = EnvironmentKind::kOff;
    off.key_light = false;
    off.msaa = 1;  // no edge pixels blended with the background
    const RenderedImage dark_frame = render(test::assetsDir() / file, off);
    for (const uint8_t* p : modelPixels(dark_frame)) ASSERT_LT(p[1], 8) << file;
  }
}

// Two half-transparent double-sided quads, red at z = 0.5 first in the file, blue at z = −0.5.
std::string blendedQuadsJson() {
  std::vector<uint8_t> bin;
  auto put = [&](const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    bin.insert(bin.end(), b, b + n);
  };
  for (float z : {0.5f, -0.5f}) {
    const float quad[12] = {-1, -1, z, 1, -1, z, 1, 1, z, -1, 1, z};
    put(quad, sizeof quad);
  }
  const uint16_t indices[6] = {0, 1, 2, 0, 2, 3};
  put(indices, sizeof indices);
  std::string body =
      "\"buffers\":[" + test::bufferJson(bin) + "]," +
      R"("bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":48},{"buffer":0,"byteOffset":48,"byteLength":48},
                       {"buffer":0,"byteOffset":96,"byteLength":12}],
    "accessors":[{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3","min":[-1,-1,0.5],"max":[1,1,0.5]},
                 {"bufferView":1,"componentType":5126,"count":4,"type":"VEC3","min":[-1,-1,-0.5],"max":[1,1,-0.5]},
                 {"bufferView":2,"componentType":5123,"count":6,"type":"SCALAR"}],
    "materials":[{"alphaMode":"BLEND","doubleSided":true,"emissiveFactor":[1,0,0],
                  "pbrMetallicRoughness":{"baseColorFactor":[0,0,0,0.5]}},
                 {"alphaMode":"BLEND","doubleSided":true,"emissiveFactor":[0,0,1],
                  "pbrMetallicRoughness":{"baseColorFactor":[0,0,0,0.5]}}],
    "meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":2,"material":0}]},
              {"primitives":[{"attributes":{"POSITION":1},"indices":2,"material":1}]}],
    "nodes":[{"mesh":0},{"mesh":1}],"scenes":[{"nodes":[0,1]}],"scene":0)";
  return test::gltfJson(body);
}

TEST_F(EnvironmentTest, BlendedDrawsAreSortedBackToFront) {
  MORPHKIT_REQUIRE_GPU(context_);
  auto asset = test::loadJson(blendedQuadsJson());
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  RenderOptions options;
  options.width = options.height = 32;
  options.environment = EnvironmentKind::kOff;
  options.key_light = false;
  options.tone_mapping = ToneMapping::kOff;
  options.msaa = 1;
  std::fill(std::begin(options.background), std::end(options.background), 0.0f);
  options.background[3] = 1.0f;
  auto renderer = createRenderer(*context_, *asset, options);
  ASSERT_TRUE(renderer.ok()) << renderer.error().message;
  auto centre = [&](Vec3 eye) {
    RenderFrameInput input;
    RenderCamera camera;
    camera.eye = eye;
    camera.target = {0, 0, 0};
    camera.znear = 0.1f;
    camera.zfar = 100.0f;
    input.camera = camera;
    auto image = renderFrame(**renderer, input);
    EXPECT_TRUE(image.ok());
    const size_t p = (16 * 32 + 16) * 4;
    return std::pair<int, int>{image->rgba[p], image->rgba[p + 2]};
  };
  // From +Z the red quad is nearer: drawn last, it dominates (0.5 red over 0.5 blue: red 188, blue 137 in sRGB).
  const auto [red_front, blue_behind] = centre({0, 0, 5});
  EXPECT_GT(red_front, blue_behind + 30);
  // From −Z the blue quad is nearer: the same file order, the other draw order (the depth decides, per frame).
  const auto [red_behind, blue_front] = centre({0, 0, -5});
  EXPECT_GT(blue_front, red_behind + 30);
  destroyRenderer(*renderer);
}

TEST(RenderLookCommand, BadValuesAreUsageErrorsAndBadFilesOneLine) {
  MORPHKIT_REQUIRE_SHARED();
  auto dir = test::scratchDir();
  const std::string model = (test::assetsDir() / "SimpleMorph/glTF/SimpleMorph.gltf").string();
  for (const char* bad :
       {"--tone-mapping filmic", "--exposure nan", "--exposure 40", "--light sun", "--background 1,2",
        "--background 300,0,0", "--environment sky.exr", "--environment-intensity -1", "--environment-rotation inf"}) {
    auto run = test::runMorphkit(dir, "render '" + model + "' --out o --no-video " + bad);
    EXPECT_EQ(run.exit_code, 2) << bad << ": " << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << bad << ": " << run.err;
  }
  std::vector<uint8_t> truncated = encodeRadianceHdr(HdrImage{16, 4, std::vector<float>(16 * 4 * 3, 0.5f)});
  truncated.resize(truncated.size() - 9);
  ASSERT_TRUE(writeFileAtomic(dir / "truncated.hdr", std::span<const uint8_t>(truncated)).ok());
  ASSERT_TRUE(writeFileAtomic(dir / "photo.hdr", std::string_view("\xff\xd8\xff\xe0 JFIF")).ok());
  for (const char* file : {"missing.hdr", "truncated.hdr", "photo.hdr"}) {
    auto run = test::runMorphkit(dir, "render '" + model + "' --out o --no-video --environment " + file);
    EXPECT_EQ(run.exit_code, 1) << file << ": " << run.err;
    EXPECT_EQ(run.err.rfind(std::string("morphkit: error: ") + file + ": ", 0), 0u) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "o" / "frame_0000.png"));
  }
}

}  // namespace
}  // namespace morphkit
