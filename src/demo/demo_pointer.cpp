// SPDX-License-Identifier: MIT
// demo_pointer.cpp — the demo asset's morph-weight channels rewritten as KHR_animation_pointer channels
// (morphkit/demo/demo.h, useAnimationPointers): the same clips through each pointer form, for make-demo
// --animation-pointer and the tests that pose both files.
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "morphkit/demo/demo.h"
#include "morphkit/model/accessor.h"
#include "morphkit/model/asset_builder.h"

namespace morphkit {

namespace {

constexpr const char* kPointerExtension = "KHR_animation_pointer";

AnimationPointer pointerTo(PointerTarget target, std::string text, uint32_t index, uint32_t element = kNone) {
  return AnimationPointer{std::move(text), target, index, element};
}

// The channel keeps its sampler; only its target changes: "path": "pointer", no node (the extension's rule).
void pointAt(AnimationChannel& channel, AnimationPointer pointer) {
  channel.node = kNone;
  channel.path = TargetPath::kWeights;
  channel.other_path = "pointer";
  channel.pointer = std::move(pointer);
}

// KHR_animation_pointer's normalized integer outputs (glTF 2.0 §3.11: f = c / 255): a sampler whose values are
// all 0 or 1 (the demo's STEP blink) stored as normalized UNSIGNED_BYTE, 255 for 1, which decodes exactly.
void storeAsNormalizedBytes(Asset& asset, AnimationSampler& sampler) {
  const std::vector<float> values = readAccessorFloats(asset, sampler.output);
  std::vector<uint8_t> bytes(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] != 0.0f && values[i] != 1.0f) return;  // not exactly representable: keep the floats
    bytes[i] = values[i] == 1.0f ? 255 : 0;
  }
  sampler.output = appendAccessor(asset, std::span<const uint8_t>(bytes), AccessorType::kScalar, {.normalized = true});
}

// One "/nodes/{n}/weights/{i}" channel per weight, each with a scalar sampler of its own that reads weight i's
// values (and, for CUBICSPLINE, its tangents) out of the original sampler's output.
void splitIntoElements(Asset& asset, Animation& animation, size_t channel_index, uint32_t weights) {
  const AnimationChannel original = animation.channels[channel_index];
  const AnimationSampler sampler = animation.samplers[original.sampler];
  const std::vector<float> values = readAccessorFloats(asset, sampler.output);
  const size_t stride = weights;  // floats per value; CUBICSPLINE keys hold three values
  const size_t rows = values.size() / stride;
  std::vector<AnimationChannel> replacement;
  for (uint32_t i = 0; i < weights; ++i) {
    std::vector<float> column(rows);
    for (size_t r = 0; r < rows; ++r) column[r] = values[r * stride + i];
    AnimationSampler own = sampler;
    own.output = appendAccessor(asset, std::span<const float>(column), AccessorType::kScalar);
    animation.samplers.push_back(own);
    AnimationChannel channel;
    channel.sampler = uint32_t(animation.samplers.size() - 1);
    pointAt(channel,
            pointerTo(PointerTarget::kNodeWeight,
                      "/nodes/" + std::to_string(original.node) + "/weights/" + std::to_string(i), original.node, i));
    replacement.push_back(channel);
  }
  // The original sampler stays (unused: animations keep their sampler indices); its channel is replaced.
  animation.channels.erase(animation.channels.begin() + std::ptrdiff_t(channel_index));
  animation.channels.insert(animation.channels.begin() + std::ptrdiff_t(channel_index), replacement.begin(),
                            replacement.end());
}

}  // namespace

void useAnimationPointers(Asset& asset) {
  bool used = false;
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    Animation& animation = asset.animations[a];
    for (size_t c = 0; c < animation.channels.size(); ++c) {
      AnimationChannel& channel = animation.channels[c];
      if (channel.node == kNone || channel.path != TargetPath::kWeights) continue;
      const uint32_t node = channel.node;
      const uint32_t mesh = asset.nodes[node].mesh;
      const uint32_t weights = targetCount(asset.meshes[mesh]);
      used = true;
      if (a % 3 == 0) {
        pointAt(channel, pointerTo(PointerTarget::kNodeWeights, "/nodes/" + std::to_string(node) + "/weights", node));
      } else if (a % 3 == 1) {  // the demo's one node instantiates the mesh and has no weights of its own
        storeAsNormalizedBytes(asset, animation.samplers[channel.sampler]);
        pointAt(channel, pointerTo(PointerTarget::kMeshWeights, "/meshes/" + std::to_string(mesh) + "/weights", mesh));
      } else {
        splitIntoElements(asset, animation, c, weights);
        c += weights - 1;
      }
    }
  }
  if (used) asset.extensions_used.push_back(kPointerExtension);
}

}  // namespace morphkit
