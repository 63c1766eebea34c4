// SPDX-License-Identifier: MIT
#include "json_tree.h"

#include <simdjson.h>

#include <algorithm>

#include "morphkit/io/json_writer.h"

namespace morphkit::gltf_detail {
namespace {

// glTF documents nest a handful of levels; a hostile one could nest thousands (simdjson caps its own depth at
// 1024 by default, which this recursion stays inside).
JsonTree fromElement(simdjson::dom::element e) {
  JsonTree t;
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY:
      t.kind = JsonTree::Kind::kArray;
      {
        const simdjson::dom::array array = e.get_array().value_unsafe();
        for (simdjson::dom::element item : array) t.items.push_back(fromElement(item));
      }
      break;
    case simdjson::dom::element_type::OBJECT:
      t.kind = JsonTree::Kind::kObject;
      {
        const simdjson::dom::object object = e.get_object().value_unsafe();
        for (auto field : object) {
          t.keys.emplace_back(field.key);
          t.values.push_back(fromElement(field.value));
        }
      }
      break;
    case simdjson::dom::element_type::INT64:
      t.kind = JsonTree::Kind::kInt;
      t.int_value = e.get_int64().value_unsafe();
      break;
    case simdjson::dom::element_type::UINT64:
      t.kind = JsonTree::Kind::kUint;
      t.uint_value = e.get_uint64().value_unsafe();
      break;
    case simdjson::dom::element_type::DOUBLE:
      t.kind = JsonTree::Kind::kDouble;
      t.double_value = e.get_double().value_unsafe();
      break;
    case simdjson::dom::element_type::STRING:
      t.kind = JsonTree::Kind::kString;
      t.text = std::string(e.get_string().value_unsafe());
      break;
    case simdjson::dom::element_type::BOOL:
      t.kind = JsonTree::Kind::kBool;
      t.flag = e.get_bool().value_unsafe();
      break;
    case simdjson::dom::element_type::NULL_VALUE:
      break;
  }
  return t;
}

}  // namespace

JsonTree* JsonTree::find(std::string_view key) {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return &values[i];
  }
  return nullptr;
}

const JsonTree* JsonTree::find(std::string_view key) const {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return &values[i];
  }
  return nullptr;
}

void JsonTree::set(std::string_view key, JsonTree value) {
  if (JsonTree* existing = find(key)) {
    *existing = std::move(value);
    return;
  }
  keys.emplace_back(key);
  values.push_back(std::move(value));
}

void JsonTree::erase(std::string_view key) {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] != key) continue;
    keys.erase(keys.begin() + std::ptrdiff_t(i));
    values.erase(values.begin() + std::ptrdiff_t(i));
    return;
  }
}

Expected<JsonTree> parseJsonTree(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (auto error = parser.parse(padded).get(root); error != simdjson::SUCCESS) {
    return fail(Error::kInvalidJson, std::string("JSON: ") + simdjson::error_message(error));
  }
  return fromElement(root);
}

void writeJsonTree(JsonWriter& json, const JsonTree& tree) {
  switch (tree.kind) {
    case JsonTree::Kind::kNull:
      json.null();
      break;
    case JsonTree::Kind::kBool:
      json.value(tree.flag);
      break;
    case JsonTree::Kind::kInt:
      json.value(tree.int_value);
      break;
    case JsonTree::Kind::kUint:
      json.value(tree.uint_value);
      break;
    case JsonTree::Kind::kDouble:
      json.value(tree.double_value);
      break;
    case JsonTree::Kind::kString:
      json.value(std::string_view(tree.text));
      break;
    case JsonTree::Kind::kArray:
      json.beginArray();
      for (const JsonTree& item : tree.items) writeJsonTree(json, item);
      json.endArray();
      break;
    case JsonTree::Kind::kObject:
      json.beginObject();
      for (size_t i = 0; i < tree.keys.size(); ++i) {
        json.key(tree.keys[i]);
        writeJsonTree(json, tree.values[i]);
      }
      json.endObject();
      break;
  }
}

}  // namespace morphkit::gltf_detail
