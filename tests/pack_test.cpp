// SPDX-License-Identifier: MIT
// The pack module (src/pack/, docs/LAYOUTS.md), one test file for every morph-data layout: the CPU fast path's
// streams (packed_targets.h), the compute path's vertices, dense f32/f16 and CSR deltas and skin stream (snorm16:
// snorm16_test.cpp)
// (packed_deltas.h), the seed's band texture (band_texture.h), the node material's buffers
// (node_morph_buffers.h) and the one active-target rule (active_targets.h). Every layout decodes back to the
// PrimitiveData it came from. No device needed.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <span>

#include "morphkit/active_targets.h"
#include "morphkit/band_texture.h"
#include "morphkit/node_morph_buffers.h"
#include "morphkit/packed_deltas.h"
#include "morphkit/packed_targets.h"
#include "vk_synthetic.h"

namespace morphkit {
namespace {

// Target t's deltas in DeltaFormat order, straight from PrimitiveData (the decoders' expected value).
std::vector<float> expectedRecords(const PrimitiveData& p, const DeltaFormat& f, uint32_t t) {
  std::vector<float> out(size_t(p.vertex_count) * f.stride, 0.0f);
  const MorphTargetData& d = p.targets[t];
  for (uint32_t v = 0; v < p.vertex_count; ++v) {
    float* r = out.data() + size_t(v) * f.stride;
    for (int c = 0; c < 3; ++c) {
      if (f.position != kLayoutAbsent && !d.position.empty()) r[f.position + c] = d.position[3 * v + c];
      if (f.normal != kLayoutAbsent && !d.normal.empty()) r[f.normal + c] = d.normal[3 * v + c];
      if (f.tangent != kLayoutAbsent && !d.tangent.empty()) r[f.tangent + c] = d.tangent[3 * v + c];
    }
    if (f.extra != kLayoutAbsent) {
      uint32_t o = f.extra;
      for (size_t s = 0; s < p.texcoords.size(); ++s, o += 2) {
        for (int c = 0; c < 2 && s < d.texcoords.size() && !d.texcoords[s].empty(); ++c)
          r[o + c] = d.texcoords[s][2 * v + c];
      }
      for (size_t s = 0; s < p.colors.size(); ++s, o += 4) {
        for (int c = 0; c < 4 && s < d.colors.size() && !d.colors[s].empty(); ++c) r[o + c] = d.colors[s][4 * v + c];
      }
    }
  }
  return out;
}

TEST(VkLayoutTest, HalfConversionKnownValues) {
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);                          // rounds up to infinity
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);             // smallest subnormal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400);             // smallest normal
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie → even
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie → even (up)
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  // Every finite half round-trips exactly.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00) continue;
    ASSERT_EQ(floatToHalf(halfToFloat(uint16_t(h))), h) << h;
  }
}

TEST(VkLayoutTest, VerticesRoundTrip) {
  test::SyntheticOptions o;
  o.vertices = 37;
  const PrimitiveData p = test::syntheticPrimitive(o);
  PackedVertices packed = packVertices(p);
  EXPECT_EQ(packed.format.stride, 3u + 3 + 4 + 2 + 4);
  EXPECT_EQ(packed.format.normal, 3u);
  EXPECT_EQ(packed.format.tangent, 6u);
  EXPECT_EQ(packed.format.extra, 10u);
  PrimitiveData back;
  unpackVertices(packed.format, packed.vertex_count, packed.data.data(), back);
  EXPECT_EQ(back.position, p.position);
  EXPECT_EQ(back.normal, p.normal);
  EXPECT_EQ(back.tangent, p.tangent);
  EXPECT_EQ(back.texcoords, p.texcoords);
  EXPECT_EQ(back.colors, p.colors);
}

TEST(VkLayoutTest, EveryLayoutDecodesToTheDeltas) {
  test::SyntheticOptions o;
  o.vertices = 53;
  o.targets = 7;
  const PrimitiveData p = test::syntheticPrimitive(o);
  Expected<DeltaFormat> f = deltaFormat(p);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->stride, 3u + 3 + 3 + 6);
  for (DeltaLayout layout : {DeltaLayout::kDenseF32, DeltaLayout::kDenseF16, DeltaLayout::kSparse}) {
    Expected<PackedDeltas> packed = packDeltas(p, layout);
    ASSERT_TRUE(packed);
    for (uint32_t t = 0; t < p.targets.size(); ++t) {
      const std::vector<float> expected = expectedRecords(p, *f, t);
      const std::vector<float> got = unpackTargetDeltas(*packed, t);
      ASSERT_EQ(got.size(), expected.size());
      for (size_t i = 0; i < got.size(); ++i) {
        if (layout == DeltaLayout::kDenseF16) {
          ASSERT_EQ(got[i], halfToFloat(floatToHalf(expected[i]))) << deltaLayoutName(layout) << " t" << t << " i" << i;
        } else {
          ASSERT_EQ(got[i], expected[i]) << deltaLayoutName(layout) << " t" << t << " i" << i;
        }
      }
    }
  }
}

// The tile/slab/plane order of docs/LAYOUTS.md §3a, byte by byte, on a hand-made position + normal primitive: the
// decoder test above cannot see a packer and decoder that agree on the wrong order.
TEST(VkLayoutTest, DenseDeltasAreTiledSlabsOfPlanes) {
  PrimitiveData p;
  p.vertex_count = 3;
  p.position.assign(9, 0.0f);
  p.normal.assign(9, 0.0f);
  p.targets.resize(2);
  for (uint32_t t = 0; t < 2; ++t) {
    p.targets[t].position.resize(9);
    p.targets[t].normal.resize(9);
    for (uint32_t i = 0; i < 9; ++i) {
      p.targets[t].position[i] = float(100 * (t + 1) + i);     // Δp of vertex i/3, component i%3
      p.targets[t].normal[i] = float(100 * (t + 1) + 50 + i);  // Δn
    }
  }
  Expected<PackedDeltas> packed = packDeltas(p, DeltaLayout::kDenseF32);
  ASSERT_TRUE(packed);
  ASSERT_EQ(packed->format.stride, 6u);
  // One tile of 64 vertices (3 used, the rest zero) × 2 target slabs of 64 × 6 floats.
  ASSERT_EQ(packed->bytes.size(), 2u * 64 * 6 * 4);
  EXPECT_EQ(packed->target_bytes, 64u * 6 * 4);
  auto f32At = [&](size_t index) {
    float x;
    std::memcpy(&x, packed->bytes.data() + 4 * index, 4);
    return x;
  };
  const float plane0[12] = {100, 101, 102, 150, 103, 104, 105, 153, 106, 107, 108, 156};  // (px py pz nx) × 3
  const float plane1[6] = {151, 152, 154, 155, 157, 158};                                 // (ny nz) × 3
  for (size_t slab = 0; slab < 2; ++slab) {
    const float offset = 100.0f * float(slab);
    for (size_t i = 0; i < 12; ++i)
      EXPECT_EQ(f32At(slab * 384 + i), plane0[i] + offset) << "slab " << slab << " plane 0 float " << i;
    EXPECT_EQ(f32At(slab * 384 + 12), 0.0f);  // lane 3: padding of the last tile
    for (size_t i = 0; i < 6; ++i)
      EXPECT_EQ(f32At(slab * 384 + 256 + i), plane1[i] + offset) << "slab " << slab << " plane 1 float " << i;
  }
  EXPECT_EQ(denseElementIndex(2, 6, 1, 2, 5), 384u + 256 + 2 * 2 + 1);            // target 1, vertex 2's Δnz
  EXPECT_EQ(denseElementIndex(3, 9, 2, 65, 8), (1u * 3 + 2) * 64 * 9 + 512 + 1);  // tile 1; stride 9: plane 2 is 1 wide
  Expected<PackedDeltas> halves = packDeltas(p, DeltaLayout::kDenseF16);
  ASSERT_TRUE(halves);
  EXPECT_EQ(halves->bytes.size(), 2u * 64 * 6 * 2);
  uint16_t h;
  std::memcpy(&h, halves->bytes.data() + 2 * 3, 2);
  EXPECT_EQ(halfToFloat(h), 150.0f);  // vertex 0's Δnx closes plane 0's first quad
}

TEST(VkLayoutTest, SparseRowsAreSortedAndKeepOnlyMovedVertices) {
  test::SyntheticOptions o;
  o.vertices = 200;
  o.targets = 10;
  o.region = 0.1f;
  o.attributes = false;
  const PrimitiveData p = test::syntheticPrimitive(o);
  Expected<PackedDeltas> packed = packDeltas(p, DeltaLayout::kSparse);
  ASSERT_TRUE(packed);
  ASSERT_EQ(packed->rows.size(), 201u);
  EXPECT_EQ(packed->rows.front(), 0u);
  EXPECT_EQ(packed->rows.back(), packed->record_count);
  EXPECT_EQ(packed->bytes.size(), packed->record_count * 4 * (1 + packed->format.stride));
  uint64_t nonzero = 0;
  for (const auto& t : p.targets) {
    for (uint32_t v = 0; v < p.vertex_count; ++v)
      nonzero += (t.position[3 * v] != 0 || t.position[3 * v + 1] != 0 || t.position[3 * v + 2] != 0);
  }
  EXPECT_EQ(packed->record_count, nonzero);
  EXPECT_EQ(sparseRecordCount(p), nonzero);
  for (uint32_t v = 0; v < p.vertex_count; ++v) {
    for (uint32_t r = packed->rows[v]; r + 1 < packed->rows[v + 1]; ++r) {
      uint32_t a, b;
      std::memcpy(&a, packed->bytes.data() + r * 16, 4);
      std::memcpy(&b, packed->bytes.data() + (r + 1) * 16, 4);
      EXPECT_LT(a, b);
    }
  }
  EXPECT_EQ(chooseDeltaLayout(p), DeltaLayout::kSparse);  // 10% regions: sparse is far smaller
  test::SyntheticOptions full = o;
  full.region = 1.0f;
  EXPECT_EQ(chooseDeltaLayout(test::syntheticPrimitive(full)), DeltaLayout::kDenseF32);
}

TEST(VkLayoutTest, GltfSparseIndicesGoStraightToTheSparseLayout) {
  test::SyntheticOptions o;
  o.vertices = 20;
  o.targets = 2;
  o.region = 1.0f;
  o.attributes = false;
  PrimitiveData p = test::syntheticPrimitive(o);
  // Target 0 came from a sparse accessor listing vertices 3 and 7 (vertex 7's delta happens to be zero).
  std::fill(p.targets[0].position.begin(), p.targets[0].position.end(), 0.0f);
  p.targets[0].position[9] = 1.0f;
  p.targets[0].position_sparse = true;
  p.targets[0].position_sparse_indices = {3, 7};
  EXPECT_EQ(chooseDeltaLayout(p), DeltaLayout::kSparse);
  Expected<PackedDeltas> packed = packDeltas(p, DeltaLayout::kSparse);
  ASSERT_TRUE(packed);
  EXPECT_EQ(packed->record_count, 2u + 20u);         // the two listed vertices + target 1's every vertex
  EXPECT_EQ(packed->rows[8] - packed->rows[7], 2u);  // vertex 7 keeps its (zero) record
}

TEST(VkLayoutTest, F16ErrorIsBoundedAndOverflowReported) {
  test::SyntheticOptions o;
  o.vertices = 100;
  o.targets = 4;
  PrimitiveData p = test::syntheticPrimitive(o);
  F16DeltaError e = f16DeltaError(p);
  EXPECT_FALSE(e.overflow);
  EXPECT_GT(e.max_delta, 0.0f);
  EXPECT_GT(e.max_abs_position, 0.0f);
  EXPECT_LE(e.max_abs_position, e.max_delta * std::ldexp(1.0f, -11));
  p.targets[1].position[5] = 70000.0f;
  EXPECT_TRUE(f16DeltaError(p).overflow);
}

TEST(VkLayoutTest, SkinStreamAndTooManyMorphedExtras) {
  test::SyntheticOptions o;
  o.vertices = 9;
  o.influence_sets = 2;
  o.joints = 5;
  PrimitiveData p = test::syntheticPrimitive(o);
  PackedSkin skin = packSkin(p);
  EXPECT_EQ(skin.influence_sets, 2u);
  ASSERT_EQ(skin.words.size(), 9u * 16);
  EXPECT_LE(skin.joints_needed, 5u);
  for (uint32_t v = 0; v < 9; ++v) {
    for (uint32_t i = 0; i < 8; ++i) {
      float w;
      std::memcpy(&w, &skin.words[16 * v + 8 + i], 4);
      EXPECT_EQ(w, p.skin_weights[8 * v + i]);
      if (w != 0.0f) {
        EXPECT_EQ(skin.words[16 * v + i], p.joints[8 * v + i]);
      }
    }
  }
  // 4 color sets (16 floats) + a texcoord set (2) moved by a target: more than kMaxMorphedExtra.
  p.colors.assign(4, std::vector<float>(4 * 9, 1.0f));
  p.targets[0].colors.assign(1, std::vector<float>(4 * 9, 0.5f));
  Expected<DeltaFormat> f = deltaFormat(p);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().code, Error::kInvalidArgument);
}

}  // namespace
}  // namespace morphkit

namespace morphkit {
namespace {

// Issue 9, class 4: a target that moves nothing the base has ({} or NORMAL deltas on a primitive without
// normals) packs to nothing, through the library API, without memcpy(nullptr, nullptr, 0) (UBSan aborts).
TEST(VkLayoutTest, TargetsThatMoveNothingPackWithoutUndefinedBehaviour) {
  PrimitiveData p;
  p.vertex_count = 3;
  p.position = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  p.targets.emplace_back();                                       // {}
  p.targets.emplace_back().normal = {0, 0, 1, 0, 0, 1, 0, 0, 1};  // deltas for an attribute the base lacks
  p.targets[1].normal.clear();                                    // as decodePrimitive drops them
  for (DeltaLayout layout :
       {DeltaLayout::kDenseF32, DeltaLayout::kDenseF16, DeltaLayout::kDenseSnorm16, DeltaLayout::kSparse}) {
    Expected<PackedDeltas> packed = packDeltas(p, layout);
    ASSERT_TRUE(packed.ok()) << packed.error().message;
    EXPECT_EQ(packed->format.stride, 0u);
    EXPECT_TRUE(packed->bytes.empty());
    for (uint32_t t = 0; t < 2; ++t) EXPECT_TRUE(unpackTargetDeltas(*packed, t).empty());
    if (layout == DeltaLayout::kSparse) {
      EXPECT_EQ(packed->rows, std::vector<uint32_t>(4, 0u));
    }
  }
}

// ---- The CPU fast path's streams (packed_targets.h) ----
TEST(PackTargets, JointsNeededCountsOnlyWeightedJoints) {
  PrimitiveData p;
  p.vertex_count = 10;
  p.position.assign(30, 0.0f);
  p.influences = 1;
  p.joints.resize(40);
  p.skin_weights.assign(40, 0.25f);
  for (size_t i = 0; i < p.joints.size(); ++i) p.joints[i] = uint32_t(i % 3);
  p.joints[5] = 40;
  p.skin_weights[5] = 0.0f;  // carries no weight: not needed
  EXPECT_EQ(packTargets(p).joints_needed, 3u);
  p.skin_weights[5] = 0.1f;
  EXPECT_EQ(packTargets(p).joints_needed, 41u);
  p.joints.clear();
  p.skin_weights.clear();
  p.influences = 0;
  EXPECT_EQ(packTargets(p).joints_needed, 0u);
}

TEST(PackTargets, TrimsStreamsToTheirNonZeroSpan) {
  PrimitiveData p;
  p.vertex_count = 10;
  p.position.assign(30, 0.0f);
  p.normal.assign(30, 0.0f);
  p.targets.resize(2);
  p.targets[0].position.assign(30, 0.0f);
  p.targets[0].position[3 * 4 + 1] = 1.0f;  // vertex 4
  p.targets[0].position[3 * 6 + 2] = 2.0f;  // vertex 6
  p.targets[0].normal.assign(30, 0.0f);     // all zero: no stream
  p.targets[1].normal.assign(30, 1.0f);
  PackedTargets packed = packTargets(p);
  ASSERT_EQ(packed.target_streams, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(packed.streams[0].attribute, uint32_t(PackedTargets::kPosition));
  EXPECT_EQ(packed.streams[0].first, 4u);
  EXPECT_EQ(packed.streams[0].last, 7u);
  EXPECT_EQ(packed.streams[1].attribute, uint32_t(PackedTargets::kNormal));
  EXPECT_EQ(packed.streams[1].first, 0u);
  EXPECT_EQ(packed.streams[1].last, 10u);
  EXPECT_EQ(packed.deltas.size(), 9u + 30u);
  EXPECT_EQ(packed.deltas[1], 1.0f);
  EXPECT_EQ(packed.deltas[8], 2.0f);
}

// ---- The seed's band texture (band_texture.h) ----
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

// ---- The node material's buffers (node_morph_buffers.h) ----
PrimitiveData twoTargetPrimitive() {
  PrimitiveData p;
  p.vertex_count = 3;
  p.position = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  p.normal = {0, 0, 1, 0, 0, 1, 0, 0, 1};
  for (int t = 0; t < 2; ++t) {
    MorphTargetData target;
    for (int i = 0; i < 9; ++i) target.position.push_back(float(100 * t + i));
    if (t == 1) {
      for (int i = 0; i < 9; ++i) target.normal.push_back(-float(i) * 0.5f);
    }
    p.targets.push_back(target);
  }
  return p;
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
