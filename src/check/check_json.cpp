// SPDX-License-Identifier: MIT
// check_json.cpp — the check report as JSON (docs/CHECK.md, "JSON").
#include <algorithm>

#include "morphkit/check/check.h"
#include "morphkit/io/json_writer.h"

namespace morphkit {

namespace {

constexpr double kMmPerUnit = 1000.0;  // glTF 2.0 §3.4: the unit of length is the metre

void writeIndex(JsonWriter& w, std::string_view name, uint32_t index) {
  w.key(name);
  if (index == kNone) {
    w.null();
  } else {
    w.value(index);
  }
}

void writeDeviation(JsonWriter& w, bool measured, const Deviation& d) {
  if (!measured) {
    w.null();
    return;
  }
  w.beginObject();
  w.field("frames", d.frames).field("frames_differing", d.frames_differing);
  w.field("position", d.position).field("position_mm", d.position * kMmPerUnit);
  w.field("position_percent_of_bbox", d.position_percent).field("normal_degrees", d.normal_degrees);
  w.field("tangent_degrees", d.tangent_degrees).field("texcoord_color", d.attribute);
  w.key("worst").beginObject();
  writeIndex(w, "node", d.node);
  writeIndex(w, "mesh", d.mesh);
  writeIndex(w, "primitive", d.primitive);
  writeIndex(w, "vertex", d.vertex);
  writeIndex(w, "animation", d.frames_differing ? d.animation : kNone);
  w.key("time");
  if (d.frames_differing) {
    w.value(d.time);
  } else {
    w.null();
  }
  w.endObject();
  w.key("first_differing").beginObject();
  writeIndex(w, "animation", d.frames_differing ? d.first_animation : kNone);
  w.key("time");
  if (d.frames_differing) {
    w.value(d.first_time);
  } else {
    w.null();
  }
  w.endObject();
  w.endObject();
}

void writeRule(JsonWriter& w, const ProfileRule& rule) {
  w.field("id", ruleId(rule.kind)).field("what", rule.what).field("source", rule.source);
  w.field("verified", rule.verified).field("geometric", isGeometricRule(rule.kind));
}

}  // namespace

std::string checkReportJson(const CheckReport& report) {
  JsonWriter w(true);
  w.beginObject();
  w.field("file", report.file);
  writeIndex(w, "scene", report.scene);
  w.field("frames", report.frames);
  w.key("engines").beginArray();
  for (const EngineReport& e : report.engines) {
    w.beginObject();
    w.field("name", e.profile->name).field("engine", e.profile->engine).field("loads", e.loads);
    w.key("deviation");
    writeDeviation(w, e.measured, e.deviation);
    w.key("rules").beginArray();
    for (const RuleReport& r : e.rules) {
      w.beginObject();
      writeRule(w, *r.rule);
      w.field("applies", r.applies).field("where", r.where);
      w.key("deviation");
      writeDeviation(w, r.measured, r.deviation);
      w.endObject();
    }
    w.endArray();
    w.key("hazards").beginArray();
    for (const Hazard& h : e.hazards) {
      w.beginObject();
      w.field("id", ruleId(h.rule->kind)).field("message", h.message).field("refuses_load", h.refuses_load);
      w.field("source", h.rule->source);
      w.key("deviation_if_dropped");
      writeDeviation(w, h.measured, h.deviation);
      w.endObject();
    }
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return w.str();
}

double worstDeviationMm(const CheckReport& report) {
  double worst = 0.0;
  for (const EngineReport& e : report.engines) {
    if (e.measured) worst = std::max(worst, e.deviation.position * kMmPerUnit);
  }
  return worst;
}

}  // namespace morphkit
