// SPDX-License-Identifier: MIT
// The one validation pass over cross-object invariants (cgltf/glTF-Validator style). Runs after buffers are
// resolved; once it passes, every index is in range and every accessor read stays inside its buffer.
// Each message cites the glTF 2.0 section whose rule it enforces.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "morphkit/gltf/gltf.h"
#include "morphkit/model/accessor.h"
#include "morphkit/model/text.h"
#include "validate_internal.h"

namespace morphkit {

using namespace validate_detail;

namespace {

// §3.6.2.4: "each element of a vertex attribute MUST be aligned to 4-byte boundaries inside a bufferView (i.e.,
// accessor.byteOffset and bufferView.byteStride MUST be multiples of 4)". Without a byteStride the elements are
// packed at their own size, which must then be a multiple of 4 too (a tightly packed u8 VEC3 is not aligned).
Status checkVertexAlignment(const Asset& asset, uint32_t index, const std::string& where) {
  const Accessor& a = asset.accessors[index];
  if (a.buffer_view == kNone) return Ok{};
  const BufferView& view = asset.buffer_views[a.buffer_view];
  const size_t stride = view.byte_stride ? view.byte_stride : elementSize(a.component_type, a.type);
  if (a.byte_offset % 4 != 0) {
    return invalid(
        where, "accessor " + std::to_string(index) + " byteOffset " + std::to_string(a.byte_offset) +
                   " is not a multiple of 4 (glTF 2.0 §3.6.2.4: vertex attribute elements MUST be aligned to 4 bytes)");
  }
  if (stride % 4 != 0) {
    return invalid(where, "accessor " + std::to_string(index) + " elements are " + std::to_string(stride) +
                              " bytes apart (bufferView " + std::to_string(a.buffer_view) +
                              " has no byteStride), not a multiple of 4 (glTF 2.0 §3.6.2.4: vertex attribute elements "
                              "MUST be aligned to 4 bytes; give the bufferView a byteStride)");
  }
  return Ok{};
}

// Largest of `components` values of type T in each of `count` elements `stride` bytes apart: typed loops that the
// compiler vectorizes (the generic readAccessorUints decodes every component through a switch into a new vector).
template <class T>
uint32_t maxOf(const uint8_t* base, size_t stride, size_t count, size_t components) {
  if (stride == sizeof(T) * components) {  // tightly packed: one run
    components *= count;
    count = 1;
  }
  uint32_t largest = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* element = base + i * stride;
    for (size_t c = 0; c < components; ++c) {
      T v;
      std::memcpy(&v, element + c * sizeof(T), sizeof(T));
      largest = std::max(largest, uint32_t(v));
    }
  }
  return largest;
}

// Largest integer component of an accessor: dense unsigned SCALAR..VEC4 data directly from its bytes, anything
// else (sparse, no bufferView, matrices with column padding) through readAccessorUints.
uint32_t maxComponent(const Asset& asset, uint32_t index) {
  const Accessor& a = asset.accessors[index];
  const bool direct = a.buffer_view != kNone && !a.has_sparse && componentCount(a.type) <= 4;
  if (direct) {
    const BufferView& view = asset.buffer_views[a.buffer_view];
    const uint8_t* base = asset.buffers[view.buffer].data.data() + view.byte_offset + a.byte_offset;
    const size_t components = componentCount(a.type);
    const size_t stride = view.byte_stride ? view.byte_stride : elementSize(a.component_type, a.type);
    switch (a.component_type) {
      case ComponentType::kUnsignedByte:
        return maxOf<uint8_t>(base, stride, a.count, components);
      case ComponentType::kUnsignedShort:
        return maxOf<uint16_t>(base, stride, a.count, components);
      case ComponentType::kUnsignedInt:
        return maxOf<uint32_t>(base, stride, a.count, components);
      default:
        break;
    }
  }
  uint32_t largest = 0;
  for (uint32_t v : readAccessorUints(asset, index)) largest = std::max(largest, v);
  return largest;
}

// Per-accessor facts that several rules need, computed at most once per accessor: a file with many
// primitives, nodes or samplers sharing one large accessor must not be re-read for each of them.
class AccessorCache {
 public:
  explicit AccessorCache(const Asset& asset)
      : asset_(asset), max_value_(asset.accessors.size()), times_(asset.accessors.size()) {}

  // Largest integer component (indices, JOINTS_n).
  uint32_t maxValue(uint32_t accessor) {
    auto& slot = max_value_[accessor];
    if (!slot.known) {
      slot.value = maxComponent(asset_, accessor);
      slot.known = true;
    }
    return slot.value;
  }

  // Key-time rule of §3.11 (time[0] >= 0, strictly increasing); an empty message when it holds.
  const std::string& keyTimeProblem(uint32_t accessor) {
    auto& slot = times_[accessor];
    if (!slot.known) {
      slot.known = true;
      std::vector<float> times = readAccessorFloats(asset_, accessor);
      for (size_t k = 0; k < times.size(); ++k) {
        if (!(times[k] >= 0.0f)) {
          slot.problem = "key time " + std::to_string(times[k]) + " at " + std::to_string(k) +
                         " is negative or NaN (glTF 2.0 §5.8: time[0] >= 0)";
          break;
        }
        if (k > 0 && !(times[k] > times[k - 1])) {
          slot.problem = "key times must be strictly increasing; key " + std::to_string(k) + " (" +
                         std::to_string(times[k]) + ") is not after key " + std::to_string(k - 1) + " (glTF 2.0 §5.8)";
          break;
        }
      }
    }
    return slot.problem;
  }

 private:
  struct MaxSlot {
    bool known = false;
    uint32_t value = 0;
  };
  struct TimeSlot {
    bool known = false;
    std::string problem;
  };
  const Asset& asset_;
  std::vector<MaxSlot> max_value_;
  std::vector<TimeSlot> times_;
};

// §3.7.2.1: the largest value of the index component type is reserved (primitive restart).
uint32_t restartValue(ComponentType type) {
  switch (type) {
    case ComponentType::kUnsignedByte:
      return 0xFFu;
    case ComponentType::kUnsignedShort:
      return 0xFFFFu;
    default:
      return 0xFFFFFFFFu;
  }
}

Status validateMeshes(const Asset& asset, AccessorCache& cache) {
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const Mesh& mesh = asset.meshes[m];
    std::string mesh_where = at("meshes", m);
    if (mesh.primitives.empty()) return invalid(mesh_where + ".primitives", "must not be empty (glTF 2.0 §5.23)");
    size_t targets = mesh.primitives[0].targets.size();
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& primitive = mesh.primitives[p];
      std::string where = mesh_where + ".primitives[" + std::to_string(p) + "]";
      if (primitive.attributes.empty()) return invalid(where + ".attributes", "must not be empty (glTF 2.0 §5.24)");
      if (uint32_t(primitive.mode) > uint32_t(PrimitiveMode::kTriangleFan)) {
        return invalid(where + ".mode", "must be 0..6 (glTF 2.0 §5.24)");
      }
      uint32_t vertex_count = kNone;
      for (const Attribute& attribute : primitive.attributes) {
        std::string here = where + ".attributes." + printable(attribute.name);
        VALIDATE_TRY(checkRequiredIndex(attribute.accessor, asset.accessors.size(), here, "accessor"));
        VALIDATE_TRY(checkAttributeFormat(asset, attribute.name, attribute.accessor, false, here));
        VALIDATE_TRY(checkVertexAlignment(asset, attribute.accessor, here));
        uint32_t count = asset.accessors[attribute.accessor].count;
        if (vertex_count == kNone) vertex_count = count;
        if (count != vertex_count) {
          return invalid(here, "count " + std::to_string(count) + " differs from the other attributes' " +
                                   std::to_string(vertex_count) +
                                   " (glTF 2.0 §3.7.2.1: all attributes MUST have the same count)");
        }
      }
      VALIDATE_TRY(checkIndex(primitive.material, asset.materials.size(), where + ".material", "material"));
      if (primitive.indices != kNone) {
        VALIDATE_TRY(checkIndex(primitive.indices, asset.accessors.size(), where + ".indices", "accessor"));
        const Accessor& indices = asset.accessors[primitive.indices];
        if (indices.type != AccessorType::kScalar ||
            (indices.component_type != ComponentType::kUnsignedByte &&
             indices.component_type != ComponentType::kUnsignedShort &&
             indices.component_type != ComponentType::kUnsignedInt) ||
            indices.normalized) {
          return invalid(where + ".indices", "must be a SCALAR unsigned byte/short/int accessor (glTF 2.0 §3.7.2.1)");
        }
        uint32_t largest = cache.maxValue(primitive.indices);
        if (largest == restartValue(indices.component_type)) {
          return invalid(where + ".indices",
                         "contains " + std::to_string(largest) +
                             ", the primitive restart value of its component type (glTF 2.0 §3.7.2.1: MUST NOT)");
        }
        if (largest >= vertex_count) {
          return invalid(where + ".indices", "index " + std::to_string(largest) + " is >= the vertex count " +
                                                 std::to_string(vertex_count) + " (glTF 2.0 §3.7.2.1)");
        }
      }
      if (primitive.targets.size() != targets) {
        return invalid(where + ".targets",
                       "has " + std::to_string(primitive.targets.size()) + " morph targets but primitive 0 has " +
                           std::to_string(targets) +
                           " (glTF 2.0 §3.7.2.2: all primitives MUST have the same number of targets)");
      }
      for (size_t t = 0; t < primitive.targets.size(); ++t) {
        if (primitive.targets[t].attributes.empty()) {
          return invalid(where + ".targets[" + std::to_string(t) + "]",
                         "has no attributes (glTF 2.0 mesh.primitive schema: a morph target has at least one)");
        }
        for (const Attribute& attribute : primitive.targets[t].attributes) {
          std::string here = where + ".targets[" + std::to_string(t) + "]." + printable(attribute.name);
          VALIDATE_TRY(checkRequiredIndex(attribute.accessor, asset.accessors.size(), here, "accessor"));
          VALIDATE_TRY(checkAttributeFormat(asset, attribute.name, attribute.accessor, true, here));
          VALIDATE_TRY(checkVertexAlignment(asset, attribute.accessor, here));
          uint32_t count = asset.accessors[attribute.accessor].count;
          if (count != vertex_count) {
            return invalid(here, "count " + std::to_string(count) + " differs from the primitive's vertex count " +
                                     std::to_string(vertex_count) + " (glTF 2.0 §3.7.2.2)");
          }
        }
      }
    }
    if (!mesh.weights.empty() && mesh.weights.size() != targets) {
      return invalid(mesh_where + ".weights", "has " + std::to_string(mesh.weights.size()) + " weights for " +
                                                  std::to_string(targets) +
                                                  " morph targets (glTF 2.0 §5.23: one per target)");
    }
  }
  return Ok{};
}

// §3.5.2: the node hierarchy MUST be a set of disjoint strict trees: no node with two parents, no cycles.
// Iterative (no recursion), linear in the number of nodes: a 100k-deep chain is fine.
Status validateNodeForest(const Asset& asset) {
  std::vector<uint32_t> parent(asset.nodes.size(), kNone);
  for (size_t n = 0; n < asset.nodes.size(); ++n) {
    for (uint32_t child : asset.nodes[n].children) {
      VALIDATE_TRY(checkRequiredIndex(child, asset.nodes.size(), at("nodes", n) + ".children", "node"));
      if (child == n)
        return invalid(at("nodes", n) + ".children", "node is its own child (glTF 2.0 §3.5.2: no cycles)");
      if (parent[child] != kNone) {
        return invalid(at("nodes", child),
                       "has two parents, nodes " + std::to_string(parent[child]) + " and " + std::to_string(n) +
                           " (glTF 2.0 §3.5.2: the hierarchy MUST be a set of disjoint strict trees)");
      }
      parent[child] = uint32_t(n);
    }
  }
  // With single parents, a cycle is a parent chain that never reaches a root; walk with visit marks.
  std::vector<uint8_t> state(asset.nodes.size(), 0);  // 0 unseen, 1 on current chain, 2 reaches a root
  std::vector<uint32_t> chain;
  for (size_t start = 0; start < asset.nodes.size(); ++start) {
    chain.clear();
    uint32_t n = uint32_t(start);
    while (n != kNone && state[n] == 0) {
      state[n] = 1;
      chain.push_back(n);
      n = parent[n];
    }
    if (n != kNone && state[n] == 1) {
      return invalid(at("nodes", n), "is part of a cycle in the node hierarchy (glTF 2.0 §3.5.2: no cycles)");
    }
    for (uint32_t c : chain) state[c] = 2;
  }
  for (size_t s = 0; s < asset.scenes.size(); ++s) {
    for (uint32_t root : asset.scenes[s].nodes) {
      VALIDATE_TRY(checkRequiredIndex(root, asset.nodes.size(), at("scenes", s) + ".nodes", "node"));
      if (parent[root] != kNone) {
        return invalid(
            at("scenes", s) + ".nodes",
            "node " + std::to_string(root) + " is not a root node (glTF 2.0 §3.5.1: scene.nodes lists root nodes)");
      }
    }
  }
  return checkIndex(asset.scene, asset.scenes.size(), "scene", "scene");
}

Status validateNodes(const Asset& asset) {
  for (size_t n = 0; n < asset.nodes.size(); ++n) {
    const Node& node = asset.nodes[n];
    std::string where = at("nodes", n);
    VALIDATE_TRY(checkIndex(node.mesh, asset.meshes.size(), where + ".mesh", "mesh"));
    VALIDATE_TRY(checkIndex(node.skin, asset.skins.size(), where + ".skin", "skin"));
    VALIDATE_TRY(checkIndex(node.camera, asset.cameras.size(), where + ".camera", "camera"));
    if (node.skin != kNone && node.mesh == kNone) return invalid(where + ".skin", "requires a mesh (glTF 2.0 §5.25)");
    if (!node.weights.empty()) {
      if (node.mesh == kNone) return invalid(where + ".weights", "requires a mesh (glTF 2.0 §5.25)");
      uint32_t targets = targetCount(asset.meshes[node.mesh]);
      if (node.weights.size() != targets) {
        return invalid(where + ".weights", "has " + std::to_string(node.weights.size()) + " weights for mesh " +
                                               std::to_string(node.mesh) + " with " + std::to_string(targets) +
                                               " morph targets (glTF 2.0 §5.25: one per target)");
      }
    }
  }
  return validateNodeForest(asset);
}

Status validateSkins(const Asset& asset, AccessorCache& cache) {
  for (size_t s = 0; s < asset.skins.size(); ++s) {
    const Skin& skin = asset.skins[s];
    std::string where = at("skins", s);
    if (skin.joints.empty()) return invalid(where + ".joints", "must not be empty (glTF 2.0 §5.28)");
    for (uint32_t joint : skin.joints)
      VALIDATE_TRY(checkRequiredIndex(joint, asset.nodes.size(), where + ".joints", "node"));
    VALIDATE_TRY(checkIndex(skin.skeleton, asset.nodes.size(), where + ".skeleton", "node"));
    if (skin.inverse_bind_matrices != kNone) {
      VALIDATE_TRY(
          checkIndex(skin.inverse_bind_matrices, asset.accessors.size(), where + ".inverseBindMatrices", "accessor"));
      const Accessor& ibm = asset.accessors[skin.inverse_bind_matrices];
      if (ibm.type != AccessorType::kMat4 || ibm.component_type != ComponentType::kFloat) {
        return invalid(where + ".inverseBindMatrices", "must be a MAT4 FLOAT accessor (glTF 2.0 §5.28)");
      }
      if (ibm.count < skin.joints.size()) {
        return invalid(where + ".inverseBindMatrices",
                       "has " + std::to_string(ibm.count) + " matrices for " + std::to_string(skin.joints.size()) +
                           " joints (glTF 2.0 §5.28: count MUST be >= the number of joints)");
      }
    }
  }
  // Skinned primitives: JOINTS_0 and WEIGHTS_0 present; JOINTS_n values index skin.joints (§3.7.3.3).
  for (size_t n = 0; n < asset.nodes.size(); ++n) {
    const Node& node = asset.nodes[n];
    if (node.skin == kNone) continue;
    size_t joints = asset.skins[node.skin].joints.size();
    const std::vector<Primitive>& primitives = asset.meshes[node.mesh].primitives;
    for (size_t p = 0; p < primitives.size(); ++p) {
      for (const char* name : {"JOINTS_0", "WEIGHTS_0"}) {
        if (findAttribute(primitives[p].attributes, name) == kNone) {
          return invalid(at("nodes", n), "has skin " + std::to_string(node.skin) + " but meshes[" +
                                             std::to_string(node.mesh) + "].primitives[" + std::to_string(p) +
                                             "] has no " + name +
                                             " (glTF 2.0 §3.7.3.3: a skinned mesh MUST have JOINTS_0 and WEIGHTS_0)");
        }
      }
    }
    for (const Primitive& primitive : primitives) {
      for (const Attribute& attribute : primitive.attributes) {
        if (attribute.name.rfind("JOINTS_", 0) != 0) continue;
        uint32_t joint = cache.maxValue(attribute.accessor);
        if (joint >= joints) {
          return invalid(at("nodes", n), "mesh " + std::to_string(node.mesh) + " " + printable(attribute.name) +
                                             " uses joint " + std::to_string(joint) + " but skin " +
                                             std::to_string(node.skin) + " has " + std::to_string(joints) +
                                             " joints (glTF 2.0 §3.7.3.3)");
        }
      }
    }
  }
  return Ok{};
}

// §3.11 output formats: translation/scale float; rotation/weights float or normalized 8/16-bit integers.
// KHR_mesh_quantization widens translation/scale to 8/16-bit integers (normalized or not).
bool outputFormatOk(const Asset& asset, const Accessor& output, TargetPath path) {
  ComponentType c = output.component_type;
  if (c == ComponentType::kFloat) return true;
  bool small_int = c == ComponentType::kByte || c == ComponentType::kUnsignedByte || c == ComponentType::kShort ||
                   c == ComponentType::kUnsignedShort;
  if (path == TargetPath::kRotation || path == TargetPath::kWeights) return small_int && output.normalized;
  return small_int && hasExtension(asset, "KHR_mesh_quantization");
}

Status validateAnimations(const Asset& asset, AccessorCache& cache) {
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    const Animation& animation = asset.animations[a];
    std::string anim_where = at("animations", a);
    if (animation.channels.empty()) return invalid(anim_where + ".channels", "must not be empty (glTF 2.0 §5.5)");
    if (animation.samplers.empty()) return invalid(anim_where + ".samplers", "must not be empty (glTF 2.0 §5.5)");
    for (size_t s = 0; s < animation.samplers.size(); ++s) {
      const AnimationSampler& sampler = animation.samplers[s];
      std::string where = anim_where + ".samplers[" + std::to_string(s) + "]";
      VALIDATE_TRY(checkRequiredIndex(sampler.input, asset.accessors.size(), where + ".input", "accessor"));
      VALIDATE_TRY(checkRequiredIndex(sampler.output, asset.accessors.size(), where + ".output", "accessor"));
      const Accessor& input = asset.accessors[sampler.input];
      if (input.type != AccessorType::kScalar || input.component_type != ComponentType::kFloat) {
        return invalid(where + ".input", "must be a SCALAR FLOAT accessor (glTF 2.0 §5.8)");
      }
      const std::string& problem = cache.keyTimeProblem(sampler.input);
      if (!problem.empty()) return invalid(where + ".input", problem);
      if (sampler.interpolation == Interpolation::kCubicSpline && input.count < 2) {
        return invalid(where, "CUBICSPLINE needs at least 2 keys (glTF 2.0 Appendix C)");
      }
    }
    std::unordered_set<uint64_t> targeted;  // (node, path) pairs: hashed, so many channels stay linear
    for (size_t c = 0; c < animation.channels.size(); ++c) {
      const AnimationChannel& channel = animation.channels[c];
      std::string where = anim_where + ".channels[" + std::to_string(c) + "]";
      VALIDATE_TRY(checkRequiredIndex(channel.sampler, animation.samplers.size(), where + ".sampler", "sampler"));
      VALIDATE_TRY(checkIndex(channel.node, asset.nodes.size(), where + ".target.node", "node"));
      if (channel.node == kNone) continue;  // §3.11: a channel without a node is ignored
      if (!targeted.insert(uint64_t(channel.node) << 8 | uint64_t(channel.path)).second) {
        return invalid(where + ".target",
                       "node " + std::to_string(channel.node) +
                           " and path are already targeted in this animation (glTF 2.0 §3.11: MUST NOT)");
      }
      const AnimationSampler& sampler = animation.samplers[channel.sampler];
      const Accessor& input = asset.accessors[sampler.input];
      const Accessor& output = asset.accessors[sampler.output];
      size_t per_key = 1;
      AccessorType expected = AccessorType::kVec3;
      if (channel.path == TargetPath::kRotation) expected = AccessorType::kVec4;
      if (channel.path == TargetPath::kWeights) {
        expected = AccessorType::kScalar;
        uint32_t mesh = asset.nodes[channel.node].mesh;
        if (mesh == kNone || targetCount(asset.meshes[mesh]) == 0) {
          return invalid(where + ".target", "animates weights of node " + std::to_string(channel.node) +
                                                ", which has no mesh with morph targets (glTF 2.0 §3.11: MUST NOT)");
        }
        per_key = targetCount(asset.meshes[mesh]);
      }
      if (output.type != expected) {
        return invalid(where, std::string("sampler output is ") + accessorTypeName(output.type) +
                                  " but the path needs " + accessorTypeName(expected) + " (glTF 2.0 §3.11)");
      }
      if (!outputFormatOk(asset, output, channel.path)) {
        return invalid(where, std::string("sampler output is ") + componentTypeName(output.component_type) +
                                  (output.normalized ? " normalized" : "") +
                                  ", not a component type this path allows (glTF 2.0 §3.11, KHR_mesh_quantization)");
      }
      if (sampler.interpolation == Interpolation::kCubicSpline) per_key *= 3;
      if (size_t(output.count) != size_t(input.count) * per_key) {
        return invalid(where, "sampler " + std::to_string(channel.sampler) + " output count " +
                                  std::to_string(output.count) + " != input count " + std::to_string(input.count) +
                                  " x " + std::to_string(per_key) +
                                  " (glTF 2.0 §3.11: x3 for CUBICSPLINE, x targets for weights)");
      }
    }
  }
  return Ok{};
}

Status validateMaterials(const Asset& asset) {
  for (size_t m = 0; m < asset.materials.size(); ++m) {
    const Material& material = asset.materials[m];
    std::string where = at("materials", m);
    const std::pair<const TextureRef*, const char*> refs[] = {
        {&material.base_color_texture, ".pbrMetallicRoughness.baseColorTexture"},
        {&material.metallic_roughness_texture, ".pbrMetallicRoughness.metallicRoughnessTexture"},
        {&material.normal_texture, ".normalTexture"},
        {&material.occlusion_texture, ".occlusionTexture"},
        {&material.emissive_texture, ".emissiveTexture"},
        {&material.specular.texture, ".extensions.KHR_materials_specular.specularTexture"},
        {&material.specular.color_texture, ".extensions.KHR_materials_specular.specularColorTexture"},
        {&material.clearcoat.texture, ".extensions.KHR_materials_clearcoat.clearcoatTexture"},
        {&material.clearcoat.roughness_texture, ".extensions.KHR_materials_clearcoat.clearcoatRoughnessTexture"},
        {&material.clearcoat.normal_texture, ".extensions.KHR_materials_clearcoat.clearcoatNormalTexture"},
        {&material.sheen.color_texture, ".extensions.KHR_materials_sheen.sheenColorTexture"},
        {&material.sheen.roughness_texture, ".extensions.KHR_materials_sheen.sheenRoughnessTexture"}};
    for (const auto& [ref, name] : refs)
      VALIDATE_TRY(checkIndex(ref->texture, asset.textures.size(), where + name + ".index", "texture"));
  }
  for (size_t t = 0; t < asset.textures.size(); ++t) {
    VALIDATE_TRY(
        checkIndex(asset.textures[t].sampler, asset.samplers.size(), at("textures", t) + ".sampler", "sampler"));
    VALIDATE_TRY(checkIndex(asset.textures[t].source, asset.images.size(), at("textures", t) + ".source", "image"));
    VALIDATE_TRY(checkIndex(asset.textures[t].basisu_source, asset.images.size(),
                            at("textures", t) + ".extensions.KHR_texture_basisu.source", "image"));
    VALIDATE_TRY(checkIndex(asset.textures[t].webp_source, asset.images.size(),
                            at("textures", t) + ".extensions.EXT_texture_webp.source", "image"));
  }
  for (size_t i = 0; i < asset.images.size(); ++i) {
    const Image& image = asset.images[i];
    VALIDATE_TRY(
        checkIndex(image.buffer_view, asset.buffer_views.size(), at("images", i) + ".bufferView", "bufferView"));
    if ((image.buffer_view == kNone) == image.uri.empty()) {
      return invalid(at("images", i), "must have exactly one of uri and bufferView (glTF 2.0 §5.18)");
    }
  }
  return Ok{};
}

#undef TRY

}  // namespace

Status validateAsset(const Asset& asset, const Budget& budget) {
  for (size_t b = 0; b < asset.buffers.size(); ++b) {
    if (asset.buffers[b].data.size() < asset.buffers[b].byte_length) {
      return fail(Error::kInvalidGltf, at("buffers", b) + ": holds " + std::to_string(asset.buffers[b].data.size()) +
                                           " bytes, fewer than its byteLength " +
                                           std::to_string(asset.buffers[b].byte_length));
    }
  }
  // Order matters: each step may rely on the references the steps before it checked.
  if (Status status = validateBufferViews(asset); !status) return status;
  if (Status status = validateAccessors(asset); !status) return status;
  // What decoding and posing will cost, from the structure alone (morphkit/model/budget.h): before any rule below
  // reads accessor data, so that nothing large is read or decoded for a file over budget.
  if (Status status = checkBudget(estimateCost(asset), budget); !status) return status;
  if (Status status = validateAccessorData(asset); !status) return status;
  AccessorCache cache(asset);
  if (Status status = validateMeshes(asset, cache); !status) return status;
  if (Status status = validateNodes(asset); !status) return status;
  if (Status status = validateSkins(asset, cache); !status) return status;
  if (Status status = validateAnimations(asset, cache); !status) return status;
  if (Status status = validateAnimationPointers(asset); !status) return status;
  if (Status status = validateVrmExpressions(asset); !status) return status;
  if (Status status = validateMaterials(asset); !status) return status;
  return Ok{};
}

namespace validate_detail {

// §3.11: a channel without target.node is ignored; so is a sampler that no remaining channel uses (one used only
// by KHR_animation_pointer channels, or by nothing). Say so instead of checking it against a path it lacks.
void noteIgnoredSamplers(Asset& asset) {
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    const Animation& animation = asset.animations[a];
    std::vector<uint8_t> used(animation.samplers.size(), 0);
    for (const AnimationChannel& channel : animation.channels) {
      if (channelPlays(channel) && channel.sampler < used.size()) used[channel.sampler] = 1;
    }
    for (size_t s = 0; s < used.size(); ++s) {
      if (used[s]) continue;
      asset.notes.push_back("animations[" + std::to_string(a) + "].samplers[" + std::to_string(s) +
                            "]: no channel morphkit animates uses it; ignored");
    }
  }
}

}  // namespace validate_detail

}  // namespace morphkit
