// SPDX-License-Identifier: MIT
// weight_files.cpp — weights files and capture maps (JSON) on simdjson's DOM.
#include "morphkit/io/weight_files.h"

#include <cmath>
#include <string>

#include "json_fields.h"
#include "morphkit/model/text.h"

namespace morphkit {

namespace {

using simdjson::dom::element;
using simdjson::dom::object;

std::string shownKey(std::string_view text) {
  return quote(text);
}

Expected<object> parseObject(simdjson::dom::parser& parser, std::string_view text, const char* what) {
  element doc;
  MORPHKIT_TRY(json::parse(parser, text, doc));
  object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS) {
    return fail(Error::kInvalidArgument, std::string("the top level must be an object: ") + what);
  }
  return root;
}

// simdjson keeps every duplicate key; a weights file or map with one twice is almost certainly a mistake.
Status checkUniqueKeys(object root) {
  std::vector<std::string_view> seen;
  for (auto field : root) {
    for (std::string_view key : seen) {
      if (key == field.key) return fail(Error::kInvalidArgument, shownKey(field.key) + ": repeated key");
    }
    seen.push_back(field.key);
  }
  return Ok{};
}

}  // namespace

Expected<std::vector<WeightOverride>> parseWeightsJson(std::string_view text) {
  simdjson::dom::parser parser;
  Expected<object> root = parseObject(parser, text, "{\"targetName\": weight, ...}");
  if (!root) return root.error();
  if (Status s = checkUniqueKeys(*root); !s) return s.error();
  std::vector<WeightOverride> overrides;
  for (auto field : *root) {
    double value = 0.0;
    if (!json::readFinite(field.value, value)) {
      return fail(Error::kInvalidArgument, shownKey(field.key) + ": must be a finite number");
    }
    if (field.key.empty()) return fail(Error::kInvalidArgument, "'': a target name must not be empty");
    WeightOverride o;
    o.name = std::string(field.key);
    o.value = float(value);
    overrides.push_back(std::move(o));
  }
  return overrides;
}

Expected<CaptureMap> parseCaptureMapJson(std::string_view text) {
  simdjson::dom::parser parser;
  Expected<object> root =
      parseObject(parser, text, "{\"CaptureColumn\": \"target\" | {\"target\", \"scale\"} | null, ...}");
  if (!root) return root.error();
  if (Status s = checkUniqueKeys(*root); !s) return s.error();
  CaptureMap map;
  for (auto field : *root) {
    const std::string key = shownKey(field.key);
    if (field.key.empty()) return fail(Error::kInvalidArgument, "'': a capture column name must not be empty");
    CaptureMapEntry entry;
    entry.column = std::string(field.key);
    std::string_view target;
    object spec;
    if (field.value.is_null()) {
      // an ignored column: empty target
    } else if (field.value.get_string().get(target) == simdjson::SUCCESS) {
      if (target.empty())
        return fail(Error::kInvalidArgument, key + ": the target name must not be empty (null ignores the column)");
      entry.target = std::string(target);
    } else if (field.value.get_object().get(spec) == simdjson::SUCCESS) {
      for (auto member : spec) {
        if (member.key == "target") {
          if (member.value.is_null()) continue;
          if (member.value.get_string().get(target) != simdjson::SUCCESS || target.empty()) {
            return fail(Error::kInvalidArgument, key + ".target: must be a non-empty string or null");
          }
          entry.target = std::string(target);
        } else if (member.key == "scale") {
          double scale = 0.0;
          if (!json::readFinite(member.value, scale)) {
            return fail(Error::kInvalidArgument, key + ".scale: must be a finite number");
          }
          entry.scale = float(scale);
        } else {
          return fail(Error::kInvalidArgument, key + "." +
                                                   shownKey(member.key).substr(1, shownKey(member.key).size() - 2) +
                                                   ": unknown field (expected target, scale)");
        }
      }
      if (spec["target"].error() != simdjson::SUCCESS) {
        return fail(Error::kInvalidArgument, key + ": needs \"target\" (a target name, or null to ignore the column)");
      }
    } else {
      return fail(Error::kInvalidArgument,
                  key + ": must be a target name, {\"target\": name, \"scale\": number} or null");
    }
    map.entries.push_back(std::move(entry));
  }
  return map;
}

}  // namespace morphkit
