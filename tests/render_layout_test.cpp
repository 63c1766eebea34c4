// SPDX-License-Identifier: MIT
// Seed 000's morph texture layout and weights uniform as pure functions (no device needed), the morph-path rule,
// camera parsing, PNG round trips, contact sheets and the image metric the goldens use.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "morphkit/render.h"
#include "test_support.h"

namespace morphkit {
namespace {

PrimitiveData randomPrimitive(uint32_t vertices, uint32_t targets, bool tangents, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  PrimitiveData p;
  p.vertex_count = vertices;
  p.position.resize(size_t(vertices) * 3);
  for (float& v : p.position) v = dist(rng);
  for (uint32_t t = 0; t < targets; ++t) {
    MorphTargetData target;
    target.position.resize(size_t(vertices) * 3);
    for (float& v : target.position) v = dist(rng);
    if (t % 2 == 0) {  // odd targets move no normals: their band must stay zero
      target.normal.resize(size_t(vertices) * 3);
      for (float& v : target.normal) v = dist(rng);
    }
    if (tangents) {
      target.tangent.resize(size_t(vertices) * 3);
      for (float& v : target.tangent) v = dist(rng);
    }
    p.targets.push_back(std::move(target));
  }
  return p;
}

TEST(MorphTextureLayout, SeedFormulas) {
  // texWidth = min(vertexCount, max); rowsPerBand = ceil(vertexCount / texWidth); height = targets·bands·rows.
  auto small = morphTextureLayout(24, 2, 2, 8192);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->tex_width, 24u);
  EXPECT_EQ(small->rows_per_band, 1u);
  EXPECT_EQ(small->height, 4u);

  auto wrapped = morphTextureLayout(10, 1, 2, 6);  // a fake maxImageDimension2D of 6: 2 rows per band
  ASSERT_TRUE(wrapped.ok());
  EXPECT_EQ(wrapped->tex_width, 6u);
  EXPECT_EQ(wrapped->rows_per_band, 2u);
  EXPECT_EQ(wrapped->height, 4u);
  auto tangents = morphTextureLayout(10, 2, 3, 64);
  ASSERT_TRUE(tangents.ok());
  EXPECT_EQ(tangents->height, 6u);
}

TEST(MorphTextureLayout, HeightAboveMaxFails) {
  auto too_tall = morphTextureLayout(10, 3, 2, 4);  // 3 targets × 2 bands × 3 rows = 18 rows > 4
  ASSERT_FALSE(too_tall.ok());
  EXPECT_EQ(too_tall.error().code, Error::kTooLarge);
  auto fits = morphTextureLayout(10, 1, 2, 8);  // 10 vertices, width 8 → 2 rows per band, 2 bands → 4 rows
  ASSERT_TRUE(fits.ok());
  EXPECT_EQ(fits->tex_width, 8u);
  EXPECT_EQ(fits->rows_per_band, 2u);
  EXPECT_EQ(fits->height, 4u);
  EXPECT_FALSE(morphTextureLayout(0, 1, 2, 8).ok());
  EXPECT_FALSE(morphTextureLayout(10, 1, 4, 8).ok());
  EXPECT_FALSE(morphTextureLayout(10, 1, 2, 0).ok());
}

TEST(MorphTextureLayout, TexelAddressesFollowTheSeed) {
  auto layout = morphTextureLayout(10, 2, 2, 16);  // width 10, one row per band
  ASSERT_TRUE(layout.ok());
  // Band order: target 0 position, target 0 normal, target 1 position, target 1 normal.
  EXPECT_EQ(morphTexel(*layout, 7, 0, 0).x, 7u);
  EXPECT_EQ(morphTexel(*layout, 7, 0, 0).y, 0u);
  EXPECT_EQ(morphTexel(*layout, 7, 0, 1).y, 1u);
  EXPECT_EQ(morphTexel(*layout, 7, 1, 0).y, 2u);
  EXPECT_EQ(morphTexel(*layout, 7, 1, 1).y, 3u);
  auto w6 = morphTextureLayout(10, 2, 2, 8);  // width 8, rows 2, height 8
  ASSERT_TRUE(w6.ok());
  // vid 9: column 9 % 8 = 1, row in band 9 / 8 = 1; target 1 normal = band 3 → row 3·2 + 1 = 7.
  EXPECT_EQ(morphTexel(*w6, 9, 1, 1).x, 1u);
  EXPECT_EQ(morphTexel(*w6, 9, 1, 1).y, 7u);
}

// Pack then decode every band, past maxImageDimension2D vertices (fake small maxima force wrapping).
TEST(MorphTextureLayout, PackDecodeRoundTripWhenWrapping) {
  for (uint32_t max_dim : {7u, 64u, 100u, 4096u}) {
    for (bool tangents : {false, true}) {
      const uint32_t vertices = 97, targets = 3, bands = tangents ? 3 : 2;
      PrimitiveData p = randomPrimitive(vertices, targets, tangents, max_dim);
      auto layout = morphTextureLayout(vertices, targets, bands, max_dim);
      if (max_dim == 7u) {  // 97 vertices at width 7: 14 rows per band → too tall for 7: the layout refuses
        EXPECT_FALSE(layout.ok());
        continue;
      }
      ASSERT_TRUE(layout.ok()) << layout.error().message;
      EXPECT_EQ(layout->tex_width, std::min(vertices, max_dim));
      EXPECT_EQ(layout->rows_per_band, (vertices + layout->tex_width - 1) / layout->tex_width);
      std::vector<float> texels = packMorphTexture(p, *layout);
      ASSERT_EQ(texels.size(), size_t(layout->tex_width) * layout->height * 4);
      for (uint32_t t = 0; t < targets; ++t) {
        EXPECT_EQ(unpackMorphBand(*layout, texels, t, 0), p.targets[t].position) << "max " << max_dim << " target " << t;
        std::vector<float> normal = p.targets[t].normal.empty() ? std::vector<float>(vertices * 3, 0.0f) : p.targets[t].normal;
        EXPECT_EQ(unpackMorphBand(*layout, texels, t, 1), normal);
        if (tangents) {
          EXPECT_EQ(unpackMorphBand(*layout, texels, t, 2), p.targets[t].tangent);
        }
      }
      // Every texel's w is 0 and padding texels of the last row of each band stay 0.
      for (size_t i = 3; i < texels.size(); i += 4) ASSERT_EQ(texels[i], 0.0f);
    }
  }
}

// The seed's wrap case proper: more vertices than the (fake) max dimension, with a max big enough for the height.
TEST(MorphTextureLayout, MoreVerticesThanMaxDimension) {
  const uint32_t vertices = 1000, max_dim = 256;  // width 256, 4 rows per band, 2 targets × 2 bands → 16 rows
  PrimitiveData p = randomPrimitive(vertices, 2, false, 5);
  auto layout = morphTextureLayout(vertices, 2, 2, max_dim);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->tex_width, 256u);
  EXPECT_EQ(layout->rows_per_band, 4u);
  EXPECT_EQ(layout->height, 16u);
  std::vector<float> texels = packMorphTexture(p, *layout);
  // Independent address computation: vid 999 → (999 % 256, band·4 + 999 / 256) = (231, band·4 + 3).
  for (uint32_t band = 0; band < 4; ++band) {
    const uint32_t target = band / 2;
    std::vector<float> src = band % 2 == 0 ? p.targets[target].position : p.targets[target].normal;
    if (src.empty()) src.assign(size_t(vertices) * 3, 0.0f);  // target 1 moves no normals: zeros
    const float* texel = &texels[(size_t(band * 4 + 3) * 256 + 231) * 4];
    EXPECT_EQ(texel[0], src[999 * 3 + 0]);
    EXPECT_EQ(texel[1], src[999 * 3 + 1]);
    EXPECT_EQ(texel[2], src[999 * 3 + 2]);
  }
}

TEST(MorphUniform, PerFrameUpdateWritesOnlyTheFirst16Bytes) {
  auto layout = morphTextureLayout(300, 3, 2, 128);
  ASSERT_TRUE(layout.ok());
  uint8_t bytes[40];
  std::memset(bytes, 0xCD, sizeof bytes);  // poison: unwritten bytes show
  const float initial[3] = {0.25f, 0.5f, 0.75f};
  ASSERT_TRUE(initMorphUniform(bytes, *layout, initial));
  float weights[4];
  uint32_t fields[4];
  std::memcpy(weights, bytes, 16);
  std::memcpy(fields, bytes + 16, 16);
  EXPECT_EQ(weights[0], 0.25f);
  EXPECT_EQ(weights[2], 0.75f);
  EXPECT_EQ(weights[3], 0.0f);
  EXPECT_EQ(fields[0], 3u);    // count
  EXPECT_EQ(fields[1], 128u);  // texWidth
  EXPECT_EQ(fields[2], 3u);    // rowsPerBand = ceil(300 / 128)
  EXPECT_EQ(fields[3], 0u);    // pad
  EXPECT_EQ(bytes[32], 0xCD);  // nothing past the 32-byte block

  uint8_t before[40];
  std::memcpy(before, bytes, sizeof bytes);
  std::memset(bytes + 16, 0xAB, 24);  // if the update touched bytes 16.., this pattern would change
  const float next[2] = {1.0f, -2.0f};
  ASSERT_TRUE(writeMorphWeights(bytes, next));
  std::memcpy(weights, bytes, 16);
  EXPECT_EQ(weights[0], 1.0f);
  EXPECT_EQ(weights[1], -2.0f);
  EXPECT_EQ(weights[2], 0.0f);
  for (size_t i = 16; i < 40; ++i) ASSERT_EQ(bytes[i], 0xAB) << "byte " << i << " written by the per-frame update";

  const float five[5] = {1, 2, 3, 4, 5};
  EXPECT_FALSE(writeMorphWeights(bytes, five));  // the seed's vec4 holds 4 weights
  EXPECT_FALSE(writeMorphWeights(std::span<uint8_t>(bytes, 16), next));
}

TEST(MorphPath, AutoRule) {
  EXPECT_EQ(chooseMorphPath(1, 0), MorphPath::kVertex);
  EXPECT_EQ(chooseMorphPath(3, 0), MorphPath::kVertex);
  EXPECT_EQ(chooseMorphPath(1, 2), MorphPath::kVertex);
  EXPECT_EQ(chooseMorphPath(1, 4), MorphPath::kVertex);
  EXPECT_EQ(chooseMorphPath(1, 5), MorphPath::kCompute);
  EXPECT_EQ(chooseMorphPath(2, 1), MorphPath::kCompute);
  EXPECT_EQ(chooseMorphPath(3, 52), MorphPath::kCompute);
  EXPECT_EQ(parseMorphPath("vertex"), MorphPath::kVertex);
  EXPECT_EQ(parseMorphPath("compute"), MorphPath::kCompute);
  EXPECT_EQ(parseMorphPath("auto"), MorphPath::kAuto);
  EXPECT_FALSE(parseMorphPath("Vertex").has_value());
}

TEST(RenderCamera, ParseAndFrame) {
  auto c = parseCamera("1,2,3:0,0,0:45");
  ASSERT_TRUE(c.has_value());
  EXPECT_FLOAT_EQ(c->eye.y, 2.0f);
  EXPECT_NEAR(c->yfov, 45.0f * 3.14159265f / 180.0f, 1e-6f);
  EXPECT_FALSE(parseCamera("1,2:0,0,0").has_value());
  EXPECT_FALSE(parseCamera("1,2,3:1,2,3").has_value());  // eye == target
  EXPECT_FALSE(parseCamera("1,2,3:0,0,0:0").has_value());
  EXPECT_FALSE(parseCamera("a,b,c:0,0,0").has_value());

  Bounds b;
  b.min = {-1, -2, -1};
  b.max = {1, 2, 1};
  RenderCamera framed = frameBounds(b, 1.0f);
  // The bounding sphere (radius sqrt(6)) fits the field of view: distance ≥ r / sin(fov/2).
  const float r = std::sqrt(6.0f);
  EXPECT_GE(length(framed.eye - framed.target), r / std::sin(framed.yfov * 0.5f));
  EXPECT_LT(framed.znear, length(framed.eye - framed.target) - r);
  EXPECT_GT(framed.zfar, length(framed.eye - framed.target) + r);
}

TEST(RenderImages, PngRoundTripAndDiff) {
  DecodedImage a;
  a.width = 5;
  a.height = 3;
  for (uint32_t i = 0; i < 15; ++i) a.rgba.insert(a.rgba.end(), {uint8_t(i * 10), uint8_t(255 - i), uint8_t(i * 3), 255});
  auto png = encodePng(a.rgba, a.width, a.height);
  ASSERT_TRUE(png.ok()) << png.error().message;
  auto back = decodePng(*png);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->width, 5u);
  EXPECT_EQ(back->rgba, a.rgba);
  auto via_image = decodeImage(*png);
  ASSERT_TRUE(via_image.ok());
  EXPECT_EQ(via_image->rgba, a.rgba);
  // Every truncated prefix fails cleanly or (missing only trailing chunks) still decodes the same pixels; never crashes.
  for (size_t n = 0; n < png->size(); ++n) {
    auto partial = decodeImage(std::span<const uint8_t>(png->data(), n));
    if (partial.ok()) {
      EXPECT_EQ(partial->rgba, a.rgba) << "prefix " << n;
    }
    if (n < 40) {
      EXPECT_FALSE(partial.ok()) << "prefix " << n;  // no complete IHDR + IDAT yet
    }
  }
  EXPECT_FALSE(encodePng(a.rgba, 4, 3).ok());

  DecodedImage b = a;
  b.rgba[0] += 20;  // one pixel off by 20 in one channel
  auto diff = diffImages(a, b, 16);
  ASSERT_TRUE(diff.ok());
  EXPECT_EQ(diff->max_abs, 20u);
  EXPECT_NEAR(diff->mean_abs, 20.0 / 60.0, 1e-12);
  EXPECT_NEAR(diff->fraction_over, 1.0 / 15.0, 1e-12);
  DecodedImage c = a;
  c.width = 3;
  c.height = 5;
  EXPECT_FALSE(diffImages(a, c, 16).ok());  // same byte count, different shape
}

TEST(RenderImages, ContactSheet) {
  std::vector<RenderedImage> frames(5);
  for (size_t f = 0; f < frames.size(); ++f) {
    frames[f].width = 8;
    frames[f].height = 4;
    frames[f].rgba.assign(8 * 4 * 4, uint8_t(f * 50));
  }
  DecodedImage sheet = makeContactSheet(frames, 2, 4);  // cells 4×2, 2 columns, 3 rows
  EXPECT_EQ(sheet.width, 8u);
  EXPECT_EQ(sheet.height, 6u);
  // Frame 3 sits at column 1, row 1: pixel (5, 3).
  EXPECT_EQ(sheet.rgba[(3 * 8 + 5) * 4], 150);
  // The empty sixth cell stays black.
  EXPECT_EQ(sheet.rgba[(5 * 8 + 5) * 4], 0);
}

}  // namespace
}  // namespace morphkit
