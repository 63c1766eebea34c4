// SPDX-License-Identifier: MIT
// optimize's skin weights (optimize_internal.h, roundSkinWeights): each vertex's integers keep its sum, and among
// the roundings that do, the one whose skinned position moves least over the verified poses is kept. With 8 bits a
// weight is off by up to 1/255; where the joints a vertex follows part (a jaw opening), that is the error that
// decides whether 8 bits hold the bound.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include "morphkit/model/accessor.h"
#include "optimize_internal.h"

namespace morphkit::optimize_detail {
namespace {

// Candidate sets are enumerated up to this many influences (C(8, 4) = 70 per vertex); a vertex with more takes the
// largest remainders.
constexpr uint32_t kMaxSearchedInfluences = 8;

}  // namespace

Expected<std::vector<SkinnedDraw>> skinnedDraws(const Asset& asset) {
  Expected<PosePrepared> prepared = preparePose(asset);
  if (!prepared) return prepared.error();
  const std::vector<VerifyPose> poses = verifyPoses(asset, *prepared);
  std::vector<SkinnedDraw> draws;
  std::vector<uint32_t> draw_of;  // per prepared instance
  for (const PosePrepared::Instance& instance : prepared->instances) {
    draw_of.push_back(kNone);
    if (!instance.skinned) continue;
    draw_of.back() = uint32_t(draws.size());
    draws.push_back({instance.mesh, instance.primitive, {}, {}});
  }
  FrameState state;
  for (const VerifyPose& pose : poses) {
    FrameRequest request;
    request.animation = pose.animation;
    request.time = pose.time;
    request.weights.overrides = pose.overrides;
    if (Status s = evaluateFrame(*prepared, request, state); !s) return s.error();
    for (size_t i = 0; i < prepared->instances.size(); ++i) {
      if (draw_of[i] == kNone) continue;
      SkinnedDraw& draw = draws[draw_of[i]];
      draw.palettes.emplace_back(state.instances[i].joint_matrices.begin(), state.instances[i].joint_matrices.end());
      draw.weights.push_back(state.instances[i].weights);
    }
  }
  return draws;
}

std::vector<uint32_t> roundSkinWeights(const Asset& input, const Primitive& primitive, std::span<const float> weights,
                                       uint32_t influences, double scale, std::span<const SkinnedDraw* const> draws,
                                       double* largest_error, ThreadPool* pool) {
  std::vector<uint32_t> out(weights.size());
  const size_t vertices = weights.size() / influences;
  // The largest remainders first: the rounding every vertex starts from, and keeps when no pose tells otherwise.
  std::vector<std::pair<double, uint32_t>> remainders(influences);
  std::vector<uint32_t> floors(influences);
  std::vector<int64_t> missing(vertices);
  for (size_t v = 0; v < vertices; ++v) {
    const float* w = weights.data() + v * influences;
    double sum = 0;
    int64_t floor_sum = 0;
    for (uint32_t i = 0; i < influences; ++i) {
      const double scaled = std::max(0.0, double(w[i])) * scale;
      const double down = std::floor(scaled);
      out[v * influences + i] = uint32_t(std::min(down, scale));
      floor_sum += int64_t(down);
      remainders[i] = {scaled - down, i};
      sum += std::max(0.0, double(w[i]));
    }
    missing[v] = std::llround(std::min(sum, 1.0) * scale) - floor_sum;
    std::sort(remainders.begin(), remainders.end(), std::greater<>());
    for (uint32_t i = 0; i < influences && i < missing[v]; ++i) ++out[v * influences + remainders[i].second];
  }
  if (!largest_error || draws.empty() || influences > kMaxSearchedInfluences) return out;

  // What the search needs per vertex: its joints, its rest position and its non-zero position deltas.
  std::vector<uint32_t> joints(weights.size(), 0);
  for (uint32_t set = 0; 4 * set < influences; ++set) {
    const uint32_t a = findAttribute(primitive.attributes, "JOINTS_" + std::to_string(set));
    if (a == kNone) return out;
    const std::vector<uint32_t> j = readAccessorUints(input, a);
    for (size_t v = 0; v < vertices && 4 * v + 3 < j.size(); ++v)
      std::copy_n(&j[4 * v], 4, &joints[v * influences + 4 * set]);
  }
  const uint32_t position = findAttribute(primitive.attributes, "POSITION");
  if (position == kNone) return out;
  const std::vector<float> base = readAccessorFloats(input, position);
  std::vector<std::vector<float>> deltas(primitive.targets.size());
  for (size_t t = 0; t < primitive.targets.size(); ++t) {
    const uint32_t a = findAttribute(primitive.targets[t].attributes, "POSITION");
    if (a != kNone) deltas[t] = readAccessorFloats(input, a);
  }

  auto searchRoundings = [&](size_t begin, size_t end) {
    std::vector<double> moved;   // [pose][influence][3] for one vertex
    std::vector<uint32_t> near;  // the targets that move the vertex
    std::vector<uint32_t> choice(influences);
    double largest = 0.0;
    for (size_t v = begin; v < end; ++v) {
      const float* w = weights.data() + v * influences;
      uint32_t* q = out.data() + v * influences;
      // A vertex has a choice when some weights are not integers already and there is something to hand out.
      uint32_t fractional = 0;
      for (uint32_t i = 0; i < influences; ++i) {
        const double scaled = std::max(0.0, double(w[i])) * scale;
        if (scaled != std::floor(scaled)) ++fractional;
      }
      if (fractional == 0) continue;  // stored exactly: no error, no choice
      // Each influence's image of the morphed vertex, at each pose of each draw.
      near.clear();
      for (uint32_t t = 0; t < deltas.size(); ++t) {
        if (!deltas[t].empty() && (deltas[t][3 * v] != 0 || deltas[t][3 * v + 1] != 0 || deltas[t][3 * v + 2] != 0))
          near.push_back(t);
      }
      moved.clear();
      for (const SkinnedDraw* draw : draws) {
        for (size_t p = 0; p < draw->palettes.size(); ++p) {
          double x[3] = {base[3 * v], base[3 * v + 1], base[3 * v + 2]};
          const std::vector<float>& tw = draw->weights[p];
          for (uint32_t t : near) {
            if (t >= tw.size() || tw[t] == 0.0f) continue;
            for (int c = 0; c < 3; ++c) x[c] += double(tw[t]) * deltas[t][3 * v + size_t(c)];
          }
          for (uint32_t i = 0; i < influences; ++i) {
            const uint32_t j = joints[v * influences + i];
            if (w[i] <= 0.0f && j >= draw->palettes[p].size()) {
              moved.insert(moved.end(), {0.0, 0.0, 0.0});
              continue;
            }
            const DMat4& m = draw->palettes[p][std::min<size_t>(j, draw->palettes[p].size() - 1)];
            for (int r = 0; r < 3; ++r) {
              moved.push_back(m.m[size_t(r)] * x[0] + m.m[size_t(4 + r)] * x[1] + m.m[size_t(8 + r)] * x[2] +
                              m.m[size_t(12 + r)]);
            }
          }
        }
      }
      const size_t poses = moved.size() / (3 * influences);
      auto errorOf = [&](const uint32_t* ints, double stop) {  // largest squared distance over the poses
        double worst = 0;
        for (size_t p = 0; p < poses && worst < stop; ++p) {
          double e[3] = {0, 0, 0};
          for (uint32_t i = 0; i < influences; ++i) {
            const double d = double(ints[i]) / scale - double(w[i]);
            const double* y = &moved[(p * influences + i) * 3];
            for (int c = 0; c < 3; ++c) e[c] += d * y[c];
          }
          worst = std::max(worst, e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
        }
        return worst;
      };
      double best_error = errorOf(q, std::numeric_limits<double>::infinity());
      // Every other way to hand the missing units to influences with a fraction: floors plus one for each chosen.
      if (fractional >= 2 && missing[v] > 0 && missing[v] < int64_t(influences)) {
        std::vector<bool> pick(influences, false);
        std::fill(pick.begin(), pick.begin() + missing[v], true);
        do {
          bool valid = true;
          for (uint32_t i = 0; i < influences; ++i) {
            const double scaled = std::max(0.0, double(w[i])) * scale;
            const double down = std::floor(scaled);
            choice[i] = uint32_t(down) + (pick[i] ? 1u : 0u);
            if (pick[i] && (scaled == down || choice[i] > uint32_t(scale))) valid = false;
          }
          if (!valid) continue;
          const double error = errorOf(choice.data(), best_error);
          if (error < best_error) {
            best_error = error;
            std::copy(choice.begin(), choice.end(), q);
          }
        } while (std::prev_permutation(pick.begin(), pick.end()));
      }
      largest = std::max(largest, std::sqrt(best_error));
    }
    return largest;
  };
  // Each vertex's search is its own: ranges of vertices run on the pool, each with its scratch and its largest error.
  std::mutex merge;
  parallelFor(pool, vertices, kRoundingVerticesPerTask, [&](size_t begin, size_t end) {
    const double range_error = searchRoundings(begin, end);
    const std::lock_guard<std::mutex> lock(merge);
    *largest_error = std::max(*largest_error, range_error);
  });
  return out;
}

std::vector<uint32_t> weightSets(const Primitive& primitive) {
  std::vector<uint32_t> sets;
  for (uint32_t s = 0;; ++s) {
    const uint32_t w = findAttribute(primitive.attributes, "WEIGHTS_" + std::to_string(s));
    if (w == kNone) return sets;
    sets.push_back(w);
  }
}

std::vector<float> interleavedWeights(const Asset& input, std::span<const uint32_t> sets) {
  if (sets.empty()) return {};
  const size_t influences = 4 * sets.size(), vertices = input.accessors[sets[0]].count;
  std::vector<float> weights(vertices * influences);
  for (size_t s = 0; s < sets.size(); ++s) {
    const std::vector<float> one = readAccessorFloats(input, sets[s]);
    for (size_t v = 0; v < vertices && 4 * v + 3 < one.size(); ++v) {
      std::copy_n(&one[4 * v], 4, &weights[v * influences + 4 * s]);
    }
  }
  return weights;
}

double skinWeightError(const Asset& input, std::span<const SkinnedDraw> draws, double scale, ThreadPool* pool,
                       std::vector<RoundedSkinWeights>* rounded) {
  double largest = 0.0;
  std::vector<std::pair<uint32_t, uint32_t>> done;
  for (const SkinnedDraw& draw : draws) {
    const std::pair<uint32_t, uint32_t> id{draw.mesh, draw.primitive};
    if (std::find(done.begin(), done.end(), id) != done.end()) continue;
    done.push_back(id);
    const Primitive& primitive = input.meshes[draw.mesh].primitives[draw.primitive];
    const std::vector<uint32_t> sets = weightSets(primitive);
    if (sets.empty()) continue;
    const size_t influences = 4 * sets.size();
    const std::vector<float> weights = interleavedWeights(input, sets);  // as the encoder has them
    std::vector<const SkinnedDraw*> same;
    for (const SkinnedDraw& other : draws) {
      if (other.mesh == draw.mesh && other.primitive == draw.primitive) same.push_back(&other);
    }
    std::vector<uint32_t> ints =
        roundSkinWeights(input, primitive, weights, uint32_t(influences), scale, same, &largest, pool);
    if (rounded) rounded->push_back({draw.mesh, draw.primitive, std::move(ints)});
  }
  return largest;
}

}  // namespace morphkit::optimize_detail
