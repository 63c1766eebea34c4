// SPDX-License-Identifier: MIT
// capture_ifacialmocap.cpp — iFacialMocap's text packets, one per line:
//   [SECONDS,]eyeBlink_L-54|jawOpen-12|...|=head#rx,ry,rz,x,y,z|rightEye#rx,ry,rz|leftEye#rx,ry,rz|
// The app sends integers 0–100 per shape (full_scale 100); the transforms after '=' drive no shapes.
#include <charconv>
#include <cmath>
#include <string>

#include "morphkit/io/capture.h"
#include "morphkit/model/text.h"

namespace morphkit {

namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

Failure lineError(size_t line, const std::string& what) {
  return fail(Error::kInvalidCsv, "line " + std::to_string(line) + what);
}

Failure itemError(size_t line, size_t item, std::string_view name, const std::string& what) {
  return fail(Error::kInvalidCsv, "line " + std::to_string(line) + ", item " + std::to_string(item) + " (" +
                                      printable(name) + "): " + what);
}

// The leading "SECONDS," of a line, when there is one (a ',' before the first '|' and '=').
bool splitTime(std::string_view& line, std::string_view& time) {
  const size_t comma = line.find(',');
  if (comma == std::string_view::npos || comma > line.find('|') || comma > line.find('=')) return false;
  time = trimmed(line.substr(0, comma));
  line.remove_prefix(comma + 1);
  return true;
}

bool parseSeconds(std::string_view text, double& out) {
  if (text.empty() || text.front() == '+') return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(out);
}

// 0–100, digits only (the app sends whole numbers).
bool parseScore(std::string_view text, float& out) {
  if (text.empty() || text.size() > 3) return false;
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > 100) return false;
  out = float(value);
  return true;
}

}  // namespace

Expected<Capture> parseIFacialMocap(std::string_view text, double fps) {
  if (!(fps >= 0.0) || !std::isfinite(fps))
    return fail(Error::kInvalidArgument, "capture: the frame rate must be >= 0");
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  Capture capture;
  capture.format = CaptureFormat::kIFacialMocap;
  capture.full_scale = 100.0f;
  size_t line_number = 0, previous_line = 0;
  bool timed = false;
  double start = 0.0, previous = 0.0;
  std::vector<float> row;
  std::vector<bool> seen;
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    std::string_view line = trimmed(text.substr(0, newline));
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    ++line_number;
    if (line.empty()) continue;
    const bool first = capture.times.empty();
    std::string_view time_text;
    const bool has_time = splitTime(line, time_text);
    if (first) timed = has_time;
    if (has_time != timed) {
      return lineError(line_number, timed ? ": no leading time (line " + std::to_string(previous_line) + " has one)"
                                          : ": a leading time, but the first packet has none");
    }
    double seconds = double(capture.times.size()) / (fps > 0.0 ? fps : 1.0);
    if (timed) {
      if (!parseSeconds(time_text, seconds))
        return lineError(line_number, ", time: " + quote(time_text) + " is not a time in seconds");
      if (first) start = seconds;
      if (!first && !(seconds > previous)) {
        return lineError(line_number, ", time: " + quote(time_text) +
                                          (seconds == previous ? " repeats" : " goes back before") + " line " +
                                          std::to_string(previous_line) + "'s (times must increase)");
      }
    } else if (!(fps > 0.0)) {
      return lineError(line_number, ": the packets carry no times; give their frame rate (--capture-fps)");
    }
    previous = seconds;
    row.assign(capture.columns.size(), 0.0f);
    seen.assign(capture.columns.size(), false);
    size_t item = 0;
    std::string_view rest = line;
    while (!rest.empty()) {
      const size_t bar = rest.find('|');
      const std::string_view field = trimmed(rest.substr(0, bar));
      rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
      if (field.empty()) continue;
      if (field.front() == '=') break;  // =head#...|rightEye#...|leftEye#...: transforms, no shapes
      ++item;
      const size_t dash = field.rfind('-');
      if (dash == std::string_view::npos || dash == 0)
        return itemError(line_number, item, field, "expected NAME-VALUE");
      const std::string_view name = field.substr(0, dash);
      float value = 0.0f;
      if (!parseScore(field.substr(dash + 1), value))
        return itemError(line_number, item, name, quote(field.substr(dash + 1)) + " is not an integer 0-100");
      size_t column = 0;
      while (column < capture.columns.size() && capture.columns[column] != name) ++column;
      if (column == capture.columns.size()) {
        if (!first) return itemError(line_number, item, name, "not in the first packet");
        capture.columns.emplace_back(name);
        row.push_back(0.0f);
        seen.push_back(false);
      }
      if (seen[column]) return itemError(line_number, item, name, "listed twice in the packet");
      seen[column] = true;
      row[column] = value;
    }
    if (capture.columns.empty()) return lineError(line_number, ": no NAME-VALUE items before '='");
    for (size_t c = 0; c < seen.size(); ++c) {
      if (!seen[c]) return lineError(line_number, ": no " + quote(capture.columns[c]) + " (the first packet has it)");
    }
    const float relative = float(seconds - start);
    if (!first && !(relative > capture.times.back()))
      return lineError(line_number,
                       ", time: too close to line " + std::to_string(previous_line) + "'s for a float time");
    capture.times.push_back(relative);
    capture.values.insert(capture.values.end(), row.begin(), row.end());
    previous_line = line_number;
  }
  if (capture.times.empty()) return fail(Error::kInvalidCsv, "no packets (expected lines NAME-VALUE|NAME-VALUE|...)");
  return capture;
}

}  // namespace morphkit
