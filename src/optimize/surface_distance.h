// SPDX-License-Identifier: MIT
// How far apart two triangle surfaces are (docs/OPTIMIZE.md, "Levels of detail"): the largest two-sided distance,
// sampled — points on each surface to the nearest point of the other's triangles — what verification measures where
// a pass changed the vertices (a simplified mesh has no vertex-to-vertex correspondence). Private to
// morphkit::optimize.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

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
// the result is a lower bound of the true (Hausdorff) distance, short of it by at most about `spacing`. `known`: a
// distance the caller has already found elsewhere (another pose): samples that cannot pass it are not searched, and
// the result is at least `known` (`where` then stays unset unless a sample passes it). Preconditions (asserted):
// indices in range and a multiple of 3, spacing > 0. Either surface without triangles: infinity, or 0 when both have
// none.
// `hints`: per sample, the triangle of the other surface that answered it last time (surfaceDistance fills them). From
// one pose to the next a sample moves little, so that triangle mostly answers again without a search; reuse a set only
// between the same two primitives' poses.
struct SurfaceHints {
  std::vector<uint32_t> from_a, from_b;
};
SurfaceDistance surfaceDistance(const TriangleSurface& a, const TriangleSurface& b, double spacing, double known = 0.0,
                                SurfaceHints* hints = nullptr);

}  // namespace morphkit::optimize_detail
