// SPDX-License-Identifier: MIT
// Synthetic primitives for the GPU tests and benchmarks: deterministic (LCG), every attribute the kernel
// handles (normal, tangent, a texcoord and a color set, two JOINTS/WEIGHTS sets), targets that each move a
// contiguous region of vertices (like facial blend shapes), so the sparse layout has something to skip.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "morphkit/model/math.h"
#include "morphkit/model/primitive.h"

namespace morphkit::test {

struct Lcg {
  uint64_t state;
  float next() {  // [0, 1)
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return float((state >> 40) & 0xFFFFFF) / float(1 << 24);
  }
  float signedNext() { return next() * 2.0f - 1.0f; }
};

struct SyntheticOptions {
  uint32_t vertices = 500;
  uint32_t targets = 8;
  float region = 0.25f;         // fraction of the vertices each target moves
  bool attributes = true;       // normal, tangent, TEXCOORD_0, COLOR_0 (and their deltas)
  uint32_t influence_sets = 2;  // 0: unskinned
  uint32_t joints = 6;
  uint64_t seed = 1;
};

inline PrimitiveData syntheticPrimitive(const SyntheticOptions& o) {
  Lcg rng{o.seed};
  PrimitiveData p;
  p.mesh = 0;
  p.primitive = 0;
  const uint32_t n = o.vertices;
  p.vertex_count = n;
  p.position.resize(3 * size_t(n));
  for (float& x : p.position) x = rng.signedNext() * 2.0f;
  if (o.attributes) {
    p.normal.resize(3 * size_t(n));
    p.tangent.resize(4 * size_t(n));
    for (uint32_t v = 0; v < n; ++v) {
      Vec3 a = normalize(Vec3{rng.signedNext(), rng.signedNext(), rng.signedNext() + 2.0f});
      Vec3 t = normalize(cross(a, Vec3{0.3f, 1.0f, 0.1f}));
      p.normal[3 * v] = a.x, p.normal[3 * v + 1] = a.y, p.normal[3 * v + 2] = a.z;
      p.tangent[4 * v] = t.x, p.tangent[4 * v + 1] = t.y, p.tangent[4 * v + 2] = t.z;
      p.tangent[4 * v + 3] = (v % 3 == 0) ? -1.0f : 1.0f;
    }
    p.texcoords.assign(1, std::vector<float>(2 * size_t(n)));
    for (float& x : p.texcoords[0]) x = rng.next();
    p.colors.assign(1, std::vector<float>(4 * size_t(n)));
    for (float& x : p.colors[0]) x = rng.next();
  }
  const uint32_t region = std::max<uint32_t>(1, uint32_t(float(n) * o.region));
  p.targets.resize(o.targets);
  for (uint32_t t = 0; t < o.targets; ++t) {
    MorphTargetData& target = p.targets[t];
    const uint32_t first = uint32_t(rng.next() * float(n - std::min(n, region) + 1)) % n;
    const uint32_t last = std::min(n, first + region);
    target.position.assign(3 * size_t(n), 0.0f);
    if (o.attributes) {
      target.normal.assign(3 * size_t(n), 0.0f);
      if (t % 2 == 0) target.tangent.assign(3 * size_t(n), 0.0f);  // some targets don't move tangents
      if (t % 3 == 0) {
        target.texcoords.assign(1, std::vector<float>(2 * size_t(n), 0.0f));
        target.colors.assign(1, std::vector<float>(4 * size_t(n), 0.0f));
      }
    }
    for (uint32_t v = first; v < last; ++v) {
      for (int c = 0; c < 3; ++c) target.position[3 * v + c] = rng.signedNext() * 0.3f;
      if (!o.attributes) continue;
      for (int c = 0; c < 3; ++c) target.normal[3 * v + c] = rng.signedNext() * 0.2f;
      if (!target.tangent.empty())
        for (int c = 0; c < 3; ++c) target.tangent[3 * v + c] = rng.signedNext() * 0.2f;
      if (!target.texcoords.empty())
        for (int c = 0; c < 2; ++c) target.texcoords[0][2 * v + c] = rng.signedNext() * 0.05f;
      if (!target.colors.empty())
        for (int c = 0; c < 4; ++c) target.colors[0][4 * v + c] = rng.signedNext() * 0.1f;
    }
  }
  if (o.influence_sets > 0) {
    const uint32_t k = 4 * o.influence_sets;
    p.influences = k;
    p.joints.resize(size_t(k) * n);
    p.skin_weights.resize(size_t(k) * n);
    for (uint32_t v = 0; v < n; ++v) {
      float sum = 0.0f;
      for (uint32_t i = 0; i < k; ++i) {
        p.joints[size_t(v) * k + i] = uint32_t(rng.next() * float(o.joints)) % o.joints;
        const float w = (i % 3 == 2) ? 0.0f : rng.next();  // some zero-weight influences
        p.skin_weights[size_t(v) * k + i] = w;
        sum += w;
      }
      for (uint32_t i = 0; i < k; ++i) p.skin_weights[size_t(v) * k + i] /= sum > 0.0f ? sum : 1.0f;
    }
  }
  return p;
}

inline std::vector<float> syntheticWeights(uint32_t targets, uint32_t active_every, uint64_t seed) {
  Lcg rng{seed};
  std::vector<float> w(targets, 0.0f);
  for (uint32_t t = 0; t < targets; ++t) {
    if (active_every > 0 && t % active_every == 0) w[t] = rng.signedNext() * 1.2f;
  }
  return w;
}

inline std::vector<DMat4> syntheticJoints(uint32_t joints, uint64_t seed) {
  Lcg rng{seed};
  std::vector<DMat4> m(joints);  // float matrices (composeTRS), held in double as scene.h hands them out
  for (DMat4& j : m) {
    Quat q = normalize(Quat{rng.signedNext(), rng.signedNext(), rng.signedNext(), rng.signedNext() + 1.5f});
    const float s = 0.8f + 0.4f * rng.next();
    j = composeTRS(Vec3{rng.signedNext(), rng.signedNext(), rng.signedNext()}, q, Vec3{s, s, s});
  }
  return m;
}

}  // namespace morphkit::test
