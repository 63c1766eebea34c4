// SPDX-License-Identifier: MIT
// The demo head's material variants (morphkit/demo/demo.h DemoMaterial): one glTF material per shading feature, and the
// data some of them need (PNG textures, vertex colours), so that each feature has a small file to render.
#include <algorithm>
#include <array>
#include <cmath>

#include "demo_internal.h"
#include "morphkit/image/image.h"
#include "morphkit/model/asset_builder.h"

namespace morphkit {

namespace {

constexpr std::array<DemoMaterial, 10> kAll = {
    DemoMaterial::kSkin,     DemoMaterial::kMetallic,    DemoMaterial::kTextured, DemoMaterial::kUnlit,
    DemoMaterial::kEmissive, DemoMaterial::kIor,         DemoMaterial::kSpecular, DemoMaterial::kClearcoat,
    DemoMaterial::kSheen,    DemoMaterial::kVertexColors};

// A tangent-space normal map of ripples (six across the map, slope ±0.35) along v (bending the normal towards the
// bitangent: the clearcoat variant's coat) or along u (towards the tangent), RGBA8.
std::vector<uint8_t> rippleNormalTexture(uint32_t size, bool along_u) {
  std::vector<uint8_t> rgba(size_t(size) * size * 4, 255);
  for (uint32_t y = 0; y < size; ++y) {
    for (uint32_t x = 0; x < size; ++x) {
      const float t = (float(along_u ? x : y) + 0.5f) / float(size);
      const float slope = 0.35f * std::sin(2.0f * 3.14159265f * 6.0f * t);
      const float length = std::sqrt(slope * slope + 1.0f);
      const float n[3] = {along_u ? slope / length : 0.0f, along_u ? 0.0f : slope / length, 1.0f / length};
      for (int k = 0; k < 3; ++k)
        rgba[(size_t(y) * size + x) * 4 + k] = uint8_t(std::lround((n[k] * 0.5f + 0.5f) * 255));
    }
  }
  return rgba;
}

// An RGBA8 image as an embedded PNG (zlib level 6 and adaptive filters, as image editors save them) and a texture
// with the default sampler; returns the texture's index.
Expected<uint32_t> appendTexture(Asset& asset, const char* name, const std::vector<uint8_t>& rgba, uint32_t size) {
  Expected<std::vector<uint8_t>> png = encodePng(rgba, size, size, PngCompression::kSmall);
  if (!png) return png.error();
  Image image;
  image.name = name;
  image.mime_type = "image/png";
  image.buffer_view = appendBufferView(asset, std::span<const uint8_t>(*png));
  asset.images.push_back(image);
  if (asset.samplers.empty()) asset.samplers.push_back(Sampler{});
  asset.textures.push_back(Texture{0, uint32_t(asset.images.size() - 1)});
  return uint32_t(asset.textures.size() - 1);
}

// COLOR_0 as normalized unsigned bytes (glTF 2.0 §3.7.2.1): a hue that turns around the head, lighter upwards.
void appendVertexColors(Asset& asset, const std::vector<float>& position) {
  const size_t count = position.size() / 3;
  std::vector<uint8_t> rgba(count * 4);
  for (size_t v = 0; v < count; ++v) {
    const float angle = std::atan2(position[3 * v + 2], position[3 * v]);
    const float up = std::clamp(0.5f + position[3 * v + 1] * 4.0f, 0.0f, 1.0f);
    for (int k = 0; k < 3; ++k) {
      const float hue = 0.5f + 0.5f * std::cos(angle - float(k) * 2.0943951f);
      rgba[4 * v + k] = uint8_t(std::lround(255.0f * (0.25f + 0.75f * hue) * (0.6f + 0.4f * up)));
    }
    rgba[4 * v + 3] = 255;
  }
  const uint32_t accessor = appendAccessor(asset, std::span<const uint8_t>(rgba), AccessorType::kVec4,
                                           {.target = kArrayBuffer, .normalized = true});
  for (Primitive& primitive : asset.meshes[0].primitives) primitive.attributes.push_back({"COLOR_0", accessor});
}

void setBase(Material& m, float r, float g, float b, float metallic, float roughness) {
  m.base_color_factor[0] = r, m.base_color_factor[1] = g, m.base_color_factor[2] = b;
  m.metallic_factor = metallic;
  m.roughness_factor = roughness;
}

void useExtension(Asset& asset, Material& m, const char* name) {
  m.extensions.push_back(name);
  if (std::find(asset.extensions_used.begin(), asset.extensions_used.end(), name) == asset.extensions_used.end())
    asset.extensions_used.push_back(name);
}

// The textured variant: a skin's three maps at options.texture_size (demo_textures.cpp), dielectric factors of 1
// so that the maps alone decide.
Status appendSkinTextures(Asset& asset, Material& m, const DemoOptions& options) {
  const demo_detail::SkinTextures maps = demo_detail::makeSkinTextures(options.texture_size, options.seed);
  setBase(m, 1.0f, 1.0f, 1.0f, 0.0f, 1.0f);
  Expected<uint32_t> color = appendTexture(asset, "SkinBaseColor", maps.base_color, maps.size);
  if (!color) return color.error();
  Expected<uint32_t> normal = appendTexture(asset, "SkinNormal", maps.normal, maps.size);
  if (!normal) return normal.error();
  Expected<uint32_t> orm =
      appendTexture(asset, "SkinOcclusionRoughnessMetallic", maps.occlusion_roughness_metallic, maps.size);
  if (!orm) return orm.error();
  m.base_color_texture.texture = *color;
  m.normal_texture.texture = *normal;
  m.occlusion_texture.texture = *orm;
  m.metallic_roughness_texture.texture = *orm;  // one image, as glTF packs them (§3.9.5: occlusion in R)
  return Ok{};
}

}  // namespace

const char* demoMaterialName(DemoMaterial material) {
  constexpr const char* kNames[] = {"skin", "metallic", "textured",  "unlit", "emissive",
                                    "ior",  "specular", "clearcoat", "sheen", "vertex-colors"};
  return kNames[size_t(material) % std::size(kNames)];
}

std::span<const DemoMaterial> demoMaterials() {
  return kAll;
}

Status demo_detail::appendDemoMaterial(Asset& asset, const DemoOptions& options, const std::vector<float>& position) {
  const DemoMaterial kind = options.material;
  Material m;
  m.name = kind == DemoMaterial::kSkin ? std::string("Skin") : std::string(demoMaterialName(kind));
  setBase(m, 0.87f, 0.67f, 0.56f, 0.0f, 0.55f);
  switch (kind) {
    case DemoMaterial::kSkin:
      break;
    case DemoMaterial::kMetallic:
      setBase(m, 1.0f, 0.78f, 0.34f, 1.0f, 0.35f);
      break;
    case DemoMaterial::kTextured:
      if (Status s = appendSkinTextures(asset, m, options); !s) return s;
      break;
    case DemoMaterial::kUnlit:
      setBase(m, 0.2f, 0.55f, 0.8f, 0.0f, 1.0f);
      useExtension(asset, m, "KHR_materials_unlit");
      m.unlit = true;
      break;
    case DemoMaterial::kEmissive:
      setBase(m, 0.1f, 0.1f, 0.1f, 0.0f, 0.6f);
      m.emissive_factor[0] = 1.0f, m.emissive_factor[1] = 0.35f, m.emissive_factor[2] = 0.1f;
      useExtension(asset, m, "KHR_materials_emissive_strength");
      m.emissive_strength = 4.0f;
      break;
    case DemoMaterial::kIor:
      setBase(m, 0.3f, 0.5f, 0.35f, 0.0f, 0.3f);
      useExtension(asset, m, "KHR_materials_ior");
      m.ior = 2.4f;
      break;
    case DemoMaterial::kSpecular:
      setBase(m, 0.25f, 0.35f, 0.6f, 0.0f, 0.3f);
      useExtension(asset, m, "KHR_materials_specular");
      m.specular.factor = 0.7f;
      m.specular.color_factor[0] = 1.0f, m.specular.color_factor[1] = 0.3f, m.specular.color_factor[2] = 0.3f;
      break;
    case DemoMaterial::kClearcoat:
      setBase(m, 0.7f, 0.08f, 0.06f, 0.0f, 0.7f);
      useExtension(asset, m, "KHR_materials_clearcoat");
      m.clearcoat.factor = 1.0f;
      m.clearcoat.roughness_factor = 0.1f;
      if (Expected<uint32_t> ripples = appendTexture(asset, "Ripples", rippleNormalTexture(64, false), 64); ripples) {
        m.clearcoat.normal_texture.texture = *ripples;
      } else {
        return ripples.error();
      }
      break;
    case DemoMaterial::kSheen:
      setBase(m, 0.05f, 0.08f, 0.25f, 0.0f, 0.8f);
      useExtension(asset, m, "KHR_materials_sheen");
      m.sheen.color_factor[0] = 0.9f, m.sheen.color_factor[1] = 0.5f, m.sheen.color_factor[2] = 0.7f;
      m.sheen.roughness_factor = 0.5f;
      break;
    case DemoMaterial::kVertexColors:
      setBase(m, 1.0f, 1.0f, 1.0f, 0.0f, 0.5f);
      appendVertexColors(asset, position);
      break;
  }
  asset.materials.push_back(m);
  return Ok{};
}

}  // namespace morphkit
