// SPDX-License-Identifier: MIT
// demo_vrm.cpp — VRM expressions for the demo face (morphkit/demo/demo.h, addDemoExpressions): every VRM 1.0 preset and
// one custom expression, each bound to the demo's ARKit-named targets, as VRM 1.0 (VRMC_vrm) or VRM 0.x (VRM).
#include <string_view>
#include <vector>

#include "morphkit/demo/demo.h"

namespace morphkit {

namespace {

struct BindRow {
  std::string_view target;  // an ARKit name the demo gives one of its first 52 targets
  float weight;
};
struct ExpressionRow {
  std::string_view name;
  bool preset, is_binary;
  ExpressionOverride blink, look_at, mouth;
  std::vector<BindRow> binds;
};

constexpr ExpressionOverride kOff = ExpressionOverride::kNoOverride;
constexpr ExpressionOverride kBlock = ExpressionOverride::kBlock;
constexpr ExpressionOverride kBlend = ExpressionOverride::kBlend;

// The face's expressions (docs/FACE_CAPTURE.md lists them): emotions override the procedural groups the way
// avatars commonly do (a smile attenuates blinks; anger, binary, blocks them once on; surprise, binary, blocks lip
// sync). Binary, so that a capture's faint frown or brow raise does not block every blink or viseme.
const std::vector<ExpressionRow>& demoExpressions() {
  static const std::vector<ExpressionRow> rows = {
      {"happy",
       true,
       false,
       kBlend,
       kOff,
       kOff,
       {{"mouthSmileLeft", 1}, {"mouthSmileRight", 1}, {"cheekSquintLeft", 0.5f}, {"cheekSquintRight", 0.5f}}},
      {"angry",
       true,
       true,
       kBlock,
       kOff,
       kOff,
       {{"browDownLeft", 1}, {"browDownRight", 1}, {"mouthFrownLeft", 0.5f}, {"mouthFrownRight", 0.5f}}},
      {"sad", true, false, kOff, kOff, kOff, {{"browInnerUp", 1}, {"mouthFrownLeft", 1}, {"mouthFrownRight", 1}}},
      {"relaxed",
       true,
       false,
       kOff,
       kOff,
       kOff,
       {{"eyeSquintLeft", 0.6f}, {"eyeSquintRight", 0.6f}, {"mouthSmileLeft", 0.3f}, {"mouthSmileRight", 0.3f}}},
      {"surprised",
       true,
       true,
       kOff,
       kOff,
       kBlock,
       {{"eyeWideLeft", 1}, {"eyeWideRight", 1}, {"browInnerUp", 1}, {"jawOpen", 0.4f}}},
      {"aa", true, false, kOff, kOff, kOff, {{"jawOpen", 1}}},
      {"ih", true, false, kOff, kOff, kOff, {{"mouthStretchLeft", 1}, {"mouthStretchRight", 1}}},
      {"ou", true, false, kOff, kOff, kOff, {{"mouthPucker", 1}}},
      {"ee",
       true,
       false,
       kOff,
       kOff,
       kOff,
       {{"mouthStretchLeft", 0.5f}, {"mouthStretchRight", 0.5f}, {"jawOpen", 0.2f}}},
      {"oh", true, false, kOff, kOff, kOff, {{"mouthFunnel", 1}, {"jawOpen", 0.3f}}},
      {"blink", true, false, kOff, kOff, kOff, {{"eyeBlinkLeft", 1}, {"eyeBlinkRight", 1}}},
      {"blinkLeft", true, false, kOff, kOff, kOff, {{"eyeBlinkLeft", 1}}},
      {"blinkRight", true, false, kOff, kOff, kOff, {{"eyeBlinkRight", 1}}},
      {"lookUp", true, false, kOff, kOff, kOff, {{"eyeLookUpLeft", 1}, {"eyeLookUpRight", 1}}},
      {"lookDown", true, false, kOff, kOff, kOff, {{"eyeLookDownLeft", 1}, {"eyeLookDownRight", 1}}},
      {"lookLeft", true, false, kOff, kOff, kOff, {{"eyeLookOutLeft", 1}, {"eyeLookInRight", 1}}},
      {"lookRight", true, false, kOff, kOff, kOff, {{"eyeLookOutRight", 1}, {"eyeLookInLeft", 1}}},
      {"neutral", true, false, kOff, kOff, kOff, {}},
      {"smirk", false, false, kOff, kOff, kBlend, {{"mouthSmileLeft", 1}, {"mouthDimpleLeft", 0.5f}}},
  };
  return rows;
}

uint32_t targetNamed(const Mesh& mesh, std::string_view name) {
  for (uint32_t t = 0; t < mesh.target_names.size() && t < targetCount(mesh); ++t)
    if (mesh.target_names[t] == name) return t;
  return kNone;
}

}  // namespace

void addDemoExpressions(Asset& asset, bool vrm0) {
  const uint32_t mesh = 0, node = 0;  // the demo's head: mesh 0 on node 0
  asset.vrm.version = vrm0 ? "0.x" : "1.0";
  asset.vrm.expressions.clear();
  for (const ExpressionRow& row : demoExpressions()) {
    Expression& e = asset.vrm.expressions.emplace_back();
    e.name = std::string(row.name);
    // VRM 0.x has no preset for "surprised" (it came with 1.0) and no override properties.
    e.preset = row.preset && !(vrm0 && row.name == "surprised");
    e.is_binary = row.is_binary;
    if (!vrm0) {
      e.override_blink = row.blink;
      e.override_look_at = row.look_at;
      e.override_mouth = row.mouth;
    }
    for (const BindRow& b : row.binds) {
      const uint32_t target = targetNamed(asset.meshes[mesh], b.target);
      if (target == kNone) continue;  // fewer than 52 targets: the missing ones bind nothing
      MorphTargetBind& bind = e.binds.emplace_back();
      (vrm0 ? bind.mesh : bind.node) = vrm0 ? mesh : node;
      bind.index = target;
      bind.weight = b.weight;
    }
  }
  asset.extensions_used.push_back(vrm0 ? "VRM" : "VRMC_vrm");
}

}  // namespace morphkit
