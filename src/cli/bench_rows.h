// SPDX-License-Identifier: MIT
// What the rows of `morphkit bench FILE` share (bench_file.cpp times the pose rows, bench_render.cpp the render
// rows): a row's figures and floors, the run's frame times, and the side-by-side timing.
#pragma once
#include <cmath>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "bench_file.h"
#include "command.h"
#include "morphkit/model/error.h"

namespace morphkit {
struct Asset;
struct VulkanContext;
}  // namespace morphkit

namespace morphkit::cli {

struct Row {
  std::string path;                   // reference, fast, gpu, render_vertex, render_compute
  uint32_t threads = 0;               // CPU rows
  std::string layout;                 // gpu rows: the delta layout
  double ms = std::nan("");           // wall ms per frame, best pass
  double gpu_ms = std::nan("");       // GPU ms per frame (timestamps) in that pass; NaN for CPU rows / no timestamps
  double readback_ms = std::nan("");  // gpu_frames: the readback floor per frame (one transfer of the pass's bytes)
  double write_ms = std::nan("");     // gpu_frames_file: the write floor per frame (the same bytes, one large write)
  std::string skipped;                // non-empty: why the row did not run
  double encode_ms = std::nan("");    // render_png: one frame's PNG encode on one core ÷ the encoder threads
  // render_crowd: the GPU ms of the crowd's dispatch plus one draw of its output (one pass), measured alone; its ms
  // is the crowd frame's GPU ms (the goal is a GPU one), not the wall.
  double draw_ms = std::nan("");
  // The largest floor per frame (GPU time, readback, encode, write; a crowd's dispatch + draw), NaN where the row has
  // none.
  double floorMs() const {
    if (!std::isnan(draw_ms)) return draw_ms;
    if (std::isnan(readback_ms)) return std::nan("");
    double floor = std::isnan(gpu_ms) ? readback_ms : std::max(gpu_ms, readback_ms);
    if (!std::isnan(encode_ms)) floor = std::max(floor, encode_ms);
    return std::isnan(write_ms) ? floor : std::max(floor, write_ms);
  }
};

struct Context {
  const FileBenchOptions& options;
  std::vector<double> times;  // one per frame
  ProgressBar& bar;
  size_t done = 0;
};

// One frame: returns its GPU ms (NaN when not measured) or a failure.
using FrameFn = std::function<Expected<double>(double time)>;

// Times rows side by side (bench_file.cpp): a warm-up, then the best of the repetitions' passes.
Status timeRows(Context& c, std::span<Row> rows, std::span<const FrameFn> frames);
Status timeRow(Context& c, Row& row, const FrameFn& frame);
bool wants(const FileBenchOptions& o, const char* path);

// The render rows (bench_render.cpp): render_vertex and render_compute (GPU frames, no readback), then render_png,
// the render command's whole frame (readback, the PNG writer on `threads` encoders, files in a scratch folder)
// beside its floors.
Status renderRows(Context& c, VulkanContext& context, const Asset& asset, uint32_t animation, uint32_t width,
                  uint32_t height, unsigned threads, std::vector<Row>& rows);
// render_crowd (bench_render.cpp): `render FILE --crowd N` frames (the default look, no readback), GPU ms per frame
// beside the crowd's dispatch plus one draw of its output in one pass, both from timestamps in the same run.
Status renderCrowdRow(Context& c, VulkanContext& context, const Asset& asset, uint32_t animation, uint32_t width,
                      uint32_t height, uint32_t copies, std::vector<Row>& rows);

}  // namespace morphkit::cli
