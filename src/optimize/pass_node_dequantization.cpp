// SPDX-License-Identifier: MIT
// The node-dequantization pass: an unskinned mesh's positions and their deltas can be stored as integers on a grid of
// its own only if something undoes the grid, and for a mesh without a skin that is a node's transform (a skinned one
// uses its inverse bind matrices, optimize_encode.cpp). This pass picks, per mesh, the nodes whose local transform
// will carry D = translate(center) · scale(step): the node that draws it when nothing else depends on that node's
// transform (no children, no camera, not a joint, no animated translation, rotation or scale, no node extension),
// else a new child node that takes over the mesh, its weights and its weight channels. With --keep-nodes no node is
// added, and such a mesh keeps float positions where they do not fit 16 normalized bits. The encoder chooses the
// step per attempt and folds D into the carriers (OptimizeEncoder::foldDequantIntoNodes).
#include <algorithm>
#include <string>

#include "optimize_passes.h"

namespace morphkit::optimize_detail {
namespace {

// Extensions whose objects never hang off a node: a file using only these (and core glTF) has no node extension that
// a changed local transform would move (a light, a LOD switch distance, a physics shape).
constexpr std::string_view kNodeFreeExtensions[] = {"KHR_mesh_quantization",      "EXT_meshopt_compression",
                                                    "KHR_draco_mesh_compression", "KHR_texture_transform",
                                                    "KHR_texture_basisu",         "EXT_texture_webp",
                                                    "KHR_materials_unlit",        "KHR_materials_emissive_strength",
                                                    "KHR_materials_ior",          "KHR_materials_specular",
                                                    "KHR_materials_clearcoat",    "KHR_materials_sheen",
                                                    "KHR_materials_transmission", "KHR_materials_volume",
                                                    "KHR_materials_iridescence",  "KHR_materials_anisotropy",
                                                    "KHR_materials_dispersion",   "KHR_materials_variants",
                                                    "KHR_animation_pointer"};

bool nodeExtensionsPossible(const Asset& asset) {
  return std::any_of(asset.extensions_used.begin(), asset.extensions_used.end(), [](const std::string& name) {
    return std::find(std::begin(kNodeFreeExtensions), std::end(kNodeFreeExtensions), name) ==
           std::end(kNodeFreeExtensions);
  });
}

// Per node, what forbids changing its local transform or moving its mesh elsewhere.
struct NodeUse {
  bool joint = false;
  bool animated_transform = false;  // a translation/rotation/scale channel, or a pointer into the node
  bool pointer_weights = false;     // a KHR_animation_pointer channel on its weights (text names the node)
};

std::vector<NodeUse> nodeUses(const Asset& asset) {
  std::vector<NodeUse> uses(asset.nodes.size());
  for (const Skin& skin : asset.skins) {
    for (uint32_t joint : skin.joints) {
      if (joint < uses.size()) uses[joint].joint = true;
    }
    if (skin.skeleton < uses.size()) uses[skin.skeleton].joint = true;
  }
  for (const Animation& animation : asset.animations) {
    for (const AnimationChannel& channel : animation.channels) {
      if (channel.pointer.target == PointerTarget::kNodeWeights ||
          channel.pointer.target == PointerTarget::kNodeWeight) {
        if (channel.pointer.index < uses.size()) uses[channel.pointer.index].pointer_weights = true;
      } else if (channel.pointer.target == PointerTarget::kOther && channel.pointer.text.rfind("/nodes/", 0) == 0) {
        const std::string rest = channel.pointer.text.substr(7);
        const size_t end = rest.find('/');
        const std::string index = rest.substr(0, end);
        if (!index.empty() && std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
            index.size() < 10) {
          const uint32_t node = uint32_t(std::stoul(index));
          if (node < uses.size()) uses[node].animated_transform = true;
        }
      } else if (channel.node < uses.size() && channel.path != TargetPath::kWeights) {
        uses[channel.node].animated_transform = true;
      }
    }
  }
  return uses;
}

bool hasPosition(const Mesh& mesh) {
  return std::all_of(mesh.primitives.begin(), mesh.primitives.end(), [](const Primitive& primitive) {
    return findAttribute(primitive.attributes, "POSITION") != kNone;
  });
}

// A new node under `parent` that takes its mesh, morph weights and weight channels, first among its children so the
// scene's pre-order walk reaches the mesh where it did.
uint32_t moveMeshToChild(Asset& asset, uint32_t parent) {
  Node child;
  child.name = asset.nodes[parent].name;
  child.mesh = asset.nodes[parent].mesh;
  child.weights = std::move(asset.nodes[parent].weights);
  asset.nodes[parent].weights.clear();
  asset.nodes[parent].mesh = kNone;
  asset.nodes.push_back(std::move(child));
  const uint32_t index = uint32_t(asset.nodes.size() - 1);
  std::vector<uint32_t>& children = asset.nodes[parent].children;
  children.insert(children.begin(), index);
  for (Animation& animation : asset.animations) {
    for (AnimationChannel& channel : animation.channels) {
      if (channel.node == parent && channel.path == TargetPath::kWeights) channel.node = index;
    }
  }
  return index;
}

bool foldable(const Node& node, const NodeUse& use, bool node_extensions) {
  return node.children.empty() && node.camera == kNone && !use.joint && !use.animated_transform && !node_extensions;
}

}  // namespace

void planNodeDequantization(PassDocument& document, const OptimizeOptions& options, OptimizePassReport& report) {
  Asset& asset = document.asset;
  const std::vector<NodeUse> uses = nodeUses(asset);
  const bool node_extensions = nodeExtensionsPossible(asset);
  // VRM's expressions and first-person annotations name the node that draws a mesh: it must keep drawing it.
  const bool meshes_named_by_node = !asset.vrm.version.empty();
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    std::vector<uint32_t> users;
    bool skinned = false;
    for (uint32_t n = 0; n < asset.nodes.size(); ++n) {
      if (asset.nodes[n].mesh != m) continue;
      users.push_back(n);
      skinned = skinned || asset.nodes[n].skin != kNone;
    }
    if (users.empty() || skinned || !hasPosition(asset.meshes[m])) continue;
    std::string label = "meshes[" + std::to_string(m) + "]";
    if (!asset.meshes[m].name.empty()) label += " '" + asset.meshes[m].name + "'";
    // Every node that draws the mesh must carry D, or none does.
    std::string refused;
    for (uint32_t p = 0; p < asset.meshes[m].primitives.size(); ++p) {
      if (positionDeltaMissingSomewhere(asset.meshes[m].primitives[p])) {
        refused = "primitives[" + std::to_string(p) +
                  "] has targets without POSITION, which three.js moves by the stored base position";
      }
    }
    for (uint32_t n : users) {
      if (foldable(asset.nodes[n], uses[n], node_extensions) || !refused.empty()) continue;
      if (options.keep_nodes) refused = "nodes[" + std::to_string(n) + "] would need a new child node (--keep-nodes)";
      if (uses[n].pointer_weights || meshes_named_by_node) {
        refused = "nodes[" + std::to_string(n) + "] cannot carry it and a pointer or VRM names it as the mesh's node";
      }
    }
    if (!refused.empty()) {
      report.changes.push_back(label + ": positions kept on normalized grids: " + refused);
      continue;
    }
    std::vector<uint32_t> carriers;
    std::string how;
    for (uint32_t n : users) {
      if (foldable(asset.nodes[n], uses[n], node_extensions)) {
        carriers.push_back(n);
        how += " nodes[" + std::to_string(n) + "] (its transform)";
      } else {
        const uint32_t child = moveMeshToChild(asset, n);
        carriers.push_back(child);
        how += " nodes[" + std::to_string(child) + "] (a new child of nodes[" + std::to_string(n) + "])";
      }
    }
    report.changes.push_back(label + ": positions dequantized by" + how);
    document.mesh_carriers[m] = std::move(carriers);
  }
}

}  // namespace morphkit::optimize_detail
