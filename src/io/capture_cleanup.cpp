// SPDX-License-Identifier: MIT
// cleanCapture (morphkit/io/capture_signal.h): scale → neutral → smooth → offset → resample, one report line a step.
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "morphkit/io/capture_signal.h"
#include "morphkit/model/text.h"

namespace morphkit {
namespace {

std::string formatted(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string formatted(const char* format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  return line;
}

// The channel holding the largest of `values` (one per channel), for the step lines.
std::string largestChannel(const Capture& capture, std::span<const float> values) {
  size_t best = 0;
  for (size_t c = 1; c < values.size(); ++c) {
    if (values[c] > values[best]) best = c;
  }
  if (values.empty()) return "-";
  return formatted("%.4g (%s)", double(values[best]), printable(capture.columns[best]).c_str());
}

std::string joinedNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + printable(n);
  return out.empty() ? "-" : out;
}

Status checkSettings(const CaptureCleanup& cleanup) {
  if (!(cleanup.scale >= 0.0f) || !std::isfinite(cleanup.scale)) {
    return fail(Error::kInvalidArgument, "capture scale: must be a finite number >= 0 (0: detect)");
  }
  if (!std::isfinite(cleanup.neutral_seconds)) {
    return fail(Error::kInvalidArgument, "neutral seconds: must be a finite number");
  }
  if (!std::isfinite(cleanup.offset_seconds)) {
    return fail(Error::kInvalidArgument, "capture offset: must be a finite number");
  }
  if (!(cleanup.resample_fps >= 0.0) || !std::isfinite(cleanup.resample_fps)) {
    return fail(Error::kInvalidArgument, "resample fps: must be a finite number >= 0 (0: keep the rows)");
  }
  if (cleanup.smooth && !(cleanup.smooth->min_cutoff > 0.0 && std::isfinite(cleanup.smooth->min_cutoff) &&
                          cleanup.smooth->beta >= 0.0 && std::isfinite(cleanup.smooth->beta) &&
                          cleanup.smooth->d_cutoff > 0.0 && std::isfinite(cleanup.smooth->d_cutoff))) {
    return fail(Error::kInvalidArgument, "smooth: expects MINCUTOFF > 0, BETA >= 0 and a speed cutoff > 0");
  }
  return Ok{};
}

}  // namespace

bool parseOneEuro(std::string_view text, OneEuroParams& params) {
  if (text == "one-euro") return true;
  if (!text.starts_with("one-euro:")) return false;
  text.remove_prefix(9);
  const size_t comma = text.find(',');
  if (comma == std::string_view::npos) return false;
  return parseFiniteDouble(text.substr(0, comma), params.min_cutoff) &&
         parseFiniteDouble(text.substr(comma + 1), params.beta) && params.min_cutoff > 0.0 && params.beta >= 0.0;
}

Expected<CaptureCleanupReport> cleanCapture(Capture& capture, const CaptureCleanup& cleanup) {
  if (Status checked = checkSettings(cleanup); !checked) return checked.error();
  CaptureCleanupReport report;
  const float detected = detectCaptureScale(capture, &report.largest);
  report.scale = cleanup.scale > 0.0f ? cleanup.scale : detected;
  const std::string why = cleanup.scale > 0.0f         ? "as given"
                          : capture.full_scale != 1.0f ? formatted("the format's 0-%g", double(detected))
                          : detected != 1.0f           ? "detected: a value above 1.5"
                                                       : "detected: every value within 0-1.5";
  report.steps.push_back(formatted("scale: values / %g (%s; largest shape value %.4g)", double(report.scale),
                                   why.c_str(), double(report.largest)));
  if (report.scale != 1.0f) scaleCapture(capture, report.scale);
  if (cleanup.neutral_seconds >= 0.0) {
    size_t rows = 0;
    const std::vector<float> neutral = neutralFromFirst(capture, cleanup.neutral_seconds, &rows);
    report.steps.push_back(
        formatted("neutral: the mean of the first %zu rows (to %g s) subtracted, clamped at 0; "
                  "largest %s",
                  rows, cleanup.neutral_seconds, largestChannel(capture, neutral).c_str()));
    subtractNeutral(capture, neutral);
  } else if (cleanup.neutral_face) {
    Capture face = *cleanup.neutral_face;
    const float face_scale = cleanup.scale > 0.0f ? cleanup.scale : detectCaptureScale(face);
    if (face_scale != 1.0f) scaleCapture(face, face_scale);
    std::vector<std::string> missing;
    const std::vector<float> neutral = neutralFromCapture(capture, face, &missing);
    report.steps.push_back(
        formatted("neutral: the mean of %s's %zu rows subtracted, clamped at 0; largest %s; %zu "
                  "channels it lacks: %s",
                  cleanup.neutral_name.c_str(), face.rows(), largestChannel(capture, neutral).c_str(), missing.size(),
                  joinedNames(missing).c_str()));
    subtractNeutral(capture, neutral);
  }
  if (cleanup.smooth) {
    const float change = smoothOneEuro(capture, *cleanup.smooth);
    report.steps.push_back(
        formatted("smooth: One-Euro, min cutoff %g Hz, beta %g, speed cutoff %g Hz; largest "
                  "change %.4g",
                  cleanup.smooth->min_cutoff, cleanup.smooth->beta, cleanup.smooth->d_cutoff, double(change)));
  }
  if (cleanup.offset_seconds != 0.0) {
    Expected<size_t> dropped = offsetCapture(capture, cleanup.offset_seconds);
    if (!dropped) return dropped.error();
    report.steps.push_back(
        formatted("offset: %+g s (%zu rows before 0 dropped)", cleanup.offset_seconds, size_t(*dropped)));
  }
  if (cleanup.resample_fps > 0.0) {
    const size_t before = capture.rows();
    resampleCapture(capture, cleanup.resample_fps);
    report.steps.push_back(
        formatted("resample: %zu rows -> %zu at %g fps (LINEAR)", before, capture.rows(), cleanup.resample_fps));
  }
  return report;
}

}  // namespace morphkit
