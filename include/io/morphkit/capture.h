// SPDX-License-Identifier: MIT
// morphkit/capture.h — face-capture CSV files in the layout Epic's Live Link Face app writes (and importers for
// Blender, Maya and Unreal read), turned into a weight track (morphkit/weights.h) for one asset.
//
// The layout (one header line, then one row per captured frame; no quoting, comma-separated, CRLF or LF):
//   Timecode,BlendShapeCount,EyeBlinkLeft,EyeLookDownLeft,...,TongueOut,HeadYaw,HeadPitch,HeadRoll,
//   LeftEyeYaw,LeftEyePitch,LeftEyeRoll,RightEyeYaw,RightEyePitch,RightEyeRoll
//   14:03:52:28.207,61,0.0123,...
// i.e. the 52 ARKit blend shapes in PascalCase (kLiveLinkBlendShapes, the app's order), then 9 head and eye
// rotation columns (kLiveLinkRotations). The timecode is HH:MM:SS:FF with an optional fractional frame:
// seconds = HH·3600 + MM·60 + SS + (FF + fraction) / fps, fps given by the caller (the app does not write it).
// Times are relative to the first row. Part of morphkit::core: no dependencies.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/asset.h"
#include "morphkit/error.h"
#include "morphkit/weights.h"

namespace morphkit {

// The app's 52 blend-shape columns, in its order (ARKit's names with the first letter upper-case).
extern const std::array<std::string_view, 52> kLiveLinkBlendShapes;
// The 9 rotation columns that follow them (radians as the app writes them; morphkit drives no joints with them).
extern const std::array<std::string_view, 9> kLiveLinkRotations;

struct CaptureCsvOptions {
  double fps = 60.0;  // timecode frame rate (frames per second, > 0); FF must be below it
};

// A parsed capture. Every row had exactly the header's field count, a valid timecode later than the previous
// row's, and a finite number in every value column.
struct CaptureCsv {
  std::vector<std::string> columns;  // value columns in file order (everything after Timecode [, BlendShapeCount])
  std::vector<float> times;          // per row: seconds after the first row (strictly increasing, times[0] = 0)
  std::vector<float> values;         // rows × columns, row-major, as written (not clamped)
  std::string first_timecode;        // the first row's timecode as written
  size_t rows() const { return times.size(); }
};

// Parses the whole text. Fails (kInvalidCsv) with "line L[, column C (NAME)]: <what>" for: an empty file, a
// header not starting with Timecode, an empty or repeated column name, no data rows, a row whose field count
// differs from the header's (ragged), a malformed timecode or FF >= fps, a timecode not later than the previous
// row's, a value that is not a finite number. Blank lines are skipped; a UTF-8 byte-order mark is ignored.
Expected<CaptureCsv> parseCaptureCsv(std::string_view text, const CaptureCsvOptions& options = {});

// Seconds of "HH:MM:SS:FF[.fff]" at `fps`; false when it does not parse or FF >= fps.
bool parseTimecode(std::string_view text, double fps, double& seconds);

// A rig named otherwise: capture column → target, scaled. Columns are matched case-insensitively.
struct CaptureMapEntry {
  std::string column;  // the capture column (as in the map file)
  std::string target;  // the target name it drives (case-insensitive); empty: the column is ignored
  float scale = 1.0f;  // the column's values are multiplied by it
};
struct CaptureMap {
  std::vector<CaptureMapEntry> entries;
};

// How a capture meets one asset's targets.
struct CaptureMatch {
  // One column per driven target name, in targetNameList order, named with the asset's exact spelling (apply it
  // with NameMatch::kExact). Its value is the sum of (scale × value) over the capture columns driving it.
  WeightTrack track;
  std::vector<std::string> matched_columns;          // capture columns driving at least one target
  std::vector<std::string> unmatched_columns;        // columns naming no target (rotation columns excluded)
  std::vector<std::string> unused_rotation_columns;  // kLiveLinkRotations columns not mapped
  std::vector<std::string> ignored_columns;          // mapped to no target (an empty target in the map)
  std::vector<std::string> unmatched_targets;        // asset target names no column drives
  std::vector<std::string> unknown_map_targets;      // "COLUMN -> TARGET" map entries whose target names nothing
  std::vector<std::string> unused_map_columns;       // map entries naming no capture column
};

// Matches every capture column (case-insensitively): through `map` when it has the column, else by its own name;
// rotation columns match only through the map. Never fails: what matches nothing is listed for the caller to
// report. The track is empty (no names, no times) when no column drives a target.
CaptureMatch matchCapture(const Asset& asset, const CaptureCsv& capture, const CaptureMap* map = nullptr);

}  // namespace morphkit
