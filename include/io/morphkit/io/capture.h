// SPDX-License-Identifier: MIT
// morphkit/io/capture.h — face captures from the tools users record them with, as one model (Capture: channels ×
// frames), and how a capture's channels meet one asset's target names (one name normalizer, built-in maps, a
// map file), turned into a weight track (morphkit/core/weights.h).
//
// Formats (docs/FACE_CAPTURE.md has an example of each), every one parsed by morphkit::io; the two JSON formats
// (mediapipe, a2f) are declared in morphkit/io/capture_file.h, whose parseCapture picks the parser by content for
// every format.
//   livelink      Epic's Live Link Face CSV: Timecode,BlendShapeCount,EyeBlinkLeft,...,TongueOut, then 9 head and
//                 eye rotation columns (kLiveLinkRotations); timecodes HH:MM:SS:FF[.fff] at a frame rate the app
//                 does not write (CaptureOptions::timecode_fps)
//   csv           any CSV whose first column is a time (seconds, or HH:MM:SS:FF[.fff] at timecode_fps) and whose
//                 other columns are one shape each
//   ifacialmocap  iFacialMocap's text stream, one packet per line: eyeBlink_L-54|jawOpen-12|...|=head#...,
//                 integers 0–100 (full_scale 100), optionally led by "time_s," (else CaptureOptions::fps)
//   mediapipe     MediaPipe FaceLandmarker blend-shape results as a JSON array or JSON Lines of frames
//   a2f           NVIDIA Audio2Face's blend-shape JSON export (exportFps, numPoses, numFrames, facsNames,
//                 weightMat)
// Every format's times become seconds after its first frame (times[0] = 0, strictly increasing).
// Part of morphkit::io: no dependencies.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/core/weights.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"

namespace morphkit {

// The app's 52 blend-shape columns, in its order (ARKit's names with the first letter upper-case).
extern const std::array<std::string_view, 52> kLiveLinkBlendShapes;
// The 9 rotation columns that follow them (radians as the app writes them; morphkit drives no joints with them).
extern const std::array<std::string_view, 9> kLiveLinkRotations;

enum class CaptureFormat : uint8_t { kAuto, kLiveLink, kCsv, kIFacialMocap, kMediaPipe, kA2f };

// "auto", "livelink", "csv", "ifacialmocap", "mediapipe", "a2f" (the --capture-format spelling).
std::string_view captureFormatName(CaptureFormat format);
// The format of a name captureFormatName gives; false for any other text.
bool parseCaptureFormatName(std::string_view name, CaptureFormat& format);

// The format of `text` by its content (never kAuto): JSON holding "weightMat" or "facsNames" is a2f, other JSON
// (an array or an object first) mediapipe; a first line with '|' ifacialmocap; a header starting with Timecode
// livelink; any other CSV csv. Fails (kInvalidArgument) for an empty text, binary data or a first line that is
// none of these: "not a known capture format (...)".
Expected<CaptureFormat> detectCaptureFormat(std::string_view text);

struct CaptureOptions {
  CaptureFormat format = CaptureFormat::kAuto;  // kAuto: detectCaptureFormat
  double timecode_fps = 60.0;                   // frame rate of HH:MM:SS:FF timecodes (livelink, csv); > 0
  double fps = 0.0;   // frames per second for a file without times (ifacialmocap packets without "time_s,");
                      // for a2f it replaces exportFps. 0: the file's own (a file without any is an error)
  uint32_t face = 0;  // mediapipe: which face of a frame that lists several
};

// A parsed capture. Every frame had a time later than the previous frame's and a finite value per channel.
struct Capture {
  CaptureFormat format = CaptureFormat::kLiveLink;  // the format it was read as (never kAuto)
  std::vector<std::string> columns;  // channel names as the file writes them (after Timecode [, BlendShapeCount])
  std::vector<float> times;          // per frame: seconds after the first frame (strictly increasing, times[0] = 0)
  std::vector<float> values;         // frames × columns, row-major, as written (not clamped, not rescaled)
  float full_scale = 1.0f;           // what the format writes for a shape fully on (100 for ifacialmocap)
  std::string first_timecode;        // livelink/csv timecodes: the first row's as written, else ""
  size_t skipped_frames = 0;         // mediapipe: frames that list no face CaptureOptions::face (dropped)
  size_t rows() const { return times.size(); }
};

// Live Link Face CSV. Fails (kInvalidCsv) with "line L[, column C (NAME)]: <what>" for: an empty file, a header not
// starting with Timecode, an empty or repeated column name, no data rows, a row whose field count differs from
// the header's (ragged), a malformed timecode or FF >= fps, a timecode not later than the previous row's, a value
// that is not a finite number. Blank lines are skipped; a UTF-8 byte-order mark is ignored.
struct CaptureCsvOptions {
  double fps = 60.0;  // timecode frame rate (frames per second, > 0); FF must be below it
};
Expected<Capture> parseCaptureCsv(std::string_view text, const CaptureCsvOptions& options = {});

// Any CSV with a time column first: seconds (a finite number) or HH:MM:SS:FF[.fff] timecodes at `timecode_fps`,
// the same kind on every row; an optional BlendShapeCount column after it is skipped. Errors as parseCaptureCsv.
Expected<Capture> parseTimeCsv(std::string_view text, double timecode_fps = 60.0);

// iFacialMocap packets, one per line: NAME-VALUE items separated by '|', VALUE an integer 0–100; the head and eye
// transforms after '=' (head#..., rightEye#..., leftEye#...) drive no shapes and are skipped. A line may start with
// "SECONDS," (its time); without, frame k is at k / fps. The first packet's names are the channels; every packet
// lists each once. Fails (kInvalidCsv) with "line L, item I (NAME): <what>".
Expected<Capture> parseIFacialMocap(std::string_view text, double fps = 0.0);

// Seconds of "HH:MM:SS:FF[.fff]" at `fps`; false when it does not parse or FF >= fps.
bool parseTimecode(std::string_view text, double fps, double& seconds);

// ---- Names ----------------------------------------------------------------------------------------------------

// The one name normalizer capture channels, map keys, map targets and target names meet through: the part after
// the last '.' (prefixes such as "blendShape1." or "Face."), then a leading `prefixes` entry (mesh names, compared
// normalized) followed by a separator, ASCII letters folded to lower case, the separators '_' '-' '.' ' ' dropped,
// and a "left"/"right" ending written "l"/"r": EyeBlinkLeft, eyeBlink_L, eye_blink_left, blendShape1.eyeBlinkL all
// give "eyeblinkl".
std::string normalizeCaptureName(std::string_view name, std::span<const std::string> prefixes = {});

// A rig named otherwise: capture channel → target, scaled.
struct CaptureMapEntry {
  std::string column;    // the capture channel (as in the map)
  std::string target;    // the target name it drives; empty: the channel is ignored
  float scale = 1.0f;    // the channel's values are multiplied by it
  bool builtin = false;  // from a built-in map: not listed in unused_map_columns when the capture lacks it
};
struct CaptureMap {
  std::vector<CaptureMapEntry> entries;  // a later entry for the same channel wins over an earlier one
};

// The built-in maps (docs/FACE_CAPTURE.md lists and explains every entry): "arkit" (the 52 ARKit names onto
// themselves), "arkit-to-vrm" (ARKit onto VRM 1.0 expression presets: eyeBlinkLeft → blinkLeft, jawOpen → aa, ...)
// and "arkit-to-oculus-visemes" (the ARKit shapes that make an Oculus viseme). nullptr for another name.
const CaptureMap* builtinCaptureMap(std::string_view name);
// Their names, in the order above.
std::span<const std::string_view> builtinCaptureMapNames();

// How a capture meets one asset's targets.
struct CaptureMatch {
  // One column per driven target name, in targetNameList order, named with the asset's exact spelling (apply it
  // with NameMatch::kExact). Its value is the sum of (scale × value) over the capture columns driving it. On a VRM
  // avatar a channel may drive an expression (by name, e.g. through --map arkit-to-vrm): such columns become the
  // columns of the targets the expressions bind (column_targets; morphkit/core/expressions.h), first.
  WeightTrack track;
  std::vector<std::string> matched_columns;          // capture channels driving at least one target
  std::vector<std::string> unmatched_columns;        // channels naming no target (rotation columns excluded)
  std::vector<std::string> unused_rotation_columns;  // kLiveLinkRotations columns not mapped
  std::vector<std::string> ignored_columns;          // mapped to no target (an empty target in the map)
  std::vector<std::string> unmatched_targets;        // asset target names no channel drives
  std::vector<std::string> unknown_map_targets;      // "COLUMN -> TARGET" map entries whose target names nothing
  std::vector<std::string> unused_map_columns;       // map entries naming no capture channel
};

// Matches every capture channel through normalizeCaptureName (the asset's mesh names as prefixes): through `map`
// when it has the channel, else by its own name; rotation columns match only through the map. Never fails: what
// matches nothing is listed for the caller to report. The track is empty (no names, no times) when no channel
// drives a target.
CaptureMatch matchCapture(const Asset& asset, const Capture& capture, const CaptureMap* map = nullptr);

}  // namespace morphkit
