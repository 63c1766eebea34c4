// SPDX-License-Identifier: MIT
// render's animation.mp4: ffmpeg started before the first frame and fed each frame's raw RGBA through its stdin in
// frame order, so the frames are encoded as they are rendered and never read back from their PNG files.
#pragma once
#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace morphkit::cli {

// `name` on PATH, or empty.
std::string findOnPath(const char* name);

struct VideoFormat {
  uint32_t width = 0, height = 0;
  double fps = 30;
  uint32_t frames = 0;  // how many frames will come
};

class VideoPipe {
 public:
  // Starts `ffmpeg` writing `out` (H.264, yuv420p, odd sizes padded to even); null when it cannot be started.
  static std::unique_ptr<VideoPipe> start(const std::string& ffmpeg, const std::filesystem::path& out,
                                          const VideoFormat& format);
  ~VideoPipe();  // closes the pipe and reaps ffmpeg (a render that failed half-way)
  VideoPipe(const VideoPipe&) = delete;
  VideoPipe& operator=(const VideoPipe&) = delete;

  // One frame, width × height × 4 bytes. After ffmpeg has gone (it failed), frames are dropped: finish() says so.
  void write(std::span<const uint8_t> rgba);
  // Closes ffmpeg's input and waits for it: true when it exited 0 and took every frame.
  bool finish();

 private:
  VideoPipe(pid_t pid, int fd, size_t frame_bytes);
  pid_t pid_ = -1;
  int fd_ = -1;
  size_t frame_bytes_ = 0;
  bool broken_ = false;
  bool exit_ok_ = false;  // finish()'s answer, kept for a second call
  struct sigaction previous_sigpipe_ = {};
};

}  // namespace morphkit::cli
