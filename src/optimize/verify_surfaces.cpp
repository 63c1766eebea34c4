// SPDX-License-Identifier: MIT
// The simplification's error (optimize_internal.h, compareSurfaces): a simplified primitive has no vertex-to-vertex
// correspondence with the input, so its posed triangles are compared as surfaces at every verified pose.
#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "morphkit/core/pose.h"
#include "optimize_internal.h"
#include "surface_distance.h"

namespace morphkit::optimize_detail {
namespace {

// Lattice points this fraction of the rest diagonal apart, besides every vertex: on a 25 cm face 5 mm, so a face mesh's
// triangles are sampled at their corners and a simplified mesh's larger ones inside as well. On MorphSkinBlob52 at
// --simplify 0.5, 1/200 measured 0.6154 / 0.6705 mm/m (rest / animations), 1/50 0.6154 / 0.6638 (three.js and
// three-mesh-bvh with 100,000 samples a surface: 0.615 / 0.664) in a fifth of the time (docs/OPTIMIZE.md).
constexpr double kSampleSpacing = 1.0 / 50.0;
// Poses a thread measures one after another before it takes the next run.
constexpr size_t kPosesPerRun = 8;

std::vector<uint32_t> triangleIndices(const PosedPrimitive& posed) {
  if (!posed.indices.empty()) return posed.indices;
  std::vector<uint32_t> identity(posed.vertex_count);
  for (uint32_t v = 0; v < posed.vertex_count; ++v) identity[v] = v;
  return identity;
}

}  // namespace

Status compareSurfaces(const Asset& original, const Asset& optimized, OptimizeReport& report,
                       const OptimizeOptions& options) {
  Expected<PosePrepared> a = preparePose(original);
  if (!a) return a.error();
  Expected<PosePrepared> b = preparePose(optimized);
  if (!b) return b.error();
  const std::vector<VerifyPose> poses = verifyPoses(original, *a);
  const double spacing = std::max(report.diagonal * kSampleSpacing, 1e-9);
  // The rows in the poses' order of categories; each pose adds to its category's row.
  report.surface_errors.clear();
  std::vector<size_t> row_of(poses.size());
  for (size_t p = 0; p < poses.size(); ++p) {
    if (report.surface_errors.empty() || report.surface_errors.back().category != poses[p].category) {
      report.surface_errors.push_back({poses[p].category});
    }
    row_of[p] = report.surface_errors.size() - 1;
    ++report.surface_errors.back().poses;
  }
  // Poses run in parallel, each on the fast path (the encoding's verification bounds its gap to the reference) and
  // each starting from its category's largest distance so far, so that most samples need no search.
  std::mutex merge;
  Status failed = Ok{};
  size_t done = 0;
  // Each thread walks runs of neighbouring poses, whose samples mostly find the last pose's triangles within reach
  // again (SurfaceHints: 8.4 -> 6.0 s of CPU on the captured face at --simplify 0.5): a run takes a set of hints
  // another run has left, and leaves its own.
  std::vector<std::vector<SurfaceHints>> spare_hints;
  parallelForShares(options.pool, poses.size(), kPosesPerRun, [&](size_t begin, size_t end) {
    PoseResult pa, pb;
    std::vector<SurfaceHints> hints;
    {
      const std::lock_guard<std::mutex> lock(merge);
      if (!spare_hints.empty()) {
        hints = std::move(spare_hints.back());
        spare_hints.pop_back();
      }
    }
    for (size_t p = begin; p < end; ++p) {
      const VerifyPose& pose = poses[p];
      PoseOptions request;
      request.path = CpuPath::kFast;
      request.animation = pose.animation;
      request.time = pose.time;
      request.weights.overrides = pose.overrides;
      request.positions_only = true;
      Status posed = evaluatePose(*a, request, pa);
      if (posed) posed = evaluatePose(*b, request, pb);
      double known;
      {
        const std::lock_guard<std::mutex> lock(merge);
        if (!posed) {
          if (failed) failed = posed;
          return;
        }
        known = report.surface_errors[row_of[p]].max_distance;
      }
      for (size_t i = 0; i < pa.meshes.size() && i < pb.meshes.size(); ++i) {
        const PosedPrimitive& x = pa.meshes[i];
        const PosedPrimitive& y = pb.meshes[i];
        if (x.vertex_count == y.vertex_count || x.mode != PrimitiveMode::kTriangles) continue;
        const std::vector<uint32_t> xi = triangleIndices(x), yi = triangleIndices(y);
        if (hints.size() <= i) hints.resize(i + 1);
        const SurfaceDistance d = surfaceDistance({x.positions, xi}, {y.positions, yi}, spacing, known, &hints[i]);
        const std::lock_guard<std::mutex> lock(merge);
        OptimizeError& row = report.surface_errors[row_of[p]];
        if (d.distance <= row.max_distance) continue;
        row.max_distance = known = d.distance;
        char where[96];
        std::snprintf(where, sizeof where, " near (%.4g, %.4g, %.4g) m on the %s", d.where[0], d.where[1], d.where[2],
                      d.on_first ? "input" : "output");
        row.worst = pose.label + ", nodes[" + std::to_string(x.node) + "] meshes[" + std::to_string(x.mesh) +
                    "].primitives[" + std::to_string(x.primitive) + "]" + where;
      }
      const std::lock_guard<std::mutex> lock(merge);
      ++done;
      if (options.progress && done % 16 == 0) {
        options.progress("measuring surfaces", double(done) / double(poses.size()));
      }
    }
    const std::lock_guard<std::mutex> lock(merge);
    spare_hints.push_back(std::move(hints));
  });
  return failed;
}

}  // namespace morphkit::optimize_detail
