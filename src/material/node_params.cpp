// SPDX-License-Identifier: MIT
// node_params.cpp — each built-in block type's parameters (Constant, Uniform, Texture, Uv, Swizzle; docs/
// NODE_MATERIALS.md), read for parseNodeMaterial (node_parse.cpp).
#include <algorithm>
#include <cmath>
#include <string>

#include "morphkit/model/text.h"
#include "node_internal.h"
#include "node_json.h"

namespace morphkit::node_json {

namespace {

struct GltfValueInfo {
  const char* name;
  NodeGltfValue value;
  NodeValueType type;
  std::array<float, 4> fallback;  // the glTF default (§5.22, §5.19-5.21)
};
const GltfValueInfo kGltfValues[] = {
    {"baseColorFactor", NodeGltfValue::kBaseColorFactor, NodeValueType::kVec4, {1, 1, 1, 1}},
    {"metallicFactor", NodeGltfValue::kMetallicFactor, NodeValueType::kFloat, {1, 0, 0, 0}},
    {"roughnessFactor", NodeGltfValue::kRoughnessFactor, NodeValueType::kFloat, {1, 0, 0, 0}},
    {"emissiveFactor", NodeGltfValue::kEmissiveFactor, NodeValueType::kVec3, {0, 0, 0, 0}},
    {"normalScale", NodeGltfValue::kNormalScale, NodeValueType::kFloat, {1, 0, 0, 0}},
    {"occlusionStrength", NodeGltfValue::kOcclusionStrength, NodeValueType::kFloat, {1, 0, 0, 0}},
};

struct SlotInfo {
  const char* name;
  NodeTextureSlot slot;
  bool srgb;
  std::array<float, 4> unbound;
};
const SlotInfo kSlots[] = {
    {"baseColor", NodeTextureSlot::kBaseColor, true, {1, 1, 1, 1}},
    {"metallicRoughness", NodeTextureSlot::kMetallicRoughness, false, {1, 1, 1, 1}},
    {"normal", NodeTextureSlot::kNormal, false, {0.5f, 0.5f, 1, 1}},  // the flat tangent-space normal
    {"occlusion", NodeTextureSlot::kOcclusion, false, {1, 1, 1, 1}},
    {"emissive", NodeTextureSlot::kEmissive, true, {1, 1, 1, 1}},
};

}  // namespace

std::set<std::string> paramKeys(const std::string& type) {
  if (type == "Constant") return {"value", "valueType"};
  if (type == "Uniform") return {"name", "value", "valueType", "gltf"};
  if (type == "Texture") return {"slot", "image", "srgb"};
  if (type == "Uv") return {"set"};
  if (type == "Swizzle") return {"components"};
  return {};
}

namespace {

// A Constant: its value, and a declared valueType (a scalar broadcasts to it).
Status readConstantParams(object o, NodeBlock& block, const std::string& where) {
  element e;
  if (o.at_key("value").get(e) != simdjson::SUCCESS) return failAt(kNodeError, where + ".value", "required");
  auto v = readValue(e, where + ".value");
  if (!v) return v.error();
  block.value_type = v->first;
  block.value = v->second;
  std::string_view t;
  if (o.at_key("valueType").get(e) == simdjson::SUCCESS) {
    if (e.get_string().get(t) != simdjson::SUCCESS) return failAt(kNodeError, where + ".valueType", "must be a string");
    auto declared = readValueType(t, where + ".valueType");
    if (!declared) return declared.error();
    if (*declared != block.value_type) {
      if (block.value_type != NodeValueType::kFloat) {
        return failAt(kNodeError, where + ".value",
                      std::string("has ") + std::to_string(nodeValueComponents(block.value_type)) +
                          " components, valueType is " + nodeValueTypeName(*declared));
      }
      block.value = {block.value[0], block.value[0], block.value[0], block.value[0]};  // a scalar broadcasts
      block.value_type = *declared;
    }
  }
  return Ok{};
}

// A Uniform: a named value of the material's uniform block, typed by gltf, valueType or value (which must agree).
Status readUniformParams(object o, NodeBlock& block, NodeMaterial& material, const std::string& where) {
  element e;
  std::string_view name;
  if (o.at_key("name").get(e) != simdjson::SUCCESS || e.get_string().get(name) != simdjson::SUCCESS) {
    return failAt(kNodeError, where + ".name", "required string");
  }
  if (!isIdentifier(name))
    return failAt(kNodeError, where + ".name", quote(name) + " is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  for (const NodeUniformInfo& u : material.uniforms) {
    if (u.name == name) return failAt(kNodeError, where + ".name", "duplicate uniform " + quote(name));
  }
  NodeUniformInfo info;
  info.name = std::string(name);
  bool typed = false;
  if (o.at_key("gltf").get(e) == simdjson::SUCCESS) {
    std::string_view g;
    if (e.get_string().get(g) != simdjson::SUCCESS) return failAt(kNodeError, where + ".gltf", "must be a string");
    const GltfValueInfo* found = nullptr;
    for (const GltfValueInfo& gv : kGltfValues) {
      if (g == gv.name) found = &gv;
    }
    if (!found) return failAt(kNodeError, where + ".gltf", "unknown glTF material value " + quote(g));
    info.gltf = found->value;
    info.type = found->type;
    info.value = found->fallback;
    typed = true;
  }
  if (o.at_key("valueType").get(e) == simdjson::SUCCESS) {
    std::string_view t;
    if (e.get_string().get(t) != simdjson::SUCCESS) return failAt(kNodeError, where + ".valueType", "must be a string");
    auto declared = readValueType(t, where + ".valueType");
    if (!declared) return declared.error();
    if (typed && *declared != info.type) {
      return failAt(kNodeError, where + ".valueType",
                    std::string("the glTF value is a ") + nodeValueTypeName(info.type));
    }
    info.type = *declared;
    typed = true;
  }
  if (o.at_key("value").get(e) == simdjson::SUCCESS) {
    auto v = readValue(e, where + ".value");
    if (!v) return v.error();
    if (typed && v->first != info.type) {
      return failAt(
          kNodeError, where + ".value",
          std::string("is a ") + nodeValueTypeName(v->first) + ", the uniform a " + nodeValueTypeName(info.type));
    }
    info.type = v->first;
    info.value = v->second;
    typed = true;
  }
  if (!typed) return failAt(kNodeError, where, "a Uniform needs valueType, value or gltf");
  info.offset = uint32_t(sizeof(NodeObjectHeader) + 16 * material.uniforms.size());
  block.uniform = info.name;
  block.value_type = info.type;
  block.value = info.value;
  block.gltf = info.gltf;
  material.uniforms.push_back(info);
  return Ok{};
}

// A Texture: a glTF material slot or an image of the file; one binding per distinct source.
Status readTextureParams(object o, NodeBlock& block, NodeMaterial& material, const std::string& where) {
  element e;
  NodeTextureInfo info;
  std::string_view slot;
  const bool has_slot = o.at_key("slot").get(e) == simdjson::SUCCESS;
  if (has_slot) {
    if (e.get_string().get(slot) != simdjson::SUCCESS) return failAt(kNodeError, where + ".slot", "must be a string");
    const SlotInfo* found = nullptr;
    for (const SlotInfo& s : kSlots) {
      if (slot == s.name) found = &s;
    }
    if (!found) {
      return failAt(kNodeError, where + ".slot",
                    "unknown slot " + quote(slot) + " (baseColor, metallicRoughness, normal, occlusion, emissive)");
    }
    info.slot = found->slot;
    info.srgb = found->srgb;
    info.unbound = found->unbound;
  }
  const bool has_image = o.at_key("image").get(e) == simdjson::SUCCESS;
  if (has_image) {
    if (has_slot) return failAt(kNodeError, where, "a Texture has either slot or image, not both");
    uint64_t index = 0;
    if (e.get_uint64().get(index) != simdjson::SUCCESS || index >= kNone)
      return failAt(kNodeError, where + ".image", "must be an image index");
    info.slot = NodeTextureSlot::kImage;
    info.image = uint32_t(index);
    bool srgb = false;
    if (o.at_key("srgb").get(e) == simdjson::SUCCESS && e.get_bool().get(srgb) != simdjson::SUCCESS) {
      return failAt(kNodeError, where + ".srgb", "must be a boolean");
    }
    info.srgb = srgb;
  } else if (o.at_key("srgb").get(e) == simdjson::SUCCESS) {
    return failAt(kNodeError, where + ".srgb", "only for image textures (slots have a fixed color space)");
  }
  if (!has_slot && !has_image) return failAt(kNodeError, where, "a Texture needs slot or image");
  // One binding per distinct source.
  uint32_t index = kNone;
  for (uint32_t i = 0; i < material.textures.size(); ++i) {
    const NodeTextureInfo& t = material.textures[i];
    if (t.slot == info.slot && t.image == info.image && t.srgb == info.srgb) index = i;
  }
  if (index == kNone) {
    index = uint32_t(material.textures.size());
    material.textures.push_back(info);
  }
  block.texture = index;
  block.value = info.unbound;
  return Ok{};
}

}  // namespace

Status readParams(object o, NodeBlock& block, NodeMaterial& material, const std::string& where) {
  const std::string& type = block.type;
  if (type == "Constant") return readConstantParams(o, block, where);
  if (type == "Uniform") return readUniformParams(o, block, material, where);
  if (type == "Texture") return readTextureParams(o, block, material, where);
  element e;
  if (type == "Uv") {
    if (o.at_key("set").get(e) == simdjson::SUCCESS) {
      uint64_t set = 0;
      if (e.get_uint64().get(set) != simdjson::SUCCESS || set > 1)
        return failAt(kNodeError, where + ".set", "must be 0 or 1 (TEXCOORD_0, TEXCOORD_1)");
      block.texcoord = uint32_t(set);
    }
    return Ok{};
  }
  if (type == "Swizzle") {
    std::string_view c;
    if (o.at_key("components").get(e) != simdjson::SUCCESS || e.get_string().get(c) != simdjson::SUCCESS) {
      return failAt(kNodeError, where + ".components", "required string (e.g. \"xyz\")");
    }
    block.components = std::string(c);
    return Ok{};
  }
  return Ok{};
}

}  // namespace morphkit::node_json
