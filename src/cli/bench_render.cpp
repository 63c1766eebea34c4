// SPDX-License-Identifier: MIT
// The render rows of `morphkit bench FILE` (bench_rows.h).
#include "bench_rows.h"

#if HAVE_morphkit_render
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

#include "morphkit/image/frame_writer.h"
#include "morphkit/model/files.h"
#include "morphkit/render/render.h"
#include "morphkit/vk/gpu.h"
#include "morphkit_bench/gpu_bench.h"

namespace morphkit::cli {
namespace {

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The frames alone: GPU frames without readback, the vertex and the compute path.
Status renderPathRows(Context& c, VulkanContext& context, const Asset& asset, uint32_t animation, uint32_t width,
                      uint32_t height, std::vector<Row>& rows) {
  for (MorphPath path : {MorphPath::kVertex, MorphPath::kCompute}) {
    Row row{std::string("render_") + morphPathName(path)};
    RenderOptions options;
    options.width = width;
    options.height = height;
    options.morph_path = path;
    options.shadows = false;
    options.depth_prepass = false;
    Expected<Renderer*> renderer = createRenderer(context, asset, options);
    if (!renderer) {
      // The renderer does not apply (no graphics queue, a morph texture over the device's limits, ...).
      row.skipped = renderer.error().message;
      rows.push_back(row);
      c.bar.update(c.done += c.times.size() * std::max(c.options.repetitions, 1u));
      continue;
    }
    std::unique_ptr<Renderer, void (*)(Renderer*)> owner(*renderer, destroyRenderer);
    if (Status w = warmUpGpu(context, c.options.warmup_ms); !w) return w;  // the clocks up first
    Status s = timeRow(c, row, [&](double t) -> Expected<double> {
      RenderFrameInput input;
      input.animation = animation;
      input.time = t;
      input.readback = false;
      RenderStats stats;
      Expected<RenderedImage> image = renderFrame(**renderer, input, &stats);
      if (!image) return image.error();
      return stats.gpu_ms + (std::isnan(stats.morph_gpu_ms) ? 0.0 : stats.morph_gpu_ms);
    });
    if (!s) return s;
    rows.push_back(row);
  }
  return Ok{};
}

// `render FILE --size WxH --out DIR` without the CLI around it: the default look (environment, shadows, prepass,
// MSAA), every frame read back and handed to the PNG writer on `threads` encoders, written into a scratch folder.
// Its floors, from the same run: the frames' GPU time (timestamps), the pass's pixels read back in one transfer,
// one frame's encode on one core × frames ÷ threads, and the pass's PNG bytes written in one write; per frame.
Status renderPngRow(Context& c, VulkanContext& context, const Asset& asset, uint32_t animation, uint32_t width,
                    uint32_t height, unsigned threads, std::vector<Row>& rows) {
  Row row{"render_png", threads};
  RenderOptions options;
  options.width = width;
  options.height = height;
  Expected<Renderer*> renderer = createRenderer(context, asset, options);
  if (!renderer) {
    row.skipped = renderer.error().message;
    rows.push_back(row);
    c.bar.update(c.done += c.times.size() * std::max(c.options.repetitions, 1u));
    return Ok{};
  }
  std::unique_ptr<Renderer, void (*)(Renderer*)> owner(*renderer, destroyRenderer);
  const std::filesystem::path scratch =
      std::filesystem::temp_directory_path() / ("morphkit-bench-render-" + std::to_string(::getpid()));
  std::error_code ec;
  std::filesystem::create_directories(scratch, ec);
  uint64_t png_bytes = 0;
  double gpu_ms = 0;
  RenderedImage sample;  // one frame's pixels, for the encode floor
  auto pass = [&]() -> Status {
    PngFrameWriter pngs(threads);
    gpu_ms = 0;
    Status rendered = renderFrameSequence(
        **renderer, uint32_t(c.times.size()),
        [&](uint32_t i) {
          RenderFrameInput input;
          input.animation = animation;
          input.time = c.times[i];
          return input;
        },
        [&](uint32_t i, RenderedImage&& image, const RenderStats& stats) -> Status {
          gpu_ms += stats.gpu_ms + (std::isnan(stats.morph_gpu_ms) ? 0.0 : stats.morph_gpu_ms);
          if (i == 0) sample = image;
          if (!pngs.push(scratch / ("frame_" + std::to_string(i) + ".png"), std::move(image))) {
            return fail(Error::kIo, "the PNG writer stopped");  // finish() below says why
          }
          return Ok{};
        });
    if (std::optional<FrameWriteFailure> failed = pngs.finish()) return failed->failure;
    return rendered;
  };
  if (Status w = warmUpGpu(context, c.options.warmup_ms); !w) return w;
  const double frames = double(c.times.size());
  for (uint32_t p = 0; p <= std::max(c.options.repetitions, 1u); ++p) {  // pass 0: untimed
    const auto start = std::chrono::steady_clock::now();
    if (Status s = pass(); !s) return s;
    const double ms = msSince(start) / frames;
    if (p > 0 && (std::isnan(row.ms) || ms < row.ms)) {
      row.ms = ms;
      row.gpu_ms = gpu_ms / frames;
    }
    if (p > 0) c.bar.update(c.done += c.times.size());
  }
  for (const auto& entry : std::filesystem::directory_iterator(scratch, ec)) png_bytes += entry.file_size(ec);
  Expected<double> readback = measureReadbackMilliseconds(context, uint64_t(width) * height * 4 * c.times.size(), 3);
  if (!readback) return readback.error();
  row.readback_ms = *readback / frames;
  for (int i = 0; i < 3; ++i) {  // best of three, on this thread
    const auto start = std::chrono::steady_clock::now();
    Expected<std::vector<uint8_t>> png = encodePng(sample.rgba, sample.width, sample.height);
    if (!png) return png.error();
    const double ms = msSince(start) / double(std::max(threads, 1u));
    if (std::isnan(row.encode_ms) || ms < row.encode_ms) row.encode_ms = ms;
  }
  const std::vector<uint8_t> same_bytes(png_bytes, 0);
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    if (Status s = writeFileAtomic(scratch / "floor.bin", std::span<const uint8_t>(same_bytes)); !s) return s;
    const double ms = msSince(start) / frames;
    if (std::isnan(row.write_ms) || ms < row.write_ms) row.write_ms = ms;
  }
  std::filesystem::remove_all(scratch, ec);
  rows.push_back(row);
  return Ok{};
}

// A crowd renderer as `render --crowd N` makes it (layoutCrowd: the grid, random offsets, framed together).
Expected<Renderer*> createCrowdRenderer(VulkanContext& context, const Asset& asset, uint32_t animation,
                                        RenderOptions options, uint32_t copies) {
  Expected<Bounds> bounds = clipBounds(asset, options.scene, animation);
  if (!bounds) return bounds.error();
  const double clip = animation == kNone ? 0.0 : animationDuration(asset, animation);
  CrowdLayout layout = layoutCrowd(copies, 0.0f, CrowdOffsets::kRandom, clip, *bounds);
  options.instances = copies;
  options.crowd = true;
  options.instance_offsets = std::move(layout.offsets);
  options.instance_time_offsets = std::move(layout.time_offsets);
  options.instance_time_wrap = clip;
  Expected<Renderer*> renderer = createRenderer(context, asset, options);
  if (renderer) setRendererCamera(**renderer, frameBounds(layout.bounds, float(options.width) / float(options.height)));
  return renderer;
}

}  // namespace

Status renderCrowdRow(Context& c, VulkanContext& context, const Asset& asset, uint32_t animation, uint32_t width,
                      uint32_t height, uint32_t copies, std::vector<Row>& rows) {
  Row row{"render_crowd", 0, std::to_string(copies) + " copies"};
  double floor_gpu_ms = std::nan("");
  for (bool one_pass : {false, true}) {  // the command's look, then the floor: no shadow map
    RenderOptions options;
    options.width = width;
    options.height = height;
    options.shadows = !one_pass;
    options.depth_prepass = false;  // as `render --crowd` (vertex-bound: the prepass saves no shading)
    Expected<Renderer*> renderer = createCrowdRenderer(context, asset, animation, options, copies);
    if (!renderer) {
      row.skipped = renderer.error().message;
      rows.push_back(row);
      c.bar.update(c.done += c.times.size() * std::max(c.options.repetitions, 1u) * (one_pass ? 1u : 2u));
      return Ok{};
    }
    std::unique_ptr<Renderer, void (*)(Renderer*)> owner(*renderer, destroyRenderer);
    if (Status w = warmUpGpu(context, c.options.warmup_ms); !w) return w;
    Row timed{row.path};
    Status s = timeRow(c, timed, [&](double t) -> Expected<double> {
      RenderFrameInput input;
      input.animation = animation;
      input.time = t;
      input.readback = false;
      RenderStats stats;
      Expected<RenderedImage> image = renderFrame(**renderer, input, &stats);
      if (!image) return image.error();
      return stats.gpu_ms + (std::isnan(stats.morph_gpu_ms) ? 0.0 : stats.morph_gpu_ms);
    });
    if (!s) return s;
    if (one_pass) {
      floor_gpu_ms = timed.gpu_ms;
    } else {
      row.ms = timed.gpu_ms;  // the goal is the frame's GPU time
      row.gpu_ms = timed.gpu_ms;
    }
  }
  row.draw_ms = floor_gpu_ms;
  rows.push_back(row);
  return Ok{};
}

Status renderRows(Context& c, VulkanContext& context, const Asset& asset, uint32_t animation, uint32_t width,
                  uint32_t height, unsigned threads, std::vector<Row>& rows) {
  if (Status s = renderPathRows(c, context, asset, animation, width, height, rows); !s) return s;
  return renderPngRow(c, context, asset, animation, width, height, threads, rows);
}

}  // namespace morphkit::cli
#endif  // HAVE_morphkit_render
