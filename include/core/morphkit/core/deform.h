// SPDX-License-Identifier: MIT
// morphkit/core/deform.h — CPU morph + skin deformation of one primitive (ozz-style jobs: plain structs, validate(),
// run()).
//
// The order every morphkit path follows (glTF 2.0 §3.7.2.2 morph targets, §3.7.3.3 skinning; see docs/POSE.md):
//   1. Morph, in object space: attr = base + Σᵢ wᵢ·Δᵢ for POSITION, NORMAL, TANGENT.xyz, TEXCOORD_n, COLOR_n
//      (a target without an attribute moves nothing; TANGENT.w is kept).
//   2a. Skinned (joint_matrices not empty): M = Σ over every JOINTS_n/WEIGHTS_n set and component of
//       weight · joint_matrices[joint] (weights used as stored, entries of weight 0 skipped);
//       position = M·p; normal = M₃ₓ₃·n, normalized (the blended matrix itself, as three.js/Babylon.js and
//       shared/reference do: a blend of rotations is not orthogonal, so its inverse-transpose would differ);
//       tangent.xyz = M₃ₓ₃·t, normalized.
//   2b. Rigid: M = `world` (the node's world matrix); normal = inverse-transpose(M₃ₓ₃)·n (normalMatrix), normalized;
//       tangent.xyz = M₃ₓ₃·t, normalized.
//   TEXCOORD_n and COLOR_n are morphed only (they are not spatial).
// Output is in world space. A zero-length normal or tangent stays zero (never NaN).
//
// Jobs own nothing and never allocate output: the caller sizes every output span for the whole primitive,
// and a job writes only the vertices [begin, end), so disjoint ranges can run on different threads.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "morphkit/model/math.h"
#include "morphkit/model/primitive.h"
#include "morphkit/pack/packed_targets.h"

namespace morphkit {

// Which attribute a target delta moves, as bits (DeformRules, EngineRules in pose.h): POSITION, NORMAL, TANGENT,
// TEXCOORD_0..7 and COLOR_0..7 (sets past 7 share the bit of set 7).
inline constexpr uint32_t kPositionDelta = 1u << 0, kNormalDelta = 1u << 1, kTangentDelta = 1u << 2;
constexpr uint32_t texcoordDelta(size_t set) {
  return 1u << (3 + (set < 7 ? set : 7));
}
constexpr uint32_t colorDelta(size_t set) {
  return 1u << (11 + (set < 7 ? set : 7));
}

// Deviations from the glTF rules the reference job can apply for an engine profile (morphkit check, src/check;
// pose.h's EngineRules resolves them per primitive). The default applies none: the job is the glTF pose, bit for bit.
struct DeformRules {
  uint32_t ignored_deltas = 0;              // delta bits whose target deltas move nothing
  std::span<const uint32_t> base_as_delta;  // empty, or per target: bits whose delta is the base value (three.js)
  bool sparse_deltas_ignored = false;       // deltas the file stored as sparse accessors move nothing (Filament)
  uint32_t influence_sets = UINT32_MAX;     // skinning reads the first N JOINTS_n/WEIGHTS_n sets only
  bool kept_weights_as_stored = false;      // after dropping sets: the kept weights are not rescaled to sum 1
};

// The scalar reference (double accumulation). Everything else is checked against it.
struct MorphSkinJob {
  // Inputs.
  const PrimitiveData* primitive = nullptr;  // required; base attributes, target deltas, joints/weights
  std::span<const float> weights;            // required: exactly primitive->targets.size() morph weights
  std::span<const DMat4> joint_matrices;     // skinned: world(joint)·IBM per skin joint; empty: rigid by `world`
  DMat4 world;                               // rigid primitives only: the node's world matrix
  // Both in double (scene.h composes them so): positions are transformed in double and rounded to float once.
  uint32_t begin = 0, end = 0;  // vertex range [begin, end), end <= vertex_count
  DeformRules rules;            // engine deviations (default: none); the fast path ignores them

  // Outputs, each sized for the WHOLE primitive; only [begin, end) is written.
  std::span<float> out_positions;                   // required: 3 × vertex_count
  std::span<float> out_normals;                     // 3 × vertex_count (the primitive has normals), or empty: skipped
  std::span<float> out_tangents;                    // 4 × vertex_count (the primitive has tangents), or empty: skipped
  std::span<const std::span<float>> out_texcoords;  // empty (skip), or one 2 × vertex_count span per set
  std::span<const std::span<float>> out_colors;     // empty (skip), or one 4 × vertex_count span per set

  // True when every span has the size stated above, every target array is empty or full size, and (skinned)
  // the primitive has JOINTS/WEIGHTS and every joint index of [begin, end) with a non-zero weight is in range.
  bool validate() const;
  // validate() without the per-vertex joint-index scan (the fast path checks PackedTargets::joints_needed instead).
  bool validateLayout() const;
  bool run() const;  // validates first; returns false (writing nothing) when invalid
};

// The origin split of the float transforms (docs/LAYOUTS.md §5), one rule for the CPU fast path and the GPU kernels.
// Far from the origin a float matrix cannot place a small primitive to its own precision, so a vertex enters as
// p − pivot (pivot: the float centre of its base positions) and each matrix M = [R | T] is kept as [R | M·pivot − o]
// in float, with `o` a double point near every M·pivot, added back last.
// pivotPlaced: M·(pivot, 1) in double. splitOrigin: o, the mean of M·pivot over `matrices` (the joints a skinned
// primitive uses, or its one world matrix); (0, 0, 0) for none.
DVec3 pivotPlaced(const DMat4& m, const float pivot[3]);
DVec3 splitOrigin(std::span<const DMat4> matrices, const float pivot[3]);

// The fast path: same contract and results as MorphSkinJob (to ~1e-6 relative: float accumulation, float
// transforms relative to PackedTargets::pivot and an origin split off in double), using
// PackedTargets, an active-target list (|w| > 0) and cache-sized vertex blocks. Built with
// MORPHKIT_SCALAR_ONLY it runs the reference instead. One difference in validate(): the joint-index check is
// over the whole primitive (joint_matrices.size() >= packed->joints_needed), not only [begin, end), so that
// validating a range costs O(1) per vertex range instead of a scan.
struct FastMorphSkinJob {
  // Vertices per block (the unit of the morph and skin loops): callers that split a primitive into ranges split
  // on multiples of it.
  static constexpr uint32_t kBlockVertices = 1024;

  MorphSkinJob job;                       // the description (inputs, range, outputs)
  const PackedTargets* packed = nullptr;  // required: packTargets(*job.primitive)

  // Whether a job over `packed` prefetches each active stream one block ahead (within its range): only when the
  // deltas are too large to stay cached from frame to frame (over 32 MiB).
  static bool prefetchesStreams(const PackedTargets& packed);

  bool validate() const;
  bool run() const;
};

}  // namespace morphkit
