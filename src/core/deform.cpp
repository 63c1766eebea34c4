// SPDX-License-Identifier: MIT
// deform.cpp — the scalar reference of morph + skin (glTF 2.0 §3.7.2.2, §3.7.3.3). Clarity over speed:
// double accumulation, one vertex at a time, the steps in the order of docs/POSE.md.
#include "morphkit/core/deform.h"

#include <algorithm>
#include <cmath>

namespace morphkit {

namespace {

bool sized(std::span<const float> s, size_t n) {
  return s.size() == n;
}
bool emptyOrSized(std::span<const float> s, size_t n) {
  return s.empty() || s.size() == n;
}

struct Affine {  // row-major 3x4 in double
  double m[3][4] = {};
};

void accumulate(Affine& acc, const DMat4& m, double w) {
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) acc.m[r][c] += w * m(r, c);
  }
}

Affine toAffine(const DMat4& m) {
  Affine a;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) a.m[r][c] = m(r, c);
  }
  return a;
}

// Cofactor matrix of the 3x3 part, signed so it is a positive multiple of the inverse-transpose.
void cofactor(const Affine& a, double out[3][3]) {
  const auto& m = a.m;
  out[0][0] = m[1][1] * m[2][2] - m[1][2] * m[2][1];
  out[0][1] = m[1][2] * m[2][0] - m[1][0] * m[2][2];
  out[0][2] = m[1][0] * m[2][1] - m[1][1] * m[2][0];
  out[1][0] = m[0][2] * m[2][1] - m[0][1] * m[2][2];
  out[1][1] = m[0][0] * m[2][2] - m[0][2] * m[2][0];
  out[1][2] = m[0][1] * m[2][0] - m[0][0] * m[2][1];
  out[2][0] = m[0][1] * m[1][2] - m[0][2] * m[1][1];
  out[2][1] = m[0][2] * m[1][0] - m[0][0] * m[1][2];
  out[2][2] = m[0][0] * m[1][1] - m[0][1] * m[1][0];
  const double det = m[0][0] * out[0][0] + m[0][1] * out[0][1] + m[0][2] * out[0][2];
  if (det < 0) {
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) out[r][c] = -out[r][c];
    }
  }
}

// Targets that can move a range: a non-zero weight and some delta (or the base as one, DeformRules). Skipping the
// rest changes no sum (w·Δ is exactly 0), and a file of a thousand targets that move nothing costs nothing per vertex.
std::vector<uint32_t> activeTargets(const PrimitiveData& p, std::span<const float> weights, const DeformRules& rules) {
  std::vector<uint32_t> active;
  for (size_t t = 0; t < p.targets.size(); ++t) {
    const MorphTargetData& d = p.targets[t];
    bool moves = !d.position.empty() || !d.normal.empty() || !d.tangent.empty() ||
                 (!rules.base_as_delta.empty() && rules.base_as_delta[t] != 0);
    for (const auto& set : d.texcoords) moves = moves || !set.empty();
    for (const auto& set : d.colors) moves = moves || !set.empty();
    if (moves && weights[t] != 0.0f) active.push_back(uint32_t(t));
  }
  return active;
}

// DeformRules::influence_sets: the factor that rescales a vertex's `kept` of `k` weights to sum 1 (1 when nothing
// was dropped or the rules keep them as stored; 0 when the kept weights sum to 0).
double keptWeightScale(const float* weights, size_t k, size_t kept, bool as_stored) {
  if (kept >= k || as_stored) return 1.0;
  double sum = 0;
  for (size_t i = 0; i < kept; ++i) sum += std::abs(double(weights[i]));
  return sum > 0 ? 1.0 / sum : 0.0;
}

void writeNormalized(const double v[3], float* out) {
  const double len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  const double inv = len > 0 ? 1.0 / len : 1.0;
  for (int i = 0; i < 3; ++i) out[i] = float(v[i] * inv);
}

}  // namespace

bool MorphSkinJob::validate() const {
  if (!validateLayout()) return false;
  // Skinning inputs: every joint index of [begin, end) that carries weight.
  if (!joint_matrices.empty()) {
    const PrimitiveData& p = *primitive;
    const size_t k = size_t(p.influences);
    for (size_t i = size_t(begin) * k; i < size_t(end) * k; ++i) {
      if (p.skin_weights[i] != 0.0f && p.joints[i] >= joint_matrices.size()) return false;
    }
  }
  return true;
}

bool MorphSkinJob::validateLayout() const {
  if (!primitive) return false;
  const PrimitiveData& p = *primitive;
  const size_t n = p.vertex_count;
  if (begin > end || end > n) return false;
  if (!sized(p.position, 3 * n) || !emptyOrSized(p.normal, 3 * n) || !emptyOrSized(p.tangent, 4 * n)) return false;
  for (const auto& t : p.texcoords) {
    if (!sized(t, 2 * n)) return false;
  }
  for (const auto& c : p.colors) {
    if (!sized(c, 4 * n)) return false;
  }
  if (weights.size() != p.targets.size()) return false;
  for (const MorphTargetData& t : p.targets) {
    if (!emptyOrSized(t.position, 3 * n) || !emptyOrSized(t.normal, 3 * n) || !emptyOrSized(t.tangent, 3 * n)) {
      return false;
    }
    if (t.texcoords.size() > p.texcoords.size() || t.colors.size() > p.colors.size()) return false;
    for (const auto& d : t.texcoords) {
      if (!emptyOrSized(d, 2 * n)) return false;
    }
    for (const auto& d : t.colors) {
      if (!emptyOrSized(d, 4 * n)) return false;
    }
  }
  for (float w : weights) {
    if (!std::isfinite(w)) return false;
  }
  if (!rules.base_as_delta.empty() && rules.base_as_delta.size() != p.targets.size()) return false;
  // Outputs.
  if (!sized(out_positions, 3 * n)) return false;
  // Normals and tangents: empty skips them (posed positions only); else the primitive has them, full size.
  if (!out_normals.empty() && (p.normal.empty() || !sized(out_normals, 3 * n))) return false;
  if (!out_tangents.empty() && (p.tangent.empty() || !sized(out_tangents, 4 * n))) return false;
  if (!out_texcoords.empty()) {
    if (out_texcoords.size() != p.texcoords.size()) return false;
    for (const auto& s : out_texcoords) {
      if (s.size() != 2 * n) return false;
    }
  }
  if (!out_colors.empty()) {
    if (out_colors.size() != p.colors.size()) return false;
    for (const auto& s : out_colors) {
      if (s.size() != 4 * n) return false;
    }
  }
  // Skinning inputs.
  if (!joint_matrices.empty()) {
    const size_t k = size_t(p.influences);
    if (k == 0 || p.joints.size() != k * n || p.skin_weights.size() != k * n) return false;
  }
  return true;
}

bool MorphSkinJob::run() const {
  if (!validate()) return false;
  const PrimitiveData& p = *primitive;
  const bool has_normals = !out_normals.empty();  // validated: the primitive has them too
  const bool has_tangents = !out_tangents.empty();
  const bool skinned = !joint_matrices.empty();
  const size_t k = p.influences;
  auto baseAsDelta = [&](size_t t) { return rules.base_as_delta.empty() ? 0u : rules.base_as_delta[t]; };
  const Affine rigid = toAffine(world);
  double rigid_cof[3][3];
  cofactor(rigid, rigid_cof);
  const std::vector<uint32_t> active = activeTargets(p, weights, rules);
  // An engine profile's rules (DeformRules): which stored deltas count, and which targets add the base instead.
  auto counts = [&](const std::vector<float>& delta, bool sparse, uint32_t bit) {
    return !delta.empty() && (rules.ignored_deltas & bit) == 0 && !(sparse && rules.sparse_deltas_ignored);
  };
  const size_t kept = std::min(k, size_t(rules.influence_sets) * 4);  // influences skinning reads

  for (size_t v = begin; v < end; ++v) {
    // 1. Morph in object space (§3.7.2.2): base + Σ wᵢ·Δᵢ.
    double pos[3], nrm[3] = {}, tan[3] = {};
    for (int c = 0; c < 3; ++c) pos[c] = p.position[3 * v + size_t(c)];
    if (has_normals) {
      for (int c = 0; c < 3; ++c) nrm[c] = p.normal[3 * v + size_t(c)];
    }
    if (has_tangents) {
      for (int c = 0; c < 3; ++c) tan[c] = p.tangent[4 * v + size_t(c)];
    }
    for (uint32_t t : active) {
      const double w = weights[t];
      const MorphTargetData& d = p.targets[t];
      const uint32_t base = baseAsDelta(t);
      if (counts(d.position, d.position_sparse, kPositionDelta)) {
        for (int c = 0; c < 3; ++c) pos[c] += w * d.position[3 * v + size_t(c)];
      } else if (base & kPositionDelta) {
        for (int c = 0; c < 3; ++c) pos[c] += w * p.position[3 * v + size_t(c)];
      }
      if (has_normals && counts(d.normal, d.normal_sparse, kNormalDelta)) {
        for (int c = 0; c < 3; ++c) nrm[c] += w * d.normal[3 * v + size_t(c)];
      } else if (has_normals && (base & kNormalDelta)) {
        for (int c = 0; c < 3; ++c) nrm[c] += w * p.normal[3 * v + size_t(c)];
      }
      if (has_tangents && counts(d.tangent, d.tangent_sparse, kTangentDelta)) {
        for (int c = 0; c < 3; ++c) tan[c] += w * d.tangent[3 * v + size_t(c)];
      }
    }

    // 2. Skin (§3.7.3.3) or the rigid node transform.
    Affine blended;
    const Affine* m = &rigid;
    double skin_cof[3][3];
    const double(*cof)[3] = rigid_cof;
    if (skinned) {
      const double scale = keptWeightScale(p.skin_weights.data() + v * k, k, kept, rules.kept_weights_as_stored);
      for (size_t i = v * k; i < v * k + kept; ++i) {
        // scale 0: the kept weights sum to 0 and the vertex follows its first joint (three.js's normalizeSkinWeights).
        const float w = scale == 1.0   ? p.skin_weights[i]
                        : scale == 0.0 ? float(i == v * k)
                                       : float(p.skin_weights[i] * scale);
        if (w != 0.0f) accumulate(blended, joint_matrices[p.joints[i]], w);
      }
      // Normals of a skinned vertex use the blended matrix itself (as three.js, Babylon.js and the GPU paths
      // do): a blend of rotations is not orthogonal, and its inverse-transpose would differ from every engine.
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) skin_cof[r][c] = blended.m[r][c];
      }
      m = &blended;
      cof = skin_cof;
    }
    for (int r = 0; r < 3; ++r) {
      const double value = m->m[r][0] * pos[0] + m->m[r][1] * pos[1] + m->m[r][2] * pos[2] + m->m[r][3];
      out_positions[3 * v + size_t(r)] = float(value);
    }
    if (has_normals) {
      double out[3];
      for (int r = 0; r < 3; ++r) out[r] = cof[r][0] * nrm[0] + cof[r][1] * nrm[1] + cof[r][2] * nrm[2];
      writeNormalized(out, &out_normals[3 * v]);
    }
    if (has_tangents) {
      double out[3];
      for (int r = 0; r < 3; ++r) out[r] = m->m[r][0] * tan[0] + m->m[r][1] * tan[1] + m->m[r][2] * tan[2];
      writeNormalized(out, &out_tangents[4 * v]);
      out_tangents[4 * v + 3] = p.tangent[4 * v + 3];  // handedness kept
    }

    // Texture coordinates and colors: morphed only.
    for (size_t s = 0; s < out_texcoords.size(); ++s) {
      for (int c = 0; c < 2; ++c) {
        double value = p.texcoords[s][2 * v + size_t(c)];
        for (uint32_t t : active) {
          const auto& d = p.targets[t].texcoords;
          if (s < d.size() && counts(d[s], false, texcoordDelta(s)))
            value += double(weights[t]) * d[s][2 * v + size_t(c)];
        }
        out_texcoords[s][2 * v + size_t(c)] = float(value);
      }
    }
    for (size_t s = 0; s < out_colors.size(); ++s) {
      for (int c = 0; c < 4; ++c) {
        double value = p.colors[s][4 * v + size_t(c)];
        for (uint32_t t : active) {
          const auto& d = p.targets[t].colors;
          if (s < d.size() && counts(d[s], false, colorDelta(s))) {
            value += double(weights[t]) * d[s][4 * v + size_t(c)];
          } else if (baseAsDelta(t) & colorDelta(s)) {
            value += double(weights[t]) * p.colors[s][4 * v + size_t(c)];
          }
        }
        out_colors[s][4 * v + size_t(c)] = float(value);
      }
    }
  }
  return true;
}

DVec3 pivotPlaced(const DMat4& m, const float pivot[3]) {
  DVec3 r;
  r.x = m(0, 0) * pivot[0] + m(0, 1) * pivot[1] + m(0, 2) * pivot[2] + m(0, 3);
  r.y = m(1, 0) * pivot[0] + m(1, 1) * pivot[1] + m(1, 2) * pivot[2] + m(1, 3);
  r.z = m(2, 0) * pivot[0] + m(2, 1) * pivot[1] + m(2, 2) * pivot[2] + m(2, 3);
  return r;
}

DVec3 splitOrigin(std::span<const DMat4> matrices, const float pivot[3]) {
  DVec3 origin;
  for (const DMat4& m : matrices) {
    const DVec3 r = pivotPlaced(m, pivot);
    origin.x += r.x, origin.y += r.y, origin.z += r.z;
  }
  const double n = double(std::max<size_t>(matrices.size(), 1));
  origin.x /= n, origin.y /= n, origin.z /= n;
  return origin;
}

}  // namespace morphkit
