// SPDX-License-Identifier: MIT
// The one JSON field reader of morphkit: typed reads over simdjson's DOM, each failing with "<where>.<key>: <what>"
// ("<key>: <what>" when `where` is empty) and the error code of the format being read (kInvalidGltf for glTF,
// kInvalidArgument for captures, weights files, batch jobs and node materials). Header-only and internal: the layers
// that read JSON (io, gltf, material, batch) link morphkit_json_fields and simdjson privately.
#pragma once
#include <simdjson.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/model/error.h"
#include "morphkit/model/json_syntax.h"

#define MORPHKIT_TRY(expr)                                  \
  do {                                                      \
    ::morphkit::Status morphkit_status_ = (expr);           \
    if (!morphkit_status_) return morphkit_status_.error(); \
  } while (0)

namespace morphkit::json {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

inline std::string fieldName(const std::string& where, std::string_view key) {
  return where.empty() ? std::string(key) : where + "." + std::string(key);
}
inline Failure fieldError(Error code, const std::string& where, std::string_view key, std::string_view what) {
  return fail(code, fieldName(where, key) + ": " + std::string(what));
}
// "<where>: <what>", for a failure about the value at `where` itself.
inline Failure failAt(Error code, const std::string& where, std::string_view what) {
  return fail(code, where + ": " + std::string(what));
}

// Parses `text` into `out` (kept valid by `parser`); kInvalidJson with the line and column where the text stops
// being JSON. JSON has no NaN or Infinity; a writer that emits them (Python's json.dumps does) gets that said.
inline Status parse(simdjson::dom::parser& parser, std::string_view text, element& out, const std::string& where = "") {
  simdjson::padded_string padded(text.data(), text.size());
  if (auto error = parser.parse(padded).get(out); error != simdjson::SUCCESS) {
    const bool non_finite =
        text.find("NaN") != std::string_view::npos || text.find("Infinity") != std::string_view::npos;
    return fail(Error::kInvalidJson,
                where + jsonErrorWhere(text) + "not JSON: " + simdjson::error_message(error) +
                    (non_finite ? " (NaN and Infinity are not JSON numbers: values must be finite)" : ""));
  }
  return Ok{};
}

inline bool has(object o, std::string_view key) {
  return o.at_key(key).error() == simdjson::SUCCESS;
}

// A number that is finite as a double and as a float.
inline bool readFinite(element e, double& out) {
  return e.get_double().get(out) == simdjson::SUCCESS && std::isfinite(out) && std::isfinite(float(out));
}

// ---- Fields of an object, by key: absent leaves `out` as it is (or fails "is required") ----

// A JSON integer in [0, `max_value`] at `key` into `out`; absent leaves `out` (or fails "is required").
inline Status readUnsigned(Error code, object o, std::string_view key, uint64_t& out, const std::string& where,
                           bool required, uint64_t max_value, std::string_view what) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) {
    return required ? Status(fieldError(code, where, key, "is required")) : Status(Ok{});
  }
  uint64_t v;
  if (e.get_uint64().get(v) != simdjson::SUCCESS || v > max_value) return fieldError(code, where, key, what);
  out = v;
  return Ok{};
}

// An index or count: a JSON integer in [0, 2^32 - 2] (kNone is reserved for "absent").
inline Status readIndex(Error code, object o, std::string_view key, uint32_t& out, const std::string& where,
                        bool required = false) {
  uint64_t v = out;
  MORPHKIT_TRY(
      readUnsigned(code, o, key, v, where, required, 0xFFFFFFFEull, "must be a non-negative integer below 2^32-1"));
  out = uint32_t(v);
  return Ok{};
}

inline Status readSize(Error code, object o, std::string_view key, size_t& out, const std::string& where,
                       bool required = false) {
  uint64_t v = out;
  MORPHKIT_TRY(readUnsigned(code, o, key, v, where, required, std::numeric_limits<uint64_t>::max(),
                            "must be a non-negative integer"));
  out = size_t(v);
  return Ok{};
}

inline Status readFloat(Error code, object o, std::string_view key, float& out, const std::string& where) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
  double v;
  if (e.get_double().get(v) != simdjson::SUCCESS) return fieldError(code, where, key, "must be a number");
  // double → float outside float's range is undefined behavior; such a value is no usable factor anyway.
  if (std::fabs(v) > double(std::numeric_limits<float>::max())) {
    return fieldError(code, where, key, "is out of float range");
  }
  out = float(v);
  return Ok{};
}

inline Status readBool(Error code, object o, std::string_view key, bool& out, const std::string& where) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
  if (e.get_bool().get(out) != simdjson::SUCCESS) return fieldError(code, where, key, "must be a boolean");
  return Ok{};
}

inline Status readString(Error code, object o, std::string_view key, std::string& out, const std::string& where,
                         bool required = false) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) {
    if (required) return fieldError(code, where, key, "is required");
    return Ok{};
  }
  std::string_view v;
  if (e.get_string().get(v) != simdjson::SUCCESS) return fieldError(code, where, key, "must be a string");
  out = std::string(v);
  return Ok{};
}

// A number array; `exact` > 0 requires that length.
template <class T>
inline Status readNumbers(Error code, object o, std::string_view key, std::vector<T>& out, const std::string& where,
                          size_t exact = 0) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
  array a;
  if (e.get_array().get(a) != simdjson::SUCCESS) return fieldError(code, where, key, "must be an array of numbers");
  out.clear();
  for (element item : a) {
    double v;
    if (item.get_double().get(v) != simdjson::SUCCESS) {
      return fieldError(code, where, key, "must contain only numbers");
    }
    if (sizeof(T) < sizeof(double) && std::fabs(v) > double(std::numeric_limits<T>::max())) {
      return fieldError(code, where, key, "contains a number out of float range");  // the conversion is undefined
    }
    out.push_back(T(v));
  }
  if (exact && out.size() != exact) {
    return fieldError(code, where, key, "must have exactly " + std::to_string(exact) + " elements");
  }
  return Ok{};
}

inline Status readIndices(Error code, object o, std::string_view key, std::vector<uint32_t>& out,
                          const std::string& where) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
  array a;
  if (e.get_array().get(a) != simdjson::SUCCESS) return fieldError(code, where, key, "must be an array of indices");
  out.clear();
  for (element item : a) {
    uint64_t v;
    if (item.get_uint64().get(v) != simdjson::SUCCESS || v >= 0xFFFFFFFFull) {
      return fieldError(code, where, key, "must contain only non-negative integers");
    }
    out.push_back(uint32_t(v));
  }
  return Ok{};
}

// Calls fn(object, where) for each element of the array `key` ("meshes" → "meshes[3]").
template <class Fn>
inline Status forEachObject(Error code, object o, std::string_view key, const std::string& prefix, Fn&& fn) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
  array a;
  const std::string name = fieldName(prefix, key);
  if (e.get_array().get(a) != simdjson::SUCCESS) return fail(code, name + ": must be an array");
  size_t i = 0;
  for (element item : a) {
    std::string where = name + "[" + std::to_string(i++) + "]";
    object child;
    if (item.get_object().get(child) != simdjson::SUCCESS) return fail(code, where + ": must be an object");
    MORPHKIT_TRY(fn(child, where));
  }
  return Ok{};
}

// ---- A value already found (a key's value while walking an object): "<name>: expected ..." ----

inline Status readStringValue(Error code, element e, std::string_view name, std::string& out) {
  std::string_view text;
  if (e.get_string().get(text) != simdjson::SUCCESS) return fieldError(code, "", name, "expected a string");
  out = std::string(text);
  return Ok{};
}

inline Status readUintIn(Error code, element e, std::string_view name, uint32_t& out, uint64_t lo, uint64_t hi) {
  uint64_t v = 0;
  if (e.get_uint64().get(v) != simdjson::SUCCESS || v < lo || v > hi) {
    return fieldError(code, "", name, "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  out = uint32_t(v);
  return Ok{};
}

inline Status readNumberIn(Error code, element e, std::string_view name, double& out, double lo, double hi) {
  if (e.get_double().get(out) != simdjson::SUCCESS || !(out >= lo && out <= hi)) {
    char range[64];
    std::snprintf(range, sizeof range, "%g..%g", lo, hi);
    return fieldError(code, "", name, std::string("expected a number in ") + range);
  }
  return Ok{};
}

inline Status readStringsValue(Error code, element e, std::string_view name, std::vector<std::string>& out) {
  array list;
  if (e.get_array().get(list) != simdjson::SUCCESS) return fieldError(code, "", name, "expected an array of strings");
  for (element item : list) {
    std::string text;
    MORPHKIT_TRY(readStringValue(code, item, name, text));
    out.push_back(std::move(text));
  }
  return Ok{};
}

}  // namespace morphkit::json
