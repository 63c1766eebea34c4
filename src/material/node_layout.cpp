// SPDX-License-Identifier: MIT
// node_layout.cpp — the morph feature's buffer layouts (pure functions + decoders; docs/NODE_MATERIALS.md).
#include <algorithm>
#include <cstring>

#include "morphkit/node_material.h"
#include "render_shared.h"

namespace morphkit {

// The C++ structs the node renderer writes are the ones the generated GLSL reads from render_shared.h (its
// NodeUniforms head and NodeMorphHeader): same size, same offsets.
#define MORPHKIT_SAME_OFFSET(a, b, member) (offsetof(a, member) == offsetof(b, member))
static_assert(sizeof(NodeObjectHeader) == sizeof(render::NodeObjectUniforms) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, normal_matrix) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, features) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, skin_sets) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, texture_mask) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, texcoord_sets) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, alpha_mode) &&
                  MORPHKIT_SAME_OFFSET(NodeObjectHeader, render::NodeObjectUniforms, alpha_cutoff),
              "NodeObjectHeader mirrors MSH_NODE_OBJECT_MEMBERS, the head of the generated NodeUniforms block");
static_assert(sizeof(NodeMorphHeader) == sizeof(render::NodeMorphHeader) &&
                  MORPHKIT_SAME_OFFSET(NodeMorphHeader, render::NodeMorphHeader, count) &&
                  MORPHKIT_SAME_OFFSET(NodeMorphHeader, render::NodeMorphHeader, vertex_count) &&
                  MORPHKIT_SAME_OFFSET(NodeMorphHeader, render::NodeMorphHeader, bands_per_target),
              "NodeMorphHeader mirrors the std430 NodeMorphHeader of render_shared.h");
#undef MORPHKIT_SAME_OFFSET

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
