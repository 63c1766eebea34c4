// SPDX-License-Identifier: MIT
// vrm_expressions.cpp — VRM expressions in the glTF JSON (vrm_expressions.h): VRM 1.0's VRMC_vrm.expressions
// (github.com/vrm-c/vrm-specification, specification/VRMC_vrm-1.0/expressions.md and its schema) and VRM 0.x's
// blendShapeMaster (specification/0.0: blendShapeGroups with binds {mesh, index, weight 0..100}).
#include "vrm_expressions.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "morphkit/core/expressions.h"
#include "validate_internal.h"

namespace morphkit {

namespace {

constexpr std::array<std::string_view, 18> kPresets = {
    "happy", "angry", "sad",       "relaxed",    "surprised", "aa",       "ih",       "ou",        "ee",
    "oh",    "blink", "blinkLeft", "blinkRight", "lookUp",    "lookDown", "lookLeft", "lookRight", "neutral"};

// VRM 0.x presetName → VRM 1.0's preset (the 1.0 specification's renames: joy → happy, sorrow → sad, fun →
// relaxed, a/i/u/e/o → aa/ih/ou/ee/oh, blink_l/r → blinkLeft/Right, lookup → lookUp, ...).
constexpr std::pair<std::string_view, std::string_view> kVrm0Presets[] = {{"neutral", "neutral"},
                                                                          {"a", "aa"},
                                                                          {"i", "ih"},
                                                                          {"u", "ou"},
                                                                          {"e", "ee"},
                                                                          {"o", "oh"},
                                                                          {"blink", "blink"},
                                                                          {"joy", "happy"},
                                                                          {"angry", "angry"},
                                                                          {"sorrow", "sad"},
                                                                          {"fun", "relaxed"},
                                                                          {"lookup", "lookUp"},
                                                                          {"lookdown", "lookDown"},
                                                                          {"lookleft", "lookLeft"},
                                                                          {"lookright", "lookRight"},
                                                                          {"blink_l", "blinkLeft"},
                                                                          {"blink_r", "blinkRight"}};

constexpr const char* kVrm1Where = "extensions.VRMC_vrm.expressions";
constexpr const char* kVrm0Where = "extensions.VRM.blendShapeMaster.blendShapeGroups";

}  // namespace

namespace gltf_detail {

namespace {

bool objectAt(object o, std::string_view key, object& out) {
  element e;
  return o.at_key(key).get(e) == simdjson::SUCCESS && e.get_object().get(out) == simdjson::SUCCESS;
}

Status readOverride(object o, std::string_view key, ExpressionOverride& out, const std::string& where) {
  std::string text = "none";
  MORPHKIT_TRY(readString(kGltfError, o, key, text, where));
  if (text == "none")
    out = ExpressionOverride::kNoOverride;
  else if (text == "block")
    out = ExpressionOverride::kBlock;
  else if (text == "blend")
    out = ExpressionOverride::kBlend;
  else
    return fieldError(kGltfError, where, key,
                      quote(text) + " is not none, block or blend (VRMC_vrm expression schema)");
  return Ok{};
}

// One VRM 1.0 expression object (VRMC_vrm.expressions.expression.schema.json); materialColorBinds and
// textureTransformBinds are not morph targets and are not read.
Status parseVrm1Expression(object o, const std::string& where, Expression& e) {
  MORPHKIT_TRY(readBool(kGltfError, o, "isBinary", e.is_binary, where));
  MORPHKIT_TRY(readOverride(o, "overrideBlink", e.override_blink, where));
  MORPHKIT_TRY(readOverride(o, "overrideLookAt", e.override_look_at, where));
  MORPHKIT_TRY(readOverride(o, "overrideMouth", e.override_mouth, where));
  return forEachObject(kGltfError, o, "morphTargetBinds", where, [&](object b, const std::string& w) -> Status {
    MorphTargetBind& bind = e.binds.emplace_back();
    MORPHKIT_TRY(readIndex(kGltfError, b, "node", bind.node, w, true));
    MORPHKIT_TRY(readIndex(kGltfError, b, "index", bind.index, w, true));
    MORPHKIT_TRY(readFloat(kGltfError, b, "weight", bind.weight, w));
    if (!(bind.weight >= 0.0f && bind.weight <= 1.0f))
      return fieldError(kGltfError, w, "weight", "must be in [0, 1] (VRMC_vrm morphTargetBind schema)");
    return Status(Ok{});
  });
}

Status parseVrm1(object vrm, Asset& asset) {
  asset.vrm.version = "1.0";
  object expressions;
  if (!objectAt(vrm, "expressions", expressions)) return Ok{};
  for (const bool preset : {true, false}) {
    object group;
    const char* key = preset ? "preset" : "custom";
    if (!objectAt(expressions, key, group)) continue;
    for (auto field : group) {
      const std::string name(field.key);
      const std::string where = std::string(kVrm1Where) + "." + key + "." + printable(name);
      const bool is_preset_name = std::find(kPresets.begin(), kPresets.end(), name) != kPresets.end();
      if (preset && !is_preset_name) return fail(Error::kInvalidGltf, where + ": is not a VRM 1.0 preset");
      if (!preset && is_preset_name) {
        return fail(Error::kInvalidGltf,
                    where + ": a custom expression MUST NOT take a preset's name (VRMC_vrm expressions)");
      }
      object o;
      if (field.value.get_object().get(o) != simdjson::SUCCESS)
        return fail(Error::kInvalidGltf, where + ": must be an object");
      Expression& e = asset.vrm.expressions.emplace_back();
      e.name = name;
      e.preset = preset;
      MORPHKIT_TRY(parseVrm1Expression(o, where, e));
    }
  }
  return Ok{};
}

Status parseVrm0(object vrm, Asset& asset) {
  asset.vrm.version = "0.x";
  object master;
  if (!objectAt(vrm, "blendShapeMaster", master)) return Ok{};
  return forEachObject(
      kGltfError, master, "blendShapeGroups", "extensions.VRM.blendShapeMaster",
      [&](object g, const std::string& where) -> Status {
        Expression& e = asset.vrm.expressions.emplace_back();
        std::string preset = "unknown";
        MORPHKIT_TRY(readString(kGltfError, g, "name", e.name, where));
        MORPHKIT_TRY(readString(kGltfError, g, "presetName", preset, where));
        MORPHKIT_TRY(readBool(kGltfError, g, "isBinary", e.is_binary, where));
        for (const auto& [old_name, new_name] : kVrm0Presets) {
          if (preset == old_name) {
            e.name = std::string(new_name);
            e.preset = true;
          }
        }
        if (e.name.empty()) return fieldError(kGltfError, where, "name", "is required for presetName unknown");
        return forEachObject(kGltfError, g, "binds", where, [&](object b, const std::string& w) -> Status {
          MorphTargetBind& bind = e.binds.emplace_back();
          MORPHKIT_TRY(readIndex(kGltfError, b, "mesh", bind.mesh, w, true));
          MORPHKIT_TRY(readIndex(kGltfError, b, "index", bind.index, w, true));
          float percent = 100.0f;
          MORPHKIT_TRY(readFloat(kGltfError, b, "weight", percent, w));
          if (!(percent >= 0.0f && percent <= 100.0f))
            return fieldError(kGltfError, w, "weight", "must be in [0, 100] (VRM 0.x blendShapeBind)");
          bind.weight = percent / 100.0f;
          return Status(Ok{});
        });
      });
}

}  // namespace

Status parseVrmExpressions(object root, Asset& asset) {
  object extensions, vrm;
  if (!objectAt(root, "extensions", extensions)) return Ok{};
  if (objectAt(extensions, "VRMC_vrm", vrm)) return parseVrm1(vrm, asset);
  if (objectAt(extensions, "VRM", vrm)) return parseVrm0(vrm, asset);
  return Ok{};
}

namespace {

const char* vrm0PresetName(const Expression& e) {
  if (!e.preset) return "unknown";
  for (const auto& [old_name, new_name] : kVrm0Presets)
    if (e.name == new_name) return old_name.data();
  return "unknown";
}

void writeVrm1Group(JsonWriter& json, const Asset& asset, bool preset) {
  json.key(preset ? "preset" : "custom").beginObject();
  for (const Expression& e : asset.vrm.expressions) {
    if (e.preset != preset) continue;
    json.key(e.name).beginObject();
    json.field("isBinary", e.is_binary);
    json.field("overrideBlink", expressionOverrideName(e.override_blink));
    json.field("overrideLookAt", expressionOverrideName(e.override_look_at));
    json.field("overrideMouth", expressionOverrideName(e.override_mouth));
    json.key("morphTargetBinds").beginArray();
    for (const MorphTargetBind& b : e.binds) {
      json.beginObject().field("node", b.node).field("index", b.index).field("weight", b.weight).endObject();
    }
    json.endArray().endObject();
  }
  json.endObject();
}

}  // namespace

void writeVrmExpressions(JsonWriter& json, const Asset& asset) {
  if (asset.vrm.version.empty()) return;
  json.key("extensions").beginObject();
  if (asset.vrm.version == "1.0") {
    json.key("VRMC_vrm").beginObject().field("specVersion", "1.0").key("expressions").beginObject();
    writeVrm1Group(json, asset, true);
    writeVrm1Group(json, asset, false);
    json.endObject().endObject();
  } else {
    json.key("VRM").beginObject().key("blendShapeMaster").beginObject().key("blendShapeGroups").beginArray();
    for (const Expression& e : asset.vrm.expressions) {
      json.beginObject().field("name", e.name).field("presetName", vrm0PresetName(e));
      json.field("isBinary", e.is_binary).key("binds").beginArray();
      for (const MorphTargetBind& b : e.binds) {
        json.beginObject().field("mesh", b.mesh).field("index", b.index).field("weight", double(b.weight) * 100.0);
        json.endObject();
      }
      json.endArray().endObject();
    }
    json.endArray().endObject().endObject();
  }
  json.endObject();
}

}  // namespace gltf_detail

namespace validate_detail {

Status validateVrmExpressions(const Asset& asset) {
  const bool v1 = asset.vrm.version == "1.0";
  for (size_t x = 0; x < asset.vrm.expressions.size(); ++x) {
    const Expression& e = asset.vrm.expressions[x];
    const std::string base =
        v1 ? std::string(kVrm1Where) + (e.preset ? ".preset." : ".custom.") + printable(e.name) + ".morphTargetBinds"
           : std::string(kVrm0Where) + "[" + std::to_string(x) + "].binds";
    for (size_t b = 0; b < e.binds.size(); ++b) {
      const MorphTargetBind& bind = e.binds[b];
      const std::string where = base + "[" + std::to_string(b) + "]";
      uint32_t mesh = bind.mesh;
      if (v1) {
        VALIDATE_TRY(checkRequiredIndex(bind.node, asset.nodes.size(), where + ".node", "node"));
        mesh = asset.nodes[bind.node].mesh;
        if (mesh == kNone)
          return invalid(where + ".node",
                         "node " + std::to_string(bind.node) + " has no mesh (VRMC_vrm: the node has a mesh)");
      } else {
        VALIDATE_TRY(checkRequiredIndex(bind.mesh, asset.meshes.size(), where + ".mesh", "mesh"));
      }
      const uint32_t targets = targetCount(asset.meshes[mesh]);
      if (bind.index == kNone || bind.index >= targets) {
        return invalid(where + ".index", "morph target " + std::to_string(bind.index) + " is out of range (mesh " +
                                             std::to_string(mesh) + " has " + std::to_string(targets) + ")");
      }
    }
  }
  return Ok{};
}

}  // namespace validate_detail

}  // namespace morphkit
