// SPDX-License-Identifier: MIT
// expressions.cpp — VRM expression values → morph target weights (morphkit/core/expressions.h states the rules, from
// the VRM 1.0 specification, VRMC_vrm-1.0/expressions.md).
#include "morphkit/core/expressions.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace morphkit {

namespace {

// The procedural groups of "Procedural override", in the order of Expression's override fields.
enum Group : int { kBlinkGroup, kLookAtGroup, kMouthGroup, kGroups, kNoGroup = -1 };

Group groupOf(const Expression& e) {
  if (!e.preset) return kNoGroup;
  static constexpr std::array<std::string_view, 3> kBlink = {"blink", "blinkLeft", "blinkRight"};
  static constexpr std::array<std::string_view, 4> kLookAt = {"lookUp", "lookDown", "lookLeft", "lookRight"};
  static constexpr std::array<std::string_view, 5> kMouth = {"aa", "ih", "ou", "ee", "oh"};
  auto in = [&](auto& names) { return std::find(names.begin(), names.end(), e.name) != names.end(); };
  if (in(kBlink)) return kBlinkGroup;
  if (in(kLookAt)) return kLookAtGroup;
  if (in(kMouth)) return kMouthGroup;
  return kNoGroup;
}

ExpressionOverride overrideOf(const Expression& e, int group) {
  return group == kBlinkGroup ? e.override_blink : group == kLookAtGroup ? e.override_look_at : e.override_mouth;
}

// The mesh a bind moves: VRM 0.x names it, VRM 1.0 names a node (validation: with a mesh with the target).
uint32_t bindMesh(const Asset& asset, const MorphTargetBind& bind) {
  if (bind.mesh != kNone) return bind.mesh;
  return bind.node < asset.nodes.size() ? asset.nodes[bind.node].mesh : kNone;
}

}  // namespace

uint32_t findExpression(const Asset& asset, std::string_view name, NameMatch match) {
  const std::vector<Expression>& all = asset.vrm.expressions;
  for (uint32_t i = 0; i < all.size(); ++i)
    if (all[i].name == name) return i;
  if (match == NameMatch::kExact) return kNone;
  for (uint32_t i = 0; i < all.size(); ++i)
    if (namesMatch(all[i].name, name, match)) return i;
  return kNone;
}

Expected<std::vector<WeightOverride>> expressionWeights(const Asset& asset, std::span<const ExpressionValue> values) {
  const std::vector<Expression>& all = asset.vrm.expressions;
  // Step 1: clamp, isBinary. `given` marks the expressions the caller set.
  std::vector<float> output(all.size(), 0.0f);
  std::vector<uint8_t> given(all.size(), 0);
  for (const ExpressionValue& v : values) {
    if (v.expression >= all.size()) {
      return fail(Error::kInvalidArgument, "expressions: index " + std::to_string(v.expression) + " is out of range (" +
                                               std::to_string(all.size()) + " exist)");
    }
    const float clamped = std::clamp(v.value, 0.0f, 1.0f);
    output[v.expression] = all[v.expression].is_binary ? (clamped > 0.5f ? 1.0f : 0.0f) : clamped;
    given[v.expression] = 1;
  }
  // Step 2: each group's factor, 1 - saturate(the other expressions' block/blend effect).
  std::array<float, kGroups> effect{};
  for (size_t i = 0; i < all.size(); ++i) {
    for (int g = 0; g < kGroups; ++g) {
      if (!given[i] || groupOf(all[i]) == g) continue;  // an override of its own group is ignored
      const ExpressionOverride o = overrideOf(all[i], g);
      if (o == ExpressionOverride::kBlock && output[i] > 0.0f) effect[size_t(g)] += 1.0f;
      if (o == ExpressionOverride::kBlend) effect[size_t(g)] += output[i];
    }
  }
  // Step 3: the group members attenuated; an isBinary one suppressed by any effect.
  for (size_t i = 0; i < all.size(); ++i) {
    const Group g = groupOf(all[i]);
    if (!given[i] || g == kNoGroup) continue;
    const float factor = 1.0f - std::clamp(effect[size_t(g)], 0.0f, 1.0f);
    output[i] = all[i].is_binary && factor < 1.0f ? 0.0f : output[i] * factor;
  }
  // Step 4: every bound target from 0, plus output × bind weight.
  std::vector<std::vector<float>> sums(asset.meshes.size());
  std::vector<std::vector<uint8_t>> bound(asset.meshes.size());
  for (size_t i = 0; i < all.size(); ++i) {
    if (!given[i]) continue;
    for (const MorphTargetBind& bind : all[i].binds) {
      const uint32_t mesh = bindMesh(asset, bind);
      if (mesh >= asset.meshes.size() || bind.index >= targetCount(asset.meshes[mesh])) continue;  // validated
      if (sums[mesh].empty()) {
        sums[mesh].assign(targetCount(asset.meshes[mesh]), 0.0f);
        bound[mesh].assign(sums[mesh].size(), 0);
      }
      sums[mesh][bind.index] += output[i] * bind.weight;
      bound[mesh][bind.index] = 1;
    }
  }
  std::vector<WeightOverride> weights;
  for (uint32_t m = 0; m < sums.size(); ++m) {
    for (uint32_t t = 0; t < sums[m].size(); ++t) {
      if (bound[m][t]) weights.push_back(WeightOverride{"", t, m, sums[m][t]});
    }
  }
  return weights;
}

Expected<WeightTrack> expressionTrack(const Asset& asset, const WeightTrack& track, NameMatch match) {
  if (Status s = checkWeightTrack(track); !s) return s.error();
  const size_t columns = track.names.size();
  std::vector<uint32_t> expression_of(columns, kNone);
  bool any = false;
  for (size_t c = 0; c < columns; ++c) {
    const bool by_name = c >= track.column_targets.size() || track.column_targets[c].mesh == kNone;
    if (by_name) expression_of[c] = findExpression(asset, track.names[c], match);
    any |= expression_of[c] != kNone;
  }
  if (!any) return track;
  const size_t rows = track.keys.times.size();
  std::vector<std::vector<WeightOverride>> row_weights(rows);
  std::vector<ExpressionValue> values;
  for (size_t r = 0; r < rows; ++r) {
    values.clear();
    for (size_t c = 0; c < columns; ++c) {
      if (expression_of[c] != kNone) values.push_back({expression_of[c], track.keys.values[r * columns + c]});
    }
    Expected<std::vector<WeightOverride>> weights = expressionWeights(asset, values);
    if (!weights) return weights.error();
    row_weights[r] = std::move(*weights);
  }
  // Every row binds the same targets (the same expressions are given), in the same order.
  WeightTrack out;
  out.keys.interpolation = Interpolation::kLinear;
  out.keys.times = track.keys.times;
  for (const WeightOverride& w : row_weights[0]) {
    const Mesh& mesh = asset.meshes[w.mesh];
    const bool named = w.target < mesh.target_names.size() && !mesh.target_names[w.target].empty();
    out.names.push_back(named ? mesh.target_names[w.target]
                              : "meshes[" + std::to_string(w.mesh) + "] target " + std::to_string(w.target));
    out.column_targets.push_back({w.mesh, w.target});
  }
  for (size_t c = 0; c < columns; ++c) {  // after the expressions' columns: a target named directly wins
    if (expression_of[c] != kNone) continue;
    out.names.push_back(track.names[c]);
    out.column_targets.push_back(c < track.column_targets.size() ? track.column_targets[c] : TargetRef{});
  }
  const size_t out_columns = out.names.size();
  out.keys.components = uint32_t(out_columns);
  out.keys.values.reserve(rows * out_columns);
  for (size_t r = 0; r < rows; ++r) {
    for (const WeightOverride& w : row_weights[r]) out.keys.values.push_back(w.value);
    for (size_t c = 0; c < columns; ++c) {
      if (expression_of[c] == kNone) out.keys.values.push_back(track.keys.values[r * columns + c]);
    }
  }
  if (out_columns == 0) return fail(Error::kInvalidArgument, "expressions: the track's expressions bind no target");
  return out;
}

std::vector<std::string> expressionNames(const Asset& asset) {
  std::vector<std::string> names;
  for (const Expression& e : asset.vrm.expressions) names.push_back(e.name);
  return names;
}

const char* expressionOverrideName(ExpressionOverride value) {
  switch (value) {
    case ExpressionOverride::kNoOverride:
      return "none";
    case ExpressionOverride::kBlock:
      return "block";
    case ExpressionOverride::kBlend:
      return "blend";
  }
  return "none";
}

}  // namespace morphkit
