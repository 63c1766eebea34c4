// SPDX-License-Identifier: MIT
// The demo head's material variants (morphkit/demo/demo.h DemoMaterial): one glTF material per shading feature, and the
// data some of them need (a PNG texture, vertex colours), so that each feature has a small file to render.
#include <algorithm>
#include <array>
#include <cmath>

#include "demo_internal.h"
#include "morphkit/io/npy.h"
#include "morphkit/model/asset_builder.h"

namespace morphkit {

namespace {

constexpr std::array<DemoMaterial, 10> kAll = {
    DemoMaterial::kSkin,     DemoMaterial::kMetallic,    DemoMaterial::kTextured, DemoMaterial::kUnlit,
    DemoMaterial::kEmissive, DemoMaterial::kIor,         DemoMaterial::kSpecular, DemoMaterial::kClearcoat,
    DemoMaterial::kSheen,    DemoMaterial::kVertexColors};

void putBigEndian(std::vector<uint8_t>& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(uint8_t(value >> shift));
}

// A PNG chunk: length, type, data, CRC-32 over type and data (PNG specification §5.3).
void appendChunk(std::vector<uint8_t>& png, const char (&type)[5], const std::vector<uint8_t>& data) {
  putBigEndian(png, uint32_t(data.size()));
  const size_t start = png.size();
  png.insert(png.end(), type, type + 4);
  png.insert(png.end(), data.begin(), data.end());
  putBigEndian(png, crc32(std::span<const uint8_t>(png.data() + start, png.size() - start)));
}

// An 8-bit RGB PNG of `rows` (each 3·width bytes) in stored (uncompressed) deflate blocks: a valid file without a
// compressor (RFC 1950/1951; blocks of at most 65535 bytes, Adler-32 at the end).
std::vector<uint8_t> encodeStoredPng(uint32_t width, uint32_t height, const std::vector<uint8_t>& rgb) {
  std::vector<uint8_t> raw;
  for (uint32_t y = 0; y < height; ++y) {
    raw.push_back(0);  // filter type None
    raw.insert(raw.end(), rgb.begin() + size_t(y) * width * 3, rgb.begin() + size_t(y + 1) * width * 3);
  }
  std::vector<uint8_t> z = {0x78, 0x01};
  for (size_t at = 0; at < raw.size(); at += 65535) {
    const size_t n = std::min<size_t>(65535, raw.size() - at);
    z.push_back(at + n >= raw.size() ? 1 : 0);  // BFINAL, BTYPE 00
    z.push_back(uint8_t(n));
    z.push_back(uint8_t(n >> 8));
    z.push_back(uint8_t(~n));
    z.push_back(uint8_t(~n >> 8));
    z.insert(z.end(), raw.begin() + at, raw.begin() + at + n);
  }
  uint32_t a = 1, b = 0;
  for (uint8_t byte : raw) a = (a + byte) % 65521, b = (b + a) % 65521;
  putBigEndian(z, (b << 16) | a);
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<uint8_t> header;
  putBigEndian(header, width);
  putBigEndian(header, height);
  header.insert(header.end(), {8, 2, 0, 0, 0});  // 8 bits, RGB, deflate, adaptive filters, no interlace
  appendChunk(png, "IHDR", header);
  appendChunk(png, "IDAT", z);
  appendChunk(png, "IEND", {});
  return png;
}

// Colour bands along v with a finer stripe along u: texture detail that shows on the head's UV layout.
std::vector<uint8_t> bandTexture(uint32_t size) {
  constexpr uint8_t kBands[4][3] = {{214, 96, 48}, {236, 200, 90}, {70, 140, 190}, {120, 180, 90}};
  std::vector<uint8_t> rgb(size_t(size) * size * 3);
  for (uint32_t y = 0; y < size; ++y) {
    for (uint32_t x = 0; x < size; ++x) {
      const uint8_t* c = kBands[(y * 4 / size) % 4];
      const float shade = ((x * 8 / size) % 2) ? 0.8f : 1.0f;
      for (int k = 0; k < 3; ++k) rgb[(size_t(y) * size + x) * 3 + k] = uint8_t(std::lround(c[k] * shade));
    }
  }
  return rgb;
}

// A tangent-space normal map of ripples (six across the map, slope ±0.35) along v (bending the normal towards the
// bitangent: the clearcoat variant's coat) or along u (towards the tangent: the textured variant's surface).
std::vector<uint8_t> rippleNormalTexture(uint32_t size, bool along_u) {
  std::vector<uint8_t> rgb(size_t(size) * size * 3);
  for (uint32_t y = 0; y < size; ++y) {
    for (uint32_t x = 0; x < size; ++x) {
      const float t = (float(along_u ? x : y) + 0.5f) / float(size);
      const float slope = 0.35f * std::sin(2.0f * 3.14159265f * 6.0f * t);
      const float length = std::sqrt(slope * slope + 1.0f);
      const float n[3] = {along_u ? slope / length : 0.0f, along_u ? 0.0f : slope / length, 1.0f / length};
      for (int k = 0; k < 3; ++k)
        rgb[(size_t(y) * size + x) * 3 + k] = uint8_t(std::lround((n[k] * 0.5f + 0.5f) * 255));
    }
  }
  return rgb;
}

// A 64² RGB image as an embedded PNG and a texture with the default sampler; returns the texture's index.
uint32_t appendTexture(Asset& asset, const char* name, const std::vector<uint8_t>& rgb) {
  constexpr uint32_t kSize = 64;
  const std::vector<uint8_t> png = encodeStoredPng(kSize, kSize, rgb);
  Image image;
  image.name = name;
  image.mime_type = "image/png";
  image.buffer_view = appendBufferView(asset, std::span<const uint8_t>(png));
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

}  // namespace

const char* demoMaterialName(DemoMaterial material) {
  constexpr const char* kNames[] = {"skin", "metallic", "textured",  "unlit", "emissive",
                                    "ior",  "specular", "clearcoat", "sheen", "vertex-colors"};
  return kNames[size_t(material) % std::size(kNames)];
}

std::span<const DemoMaterial> demoMaterials() {
  return kAll;
}

void demo_detail::appendDemoMaterial(Asset& asset, DemoMaterial kind, const std::vector<float>& position) {
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
      setBase(m, 1.0f, 1.0f, 1.0f, 0.0f, 0.6f);
      m.base_color_texture.texture = appendTexture(asset, "Bands", bandTexture(64));
      m.normal_texture.texture = appendTexture(asset, "Ripples", rippleNormalTexture(64, true));
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
      m.clearcoat.normal_texture.texture = appendTexture(asset, "Ripples", rippleNormalTexture(64, false));
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
}

}  // namespace morphkit
