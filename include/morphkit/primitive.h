// morphkit/primitive.h — one primitive's vertex data decoded to float arrays, ready for deformation.
// This is the boundary between the file format and every deformation path (CPU reference, CPU fast,
// Vulkan compute, Vulkan vertex): they all consume PrimitiveData, never accessors.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "morphkit/asset.h"
#include "morphkit/error.h"

namespace morphkit {

// The deltas of one morph target. An empty array means "this target does not move that attribute".
struct MorphTargetData {
  std::vector<float> position;               // 3 × vertex_count
  std::vector<float> normal;                 // 3 × vertex_count
  std::vector<float> tangent;                // 3 × vertex_count (glTF tangent deltas are VEC3: no w)
  std::vector<std::vector<float>> texcoords;  // [set] 2 × vertex_count; empty array for sets it doesn't move
  std::vector<std::vector<float>> colors;     // [set] 4 × vertex_count (VEC3 deltas get alpha delta 0)
  // Where the file stored the target as a glTF sparse accessor, its element indices (sorted) per attribute,
  // so sparse GPU layouts can be built without scanning. Dense arrays above are always filled too.
  std::vector<uint32_t> position_sparse_indices, normal_sparse_indices, tangent_sparse_indices;
  bool position_sparse = false, normal_sparse = false, tangent_sparse = false;
};

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
  std::vector<uint32_t> joints;     // indices into skin.joints
  std::vector<float> skin_weights;  // as stored (normalized integer weights converted per §3.11)
  std::vector<uint32_t> indices;    // triangle (or other mode) indices; empty when non-indexed
  PrimitiveMode mode = PrimitiveMode::kTriangles;
  std::vector<MorphTargetData> targets;
};

// Decodes meshes[mesh].primitives[primitive] of a validated asset.
Expected<PrimitiveData> decodePrimitive(const Asset& asset, uint32_t mesh, uint32_t primitive);

}  // namespace morphkit
