// SPDX-License-Identifier: MIT
// morphkit/core/expressions.h — a VRM avatar's expressions (Asset::vrm: VRMC_vrm 1.0 or VRM 0.x,
// morphkit/model/asset.h) driven by value: expression values → morph target weights, as the VRM 1.0 specification's
// expression update says (VRMC_vrm-1.0/expressions.md, "Procedural override", "Interaction between override and
// isBinary", "Expression update algorithm"):
//   1. each value is clamped to [0, 1]; an isBinary expression outputs 1 above 0.5, else 0;
//   2. the procedural groups — blink (blink, blinkLeft, blinkRight), lookAt (lookUp, lookDown, lookLeft,
//      lookRight), mouth (aa, ih, ou, ee, oh) — get a factor 1 - saturate(sum of the other expressions' effect):
//      an expression whose override<Group> is "block" adds 1 when its output is > 0, "blend" adds its output,
//      "none" nothing; an expression's override of its own group is ignored ("treated as invalid");
//   3. a group member's output is multiplied by its group's factor; an isBinary member with a factor below 1 is
//      suppressed completely (0);
//   4. every morph target a given expression binds starts at 0 and gains output × bind weight per bind (VRM 1.0
//      binds name a node: its mesh's target moves, on every node of that mesh; VRM 0.x binds name the mesh).
// Targets no given expression binds keep whatever else drives them. Custom expressions join step 2 like presets.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/core/weights.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"

namespace morphkit {

// The index into asset.vrm.expressions of the expression named `name` (exact, or per `match`), or kNone.
uint32_t findExpression(const Asset& asset, std::string_view name, NameMatch match = NameMatch::kExact);

// One expression's value, by index into asset.vrm.expressions.
struct ExpressionValue {
  uint32_t expression = kNone;
  float value = 0.0f;
};

// The target weights the given expression values make (steps 1-4 above), one per target some given expression
// binds: an override by (mesh, target), in mesh then target order. A later value for the same expression wins.
// Values are finite (the callers' parsers refuse others); an index out of range is kInvalidArgument.
Expected<std::vector<WeightOverride>> expressionWeights(const Asset& asset, std::span<const ExpressionValue> values);

// A track whose columns may name expressions: those columns are replaced by one column per target they bind
// (column_targets set), each row evaluated by expressionWeights over that row's expression values; the other
// columns are kept as they are. Rows in between interpolate the target weights (LINEAR), not the expressions.
// Returns the track unchanged when no column names an expression.
Expected<WeightTrack> expressionTrack(const Asset& asset, const WeightTrack& track, NameMatch match);

// "happy", "blinkLeft", ...: the names of the asset's expressions, in file order (preset first for VRM 1.0).
std::vector<std::string> expressionNames(const Asset& asset);

const char* expressionOverrideName(ExpressionOverride value);  // "none", "block", "blend"

}  // namespace morphkit
