// SPDX-License-Identifier: MIT
// capture_a2f.cpp — NVIDIA Audio2Face's blend-shape export → Capture (morphkit/gltf/capture_file.h), and
// parseCapture, the one entry for every capture format.
#include <string>

#include "capture_json.h"
#include "morphkit/gltf/capture_file.h"
#include "morphkit/model/text.h"

namespace morphkit {

namespace {

using capture_json::fieldError;
using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

Status readCount(object root, std::string_view key, uint64_t& out) {
  element e;
  if (root.at_key(key).get(e) != simdjson::SUCCESS) return fieldError(std::string(key), "missing");
  if (e.get_uint64().get(out) != simdjson::SUCCESS) return fieldError(std::string(key), "must be a whole number >= 0");
  return Ok{};
}

}  // namespace

Expected<Capture> parseA2fCapture(std::string_view text, const CaptureOptions& options) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  simdjson::dom::parser parser;
  element doc;
  MORPHKIT_TRY(capture_json::parseJson(parser, text, doc));
  object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS)
    return fail(Error::kInvalidArgument,
                "the top level must be an object {\"exportFps\", \"facsNames\", \"weightMat\", ...}");
  double fps = options.fps;
  if (!(fps > 0.0)) {
    element e;
    if (root.at_key("exportFps").get(e) != simdjson::SUCCESS)
      return fieldError("exportFps", "missing (or give --capture-fps)");
    if (!capture_json::readFinite(e, fps) || !(fps > 0.0)) return fieldError("exportFps", "must be a number > 0");
  }
  uint64_t poses = 0, frames = 0;
  MORPHKIT_TRY(readCount(root, "numPoses", poses));
  MORPHKIT_TRY(readCount(root, "numFrames", frames));
  array names, rows;
  if (root.at_key("facsNames").get_array().get(names) != simdjson::SUCCESS)
    return fieldError("facsNames", "missing or not an array of names");
  if (root.at_key("weightMat").get_array().get(rows) != simdjson::SUCCESS)
    return fieldError("weightMat", "missing or not an array of frames");
  if (names.size() != poses)
    return fieldError("facsNames", std::to_string(names.size()) + " names, numPoses is " + std::to_string(poses));
  if (rows.size() != frames)
    return fieldError("weightMat", std::to_string(rows.size()) + " frames, numFrames is " + std::to_string(frames));
  if (poses == 0) return fieldError("numPoses", "no poses");
  if (frames == 0) return fieldError("numFrames", "no frames");
  Capture capture;
  capture.format = CaptureFormat::kA2f;
  size_t index = 0;
  for (element name : names) {
    std::string_view n;
    const std::string where = "facsNames[" + std::to_string(index++) + "]";
    if (name.get_string().get(n) != simdjson::SUCCESS || n.empty())
      return fieldError(where, "must be a non-empty string");
    for (size_t c = 0; c < capture.columns.size(); ++c) {
      if (capture.columns[c] == n) return fieldError(where, quote(n) + " repeats facsNames[" + std::to_string(c) + "]");
    }
    capture.columns.emplace_back(n);
  }
  capture.values.reserve(size_t(frames * poses));
  size_t f = 0;
  for (element row : rows) {
    const std::string where = "weightMat[" + std::to_string(f) + "]";
    array values;
    if (row.get_array().get(values) != simdjson::SUCCESS) return fieldError(where, "must be an array of weights");
    if (values.size() != poses)
      return fieldError(where, std::to_string(values.size()) + " values, numPoses is " + std::to_string(poses));
    size_t p = 0;
    for (element value : values) {
      double v = 0.0;
      if (!capture_json::readFinite(value, v)) {
        return fieldError(where + "[" + std::to_string(p) + "] (" + printable(capture.columns[p]) + ")",
                          "must be a finite number");
      }
      capture.values.push_back(float(v));
      ++p;
    }
    const float seconds = float(double(f) / fps);
    if (f > 0 && !(seconds > capture.times.back()))
      return fieldError(where, "frame times too close for float at exportFps " + std::to_string(fps));
    capture.times.push_back(seconds);
    ++f;
  }
  return capture;
}

Expected<Capture> parseCapture(std::string_view text, const CaptureOptions& options) {
  CaptureFormat format = options.format;
  if (format == CaptureFormat::kAuto) {
    Expected<CaptureFormat> detected = detectCaptureFormat(text);
    if (!detected) return detected.error();
    format = *detected;
  }
  switch (format) {
    case CaptureFormat::kLiveLink:
      return parseCaptureCsv(text, {.fps = options.timecode_fps});
    case CaptureFormat::kCsv:
      return parseTimeCsv(text, options.timecode_fps);
    case CaptureFormat::kIFacialMocap:
      return parseIFacialMocap(text, options.fps);
    case CaptureFormat::kMediaPipe:
      return parseMediaPipeCapture(text, options);
    case CaptureFormat::kA2f:
      return parseA2fCapture(text, options);
    case CaptureFormat::kAuto:
      break;
  }
  return fail(Error::kInvalidArgument, "capture: unknown format");
}

}  // namespace morphkit
