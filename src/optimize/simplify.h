// SPDX-License-Identifier: MIT
// The simplifier behind optimize's levels of detail (docs/OPTIMIZE.md, "Levels of detail"): edge collapses of one
// triangle primitive whose cost is measured at every pose the caller supplies (rest, each target alone, skinned
// poses), so a collapse that is fine at rest but bad in an expression costs what it costs there. Each collapse
// removes a vertex onto a neighbour that stays as it is (half-edge collapse): every surviving vertex keeps its own
// data (position, target deltas, skin weights, UVs) exactly, and the caller compacts its attributes by
// SimplifyResult::kept_vertices. Private to morphkit::optimize.
#pragma once
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "morphkit/model/thread_pool.h"

namespace morphkit::optimize_detail {

// Why a simplification stopped.
enum class SimplifyStop : uint8_t {
  kRatio,       // the triangle count reached target_ratio
  kErrorLimit,  // the cheapest collapse left would exceed max_error
  kNoCollapse,  // no valid collapse was left (every vertex locked, or each would flip or tear the surface)
};
const char* simplifyStopName(SimplifyStop stop);

struct SimplifyInput {
  // Triangle list, 3 per triangle, each < vertex_count. Degenerate triangles (a repeated index) are dropped.
  std::span<const uint32_t> indices;
  uint32_t vertex_count = 0;
  // K >= 1 poses of the same vertices in one common space (3 floats per vertex, vertex_count × 3 each); poses[0] is
  // the rest pose. The cost of a collapse is its worst over every pose, and no collapse may flip a triangle in any.
  std::span<const std::span<const float>> poses;
  // Per vertex, nonzero: never removed (attribute seams, see sharedPositionVertices; anything the caller must keep).
  // Empty: none beyond what the simplifier locks itself (vertices on open borders and non-manifold edges).
  std::span<const uint8_t> locked;
  double target_ratio = 1.0;  // fraction of the input's triangles to keep, in (0, 1]
  // Largest collapse error allowed (the units of `poses`): the root-mean-square distance, area-weighted, from the
  // kept vertex to the planes of every triangle merged into it, at the worst pose. Infinity: no limit.
  double max_error = std::numeric_limits<double>::infinity();
  ThreadPool* pool = nullptr;  // optional: the first pricing of every vertex splits across it
};

struct SimplifyResult {
  // The kept input vertices, ascending; the caller compacts every per-vertex array (attributes, target deltas, skin
  // weights) by it.
  std::vector<uint32_t> kept_vertices;
  std::vector<uint32_t> indices;  // triangle list into kept_vertices (new vertex i is input vertex kept_vertices[i])
  double max_error = 0.0;         // the largest collapse error reached (units of the poses)
  SimplifyStop stop = SimplifyStop::kRatio;
  uint32_t collapses = 0;
};

// Simplifies `input` (its preconditions asserted: indices in range, every pose 3 × vertex_count floats, K >= 1,
// locked empty or vertex_count long, target_ratio in (0, 1], max_error > 0).
SimplifyResult simplifyTriangles(const SimplifyInput& input);

// Per vertex, 1 where another vertex has bit-identical `rest` position (3 × vertex_count floats): the two sides of an
// attribute seam (UV or normal split), which a half-edge collapse would tear apart.
std::vector<uint8_t> sharedPositionVertices(std::span<const float> rest, uint32_t vertex_count);

}  // namespace morphkit::optimize_detail
