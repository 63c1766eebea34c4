// SPDX-License-Identifier: MIT
// A small mutable JSON tree: the input document as read, which the glTF writer edits and writes back, so what the
// data model does not hold (extras, unknown extensions, names) survives a load → write. Private to morphkit::gltf.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/model/error.h"

namespace morphkit {
class JsonWriter;
}

namespace morphkit::gltf_detail {

struct JsonTree {
  enum class Kind : uint8_t { kNull, kBool, kInt, kUint, kDouble, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool flag = false;
  int64_t int_value = 0;
  uint64_t uint_value = 0;
  double double_value = 0;
  std::string text;             // kString
  std::vector<JsonTree> items;  // kArray
  // kObject, in file order: keys[i] names values[i] (two vectors: a pair holding the still incomplete JsonTree is
  // not allowed where a vector of it is)
  std::vector<std::string> keys;
  std::vector<JsonTree> values;

  bool isObject() const { return kind == Kind::kObject; }
  bool isArray() const { return kind == Kind::kArray; }
  // The member named `key`, or nullptr (objects only).
  JsonTree* find(std::string_view key);
  const JsonTree* find(std::string_view key) const;
  // Sets (replacing in place, or appending) the member `key`.
  void set(std::string_view key, JsonTree value);
  void erase(std::string_view key);
  static JsonTree object() {
    JsonTree t;
    t.kind = Kind::kObject;
    return t;
  }
  static JsonTree array() {
    JsonTree t;
    t.kind = Kind::kArray;
    return t;
  }
  static JsonTree string(std::string_view s) {
    JsonTree t;
    t.kind = Kind::kString;
    t.text = std::string(s);
    return t;
  }
};

// Parses JSON text (any valid JSON) into a tree; kInvalidJson on bad text.
Expected<JsonTree> parseJsonTree(std::string_view text);
// Writes the tree through the one JSON writer (numbers as read: integers exact, doubles shortest round-trip).
void writeJsonTree(JsonWriter& json, const JsonTree& tree);

}  // namespace morphkit::gltf_detail
