// SPDX-License-Identifier: MIT
// optimize's skinned base positions (optimize_internal.h, roundSkinnedPositions): each vertex rounded up or down
// per axis where its largest skinned error over the verified poses is least. A pose's error at a vertex is its
// skinning's linear part applied to the base's rounding plus its targets' roundings at the pose's weights; the
// nearest grid point minimizes the first alone, and a vertex whose targets' roundings line up with it sets the
// file's largest error. A vertex well within the bound keeps its nearest rounding (any other is noise in the
// stream); one still above it after the base's choice tries each of its targets' roundings in turn.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <vector>

#include "morphkit/model/accessor.h"
#include "optimize_internal.h"

namespace morphkit::optimize_detail {
namespace {

// |L·x|² for a pose's skinning linear part L (column-major, the first 9 of `pose`).
double skinnedSquare(const std::array<double, 12>& pose, const double x[3]) {
  double d2 = 0;
  for (int r = 0; r < 3; ++r) {
    const double o = pose[size_t(r)] * x[0] + pose[size_t(3 + r)] * x[1] + pose[size_t(6 + r)] * x[2];
    d2 += o * o;
  }
  return d2;
}

}  // namespace

std::vector<int16_t> roundSkinnedPositions(const Asset& input, const Primitive& primitive, double step,
                                           const double center[3], std::span<const SkinnedDraw* const> draws,
                                           double keep_below, std::vector<DeltaRounding>* deltas, ThreadPool* pool) {
  const uint32_t position = findAttribute(primitive.attributes, "POSITION");
  const std::vector<float> base = readAccessorFloats(input, position);
  const size_t vertices = base.size() / 3;
  auto onGrid = [&](double q) { return std::clamp(q, -32767.0, 32767.0); };
  std::vector<int16_t> out(base.size());
  for (size_t i = 0; i < base.size(); ++i) out[i] = int16_t(onGrid(std::round((base[i] - center[i % 3]) / step)));
  if (draws.empty()) return out;

  // Every influence set of the vertex, and each target's rounding error as positionDelta makes it.
  std::vector<uint32_t> sets;
  for (uint32_t s = 0;; ++s) {
    const uint32_t w = findAttribute(primitive.attributes, "WEIGHTS_" + std::to_string(s));
    const uint32_t j = findAttribute(primitive.attributes, "JOINTS_" + std::to_string(s));
    if (w == kNone || j == kNone) break;
    sets.push_back(s);
  }
  const size_t influences = 4 * sets.size();
  if (influences == 0) return out;
  std::vector<float> weights(vertices * influences);
  std::vector<uint32_t> joints(vertices * influences);
  for (size_t s = 0; s < sets.size(); ++s) {
    const std::vector<float> w =
        readAccessorFloats(input, findAttribute(primitive.attributes, "WEIGHTS_" + std::to_string(s)));
    const std::vector<uint32_t> j =
        readAccessorUints(input, findAttribute(primitive.attributes, "JOINTS_" + std::to_string(s)));
    if (w.size() < 4 * vertices || j.size() < 4 * vertices) return out;
    for (size_t v = 0; v < vertices; ++v) {
      std::copy_n(&w[4 * v], 4, &weights[v * influences + 4 * s]);
      std::copy_n(&j[4 * v], 4, &joints[v * influences + 4 * s]);
    }
  }
  std::vector<std::vector<float>> exact_deltas(primitive.targets.size());
  std::vector<std::vector<float>> errors(primitive.targets.size());  // per target: rounded − exact, per component
  for (size_t t = 0; t < primitive.targets.size(); ++t) {
    const uint32_t a = findAttribute(primitive.targets[t].attributes, "POSITION");
    if (a == kNone) continue;
    exact_deltas[t] = readAccessorFloats(input, a);
    errors[t] = exact_deltas[t];
    for (float& d : errors[t]) d = float(std::round(double(d) / step) * step - double(d));
  }

  // Each vertex is its own search (its targets' roundings included): ranges of vertices run on the pool, each with
  // its scratch and its list of delta roundings, joined in vertex order afterwards.
  std::mutex merge;
  std::map<size_t, std::vector<DeltaRounding>> chosen_by_range;
  parallelFor(pool, vertices, kRoundingVerticesPerTask, [&](size_t begin, size_t end) {
    std::vector<DeltaRounding> range_deltas;
    std::vector<uint32_t> near;
    std::vector<std::array<double, 12>> poses;  // per pose: the skinning's linear part (9) and the targets' error (3)
    std::vector<float> near_weights;            // per pose, per near target
    for (size_t v = begin; v < end; ++v) {
      near.clear();
      for (uint32_t t = 0; t < errors.size(); ++t) {
        if (!errors[t].empty() && (errors[t][3 * v] != 0 || errors[t][3 * v + 1] != 0 || errors[t][3 * v + 2] != 0))
          near.push_back(t);
      }
      if (near.empty()) continue;  // the nearest grid point is the best a vertex alone can do
      poses.clear();
      near_weights.clear();
      for (const SkinnedDraw* draw : draws) {
        for (size_t p = 0; p < draw->palettes.size(); ++p) {
          std::array<double, 12> pose{};
          for (size_t i = 0; i < influences; ++i) {
            const double w = weights[v * influences + i];
            const uint32_t j = joints[v * influences + i];
            if (w == 0.0 || j >= draw->palettes[p].size()) continue;
            const DMat4& m = draw->palettes[p][j];
            for (int c = 0; c < 3; ++c) {
              for (int r = 0; r < 3; ++r) pose[size_t(3 * c + r)] += w * m.m[size_t(4 * c + r)];
            }
          }
          for (uint32_t t : near) {
            const float tw = t < draw->weights[p].size() ? draw->weights[p][t] : 0.0f;
            near_weights.push_back(tw);
            for (int c = 0; c < 3; ++c) pose[size_t(9 + c)] += double(tw) * errors[t][3 * v + size_t(c)];
          }
          poses.push_back(pose);
        }
      }
      double exact[3], down[3];
      for (int c = 0; c < 3; ++c) {
        exact[c] = (double(base[3 * v + size_t(c)]) - center[c]) / step;
        down[c] = std::floor(exact[c]);
      }
      double best = std::numeric_limits<double>::infinity();
      // A vertex well within the bound keeps its nearest rounding: the others' noise costs bytes (docs/OPTIMIZE.md,
      // "Experiments").
      double nearest = 0;
      for (const std::array<double, 12>& m : poses) {
        double x[3];
        for (int c = 0; c < 3; ++c) x[c] = (double(out[3 * v + size_t(c)]) - exact[c]) * step + m[size_t(9 + c)];
        nearest = std::max(nearest, skinnedSquare(m, x));
      }
      if (nearest <= keep_below * keep_below) continue;
      for (int corner = 0; corner < 8; ++corner) {
        double q[3], e[3];
        for (int c = 0; c < 3; ++c) {
          q[c] = onGrid(down[c] + ((corner >> c) & 1));
          e[c] = (q[c] - exact[c]) * step;
        }
        double worst = 0;
        for (size_t p = 0; p < poses.size() && worst < best; ++p) {
          const std::array<double, 12>& m = poses[p];
          const double x[3] = {e[0] + m[9], e[1] + m[10], e[2] + m[11]};
          worst = std::max(worst, skinnedSquare(m, x));
        }
        if (worst < best) {
          best = worst;
          for (int c = 0; c < 3; ++c) out[3 * v + size_t(c)] = int16_t(q[c]);
        }
      }
      if (!deltas || best <= keep_below * keep_below) continue;
      // Still above: each target's rounding of this vertex in turn, up or down per axis, the base's and the other
      // targets' as they stand.
      double e_base[3];
      for (int c = 0; c < 3; ++c) e_base[c] = (double(out[3 * v + size_t(c)]) - exact[c]) * step;
      const size_t n = near.size();
      for (size_t k = 0; k < n; ++k) {
        const uint32_t t = near[k];
        double d_exact[3], d_down[3], chosen[3], now[3];
        for (int c = 0; c < 3; ++c) {
          d_exact[c] = double(exact_deltas[t][3 * v + size_t(c)]) / step;
          d_down[c] = std::floor(d_exact[c]);
          now[c] = double(errors[t][3 * v + size_t(c)]);  // (rounded − exact) · step
          chosen[c] = std::round(d_exact[c]);
        }
        double best_t = best;
        for (int corner = 0; corner < 8; ++corner) {
          double m[3], change[3];
          for (int c = 0; c < 3; ++c) {
            m[c] = d_down[c] + ((corner >> c) & 1);
            change[c] = (m[c] - d_exact[c]) * step - now[c];
          }
          double worst = 0;
          for (size_t p = 0; p < poses.size() && worst < best_t; ++p) {
            const std::array<double, 12>& pose = poses[p];
            const double w = near_weights[p * n + k];
            const double x[3] = {e_base[0] + pose[9] + w * change[0], e_base[1] + pose[10] + w * change[1],
                                 e_base[2] + pose[11] + w * change[2]};
            worst = std::max(worst, skinnedSquare(pose, x));
          }
          if (worst < best_t) {
            best_t = worst;
            std::copy_n(m, 3, chosen);
          }
        }
        if (best_t < best) {
          best = best_t;
          double change[3];
          for (int c = 0; c < 3; ++c) {
            change[c] = (chosen[c] - d_exact[c]) * step - now[c];
            errors[t][3 * v + size_t(c)] = float((chosen[c] - d_exact[c]) * step);
          }
          for (size_t p = 0; p < poses.size(); ++p) {
            for (int c = 0; c < 3; ++c) poses[p][size_t(9 + c)] += near_weights[p * n + k] * change[c];
          }
          range_deltas.push_back({t, uint32_t(v), {int16_t(chosen[0]), int16_t(chosen[1]), int16_t(chosen[2])}});
        }
      }
    }
    const std::lock_guard<std::mutex> lock(merge);
    chosen_by_range[begin] = std::move(range_deltas);
  });
  if (deltas) {
    for (auto& [begin, range] : chosen_by_range) deltas->insert(deltas->end(), range.begin(), range.end());
  }
  return out;
}

}  // namespace morphkit::optimize_detail
