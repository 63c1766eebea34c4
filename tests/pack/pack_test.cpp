// SPDX-License-Identifier: MIT
// The pack module (src/pack/, docs/LAYOUTS.md), the delta layouts: the CPU fast path's streams (packed_targets.h),
// the compute path's vertices, dense f32/f16 and CSR deltas, the kernel's sliced sparse records (sliced_sparse.h) and
// the skin stream (snorm16: snorm16_test.cpp). Every layout decodes back to the PrimitiveData it came from. No device
// needed. The texture, node-material and active-target layouts: pack_texture_test.cpp.
#include <gtest/gtest.h>

#include "pack_support.h"

namespace morphkit {
namespace {

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

// The compute kernel's view of the sparse layout (sliced_sparse.h, docs/LAYOUTS.md §3c): every target decodes to
// what the CSR records hold, for the kernel's 64-vertex tile and for a tile size that leaves a partial last tile;
// word w of slot j of lane l sits at tiles[tile] + (j · words + w) · tile + l, and a lane past its records reads
// as absent.
TEST(VkLayoutTest, SlicedSparseDecodesToTheRecordsWordMajor) {
  test::SyntheticOptions o;
  o.vertices = 200;
  o.targets = 10;
  o.region = 0.3f;
  const PrimitiveData p = test::syntheticPrimitive(o);
  Expected<PackedDeltas> packed = packDeltas(p, DeltaLayout::kSparse);
  ASSERT_TRUE(packed);
  for (uint32_t tile : {64u, 7u}) {
    Expected<SlicedSparse> sliced = sliceSparse(*packed, tile, uint64_t(1) << 32);
    ASSERT_TRUE(sliced) << sliced.error().message;
    ASSERT_EQ(sliced->tiles.size(), (p.vertex_count + tile - 1) / tile + 1);
    EXPECT_EQ(sliced->tiles.back(), sliced->words.size());
    for (uint32_t t = 0; t < p.targets.size(); ++t)
      ASSERT_EQ(unpackSlicedTargetDeltas(*sliced, p.vertex_count, t), unpackTargetDeltas(*packed, t))
          << tile << " t" << t;
    const uint32_t words = sliced->record_words;
    for (uint32_t v = 0; v < p.vertex_count; ++v) {
      const uint32_t base = sliced->tiles[v / tile], lane = v % tile;
      const uint32_t slots = (sliced->tiles[v / tile + 1] - base) / (words * tile);
      const uint32_t count = packed->rows[v + 1] - packed->rows[v];
      for (uint32_t j = 0; j < slots; ++j) {
        uint32_t target = kSlicedAbsentTarget;
        if (j < count) std::memcpy(&target, packed->bytes.data() + (size_t(packed->rows[v]) + j) * words * 4, 4);
        ASSERT_EQ(sliced->words[base + size_t(j) * words * tile + lane], target) << "v" << v << " slot " << j;
      }
    }
  }
  Expected<SlicedSparse> too_large = sliceSparse(*packed, 64, 64);
  ASSERT_FALSE(too_large);
  EXPECT_EQ(too_large.error().code, Error::kTooLarge);
  Expected<PackedDeltas> dense = packDeltas(p, DeltaLayout::kDenseF32);
  ASSERT_TRUE(dense);
  EXPECT_FALSE(sliceSparse(*dense, 64, uint64_t(1) << 32));
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

}  // namespace
}  // namespace morphkit
