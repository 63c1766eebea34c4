// SPDX-License-Identifier: MIT
#ifdef HAVE_morphkit_render  // render's output stage (a CPU-only build has no render command)
#include "video_pipe.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

extern char** environ;

namespace morphkit::cli {

std::string findOnPath(const char* name) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::string_view rest(path);
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    std::filesystem::path candidate = std::filesystem::path(rest.substr(0, colon)) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return {};
}

std::unique_ptr<VideoPipe> VideoPipe::start(const std::string& ffmpeg, const std::filesystem::path& out,
                                            const VideoFormat& format) {
  const std::vector<std::string> args = {ffmpeg,       "-y",
                                         "-loglevel",  "error",
                                         "-f",         "rawvideo",
                                         "-pix_fmt",   "rgba",
                                         "-s",         fmt::format("{}x{}", format.width, format.height),
                                         "-framerate", fmt::format("{}", format.fps),
                                         "-i",         "-",
                                         "-frames:v",  std::to_string(format.frames),
                                         "-vf",        "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                                         "-pix_fmt",   "yuv420p",
                                         "-f",         "mp4",
                                         out.string()};
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return nullptr;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 0);  // the copy on fd 0 has no close-on-exec
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[0]);
  if (spawned != 0) {
    ::close(fds[1]);
    return nullptr;
  }
  return std::unique_ptr<VideoPipe>(new VideoPipe(pid, fds[1], size_t(format.width) * format.height * 4));
}

// A write to a pipe whose reader has exited raises SIGPIPE, which would kill the render: ignored while the pipe is
// open, so the write fails with EPIPE instead and the frames on disk stay.
VideoPipe::VideoPipe(pid_t pid, int fd, size_t frame_bytes) : pid_(pid), fd_(fd), frame_bytes_(frame_bytes) {
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, &previous_sigpipe_);
}

VideoPipe::~VideoPipe() {
  finish();
  sigaction(SIGPIPE, &previous_sigpipe_, nullptr);
}

void VideoPipe::write(std::span<const uint8_t> rgba) {
  if (broken_ || fd_ < 0) return;
  if (rgba.size() != frame_bytes_) {
    broken_ = true;
    return;
  }
  size_t done = 0;
  while (done < rgba.size()) {
    const ssize_t n = ::write(fd_, rgba.data() + done, rgba.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      broken_ = true;  // EPIPE: ffmpeg has exited
      return;
    }
    done += size_t(n);
  }
}

bool VideoPipe::finish() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (pid_ <= 0) return exit_ok_;
  int status = 0;
  pid_t waited = -1;
  do {
    waited = waitpid(pid_, &status, 0);
  } while (waited < 0 && errno == EINTR);
  pid_ = -1;
  exit_ok_ = waited > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && !broken_;
  return exit_ok_;
}

}  // namespace morphkit::cli
#endif  // HAVE_morphkit_render
