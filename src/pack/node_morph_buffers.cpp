// SPDX-License-Identifier: MIT
// The node material's morph storage buffers (docs/LAYOUTS.md §10): deltas band by band, weights after the same
// header, the zero-target fallback. Pure functions with decoders, no Vulkan.
#include "morphkit/pack/node_morph_buffers.h"

#include <algorithm>
#include <cstring>

#include "morphkit/pack/active_targets.h"
#include "morphkit/pack/band_texture.h"

namespace morphkit {

std::array<uint8_t, kNodeMorphFallbackBytes> nodeMorphFallbackBytes() {
  NodeMorphHeader header;  // count 0, vertex_count 1, rest 0
  std::array<uint8_t, kNodeMorphFallbackBytes> bytes{};
  std::memcpy(bytes.data(), &header, sizeof header);
  return bytes;
}

namespace {

NodeMorphHeader headerFor(const PrimitiveData& p) {
  NodeMorphHeader h;
  h.count = uint32_t(p.targets.size());
  h.vertex_count = std::max(p.vertex_count, 1u);
  h.bands_per_target = morphBandsPerTarget(p);
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
    const float w = i < weights.size() ? activeWeight(weights[i]) : 0.0f;  // the one rule (active_targets.h)
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
