// SPDX-License-Identifier: MIT
// capture_a2f.cpp — NVIDIA Audio2Face's blend-shape export → Capture (morphkit/io/capture_file.h).
#include <string>

#include "json_fields.h"
#include "morphkit/io/capture_file.h"
#include "morphkit/model/text.h"

namespace morphkit {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

Status readCount(object root, std::string_view key, uint64_t& out) {
  element e;
  if (root.at_key(key).get(e) != simdjson::SUCCESS)
    return json::failAt(Error::kInvalidArgument, std::string(key), "missing");
  if (e.get_uint64().get(out) != simdjson::SUCCESS)
    return json::failAt(Error::kInvalidArgument, std::string(key), "must be a whole number >= 0");
  return Ok{};
}

}  // namespace

Expected<Capture> parseA2fCapture(std::string_view text, const CaptureOptions& options) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  simdjson::dom::parser parser;
  element doc;
  MORPHKIT_TRY(json::parse(parser, text, doc));
  object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS)
    return fail(Error::kInvalidArgument,
                "the top level must be an object {\"exportFps\", \"facsNames\", \"weightMat\", ...}");
  double fps = options.fps;
  if (!(fps > 0.0)) {
    element e;
    if (root.at_key("exportFps").get(e) != simdjson::SUCCESS)
      return json::failAt(Error::kInvalidArgument, "exportFps", "missing (or give --capture-fps)");
    if (!json::readFinite(e, fps) || !(fps > 0.0))
      return json::failAt(Error::kInvalidArgument, "exportFps", "must be a number > 0");
  }
  uint64_t poses = 0, frames = 0;
  MORPHKIT_TRY(readCount(root, "numPoses", poses));
  MORPHKIT_TRY(readCount(root, "numFrames", frames));
  array names, rows;
  if (root.at_key("facsNames").get_array().get(names) != simdjson::SUCCESS)
    return json::failAt(Error::kInvalidArgument, "facsNames", "missing or not an array of names");
  if (root.at_key("weightMat").get_array().get(rows) != simdjson::SUCCESS)
    return json::failAt(Error::kInvalidArgument, "weightMat", "missing or not an array of frames");
  if (names.size() != poses)
    return json::failAt(Error::kInvalidArgument, "facsNames",
                        std::to_string(names.size()) + " names, numPoses is " + std::to_string(poses));
  if (rows.size() != frames)
    return json::failAt(Error::kInvalidArgument, "weightMat",
                        std::to_string(rows.size()) + " frames, numFrames is " + std::to_string(frames));
  if (poses == 0) return json::failAt(Error::kInvalidArgument, "numPoses", "no poses");
  if (frames == 0) return json::failAt(Error::kInvalidArgument, "numFrames", "no frames");
  Capture capture;
  capture.format = CaptureFormat::kA2f;
  size_t index = 0;
  for (element name : names) {
    std::string_view n;
    const std::string where = "facsNames[" + std::to_string(index++) + "]";
    if (name.get_string().get(n) != simdjson::SUCCESS || n.empty())
      return json::failAt(Error::kInvalidArgument, where, "must be a non-empty string");
    for (size_t c = 0; c < capture.columns.size(); ++c) {
      if (capture.columns[c] == n)
        return json::failAt(Error::kInvalidArgument, where, quote(n) + " repeats facsNames[" + std::to_string(c) + "]");
    }
    capture.columns.emplace_back(n);
  }
  capture.values.reserve(size_t(frames * poses));
  size_t f = 0;
  for (element row : rows) {
    const std::string where = "weightMat[" + std::to_string(f) + "]";
    array values;
    if (row.get_array().get(values) != simdjson::SUCCESS)
      return json::failAt(Error::kInvalidArgument, where, "must be an array of weights");
    if (values.size() != poses)
      return json::failAt(Error::kInvalidArgument, where,
                          std::to_string(values.size()) + " values, numPoses is " + std::to_string(poses));
    size_t p = 0;
    for (element value : values) {
      double v = 0.0;
      if (!json::readFinite(value, v)) {
        return json::failAt(Error::kInvalidArgument,
                            where + "[" + std::to_string(p) + "] (" + printable(capture.columns[p]) + ")",
                            "must be a finite number");
      }
      capture.values.push_back(float(v));
      ++p;
    }
    const float seconds = float(double(f) / fps);
    if (f > 0 && !(seconds > capture.times.back()))
      return json::failAt(Error::kInvalidArgument, where,
                          "frame times too close for float at exportFps " + std::to_string(fps));
    capture.times.push_back(seconds);
    ++f;
  }
  return capture;
}

}  // namespace morphkit
