// SPDX-License-Identifier: MIT
// Packing layouts of the Vulkan compute path (docs/LAYOUTS.md). Pure functions, no Vulkan.
#include "morphkit/pack/packed_deltas.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace morphkit {

namespace {

uint32_t extraFloats(const PrimitiveData& p) {
  return uint32_t(p.texcoords.size() * 2 + p.colors.size() * 4);
}

bool hasAny(const std::vector<float>& v) {
  return !v.empty();
}

// Does any target carry deltas for base attributes the vertex has?
struct TargetUse {
  bool position = false, normal = false, tangent = false, extra = false;
};
TargetUse targetUse(const PrimitiveData& p) {
  TargetUse use;
  for (const MorphTargetData& t : p.targets) {
    use.position |= hasAny(t.position);
    use.normal |= hasAny(t.normal) && !p.normal.empty();
    use.tangent |= hasAny(t.tangent) && !p.tangent.empty();
    for (size_t s = 0; s < t.texcoords.size() && s < p.texcoords.size(); ++s) use.extra |= hasAny(t.texcoords[s]);
    for (size_t s = 0; s < t.colors.size() && s < p.colors.size(); ++s) use.extra |= hasAny(t.colors[s]);
  }
  return use;
}

// Writes target t's delta record for vertex v into `record` (format.stride floats). Arrays that are
// empty or of the wrong size count as zero (a target without the attribute moves nothing, §3.7.2.2).
void gatherRecord(const PrimitiveData& p, const DeltaFormat& f, const MorphTargetData& t, uint32_t v, float* record) {
  std::fill(record, record + f.stride, 0.0f);
  const size_t n = p.vertex_count;
  auto copy = [&](const std::vector<float>& src, uint32_t components, uint32_t offset) {
    if (offset == kLayoutAbsent || src.size() != components * n) return;
    for (uint32_t c = 0; c < components; ++c) record[offset + c] = src[size_t(v) * components + c];
  };
  copy(t.position, 3, f.position);
  copy(t.normal, 3, f.normal);
  copy(t.tangent, 3, f.tangent);
  if (f.extra != kLayoutAbsent) {
    uint32_t offset = f.extra;
    for (size_t s = 0; s < p.texcoords.size(); ++s, offset += 2) {
      if (s < t.texcoords.size()) copy(t.texcoords[s], 2, offset);
    }
    for (size_t s = 0; s < p.colors.size(); ++s, offset += 4) {
      if (s < t.colors.size()) copy(t.colors[s], 4, offset);
    }
  }
}

// Per target: which vertices the sparse layout keeps (see packDeltas' contract).
std::vector<uint8_t> keptVertices(const PrimitiveData& p, const DeltaFormat& f, const MorphTargetData& t) {
  std::vector<uint8_t> keep(p.vertex_count, 0);
  std::vector<float> record(f.stride);
  auto mark = [&](const std::vector<uint32_t>& indices) {
    for (uint32_t i : indices) {
      if (i < p.vertex_count) keep[i] = 1;
    }
  };
  if (t.position_sparse && f.position != kLayoutAbsent) mark(t.position_sparse_indices);
  if (t.normal_sparse && f.normal != kLayoutAbsent) mark(t.normal_sparse_indices);
  if (t.tangent_sparse && f.tangent != kLayoutAbsent) mark(t.tangent_sparse_indices);
  for (uint32_t v = 0; v < p.vertex_count; ++v) {
    if (keep[v]) continue;
    gatherRecord(p, f, t, v, record.data());
    for (float x : record) {
      if (x != 0.0f) {
        keep[v] = 1;
        break;
      }
    }
  }
  return keep;
}

void putWord(std::vector<uint8_t>& bytes, size_t offset, uint32_t word) {
  std::memcpy(bytes.data() + offset, &word, 4);
}

// The snorm16 scale slot of each component of a record (position 0, normal 1, tangent 2, texcoords/colors 3).
std::vector<uint32_t> componentSlots(const DeltaFormat& f) {
  std::vector<uint32_t> slot(f.stride, 3);
  const uint32_t starts[3] = {f.position, f.normal, f.tangent};
  for (uint32_t a = 0; a < 3; ++a) {
    if (starts[a] == kLayoutAbsent) continue;
    for (uint32_t c = 0; c < 3; ++c) slot[starts[a] + c] = a;
  }
  return slot;
}

// Largest |x| of the values; inf when one is inf or NaN (std::max would drop a NaN).
float maxAbs(float current, const std::vector<float>& values) {
  for (float x : values) {
    if (!std::isfinite(x)) return HUGE_VALF;
    current = std::max(current, std::fabs(x));
  }
  return current;
}

}  // namespace

VertexFormat vertexFormat(const PrimitiveData& p) {
  VertexFormat f;
  uint32_t offset = 3;
  if (!p.normal.empty()) {
    f.normal = offset;
    offset += 3;
  }
  if (!p.tangent.empty()) {
    f.tangent = offset;
    offset += 4;
  }
  f.texcoord_sets = uint32_t(p.texcoords.size());
  f.color_sets = uint32_t(p.colors.size());
  if (extraFloats(p) > 0) {
    f.extra = offset;
    offset += extraFloats(p);
  }
  f.stride = offset;
  return f;
}

PackedVertices packVertices(const PrimitiveData& p) {
  PackedVertices out;
  out.format = vertexFormat(p);
  out.vertex_count = p.vertex_count;
  out.data.assign(size_t(p.vertex_count) * out.format.stride, 0.0f);
  auto put = [&](const std::vector<float>& src, uint32_t components, uint32_t offset) {
    if (offset == kLayoutAbsent || src.size() != size_t(components) * p.vertex_count) return;
    for (uint32_t v = 0; v < p.vertex_count; ++v) {
      for (uint32_t c = 0; c < components; ++c)
        out.data[size_t(v) * out.format.stride + offset + c] = src[size_t(v) * components + c];
    }
  };
  put(p.position, 3, 0);
  put(p.normal, 3, out.format.normal);
  put(p.tangent, 4, out.format.tangent);
  uint32_t offset = out.format.extra;
  for (const auto& set : p.texcoords) put(set, 2, offset), offset += 2;
  for (const auto& set : p.colors) put(set, 4, offset), offset += 4;
  return out;
}

void unpackVertices(const VertexFormat& f, uint32_t vertex_count, const float* data, PrimitiveData& out) {
  out.vertex_count = vertex_count;
  auto get = [&](std::vector<float>& dst, uint32_t components, uint32_t offset) {
    if (offset == kLayoutAbsent) {
      dst.clear();
      return;
    }
    dst.resize(size_t(components) * vertex_count);
    for (uint32_t v = 0; v < vertex_count; ++v) {
      for (uint32_t c = 0; c < components; ++c)
        dst[size_t(v) * components + c] = data[size_t(v) * f.stride + offset + c];
    }
  };
  get(out.position, 3, 0);
  get(out.normal, 3, f.normal);
  get(out.tangent, 4, f.tangent);
  out.texcoords.resize(f.texcoord_sets);
  out.colors.resize(f.color_sets);
  uint32_t offset = f.extra;
  for (auto& set : out.texcoords) get(set, 2, offset), offset += 2;
  for (auto& set : out.colors) get(set, 4, offset), offset += 4;
}

const char* deltaLayoutName(DeltaLayout layout) {
  switch (layout) {
    case DeltaLayout::kDenseF32:
      return "dense_f32";
    case DeltaLayout::kDenseF16:
      return "dense_f16";
    case DeltaLayout::kSparse:
      return "sparse";
    case DeltaLayout::kDenseSnorm16:
      return "dense_snorm16";
  }
  return "unknown";
}

uint32_t denseElementBytes(DeltaLayout layout) {
  return layout == DeltaLayout::kDenseF16 || layout == DeltaLayout::kDenseSnorm16 ? 2 : 4;
}

uint64_t denseDeltaBytes(uint32_t vertex_count, uint32_t target_count, uint32_t stride, uint32_t element_bytes) {
  const uint64_t tiles = (uint64_t(vertex_count) + kDeltaTileVertices - 1) / kDeltaTileVertices;
  return tiles * target_count * kDeltaTileVertices * stride * element_bytes;
}

uint64_t denseElementIndex(uint32_t target_count, uint32_t stride, uint32_t target, uint32_t vertex,
                           uint32_t component) {
  const uint64_t slab = uint64_t(vertex / kDeltaTileVertices) * target_count + target;
  const uint32_t plane = component / 4;
  const uint32_t width = std::min(4u, stride - 4 * plane);
  return slab * kDeltaTileVertices * stride + kDeltaTileVertices * 4 * plane + (vertex % kDeltaTileVertices) * width +
         component % 4;
}

Expected<DeltaFormat> deltaFormat(const PrimitiveData& p) {
  DeltaFormat f;
  const TargetUse use = targetUse(p);
  uint32_t offset = 0;
  if (use.position) f.position = offset, offset += 3;
  if (use.normal) f.normal = offset, offset += 3;
  if (use.tangent) f.tangent = offset, offset += 3;
  if (use.extra) {
    const uint32_t extra = extraFloats(p);
    if (extra > kMaxMorphedExtra) {
      return fail(Error::kInvalidArgument,
                  "mesh " + std::to_string(p.mesh) + " primitive " + std::to_string(p.primitive) +
                      ": morph targets move " + std::to_string(extra) +
                      " texcoord/color floats per vertex; the GPU path supports " + std::to_string(kMaxMorphedExtra));
    }
    f.extra = offset;
    f.extra_count = extra;
    offset += extra;
  }
  f.stride = offset;
  return f;
}

uint16_t floatToHalf(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) return uint16_t(sign | (abs > 0x7F800000u ? 0x7E00u : 0x7C00u));  // NaN / inf
  if (abs >= 0x477FF000u) return uint16_t(sign | 0x7C00u);  // rounds to >= 65520: overflow to inf
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): value = m × 2^-24, round to nearest even.
    if (abs < 0x33000000u) return uint16_t(sign);  // < 2^-25: rounds to zero
    const uint32_t exponent = abs >> 23;
    const uint32_t mantissa = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - exponent;  // 14 + (113 - exponent - 1) + 1
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return uint16_t(sign | half);
  }
  // Normal: rebias the exponent (127 → 15) and round the 13 dropped mantissa bits to nearest even.
  uint32_t half = ((abs - 0x38000000u) >> 13);
  const uint32_t rest = abs & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
  return uint16_t(sign | half);
}

float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  const uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0) {
    const float magnitude = std::ldexp(float(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

uint64_t snorm16ScaleOffset(uint32_t vertex_count, uint32_t target_count, uint32_t stride) {
  return denseDeltaBytes(vertex_count, target_count, stride, 2);
}

std::array<float, kSnorm16ScaleSlots> snorm16TargetScales(const MorphTargetData& t) {
  std::array<float, kSnorm16ScaleSlots> scales{};
  scales[0] = maxAbs(0.0f, t.position);
  scales[1] = maxAbs(0.0f, t.normal);
  scales[2] = maxAbs(0.0f, t.tangent);
  for (const auto& set : t.texcoords) scales[3] = maxAbs(scales[3], set);
  for (const auto& set : t.colors) scales[3] = maxAbs(scales[3], set);
  return scales;
}

int16_t floatToSnorm16(float value, float scale) {
  if (!(scale > 0.0f) || !std::isfinite(value)) return 0;
  // In double: value / scale · 32767 is exact enough that the rounding is to the nearest step.
  const double q = std::nearbyint(double(value) / double(scale) * 32767.0);
  return int16_t(std::clamp(q, -32767.0, 32767.0));
}

float snorm16ToFloat(int16_t q, float scale) {
  return float(double(q) / 32767.0 * double(scale));
}

std::array<float, kSnorm16ScaleSlots> packedSnorm16Scales(const PackedDeltas& packed, uint32_t target) {
  std::array<float, kSnorm16ScaleSlots> scales{};
  const uint64_t at = snorm16ScaleOffset(packed.vertex_count, packed.target_count, packed.format.stride) +
                      4 * kSnorm16ScaleSlots * uint64_t(target);
  if (packed.layout == DeltaLayout::kDenseSnorm16 && target < packed.target_count && at + 16 <= packed.bytes.size()) {
    std::memcpy(scales.data(), packed.bytes.data() + at, 4 * kSnorm16ScaleSlots);
  }
  return scales;
}

Snorm16DeltaError snorm16DeltaError(const PrimitiveData& p) {
  Snorm16DeltaError e;
  auto scan = [&](const std::vector<float>& values, float scale, float& max_abs, float& max_scale) {
    if (values.empty()) return;
    max_scale = std::max(max_scale, scale);
    for (float x : values) max_abs = std::max(max_abs, std::fabs(snorm16ToFloat(floatToSnorm16(x, scale), scale) - x));
  };
  for (const MorphTargetData& t : p.targets) {
    const std::array<float, kSnorm16ScaleSlots> scales = snorm16TargetScales(t);
    for (float scale : scales) e.non_finite |= !std::isfinite(scale);
    if (e.non_finite) continue;
    scan(t.position, scales[0], e.max_abs_position, e.max_scale_position);
    scan(t.normal, scales[1], e.max_abs_normal, e.max_scale_normal);
    scan(t.tangent, scales[2], e.max_abs_tangent, e.max_scale_tangent);
    for (const auto& set : t.texcoords) scan(set, scales[3], e.max_abs_extra, e.max_scale_extra);
    for (const auto& set : t.colors) scan(set, scales[3], e.max_abs_extra, e.max_scale_extra);
  }
  return e;
}

std::vector<uint64_t> sparseRecordCounts(const PrimitiveData& p) {
  std::vector<uint64_t> counts(p.targets.size(), 0);
  Expected<DeltaFormat> f = deltaFormat(p);
  if (!f) return counts;
  for (size_t t = 0; t < p.targets.size(); ++t) {
    for (uint8_t k : keptVertices(p, *f, p.targets[t])) counts[t] += k;
  }
  return counts;
}

uint64_t sparseRecordCount(const PrimitiveData& p) {
  uint64_t count = 0;
  for (uint64_t c : sparseRecordCounts(p)) count += c;
  return count;
}

DeltaLayout chooseDeltaLayout(const PrimitiveData& p, double sparse_ratio) {
  for (const MorphTargetData& t : p.targets) {
    if (t.position_sparse || t.normal_sparse || t.tangent_sparse) return DeltaLayout::kSparse;
  }
  Expected<DeltaFormat> f = deltaFormat(p);
  if (!f || f->stride == 0 || p.targets.empty()) return DeltaLayout::kDenseF32;
  const double dense = double(p.vertex_count) * double(p.targets.size()) * f->stride * 4.0;
  const double sparse = 4.0 * (p.vertex_count + 1) + double(sparseRecordCount(p)) * 4.0 * (1 + f->stride);
  return sparse <= sparse_ratio * dense ? DeltaLayout::kSparse : DeltaLayout::kDenseF32;
}

Expected<PackedDeltas> packDeltas(const PrimitiveData& p, DeltaLayout layout) {
  Expected<DeltaFormat> format = deltaFormat(p);
  if (!format) return format.error();
  PackedDeltas out;
  out.layout = layout;
  out.format = *format;
  out.vertex_count = p.vertex_count;
  out.target_count = uint32_t(p.targets.size());
  const DeltaFormat& f = out.format;
  if (f.stride == 0) {
    // Targets that move nothing the base has ({} or deltas for absent attributes): no records, and no
    // memcpy through the null data() of empty vectors (undefined even for 0 bytes, C11 §7.24.1).
    if (layout == DeltaLayout::kSparse) out.rows.assign(size_t(p.vertex_count) + 1, 0);
    return out;
  }
  std::vector<float> record(f.stride);
  const std::vector<uint32_t> slot = componentSlots(f);
  if (layout == DeltaLayout::kSparse) {
    // Vertex-major gather list: for each vertex, its records in ascending target order, so the kernel's sum
    // has a fixed order and needs no atomics.
    std::vector<std::vector<uint8_t>> keep;
    keep.reserve(p.targets.size());
    for (const MorphTargetData& t : p.targets) keep.push_back(keptVertices(p, f, t));
    out.rows.assign(size_t(p.vertex_count) + 1, 0);
    uint64_t count = 0;
    for (uint32_t v = 0; v < p.vertex_count; ++v) {
      out.rows[v] = uint32_t(count);
      for (const auto& k : keep) count += k[v];
      if (count > UINT32_MAX) return fail(Error::kTooLarge, "packDeltas: more than 2^32 sparse records");
    }
    out.rows[p.vertex_count] = uint32_t(count);
    out.record_count = count;
    const size_t record_bytes = 4 * (size_t(1) + f.stride);
    out.bytes.assign(size_t(count) * record_bytes, 0);
    size_t at = 0;
    for (uint32_t v = 0; v < p.vertex_count; ++v) {
      for (uint32_t t = 0; t < out.target_count; ++t) {
        if (!keep[t][v]) continue;
        gatherRecord(p, f, p.targets[t], v, record.data());
        putWord(out.bytes, at, t);
        std::memcpy(out.bytes.data() + at + 4, record.data(), 4 * size_t(f.stride));
        at += record_bytes;
      }
    }
    return out;
  }
  const size_t element = denseElementBytes(layout);
  const uint64_t total = denseDeltaBytes(p.vertex_count, out.target_count, f.stride, uint32_t(element));
  const bool snorm = layout == DeltaLayout::kDenseSnorm16;
  out.target_bytes = out.target_count > 0 ? total / out.target_count : 0;
  out.record_count = uint64_t(p.vertex_count) * out.target_count;
  out.bytes.assign(size_t(total + (snorm ? 4 * kSnorm16ScaleSlots * uint64_t(out.target_count) : 0)), 0);
  for (uint32_t t = 0; t < out.target_count; ++t) {
    std::array<float, kSnorm16ScaleSlots> scales{};
    if (snorm) {
      scales = snorm16TargetScales(p.targets[t]);
      for (float scale : scales) {
        if (!std::isfinite(scale)) {
          return fail(Error::kInvalidArgument, "mesh " + std::to_string(p.mesh) + " primitive " +
                                                   std::to_string(p.primitive) + " target " + std::to_string(t) +
                                                   ": a delta is not finite (the snorm16 layout needs finite deltas)");
        }
      }
      std::memcpy(out.bytes.data() + total + 4 * kSnorm16ScaleSlots * uint64_t(t), scales.data(),
                  4 * kSnorm16ScaleSlots);
    }
    for (uint32_t v = 0; v < p.vertex_count; ++v) {
      gatherRecord(p, f, p.targets[t], v, record.data());
      for (uint32_t c = 0; c < f.stride; ++c) {
        uint8_t* at = out.bytes.data() + denseElementIndex(out.target_count, f.stride, t, v, c) * element;
        if (layout == DeltaLayout::kDenseF16) {
          const uint16_t h = floatToHalf(record[c]);
          std::memcpy(at, &h, 2);
        } else if (snorm) {
          const int16_t q = floatToSnorm16(record[c], scales[slot[c]]);
          std::memcpy(at, &q, 2);
        } else {
          std::memcpy(at, &record[c], 4);
        }
      }
    }
  }
  return out;
}

std::vector<float> unpackTargetDeltas(const PackedDeltas& packed, uint32_t target) {
  const DeltaFormat& f = packed.format;
  std::vector<float> out(size_t(packed.vertex_count) * f.stride, 0.0f);
  if (target >= packed.target_count) return out;
  if (packed.layout == DeltaLayout::kSparse) {
    const size_t record_bytes = 4 * (size_t(1) + f.stride);
    for (uint32_t v = 0; v < packed.vertex_count; ++v) {
      for (uint32_t r = packed.rows[v]; r < packed.rows[v + 1]; ++r) {
        const uint8_t* record = packed.bytes.data() + r * record_bytes;
        uint32_t t;
        std::memcpy(&t, record, 4);
        if (t == target) std::memcpy(out.data() + size_t(v) * f.stride, record + 4, 4 * size_t(f.stride));
      }
    }
    return out;
  }
  const size_t element = denseElementBytes(packed.layout);
  const std::array<float, kSnorm16ScaleSlots> scales = packedSnorm16Scales(packed, target);
  const std::vector<uint32_t> slot = componentSlots(f);
  for (uint32_t v = 0; v < packed.vertex_count; ++v) {
    for (uint32_t c = 0; c < f.stride; ++c) {
      const uint8_t* at =
          packed.bytes.data() + denseElementIndex(packed.target_count, f.stride, target, v, c) * element;
      float& value = out[size_t(v) * f.stride + c];
      if (packed.layout == DeltaLayout::kDenseF16) {
        uint16_t h;
        std::memcpy(&h, at, 2);
        value = halfToFloat(h);
      } else if (packed.layout == DeltaLayout::kDenseSnorm16) {
        int16_t q;
        std::memcpy(&q, at, 2);
        value = snorm16ToFloat(q, scales[slot[c]]);
      } else {
        std::memcpy(&value, at, 4);
      }
    }
  }
  return out;
}

F16DeltaError f16DeltaError(const PrimitiveData& p) {
  F16DeltaError e;
  auto scan = [&](const std::vector<float>& values, float& max_abs) {
    for (float x : values) {
      const float a = std::fabs(x);
      if (a > 65504.0f) e.overflow = true;
      e.max_delta = std::max(e.max_delta, a);
      max_abs = std::max(max_abs, std::fabs(halfToFloat(floatToHalf(x)) - x));
    }
  };
  for (const MorphTargetData& t : p.targets) {
    scan(t.position, e.max_abs_position);
    scan(t.normal, e.max_abs_normal);
    scan(t.tangent, e.max_abs_tangent);
    for (const auto& set : t.texcoords) scan(set, e.max_abs_extra);
    for (const auto& set : t.colors) scan(set, e.max_abs_extra);
  }
  return e;
}

PackedSkin packSkin(const PrimitiveData& p) {
  PackedSkin out;
  out.influence_sets = p.influences / 4;
  const size_t n4 = p.influences;
  if (n4 == 0 || p.joints.size() != n4 * p.vertex_count || p.skin_weights.size() != n4 * p.vertex_count) {
    out.influence_sets = 0;
    return out;
  }
  out.words.resize(2 * n4 * p.vertex_count);
  for (uint32_t v = 0; v < p.vertex_count; ++v) {
    uint32_t* w = out.words.data() + 2 * n4 * v;
    for (size_t i = 0; i < n4; ++i) {
      const uint32_t joint = p.joints[v * n4 + i];
      const float weight = p.skin_weights[v * n4 + i];
      // A zero-weight influence is skipped by the kernel; store joint 0 so it can never index out of range.
      w[i] = weight != 0.0f ? joint : 0u;
      w[n4 + i] = std::bit_cast<uint32_t>(weight);
      if (weight != 0.0f) out.joints_needed = std::max(out.joints_needed, joint + 1);
    }
  }
  return out;
}

}  // namespace morphkit
