// SPDX-License-Identifier: MIT
// track_reduce.cpp — fewest LINEAR keys within a vertex-space bound (morphkit/core/track_reduce.h).
#include "morphkit/core/track_reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace morphkit {

namespace {

constexpr size_t kGroup = 64;  // vertices per bound group

// Every posed primitive's positions, concatenated (the order evaluatePose gives).
// The search's model may use the fast path; the check uses the reference path (double accumulation), the one
// `pose` uses by default.
Status posePositions(const PosePrepared& prepared, const WeightTrack* track, double time, ThreadPool* pool,
                     PoseResult& scratch, std::vector<float>& out, CpuPath path = CpuPath::kReference) {
  PoseOptions options;
  options.time = time;
  options.positions_only = true;
  options.pool = pool;
  options.path = path;
  options.weights.track = track;
  options.weights.match = NameMatch::kExact;
  if (Status s = evaluatePose(prepared, options, scratch); !s) return s;
  out.clear();
  for (const PosedPrimitive& p : scratch.meshes) out.insert(out.end(), p.positions.begin(), p.positions.end());
  return Ok{};
}

// positions = base + Σ_c x_c · column_c, per vertex; with per-group bounds on each column's vertex lengths.
struct LinearModel {
  size_t vertices = 0, columns = 0;
  std::vector<double> deltas;      // vertices × columns × 3 (vertex-major: one vertex's columns together)
  std::vector<double> group_norm;  // groups × columns: the largest |column_c| of a vertex in the group
};

Expected<LinearModel> buildModel(const PosePrepared& prepared, const WeightTrack& track, ThreadPool* pool,
                                 double& largest_coordinate) {
  const size_t columns = track.names.size();
  WeightTrack one;
  one.names = track.names;
  one.column_targets = track.column_targets;
  one.keys.interpolation = Interpolation::kLinear;
  one.keys.components = uint32_t(columns);
  one.keys.times = {0.0f};
  one.keys.values.assign(columns, 0.0f);
  PoseResult scratch;
  std::vector<float> base, posed;
  if (Status s = posePositions(prepared, &one, 0.0, pool, scratch, base); !s) return s.error();
  LinearModel model;
  model.vertices = base.size() / 3;
  model.columns = columns;
  model.deltas.assign(model.vertices * columns * 3, 0.0);
  largest_coordinate = 0.0;
  for (float p : base) largest_coordinate = std::max(largest_coordinate, double(std::fabs(p)));
  for (size_t c = 0; c < columns; ++c) {
    std::fill(one.keys.values.begin(), one.keys.values.end(), 0.0f);
    one.keys.values[c] = 1.0f;
    if (Status s = posePositions(prepared, &one, 0.0, pool, scratch, posed); !s) return s.error();
    for (size_t v = 0; v < model.vertices; ++v) {
      for (size_t k = 0; k < 3; ++k) {
        model.deltas[(v * columns + c) * 3 + k] = double(posed[3 * v + k]) - double(base[3 * v + k]);
        largest_coordinate = std::max(largest_coordinate, double(std::fabs(posed[3 * v + k])));
      }
    }
  }
  const size_t groups = (model.vertices + kGroup - 1) / kGroup;
  model.group_norm.assign(groups * columns, 0.0);
  for (size_t v = 0; v < model.vertices; ++v) {
    for (size_t c = 0; c < columns; ++c) {
      const double* d = &model.deltas[(v * columns + c) * 3];
      double& bound = model.group_norm[(v / kGroup) * columns + c];
      bound = std::max(bound, std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
  }
  return model;
}

// Whether the weight error `e` (one per column) moves no vertex further than `bound`.
bool withinBound(const LinearModel& model, const std::vector<double>& e, double bound) {
  const size_t columns = model.columns;
  const size_t groups = model.group_norm.size() / std::max<size_t>(columns, 1);
  const double bound2 = bound * bound;
  for (size_t g = 0; g < groups; ++g) {
    double reach = 0.0;
    for (size_t c = 0; c < columns; ++c) reach += std::fabs(e[c]) * model.group_norm[g * columns + c];
    if (reach <= bound) continue;  // no vertex of the group can be further (triangle inequality)
    const size_t end = std::min(model.vertices, (g + 1) * kGroup);
    for (size_t v = g * kGroup; v < end; ++v) {
      double x = 0.0, y = 0.0, z = 0.0;
      const double* d = &model.deltas[v * columns * 3];
      for (size_t c = 0; c < columns; ++c) {
        x += e[c] * d[3 * c];
        y += e[c] * d[3 * c + 1];
        z += e[c] * d[3 * c + 2];
      }
      if (x * x + y * y + z * z > bound2) return false;
    }
  }
  return true;
}

// Whether keys at rows i and j (j > i + 1) alone keep every row between them within the bound.
bool admissible(const LinearModel& model, const WeightTrack& track, size_t i, size_t j, double bound,
                std::vector<double>& e) {
  const size_t columns = model.columns;
  const std::vector<float>& times = track.keys.times;
  const float* a = &track.keys.values[i * columns];
  const float* b = &track.keys.values[j * columns];
  for (size_t r = i + 1; r < j; ++r) {
    // The sampler's own interpolation (glTF 2.0 Appendix C): a + u (b - a), u from the key times.
    const double u = (double(times[r]) - double(times[i])) / (double(times[j]) - double(times[i]));
    const float* w = &track.keys.values[r * columns];
    for (size_t c = 0; c < columns; ++c) e[c] = double(w[c]) - (double(a[c]) + u * (double(b[c]) - double(a[c])));
    if (!withinBound(model, e, bound)) return false;
  }
  return true;
}

// The fewest keys (first and last kept) over intervals each admissible: reach[i] is the furthest row a key at i
// may pair with (every row up to it may too), then a shortest path.
std::vector<size_t> fewestKeys(const LinearModel& model, const WeightTrack& track, double bound) {
  const size_t rows = track.keys.times.size();
  if (rows <= 2) {
    std::vector<size_t> all;
    for (size_t r = 0; r < rows; ++r) all.push_back(r);
    return all;
  }
  std::vector<double> e(model.columns);
  std::vector<size_t> reach(rows);
  for (size_t i = 0; i + 1 < rows; ++i) {
    size_t j = std::max(i + 1, i > 0 ? reach[i - 1] : i + 1);  // from i - 1's reach: a shorter span rarely fails
    if (j > i + 1 && !admissible(model, track, i, j, bound, e)) j = i + 1;
    while (j + 1 < rows && admissible(model, track, i, j + 1, bound, e)) ++j;
    reach[i] = j;
  }
  constexpr size_t kUnreached = std::numeric_limits<size_t>::max();
  std::vector<size_t> count(rows, kUnreached), from(rows, 0);
  count[0] = 1;
  for (size_t i = 0; i + 1 < rows; ++i) {
    if (count[i] == kUnreached) continue;
    for (size_t j = i + 1; j <= reach[i]; ++j) {
      if (count[i] + 1 < count[j] || (count[i] + 1 == count[j] && i > from[j])) {
        count[j] = count[i] + 1;
        from[j] = i;
      }
    }
  }
  std::vector<size_t> kept;
  for (size_t r = rows - 1;; r = from[r]) {
    kept.push_back(r);
    if (r == 0) break;
  }
  std::reverse(kept.begin(), kept.end());
  return kept;
}

WeightTrack keepRows(const WeightTrack& track, const std::vector<size_t>& rows) {
  WeightTrack out;
  out.names = track.names;
  out.column_targets = track.column_targets;
  out.keys.interpolation = Interpolation::kLinear;
  out.keys.components = track.keys.components;
  const size_t columns = track.names.size();
  for (size_t r : rows) {
    out.keys.times.push_back(track.keys.times[r]);
    out.keys.values.insert(out.keys.values.end(), track.keys.values.begin() + ptrdiff_t(r * columns),
                           track.keys.values.begin() + ptrdiff_t((r + 1) * columns));
  }
  return out;
}

double largestDistance(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0.0;
  for (size_t i = 0; i + 2 < a.size(); i += 3) {
    const double dx = double(a[i]) - b[i], dy = double(a[i + 1]) - b[i + 1], dz = double(a[i + 2]) - b[i + 2];
    worst = std::max(worst, dx * dx + dy * dy + dz * dz);
  }
  return std::sqrt(worst);
}

}  // namespace

Expected<TrackReduction> reduceWeightTrack(const PosePrepared& prepared, const WeightTrack& track, double max_error,
                                           ThreadPool* pool) {
  if (Status s = checkWeightTrack(track); !s) return s.error();
  if (!(max_error > 0.0) || !std::isfinite(max_error))
    return fail(Error::kInvalidArgument, "reduceWeightTrack: the error bound must be > 0");
  double largest_coordinate = 0.0;
  Expected<LinearModel> model = buildModel(prepared, track, pool, largest_coordinate);
  if (!model) return model.error();
  // The search works on the affine model; float posing rounds each coordinate by up to half an ulp, so the search
  // keeps a margin of a few ulps of the largest coordinate and the check below has the last word.
  const double margin = 8.0 * std::ldexp(largest_coordinate, -24);
  const size_t rows = track.keys.times.size();
  std::vector<size_t> kept;
  if (max_error > margin) {
    kept = fewestKeys(*model, track, max_error - margin);
  } else {
    for (size_t r = 0; r < rows; ++r) kept.push_back(r);
  }
  // The full track's poses at its own row times, once.
  PoseResult scratch;
  std::vector<std::vector<float>> full(rows);
  for (size_t r = 0; r < rows; ++r) {
    if (Status s = posePositions(prepared, &track, track.keys.times[r], pool, scratch, full[r]); !s) return s.error();
  }
  TrackReduction result;
  result.keys_before = rows;
  std::vector<float> posed;
  while (true) {
    result.track = keepRows(track, kept);
    result.max_error = 0.0;
    size_t worst_row = 0;
    for (size_t r = 0; r < rows; ++r) {
      if (Status s = posePositions(prepared, &result.track, track.keys.times[r], pool, scratch, posed); !s)
        return s.error();
      const double d = largestDistance(full[r], posed);
      if (d > result.max_error) {
        result.max_error = d;
        worst_row = r;
      }
    }
    result.max_error_time = track.keys.times[worst_row];
    if (result.max_error <= max_error || std::binary_search(kept.begin(), kept.end(), worst_row)) break;
    kept.insert(std::lower_bound(kept.begin(), kept.end(), worst_row), worst_row);  // rounding: key that row
  }
  result.kept_rows = std::move(kept);
  return result;
}

}  // namespace morphkit
