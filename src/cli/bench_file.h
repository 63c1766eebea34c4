// SPDX-License-Identifier: MIT
// `morphkit bench FILE`: ms per frame of every deformation path on the user's own asset (bench_file.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "command.h"

namespace morphkit::cli {

struct FileBenchOptions {
  std::string file;
  std::string anim;             // index or name; empty: the first animation (rest pose when there is none)
  uint32_t frames = 30;         // frame i samples t = i · duration / frames (one pass over the clip)
  uint32_t threads = 0;         // fast path at 1..threads threads (0: every hardware thread)
  uint32_t repetitions = 3;     // passes over the frames per row; the best pass is reported
  bool positions_only = false;  // CPU rows: PoseOptions::positions_only (three.js's CPU path computes positions only)
  double warmup_ms = -1.0;      // GPU rows: warmUpGpu before each (< 0: warmUpMilliseconds's default)
  std::vector<std::string> paths = {"reference", "fast", "gpu", "render"};  // rows to run
  std::string size = "256x256";                                             // render rows: target size
  uint32_t crowd = 0;  // > 0: the render_crowd row, `render --crowd N` beside its dispatch and one draw
  int device = -1;     // Vulkan device index
  bool validation = false;
  bool json = false;
  FileAccessFlags file_access;
};

int runFileBench(const FileBenchOptions& options);

}  // namespace morphkit::cli
