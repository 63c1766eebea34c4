// SPDX-License-Identifier: MIT
// Small textured files the texture tests write: a triangle whose material's base colour and emissive read
// textures[0], with the images and the texture object the caller gives (EXT_texture_webp, plain PNG, ...).
#pragma once
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "gltf_test_util.h"

namespace morphkit::test {

// `images`: the images array's entries; `texture`: textures[0]; `extensions`: the top-level fields before
// "buffers" (extensionsUsed / extensionsRequired), empty for none. The triangle fills most of a default view.
inline std::string texturedTriangle(const std::string& images, const std::string& texture,
                                    const std::string& extensions = "") {
  const float data[15] = {-1, -1, 0, 1, -1, 0, 0, 1, 0, 0, 0, 1, 0, 0.5f, 1};
  std::vector<uint8_t> bytes(sizeof data);
  std::memcpy(bytes.data(), data, sizeof data);
  return gltfJson(extensions + (extensions.empty() ? "" : ",") + "\"buffers\":[" + bufferJson(bytes) +
                  "],\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
                  "\"byteLength\":24}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":"
                  "\"VEC3\",\"min\":[-1,-1,0],\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5126,\"count\":3,"
                  "\"type\":\"VEC2\"}],\"images\":[" +
                  images + "],\"textures\":[" + texture +
                  "],\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}},"
                  "\"emissiveTexture\":{\"index\":0},\"emissiveFactor\":[0.5,0.5,0.5],\"doubleSided\":true}],"
                  "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1},\"material\":0}]}],"
                  "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]");
}

inline std::string imageJson(std::span<const uint8_t> bytes, const char* mime) {
  return std::string("{\"uri\":\"data:") + mime + ";base64," + base64(bytes) + "\",\"mimeType\":\"" + mime + "\"}";
}

// EXT_texture_webp on textures[0]: images[0] the WebP; with a fallback, images[1] a PNG as the texture's `source`
// (the extension then used, not required, as the extension's spec recommends); without, the extension required.
inline std::string webpTriangle(std::span<const uint8_t> webp, std::span<const uint8_t> fallback_png = {}) {
  const bool fallback = !fallback_png.empty();
  std::string images = imageJson(webp, "image/webp");
  if (fallback) images += "," + imageJson(fallback_png, "image/png");
  const std::string texture =
      std::string("{") + (fallback ? "\"source\":1," : "") + "\"extensions\":{\"EXT_texture_webp\":{\"source\":0}}}";
  return texturedTriangle(images, texture,
                          fallback ? "\"extensionsUsed\":[\"EXT_texture_webp\"]"
                                   : "\"extensionsUsed\":[\"EXT_texture_webp\"],"
                                     "\"extensionsRequired\":[\"EXT_texture_webp\"]");
}

}  // namespace morphkit::test
