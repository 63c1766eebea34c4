// SPDX-License-Identifier: MIT
// Typed field readers over simdjson's DOM, each failing with "<where>.<key>: <what>". Private to morphkit::gltf.
#pragma once
#include <simdjson.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"
#include "morphkit/model/text.h"

#define MORPHKIT_TRY(expr)                                  \
  do {                                                      \
    ::morphkit::Status morphkit_status_ = (expr);           \
    if (!morphkit_status_) return morphkit_status_.error(); \
  } while (0)

namespace morphkit::gltf_detail {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

inline Failure schemaError(const std::string& where, std::string_view key, std::string_view what) {
  return fail(Error::kInvalidGltf, where + "." + std::string(key) + ": " + std::string(what));
}

inline bool has(object o, std::string_view key) {
  return o.at_key(key).error() == simdjson::SUCCESS;
}

// An index or count: a JSON integer in [0, 2^32 - 2] (kNone is reserved for "absent").
inline Status readIndex(object o, std::string_view key, uint32_t& out, const std::string& where,
                        bool required = false) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) {
    if (required) return schemaError(where, key, "is required");
    return Ok{};
  }
  uint64_t v;
  if (e.get_uint64().get(v) != simdjson::SUCCESS || v >= 0xFFFFFFFFull) {
    return schemaError(where, key, "must be a non-negative integer below 2^32-1");
  }
  out = uint32_t(v);
  return Ok{};
}

inline Status readSize(object o, std::string_view key, size_t& out, const std::string& where, bool required = false) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) {
    if (required) return schemaError(where, key, "is required");
    return Ok{};
  }
  uint64_t v;
  if (e.get_uint64().get(v) != simdjson::SUCCESS) return schemaError(where, key, "must be a non-negative integer");
  out = size_t(v);
  return Ok{};
}

inline Status readFloat(object o, std::string_view key, float& out, const std::string& where) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
  double v;
  if (e.get_double().get(v) != simdjson::SUCCESS) return schemaError(where, key, "must be a number");
  // double → float outside float's range is undefined behavior; such a value is no usable factor anyway.
  if (std::fabs(v) > double(std::numeric_limits<float>::max())) return schemaError(where, key, "is out of float range");
  out = float(v);
  return Ok{};
}

inline Status readBool(object o, std::string_view key, bool& out, const std::string& where) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
  if (e.get_bool().get(out) != simdjson::SUCCESS) return schemaError(where, key, "must be a boolean");
  return Ok{};
}

inline Status readString(object o, std::string_view key, std::string& out, const std::string& where,
                         bool required = false) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) {
    if (required) return schemaError(where, key, "is required");
    return Ok{};
  }
  std::string_view v;
  if (e.get_string().get(v) != simdjson::SUCCESS) return schemaError(where, key, "must be a string");
  out = std::string(v);
  return Ok{};
}

// A number array; `exact` > 0 requires that length.
template <class T>
inline Status readNumbers(object o, std::string_view key, std::vector<T>& out, const std::string& where,
                          size_t exact = 0) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
  array a;
  if (e.get_array().get(a) != simdjson::SUCCESS) return schemaError(where, key, "must be an array of numbers");
  out.clear();
  for (element item : a) {
    double v;
    if (item.get_double().get(v) != simdjson::SUCCESS) return schemaError(where, key, "must contain only numbers");
    if (sizeof(T) < sizeof(double) && std::fabs(v) > double(std::numeric_limits<T>::max())) {
      return schemaError(where, key, "contains a number out of float range");  // the conversion would be undefined
    }
    out.push_back(T(v));
  }
  if (exact && out.size() != exact) {
    return schemaError(where, key, "must have exactly " + std::to_string(exact) + " elements");
  }
  return Ok{};
}

inline Status readIndices(object o, std::string_view key, std::vector<uint32_t>& out, const std::string& where) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
  array a;
  if (e.get_array().get(a) != simdjson::SUCCESS) return schemaError(where, key, "must be an array of indices");
  out.clear();
  for (element item : a) {
    uint64_t v;
    if (item.get_uint64().get(v) != simdjson::SUCCESS || v >= 0xFFFFFFFFull) {
      return schemaError(where, key, "must contain only non-negative integers");
    }
    out.push_back(uint32_t(v));
  }
  return Ok{};
}

// Calls fn(object, where) for each element of the top-level array `key` ("meshes" → "meshes[3]").
template <class Fn>
inline Status forEachObject(object o, std::string_view key, const std::string& prefix, Fn&& fn) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
  array a;
  std::string name = prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
  if (e.get_array().get(a) != simdjson::SUCCESS) return fail(Error::kInvalidGltf, name + ": must be an array");
  size_t i = 0;
  for (element item : a) {
    std::string where = name + "[" + std::to_string(i++) + "]";
    object child;
    if (item.get_object().get(child) != simdjson::SUCCESS)
      return fail(Error::kInvalidGltf, where + ": must be an object");
    MORPHKIT_TRY(fn(child, where));
  }
  return Ok{};
}

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
