// SPDX-License-Identifier: MIT
// capture_file.cpp — parseCapture and readCaptureFile (morphkit/io/capture_file.h): the one entry for every capture
// format, by content or by name.
#include "morphkit/io/capture_file.h"

#include "morphkit/io/weight_files.h"
#include "morphkit/model/files.h"

namespace morphkit {

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

Expected<Capture> readCaptureFile(const std::filesystem::path& path, const CaptureOptions& options) {
  Expected<std::vector<uint8_t>> bytes = readFile(path, kMaxCaptureBytes);
  if (!bytes) return bytes.error();
  return parseCapture(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), options);
}

}  // namespace morphkit
