// SPDX-License-Identifier: MIT
// render's outputs beside the frames (render_command.cpp): the contact sheet, built from small copies of its frames
// as they arrive, and animation.mp4, fed to ffmpeg as the frames render (video_pipe.h).
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "morphkit/render/render.h"
#include "video_pipe.h"

namespace morphkit::cli {

// Contact sheet: up to 16 frames evenly spread, 4 per row; only their small copies are kept.
struct ContactCells {
  std::vector<uint32_t> picks;  // frame indices
  std::vector<RenderedImage> cells;
  uint32_t cell_width = 0;
};

ContactCells pickContactCells(uint32_t first, uint32_t count, uint32_t width);
void keepContactCell(ContactCells& sheet, uint32_t frame, const RenderedImage& image);
// contact_sheet.png, unless `no_contact_sheet` or --resume rendered nothing and the sheet is already there; frames
// --resume kept come back from their files. 0, or the exit code after the error line.
int writeContactSheet(bool no_contact_sheet, const RenderOptions& options, const std::filesystem::path& out_dir,
                      uint32_t rendered, ContactCells& sheet);

// animation.mp4's state for one run: `pipe` while ffmpeg takes the frames, else `video` (the file, when kept) or
// `note` (why there is none).
struct VideoOutput {
  std::unique_ptr<VideoPipe> pipe;
  std::filesystem::path tmp, mp4;
  std::string video, note;
  bool failed = false;  // ffmpeg could not be started
  // A run that stops before finishVideo (a failed frame) leaves no partial video.
  ~VideoOutput() {
    if (!pipe) return;
    pipe.reset();
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
  }
};

// Whether this run makes a video, decided before the first frame so that ffmpeg takes the frames as they come.
void startVideo(bool no_video, double fps, const RenderOptions& options, uint32_t frame_count, uint32_t missing,
                const std::filesystem::path& out_dir, VideoOutput& out);
// ffmpeg has every frame: close its input, wait, and move the video into place. 0, or the exit code.
int finishVideo(VideoOutput& out);

// A frame --resume kept, read back for the contact sheet or the video.
Expected<RenderedImage> readFrameFile(const std::filesystem::path& name, const RenderOptions& options);

}  // namespace morphkit::cli
