// SPDX-License-Identifier: MIT
// optimize's byte report (morphkit/optimize/optimize.h, OptimizeParts): each bufferView's bytes by what uses it, in the
// input as loaded and in the written file.
#include <vector>

#include "morphkit/gltf/gltf.h"
#include "optimize_internal.h"

namespace morphkit::optimize_detail {

// Which part each view of a loaded asset belongs to, from what points into it.
OptimizeParts inputParts(const Asset& asset) {
  std::vector<int> part(asset.buffer_views.size(), int(ViewPart::kOther));
  auto mark = [&](uint32_t accessor, ViewPart p) {
    if (accessor >= asset.accessors.size()) return;
    const Accessor& a = asset.accessors[accessor];
    if (a.buffer_view != kNone) part[a.buffer_view] = int(p);
    if (a.has_sparse) {
      part[a.sparse.indices_buffer_view] = int(p);
      part[a.sparse.values_buffer_view] = int(p);
    }
  };
  for (const Mesh& mesh : asset.meshes) {
    for (const Primitive& primitive : mesh.primitives) {
      for (const Attribute& a : primitive.attributes) mark(a.accessor, ViewPart::kBase);
      mark(primitive.indices, ViewPart::kBase);
      for (const MorphTarget& target : primitive.targets) {
        for (const Attribute& a : target.attributes) mark(a.accessor, ViewPart::kTargets);
      }
    }
  }
  for (const Animation& animation : asset.animations) {
    for (const AnimationSampler& sampler : animation.samplers) {
      mark(sampler.input, ViewPart::kAnimation);
      mark(sampler.output, ViewPart::kAnimation);
    }
  }
  for (const Image& image : asset.images) {
    if (image.buffer_view != kNone) part[image.buffer_view] = int(ViewPart::kImages);
  }
  OptimizeParts parts;
  uint64_t* slots[] = {&parts.targets, &parts.base, &parts.animation, &parts.images, &parts.other};
  for (size_t i = 0; i < asset.buffer_views.size(); ++i) *slots[part[i]] += asset.buffer_views[i].byte_length;
  for (const Image& image : asset.images) parts.images += image.data.size();  // URI images
  return parts;
}

OptimizeParts outputParts(const EncodedAsset& encoded, std::span<const uint8_t> glb) {
  OptimizeParts parts;
  const std::vector<uint64_t> stored = glbStoredViewBytes(glb);
  uint64_t* slots[] = {&parts.targets, &parts.base, &parts.animation, &parts.images, &parts.other};
  for (size_t i = 0; i < stored.size() && i < encoded.parts.size(); ++i) *slots[int(encoded.parts[i])] += stored[i];
  return parts;
}

}  // namespace morphkit::optimize_detail
