// SPDX-License-Identifier: MIT
// optimizeAsset's encoder, its bufferViews (shared by streams of a kind and stride), animations (exact), skins (the
// dequantization folded into the inverse bind matrices) and images (bytes kept). The grids: optimize_encode.cpp.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "morphkit/model/accessor.h"
#include "morphkit/model/asset_builder.h"
#include "optimize_encoder.h"

namespace morphkit::optimize_detail {

uint32_t OptimizeEncoder::addView(std::span<const uint8_t> bytes, uint32_t stride, uint32_t target, ViewPart part,
                                  bool compress_attributes) {
  const uint32_t view = appendBufferView(out_.asset, bytes, target);
  // §3.6.2.4: a vertex stream whose elements are not tightly 4-aligned states its stride.
  if (target == kArrayBuffer && stride != 0) out_.asset.buffer_views[view].byte_stride = stride;
  out_.parts.push_back(part);
  if (meshopt_ && compress_attributes && stride % 4 == 0 && stride > 0 && stride <= 256 && !bytes.empty()) {
    out_.meshopt.push_back({view, MeshoptMode::kAttributes, stride});
  }
  return view;
}

// The output accessor that reads `stream` from `view` (kNone: set later, by writeShared).
uint32_t OptimizeEncoder::pushAccessor(const Stream& stream, uint32_t view) {
  Accessor accessor;
  accessor.buffer_view = view;
  accessor.component_type = stream.component;
  accessor.normalized = stream.normalized;
  accessor.count = stream.count;
  accessor.type = stream.type;
  accessor.min = stream.min;
  accessor.max = stream.max;
  out_.asset.accessors.push_back(std::move(accessor));
  return uint32_t(out_.asset.accessors.size() - 1);
}

uint32_t OptimizeEncoder::addAccessor(const Stream& stream, ViewPart part, uint32_t target, bool compress) {
  // Base vertex streams of a stride share a view, as targets' do (docs/OPTIMIZE.md, "Experiments").
  if (part == ViewPart::kBase && target == kArrayBuffer && compress) return addShared(stream, "BASE", part, target);
  return pushAccessor(stream, addView(stream.bytes, stream.stride, target, part, compress));
}

// A stream into the shared view of its group; its bufferView and byteOffset are set by writeShared.
uint32_t OptimizeEncoder::addShared(const Stream& stream, const std::string& group, ViewPart part, uint32_t target) {
  SharedView& view = shared_[group + "/" + std::to_string(stream.stride)];
  view.stride = stream.stride;
  view.part = part;
  view.target = target;
  const uint32_t index = pushAccessor(stream, kNone);
  view.accessors.push_back({index, view.bytes.size()});
  view.bytes.insert(view.bytes.end(), stream.bytes.begin(), stream.bytes.end());
  return index;
}

void OptimizeEncoder::writeShared() {
  for (auto& [group, view] : shared_) {
    const uint32_t made = addView(view.bytes, view.stride, view.target, view.part, true);
    for (const auto& [accessor, offset] : view.accessors) {
      out_.asset.accessors[accessor].buffer_view = made;
      out_.asset.accessors[accessor].byte_offset = offset;
    }
  }
}

uint32_t OptimizeEncoder::floatCopy(uint32_t accessor, ViewPart part, uint32_t target, bool min_max) {
  const Accessor& a = input_.accessors[accessor];
  const std::vector<float> values = readAccessorFloats(input_, accessor);
  Stream s = packed(std::span<const float>(values), componentCount(a.type), ComponentType::kFloat, false, a.type,
                    min_max || !a.min.empty());
  return addAccessor(s, part, target, true);
}

// An accessor's elements as stored, each `element_stride` bytes apart (the element size: tight; paddedStride: a vertex
// stream), the whole padded to 4 bytes. Only for an integer accessor with a bufferView and no sparse substitution.
Stream OptimizeEncoder::storedElements(const Accessor& a, bool tight) const {
  const BufferView& view = input_.buffer_views[a.buffer_view];
  const uint32_t element = elementSize(a.component_type, a.type);
  const uint32_t stride = view.byte_stride ? view.byte_stride : element;
  const uint32_t spacing = tight ? element : paddedStride(element);
  Stream s;
  s.component = a.component_type;
  s.normalized = a.normalized;
  s.type = a.type;
  s.count = a.count;
  s.stride = paddedStride(element);
  s.min = a.min;
  s.max = a.max;
  s.bytes.assign(paddedStride(uint32_t(size_t(a.count) * spacing)), 0);
  const uint8_t* base = input_.buffers[view.buffer].data.data() + view.byte_offset + a.byte_offset;
  for (uint32_t i = 0; i < a.count; ++i) {
    std::memcpy(s.bytes.data() + size_t(i) * spacing, base + size_t(i) * stride, element);
  }
  return s;
}

// Integer data kept exactly as stored (JOINTS_n beyond 8 bits, application attributes): the elements copied
// one to a padded vertex stride (sparse substitutions applied through the float reader when the data has no other
// form).
uint32_t OptimizeEncoder::rawCopy(uint32_t accessor, ViewPart part) {
  const Accessor& a = input_.accessors[accessor];
  if (a.component_type == ComponentType::kFloat || a.has_sparse || a.buffer_view == kNone) {
    return floatCopy(accessor, part, kArrayBuffer, false);
  }
  return addAccessor(storedElements(a, false), part, kArrayBuffer, true);
}

// Key times and values stay exact: glTF puts no range on morph weights, and STEP and CUBICSPLINE keep their keys.
void OptimizeEncoder::encodeAnimations() {
  for (Animation& animation : out_.asset.animations) {
    for (AnimationSampler& sampler : animation.samplers) {
      for (uint32_t* accessor : {&sampler.input, &sampler.output}) {
        const auto key = std::make_pair(*accessor, std::string("ANIMATION"));
        if (auto it = done_.find(key); it != done_.end()) {
          *accessor = it->second;
          continue;
        }
        const Accessor& a = input_.accessors[*accessor];
        uint32_t made = kNone;
        // Without KHR_mesh_quantization every key is a float: integer translation and scale keys need it (§3.11).
        if (quantize_ && a.component_type != ComponentType::kFloat && !a.has_sparse && a.buffer_view != kNone) {
          // Normalized integer keys (rotations and weights an earlier compressor quantized, §3.11) kept as they are
          // stored: exact, a quarter or half the bytes of floats. Packed tightly (animation views have no stride),
          // given to meshoptimizer 4 bytes at a time, as it needs a multiple of 4.
          made = addShared(storedElements(a, true), "ANIMATION", ViewPart::kAnimation, 0);
        } else {
          const std::vector<float> values = readAccessorFloats(input_, *accessor);
          made = addShared(packed(std::span<const float>(values), componentCount(a.type), ComponentType::kFloat, false,
                                  a.type, accessor == &sampler.input || !a.min.empty()),
                           "ANIMATION", ViewPart::kAnimation, 0);
        }
        done_[key] = made;
        *accessor = made;
      }
    }
  }
}

void OptimizeEncoder::encodeSkinsAndImages() {
  for (size_t s = 0; s < out_.asset.skins.size(); ++s) {
    Skin& skin = out_.asset.skins[s];
    const Dequant& d = skin_dequant_[s];
    if (d.valid) {  // IBM · D, per joint, in double and rounded once
      std::vector<float> ibm(16 * skin.joints.size());
      std::vector<float> original = skin.inverse_bind_matrices == kNone
                                        ? std::vector<float>()
                                        : readAccessorFloats(input_, skin.inverse_bind_matrices);
      DMat4 dequant;
      dequant.m = {d.step, 0, 0, 0, 0, d.step, 0, 0, 0, 0, d.step, 0, d.center[0], d.center[1], d.center[2], 1};
      for (size_t j = 0; j < skin.joints.size(); ++j) {
        DMat4 m;
        if (!original.empty()) std::copy_n(&original[16 * j], 16, m.m.begin());
        const DMat4 folded = m * dequant;
        for (size_t i = 0; i < 16; ++i) ibm[16 * j + i] = float(folded.m[i]);
      }
      skin.inverse_bind_matrices =
          addAccessor(packed(std::span<const float>(ibm), 16, ComponentType::kFloat, false, AccessorType::kMat4, false),
                      ViewPart::kOther, 0, true);
      continue;
    }
    if (skin.inverse_bind_matrices == kNone) continue;
    const auto key = std::make_pair(skin.inverse_bind_matrices, std::string("IBM"));
    if (auto it = done_.find(key); it == done_.end()) {
      done_[key] = floatCopy(skin.inverse_bind_matrices, ViewPart::kOther, 0, false);
    }
    skin.inverse_bind_matrices = done_[key];
  }
  // Images keep their bytes; a URI image is embedded so the .glb stands alone.
  for (uint32_t i = 0; i < out_.asset.images.size(); ++i) {
    Image& image = out_.asset.images[i];
    Expected<std::span<const uint8_t>> bytes = imageBytes(input_, i);
    if (!bytes) {
      out_.notes.push_back("images[" + std::to_string(i) + "]: " + bytes.error().message + "; its URI is kept");
      continue;
    }
    if (image.mime_type.empty()) {
      const bool png = bytes->size() >= 4 && (*bytes)[0] == 0x89 && (*bytes)[1] == 'P';
      const bool ktx2 = isKtx2Image(input_, i);
      image.mime_type = png ? "image/png" : ktx2 ? "image/ktx2" : "image/jpeg";
    }
    image.buffer_view = addView(*bytes, 0, 0, ViewPart::kImages, false);
    image.uri.clear();
    image.data.clear();
  }
}

}  // namespace morphkit::optimize_detail
