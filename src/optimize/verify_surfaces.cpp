// SPDX-License-Identifier: MIT
// The simplification's error (optimize_internal.h, compareSurfaces): a simplified primitive has no vertex-to-vertex
// correspondence with the input, so its posed triangles are compared as surfaces at every verified pose.
#include <algorithm>
#include <string>
#include <vector>

#include "morphkit/core/pose.h"
#include "optimize_internal.h"
#include "surface_distance.h"

namespace morphkit::optimize_detail {
namespace {

// Samples this fraction of the rest diagonal apart: on a 25 cm face 1.25 mm, a few per triangle edge of a face
// mesh; every vertex is a sample, so the figure misses at most a bulge narrower than that between them.
constexpr double kSampleSpacing = 1.0 / 200.0;

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
  report.surface_errors.clear();
  PoseResult pa, pb;
  for (size_t p = 0; p < poses.size(); ++p) {
    const VerifyPose& pose = poses[p];
    if (options.progress && p % 16 == 0) options.progress("measuring surfaces", double(p) / double(poses.size()));
    PoseOptions request;
    request.pool = options.pool;
    request.animation = pose.animation;
    request.time = pose.time;
    request.weights.overrides = pose.overrides;
    request.positions_only = true;
    if (Status s = evaluatePose(*a, request, pa); !s) return s.error();
    if (Status s = evaluatePose(*b, request, pb); !s) return s.error();
    if (report.surface_errors.empty() || report.surface_errors.back().category != pose.category) {
      report.surface_errors.push_back({pose.category});
    }
    OptimizeError& row = report.surface_errors.back();
    ++row.poses;
    for (size_t i = 0; i < pa.meshes.size() && i < pb.meshes.size(); ++i) {
      const PosedPrimitive& x = pa.meshes[i];
      const PosedPrimitive& y = pb.meshes[i];
      if (x.vertex_count == y.vertex_count || x.mode != PrimitiveMode::kTriangles) continue;
      const std::vector<uint32_t> xi = triangleIndices(x), yi = triangleIndices(y);
      const SurfaceDistance d = surfaceDistance({x.positions, xi}, {y.positions, yi}, spacing);
      if (d.distance <= row.max_distance) continue;
      row.max_distance = d.distance;
      char where[96];
      std::snprintf(where, sizeof where, " near (%.4g, %.4g, %.4g) m on the %s", d.where[0], d.where[1], d.where[2],
                    d.on_first ? "input" : "output");
      row.worst = pose.label + ", nodes[" + std::to_string(x.node) + "] meshes[" + std::to_string(x.mesh) +
                  "].primitives[" + std::to_string(x.primitive) + "]" + where;
    }
  }
  return Ok{};
}

}  // namespace morphkit::optimize_detail
