// SPDX-License-Identifier: MIT
// morphkit/pack/packed_targets.h — part of the pack module (src/pack/, docs/LAYOUTS.md §8): the CPU fast path's
// morph streams. Pure function `PrimitiveData → PackedTargets`, no Vulkan.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "morphkit/model/primitive.h"

namespace morphkit {

// Morph deltas prepacked for the fast path: target-major, one stream per (target, attribute) that is not all
// zero, each trimmed to the vertex span [first, last) where it has non-zero deltas. A sparse target (a face
// region) therefore costs only its region.
struct PackedTargets {
  enum Attribute : uint32_t { kPosition = 0, kNormal = 1, kTangent = 2, kTexcoord0 = 3 };  // colors follow texcoords
  struct Stream {
    uint32_t attribute = 0;        // kPosition, kNormal, kTangent, kTexcoord0 + set, kTexcoord0 + texcoord_sets + set
    uint32_t components = 0;       // 3, 3, 3, 2, 4
    uint32_t first = 0, last = 0;  // vertices with non-zero deltas lie in [first, last)
    size_t offset = 0;             // into deltas; components × (last - first) floats
  };
  uint32_t vertex_count = 0;
  uint32_t target_count = 0;
  uint32_t texcoord_sets = 0, color_sets = 0;
  uint32_t joints_needed = 0;  // 1 + the largest joint index with a non-zero skin weight (0: no skin data)
  float pivot[3] = {0, 0, 0};  // centre of the base positions' bounding box: the float transforms use p − pivot
  std::vector<uint32_t> target_streams;  // target_count + 1 offsets into streams
  std::vector<Stream> streams;
  std::vector<float> deltas;
};

// Pure function: PrimitiveData → PackedTargets.
PackedTargets packTargets(const PrimitiveData& primitive);

}  // namespace morphkit
