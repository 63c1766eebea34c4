// SPDX-License-Identifier: MIT
// node_layout.cpp — the morph feature's buffer layouts (pure functions + decoders; docs/NODE_MATERIALS.md).
#include <algorithm>
#include <cstring>

#include "morphkit/node_material.h"

namespace morphkit {

static_assert(offsetof(NodeObjectHeader, normal_matrix) == 64 && offsetof(NodeObjectHeader, features) == 128 &&
                  offsetof(NodeObjectHeader, skin_sets) == 132 && offsetof(NodeObjectHeader, texture_mask) == 136 &&
                  offsetof(NodeObjectHeader, texcoord_sets) == 140 && offsetof(NodeObjectHeader, alpha_mode) == 144 &&
                  offsetof(NodeObjectHeader, alpha_cutoff) == 148,
              "NodeObjectHeader mirrors the std140 NodeUniforms block of the generated GLSL");
static_assert(offsetof(NodeMorphHeader, vertex_count) == 4 && offsetof(NodeMorphHeader, bands_per_target) == 8,
              "NodeMorphHeader mirrors the std430 NodeMorphHeader struct of the morph feature");

namespace {

uint32_t bandsFor(const PrimitiveData& p) {
  if (p.tangent.empty()) return 2;
  for (const MorphTargetData& t : p.targets) {
    if (!t.tangent.empty()) return 3;
  }
  return 2;
}

NodeMorphHeader headerFor(const PrimitiveData& p) {
  NodeMorphHeader h;
  h.count = uint32_t(p.targets.size());
  h.vertex_count = std::max(p.vertex_count, 1u);
  h.bands_per_target = bandsFor(p);
  return h;
}

}  // namespace

std::vector<uint8_t> packNodeMorphDeltas(const PrimitiveData& primitive) {
  if (primitive.targets.empty()) return {};
  const NodeMorphHeader h = headerFor(primitive);
  const size_t floats = size_t(h.count) * h.bands_per_target * h.vertex_count * 3;
  std::vector<uint8_t> bytes(sizeof h + floats * 4, 0);
  std::memcpy(bytes.data(), &h, sizeof h);
  float* out = reinterpret_cast<float*>(bytes.data() + sizeof h);  // offset 24: 4-byte aligned
  for (uint32_t t = 0; t < h.count; ++t) {
    const MorphTargetData& target = primitive.targets[t];
    const std::vector<float>* bands[3] = {&target.position, &target.normal, &target.tangent};
    for (uint32_t b = 0; b < h.bands_per_target; ++b) {
      const std::vector<float>& src = *bands[b];
      const size_t n = std::min<size_t>(src.size(), size_t(primitive.vertex_count) * 3);
      if (n) std::memcpy(out + (size_t(t) * h.bands_per_target + b) * h.vertex_count * 3, src.data(), n * 4);
    }
  }
  return bytes;
}

std::vector<uint8_t> packNodeMorphWeights(const PrimitiveData& primitive, std::span<const float> weights) {
  if (primitive.targets.empty()) return {};
  const NodeMorphHeader h = headerFor(primitive);
  std::vector<uint8_t> bytes(sizeof h + size_t(h.count) * 4, 0);
  std::memcpy(bytes.data(), &h, sizeof h);
  writeNodeMorphWeights(bytes, weights);
  return bytes;
}

bool writeNodeMorphWeights(std::span<uint8_t> bytes, std::span<const float> weights) {
  if (bytes.size() < sizeof(NodeMorphHeader)) return false;
  const NodeMorphHeader h = readNodeMorphHeader(bytes);
  if (bytes.size() < sizeof h + size_t(h.count) * 4) return false;
  for (uint32_t i = 0; i < h.count; ++i) {
    const float w = i < weights.size() ? weights[i] : 0.0f;
    std::memcpy(bytes.data() + sizeof h + i * 4, &w, 4);
  }
  return true;
}

NodeMorphHeader readNodeMorphHeader(std::span<const uint8_t> bytes) {
  NodeMorphHeader h;
  if (bytes.size() >= sizeof h) std::memcpy(&h, bytes.data(), sizeof h);
  return h;
}

std::vector<float> unpackNodeMorphBand(std::span<const uint8_t> deltas, uint32_t target, uint32_t band) {
  const NodeMorphHeader h = readNodeMorphHeader(deltas);
  if (target >= h.count || band >= h.bands_per_target) return {};
  const size_t start = sizeof h + (size_t(target) * h.bands_per_target + band) * h.vertex_count * 12;
  const size_t n = size_t(h.vertex_count) * 3;
  if (deltas.size() < start + n * 4) return {};
  std::vector<float> out(n);
  std::memcpy(out.data(), deltas.data() + start, n * 4);
  return out;
}

}  // namespace morphkit
