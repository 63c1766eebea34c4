// SPDX-License-Identifier: MIT
// How far apart two triangle surfaces are (docs/OPTIMIZE.md, "Levels of detail"): the largest two-sided distance,
// sampled — points on each surface to the nearest point of the other's triangles — what verification measures where
// a pass changed the vertices (a simplified mesh has no vertex-to-vertex correspondence). Private to
// morphkit::optimize.
#pragma once
#include <cstdint>
#include <span>

namespace morphkit::optimize_detail {

// A triangle list over positions (3 floats per vertex); every index < positions.size() / 3.
struct TriangleSurface {
  std::span<const float> positions;
  std::span<const uint32_t> indices;
};

struct SurfaceDistance {
  double distance = 0.0;       // the largest distance found, in the positions' units
  float where[3] = {0, 0, 0};  // the sample point it was found at
  bool on_first = true;        // the sample lies on `a` (its distance to `b`), else on `b`
};

// The largest distance from a sample of either surface to the other surface. Every triangle is sampled on a
// barycentric lattice whose points are at most `spacing` apart along its edges (its corners and edges included), so
// the result is a lower bound of the true (Hausdorff) distance, short of it by at most about `spacing`. Preconditions
// (asserted): indices in range and a multiple of 3, spacing > 0. Either surface without triangles: infinity, or 0 when
// both have none.
SurfaceDistance surfaceDistance(const TriangleSurface& a, const TriangleSurface& b, double spacing);

}  // namespace morphkit::optimize_detail
