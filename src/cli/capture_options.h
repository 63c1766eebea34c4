// SPDX-License-Identifier: MIT
// The capture options of pose, render and animate (--capture / --weights-csv, --capture-format, --face,
// --capture-fps, --csv-fps, --map, --capture-scale, --neutral, --smooth, --capture-offset, animate's --fps,
// --verbose): registered once, and a capture file loaded, cleaned (morphkit/io/capture_signal.h), mapped and matched
// against one asset with its one-line report and, under --verbose, a line per step (docs/FACE_CAPTURE.md).
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "morphkit/io/json_writer.h"
#include "morphkit/model/asset.h"
#include "weight_options.h"

namespace morphkit::cli {

// `resample`: also --fps (animate), which resamples the capture.
void addCaptureOptions(CLI::App& sub, WeightOptions& options, bool resample);

// Reads options.csv (any format), maps and matches it against `asset`, prints the report on stderr and sets
// out.capture. Returns 0, or the exit code after printing one error line (1 bad input, 2 bad option values).
int loadCapture(const Asset& asset, const std::string& asset_file, const WeightOptions& options, LoadedWeights& out);

// animate --max-error: what reduceForBake did, for the summary.
struct BakeReduction {
  bool applied = false;
  size_t keys_before = 0, keys_after = 0;
  double bound_mm = 0.0, max_error_mm = 0.0, at_time = 0.0;
  // "; keys 240 -> 52 within 0.1 mm (largest vertex error 0.0987 mm at 1.233 s)", or "" when not applied.
  std::string describe() const;
  void addJson(JsonWriter& json) const;  // keysBefore, maxErrorMm, maxErrorTime (when applied)
};

// With options.max_error_mm > 0: replaces out.capture's track by the fewest LINEAR keys that keep every vertex of
// every posed mesh within the bound at every capture row (morphkit/core/track_reduce.h, the rest pose posed by the
// core). Returns 0, or the exit code after one error line.
int reduceForBake(const Asset& asset, const std::string& asset_file, const WeightOptions& options, LoadedWeights& out,
                  BakeReduction& reduction);

}  // namespace morphkit::cli
