// SPDX-License-Identifier: MIT
// scene.cpp — transforms, weights and joint matrices of one scene (glTF 2.0 §3.5, §3.7.2.1, §3.7.3).
#include "morphkit/core/scene.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "morphkit/model/accessor.h"
#include "morphkit/model/contract.h"

namespace morphkit {

Expected<uint32_t> resolveScene(const Asset& asset, uint32_t requested) {
  if (asset.scenes.empty()) return fail(Error::kInvalidArgument, "scenes: the asset has no scene");
  uint32_t scene = requested != kNone ? requested : (asset.scene != kNone ? asset.scene : 0);
  if (scene >= asset.scenes.size()) {
    return fail(Error::kInvalidArgument, "scenes[" + std::to_string(scene) + "]: no such scene (the asset has " +
                                             std::to_string(asset.scenes.size()) + ")");
  }
  return scene;
}

Expected<SceneState> evaluateScene(const Asset& asset, uint32_t scene, std::span<const NodePose> pose) {
  if (scene >= asset.scenes.size()) {
    return fail(Error::kInvalidArgument, "scenes[" + std::to_string(scene) + "]: no such scene");
  }
  if (!pose.empty() && pose.size() != asset.nodes.size()) {
    return fail(Error::kInvalidArgument, "evaluateScene: pose has " + std::to_string(pose.size()) +
                                             " entries, the asset has " + std::to_string(asset.nodes.size()) +
                                             " nodes");
  }
  const size_t n = asset.nodes.size();
  SceneState state;
  state.scene = scene;
  state.local.resize(n);
  state.world.resize(n);
  state.weights.resize(n);

  for (size_t i = 0; i < n; ++i) {
    const Node& node = asset.nodes[i];
    const NodePose* p = pose.empty() ? nullptr : &pose[i];
    const bool animated_trs = p && (p->has_translation || p->has_rotation || p->has_scale);
    if (node.has_matrix && !animated_trs) {
      state.local[i] = node.matrix;
    } else {
      const DVec3 t = p && p->has_translation ? toDouble(p->translation) : node.translation;
      const DQuat r = p && p->has_rotation ? toDouble(p->rotation) : node.rotation;
      const DVec3 s = p && p->has_scale ? toDouble(p->scale) : node.scale;
      state.local[i] = composeTRSDouble(t, r, s);
    }
    // §3.7.2.1: animated weights, else node.weights, else mesh.weights, else zeros; always target count long.
    if (node.mesh != kNone && node.mesh < asset.meshes.size()) {
      const Mesh& mesh = asset.meshes[node.mesh];
      const uint32_t targets = mesh.primitives.empty() ? 0 : uint32_t(mesh.primitives[0].targets.size());
      const std::vector<float>* source = nullptr;
      const bool animated_all = p && p->has_weights && p->weight_mask.empty();
      if (animated_all) {
        source = &p->weights;
      } else if (!node.weights.empty()) {
        source = &node.weights;
      } else if (!mesh.weights.empty()) {
        source = &mesh.weights;
      }
      std::vector<float>& w = state.weights[i];
      w.assign(targets, 0.0f);
      if (source) std::copy_n(source->begin(), std::min<size_t>(targets, source->size()), w.begin());
      if (p && p->has_weights && !animated_all) {  // single animated weights over the static ones
        for (size_t k = 0; k < std::min<size_t>(targets, p->weight_mask.size()); ++k) {
          if (p->weight_mask[k]) w[k] = p->weights[k];
        }
      }
      // Keys are finite after validation (§3.6.2.2), but a CUBICSPLINE of huge finite keys can still overflow.
      // One rule for every consumer (CPU, GPU, renderer): such a weight is an error, never a NaN vertex.
      for (size_t k = 0; k < w.size(); ++k) {
        if (!std::isfinite(w[k])) {
          return fail(Error::kTooLarge, "nodes[" + std::to_string(i) + "]: morph weight " + std::to_string(k) +
                                            " is not finite (animation keyframes overflow float)");
        }
      }
    }
  }

  // Parents, then an iterative pre-order walk from every root so world(parent) is ready before its children.
  std::vector<uint32_t> parent(n, kNone);
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t c : asset.nodes[i].children) {
      if (c < n && parent[c] == kNone && c != i) parent[c] = uint32_t(i);
    }
  }
  std::vector<uint8_t> done(n, 0);
  std::vector<uint32_t> stack;
  auto walk = [&](uint32_t root) {
    stack.assign(1, root);
    while (!stack.empty()) {
      const uint32_t node = stack.back();
      stack.pop_back();
      if (done[node]) continue;
      done[node] = 1;
      const uint32_t par = parent[node];
      state.world[node] = par != kNone && done[par] ? state.world[par] * state.local[node] : state.local[node];
      for (uint32_t c : asset.nodes[node].children) {
        if (c < n && parent[c] == node) stack.push_back(c);
      }
    }
  };
  for (uint32_t i = 0; i < n; ++i) {
    if (parent[i] == kNone) walk(i);
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (!done[i]) walk(i);  // a cycle (invalid glTF, rejected by the loader): local transforms from there on
  }

  // The scene's nodes: iterative pre-order from its roots, each node listed once.
  std::vector<uint8_t> listed(n, 0);
  for (uint32_t root : asset.scenes[scene].nodes) {
    if (root >= n) continue;
    stack.assign(1, root);
    while (!stack.empty()) {
      const uint32_t node = stack.back();
      stack.pop_back();
      if (listed[node]) continue;
      listed[node] = 1;
      state.scene_nodes.push_back(node);
      const auto& children = asset.nodes[node].children;
      for (auto it = children.rbegin(); it != children.rend(); ++it) {
        if (*it < n) stack.push_back(*it);
      }
    }
  }
  return state;
}

std::vector<Mat4> decodeInverseBindMatrices(const Asset& asset, uint32_t skin) {
  MORPHKIT_EXPECTS(skin < asset.skins.size());
  const Skin& s = asset.skins[skin];
  std::vector<Mat4> out(s.joints.size());
  if (s.inverse_bind_matrices == kNone) return out;
  MORPHKIT_EXPECTS(s.inverse_bind_matrices < asset.accessors.size());
  std::vector<float> floats = readAccessorFloats(asset, s.inverse_bind_matrices);
  const size_t count = std::min(out.size(), floats.size() / 16);
  for (size_t j = 0; j < count; ++j) std::copy_n(floats.begin() + ptrdiff_t(j * 16), 16, out[j].m.begin());
  return out;
}

std::vector<DMat4> jointMatrices(const Asset& asset, const SceneState& state, uint32_t skin,
                                 std::span<const Mat4> inverse_bind) {
  MORPHKIT_EXPECTS(skin < asset.skins.size());
  const Skin& s = asset.skins[skin];
  std::vector<DMat4> out(s.joints.size());
  for (size_t j = 0; j < s.joints.size(); ++j) {
    const uint32_t node = s.joints[j];
    const DMat4 world = node < state.world.size() ? state.world[node] : DMat4{};
    out[j] = j < inverse_bind.size() ? world * DMat4(inverse_bind[j]) : world;
  }
  return out;
}

}  // namespace morphkit
