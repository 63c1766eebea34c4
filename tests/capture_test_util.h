// SPDX-License-Identifier: MIT
// A Live Link Face CSV written the way the app writes it, for the capture tests (CPU, GPU, renderer, CLI).
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "morphkit/io/capture.h"

namespace morphkit::test {

// The value the generated capture holds at (row, column): smooth, in [0, 1] for blend shapes and [-0.3, 0.3] for
// rotations, different per column so a swapped column shows.
inline float captureValue(size_t row, size_t column) {
  const double v = 0.5 + 0.5 * std::sin(0.21 * double(row) * (1.0 + 0.07 * double(column)) + 0.9 * double(column));
  return float(column < kLiveLinkBlendShapes.size() ? v : 0.6 * (v - 0.5));
}

// The value as the CSV writes it (8 decimals, like the app) and as a reader gets it back.
inline std::string captureText(size_t row, size_t column) {
  char value[32];
  std::snprintf(value, sizeof value, "%.8f", double(captureValue(row, column)));
  return value;
}
inline float captureRead(size_t row, size_t column) {
  return float(std::strtod(captureText(row, column).c_str(), nullptr));
}

// Header Timecode,BlendShapeCount,<52 blend shapes>,<9 rotations> in the app's order; `rows` rows at 60 fps
// starting at 14:03:52:28 with the app's fractional frame (.000, .137, .274, ...), values with 8 decimals.
inline std::string appCsv(size_t rows) {
  std::string text = "Timecode,BlendShapeCount";
  for (std::string_view c : kLiveLinkBlendShapes) text += "," + std::string(c);
  for (std::string_view c : kLiveLinkRotations) text += "," + std::string(c);
  text += "\r\n";  // the app writes CRLF
  const size_t columns = kLiveLinkBlendShapes.size() + kLiveLinkRotations.size();
  for (size_t r = 0; r < rows; ++r) {
    const size_t total = ((14 * 60 + 3) * 60 + 52) * 60 + 28 + r;  // frames since midnight at 60 fps
    const size_t sub = (r * 137) % 1000;
    char timecode[32];
    std::snprintf(timecode, sizeof timecode, "%02zu:%02zu:%02zu:%02zu.%03zu", total / 216000 % 24, total / 3600 % 60,
                  total / 60 % 60, total % 60, sub);
    text += timecode;
    text += ",61";
    for (size_t c = 0; c < columns; ++c) text += "," + captureText(r, c);
    text += "\r\n";
  }
  return text;
}

// The time the app's timecode of row `r` stands for, relative to row 0 (60 fps, fractional frames).
inline double appCsvTime(size_t r) {
  return (double(r) + double((r * 137) % 1000) / 1000.0) / 60.0;
}

// ARKit's camelCase spelling of an app column: the first letter lower-case.
inline std::string arkitName(std::string_view column) {
  std::string name(column);
  if (!name.empty() && name[0] >= 'A' && name[0] <= 'Z') name[0] = char(name[0] - 'A' + 'a');
  return name;
}

}  // namespace morphkit::test
