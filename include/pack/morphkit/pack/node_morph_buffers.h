// SPDX-License-Identifier: MIT
// morphkit/pack/node_morph_buffers.h — part of the pack module (src/pack/, docs/LAYOUTS.md §10): the node material's
// morph storage buffers. They hold the band texture's bands (same order, same band rule) flat in a storage
// buffer instead of tiled in an image, because generated node shaders read them by index and need no
// image or sampler binding. Pure functions with decoders, no Vulkan.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "morphkit/model/primitive.h"

namespace morphkit {

// The morph feature's storage buffers both start with this 24-byte header (std430):
//   NodeMorphDeltas:  header, then float deltas[]: target t, band b (0 position, 1 normal, 2 tangent), vertex v
//                     at ((t · bands_per_target + b) · vertex_count + v) · 3, xyz.
//   NodeMorphWeights: header, then float weights[count].
// The shader reads `count` and `vertex_count` from the weights buffer; with count = 0 no delta is ever read.
struct NodeMorphHeader {
  uint32_t count = 0;             // morph targets
  uint32_t vertex_count = 1;      // vertices per band (never 0)
  uint32_t bands_per_target = 0;  // 2 (position, normal) or 3 (+ tangent)
  uint32_t pad0 = 0, pad1 = 0, pad2 = 0;
};
static_assert(sizeof(NodeMorphHeader) == 24);
inline constexpr uint32_t kNodeMorphFallbackBytes = 24;

// The zero-target fallback: one NodeMorphHeader {count 0, vertex_count 1, rest 0}.
std::array<uint8_t, kNodeMorphFallbackBytes> nodeMorphFallbackBytes();
// The delta buffer of a primitive (glTF 2.0 §3.7.2.2 targets; absent attributes are zeros). bands_per_target is
// 3 when any target has tangent deltas and the primitive has tangents, else 2. Empty when it has no targets.
std::vector<uint8_t> packNodeMorphDeltas(const PrimitiveData& primitive);
// The weights buffer: header (as the delta buffer's) + weights (missing ones 0). Empty without targets.
std::vector<uint8_t> packNodeMorphWeights(const PrimitiveData& primitive, std::span<const float> weights);
// Per-frame update: rewrites the weights after the header; false when the span is too small.
bool writeNodeMorphWeights(std::span<uint8_t> bytes, std::span<const float> weights);
// Decoders (tests): the header, and one band of one target as 3 × vertex_count floats.
NodeMorphHeader readNodeMorphHeader(std::span<const uint8_t> bytes);
std::vector<float> unpackNodeMorphBand(std::span<const uint8_t> deltas, uint32_t target, uint32_t band);

}  // namespace morphkit
