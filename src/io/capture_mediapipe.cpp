// SPDX-License-Identifier: MIT
// capture_mediapipe.cpp — MediaPipe FaceLandmarker blend-shape results (a JSON array or JSON Lines of frames)
// → Capture (morphkit/io/capture_file.h).
#include <string>
#include <vector>

#include "json_fields.h"
#include "morphkit/io/capture_file.h"
#include "morphkit/model/text.h"

namespace morphkit {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

constexpr std::string_view kTimestampKeys[] = {"timestamp_ms", "timestampMs"};
constexpr std::string_view kListKeys[] = {"blendshapes", "faceBlendshapes", "face_blendshapes"};
constexpr std::string_view kNameKeys[] = {"category_name", "categoryName"};

// The first of `keys` the object has.
bool findKey(object o, std::span<const std::string_view> keys, element& out, std::string_view& key) {
  for (std::string_view k : keys) {
    if (o.at_key(k).get(out) == simdjson::SUCCESS) {
      key = k;
      return true;
    }
  }
  return false;
}

// One frame's parse state: the channels of the first frame with the face, then the order each frame checks.
struct Frames {
  Capture capture;
  double start_ms = 0.0, previous_ms = 0.0;
  std::string previous_where;
  uint32_t face = 0;
};

// The category list of face `face` in `list`, or an empty array when the frame has fewer faces. `where` names
// the list; `list_where` gets the path of the categories.
Status faceCategories(element list, uint32_t face, const std::string& where, array& out, std::string& out_where,
                      bool& found) {
  array faces;
  if (list.get_array().get(faces) != simdjson::SUCCESS)
    return json::failAt(Error::kInvalidArgument, where, "must be an array");
  found = false;
  if (faces.size() == 0) return Ok{};
  element first = faces.at(0).value_unsafe();
  object first_object;
  const bool single = first.get_object().get(first_object) == simdjson::SUCCESS &&
                      first_object.at_key("categories").error() != simdjson::SUCCESS;
  if (single) {  // a plain list of categories: one face
    if (face != 0) return Ok{};
    out = faces;
    out_where = where;
    found = true;
    return Ok{};
  }
  if (face >= faces.size()) return Ok{};
  const std::string face_where = where + "[" + std::to_string(face) + "]";
  element chosen = faces.at(face).value_unsafe();
  object js;
  if (chosen.get_object().get(js) == simdjson::SUCCESS) {  // JS: {categories: [...], headIndex, headName}
    if (js.at_key("categories").get_array().get(out) != simdjson::SUCCESS)
      return json::failAt(Error::kInvalidArgument, face_where + ".categories", "must be an array of categories");
    out_where = face_where + ".categories";
  } else if (chosen.get_array().get(out) == simdjson::SUCCESS) {  // Python: a list of categories per face
    out_where = face_where;
  } else {
    return json::failAt(Error::kInvalidArgument, face_where, "must be a list of categories or {\"categories\": [...]}");
  }
  found = true;
  return Ok{};
}

Status readFrame(element frame, const std::string& where, Frames& frames) {
  object o;
  if (frame.get_object().get(o) != simdjson::SUCCESS)
    return json::failAt(Error::kInvalidArgument, where, "a frame must be an object");
  element value;
  std::string_view key;
  if (!findKey(o, kTimestampKeys, value, key))
    return json::failAt(Error::kInvalidArgument, where, "no timestamp_ms (or timestampMs)");
  double ms = 0.0;
  if (!json::readFinite(value, ms))
    return json::failAt(Error::kInvalidArgument, where + "." + std::string(key), "must be a finite number");
  std::string_view list_key;
  if (!findKey(o, kListKeys, value, list_key))
    return json::failAt(Error::kInvalidArgument, where, "no blendshapes (or faceBlendshapes, face_blendshapes)");
  array categories;
  std::string list_where;
  bool found = false;
  MORPHKIT_TRY(faceCategories(value, frames.face, where + "." + std::string(list_key), categories, list_where, found));
  if (!found) {
    ++frames.capture.skipped_frames;
    return Ok{};
  }
  Capture& capture = frames.capture;
  const bool first = capture.times.empty();
  if (first) {
    frames.start_ms = ms;
  } else if (!(ms > frames.previous_ms)) {
    return json::failAt(
        Error::kInvalidArgument, where + "." + std::string(key),
        printable(std::to_string(ms)) + " is not after " + frames.previous_where + "'s (timestamps must increase)");
  }
  const float seconds = float((ms - frames.start_ms) / 1000.0);
  if (!first && !(seconds > capture.times.back()))
    return json::failAt(Error::kInvalidArgument, where + "." + std::string(key),
                        "too close to " + frames.previous_where + "'s for a float time");
  std::vector<float> row(capture.columns.size(), 0.0f);
  std::vector<bool> seen(capture.columns.size(), false);
  size_t index = 0;
  for (element category : categories) {
    const std::string at = list_where + "[" + std::to_string(index++) + "]";
    object c;
    if (category.get_object().get(c) != simdjson::SUCCESS)
      return json::failAt(Error::kInvalidArgument, at, "a category must be an object");
    std::string_view name_key, name;
    if (!findKey(c, kNameKeys, value, name_key))
      return json::failAt(Error::kInvalidArgument, at, "no category_name (or categoryName)");
    if (value.get_string().get(name) != simdjson::SUCCESS || name.empty())
      return json::failAt(Error::kInvalidArgument, at + "." + std::string(name_key), "must be a non-empty string");
    double score = 0.0;
    if (c.at_key("score").get(value) != simdjson::SUCCESS) return json::failAt(Error::kInvalidArgument, at, "no score");
    if (!json::readFinite(value, score))
      return json::failAt(Error::kInvalidArgument, at + ".score", "must be a finite number");
    size_t column = 0;
    while (column < capture.columns.size() && capture.columns[column] != name) ++column;
    if (column == capture.columns.size()) {
      if (!first)
        return json::failAt(Error::kInvalidArgument, at, quote(name) + " is not a category of the first frame");
      capture.columns.emplace_back(name);
      row.push_back(0.0f);
      seen.push_back(false);
    }
    if (seen[column]) return json::failAt(Error::kInvalidArgument, at, quote(name) + " is listed twice");
    seen[column] = true;
    row[column] = float(score);
  }
  if (capture.columns.empty()) return json::failAt(Error::kInvalidArgument, list_where, "no categories");
  for (size_t c = 0; c < seen.size(); ++c) {
    if (!seen[c])
      return json::failAt(Error::kInvalidArgument, list_where,
                          "no " + quote(capture.columns[c]) + " (the first frame has it)");
  }
  capture.times.push_back(seconds);
  capture.values.insert(capture.values.end(), row.begin(), row.end());
  frames.previous_ms = ms;
  frames.previous_where = where;
  return Ok{};
}

// JSON Lines: the first non-blank line is a whole JSON object by itself.
bool isJsonLines(std::string_view text) {
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    simdjson::dom::parser parser;
    element e;
    return json::parse(parser, line, e).ok() && e.is_object();
  }
  return false;
}

}  // namespace

Expected<Capture> parseMediaPipeCapture(std::string_view text, const CaptureOptions& options) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  Frames frames;
  frames.capture.format = CaptureFormat::kMediaPipe;
  frames.face = options.face;
  simdjson::dom::parser parser;
  size_t count = 0;
  if (isJsonLines(text)) {
    size_t line_number = 0;
    while (!text.empty()) {
      const size_t newline = text.find('\n');
      const std::string_view line = text.substr(0, newline);
      text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
      ++line_number;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      const std::string line_where = "line " + std::to_string(line_number) + ": ";
      element frame;
      MORPHKIT_TRY(json::parse(parser, line, frame, line_where));
      MORPHKIT_TRY(readFrame(frame, line_where + "frames[" + std::to_string(count) + "]", frames));
      ++count;
    }
  } else {
    element root;
    MORPHKIT_TRY(json::parse(parser, text, root));
    array list;
    if (root.get_array().get(list) == simdjson::SUCCESS) {
      for (element frame : list) {
        MORPHKIT_TRY(readFrame(frame, "frames[" + std::to_string(count) + "]", frames));
        ++count;
      }
    } else {
      MORPHKIT_TRY(readFrame(root, "frames[0]", frames));
      count = 1;
    }
  }
  if (count == 0)
    return fail(Error::kInvalidArgument, "no frames (expected [{\"timestamp_ms\": ..., \"blendshapes\": [...]}, ...])");
  if (frames.capture.times.empty()) {
    return fail(Error::kInvalidArgument, "none of the " + std::to_string(count) + " frames has face " +
                                             std::to_string(options.face) + " (--face picks another)");
  }
  return std::move(frames.capture);
}

}  // namespace morphkit
