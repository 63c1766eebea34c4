// SPDX-License-Identifier: MIT
// The CPU fast path's packed streams (docs/LAYOUTS.md §8): target-major, one stream per (target, attribute)
// trimmed to its non-zero vertex span. Pure function, no Vulkan; read by deform_fast.cpp.
#include "morphkit/pack/packed_targets.h"

#include <algorithm>
#include <cmath>

namespace morphkit {

namespace {

// Returns [first, last) of vertices with any non-zero component, or first == last when all zero.
void nonZeroSpan(const std::vector<float>& d, uint32_t components, uint32_t vertex_count, uint32_t& first,
                 uint32_t& last) {
  first = last = 0;
  if (d.size() != size_t(components) * vertex_count) return;
  size_t lo = 0, hi = d.size();
  while (lo < hi && d[lo] == 0.0f) ++lo;
  while (hi > lo && d[hi - 1] == 0.0f) --hi;
  if (lo == hi) return;
  first = uint32_t(lo / components);
  last = uint32_t((hi + components - 1) / components);
}

void addStream(PackedTargets& packed, uint32_t attribute, uint32_t components, const std::vector<float>& d) {
  uint32_t first, last;
  nonZeroSpan(d, components, packed.vertex_count, first, last);
  if (first == last) return;  // all zero (or absent): this target does not move that attribute
  PackedTargets::Stream s;
  s.attribute = attribute;
  s.components = components;
  s.first = first;
  s.last = last;
  s.offset = packed.deltas.size();
  packed.deltas.insert(packed.deltas.end(), d.begin() + ptrdiff_t(size_t(first) * components),
                       d.begin() + ptrdiff_t(size_t(last) * components));
  packed.streams.push_back(s);
}

}  // namespace

PackedTargets packTargets(const PrimitiveData& p) {
  PackedTargets packed;
  packed.vertex_count = p.vertex_count;
  packed.target_count = uint32_t(p.targets.size());
  packed.texcoord_sets = uint32_t(p.texcoords.size());
  packed.color_sets = uint32_t(p.colors.size());
  for (size_t i = 0; i < p.joints.size() && i < p.skin_weights.size(); ++i) {
    if (p.skin_weights[i] != 0.0f)
      packed.joints_needed = std::max(packed.joints_needed, p.joints[i] + (p.joints[i] < UINT32_MAX ? 1 : 0));
  }
  // Pivot: the float centre of the base positions' bounding box (the float skinning works relative to it).
  if (p.vertex_count > 0 && p.position.size() >= size_t(3) * p.vertex_count) {
    for (int c = 0; c < 3; ++c) {
      float lo = p.position[size_t(c)], hi = lo;
      for (size_t v = 0; v < p.vertex_count; ++v) {
        const float x = p.position[3 * v + size_t(c)];
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
      const float centre = float(0.5 * (double(lo) + double(hi)));
      packed.pivot[c] = std::isfinite(centre) ? centre : 0.0f;
    }
  }
  packed.target_streams.push_back(0);
  for (const MorphTargetData& t : p.targets) {
    addStream(packed, PackedTargets::kPosition, 3, t.position);
    if (!p.normal.empty()) addStream(packed, PackedTargets::kNormal, 3, t.normal);
    if (!p.tangent.empty()) addStream(packed, PackedTargets::kTangent, 3, t.tangent);
    for (size_t s = 0; s < t.texcoords.size() && s < p.texcoords.size(); ++s) {
      addStream(packed, PackedTargets::kTexcoord0 + uint32_t(s), 2, t.texcoords[s]);
    }
    for (size_t s = 0; s < t.colors.size() && s < p.colors.size(); ++s) {
      addStream(packed, PackedTargets::kTexcoord0 + packed.texcoord_sets + uint32_t(s), 4, t.colors[s]);
    }
    packed.target_streams.push_back(uint32_t(packed.streams.size()));
  }
  return packed;
}

}  // namespace morphkit
