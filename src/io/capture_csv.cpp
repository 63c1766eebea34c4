// SPDX-License-Identifier: MIT
// capture_csv.cpp — the two CSV capture formats: Live Link Face (Timecode first) and any CSV with a time column
// first (seconds or timecodes), through one table reader.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "morphkit/io/capture.h"
#include "morphkit/model/text.h"

namespace morphkit {

const std::array<std::string_view, 52> kLiveLinkBlendShapes = {"EyeBlinkLeft",
                                                               "EyeLookDownLeft",
                                                               "EyeLookInLeft",
                                                               "EyeLookOutLeft",
                                                               "EyeLookUpLeft",
                                                               "EyeSquintLeft",
                                                               "EyeWideLeft",
                                                               "EyeBlinkRight",
                                                               "EyeLookDownRight",
                                                               "EyeLookInRight",
                                                               "EyeLookOutRight",
                                                               "EyeLookUpRight",
                                                               "EyeSquintRight",
                                                               "EyeWideRight",
                                                               "JawForward",
                                                               "JawRight",
                                                               "JawLeft",
                                                               "JawOpen",
                                                               "MouthClose",
                                                               "MouthFunnel",
                                                               "MouthPucker",
                                                               "MouthRight",
                                                               "MouthLeft",
                                                               "MouthSmileLeft",
                                                               "MouthSmileRight",
                                                               "MouthFrownLeft",
                                                               "MouthFrownRight",
                                                               "MouthDimpleLeft",
                                                               "MouthDimpleRight",
                                                               "MouthStretchLeft",
                                                               "MouthStretchRight",
                                                               "MouthRollLower",
                                                               "MouthRollUpper",
                                                               "MouthShrugLower",
                                                               "MouthShrugUpper",
                                                               "MouthPressLeft",
                                                               "MouthPressRight",
                                                               "MouthLowerDownLeft",
                                                               "MouthLowerDownRight",
                                                               "MouthUpperUpLeft",
                                                               "MouthUpperUpRight",
                                                               "BrowDownLeft",
                                                               "BrowDownRight",
                                                               "BrowInnerUp",
                                                               "BrowOuterUpLeft",
                                                               "BrowOuterUpRight",
                                                               "CheekPuff",
                                                               "CheekSquintLeft",
                                                               "CheekSquintRight",
                                                               "NoseSneerLeft",
                                                               "NoseSneerRight",
                                                               "TongueOut"};

const std::array<std::string_view, 9> kLiveLinkRotations = {"HeadYaw",     "HeadPitch",     "HeadRoll",
                                                            "LeftEyeYaw",  "LeftEyePitch",  "LeftEyeRoll",
                                                            "RightEyeYaw", "RightEyePitch", "RightEyeRoll"};

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> splitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    const size_t comma = line.find(',');
    fields.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return fields;
}

std::string shown(std::string_view text) {
  return printable(text);
}

bool parseUnsigned(std::string_view text, size_t digits, uint32_t& out) {
  if (text.size() != digits) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool parseNumber(std::string_view text, float& out) {
  if (text.empty() || text.front() == '+') return false;
  double value = 0.0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return false;
  out = float(value);
  return std::isfinite(out);
}

std::string formatNumber(double value) {
  char buffer[32];
  const int len = std::snprintf(buffer, sizeof buffer, "%g", value);
  return std::string(buffer, size_t(std::max(len, 0)));
}

// "line L: what" or, with `what` starting ", column C", "line L, column C: what".
Failure csvError(size_t line, const std::string& what) {
  return fail(Error::kInvalidCsv, "line " + std::to_string(line) + what);
}

// "line L, column C (NAME): what" — C counts from 1 like a spreadsheet; NAME is the header's.
Failure cellError(size_t line, size_t column, std::string_view name, const std::string& what) {
  return fail(Error::kInvalidCsv, "line " + std::to_string(line) + ", column " + std::to_string(column) + " (" +
                                      shown(name) + "): " + what);
}

}  // namespace

bool parseTimecode(std::string_view text, double fps, double& seconds) {
  // HH:MM:SS:FF[.fraction]: two digits each (HH may have more: long recordings), then an optional fraction.
  std::string_view fraction;
  if (const size_t dot = text.find('.'); dot != std::string_view::npos) {
    fraction = text.substr(dot + 1);
    text = text.substr(0, dot);
    if (fraction.empty() || fraction.size() > 9 ||
        !std::all_of(fraction.begin(), fraction.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return false;
    }
  }
  uint32_t part[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; ++i) {
    const size_t colon = text.find(':');
    if ((i < 3) == (colon == std::string_view::npos)) return false;
    const std::string_view field = text.substr(0, colon);
    if (!parseUnsigned(field, i == 0 ? std::max<size_t>(field.size(), 2) : 2, part[i]) ||
        (i == 0 && field.size() > 6)) {
      return false;
    }
    text = i < 3 ? text.substr(colon + 1) : std::string_view();
  }
  if (part[1] >= 60 || part[2] >= 60 || !(fps > 0.0) || double(part[3]) >= fps) return false;
  double frame = double(part[3]);
  double scale = 0.1;
  for (char c : fraction) {
    frame += (c - '0') * scale;
    scale *= 0.1;
  }
  if (frame >= fps) return false;
  seconds = double(part[0]) * 3600.0 + double(part[1]) * 60.0 + double(part[2]) + frame / fps;
  return true;
}

namespace {

// What the table reader needs to know of its format.
struct TableLayout {
  bool livelink = false;  // the header must start with Timecode and every time is a timecode
  double timecode_fps = 60.0;
};

// One row's time: a timecode (HH:MM:SS:FF[.fff]) or, in a csv, seconds. `timecodes` is decided by the first row.
bool parseRowTime(std::string_view text, const TableLayout& layout, bool timecodes, double& seconds) {
  if (timecodes) return parseTimecode(text, layout.timecode_fps, seconds);
  float value = 0.0f;
  if (!parseNumber(text, value)) return false;
  seconds = double(value);
  return true;
}

Expected<Capture> parseTable(std::string_view text, const TableLayout& layout) {
  if (!(layout.timecode_fps > 0.0) || !std::isfinite(layout.timecode_fps)) {
    return fail(Error::kInvalidArgument, "capture: the timecode frame rate must be > 0");
  }
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte-order mark (spreadsheet exports)
  const std::string expected_header =
      layout.livelink ? "expected the Live Link Face header 'Timecode,BlendShapeCount,EyeBlinkLeft,...'"
                      : "expected a header 'time,SHAPE,...'";
  Capture capture;
  capture.format = layout.livelink ? CaptureFormat::kLiveLink : CaptureFormat::kCsv;
  size_t line_number = 0;
  size_t value_begin = 1;  // first value field: after the time, and after BlendShapeCount when present
  size_t field_count = 0;
  bool header = false;
  bool timecodes = layout.livelink;
  std::string time_name;
  double start = 0.0, previous = 0.0;
  std::string previous_time;
  size_t previous_line = 0;
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++line_number;
    if (trim(line).empty()) continue;  // blank lines (a trailing newline, an editor's empty last line)
    const std::vector<std::string_view> fields = splitFields(line);
    if (!header) {
      if (layout.livelink && !namesMatch(fields[0], "Timecode", NameMatch::kCaseInsensitive)) {
        return csvError(line_number, ", column 1: '" + shown(fields[0]) + "' is not Timecode; " + expected_header);
      }
      if (fields[0].empty()) return csvError(line_number, ", column 1: empty time column name; " + expected_header);
      time_name = std::string(fields[0]);
      if (fields.size() > 1 && namesMatch(fields[1], "BlendShapeCount", NameMatch::kCaseInsensitive)) value_begin = 2;
      for (size_t f = value_begin; f < fields.size(); ++f) {
        if (fields[f].empty())
          return csvError(line_number, ", column " + std::to_string(f + 1) + ": empty column name");
        for (size_t g = value_begin; g < f; ++g) {
          if (namesMatch(fields[g], fields[f], NameMatch::kCaseInsensitive)) {
            return cellError(line_number, f + 1, fields[f],
                             "repeats column " + std::to_string(g + 1) + " (" + shown(fields[g]) + ")");
          }
        }
        capture.columns.emplace_back(fields[f]);
      }
      if (capture.columns.empty()) return csvError(line_number, ": no value columns after " + shown(fields[0]));
      field_count = fields.size();
      header = true;
      continue;
    }
    if (fields.size() != field_count) {
      return csvError(line_number, ": " + std::to_string(fields.size()) + " fields, the header has " +
                                       std::to_string(field_count) + " (ragged row)");
    }
    if (capture.times.empty() && !layout.livelink) timecodes = fields[0].find(':') != std::string_view::npos;
    double seconds = 0.0;
    if (!parseRowTime(fields[0], layout, timecodes, seconds)) {
      std::string what = "'";
      what += shown(fields[0]);
      what += timecodes ? "' is not a timecode HH:MM:SS:FF[.fff] with FF below the frame rate " +
                              formatNumber(layout.timecode_fps)
                        : "' is not a time in seconds (a finite number, as on the first row)";
      return cellError(line_number, 1, time_name, what);
    }
    if (capture.times.empty()) {
      start = seconds;
      if (timecodes) capture.first_timecode = std::string(fields[0]);
    } else {
      if (timecodes && seconds < previous - 12 * 3600.0) seconds += 24 * 3600.0;  // a capture running past midnight
      if (!(seconds > previous)) {
        return cellError(line_number, 1, time_name,
                         shown(fields[0]) + (seconds == previous ? " repeats" : " goes back before") + " line " +
                             std::to_string(previous_line) + "'s " + previous_time +
                             (timecodes ? " (timecodes must increase)" : " (times must increase)"));
      }
    }
    const float relative = float(seconds - start);
    if (!capture.times.empty() && !(relative > capture.times.back())) {
      return cellError(
          line_number, 1, time_name,
          shown(fields[0]) + " is too close to line " + std::to_string(previous_line) + "'s to keep as a float time");
    }
    previous = seconds;
    previous_time = shown(fields[0]);
    previous_line = line_number;
    capture.times.push_back(relative);
    if (value_begin == 2) {
      float count = 0.0f;
      if (!parseNumber(fields[1], count)) {
        return cellError(line_number, 2, "BlendShapeCount", "'" + shown(fields[1]) + "' is not a number");
      }
    }
    for (size_t f = value_begin; f < fields.size(); ++f) {
      float value = 0.0f;
      if (!parseNumber(fields[f], value)) {
        std::string what = "'";  // built with += : GCC 12's -Wrestrict misfires on "literal" + std::string&&
        what += shown(fields[f]);
        what += "' is not a finite number";
        return cellError(line_number, f + 1, capture.columns[f - value_begin], what);
      }
      capture.values.push_back(value);
    }
  }
  if (!header) return fail(Error::kInvalidCsv, "empty file (" + expected_header + ")");
  if (capture.times.empty()) return fail(Error::kInvalidCsv, "no data rows after the header");
  return capture;
}

}  // namespace

Expected<Capture> parseCaptureCsv(std::string_view text, const CaptureCsvOptions& options) {
  return parseTable(text, {.livelink = true, .timecode_fps = options.fps});
}

Expected<Capture> parseTimeCsv(std::string_view text, double timecode_fps) {
  return parseTable(text, {.livelink = false, .timecode_fps = timecode_fps});
}

}  // namespace morphkit
