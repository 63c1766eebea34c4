// SPDX-License-Identifier: MIT
// optimize's grids and streams (optimize_encode.cpp): values onto normalized-integer grids and the bytes of one
// accessor about to be written. Private to morphkit::optimize.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "morphkit/model/asset.h"

namespace morphkit::optimize_detail {

inline constexpr double kSqrt3 = 1.7320508075688772;

// Vertex streams are padded to 4-byte elements (meshoptimizer's attribute codec and glTF's vertex alignment).
inline uint32_t paddedStride(uint32_t element) {
  return (element + 3u) / 4u * 4u;
}

// The bytes of one accessor about to be written, with everything its JSON needs.
struct Stream {
  std::vector<uint8_t> bytes;
  uint32_t stride = 0;  // bytes per element in `bytes` (a multiple of 4 for vertex data)
  ComponentType component = ComponentType::kFloat;
  bool normalized = false;
  AccessorType type = AccessorType::kScalar;
  uint32_t count = 0;
  std::vector<double> min, max;  // stored (raw) values, when the accessor needs them
};

template <class T>
Stream packed(std::span<const T> values, uint32_t components, ComponentType component, bool normalized,
              AccessorType type, bool min_max) {
  Stream s;
  s.component = component;
  s.normalized = normalized;
  s.type = type;
  s.count = uint32_t(values.size() / components);
  const uint32_t element = uint32_t(sizeof(T) * components);
  s.stride = paddedStride(uint32_t(element));
  s.bytes.assign(size_t(s.count) * s.stride, 0);
  for (uint32_t i = 0; i < s.count; ++i) {
    std::memcpy(s.bytes.data() + size_t(i) * s.stride, values.data() + size_t(i) * components, element);
  }
  if (min_max && s.count > 0) {
    s.min.assign(components, INFINITY);
    s.max.assign(components, -INFINITY);
    for (size_t i = 0; i < values.size(); ++i) {
      s.min[i % components] = std::min(s.min[i % components], double(values[i]));
      s.max[i % components] = std::max(s.max[i % components], double(values[i]));
    }
  }
  return s;
}

// Signed normalized 16-bit values on a grid of k steps of 1/32767: the coarsest whole k whose rounding error (half
// a step per component, √3/2 of it as a vector) stays within `allowance`. Values on a coarse grid differ from
// vertex to vertex in fewer low bits, which is what meshoptimizer's byte-wise delta codec and gzip then save.
// Empty when the values do not fit [-1, 1] (give or take half a step) or the allowance is finer than 16 bits hold;
// the caller keeps floats then.
inline std::vector<int16_t> snorm16OnGrid(std::span<const float> values, double allowance) {
  double largest = 0;
  for (float v : values) largest = std::max(largest, double(std::fabs(v)));
  const double step = 2.0 * allowance / kSqrt3;  // the largest grid step within the allowance
  // Exporters write ±1.0000005 for ±1: a value past ±1 by less than half a step clamps within the allowance.
  if (largest > 1.0 + 0.5 * step || step * 32767.0 < 1.0) return {};
  const double k = std::min(16384.0, std::floor(step * 32767.0));
  std::vector<int16_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    double n = std::round(double(values[i]) * 32767.0 / k) * k;
    out[i] = int16_t(std::clamp(n, -32767.0, 32767.0));
  }
  return out;
}

template <class Int>
std::vector<Int> normalizedInts(std::span<const float> values, double scale) {
  std::vector<Int> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out[i] = Int(std::clamp(std::round(double(values[i]) * scale), -scale, scale));
  }
  return out;
}

inline bool allWithin(std::span<const float> values, float lo, float hi) {
  return std::all_of(values.begin(), values.end(), [&](float v) { return v >= lo && v <= hi; });
}

inline bool allZero(std::span<const float> values) {
  return std::all_of(values.begin(), values.end(), [](float v) { return v == 0.0f; });
}

}  // namespace morphkit::optimize_detail
