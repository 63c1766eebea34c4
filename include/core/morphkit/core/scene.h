// SPDX-License-Identifier: MIT
// morphkit/core/scene.h — scene evaluation: local and world transforms, resolved morph weights, joint matrices.
//
// glTF 2.0 §3.5.2–§3.5.3: a node's local transform is `matrix` or T·R·S; an animated TRS property overrides the
// node's static value (§3.11: animated nodes must use TRS, not matrix; an animated matrix node falls back to TRS
// from its decomposed fields, which the loader fills with defaults). world(node) = world(parent) · local(node).
// §3.7.2.1 (morph weights): animated > node.weights > mesh.weights > 0.
// §3.7.3 (skins): jointMatrix[j] = world(joints[j]) · inverseBindMatrices[j] (identity when absent);
// the skinned mesh node's own transform does not apply to skinned vertices.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "morphkit/core/animation.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"
#include "morphkit/model/math.h"

namespace morphkit {

// The scene to evaluate: `requested` when it is not kNone, else asset.scene, else 0.
// Fails (kInvalidArgument) when the asset has no scenes or the index is out of range.
Expected<uint32_t> resolveScene(const Asset& asset, uint32_t requested = kNone);

struct SceneState {
  uint32_t scene = kNone;
  // Composed in double (the file's node numbers are double; animated values float, as the engines sample them)
  // and never rounded here: deformation uses them in double, float consumers round once (toFloat).
  std::vector<DMat4> local;                 // per asset node
  std::vector<DMat4> world;                 // per asset node; nodes outside every tree path: their local
  std::vector<uint32_t> scene_nodes;        // nodes reachable from the scene's roots, in traversal (pre-)order
  std::vector<std::vector<float>> weights;  // per asset node with a mesh: resolved morph weights (target count)
};

// Evaluates transforms and weights of `scene`. `pose` is empty (rest pose: the file's values) or has one entry
// per node (from AnimationSamplingJob). Traversal is iterative (no recursion); a node reached twice (invalid
// glTF, rejected by the loader) is visited once. World transforms are computed for all nodes, so joints
// outside the scene still get one.
Expected<SceneState> evaluateScene(const Asset& asset, uint32_t scene, std::span<const NodePose> pose = {});

// Decodes skins[skin].inverseBindMatrices (identity for each joint when absent).
std::vector<Mat4> decodeInverseBindMatrices(const Asset& asset, uint32_t skin);

// jointMatrix[j] = world(skin.joints[j]) · inverse_bind[j] in double; `inverse_bind` has one matrix per joint.
std::vector<DMat4> jointMatrices(const Asset& asset, const SceneState& state, uint32_t skin,
                                 std::span<const Mat4> inverse_bind);

}  // namespace morphkit
