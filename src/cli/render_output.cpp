// SPDX-License-Identifier: MIT
#ifdef HAVE_morphkit_render  // render's output stage (a CPU-only build has no render command)
#include "render_output.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "command.h"
#include "morphkit/model/files.h"
#include "output_folder.h"

namespace morphkit::cli {

ContactCells pickContactCells(uint32_t first, uint32_t count, uint32_t width) {
  ContactCells sheet;
  const uint32_t sheet_count = std::min<uint32_t>(count, 16);
  sheet.cell_width = std::min<uint32_t>(width, 256);
  for (uint32_t i = 0; i < sheet_count; ++i) sheet.picks.push_back(first + uint32_t(uint64_t(i) * count / sheet_count));
  sheet.cells.resize(sheet.picks.size());
  return sheet;
}

// Whether this run makes a video, decided before the first frame so that ffmpeg takes the frames as they come.
void startVideo(bool no_video, double fps, const RenderOptions& options, uint32_t frame_count, uint32_t missing,
                const std::filesystem::path& out_dir, VideoOutput& out) {
  out.mp4 = out_dir / "animation.mp4";
  out.tmp = out_dir / "animation.tmp.mp4";
  const std::string ffmpeg = no_video ? std::string() : findOnPath("ffmpeg");
  std::error_code mp4_ec;
  if (no_video) {
    out.note = "--no-video";
  } else if (ffmpeg.empty()) {
    out.note = "no ffmpeg on PATH: no video";
  } else if (frame_count > 1 && missing == 0 && std::filesystem::exists(out.mp4, mp4_ec)) {
    out.video = out.mp4.string();  // --resume with nothing left to render: the video is already there
  } else if (frame_count > 1) {
    out.pipe = VideoPipe::start(ffmpeg, out.tmp, {options.width, options.height, fps, frame_count});
    out.failed = !out.pipe;
  }
}

// A frame --resume kept, read back for the contact sheet or the video (at most 16 for the sheet; every kept frame
// when a video is made).
Expected<RenderedImage> readFrameFile(const std::filesystem::path& name, const RenderOptions& options) {
  Expected<std::vector<uint8_t>> bytes = readFile(name, size_t(1) << 30);
  if (!bytes) return bytes.error();
  Expected<DecodedImage> decoded = decodePng(*bytes);
  if (!decoded) return decoded.error();
  if (decoded->width != options.width || decoded->height != options.height) {
    return fail(Error::kInvalidArgument, fmt::format("--resume: the frame is {}x{}, not {}x{}", decoded->width,
                                                     decoded->height, options.width, options.height));
  }
  return RenderedImage{decoded->width, decoded->height, std::move(decoded->rgba)};
}

void keepContactCell(ContactCells& sheet, uint32_t frame, const RenderedImage& image) {
  for (size_t i = 0; i < sheet.picks.size(); ++i) {
    if (sheet.picks[i] == frame) sheet.cells[i] = downscaleImage(image, sheet.cell_width);
  }
}

// contact_sheet.png, unless --no-contact-sheet or --resume rendered nothing and the sheet is already there.
int writeContactSheet(bool no_contact_sheet, const RenderOptions& options, const std::filesystem::path& out_dir,
                      uint32_t rendered, ContactCells& sheet) {
  const std::filesystem::path sheet_path = out_dir / "contact_sheet.png";
  std::error_code sheet_ec;
  if (no_contact_sheet || (rendered == 0 && std::filesystem::exists(sheet_path, sheet_ec))) return 0;
  // Frames skipped by --resume come back from their files (at most 16 decodes).
  for (size_t i = 0; i < sheet.picks.size(); ++i) {
    if (!sheet.cells[i].rgba.empty()) continue;
    const std::filesystem::path name = out_dir / frameFileName(sheet.picks[i]);
    Expected<RenderedImage> kept = readFrameFile(name, options);
    if (!kept) return reportFailure(name, kept.error());
    sheet.cells[i] = downscaleImage(*kept, sheet.cell_width);
  }
  // Cells no frame fills take the background colour (sRGB-encoded as the attachment stores it).
  std::array<uint8_t, 4> fill{};
  for (int c = 0; c < 4; ++c) {
    const float v = std::clamp(options.background[c], 0.0f, 1.0f);
    const float encoded = c == 3 ? v : v <= 0.0031308f ? v * 12.92f : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f;
    fill[c] = uint8_t(std::lround(encoded * 255.0f));
  }
  DecodedImage image = makeContactSheet(sheet.cells, 4, sheet.cell_width, fill);
  Expected<std::vector<uint8_t>> sheet_png = encodePng(image.rgba, image.width, image.height);
  if (!sheet_png) return reportFailure({}, sheet_png.error());
  if (Status s = writeFileAtomic(sheet_path, std::span<const uint8_t>(*sheet_png)); !s)
    return reportFailure(sheet_path, s.error());
  return 0;
}

// ffmpeg has every frame: close its input, wait, and move the video into place.
int finishVideo(VideoOutput& out) {
  if (!out.pipe && !out.failed) return 0;
  const bool encoded = out.pipe && out.pipe->finish();
  out.pipe.reset();
  std::error_code mp4_ec;
  if (!encoded) {
    // A failed operation like any other (exit 1): the frames and the contact sheet stay, the video is not there.
    std::filesystem::remove(out.tmp, mp4_ec);
    return reportFailure(out.mp4, fail(Error::kIo,
                                       "ffmpeg failed to encode the frames (they are written; --no-video skips the "
                                       "video)"));
  }
  std::filesystem::rename(out.tmp, out.mp4, mp4_ec);
  if (mp4_ec)
    return reportFailure(out.mp4, fail(Error::kIo, "cannot rename the video into place: " + mp4_ec.message()));
  out.video = out.mp4.string();
  return 0;
}

}  // namespace morphkit::cli
#endif  // HAVE_morphkit_render
