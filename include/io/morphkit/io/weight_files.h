// SPDX-License-Identifier: MIT
// morphkit/io/weight_files.h — the two small JSON files that drive weights by name (simdjson, private to
// morphkit::io); the structs they fill are core's and io's (morphkit/core/weights.h, morphkit/io/capture.h).
//
//   weights file   {"jawOpen": 0.8, "eyeBlinkLeft": 1}
//                  one override per key, in file order; values are finite numbers (not clamped)
//   capture map    {"MouthSmileLeft": "smile_L", "JawOpen": {"target": "jaw_open", "scale": 0.8}, "TongueOut": null}
//                  capture column → target name (a string), or {"target": name, "scale": number (default 1)};
//                  null (or "target": null) ignores the column
//
// Errors name the key: kInvalidJson when the text is not JSON; kInvalidArgument "'KEY': must be a finite
// number" (etc.) for a value of the wrong kind, a repeated key, or a top-level value that is not an object.
// Keys and targets are kept exactly as written.
#pragma once
#include <cstddef>
#include <string_view>
#include <vector>

#include "morphkit/core/weights.h"
#include "morphkit/io/capture.h"
#include "morphkit/model/error.h"

namespace morphkit {

// Read limits for these files and for a capture CSV, shared by the CLI and the Python package.
inline constexpr size_t kMaxWeightsFileBytes = size_t(16) << 20;
inline constexpr size_t kMaxCaptureBytes = size_t(1) << 30;  // ~1.5 M rows of the app's 61 columns

Expected<std::vector<WeightOverride>> parseWeightsJson(std::string_view text);
Expected<CaptureMap> parseCaptureMapJson(std::string_view text);

}  // namespace morphkit
