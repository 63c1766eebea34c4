// SPDX-License-Identifier: MIT
// The material extensions morphkit reads and writes back (material_extensions.cpp): KHR_materials_unlit,
// emissive_strength, ior, specular, clearcoat and sheen. Private to morphkit::gltf.
#pragma once
#include <string>

#include "gltf_fields.h"
#include "morphkit/io/json_writer.h"

namespace morphkit::gltf_detail {

// parser.cpp's textureInfo reader (index, texCoord, the scale key when not empty, KHR_texture_transform).
Status parseTextureRef(object material, std::string_view key, TextureRef& ref, const std::string& where,
                       std::string_view scale_key, bool texture_transform);
// glb_writer.cpp's textureInfo writer (nothing when ref has no texture).
void textureInfo(JsonWriter& json, std::string_view name, const TextureRef& ref, const char* scale_name);

// materials[i].extensions: every name into Material::extensions, the six above into their fields. Each factor is
// checked against its extension's JSON schema range (a value outside it is an error naming the field: the file is
// not valid glTF; nothing is clamped). `texture_transform`: KHR_texture_transform is in extensionsUsed.
Status parseMaterialExtensions(object material, Material& out, const std::string& where, bool texture_transform);

// The same six into the material's "extensions" object, each field only when it differs from its default (the
// caller keeps them in extensionsUsed); nothing when the material has none of them.
void writeMaterialExtensions(JsonWriter& json, const Material& material);

}  // namespace morphkit::gltf_detail
