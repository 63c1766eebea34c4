// SPDX-License-Identifier: MIT
// optimize's textures pass (src/optimize/pass_textures.cpp, docs/OPTIMIZE.md "Textures"): roles from the material
// slots, WebP and KTX2 written without a fallback, each texture's error measured by decoding what was written, the
// ones that miss the minimum kept, and the bad input (a missing encoder, a corrupt image) one error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/image/basisu.h"
#include "morphkit/image/image.h"
#include "morphkit/optimize/optimize.h"
#include "optimize_support.h"
#include "test_support.h"

namespace morphkit {
namespace {

// The textured demo, small: three 128² images (base colour, normal, occlusion-roughness-metallic).
Asset texturedDemo(uint32_t texture_size = 128) {
  DemoOptions demo;
  demo.targets = 4;
  demo.vertices = 600;
  demo.material = DemoMaterial::kTextured;
  demo.texture_size = texture_size;
  return test::validated(makeDemoAsset(demo));
}

using test::Optimized;
using test::optimizeOrDie;

const OptimizeTextureReport* row(const OptimizeReport& report, const std::string& role) {
  for (const OptimizeTextureReport& t : report.textures) {
    if (t.role == role) return &t;
  }
  ADD_FAILURE() << "no texture of role " << role << " in the report";
  return nullptr;
}

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// The image's stored bytes decoded, against the input's image decoded (both at the input's size).
double psnrAgainstInput(const Asset& input, const Asset& output, uint32_t image) {
  Expected<DecodedImage> a = decodeImage(imageBytes(input, image).value());
  Expected<DecodedImage> b = decodeImage(imageBytes(output, image).value());
  EXPECT_TRUE(a.ok() && b.ok());
  if (!a || !b) return 0;
  Expected<ImageError> error = measureImageError(*a, *b);
  EXPECT_TRUE(error.ok()) << error.error().message;
  return error ? error->psnr : 0;
}

TEST(OptimizeTextures, WebpIsSmallerAndEveryTextureMeetsItsPsnr) {
  const Asset input = texturedDemo();
  OptimizeOptions options;
  options.textures = TextureFormat::kWebp;
  const Optimized run = optimizeOrDie(input, options);
  ASSERT_EQ(run.report.textures.size(), 3u);
  EXPECT_LT(run.report.after.images, run.report.before.images);
  for (const OptimizeTextureReport& t : run.report.textures) {
    EXPECT_FALSE(t.kept) << t.used_by << ": " << t.why;
    EXPECT_GE(t.psnr, kDefaultTextureMinPsnr) << t.used_by;
    EXPECT_LT(t.bytes_after, t.bytes_before) << t.used_by;
    // What the file holds, decoded here, against the input: the report's number is the file's.
    EXPECT_GE(psnrAgainstInput(input, run.asset, t.image), kDefaultTextureMinPsnr) << t.used_by;
  }
  // Roles from the slots: the normal map is not colour: no lossy trial (its X and Y would bleed through 4:2:0
  // chroma), near-lossless with its channel bound.
  const OptimizeTextureReport* normal = row(run.report, "normal");
  ASSERT_NE(normal, nullptr);
  EXPECT_EQ(normal->used_by, "materials[0].normalTexture");
  EXPECT_EQ(normal->format_after, "webp-near-lossless");
  EXPECT_EQ(normal->tried.find("lossy q"), std::string::npos) << normal->tried;
  const OptimizeTextureReport* colour = row(run.report, "colour");
  ASSERT_NE(colour, nullptr);
  EXPECT_EQ(colour->used_by, "materials[0].baseColorTexture");
  EXPECT_EQ(colour->format_after, "webp");
  EXPECT_NE(row(run.report, "data"), nullptr);
  // No fallback: the WebP is the texture's only image, so the extension is required.
  for (const Texture& texture : run.asset.textures) {
    EXPECT_NE(texture.webp_source, kNone);
    EXPECT_EQ(texture.source, kNone);
    EXPECT_EQ(drawnTextureImage(run.asset, texture), texture.webp_source);
  }
  EXPECT_TRUE(contains(run.asset.extensions_required, "EXT_texture_webp"));
  EXPECT_LE(run.report.max_distance, run.report.bound);
  const std::string json = optimizeReportJson(run.report, "in.glb", "out.glb");
  EXPECT_NE(json.find("\"formatAfter\":\"webp-near-lossless\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"setting\":\"lossy q"), std::string::npos) << json;
}

TEST(OptimizeTextures, ATextureThatMissesThePsnrKeepsItsBytes) {
  const Asset input = texturedDemo();
  OptimizeOptions options;
  options.textures = TextureFormat::kWebp;
  options.texture_min_psnr = 99.0;  // lossy WebP cannot reach it; lossless (the normal map's last step) can
  const Optimized run = optimizeOrDie(input, options);
  const OptimizeTextureReport* colour = row(run.report, "colour");
  ASSERT_NE(colour, nullptr);
  EXPECT_TRUE(colour->kept);
  EXPECT_NE(colour->why.find("below --texture-min-psnr"), std::string::npos) << colour->why;
  EXPECT_EQ(colour->format_after, "png");
  EXPECT_EQ(colour->bytes_after, colour->bytes_before);
  const std::span<const uint8_t> before = imageBytes(input, colour->image).value();
  const std::span<const uint8_t> after = imageBytes(run.asset, colour->image).value();
  EXPECT_TRUE(std::equal(before.begin(), before.end(), after.begin(), after.end()));
  const uint32_t texture = input.materials[0].base_color_texture.texture;
  EXPECT_EQ(run.asset.textures[texture].source, colour->image);
  EXPECT_EQ(run.asset.textures[texture].webp_source, kNone);
  EXPECT_NE(colour->tried.find("lossy q95"), std::string::npos) << colour->tried;  // every colour setting tried
  const OptimizeTextureReport* normal = row(run.report, "normal");
  ASSERT_NE(normal, nullptr);
  EXPECT_FALSE(normal->kept);
  EXPECT_EQ(normal->format_after, "webp-lossless");
}

// The normal map's path, step by step (measured on this 128² map: 4:2:0 chroma alone 28.7 dB; lossy q100 with
// sharp YUV 28.9 dB, q50 26.6 dB; near-lossless 20 35.7 dB, largest difference 8; 0: 31.4 dB, 16; 80: 51.7 dB, 1):
// at 35 dB lossy is skipped and near-lossless 20 written, its largest difference within the level's bound; at
// 30 dB lossy q100 is tried (within 3 dB of the ceiling), misses, and near-lossless 0 is written; at 25 dB lossy
// q50 with sharp YUV; at 55 dB even level 80 misses and it ends lossless. What the file holds meets the threshold
// each time.
TEST(OptimizeTextures, ANormalMapGoesNearLosslessWithinItsBound) {
  const Asset input = texturedDemo();
  struct Case {
    double min_psnr;
    const char* format;
    const char* setting;
    const char* tried_first;
    uint32_t bound;  // largest channel difference allowed; 255: lossy, none
  };
  for (const Case& c : {
           Case{35.0, "webp-near-lossless", "near-lossless 20 (±8)", "lossy skipped (4:2:0 alone 28.", 8},
           Case{30.0, "webp-near-lossless", "near-lossless 0 (±16)", "lossy q100 sharp YUV 28.", 16},
           Case{25.0, "webp", "lossy q50 sharp YUV", "lossy q100 sharp YUV 28.", 255},
           Case{55.0, "webp-lossless", "lossless", "lossy skipped (4:2:0 alone 28.", 0},
       }) {
    OptimizeOptions options;
    options.textures = TextureFormat::kWebp;
    options.texture_min_psnr = c.min_psnr;
    const Optimized run = optimizeOrDie(input, options);
    const OptimizeTextureReport* normal = row(run.report, "normal");
    ASSERT_NE(normal, nullptr);
    EXPECT_FALSE(normal->kept) << normal->why;
    EXPECT_EQ(normal->format_after, c.format) << c.min_psnr << ": " << normal->tried;
    EXPECT_EQ(normal->setting, c.setting) << c.min_psnr << ": " << normal->tried;
    EXPECT_EQ(normal->tried.rfind(c.tried_first, 0), 0u) << normal->tried;
    EXPECT_GE(normal->psnr, c.min_psnr);
    EXPECT_LE(normal->max_abs, c.bound);
    EXPECT_LT(normal->bytes_after, normal->bytes_before);
    EXPECT_GE(psnrAgainstInput(input, run.asset, normal->image), c.min_psnr);
    if (c.bound == 0) {  // the level of least error, 80, tried and missed on the way
      EXPECT_NE(normal->tried.find("near-lossless 80 (±1)"), std::string::npos) << normal->tried;
    } else {
      EXPECT_GT(normal->max_abs, 0u);
    }
  }
}

TEST(OptimizeTextures, TextureSizeResamplesKeepingTheAspect) {
  OptimizeOptions options;
  options.textures = TextureFormat::kWebp;
  options.texture_size = 48;
  const Optimized run = optimizeOrDie(texturedDemo(), options);
  for (const OptimizeTextureReport& t : run.report.textures) {
    EXPECT_EQ(t.width, 48u);
    EXPECT_EQ(t.height, 48u);
    EXPECT_LT(t.gpu_bytes_after, t.gpu_bytes_before);
    Expected<DecodedImage> stored = decodeImage(imageBytes(run.asset, t.image).value());
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->width, 48u);
  }
}

TEST(OptimizeTextures, MissingBasisuIsOneErrorLine) {
  const char* previous = std::getenv("MORPHKIT_BASISU");
  const std::string saved = previous ? previous : "";
  ::setenv("MORPHKIT_BASISU", "/nonexistent/basisu", 1);
  OptimizeOptions options;
  options.textures = TextureFormat::kKtx2;
  OptimizeReport report;
  Expected<std::vector<uint8_t>> glb = optimizeAsset(texturedDemo(), options, report);
  if (previous) {
    ::setenv("MORPHKIT_BASISU", saved.c_str(), 1);
  } else {
    ::unsetenv("MORPHKIT_BASISU");
  }
  ASSERT_FALSE(glb.ok());
  EXPECT_NE(glb.error().message.find("MORPHKIT_BASISU=/nonexistent/basisu"), std::string::npos) << glb.error().message;
  EXPECT_EQ(glb.error().message.find('\n'), std::string::npos);
}

TEST(OptimizeTextures, ACorruptImageIsOneErrorNamingIt) {
  Asset input = texturedDemo();
  // Not validated after the edit: the point is an image whose bytes do not decode (validation does not read them).
  // Its first 200 bytes, a truncated PNG, held as the image's own bytes.
  const std::span<const uint8_t> bytes = imageBytes(input, 0).value();
  Image& image = input.images[0];
  image.data.assign(bytes.begin(), bytes.begin() + 200);
  image.buffer_view = kNone;
  OptimizeOptions options;
  options.textures = TextureFormat::kWebp;
  OptimizeReport report;
  Expected<std::vector<uint8_t>> glb = optimizeAsset(input, options, report);
  ASSERT_FALSE(glb.ok());
  EXPECT_EQ(glb.error().message.rfind("images[0]", 0), 0u) << glb.error().message;
}

TEST(OptimizeTextures, Ktx2LoadsBackWithoutAFallback) {
  if (!findBasisu()) {
    if (test::runningInCi()) FAIL() << "CI=true but basisu is missing (scripts/install-compressors)";
    GTEST_SKIP() << "basisu not found (scripts/install-compressors)";
  }
  OptimizeOptions options;
  options.textures = TextureFormat::kKtx2;
  options.texture_min_psnr = 20.0;  // every texture converted, so every texture has no fallback
  const Optimized run = optimizeOrDie(texturedDemo(), options);
  ASSERT_EQ(run.report.textures.size(), 3u);
  for (const OptimizeTextureReport& t : run.report.textures) {
    EXPECT_FALSE(t.kept) << t.why;
    EXPECT_EQ(t.format_after, t.role == "colour" ? "ktx2-etc1s" : "ktx2-uastc");
    EXPECT_LT(t.gpu_bytes_after, t.gpu_bytes_before);
    EXPECT_TRUE(isKtx2Image(run.asset, t.image));
  }
  // morphkit loads it and keeps the KTX2 images; with no PNG/JPEG/WebP to draw, the renderer uses the factors.
  for (const Texture& texture : run.asset.textures) {
    EXPECT_NE(texture.basisu_source, kNone);
    EXPECT_EQ(texture.source, kNone);
    EXPECT_EQ(drawnTextureImage(run.asset, texture), kNone);
  }
  EXPECT_TRUE(contains(run.asset.extensions_required, "KHR_texture_basisu"));
}

}  // namespace
}  // namespace morphkit
