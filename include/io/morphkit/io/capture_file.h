// SPDX-License-Identifier: MIT
// morphkit/io/capture_file.h — a face capture of any format (morphkit/io/capture.h) from its text: the format by
// content or by name, then its parser. The JSON formats are read with simdjson (private to morphkit::io).
//
//   mediapipe  a JSON array of frames, or JSON Lines (one frame object per line). A frame:
//                {"timestamp_ms": 33, "blendshapes": [{"category_name": "jawOpen", "score": 0.4}, ...]}
//              timestamp_ms or timestampMs (milliseconds); the categories under blendshapes, faceBlendshapes or
//              face_blendshapes as MediaPipe's Python (face_blendshapes: a list per face of {category_name,
//              score}) and JS (faceBlendshapes: [{categories: [{categoryName, score}]}]) results give them; a
//              plain list of categories is one face. CaptureOptions::face picks the face; frames without it are
//              skipped (Capture::skipped_frames). The first frame with the face names the channels; each later one
//              lists the same names.
//   a2f        {"exportFps": 30, "numPoses": P, "numFrames": F, "facsNames": [P names], "weightMat": [F × [P]]}:
//              frame f at f / exportFps seconds (CaptureOptions::fps replaces exportFps when > 0).
// Errors (kInvalidJson for text that is not JSON, with its line and column; kInvalidArgument otherwise) name the
// frame and the field: "frames[3].blendshapes[5].score: must be a finite number", "line 4: no timestamp_ms",
// "weightMat[12]: 45 values, numPoses is 46", "frames[7]: timestamp_ms 200 is not after frames[6]'s 233".
#pragma once
#include <filesystem>
#include <string_view>

#include "morphkit/io/capture.h"
#include "morphkit/model/error.h"

namespace morphkit {

Expected<Capture> parseMediaPipeCapture(std::string_view text, const CaptureOptions& options = {});
Expected<Capture> parseA2fCapture(std::string_view text, const CaptureOptions& options = {});

// options.format, or (kAuto) detectCaptureFormat's, parsed by its parser with `options`.
Expected<Capture> parseCapture(std::string_view text, const CaptureOptions& options = {});
// The file at `path` (at most kMaxCaptureBytes, morphkit/io/weight_files.h) through parseCapture; the caller names the
// file in its message.
Expected<Capture> readCaptureFile(const std::filesystem::path& path, const CaptureOptions& options = {});

}  // namespace morphkit
