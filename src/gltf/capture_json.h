// SPDX-License-Identifier: MIT
// The JSON capture parsers' shared pieces (capture_mediapipe.cpp, capture_a2f.cpp). Private to morphkit::gltf.
#pragma once
#include <simdjson.h>

#include <cmath>
#include <string>
#include <string_view>

#include "json_fields.h"
#include "morphkit/model/error.h"
#include "morphkit/model/json_syntax.h"

namespace morphkit::capture_json {

// Parses `text` into `out` (kept valid by `parser`). JSON has no NaN or Infinity; a writer that emits them
// (Python's json.dumps does) gets that said.
inline Status parseJson(simdjson::dom::parser& parser, std::string_view text, simdjson::dom::element& out,
                        const std::string& where = "") {
  simdjson::padded_string padded(text.data(), text.size());
  if (auto error = parser.parse(padded).get(out); error != simdjson::SUCCESS) {
    const bool non_finite =
        text.find("NaN") != std::string_view::npos || text.find("Infinity") != std::string_view::npos;
    return fail(Error::kInvalidJson,
                where + jsonErrorWhere(text) + "JSON: " + simdjson::error_message(error) +
                    (non_finite ? " (NaN and Infinity are not JSON numbers: scores must be finite)" : ""));
  }
  return Ok{};
}

inline bool readFinite(simdjson::dom::element e, double& out) {
  return e.get_double().get(out) == simdjson::SUCCESS && std::isfinite(out) && std::isfinite(float(out));
}

inline Failure fieldError(const std::string& where, const std::string& what) {
  return fail(Error::kInvalidArgument, where + ": " + what);
}

}  // namespace morphkit::capture_json
