// SPDX-License-Identifier: MIT
// The demo asset's skeleton and skin (demo_internal.h): a chain root → neck → head → jaw → joint4 → ...
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "demo_internal.h"
#include "morphkit/model/asset_builder.h"

namespace morphkit::demo_detail {

// The skeleton: a chain root → neck → head → jaw → joint4 → ..., each joint's pivot and the spot it pulls on.
DemoRig makeRig(uint32_t bones) {
  DemoRig rig;
  std::vector<Vec3>& pivot = rig.pivot;
  std::vector<Vec3>& influence = rig.influence;
  std::vector<std::string>& bone_names = rig.names;
  pivot.resize(bones);
  influence.resize(bones);
  bone_names.resize(bones);
  for (uint32_t b = 0; b < bones; ++b) {
    switch (b) {
      case 0:
        bone_names[b] = "root";
        pivot[b] = {0, -1.4f, 0};
        influence[b] = {0, -1.3f, 0};
        break;
      case 1:
        bone_names[b] = "neck";
        pivot[b] = {0, -0.9f, -0.1f};
        influence[b] = {0, -0.85f, -0.1f};
        break;
      case 2:
        bone_names[b] = "head";
        pivot[b] = {0, -0.5f, 0};
        influence[b] = {0, 0.35f, -0.1f};
        break;
      case 3:
        bone_names[b] = "jaw";
        pivot[b] = {0, -0.35f, 0};
        influence[b] = {0, -0.75f, 0.55f};
        break;
      default: {
        // Further joints continue the chain upward; each pulls on its own spot of the head (a golden-angle
        // spiral), so every joint has vertices to move.
        bone_names[b] = "joint" + std::to_string(b);
        float f = float(b - 3) / float(bones - 3);
        pivot[b] = {0, -0.35f + 1.2f * f, 0};
        float angle = 2.39996323f * float(b);
        influence[b] = {0.75f * std::sin(angle), -0.6f + 1.5f * f, 0.8f * std::cos(angle)};
      }
    }
  }
  return rig;
}

// Up to four joints per vertex, by a compact falloff around each joint's influence spot; weights sum to 1.
SkinStreams bindSkin(const std::vector<float>& position, const DemoRig& rig) {
  const uint32_t vertex_count = uint32_t(position.size() / 3);
  const uint32_t bones = uint32_t(rig.pivot.size());
  const std::vector<Vec3>& influence = rig.influence;
  SkinStreams out;
  std::vector<uint8_t>& joints = out.joints;
  std::vector<float>& skin_weights = out.weights;
  joints.assign(4 * size_t(vertex_count), 0);
  skin_weights.assign(4 * size_t(vertex_count), 0.0f);
  {
    constexpr float kSigma2 = 1.2f * 1.2f;
    std::vector<std::pair<float, uint32_t>> candidates;
    for (uint32_t v = 0; v < vertex_count; ++v) {
      Vec3 p = load3(position, v);
      candidates.clear();
      uint32_t nearest = 0;
      float nearest_d2 = 1e30f;
      for (uint32_t b = 0; b < bones; ++b) {
        Vec3 e = p - influence[b];
        float d2 = dot(e, e);
        if (d2 < nearest_d2) nearest_d2 = d2, nearest = b;
        float x = 1.0f - d2 / kSigma2;  // (1 - d²/σ²)²: smooth, compact, no exp() per (vertex, bone)
        if (x > 0) candidates.push_back({x * x, b});
      }
      if (candidates.empty()) candidates.push_back({1.0f, nearest});
      size_t keep = std::min<size_t>(4, candidates.size());
      std::partial_sort(candidates.begin(), candidates.begin() + keep, candidates.end(),
                        [](const auto& a, const auto& b) {
                          return a.first > b.first || (a.first == b.first && a.second < b.second);
                        });
      float top = candidates[0].first;
      while (keep > 1 && candidates[keep - 1].first < 0.01f * top) --keep;  // drop negligible influences
      float sum = 0;
      for (size_t k = 0; k < keep; ++k) sum += candidates[k].first;
      float assigned = 0;
      for (size_t k = 0; k < keep; ++k) {
        // The last weight absorbs the rounding, so the four floats sum to 1 (glTF 2.0 §3.7.3.3).
        float w = k + 1 == keep ? 1.0f - assigned : candidates[k].first / sum;
        assigned += w;
        joints[4 * v + k] = uint8_t(candidates[k].second);
        skin_weights[4 * v + k] = w;
      }
    }
  }
  return out;
}

// Nodes (0 = the skinned mesh, a root without transform as §3.7.3 recommends; 1 + b = joint b), skin
// and scene.
void appendRigAndScene(Asset& asset, const DemoRig& rig) {
  const uint32_t bones = uint32_t(rig.pivot.size());
  const std::vector<Vec3>& pivot = rig.pivot;
  const std::vector<std::string>& bone_names = rig.names;
  Node head;
  head.name = "Head";
  head.mesh = 0;
  head.skin = 0;
  asset.nodes.push_back(head);
  std::vector<float> inverse_bind(16 * size_t(bones));
  for (uint32_t b = 0; b < bones; ++b) {
    Node joint;
    joint.name = bone_names[b];
    joint.translation = toDouble(b == 0 ? pivot[0] : pivot[b] - pivot[b - 1]);
    if (b + 1 < bones) joint.children = {b + 2};
    asset.nodes.push_back(joint);
    // The bind pose has no rotation, so each inverse bind matrix is the translation by -pivot (§3.7.3.1).
    Mat4 ibm;
    ibm.m[12] = -pivot[b].x;
    ibm.m[13] = -pivot[b].y;
    ibm.m[14] = -pivot[b].z;
    std::copy(ibm.m.begin(), ibm.m.end(), inverse_bind.begin() + 16 * b);
  }
  Skin skin;
  skin.name = "Rig";
  skin.inverse_bind_matrices = appendAccessor(asset, std::span<const float>(inverse_bind), AccessorType::kMat4);
  skin.skeleton = 1;
  for (uint32_t b = 0; b < bones; ++b) skin.joints.push_back(1 + b);
  asset.skins.push_back(skin);
  asset.scenes.push_back(Scene{"Scene", {0, 1}});
  asset.scene = 0;
}

}  // namespace morphkit::demo_detail
