// SPDX-License-Identifier: MIT
// morphkit/model/primitive.h — one primitive's vertex data decoded to float arrays, ready for deformation.
// This is the boundary between the file format and every deformation path (CPU reference, CPU fast,
// Vulkan compute, Vulkan vertex): they all consume PrimitiveData, never accessors.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"

namespace morphkit {

// The deltas of one morph target. An empty array means "this target does not move that attribute".
struct MorphTargetData {
  std::vector<float> position;                // 3 × vertex_count
  std::vector<float> normal;                  // 3 × vertex_count
  std::vector<float> tangent;                 // 3 × vertex_count (glTF tangent deltas are VEC3: no w)
  std::vector<std::vector<float>> texcoords;  // [set] 2 × vertex_count; empty array for sets it doesn't move
  std::vector<std::vector<float>> colors;     // [set] 4 × vertex_count (VEC3 deltas get alpha delta 0)
  // Where the file stored the target as a glTF sparse accessor, its element indices (sorted) per attribute,
  // so sparse GPU layouts can be built without scanning. Dense arrays above are always filled too.
  std::vector<uint32_t> position_sparse_indices, normal_sparse_indices, tangent_sparse_indices;
  bool position_sparse = false, normal_sparse = false, tangent_sparse = false;
};

// What normalizeSkinWeights did to one primitive's weights.
struct SkinWeightFix {
  uint32_t rescaled = 0;   // vertices whose weights did not sum to 1 (within 1e-6) and were rescaled
  uint32_t zero = 0;       // of those, vertices whose weights were all zero: given weight 1 on their first joint
  double worst_sum = 1.0;  // the stored sum furthest from 1 (1 when every vertex already summed to 1)
};

// Rescales each vertex's weights (`influences` consecutive floats per vertex, every JOINTS_n/WEIGHTS_n set
// together) so they sum to 1, as three.js (SkinnedMesh.normalizeSkinWeights, which GLTFLoader calls on every
// skinned mesh) and Babylon.js do before skinning: w *= 1 / (|w0| + |w1| + ...), computed in double and stored
// as float, as three.js computes it in JS numbers and stores it in a Float32Array. A vertex whose weights are all
// zero gets (1, 0, 0, ...), i.e. it follows the joint of its first influence, which is what three.js sets ("do
// something reasonable") and its skinning shader then applies. Sums within 1e-6 of 1 are left untouched.
// glTF 2.0 §3.7.3.3 requires the sum to be 1; files that break it are common.
SkinWeightFix normalizeSkinWeights(std::span<float> weights, uint32_t influences);

struct PrimitiveData {
  uint32_t mesh = kNone, primitive = kNone;  // where it came from
  uint32_t vertex_count = 0;
  std::vector<float> position;                // 3 × vertex_count, object space
  std::vector<float> normal;                  // 3 × vertex_count, or empty
  std::vector<float> tangent;                 // 4 × vertex_count (w = handedness), or empty
  std::vector<std::vector<float>> texcoords;  // [TEXCOORD_n] 2 × vertex_count
  std::vector<std::vector<float>> colors;     // [COLOR_n] 4 × vertex_count (VEC3 colors get alpha 1)
  // Skinning: `influences` = 4 × number of JOINTS_n/WEIGHTS_n sets; joints/weights are influences × vertex_count.
  uint32_t influences = 0;
  std::vector<uint32_t> joints;  // indices into skin.joints
  // Normalized integer weights converted per §3.11, then each vertex rescaled to sum 1 (normalizeSkinWeights)
  // unless asset.keep_skin_weights; every deformation path reads these, so they all use the same numbers.
  std::vector<float> skin_weights;
  SkinWeightFix skin_weight_fix;  // what the rescaling changed (zero when kept as stored)
  std::vector<uint32_t> indices;  // triangle (or other mode) indices; empty when non-indexed
  PrimitiveMode mode = PrimitiveMode::kTriangles;
  std::vector<MorphTargetData> targets;
};

// Decodes meshes[mesh].primitives[primitive] of a validated asset. Target deltas stored as all-zero accessors
// (no bufferView, no sparse) stay empty: they move nothing, and a few bytes of JSON must not become gigabytes.
Expected<PrimitiveData> decodePrimitive(const Asset& asset, uint32_t mesh, uint32_t primitive);

// Two primitives with equal identities (attributes, indices, material, mode and targets, accessor for accessor)
// decode to the same PrimitiveData but for its mesh/primitive fields: preparePose decodes them once and shares
// the result (and so do the budgets of morphkit/model/budget.h).
std::string primitiveIdentity(const Primitive& primitive);

}  // namespace morphkit
