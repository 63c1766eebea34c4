// SPDX-License-Identifier: MIT
// One capture written in every format morphkit reads (morphkit/io/capture.h, morphkit/io/capture_file.h), for the
// format tests: the writers below are how each tool lays its output out (docs/FACE_CAPTURE.md).
#pragma once
#include <cmath>
#include <cstdio>
#include <string>

#include "morphkit/io/capture.h"

namespace morphkit::test {

inline std::string number(double value, const char* format = "%.9g") {
  char text[48];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// ARKit's camelCase spelling (MediaPipe, Audio2Face write it so): the first letter lower-case.
inline std::string camel(std::string_view name) {
  std::string out(name);
  if (!out.empty() && out[0] >= 'A' && out[0] <= 'Z') out[0] = char(out[0] - 'A' + 'a');
  return out;
}

// The blend-shape channels of `capture` (its rotation columns left out, as the other tools have none).
inline std::vector<size_t> shapeColumns(const Capture& capture) {
  std::vector<size_t> shapes;
  for (size_t c = 0; c < capture.columns.size(); ++c) {
    bool rotation = false;
    for (std::string_view r : kLiveLinkRotations) rotation = rotation || r == capture.columns[c];
    if (!rotation) shapes.push_back(c);
  }
  return shapes;
}

// MediaPipe's Python results, one object per frame in a JSON array: face_blendshapes is a list per face (here
// one) of {index, score, display_name, category_name}, with "_neutral" first as the model gives it.
inline std::string toMediaPipePython(const Capture& capture, double start_ms = 1000.0) {
  const std::vector<size_t> shapes = shapeColumns(capture);
  std::string out = "[\n";
  for (size_t r = 0; r < capture.rows(); ++r) {
    out += "  {\"timestamp_ms\": " + number(start_ms + 1000.0 * double(capture.times[r]), "%.17g") +
           ", \"face_blendshapes\": [[{\"index\": 0, \"score\": 0.0, \"display_name\": \"\", \"category_name\": "
           "\"_neutral\"}";
    for (size_t s = 0; s < shapes.size(); ++s) {
      out += ", {\"index\": " + std::to_string(s + 1) +
             ", \"score\": " + number(capture.values[r * capture.columns.size() + shapes[s]]) +
             ", \"category_name\": \"" + camel(capture.columns[shapes[s]]) + "\"}";
    }
    out += r + 1 < capture.rows() ? "]]},\n" : "]]}\n";
  }
  return out + "]\n";
}

// MediaPipe's JS results as JSON Lines: faceBlendshapes [{categories: [{categoryName, score}], headIndex}].
inline std::string toMediaPipeJsLines(const Capture& capture) {
  const std::vector<size_t> shapes = shapeColumns(capture);
  std::string out;
  for (size_t r = 0; r < capture.rows(); ++r) {
    out += "{\"timestampMs\": " + number(1000.0 * double(capture.times[r]), "%.17g") +
           ", \"faceBlendshapes\": [{\"headIndex\": -1, \"categories\": [";
    for (size_t s = 0; s < shapes.size(); ++s) {
      out += std::string(s ? ", " : "") + "{\"categoryName\": \"" + camel(capture.columns[shapes[s]]) +
             "\", \"score\": " + number(capture.values[r * capture.columns.size() + shapes[s]]) + "}";
    }
    out += "]}]}\n";
  }
  return out;
}

// Audio2Face's blend-shape export (pretty-printed as the app writes it), frames at 1 / fps.
inline std::string toA2f(const Capture& capture, double fps) {
  const std::vector<size_t> shapes = shapeColumns(capture);
  std::string out = "{\n    \"exportFps\": " + number(fps) + ",\n    \"trackPath\": \"/World/audio2face/Player\",\n";
  out += "    \"numPoses\": " + std::to_string(shapes.size()) +
         ",\n    \"numFrames\": " + std::to_string(capture.rows()) + ",\n    \"facsNames\": [\n";
  for (size_t s = 0; s < shapes.size(); ++s)
    out += "        \"" + camel(capture.columns[shapes[s]]) + (s + 1 < shapes.size() ? "\",\n" : "\"\n");
  out += "    ],\n    \"weightMat\": [\n";
  for (size_t r = 0; r < capture.rows(); ++r) {
    out += "        [";
    for (size_t s = 0; s < shapes.size(); ++s)
      out += (s ? ", " : "") + number(capture.values[r * capture.columns.size() + shapes[s]]);
    out += r + 1 < capture.rows() ? "],\n" : "]\n";
  }
  return out + "    ]\n}\n";
}

// iFacialMocap's names: ARKit's with Left/Right written _L/_R (jawLeft, mouthLeft keep theirs, as the app does).
inline std::string iFacialMocapName(std::string_view column) {
  std::string name = camel(column);
  if (name == "jawLeft" || name == "jawRight" || name == "mouthLeft" || name == "mouthRight") return name;
  if (name.ends_with("Left")) return name.substr(0, name.size() - 4) + "_L";
  if (name.ends_with("Right")) return name.substr(0, name.size() - 5) + "_R";
  return name;
}

// iFacialMocap packets with a leading time: integers 0–100 (the values rounded to 1/100), then the transforms.
inline std::string toIFacialMocap(const Capture& capture) {
  const std::vector<size_t> shapes = shapeColumns(capture);
  std::string out;
  for (size_t r = 0; r < capture.rows(); ++r) {
    out += number(double(capture.times[r]), "%.9g") + ",";
    for (size_t s = 0; s < shapes.size(); ++s) {
      const double v = capture.values[r * capture.columns.size() + shapes[s]];
      out += iFacialMocapName(capture.columns[shapes[s]]) + "-" + std::to_string(long(std::lround(100.0 * v))) + "|";
    }
    out += "=head#-2.5,1.25,0.5,0.01,-0.02,0.3|rightEye#6.0,2.4,0.25|leftEye#6.0,-1.6,-0.17|\n";
  }
  return out;
}

// A plain CSV: time in seconds, then the shapes under their camelCase names.
inline std::string toTimeCsv(const Capture& capture) {
  const std::vector<size_t> shapes = shapeColumns(capture);
  std::string out = "time";
  for (size_t s : shapes) out += "," + camel(capture.columns[s]);
  out += "\n";
  for (size_t r = 0; r < capture.rows(); ++r) {
    out += number(double(capture.times[r]));
    for (size_t s : shapes) out += "," + number(capture.values[r * capture.columns.size() + s]);
    out += "\n";
  }
  return out;
}

}  // namespace morphkit::test
