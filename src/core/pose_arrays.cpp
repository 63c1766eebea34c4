// SPDX-License-Identifier: MIT
// pose_arrays.cpp — PoseResult frames copied into caller-owned (frames, vertices, 3) arrays.
#include "morphkit/core/pose_arrays.h"

#include <algorithm>

namespace morphkit {

std::vector<PoseArrayShape> poseArrayShapes(const PosePrepared& prepared) {
  std::vector<PoseArrayShape> shapes;
  if (!prepared.asset) return shapes;
  const Asset& asset = *prepared.asset;
  shapes.reserve(prepared.instances.size());
  for (const PosePrepared::Instance& inst : prepared.instances) {
    const PrimitiveData& data = prepared.primitives[inst.data];
    const Node& node = asset.nodes[inst.node];
    PoseArrayShape shape;
    shape.node = inst.node;
    shape.mesh = inst.mesh;
    shape.primitive = inst.primitive;
    // The rule evaluatePose applies (pose.cpp): a skin on the node and joint data on the primitive.
    shape.skinned = node.skin != kNone && node.skin < asset.skins.size() && data.influences > 0;
    shape.vertex_count = data.vertex_count;
    shape.target_count = uint32_t(data.targets.size());
    shape.has_normals = !data.normal.empty();
    shapes.push_back(shape);
  }
  return shapes;
}

std::string posedPrimitiveName(uint32_t node, uint32_t mesh, uint32_t primitive) {
  return "node" + std::to_string(node) + "_mesh" + std::to_string(mesh) + "_prim" + std::to_string(primitive);
}

Status copyPoseFrame(const PoseResult& pose, size_t frame, std::span<const PoseArrayView> out) {
  if (out.size() != pose.meshes.size()) {
    return fail(Error::kInvalidArgument, "copyPoseFrame: " + std::to_string(out.size()) + " views for " +
                                             std::to_string(pose.meshes.size()) + " posed primitives");
  }
  // Check every view before writing any, so a mismatch leaves the arrays untouched.
  for (size_t m = 0; m < out.size(); ++m) {
    const PosedPrimitive& p = pose.meshes[m];
    const PoseArrayView& v = out[m];
    const size_t stride = size_t(p.vertex_count) * 3;
    const bool positions_ok = stride > 0
                                  ? v.positions.size() % stride == 0 && (frame + 1) * stride <= v.positions.size()
                                  : v.positions.empty();
    const bool normals_ok = v.normals.empty() || (p.normals.size() == stride && v.normals.size() == v.positions.size());
    const bool weights_ok =
        v.weights.empty() || (!p.weights.empty() && (frame + 1) * p.weights.size() <= v.weights.size());
    if (!positions_ok || !normals_ok || !weights_ok) {
      return fail(Error::kInvalidArgument, "copyPoseFrame: " + posedPrimitiveName(p.node, p.mesh, p.primitive) +
                                               ": the arrays do not hold frame " + std::to_string(frame));
    }
  }
  for (size_t m = 0; m < out.size(); ++m) {
    const PosedPrimitive& p = pose.meshes[m];
    const PoseArrayView& v = out[m];
    const size_t stride = size_t(p.vertex_count) * 3;
    std::copy(p.positions.begin(), p.positions.end(), v.positions.begin() + long(frame * stride));
    if (!v.normals.empty()) std::copy(p.normals.begin(), p.normals.end(), v.normals.begin() + long(frame * stride));
    if (!v.weights.empty())
      std::copy(p.weights.begin(), p.weights.end(), v.weights.begin() + long(frame * p.weights.size()));
  }
  return Ok{};
}

}  // namespace morphkit
