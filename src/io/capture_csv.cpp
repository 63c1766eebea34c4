// SPDX-License-Identifier: MIT
// capture_csv.cpp — Live Link Face CSV → CaptureCsv, and a capture's columns → one asset's targets.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "morphkit/capture.h"
#include "morphkit/text.h"

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

bool isRotationColumn(std::string_view column) {
  return std::any_of(kLiveLinkRotations.begin(), kLiveLinkRotations.end(),
                     [&](std::string_view r) { return namesMatch(r, column, NameMatch::kCaseInsensitive); });
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

Expected<CaptureCsv> parseCaptureCsv(std::string_view text, const CaptureCsvOptions& options) {
  if (!(options.fps > 0.0) || !std::isfinite(options.fps)) {
    return fail(Error::kInvalidArgument, "capture: the timecode frame rate must be > 0");
  }
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte-order mark (spreadsheet exports)
  const std::string_view expected_header =
      "expected the Live Link Face header 'Timecode,BlendShapeCount,EyeBlinkLeft,...'";
  CaptureCsv capture;
  size_t line_number = 0;
  size_t value_begin = 1;  // first value field: after Timecode, and after BlendShapeCount when present
  size_t field_count = 0;
  bool header = false;
  double start = 0.0, previous = 0.0;
  std::string previous_timecode;
  size_t previous_line = 0;
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++line_number;
    if (trim(line).empty()) continue;  // blank lines (a trailing newline, an editor's empty last line)
    const std::vector<std::string_view> fields = splitFields(line);
    if (!header) {
      if (!namesMatch(fields[0], "Timecode", NameMatch::kCaseInsensitive)) {
        return csvError(line_number,
                        ", column 1: '" + shown(fields[0]) + "' is not Timecode; " + std::string(expected_header));
      }
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
      if (capture.columns.empty()) return csvError(line_number, ": no value columns after Timecode");
      field_count = fields.size();
      header = true;
      continue;
    }
    if (fields.size() != field_count) {
      return csvError(line_number, ": " + std::to_string(fields.size()) + " fields, the header has " +
                                       std::to_string(field_count) + " (ragged row)");
    }
    double seconds = 0.0;
    if (!parseTimecode(fields[0], options.fps, seconds)) {
      return cellError(line_number, 1, "Timecode",
                       "'" + shown(fields[0]) + "' is not a timecode HH:MM:SS:FF[.fff] with FF below the frame rate " +
                           formatNumber(options.fps));
    }
    if (capture.times.empty()) {
      start = seconds;
      capture.first_timecode = std::string(fields[0]);
    } else {
      if (seconds < previous - 12 * 3600.0) seconds += 24 * 3600.0;  // a capture running past midnight
      if (!(seconds > previous)) {
        return cellError(line_number, 1, "Timecode",
                         shown(fields[0]) + (seconds == previous ? " repeats" : " goes back before") + " line " +
                             std::to_string(previous_line) + "'s " + previous_timecode + " (timecodes must increase)");
      }
    }
    const float relative = float(seconds - start);
    if (!capture.times.empty() && !(relative > capture.times.back())) {
      return cellError(
          line_number, 1, "Timecode",
          shown(fields[0]) + " is too close to line " + std::to_string(previous_line) + "'s to keep as a float time");
    }
    previous = seconds;
    previous_timecode = shown(fields[0]);
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
  if (!header) return fail(Error::kInvalidCsv, "empty file (" + std::string(expected_header) + ")");
  if (capture.times.empty()) return fail(Error::kInvalidCsv, "no data rows after the header");
  return capture;
}

CaptureMatch matchCapture(const Asset& asset, const CaptureCsv& capture, const CaptureMap* map) {
  CaptureMatch match;
  const std::vector<std::string> names = targetNameList(asset);
  const size_t columns = capture.columns.size();
  // Per asset name: (capture column, scale) pairs driving it.
  std::vector<std::vector<std::pair<size_t, float>>> drivers(names.size());
  auto drive = [&](std::string_view target, size_t column, float scale) {
    bool any = false;
    for (size_t n = 0; n < names.size(); ++n) {
      if (namesMatch(names[n], target, NameMatch::kCaseInsensitive)) {
        drivers[n].push_back({column, scale});
        any = true;
      }
    }
    return any;
  };
  for (size_t c = 0; c < columns; ++c) {
    const std::string& column = capture.columns[c];
    const CaptureMapEntry* entry = nullptr;
    if (map) {
      for (const CaptureMapEntry& e : map->entries) {
        if (namesMatch(e.column, column, NameMatch::kCaseInsensitive)) entry = &e;  // the last entry wins
      }
    }
    if (entry && entry->target.empty()) {
      match.ignored_columns.push_back(column);
    } else if (entry) {
      if (drive(entry->target, c, entry->scale)) {
        match.matched_columns.push_back(column);
      } else {
        match.unknown_map_targets.push_back(column + " -> " + entry->target);
      }
    } else if (isRotationColumn(column)) {
      match.unused_rotation_columns.push_back(column);  // rotations drive targets only when mapped
    } else if (drive(column, c, 1.0f)) {
      match.matched_columns.push_back(column);
    } else {
      match.unmatched_columns.push_back(column);
    }
  }
  if (map) {
    for (const CaptureMapEntry& e : map->entries) {
      const bool used = std::any_of(capture.columns.begin(), capture.columns.end(), [&](const std::string& column) {
        return namesMatch(e.column, column, NameMatch::kCaseInsensitive);
      });
      if (!used) match.unused_map_columns.push_back(e.column);
    }
  }
  std::vector<size_t> driven;
  for (size_t n = 0; n < names.size(); ++n) {
    if (drivers[n].empty()) {
      match.unmatched_targets.push_back(names[n]);
    } else {
      driven.push_back(n);
    }
  }
  if (driven.empty()) return match;
  WeightTrack& track = match.track;
  const size_t rows = capture.rows();
  track.keys.interpolation = Interpolation::kLinear;
  track.keys.components = uint32_t(driven.size());
  track.keys.times = capture.times;
  track.keys.values.assign(rows * driven.size(), 0.0f);
  for (size_t d = 0; d < driven.size(); ++d) {
    track.names.push_back(names[driven[d]]);
    for (size_t r = 0; r < rows; ++r) {
      double sum = 0.0;
      for (auto [column, scale] : drivers[driven[d]]) sum += double(scale) * capture.values[r * columns + column];
      track.keys.values[r * driven.size() + d] = float(sum);
    }
  }
  return match;
}

}  // namespace morphkit
