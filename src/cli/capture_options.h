// SPDX-License-Identifier: MIT
// The capture options of pose, render and animate (--capture / --weights-csv, --capture-format, --face,
// --capture-fps, --csv-fps, --map, --verbose): registered once, and a capture file loaded, mapped and matched
// against one asset with its one-line report (docs/FACE_CAPTURE.md).
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "morphkit/asset.h"
#include "weight_options.h"

namespace morphkit::cli {

void addCaptureOptions(CLI::App& sub, WeightOptions& options);

// Reads options.csv (any format), maps and matches it against `asset`, prints the report on stderr and sets
// out.capture. Returns 0, or the exit code after printing one error line (1 bad input, 2 bad option values).
int loadCapture(const Asset& asset, const std::string& asset_file, const WeightOptions& options, LoadedWeights& out);

}  // namespace morphkit::cli
