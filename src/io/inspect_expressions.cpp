// SPDX-License-Identifier: MIT
// inspect_expressions.cpp — a VRM avatar's expressions in `inspect`'s report (morphkit/io/inspect.h).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "morphkit/core/expressions.h"
#include "morphkit/io/inspect.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/model/text.h"

namespace morphkit {

void writeExpressionsJson(JsonWriter& json, const Asset& asset) {
  json.key("vrm");
  if (asset.vrm.version.empty()) {
    json.null();
    return;
  }
  json.beginObject().field("version", asset.vrm.version).key("expressions").beginArray();
  for (const Expression& e : asset.vrm.expressions) {
    json.beginObject().field("name", e.name).field("preset", e.preset).field("isBinary", e.is_binary);
    json.field("overrideBlink", expressionOverrideName(e.override_blink));
    json.field("overrideLookAt", expressionOverrideName(e.override_look_at));
    json.field("overrideMouth", expressionOverrideName(e.override_mouth));
    json.key("binds").beginArray();
    for (const MorphTargetBind& b : e.binds) {
      json.beginObject();
      if (b.node != kNone) json.field("node", b.node);
      if (b.mesh != kNone) json.field("mesh", b.mesh);
      json.field("index", b.index).field("weight", b.weight).endObject();
    }
    json.endArray().endObject();
  }
  json.endArray().endObject();
}

std::vector<std::string> describeExpressions(const Asset& asset) {
  auto number = [](float v) {  // "1", "0.5", "0.25": no trailing zeros
    std::string text = std::to_string(v);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
    return text;
  };
  std::vector<std::string> lines;
  for (const Expression& e : asset.vrm.expressions) {
    std::string line = printable(e.name);
    line.resize(std::max<size_t>(line.size(), 12), ' ');
    line += e.preset ? " preset" : " custom";
    if (e.is_binary) line += "  binary";
    const std::pair<const char*, ExpressionOverride> overrides[] = {
        {"blink", e.override_blink}, {"lookAt", e.override_look_at}, {"mouth", e.override_mouth}};
    for (const auto& [group, value] : overrides) {
      if (value != ExpressionOverride::kNoOverride)
        line += std::string("  ") + group + ":" + expressionOverrideName(value);
    }
    line += "  " + std::to_string(e.binds.size()) + (e.binds.size() == 1 ? " bind" : " binds");
    for (size_t i = 0; i < e.binds.size() && i < 4; ++i) {
      const MorphTargetBind& b = e.binds[i];
      line += std::string(i ? ", " : " (") +
              (b.node != kNone ? "node " + std::to_string(b.node) : "mesh " + std::to_string(b.mesh)) + " target " +
              std::to_string(b.index) + " x" + number(b.weight);
    }
    if (e.binds.size() > 4) line += ", ...";
    if (!e.binds.empty()) line += ")";
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace morphkit
