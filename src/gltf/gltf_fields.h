// SPDX-License-Identifier: MIT
// glTF's side of the one JSON field reader (src/model/json_fields.h): the readers glTF's parsers use, called with
// kGltfError (every field error in a glTF document is kInvalidGltf), and the accessor enums. Private to morphkit::gltf.
#pragma once
#include <string>

#include "json_fields.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"
#include "morphkit/model/text.h"

namespace morphkit::gltf_detail {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

inline constexpr Error kGltfError = Error::kInvalidGltf;
using json::fieldError;
using json::forEachObject;
using json::has;
using json::readBool;
using json::readFloat;
using json::readIndex;
using json::readIndices;
using json::readNumbers;
using json::readSize;
using json::readString;

// Accessor enums from their JSON forms (glTF 2.0 §3.6.2).
inline Expected<ComponentType> parseComponentType(uint32_t value, const std::string& where) {
  switch (value) {
    case 5120:
    case 5121:
    case 5122:
    case 5123:
    case 5125:
    case 5126:
      return ComponentType(value);
    default:
      return fail(Error::kInvalidGltf, where + ".componentType: " + std::to_string(value) +
                                           " is not a glTF component type (glTF 2.0 §3.6.2.2)");
  }
}

inline Expected<AccessorType> parseAccessorType(const std::string& text, const std::string& where) {
  static const std::pair<const char*, AccessorType> kTypes[] = {
      {"SCALAR", AccessorType::kScalar}, {"VEC2", AccessorType::kVec2}, {"VEC3", AccessorType::kVec3},
      {"VEC4", AccessorType::kVec4},     {"MAT2", AccessorType::kMat2}, {"MAT3", AccessorType::kMat3},
      {"MAT4", AccessorType::kMat4}};
  for (const auto& [name, type] : kTypes) {
    if (text == name) return type;
  }
  return fail(Error::kInvalidGltf, where + ".type: " + quote(text) + " is not an accessor type (glTF 2.0 §3.6.2.1)");
}

}  // namespace morphkit::gltf_detail
