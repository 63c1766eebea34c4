// SPDX-License-Identifier: MIT
// morphkit/core/pose_arrays.h — a pose sequence as dense arrays, one set per posed (node, primitive): what
// `morphkit pose --out X.npy|X.npz` writes and what the Python package returns. The caller owns the arrays
// (a NumPy array, a std::vector); each frame is copied in place as it is posed, so memory is the output
// arrays plus one frame's PoseResult.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/model/error.h"

namespace morphkit {

// What one posed primitive of a prepared scene looks like, in PoseResult::meshes order.
struct PoseArrayShape {
  uint32_t node = kNone, mesh = kNone, primitive = kNone;
  bool skinned = false;  // as PosedPrimitive::skinned
  uint32_t vertex_count = 0;
  uint32_t target_count = 0;  // morph weights per frame
  bool has_normals = false;
};
std::vector<PoseArrayShape> poseArrayShapes(const PosePrepared& prepared);

// "node<N>_mesh<M>_prim<P>": the name of a posed primitive in .npz files and OBJ groups.
std::string posedPrimitiveName(uint32_t node, uint32_t mesh, uint32_t primitive);

// Caller-owned destination of one posed primitive over F frames, C order:
//   positions  F × vertex_count × 3 floats (required)
//   normals    F × vertex_count × 3 floats, or empty (not wanted, or the primitive has none)
//   weights    F × target_count floats, or empty (not wanted)
struct PoseArrayView {
  std::span<float> positions, normals, weights;
};

// Copies `pose` into frame `frame` of `out` (one view per pose.meshes entry). Fails (kInvalidArgument) when the
// view count, a span's size or the frame index does not fit the pose; nothing is written then.
Status copyPoseFrame(const PoseResult& pose, size_t frame, std::span<const PoseArrayView> out);

}  // namespace morphkit
