// SPDX-License-Identifier: MIT
// Options shared by the commands that drive morph targets by name (pose, render, animate): --weights,
// --weights-file, --ignore-unknown, --ignore-case, and the capture options (--capture / --weights-csv,
// --capture-format, --face, --capture-fps, --csv-fps, --map, --verbose; capture_options.h); loading and resolving
// them against one asset, with the capture summary and warnings on stderr.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/core/weights.h"
#include "morphkit/io/capture.h"
#include "morphkit/model/asset.h"

namespace morphkit::cli {

struct WeightOptions {
  std::vector<std::string> weights;     // NAME=VALUE items (--weights, comma-separated, repeatable)
  std::string weights_file;             // {"name": value}
  std::string csv;                      // the capture file (--capture, alias --weights-csv), any format
  std::string capture_format = "auto";  // --capture-format: captureFormatName's spellings
  uint32_t face = 0;                    // --face: MediaPipe's face N
  double capture_fps = 0.0;             // --capture-fps: frame rate of a capture without times (0: none)
  double csv_fps = 60.0;                // timecode frame rate (HH:MM:SS:FF)
  std::vector<std::string> maps;        // --map NAME|FILE.json, repeatable: built-in maps, then files
  double capture_scale = 0.0;           // --capture-scale: the value meaning "fully on" (0: detected)
  std::string neutral;                  // --neutral first:SECONDS | FILE (a capture of the neutral face)
  std::string smooth;                   // --smooth one-euro[:MINCUTOFF,BETA]
  double capture_offset = 0.0;          // --capture-offset SECONDS
  double resample_fps = 0.0;            // animate --fps: resample the capture (0: keep its rows)
  double max_error_mm = 0.0;            // animate --max-error: fewest keys within MM millimetres (0: every key)
  bool ignore_unknown = false;          // unknown names: warning instead of error
  bool ignore_case = false;             // --weights / --weights-file names match case-insensitively
  bool verbose = false;                 // list the capture's matched / unmatched names
};

// One NAME=VALUE item, the syntax of --weights and of `morphkit view`'s frame query: NAME is a target (or VRM
// expression) name; when neither carries it (per `match`), "N" is target N of every mesh and "M:N" target N of mesh
// M. Returns false (malformed) with `why` set; a name is not checked here (resolveOverride does).
bool parseWeightItem(const Asset& asset, std::string_view item, NameMatch match, WeightOverride& out, std::string& why);

// A VRM avatar's expressions by name (morphkit/core/expressions.h): the overrides that name expressions, evaluated
// together (isBinary, overrides), become the weights of the targets they bind, ahead of the other overrides (so a
// target named directly wins over an expression's share of it). An expression's name wins over a target's.
Expected<std::vector<WeightOverride>> applyExpressions(const Asset& asset, std::vector<WeightOverride> overrides,
                                                       NameMatch match);

// kBakeOptions adds animate's --fps (resample the capture to it; render has --fps of its own) and --max-error.
enum WeightOptionSet : unsigned { kOverrideOptions = 1, kCaptureOptions = 2, kBakeOptions = 4 };
void addWeightOptions(CLI::App& sub, WeightOptions& options, unsigned sets);

// What the options load to for one asset; owns the track and overrides that inputs() points at.
struct LoadedWeights {
  std::vector<WeightOverride> overrides;  // every name known (unknown ones dropped with a warning or failed)
  NameMatch match = NameMatch::kExact;
  std::optional<CaptureMatch> capture;  // with --capture: its track holds at least one column
  WeightInputs inputs() const;
  bool empty() const { return overrides.empty() && !capture; }
};

// Loads every file the options name, resolves names against `asset` and prints the capture summary (stderr).
// Returns 0, or the exit code after printing one error line (1 bad input, 2 malformed --weights text).
int loadWeights(const Asset& asset, const std::string& asset_file, const WeightOptions& options, LoadedWeights& out);

// "jawOpen=0.8, 3=0.25, 0:2=1": the overrides as given (name, target N of every mesh, or mesh M's target N), for
// summaries; at most 8, then the count. "" without any.
std::string describeOverrides(const std::vector<WeightOverride>& overrides);

// "jawOpen=0.8 eyeBlinkLeft=1 7=0.25": the non-zero weights of one mesh by name (index when unnamed).
std::string nonZeroWeights(const Mesh& mesh, const std::vector<float>& weights);

}  // namespace morphkit::cli
