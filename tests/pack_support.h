// SPDX-License-Identifier: MIT
// The helpers of pack_test.cpp and pack_texture_test.cpp (one file until it passed 600 lines).
#pragma once
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <span>

#include "morphkit/pack/active_targets.h"
#include "morphkit/pack/band_texture.h"
#include "morphkit/pack/node_morph_buffers.h"
#include "morphkit/pack/packed_deltas.h"
#include "morphkit/pack/packed_targets.h"
#include "morphkit/pack/sliced_sparse.h"
#include "vk_synthetic.h"

namespace morphkit {
namespace {

// Target t's deltas in DeltaFormat order, straight from PrimitiveData (the decoders' expected value).
inline std::vector<float> expectedRecords(const PrimitiveData& p, const DeltaFormat& f, uint32_t t) {
  std::vector<float> out(size_t(p.vertex_count) * f.stride, 0.0f);
  const MorphTargetData& d = p.targets[t];
  for (uint32_t v = 0; v < p.vertex_count; ++v) {
    float* r = out.data() + size_t(v) * f.stride;
    for (int c = 0; c < 3; ++c) {
      if (f.position != kLayoutAbsent && !d.position.empty()) r[f.position + c] = d.position[3 * v + c];
      if (f.normal != kLayoutAbsent && !d.normal.empty()) r[f.normal + c] = d.normal[3 * v + c];
      if (f.tangent != kLayoutAbsent && !d.tangent.empty()) r[f.tangent + c] = d.tangent[3 * v + c];
    }
    if (f.extra != kLayoutAbsent) {
      uint32_t o = f.extra;
      for (size_t s = 0; s < p.texcoords.size(); ++s, o += 2) {
        for (int c = 0; c < 2 && s < d.texcoords.size() && !d.texcoords[s].empty(); ++c)
          r[o + c] = d.texcoords[s][2 * v + c];
      }
      for (size_t s = 0; s < p.colors.size(); ++s, o += 4) {
        for (int c = 0; c < 4 && s < d.colors.size() && !d.colors[s].empty(); ++c) r[o + c] = d.colors[s][4 * v + c];
      }
    }
  }
  return out;
}

// ---- The seed's band texture (band_texture.h) ----
inline PrimitiveData randomPrimitive(uint32_t vertices, uint32_t targets, bool tangents, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  PrimitiveData p;
  p.vertex_count = vertices;
  p.position.resize(size_t(vertices) * 3);
  for (float& v : p.position) v = dist(rng);
  for (uint32_t t = 0; t < targets; ++t) {
    MorphTargetData target;
    target.position.resize(size_t(vertices) * 3);
    for (float& v : target.position) v = dist(rng);
    if (t % 2 == 0) {  // odd targets move no normals: their band must stay zero
      target.normal.resize(size_t(vertices) * 3);
      for (float& v : target.normal) v = dist(rng);
    }
    if (tangents) {
      target.tangent.resize(size_t(vertices) * 3);
      for (float& v : target.tangent) v = dist(rng);
    }
    p.targets.push_back(std::move(target));
  }
  return p;
}

// ---- The node material's buffers (node_morph_buffers.h) ----
inline PrimitiveData twoTargetPrimitive() {
  PrimitiveData p;
  p.vertex_count = 3;
  p.position = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  p.normal = {0, 0, 1, 0, 0, 1, 0, 0, 1};
  for (int t = 0; t < 2; ++t) {
    MorphTargetData target;
    for (int i = 0; i < 9; ++i) target.position.push_back(float(100 * t + i));
    if (t == 1) {
      for (int i = 0; i < 9; ++i) target.normal.push_back(-float(i) * 0.5f);
    }
    p.targets.push_back(target);
  }
  return p;
}

}  // namespace
}  // namespace morphkit
