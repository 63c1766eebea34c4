// SPDX-License-Identifier: MIT
// The snorm16 delta layout (docs/LAYOUTS.md §3d), without a device: the encoding and its bound
// |decoded − Δ| ≤ scale / 65534 (+ the decode's one float rounding) on adversarial values, the byte layout (f16's
// slabs, then one vec4 of scales per target), refusal of non-finite deltas, and on every shared model with targets
// the decoder against the deltas and snorm16DeltaError (what `morphkit inspect` prints) against the decoder.
// The GPU side (morph.comp against the CPU reference, held to the f32 tolerances) is in vk_morph_test.cpp.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include "morphkit/core/pose.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/pack/packed_deltas.h"
#include "test_support.h"
#include "vk_synthetic.h"

namespace morphkit {
namespace {

// The bound of docs/LAYOUTS.md §3d: half a quantization step, plus half an ulp of the decoded float (2^-150 in the
// subnormal range).
double snormBound(float scale) {
  return double(scale) / 65534.0 + std::max(double(scale) * std::ldexp(1.0, -24), std::ldexp(1.0, -150));
}

// The scale slot of each component of a record (position 0, normal 1, tangent 2, texcoords/colors 3).
uint32_t slotOf(const DeltaFormat& f, uint32_t c) {
  if (f.position != kLayoutAbsent && c >= f.position && c < f.position + 3) return 0;
  if (f.normal != kLayoutAbsent && c >= f.normal && c < f.normal + 3) return 1;
  if (f.tangent != kLayoutAbsent && c >= f.tangent && c < f.tangent + 3) return 2;
  return 3;
}

// Target t's record components straight from the PrimitiveData (position, normal, tangent, then the extras).
float expectedComponent(const PrimitiveData& p, const DeltaFormat& f, uint32_t t, uint32_t v, uint32_t c) {
  const MorphTargetData& d = p.targets[t];
  auto at = [&](const std::vector<float>& a, uint32_t k, uint32_t i) {
    return a.empty() ? 0.0f : a[size_t(v) * k + i];
  };
  switch (slotOf(f, c)) {
    case 0:
      return at(d.position, 3, c - f.position);
    case 1:
      return at(d.normal, 3, c - f.normal);
    case 2:
      return at(d.tangent, 3, c - f.tangent);
    default:
      break;
  }
  uint32_t offset = c - f.extra;
  for (size_t s = 0; s < p.texcoords.size(); ++s, offset -= 2) {
    if (offset < 2) return s < d.texcoords.size() ? at(d.texcoords[s], 2, offset) : 0.0f;
  }
  for (size_t s = 0; s < p.colors.size(); ++s, offset -= 4) {
    if (offset < 4) return s < d.colors.size() ? at(d.colors[s], 4, offset) : 0.0f;
  }
  return 0.0f;
}

// Packs, decodes every target, and checks each component against its scale's bound. Returns the largest error
// per slot (for comparison with snorm16DeltaError).
std::array<double, kSnorm16ScaleSlots> checkRoundTrip(const PrimitiveData& p, const std::string& what) {
  std::array<double, kSnorm16ScaleSlots> worst{};
  Expected<PackedDeltas> packed = packDeltas(p, DeltaLayout::kDenseSnorm16);
  EXPECT_TRUE(packed) << what << ": " << packed.error().message;
  if (!packed) return worst;
  const DeltaFormat& f = packed->format;
  if (f.stride == 0) return worst;
  EXPECT_EQ(packed->bytes.size(),
            snorm16ScaleOffset(p.vertex_count, packed->target_count, f.stride) + 16 * packed->target_count);
  EXPECT_EQ(packed->target_bytes,
            denseDeltaBytes(p.vertex_count, packed->target_count, f.stride, 2) / packed->target_count);
  for (uint32_t t = 0; t < packed->target_count; ++t) {
    const std::array<float, kSnorm16ScaleSlots> scales = packedSnorm16Scales(*packed, t);
    EXPECT_EQ(scales, snorm16TargetScales(p.targets[t])) << what << " target " << t;
    const std::vector<float> got = unpackTargetDeltas(*packed, t);
    for (uint32_t v = 0; v < p.vertex_count; ++v) {
      for (uint32_t c = 0; c < f.stride; ++c) {
        const float decoded = got[size_t(v) * f.stride + c];
        const float expected = expectedComponent(p, f, t, v, c);
        const float scale = scales[slotOf(f, c)];
        const double error = std::fabs(double(decoded) - double(expected));
        worst[slotOf(f, c)] = std::max(worst[slotOf(f, c)], error);
        int16_t q;  // the stored integer sits where f16 keeps its half, and is never -32768
        std::memcpy(&q, packed->bytes.data() + 2 * denseElementIndex(packed->target_count, f.stride, t, v, c), 2);
        if (!std::isfinite(decoded) || error > snormBound(scale) || q == -32768 ||
            decoded != snorm16ToFloat(q, scale)) {
          ADD_FAILURE() << what << " target " << t << " vertex " << v << " component " << c << ": " << expected
                        << " stored as " << q << ", decoded as " << decoded << " (scale " << scale << ", bound "
                        << snormBound(scale) << ")";
          return worst;
        }
      }
    }
  }
  return worst;
}

TEST(Snorm16, KnownValues) {
  EXPECT_EQ(floatToSnorm16(0.0f, 1.0f), 0);
  EXPECT_EQ(floatToSnorm16(-0.0f, 1.0f), 0);
  EXPECT_EQ(floatToSnorm16(1.0f, 1.0f), 32767);
  EXPECT_EQ(floatToSnorm16(-1.0f, 1.0f), -32767);
  EXPECT_EQ(floatToSnorm16(0.25f, 0.25f), 32767);
  EXPECT_EQ(floatToSnorm16(0.5f, 1.0f), 16384);  // 16383.5: ties to even
  EXPECT_EQ(floatToSnorm16(-0.5f, 1.0f), -16384);
  EXPECT_EQ(floatToSnorm16(1.5f / 32767.0f * 0.999f, 1.0f), 1);  // either side of 1.5 steps
  EXPECT_EQ(floatToSnorm16(1.5f / 32767.0f * 1.001f, 1.0f), 2);
  EXPECT_EQ(floatToSnorm16(1.1f, 1.0f), 32767);  // beyond the scale: clamped, never -32768
  EXPECT_EQ(floatToSnorm16(-1.1f, 1.0f), -32767);
  EXPECT_EQ(floatToSnorm16(0.3f, 0.0f), 0);  // a zero scale moves nothing
  EXPECT_EQ(floatToSnorm16(NAN, 1.0f), 0);
  EXPECT_EQ(snorm16ToFloat(32767, 0.37f), 0.37f);  // ±max decodes exactly
  EXPECT_EQ(snorm16ToFloat(-32767, 0.37f), -0.37f);
  EXPECT_EQ(snorm16ToFloat(0, FLT_MAX), 0.0f);
  EXPECT_EQ(snorm16ToFloat(32767, FLT_MAX), FLT_MAX);  // no overflow at the top of the float range
}

// One target per scale regime (huge, ordinary, tiny, subnormal), each holding ±max, zero, values at and around
// half steps, and LCG noise; normals with their own (different) scale; texcoords/colors in the extra slot.
TEST(Snorm16, AdversarialValuesStayWithinTheBound) {
  const float maxima[] = {3.0e38f, 0.0791f, 1.5e-30f, 2.0e-40f};
  PrimitiveData p;
  p.vertex_count = 70;  // two tiles, the second one partly padding
  p.position.assign(3 * p.vertex_count, 0.0f);
  p.normal.assign(3 * p.vertex_count, 0.0f);
  p.normal[2] = 1.0f;
  p.texcoords.assign(1, std::vector<float>(2 * p.vertex_count, 0.5f));
  p.colors.assign(1, std::vector<float>(4 * p.vertex_count, 1.0f));
  test::Lcg rng{7};
  for (float max : maxima) {
    MorphTargetData t;
    auto fill = [&](std::vector<float>& values, size_t n, float m) {
      values.resize(n);
      for (size_t i = 0; i < n; ++i) values[i] = m * rng.signedNext();
      values[0] = m;
      values[1] = -m;
      values[2] = 0.0f;
      values[3] = -0.0f;
      values[4] = std::nextafter(m / 65534.0f, 0.0f);        // just below half a step: rounds to 0
      values[5] = m * (3.0f / 65534.0f);                     // 1.5 steps
      values[6] = std::nextafter(m, 0.0f);                   // just below the max
      values[7] = std::numeric_limits<float>::denorm_min();  // the smallest float
      values[8] = -m * 0.5f;
    };
    fill(t.position, 3 * p.vertex_count, max);
    fill(t.normal, 3 * p.vertex_count, max * 0.25f);
    fill(t.texcoords.emplace_back(), 2 * p.vertex_count, max * 0.01f);
    fill(t.colors.emplace_back(), 4 * p.vertex_count, max * 0.5f);
    p.targets.push_back(std::move(t));
  }
  const std::array<double, kSnorm16ScaleSlots> worst = checkRoundTrip(p, "adversarial");
  EXPECT_GT(worst[0], 0.0);  // the noise is not on the grid: the test sees real rounding
  const Snorm16DeltaError e = snorm16DeltaError(p);
  EXPECT_FALSE(e.non_finite);
  EXPECT_EQ(e.max_scale_position, maxima[0]);
  EXPECT_EQ(e.max_abs_position, float(worst[0]));
  EXPECT_EQ(e.max_abs_normal, float(worst[1]));
}

TEST(Snorm16, ScalesFollowTheSlabsOnePerTargetAndAttribute) {
  PrimitiveData p;
  p.vertex_count = 3;
  p.position.assign(9, 0.0f);
  p.normal.assign(9, 0.0f);
  p.targets.resize(2);
  p.targets[0].position = {0.01f, 0, 0, 0, -0.02f, 0, 0, 0, 0};
  p.targets[0].normal = {0, 0.5f, 0, 0, 0, 0, 0, 0, -1.5f};
  p.targets[1].position.assign(9, 0.0f);  // moves nothing: scale 0, every q 0
  Expected<PackedDeltas> packed = packDeltas(p, DeltaLayout::kDenseSnorm16);
  ASSERT_TRUE(packed) << packed.error().message;
  Expected<PackedDeltas> halves = packDeltas(p, DeltaLayout::kDenseF16);
  ASSERT_TRUE(halves);
  // f16's slabs byte for byte in size, then 2 × 16 bytes of scales.
  ASSERT_EQ(packed->bytes.size(), halves->bytes.size() + 32);
  EXPECT_EQ(packed->target_bytes, halves->target_bytes);
  float scales[8];
  std::memcpy(scales, packed->bytes.data() + halves->bytes.size(), sizeof scales);
  const float expected[8] = {0.02f, 1.5f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(scales[i], expected[i]) << "scale " << i;
  auto qAt = [&](uint32_t t, uint32_t v, uint32_t c) {
    int16_t q;
    std::memcpy(&q, packed->bytes.data() + 2 * denseElementIndex(2, 6, t, v, c), 2);
    return q;
  };
  EXPECT_EQ(qAt(0, 1, 1), -32767);  // Δpy of vertex 1 = −position scale
  EXPECT_EQ(qAt(0, 0, 0), 16384);   // 0.01 / 0.02 · 32767 = 16383.5 → even
  EXPECT_EQ(qAt(0, 2, 5), -32767);  // Δnz of vertex 2 = −normal scale
  EXPECT_EQ(qAt(0, 0, 4), 10922);   // 0.5 / 1.5 · 32767 = 10922.33
  for (uint32_t v = 0; v < 3; ++v) {
    for (uint32_t c = 0; c < 6; ++c) EXPECT_EQ(qAt(1, v, c), 0);
  }
  EXPECT_EQ(std::string(deltaLayoutName(DeltaLayout::kDenseSnorm16)), "dense_snorm16");
  EXPECT_EQ(denseElementBytes(DeltaLayout::kDenseSnorm16), 2u);
}

TEST(Snorm16, NonFiniteDeltasAreRefused) {
  test::SyntheticOptions o;
  o.vertices = 40;
  o.targets = 3;
  for (float bad : {NAN, INFINITY, -INFINITY}) {
    PrimitiveData p = test::syntheticPrimitive(o);
    p.targets[2].normal[7] = bad;
    Expected<PackedDeltas> packed = packDeltas(p, DeltaLayout::kDenseSnorm16);
    ASSERT_FALSE(packed);
    EXPECT_EQ(packed.error().code, Error::kInvalidArgument);
    EXPECT_NE(packed.error().message.find("target 2: a delta is not finite"), std::string::npos)
        << packed.error().message;
    EXPECT_TRUE(snorm16DeltaError(p).non_finite);
  }
}

// snorm16DeltaError (what inspect prints) is the decoder's own largest error, and within scale / 65534.
TEST(Snorm16, ReportedErrorIsTheDecodersError) {
  test::SyntheticOptions o;
  o.vertices = 150;
  o.targets = 6;
  const PrimitiveData p = test::syntheticPrimitive(o);
  const std::array<double, kSnorm16ScaleSlots> worst = checkRoundTrip(p, "synthetic");
  const Snorm16DeltaError e = snorm16DeltaError(p);
  EXPECT_FALSE(e.non_finite);
  EXPECT_EQ(e.max_abs_position, float(worst[0]));
  EXPECT_EQ(e.max_abs_normal, float(worst[1]));
  EXPECT_EQ(e.max_abs_tangent, float(worst[2]));
  EXPECT_EQ(e.max_abs_extra, float(worst[3]));
  EXPECT_GT(e.max_abs_position, 0.0f);
  EXPECT_LE(e.max_abs_position, snormBound(e.max_scale_position));
  EXPECT_LE(e.max_abs_normal, snormBound(e.max_scale_normal));
  // Deltas spread over a binade or more: snorm16's 2^-16 steps of the scale beat f16's 2^-11 relative steps.
  const F16DeltaError h = f16DeltaError(p);
  EXPECT_LT(e.max_abs_position, h.max_abs_position);
  EXPECT_LT(e.max_abs_normal, h.max_abs_normal);
}

// Every shared model with targets: its real deltas round-trip within the bound, and the reported error is exact.
TEST(Snorm16, SharedModelsRoundTripWithinTheBound) {
  MORPHKIT_REQUIRE_SHARED();
  size_t primitives = 0;
  for (const std::filesystem::path& file : test::sharedModelFiles()) {
    Expected<Asset> asset = loadAsset(file);
    if (!asset) continue;  // invalid-on-purpose files are the loader tests' business
    Expected<PosePrepared> prepared = preparePose(*asset);
    if (!prepared) continue;
    for (const PrimitiveData& p : prepared->primitives) {
      if (p.targets.empty()) continue;
      ++primitives;
      const std::string what = file.filename().string() + " mesh " + std::to_string(p.mesh);
      const std::array<double, kSnorm16ScaleSlots> worst = checkRoundTrip(p, what);
      const Snorm16DeltaError e = snorm16DeltaError(p);
      EXPECT_FALSE(e.non_finite) << what;
      EXPECT_EQ(e.max_abs_position, float(worst[0])) << what;
      EXPECT_EQ(e.max_abs_normal, float(worst[1])) << what;
    }
  }
  EXPECT_GE(primitives, 8u);
}

}  // namespace
}  // namespace morphkit
