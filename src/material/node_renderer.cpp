// SPDX-License-Identifier: MIT
// node_renderer.cpp — pure helpers a renderer uses to feed a node material: texture sources and the uniform block.
#include <cstring>

#include "morphkit/material/node_material.h"
#include "morphkit/model/contract.h"

namespace morphkit {

NodeTextureSource nodeTextureSource(const NodeMaterial& node, uint32_t k, const Asset& asset, const Material* gltf) {
  NodeTextureSource out;
  if (k >= node.textures.size()) return out;
  const NodeTextureInfo& info = node.textures[k];
  out.srgb = info.srgb;
  if (info.slot == NodeTextureSlot::kImage) {
    if (info.image < asset.images.size()) {
      out.bound = true;
      out.image = info.image;
    }
    return out;
  }
  static const Material kDefault{};  // glTF 2.0 §3.9.6: no material → the default material, no textures
  const Material& m = gltf ? *gltf : kDefault;
  const TextureRef* ref = nullptr;
  switch (info.slot) {
    case NodeTextureSlot::kBaseColor:
      ref = &m.base_color_texture;
      break;
    case NodeTextureSlot::kMetallicRoughness:
      ref = &m.metallic_roughness_texture;
      break;
    case NodeTextureSlot::kNormal:
      ref = &m.normal_texture;
      break;
    case NodeTextureSlot::kOcclusion:
      ref = &m.occlusion_texture;
      break;
    case NodeTextureSlot::kEmissive:
      ref = &m.emissive_texture;
      break;
    case NodeTextureSlot::kImage:
      break;
  }
  if (!ref || ref->texture == kNone || textureCoordinateSet(*ref) > 1) return out;
  MORPHKIT_EXPECTS(ref->texture < asset.textures.size());  // the one gate (validate.cpp) checked every index
  const Texture& texture = asset.textures[ref->texture];
  MORPHKIT_EXPECTS(texture.source == kNone || texture.source < asset.images.size());
  // A KTX2 texture without a fallback source is bound (the renderer then warns once and draws the factor).
  if (texture.source == kNone && texture.basisu_source == kNone && texture.webp_source == kNone) return out;
  out.bound = true;
  out.texture = ref->texture;
  out.image = texture.webp_source != kNone ? texture.webp_source : texture.source;
  out.sampler = texture.sampler != kNone && texture.sampler < asset.samplers.size() ? texture.sampler : kNone;
  out.texcoord = textureCoordinateSet(*ref);
  out.uv_transform = textureTransformMatrix(*ref);
  return out;
}

std::vector<uint8_t> nodeUniformBytes(const NodeMaterial& node, const Asset& asset, const Material* gltf,
                                      NodeObjectHeader header) {
  static const Material kDefault{};
  const Material& m = gltf ? *gltf : kDefault;
  header.texture_mask = 0;
  header.texcoord_sets = 0;
  for (uint32_t k = 0; k < node.textures.size() && k < 32; ++k) {
    const NodeTextureSource source = nodeTextureSource(node, k, asset, gltf);
    if (source.bound) header.texture_mask |= 1u << k;
    if (source.bound && source.texcoord == 1) header.texcoord_sets |= 1u << k;
  }
  header.alpha_mode = m.alpha_mode == AlphaMode::kMask ? 1u : m.alpha_mode == AlphaMode::kBlend ? 2u : 0u;
  header.alpha_cutoff = m.alpha_cutoff;
  std::vector<uint8_t> bytes(std::max<size_t>(node.uniform_block_bytes, sizeof header), 0);
  std::memcpy(bytes.data(), &header, sizeof header);
  for (uint32_t k = 0; k < node.textures.size(); ++k) {
    const size_t at = size_t(node.uv_transform_offset) + 32 * k;
    if (at + 32 > bytes.size()) break;
    const std::array<float, 6> t = nodeTextureSource(node, k, asset, gltf).uv_transform;  // identity when unbound
    const float rows[8] = {t[0], t[1], t[2], 0, t[3], t[4], t[5], 0};
    std::memcpy(bytes.data() + at, rows, sizeof rows);
  }
  for (const NodeUniformInfo& u : node.uniforms) {
    std::array<float, 4> v = u.value;
    switch (u.gltf) {
      case NodeGltfValue::kBaseColorFactor:
        v = {m.base_color_factor[0], m.base_color_factor[1], m.base_color_factor[2], m.base_color_factor[3]};
        break;
      case NodeGltfValue::kMetallicFactor:
        v = {m.metallic_factor, 0, 0, 0};
        break;
      case NodeGltfValue::kRoughnessFactor:
        v = {m.roughness_factor, 0, 0, 0};
        break;
      case NodeGltfValue::kEmissiveFactor:
        v = {m.emissive_factor[0], m.emissive_factor[1], m.emissive_factor[2], 0};
        break;
      case NodeGltfValue::kNormalScale:
        v = {m.normal_texture.scale, 0, 0, 0};
        break;
      case NodeGltfValue::kOcclusionStrength:
        v = {m.occlusion_texture.scale, 0, 0, 0};
        break;
      case NodeGltfValue::kUnset:
        break;
    }
    if (u.offset + 16 <= bytes.size()) std::memcpy(bytes.data() + u.offset, v.data(), 16);
  }
  return bytes;
}

}  // namespace morphkit
