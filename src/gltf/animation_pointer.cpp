// SPDX-License-Identifier: MIT
// animation_pointer.cpp — KHR_animation_pointer channels (extensions/2.0/Khronos/KHR_animation_pointer): the
// pointer's syntax (RFC 6901) and the extension's rules for the morph-weight pointers morphkit plays.
#include "animation_pointer.h"

#include <unordered_set>
#include <vector>

#include "morphkit/gltf/animation_pointer.h"
#include "validate_internal.h"

namespace morphkit {

namespace gltf_detail {

namespace {

constexpr const char* kExtension = "KHR_animation_pointer";

// RFC 6901 §4: "~1" is '/', "~0" is '~'.
std::string unescapeToken(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

// RFC 6901 §4 array index: "0" or digits without a leading zero; kNone when not one (or too large).
uint32_t arrayIndex(const std::string& token) {
  if (token.empty() || token.size() > 10 || (token.size() > 1 && token[0] == '0')) return kNone;
  uint64_t value = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return kNone;
    value = value * 10 + uint64_t(c - '0');
  }
  return value < kNone ? uint32_t(value) : kNone;
}

}  // namespace

AnimationPointer classifyPointer(std::string text) {
  AnimationPointer pointer;
  pointer.target = PointerTarget::kOther;
  std::vector<std::string> tokens;
  if (!text.empty() && text[0] == '/') {
    size_t start = 1;
    while (true) {
      const size_t slash = text.find('/', start);
      tokens.push_back(unescapeToken(std::string_view(text).substr(start, slash - start)));
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
  }
  pointer.text = std::move(text);
  const bool weights = tokens.size() >= 3 && tokens[2] == "weights";
  if (weights && tokens[0] == "nodes" && tokens.size() == 3) {
    pointer.target = PointerTarget::kNodeWeights;
  } else if (weights && tokens[0] == "nodes" && tokens.size() == 4) {
    pointer.target = PointerTarget::kNodeWeight;
    pointer.element = arrayIndex(tokens[3]);
  } else if (weights && tokens[0] == "meshes" && tokens.size() == 3) {
    pointer.target = PointerTarget::kMeshWeights;
  } else {
    return pointer;
  }
  pointer.index = arrayIndex(tokens[1]);
  return pointer;
}

Status parseAnimationPointer(object target, const std::string& where, AnimationChannel& channel) {
  element e;
  object extensions, extension;
  if (target.at_key("extensions").get(e) != simdjson::SUCCESS) return Ok{};
  if (e.get_object().get(extensions) != simdjson::SUCCESS)
    return fieldError(kGltfError, where, "extensions", "must be an object");
  if (extensions.at_key(kExtension).get(e) != simdjson::SUCCESS) return Ok{};
  const std::string here = where + ".extensions." + kExtension;
  if (e.get_object().get(extension) != simdjson::SUCCESS)
    return fail(Error::kInvalidGltf, here + ": must be an object");
  std::string text;
  MORPHKIT_TRY(readString(kGltfError, extension, "pointer", text, here, true));
  channel.pointer = classifyPointer(std::move(text));
  if (channelPlays(channel)) channel.path = TargetPath::kWeights;
  return Ok{};
}

}  // namespace gltf_detail

namespace validate_detail {

namespace {

// How many weights one morph-weight pointer animates (the mesh's target count, or 1 for one element).
Expected<uint32_t> pointerWeights(const Asset& asset, const AnimationPointer& pointer, const std::string& where) {
  const bool on_mesh = pointer.target == PointerTarget::kMeshWeights;
  const char* kind = on_mesh ? "mesh" : "node";
  const size_t count = on_mesh ? asset.meshes.size() : asset.nodes.size();
  if (pointer.index == kNone) return invalid(where, std::string("names no ") + kind + " (not an RFC 6901 array index)");
  if (pointer.index >= count) {
    return invalid(where, std::string(kind) + " " + std::to_string(pointer.index) + " is out of range (" +
                              std::to_string(count) +
                              " exist; KHR_animation_pointer: the pointer MUST point to a "
                              "property defined in the asset)");
  }
  const uint32_t mesh = on_mesh ? pointer.index : asset.nodes[pointer.index].mesh;
  const uint32_t targets = mesh == kNone ? 0 : targetCount(asset.meshes[mesh]);
  if (targets == 0) {
    return invalid(
        where, on_mesh ? "mesh " + std::to_string(mesh) + " has no morph targets, so no weights"
                       : "node " + std::to_string(pointer.index) + " has no mesh with morph targets, so no weights");
  }
  if (pointer.target != PointerTarget::kNodeWeight) return targets;
  if (pointer.element == kNone) return invalid(where, "names no weight (not an RFC 6901 array index)");
  if (pointer.element >= targets) {
    return invalid(where, "weight " + std::to_string(pointer.element) + " is out of range (the mesh has " +
                              std::to_string(targets) + " morph targets)");
  }
  return 1u;
}

// §3.11 and the extension's "Output Accessor Component Types": SCALAR; float, integer or normalized integer
// values (readAccessorFloats converts each as the extension says), input count × weights (× 3 for CUBICSPLINE).
Status checkPointerOutput(const Asset& asset, const AnimationSampler& sampler, uint32_t weights,
                          const std::string& where) {
  const Accessor& input = asset.accessors[sampler.input];
  const Accessor& output = asset.accessors[sampler.output];
  if (output.type != AccessorType::kScalar) {
    return invalid(where, std::string("sampler output is ") + accessorTypeName(output.type) +
                              " but weights need SCALAR (KHR_animation_pointer: float[] is SCALAR)");
  }
  const size_t per_key = size_t(weights) * (sampler.interpolation == Interpolation::kCubicSpline ? 3 : 1);
  if (size_t(output.count) != size_t(input.count) * per_key) {
    return invalid(where, "sampler output count " + std::to_string(output.count) + " != input count " +
                              std::to_string(input.count) + " x " + std::to_string(per_key) +
                              " (glTF 2.0 §3.11: x3 for CUBICSPLINE, x the weights the pointer names)");
  }
  return Ok{};
}

}  // namespace

Status validateAnimationPointers(const Asset& asset) {
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    const Animation& animation = asset.animations[a];
    // The extension's "MUST NOT be targeted more than once": whole arrays, single elements, core weights.
    std::unordered_set<uint64_t> whole_node, element_node, meshes, elements;
    for (const AnimationChannel& channel : animation.channels) {
      if (channel.node != kNone && channel.path == TargetPath::kWeights) whole_node.insert(channel.node);
    }
    for (size_t c = 0; c < animation.channels.size(); ++c) {
      const AnimationChannel& channel = animation.channels[c];
      if (channel.node != kNone || !channelPlays(channel)) continue;
      const AnimationPointer& pointer = channel.pointer;
      const std::string where =
          at("animations", a) + ".channels[" + std::to_string(c) + "]: pointer " + quote(pointer.text);
      Expected<uint32_t> weights = pointerWeights(asset, pointer, where);
      if (!weights) return weights.error();
      VALIDATE_TRY(checkPointerOutput(asset, animation.samplers[channel.sampler], *weights, where));
      bool unique = true;
      if (pointer.target == PointerTarget::kMeshWeights) {
        unique = meshes.insert(pointer.index).second;
      } else if (pointer.target == PointerTarget::kNodeWeights) {
        unique = !element_node.count(pointer.index) && whole_node.insert(pointer.index).second;
      } else {
        unique =
            !whole_node.count(pointer.index) && elements.insert(uint64_t(pointer.index) << 32 | pointer.element).second;
        element_node.insert(pointer.index);
      }
      if (!unique) {
        return invalid(where,
                       "targets weights another channel of this animation targets (KHR_animation_pointer: "
                       "the same property MUST NOT be targeted more than once)");
      }
    }
  }
  return Ok{};
}

}  // namespace validate_detail

std::string ignoredPointerWarning(const Asset& asset) {
  size_t ignored = 0;
  std::string example;
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    const Animation& animation = asset.animations[a];
    for (size_t c = 0; c < animation.channels.size(); ++c) {
      const AnimationChannel& channel = animation.channels[c];
      if (channel.pointer.target != PointerTarget::kOther) continue;
      if (ignored++ == 0) {
        example =
            "animations[" + std::to_string(a) + "].channels[" + std::to_string(c) + "] " + quote(channel.pointer.text);
      }
    }
  }
  if (ignored == 0) return "";
  return std::to_string(ignored) + " KHR_animation_pointer channel" + (ignored == 1 ? "" : "s") + " target" +
         (ignored == 1 ? "s" : "") + " other properties than morph weights (" + (ignored == 1 ? "" : "e.g. ") +
         example + "); ignored";
}

}  // namespace morphkit
