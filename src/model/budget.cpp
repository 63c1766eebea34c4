// SPDX-License-Identifier: MIT
// budget.cpp — the cost of loading and posing an asset, from its structure alone (see morphkit/model/budget.h).
// Each figure mirrors an allocation of the code it predicts; keep them in step with accessor.cpp, primitive.cpp,
// pose.cpp and scene.cpp.
#include "morphkit/model/budget.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "morphkit/model/accessor.h"
#include "morphkit/model/primitive.h"

namespace morphkit {

namespace {

constexpr uint64_t kSaturated = UINT64_MAX;

uint64_t add(uint64_t a, uint64_t b) {
  return a > kSaturated - b ? kSaturated : a + b;
}
uint64_t mul(uint64_t a, uint64_t b) {
  return a != 0 && b > kSaturated / a ? kSaturated : a * b;
}

const Accessor* accessorAt(const Asset& asset, uint32_t index) {
  return index < asset.accessors.size() ? &asset.accessors[index] : nullptr;
}

// readAccessorFloats / readAccessorUints: 4 bytes per component.
uint64_t decodedBytes(const Accessor* a) {
  return a ? uint64_t(a->count) * componentCount(a->type) * 4 : 0;
}

// Attribute sets numbered densely from 0, as decodePrimitive reads them.
uint32_t setCount(const std::vector<Attribute>& attributes, const char* prefix) {
  uint32_t n = 0;
  while (findAttribute(attributes, prefix + std::to_string(n)) != kNone) ++n;
  return n;
}

struct PrimitiveCost {
  uint64_t kept = 0;   // PrimitiveData + the packed deltas of preparePose
  uint64_t posed = 0;  // one PosedPrimitive
};

PrimitiveCost primitiveCost(const Asset& asset, const Primitive& primitive) {
  PrimitiveCost cost;
  const Accessor* position = accessorAt(asset, findAttribute(primitive.attributes, "POSITION"));
  if (!position) return cost;
  const uint64_t vertices = position->count;
  const bool has_normal = findAttribute(primitive.attributes, "NORMAL") != kNone;
  const bool has_tangent = findAttribute(primitive.attributes, "TANGENT") != kNone;
  const uint32_t texcoords = setCount(primitive.attributes, "TEXCOORD_");
  const uint32_t colors = setCount(primitive.attributes, "COLOR_");
  const uint64_t influences =
      4 * std::min(setCount(primitive.attributes, "JOINTS_"), setCount(primitive.attributes, "WEIGHTS_"));
  const uint64_t floats_per_vertex = 3 + (has_normal ? 3 : 0) + (has_tangent ? 4 : 0) + 2 * texcoords + 4 * colors;
  const uint64_t indices = primitive.indices != kNone ? decodedBytes(accessorAt(asset, primitive.indices)) : 0;
  uint64_t deltas = 0;
  for (const MorphTarget& target : primitive.targets) {
    for (const Attribute& attribute : target.attributes) {
      const Accessor* a = accessorAt(asset, attribute.accessor);
      if (!a || accessorIsAllZero(*a)) continue;  // decodePrimitive keeps nothing for all-zero deltas
      const std::string& name = attribute.name;
      bool kept = name == "POSITION" || (name == "NORMAL" && has_normal) || (name == "TANGENT" && has_tangent);
      for (uint32_t s = 0; s < texcoords && !kept; ++s) kept = name == "TEXCOORD_" + std::to_string(s);
      for (uint32_t s = 0; s < colors && !kept; ++s) kept = name == "COLOR_" + std::to_string(s);
      if (kept) deltas = add(deltas, mul(a->count, name.rfind("COLOR_", 0) == 0 ? 16 : componentCount(a->type) * 4));
    }
  }
  cost.kept = add(add(mul(vertices, (floats_per_vertex + 2 * influences) * 4), indices), mul(deltas, 2));
  cost.posed = add(add(mul(vertices, floats_per_vertex * 4), indices), 256);
  return cost;
}

uint64_t toMiB(uint64_t bytes) {
  return bytes / (uint64_t(1) << 20) + (bytes % (uint64_t(1) << 20) != 0);
}

}  // namespace

AssetCost estimateCost(const Asset& asset) {
  AssetCost cost;
  for (const Accessor& accessor : asset.accessors)
    cost.accessor_bytes = add(cost.accessor_bytes, decodedBytes(&accessor));

  // Every distinct primitive of every mesh (preparePose decodes identical ones once; inspect reads meshes no node
  // uses), then one pose of every node with a mesh, and the skins those nodes use.
  std::unordered_set<std::string> primitives;
  std::vector<std::vector<PrimitiveCost>> mesh_costs(asset.meshes.size());
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    for (const Primitive& primitive : asset.meshes[m].primitives) {
      mesh_costs[m].push_back(primitiveCost(asset, primitive));
      if (primitives.insert(primitiveIdentity(primitive)).second) {
        cost.prepare_bytes = add(cost.prepare_bytes, mesh_costs[m].back().kept);
      }
    }
  }
  std::vector<uint8_t> skin_used(asset.skins.size(), 0);
  for (const Node& node : asset.nodes) {
    cost.posed_bytes = add(cost.posed_bytes, 256);  // local + world matrices, pose slots
    if (node.mesh >= asset.meshes.size()) continue;
    const Mesh& mesh = asset.meshes[node.mesh];
    for (const PrimitiveCost& c : mesh_costs[node.mesh]) cost.posed_bytes = add(cost.posed_bytes, c.posed);
    const uint64_t targets = mesh.primitives.empty() ? 0 : mesh.primitives[0].targets.size();
    cost.posed_bytes = add(cost.posed_bytes, mul(targets, 8));  // scene weights + sampled weights
    if (node.skin < asset.skins.size()) skin_used[node.skin] = 1;
  }
  for (size_t s = 0; s < asset.skins.size(); ++s) {
    if (!skin_used[s]) continue;
    const uint64_t matrices = mul(asset.skins[s].joints.size(), 64);
    cost.prepare_bytes = add(cost.prepare_bytes, matrices);  // inverse bind matrices
    cost.posed_bytes = add(cost.posed_bytes, matrices);      // joint matrices
  }
  for (const Animation& animation : asset.animations) {
    // decodeAnimation: samplers some channel with a node uses, identical ones once.
    std::unordered_set<std::string> decoded;
    for (const AnimationChannel& channel : animation.channels) {
      if (!channelPlays(channel) || channel.sampler >= animation.samplers.size()) continue;
      const AnimationSampler& s = animation.samplers[channel.sampler];
      if (!decoded
               .insert(std::to_string(s.input) + "/" + std::to_string(s.output) + "/" +
                       std::to_string(int(s.interpolation)) + "/" + std::to_string(int(channel.path)))
               .second) {
        continue;
      }
      cost.prepare_bytes = add(
          cost.prepare_bytes, add(decodedBytes(accessorAt(asset, s.input)), decodedBytes(accessorAt(asset, s.output))));
    }
  }
  return cost;
}

Status checkBudget(const AssetCost& cost, const Budget& budget, uint64_t poses) {
  if (cost.decodedBytes() > budget.max_decoded_bytes) {
    return fail(Error::kTooLarge, "budget: decoding needs " + std::to_string(toMiB(cost.decodedBytes())) +
                                      " MiB of accessor data, over the decoded-data budget of " +
                                      std::to_string(budget.max_decoded_bytes >> 20) +
                                      " MiB (raise it with --max-decoded-mb)");
  }
  const uint64_t posed = mul(cost.posed_bytes, poses);
  if (posed > budget.max_posed_bytes) {
    return fail(Error::kTooLarge, "budget: " + std::to_string(poses) + " pose" + (poses == 1 ? "" : "s") +
                                      " of every mesh instance need" + (poses == 1 ? "s " : " ") +
                                      std::to_string(toMiB(posed)) + " MiB, over the posed-data budget of " +
                                      std::to_string(budget.max_posed_bytes >> 20) +
                                      " MiB (raise it with --max-posed-mb)");
  }
  return Ok{};
}

}  // namespace morphkit
