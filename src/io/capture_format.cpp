// SPDX-License-Identifier: MIT
// capture_format.cpp — capture format names and detection by content.
#include <algorithm>
#include <array>

#include "morphkit/io/capture.h"
#include "morphkit/model/text.h"

namespace morphkit {

namespace {

constexpr std::array<std::pair<CaptureFormat, std::string_view>, 6> kFormatNames = {{
    {CaptureFormat::kAuto, "auto"},
    {CaptureFormat::kLiveLink, "livelink"},
    {CaptureFormat::kCsv, "csv"},
    {CaptureFormat::kIFacialMocap, "ifacialmocap"},
    {CaptureFormat::kMediaPipe, "mediapipe"},
    {CaptureFormat::kA2f, "a2f"},
}};

bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

}  // namespace

std::string_view captureFormatName(CaptureFormat format) {
  for (const auto& [f, name] : kFormatNames) {
    if (f == format) return name;
  }
  return "unknown";
}

bool parseCaptureFormatName(std::string_view name, CaptureFormat& format) {
  for (const auto& [f, n] : kFormatNames) {
    if (n == name) {
      format = f;
      return true;
    }
  }
  return false;
}

Expected<CaptureFormat> detectCaptureFormat(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  while (!text.empty() && isBlank(text.front())) text.remove_prefix(1);
  if (text.empty()) return fail(Error::kInvalidArgument, "empty file (not a capture)");
  if (text.front() == '[' || text.front() == '{') {
    // Audio2Face's export has these keys; MediaPipe's results do not.
    const bool a2f =
        text.find("\"weightMat\"") != std::string_view::npos || text.find("\"facsNames\"") != std::string_view::npos;
    return a2f ? CaptureFormat::kA2f : CaptureFormat::kMediaPipe;
  }
  const std::string_view line = text.substr(0, text.find('\n'));
  const bool binary = std::any_of(line.begin(), line.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 && c != '\t' && c != '\r';
  });
  if (!binary && line.find('|') != std::string_view::npos) return CaptureFormat::kIFacialMocap;
  if (!binary && line.find(',') != std::string_view::npos) {
    std::string_view first = line.substr(0, line.find(','));
    while (!first.empty() && isBlank(first.back())) first.remove_suffix(1);
    return namesMatch(first, "Timecode", NameMatch::kCaseInsensitive) ? CaptureFormat::kLiveLink : CaptureFormat::kCsv;
  }
  return fail(Error::kInvalidArgument,
              "line 1: " + quote(line.substr(0, 40)) +
                  " is not a known capture format (a CSV header, iFacialMocap packets NAME-VALUE|..., or MediaPipe / "
                  "Audio2Face JSON; --capture-format names the format)");
}

}  // namespace morphkit
