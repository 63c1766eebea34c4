// SPDX-License-Identifier: MIT
// KHR_materials_unlit, _emissive_strength, _ior, _specular, _clearcoat and _sheen: read into Material's fields
// (ranges from each extension's JSON schema,
// https://github.com/KhronosGroup/glTF/tree/main/extensions/2.0/Khronos) and written back beside the reader.
#include "material_extensions.h"

#include <algorithm>
#include <charconv>

namespace morphkit::gltf_detail {

namespace {

constexpr float kUnbounded = std::numeric_limits<float>::infinity();

// The shortest text that reads back as `value` (the number as the file wrote it, for a float it fits).
std::string formatNumber(float value) {
  char text[32];
  auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return ec == std::errc() ? std::string(text, end) : std::string("?");
}

// A number field within [lo, hi] (the schema's minimum and maximum); absent keeps `out`.
Status readFactor(object o, std::string_view key, float& out, const std::string& where, float lo, float hi) {
  MORPHKIT_TRY(readFloat(kGltfError, o, key, out, where));
  if (out >= lo && out <= hi) return Ok{};
  const std::string range =
      hi == kUnbounded ? "at least " + formatNumber(lo) : "within " + formatNumber(lo) + ".." + formatNumber(hi);
  return fieldError(kGltfError, where, key, formatNumber(out) + " is not " + range + " (the extension's schema)");
}

// A colour of three numbers, each within [lo, hi].
Status readColor(object o, std::string_view key, float (&out)[3], const std::string& where, float hi) {
  std::vector<float> color;
  MORPHKIT_TRY(readNumbers(kGltfError, o, key, color, where, 3));
  if (color.empty()) return Ok{};
  for (float c : color) {
    if (!(c >= 0.0f && c <= hi)) {
      return fieldError(kGltfError, where, key,
                        "component " + formatNumber(c) + " is not " +
                            (hi == kUnbounded ? std::string("at least 0") : "within 0.." + formatNumber(hi)) +
                            " (the extension's schema)");
    }
  }
  std::copy(color.begin(), color.end(), out);
  return Ok{};
}

Status parseSpecular(object ext, Material& m, const std::string& here, bool transform) {
  MORPHKIT_TRY(readFactor(ext, "specularFactor", m.specular.factor, here, 0.0f, 1.0f));
  MORPHKIT_TRY(parseTextureRef(ext, "specularTexture", m.specular.texture, here, "", transform));
  MORPHKIT_TRY(readColor(ext, "specularColorFactor", m.specular.color_factor, here, kUnbounded));
  return parseTextureRef(ext, "specularColorTexture", m.specular.color_texture, here, "", transform);
}

Status parseClearcoat(object ext, Material& m, const std::string& here, bool transform) {
  MORPHKIT_TRY(readFactor(ext, "clearcoatFactor", m.clearcoat.factor, here, 0.0f, 1.0f));
  MORPHKIT_TRY(parseTextureRef(ext, "clearcoatTexture", m.clearcoat.texture, here, "", transform));
  MORPHKIT_TRY(readFactor(ext, "clearcoatRoughnessFactor", m.clearcoat.roughness_factor, here, 0.0f, 1.0f));
  MORPHKIT_TRY(parseTextureRef(ext, "clearcoatRoughnessTexture", m.clearcoat.roughness_texture, here, "", transform));
  return parseTextureRef(ext, "clearcoatNormalTexture", m.clearcoat.normal_texture, here, "scale", transform);
}

Status parseSheen(object ext, Material& m, const std::string& here, bool transform) {
  MORPHKIT_TRY(readColor(ext, "sheenColorFactor", m.sheen.color_factor, here, 1.0f));
  MORPHKIT_TRY(parseTextureRef(ext, "sheenColorTexture", m.sheen.color_texture, here, "", transform));
  MORPHKIT_TRY(readFactor(ext, "sheenRoughnessFactor", m.sheen.roughness_factor, here, 0.0f, 1.0f));
  return parseTextureRef(ext, "sheenRoughnessTexture", m.sheen.roughness_texture, here, "", transform);
}

Status parseOne(std::string_view name, object ext, Material& m, const std::string& here, bool transform) {
  if (name == "KHR_materials_unlit") {
    m.unlit = true;
    return Ok{};
  }
  if (name == "KHR_materials_emissive_strength")
    return readFactor(ext, "emissiveStrength", m.emissive_strength, here, 0.0f, kUnbounded);
  if (name == "KHR_materials_ior") {
    MORPHKIT_TRY(readFloat(kGltfError, ext, "ior", m.ior, here));
    // Schema: minimum 1, or exactly 0 (the extension's "no refraction" value).
    if (m.ior == 0.0f || m.ior >= 1.0f) return Ok{};
    return fieldError(kGltfError, here, "ior",
                      formatNumber(m.ior) + " is neither 0 nor at least 1 (the extension's schema)");
  }
  if (name == "KHR_materials_specular") return parseSpecular(ext, m, here, transform);
  if (name == "KHR_materials_clearcoat") return parseClearcoat(ext, m, here, transform);
  if (name == "KHR_materials_sheen") return parseSheen(ext, m, here, transform);
  return Ok{};  // listed in Material::extensions only
}

bool sameColor(const float (&a)[3], float r, float g, float b) {
  return a[0] == r && a[1] == g && a[2] == b;
}

}  // namespace

Status parseMaterialExtensions(object material, Material& out, const std::string& where, bool texture_transform) {
  element e;
  if (material.at_key("extensions").get(e) != simdjson::SUCCESS) return Ok{};
  object extensions;
  if (e.get_object().get(extensions) != simdjson::SUCCESS)
    return fieldError(kGltfError, where, "extensions", "must be an object");
  for (auto field : extensions) {
    const std::string name(field.key);
    const std::string here = where + ".extensions." + printable(name);
    object ext;
    if (field.value.get_object().get(ext) != simdjson::SUCCESS)
      return fail(Error::kInvalidGltf, here + ": must be an object");
    out.extensions.push_back(name);
    MORPHKIT_TRY(parseOne(name, ext, out, here, texture_transform));
  }
  return Ok{};
}

void writeMaterialExtensions(JsonWriter& json, const Material& m) {
  const Material d;
  const bool specular = m.specular.factor != d.specular.factor || m.specular.texture.texture != kNone ||
                        !sameColor(m.specular.color_factor, 1, 1, 1) || m.specular.color_texture.texture != kNone;
  const bool clearcoat = m.clearcoat.factor != 0 || m.clearcoat.texture.texture != kNone ||
                         m.clearcoat.roughness_factor != 0 || m.clearcoat.roughness_texture.texture != kNone ||
                         m.clearcoat.normal_texture.texture != kNone;
  const bool sheen = !sameColor(m.sheen.color_factor, 0, 0, 0) || m.sheen.color_texture.texture != kNone ||
                     m.sheen.roughness_factor != 0 || m.sheen.roughness_texture.texture != kNone;
  auto listed = [&](const char* name) {
    return std::find(m.extensions.begin(), m.extensions.end(), name) != m.extensions.end();
  };
  const bool any = m.unlit || m.emissive_strength != 1.0f || m.ior != 1.5f || listed("KHR_materials_ior") || specular ||
                   clearcoat || sheen;
  if (!any) return;
  json.key("extensions").beginObject();
  if (m.unlit) json.key("KHR_materials_unlit").beginObject().endObject();
  if (m.emissive_strength != 1.0f)
    json.key("KHR_materials_emissive_strength")
        .beginObject()
        .field("emissiveStrength", m.emissive_strength)
        .endObject();
  if (m.ior != 1.5f || listed("KHR_materials_ior")) {
    json.key("KHR_materials_ior").beginObject().field("ior", m.ior).endObject();
  }
  if (specular) {
    json.key("KHR_materials_specular").beginObject();
    if (m.specular.factor != 1.0f) json.field("specularFactor", m.specular.factor);
    textureInfo(json, "specularTexture", m.specular.texture, nullptr);
    if (!sameColor(m.specular.color_factor, 1, 1, 1))
      json.key("specularColorFactor").array(std::span<const float>(m.specular.color_factor));
    textureInfo(json, "specularColorTexture", m.specular.color_texture, nullptr);
    json.endObject();
  }
  if (clearcoat) {
    json.key("KHR_materials_clearcoat").beginObject();
    if (m.clearcoat.factor != 0) json.field("clearcoatFactor", m.clearcoat.factor);
    textureInfo(json, "clearcoatTexture", m.clearcoat.texture, nullptr);
    if (m.clearcoat.roughness_factor != 0) json.field("clearcoatRoughnessFactor", m.clearcoat.roughness_factor);
    textureInfo(json, "clearcoatRoughnessTexture", m.clearcoat.roughness_texture, nullptr);
    textureInfo(json, "clearcoatNormalTexture", m.clearcoat.normal_texture, "scale");
    json.endObject();
  }
  if (sheen) {
    json.key("KHR_materials_sheen").beginObject();
    if (!sameColor(m.sheen.color_factor, 0, 0, 0))
      json.key("sheenColorFactor").array(std::span<const float>(m.sheen.color_factor));
    textureInfo(json, "sheenColorTexture", m.sheen.color_texture, nullptr);
    if (m.sheen.roughness_factor != 0) json.field("sheenRoughnessFactor", m.sheen.roughness_factor);
    textureInfo(json, "sheenRoughnessTexture", m.sheen.roughness_texture, nullptr);
    json.endObject();
  }
  json.endObject();
}

}  // namespace morphkit::gltf_detail
