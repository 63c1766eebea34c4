// SPDX-License-Identifier: MIT
// The pack module's GPU-side layouts (docs/LAYOUTS.md): the band-texture design's band texture (band_texture.h), the
// node material's buffers (node_morph_buffers.h) and the one active-target rule (active_targets.h). Every layout
// decodes back to the PrimitiveData it came from. No device needed. The delta layouts: pack_test.cpp.
#include <gtest/gtest.h>

#include "pack_support.h"

namespace morphkit {
namespace {

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
        EXPECT_EQ(unpackMorphBand(*layout, texels, t, 0), p.targets[t].position)
            << "max " << max_dim << " target " << t;
        std::vector<float> normal =
            p.targets[t].normal.empty() ? std::vector<float>(vertices * 3, 0.0f) : p.targets[t].normal;
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

TEST(NodeMaterialLayout, DeltasAndWeightsRoundTrip) {
  const PrimitiveData p = twoTargetPrimitive();
  const std::vector<uint8_t> deltas = packNodeMorphDeltas(p);
  ASSERT_EQ(deltas.size(), 24u + 2 * 2 * 3 * 3 * 4);
  const NodeMorphHeader h = readNodeMorphHeader(deltas);
  EXPECT_EQ(h.count, 2u);
  EXPECT_EQ(h.vertex_count, 3u);
  EXPECT_EQ(h.bands_per_target, 2u);
  EXPECT_EQ(unpackNodeMorphBand(deltas, 0, 0), p.targets[0].position);
  EXPECT_EQ(unpackNodeMorphBand(deltas, 1, 0), p.targets[1].position);
  EXPECT_EQ(unpackNodeMorphBand(deltas, 0, 1), std::vector<float>(9, 0.0f));  // absent normal deltas are zeros
  EXPECT_EQ(unpackNodeMorphBand(deltas, 1, 1), p.targets[1].normal);
  EXPECT_TRUE(unpackNodeMorphBand(deltas, 2, 0).empty());
  // Vertex 2 of target 1's position band sits at ((1·2 + 0)·3 + 2)·3 floats after the header.
  float x = 0;
  std::memcpy(&x, deltas.data() + 24 + ((1 * 2 + 0) * 3 + 2) * 3 * 4, 4);
  EXPECT_EQ(x, 106.0f);

  const float w[] = {0.25f};
  std::vector<uint8_t> weights = packNodeMorphWeights(p, w);
  ASSERT_EQ(weights.size(), 24u + 8);
  EXPECT_EQ(readNodeMorphHeader(weights).count, 2u);
  float back[2];
  std::memcpy(back, weights.data() + 24, 8);
  EXPECT_EQ(back[0], 0.25f);
  EXPECT_EQ(back[1], 0.0f);  // missing weights are 0
  const float w2[] = {0.5f, -1.0f};
  ASSERT_TRUE(writeNodeMorphWeights(weights, w2));
  std::memcpy(back, weights.data() + 24, 8);
  EXPECT_EQ(back[1], -1.0f);
  EXPECT_FALSE(writeNodeMorphWeights(std::span<uint8_t>(weights.data(), 28), w2));

  PrimitiveData none = p;
  none.targets.clear();
  EXPECT_TRUE(packNodeMorphDeltas(none).empty());
}

TEST(NodeMaterialLayout, FallbackIsCountZeroVertexCountOne) {
  const std::array<uint8_t, kNodeMorphFallbackBytes> bytes = nodeMorphFallbackBytes();
  uint32_t words[6];
  std::memcpy(words, bytes.data(), 24);
  EXPECT_EQ(words[0], 0u);
  EXPECT_EQ(words[1], 1u);
  for (int i = 2; i < 6; ++i) EXPECT_EQ(words[i], 0u);
}

TEST(NodeMaterialLayout, TangentBandsWhenTangentsAndTangentDeltas) {
  PrimitiveData p = twoTargetPrimitive();
  p.tangent.assign(12, 0.0f);
  p.targets[0].tangent.assign(9, 2.0f);
  const std::vector<uint8_t> deltas = packNodeMorphDeltas(p);
  EXPECT_EQ(readNodeMorphHeader(deltas).bands_per_target, 3u);
  EXPECT_EQ(unpackNodeMorphBand(deltas, 0, 2), std::vector<float>(9, 2.0f));
  EXPECT_EQ(unpackNodeMorphBand(deltas, 1, 0), p.targets[1].position);
}

// ---- The one active-target rule (active_targets.h) ----
TEST(ActiveTargets, OneRuleAbsAboveEpsilonInTargetOrder) {
  const float weights[] = {0.0f, 0.5f, -0.0f, -0.25f, 1e-4f, std::nanf(""), -1e-4f, 2.0f};
  std::vector<ActiveTarget> list;
  buildActiveTargets(weights, 0.0f, list);
  ASSERT_EQ(list.size(), 5u);  // every non-zero weight, NaN never
  const uint32_t want[] = {1, 3, 4, 6, 7};
  for (size_t k = 0; k < list.size(); ++k) {
    EXPECT_EQ(list[k].target, want[k]);
    EXPECT_EQ(list[k].weight, weights[want[k]]);
  }
  buildActiveTargets(weights, 1e-3f, list);  // |w| <= epsilon drops out
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[1].target, 3u);
  EXPECT_EQ(activeWeight(1e-4f, 1e-3f), 0.0f);
  EXPECT_EQ(activeWeight(-0.25f, 1e-3f), -0.25f);
  EXPECT_EQ(activeWeight(std::nanf("")), 0.0f);
  // The span form never writes past its output.
  std::array<ActiveTarget, 2> two{};
  EXPECT_EQ(buildActiveTargets(weights, 0.0f, std::span<ActiveTarget>(two)), 2u);
  EXPECT_EQ(two[1].target, 3u);
}

// Every path that reads all weights writes inactive ones as 0: the node material's weights buffer here.
TEST(ActiveTargets, NodeWeightsBufferUsesTheRule) {
  PrimitiveData p;
  p.vertex_count = 1;
  p.position = {0, 0, 0};
  p.targets.resize(2);
  p.targets[0].position = {1, 0, 0};
  p.targets[1].position = {0, 1, 0};
  const float w[] = {-0.0f, std::nanf("")};
  const std::vector<uint8_t> bytes = packNodeMorphWeights(p, w);
  float back[2];
  std::memcpy(back, bytes.data() + sizeof(NodeMorphHeader), sizeof back);
  EXPECT_EQ(std::signbit(back[0]), false);
  EXPECT_EQ(back[1], 0.0f);
}

}  // namespace
}  // namespace morphkit
