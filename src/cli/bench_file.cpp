// SPDX-License-Identifier: MIT
// `morphkit bench FILE [--anim A] [--frames N] [--threads N] [--paths ...] [--json]`: the user's own asset, every
// deformation path, ms per frame. Frame i of N samples t = i · d / N (d = the clip's duration), so one pass
// plays the clip once; the rows play their frames for kRowWarmUpMs untimed, then `repetitions` passes, and each
// reports its best pass (the CPU rows side by side, pass by pass: timeRows).
//   reference       evaluatePose into a reused PoseResult, scalar reference path (morphkit/core/pose.h), 1 thread
//   fast            the same, fast path, on a ThreadPool of 1..N threads
//   gpu             evaluateGpuPose (morphkit/vk/gpu_pose.h) with the delta layout forced to each layout in turn:
//                   wall ms (CPU sampling + upload + dispatch + readback) and the dispatch's GPU ms (timestamps)
//   gpu_frames      evaluateGpuPoseFrames: every frame of a pass through the frames-in-flight stream (the layout
//                   `pose --device gpu` picks), into memory; beside its floors, measured in the same run: the GPU
//                   time of a frame's dispatch (timestamps) and the readback of the pass's bytes in one transfer
//   gpu_frames_arrays  the same stream into fresh arrays of positions, normals and weights, each frame copied from
//                   the chunk's host memory (evaluateGpuPoseFrameViews): Python's pose(device="gpu"), the batch
//   gpu_frames_npy  the same into the posed arrays, then encoded and written as `pose --out F.npy` does (.npz for a
//                   scene of several primitives), beside the same floors and the write of as many bytes in one write
//   render_vertex   renderFrame, vertex-shader morph (band-texture path texture), 1 pass (no shadow, no prepass), no
//   render_compute  readback; GPU ms = render pass (+ the compute dispatch); compute: the GpuMorphGroup output drawn
//   render_png      `render`'s whole frame (bench_render.cpp): its default look, readback, PNG encoding on --threads
//                   encoders, files written in order; beside its GPU, readback, encode and write floors
//   render_crowd    with --crowd N: `render --crowd N`'s frames (default look, no readback), GPU ms per frame, beside
//                   the same crowd in one pass (no shadow map, no prepass): its dispatch plus one draw of its output
// Every row is a full frame as an application would run it: animation sampling and scene evaluation included.
#include "bench_file.h"

#ifdef HAVE_morphkit_vk
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <thread>

#include "bench_rows.h"
#include "command.h"
#include "morphkit/core/animation.h"
#include "morphkit/core/pose.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/model/files.h"
#include "morphkit/vk/gpu.h"
#include "morphkit/vk/gpu_pose.h"
#include "morphkit_bench/gpu_bench.h"
#include "pose_output.h"
#include "selection.h"

namespace morphkit::cli {

// Before a row is timed it plays its frames for this long (at least one): on the 2-core development VM a row
// timed cold ran at about half speed (MorphSkinBlob52, fast path, positions only: 0.13 ms per frame as the only
// row, 0.072 right after another row; docs/PERFORMANCE.md). The CPU's counterpart of warmUpGpu.
constexpr double kRowWarmUpMs = 300.0;

// Times rows side by side: the warm-up (kRowWarmUpMs, every row in turn), then `repetitions` passes, each
// pass playing every frame on each row in turn after one untimed frame (which wakes the row's thread pool from
// its sleep while the other rows ran). Fills each row's ms / gpu_ms from its best pass. Interleaved so that a
// machine whose speed drifts within a run (the development VM's does) slows every row alike: timed one after the
// other, the thread rows' ratio compared one moment with another.
Status timeRows(Context& c, std::span<Row> rows, std::span<const FrameFn> frames) {
  using Clock = std::chrono::steady_clock;
  const auto warm_start = Clock::now();
  for (size_t i = 0;; ++i) {
    for (const FrameFn& frame : frames) {
      if (Expected<double> warm = frame(c.times[i % c.times.size()]); !warm) return warm.error();
    }
    if (std::chrono::duration<double, std::milli>(Clock::now() - warm_start).count() >= kRowWarmUpMs) break;
  }
  const uint32_t passes = std::max(c.options.repetitions, 1u);
  for (uint32_t pass = 0; pass < passes; ++pass) {
    for (size_t r = 0; r < rows.size(); ++r) {
      if (Expected<double> wake = frames[r](c.times.back()); !wake) return wake.error();
      double gpu = 0.0;
      const auto start = Clock::now();
      for (double t : c.times) {
        Expected<double> g = frames[r](t);
        if (!g) return g.error();
        gpu += *g;
        c.bar.update(++c.done);
      }
      const double ms =
          std::chrono::duration<double, std::milli>(Clock::now() - start).count() / double(c.times.size());
      if (std::isnan(rows[r].ms) || ms < rows[r].ms) {
        rows[r].ms = ms;
        rows[r].gpu_ms = gpu / double(c.times.size());
      }
    }
  }
  return Ok{};
}

Status timeRow(Context& c, Row& row, const FrameFn& frame) {
  return timeRows(c, std::span<Row>(&row, 1), std::span<const FrameFn>(&frame, 1));
}

bool wants(const FileBenchOptions& o, const char* path) {
  return std::find(o.paths.begin(), o.paths.end(), path) != o.paths.end();
}

namespace {

// Workers alive at once while CPU rows are timed side by side (each row holds its own pool): rows are timed in
// groups whose pools have at most this many workers in all, so that --threads 128 does not start 8128 threads.
constexpr size_t kMaxInterleavedWorkers = 256;

// The CPU rows (reference, then fast at 1..N threads), timed side by side (timeRows), group by group.
Status cpuRows(Context& c, const PosePrepared& prepared, uint32_t animation, unsigned threads, std::vector<Row>& rows) {
  struct CpuRow {
    CpuPath path;
    std::unique_ptr<ThreadPool> pool;  // the CLI owns the threads; the library borrows them
    SamplingContext sampling;
    PoseResult result;  // reused frame to frame, as a player would
  };
  std::vector<Row> specs;  // threads 0: the reference row (no pool)
  if (wants(c.options, "reference")) specs.push_back(Row{"reference", 0});
  if (wants(c.options, "fast")) {
    for (unsigned n = 1; n <= threads; ++n) specs.push_back(Row{"fast", n});
  }
  for (size_t first = 0; first < specs.size();) {
    size_t last = first, workers = 0;
    while (last < specs.size() &&
           (last == first || workers + std::max(specs[last].threads, 1u) - 1 <= kMaxInterleavedWorkers)) {
      workers += std::max(specs[last].threads, 1u) - 1;
      ++last;
    }
    std::vector<Row> timed;
    std::vector<std::unique_ptr<CpuRow>> state;
    std::vector<FrameFn> frames;
    for (size_t i = first; i < last; ++i) {
      const bool reference = specs[i].threads == 0;
      timed.push_back(Row{specs[i].path, reference ? 1u : specs[i].threads});
      state.push_back(
          std::make_unique<CpuRow>(CpuRow{reference ? CpuPath::kReference : CpuPath::kFast,
                                          reference ? nullptr : std::make_unique<ThreadPool>(specs[i].threads)}));
      frames.push_back([&c, &prepared, animation, row = state.back().get()](double t) -> Expected<double> {
        PoseOptions pose;
        pose.animation = animation;
        pose.time = t;
        pose.path = row->path;
        pose.pool = row->pool.get();
        pose.sampling = &row->sampling;
        pose.positions_only = c.options.positions_only;
        if (Status posed = evaluatePose(prepared, pose, row->result); !posed) return posed.error();
        return std::nan("");
      });
    }
    if (Status s = timeRows(c, timed, frames); !s) return s;
    rows.insert(rows.end(), timed.begin(), timed.end());
    first = last;
  }
  return Ok{};
}

Status gpuRows(Context& c, VulkanContext& context, const PosePrepared& prepared, uint32_t animation,
               std::vector<Row>& rows) {
  for (DeltaLayout layout :
       {DeltaLayout::kDenseF32, DeltaLayout::kDenseF16, DeltaLayout::kDenseSnorm16, DeltaLayout::kSparse}) {
    Row row{"gpu", 0, deltaLayoutName(layout)};
    GpuUploadOptions upload;
    upload.layout = layout;
    Expected<GpuPose*> pose = prepareGpuPose(context, prepared, upload);
    if (!pose) {
      if (pose.error().code != Error::kOutOfMemory && pose.error().code != Error::kTooLarge) return pose.error();
      row.skipped = pose.error().message;
      rows.push_back(row);
      c.bar.update(c.done += c.times.size() * std::max(c.options.repetitions, 1u));
      continue;
    }
    std::unique_ptr<GpuPose, std::function<void(GpuPose*)>> owner(*pose,
                                                                  [&](GpuPose* p) { destroyGpuPose(context, p); });
    SamplingContext sampling;
    if (Status w = warmUpGpu(context, c.options.warmup_ms); !w) return w;  // the clocks up first
    Status s = timeRow(c, row, [&](double t) -> Expected<double> {
      GpuPoseOptions options;
      options.animation = animation;
      options.time = t;
      options.sampling = &sampling;
      Expected<PoseResult> result = evaluateGpuPose(context, **pose, options);
      if (!result) return result.error();
      return lastGpuPoseMicroseconds(**pose) / 1000.0;
    });
    if (!s) return s;
    rows.push_back(row);
  }
  return Ok{};
}

// One request per frame of the pass, sharing one sampling cursor.
std::vector<GpuPoseOptions> frameRequests(const Context& c, uint32_t animation, SamplingContext& sampling) {
  std::vector<GpuPoseOptions> frames(c.times.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    frames[i].animation = animation;
    frames[i].time = c.times[i];
    frames[i].sampling = &sampling;
  }
  return frames;
}

// What the frames rows share: the warm-up, `pass` (every frame once) timed best of the repetitions after an untimed
// one, then the floors from the same run: one frame's dispatch (timestamps) and the pass's bytes read back in one
// transfer, per frame.
Status timeFrames(Context& c, VulkanContext& context, GpuPose& pose, std::span<const GpuPoseOptions> frames,
                  const std::function<Status()>& pass, Row& row) {
  if (Status w = warmUpGpu(context, c.options.warmup_ms); !w) return w;
  for (uint32_t p = 0; p <= std::max(c.options.repetitions, 1u); ++p) {  // pass 0: untimed
    const auto start = std::chrono::steady_clock::now();
    if (Status s = pass(); !s) return s;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
                      double(frames.size());
    if (p > 0 && (std::isnan(row.ms) || ms < row.ms)) row.ms = ms;
    if (p > 0) c.bar.update(c.done += frames.size());
  }
  Expected<PoseResult> one = evaluateGpuPose(context, pose, frames[0]);  // the GPU floor: one frame's dispatch
  if (!one) return one.error();
  row.gpu_ms = lastGpuPoseMicroseconds(pose) / 1000.0;
  Expected<double> readback = measureReadbackMilliseconds(context, gpuPoseFrameBytes(pose) * frames.size(), 3);
  if (!readback) return readback.error();
  row.readback_ms = *readback / double(frames.size());
  return Ok{};
}

// The frames-in-flight row: each pass poses every frame through one evaluateGpuPoseFrames call, into memory, the
// host's share on `threads` threads as `pose --device gpu` runs it.
Status gpuFramesRow(Context& c, VulkanContext& context, const PosePrepared& prepared, uint32_t animation,
                    unsigned threads, std::vector<Row>& rows) {
  Expected<GpuPose*> pose = prepareGpuPose(context, prepared);
  if (!pose) return pose.error();
  std::unique_ptr<GpuPose, std::function<void(GpuPose*)>> owner(*pose, [&](GpuPose* p) { destroyGpuPose(context, p); });
  Row row{"gpu_frames", threads, "auto"};  // the layout `pose --device gpu` picks (chooseDeltaLayout)
  SamplingContext sampling;
  const std::vector<GpuPoseOptions> frames = frameRequests(c, animation, sampling);
  auto consume = [](size_t, PoseResult&&) -> Status { return Ok{}; };
  ThreadPool pool(threads);
  GpuPoseStreamOptions stream;
  stream.pool = &pool;
  stream.concurrent_sink = true;
  if (Status s = timeFrames(
          c, context, **pose, frames, [&] { return evaluateGpuPoseFrames(context, **pose, frames, consume, stream); },
          row);
      !s)
    return s;
  rows.push_back(row);
  // Python's pose(times=..., device="gpu") and the batch's posed arrays: each frame from the chunk's host memory
  // straight into fresh arrays of positions, normals and weights (evaluateGpuPoseFrameViews + copyGpuPoseFrame).
  Row arrays_row{"gpu_frames_arrays", threads, "auto"};
  auto pass = [&]() -> Status {
    PoseArrays arrays(prepared, frames.size(), false);
    return evaluateGpuPoseFrameViews(
        context, **pose, frames,
        [&](size_t i, std::span<const GpuPosedInstance> frame) { return copyGpuPoseFrame(frame, i, arrays.views); },
        stream);
  };
  if (Status s = timeFrames(c, context, **pose, frames, pass, arrays_row); !s) return s;
  rows.push_back(arrays_row);
  return Ok{};
}

// `pose --device gpu --out F.npy|.npz` without the CLI around it: every frame streamed through evaluateGpuPoseFrames
// into the posed arrays (the pose command's sink), encoded and written to a scratch file in the temporary folder.
// Its floors: timeFrames' two and the write of the same number of bytes in one writeFileAtomic to the same folder.
Status gpuFramesFileRow(Context& c, VulkanContext& context, const PosePrepared& prepared, uint32_t animation,
                        unsigned threads, std::vector<Row>& rows) {
  Expected<GpuPose*> pose = prepareGpuPose(context, prepared);
  if (!pose) return pose.error();
  std::unique_ptr<GpuPose, std::function<void(GpuPose*)>> owner(*pose, [&](GpuPose* p) { destroyGpuPose(context, p); });
  const std::string format = poseArrayShapes(prepared).size() == 1 ? "npy" : "npz";
  Row row{"gpu_frames_" + format, threads, "auto"};
  SamplingContext sampling;
  const std::vector<GpuPoseOptions> frames = frameRequests(c, animation, sampling);
  const std::filesystem::path scratch =
      std::filesystem::temp_directory_path() / ("morphkit-bench-" + std::to_string(::getpid()) + "." + format);
  uint64_t file_bytes = 0;
  ThreadPool pool(threads);
  GpuPoseStreamOptions stream;
  stream.pool = &pool;
  stream.concurrent_sink = true;  // each frame into its own slot of the arrays
  auto pass = [&]() -> Status {
    PoseArrays arrays(prepared, frames.size(), format == "npy");
    auto sink = [&](size_t i, std::span<const GpuPosedInstance> frame) {
      return copyGpuPoseFrame(frame, i, arrays.views);
    };
    if (Status s = evaluateGpuPoseFrameViews(context, **pose, frames, sink, stream); !s) return s;
    Expected<EncodedArrays> encoded = encodePoseArrays(format, arrays, c.times);
    if (!encoded) return encoded.error();
    file_bytes = encoded->size();
    return writeFileAtomic(scratch, std::span<const std::span<const uint8_t>>(encoded->parts));
  };
  if (Status s = timeFrames(c, context, **pose, frames, pass, row); !s) return s;
  const std::vector<uint8_t> same_bytes(file_bytes, 0);
  for (int i = 0; i < 3; ++i) {  // best of three
    const auto start = std::chrono::steady_clock::now();
    if (Status s = writeFileAtomic(scratch, std::span<const uint8_t>(same_bytes)); !s) return s;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
                      double(frames.size());
    if (std::isnan(row.write_ms) || ms < row.write_ms) row.write_ms = ms;
  }
  std::error_code ignored;
  std::filesystem::remove(scratch, ignored);
  rows.push_back(row);
  return Ok{};
}

std::string fixed(double v, int digits) {
  return std::isnan(v) ? std::string("-") : fmt::format("{:.{}f}", v, digits);
}

// What the report prints: the asset's facts and the measured rows.
struct BenchReport {
  const FileBenchOptions& o;
  const Asset& asset;
  uint32_t animation = kNone;
  double duration = 0;
  uint64_t vertices = 0, primitives = 0;
  uint32_t max_targets = 0;
  unsigned hardware = 1;
  GpuDeviceInfo device;
  std::vector<Row> rows;
  double reference_ms = std::nan("");
};

void printJson(const BenchReport& report) {
  const FileBenchOptions& o = report.o;
  const double duration = report.duration;
  const std::string anim_name =
      report.animation == kNone ? std::string() : report.asset.animations[report.animation].name;
  const uint64_t vertices = report.vertices;
  const uint32_t max_targets = report.max_targets;
  const unsigned hardware = report.hardware;
  const GpuDeviceInfo& device = report.device;
  const double reference_ms = report.reference_ms;
  JsonWriter w(true);
  w.beginObject();
  w.field("file", o.file);
  w.key("animation");
  if (report.animation == kNone) {
    w.null();
  } else {
    w.beginObject().field("index", report.animation).field("name", anim_name).field("duration", duration).endObject();
  }
  w.field("frames", o.frames)
      .field("repetitions", std::max(o.repetitions, 1u))
      .field("positionsOnly", o.positions_only);
  w.field("vertices", vertices).field("primitives", report.primitives).field("maxTargets", max_targets);
  w.field("hardwareThreads", hardware);
  w.key("device");
  if (device.name.empty()) {
    w.null();
  } else {
    w.beginObject()
        .field("name", device.name)
        .field("type", gpuDeviceTypeName(device.type))
        .field("driver", device.driver);
    w.field("timestamps", device.timestamps).endObject();
    w.field("warmupMs", warmUpMilliseconds(o.warmup_ms, device));
  }
  w.key("rows").beginArray();
  for (const Row& r : report.rows) {
    w.beginObject().field("path", r.path);
    if (r.threads) w.field("threads", r.threads);
    if (!r.layout.empty()) w.field("layout", r.layout);
    if (!r.skipped.empty()) {
      w.field("skipped", r.skipped);
    } else {
      w.field("msPerFrame", r.ms).field("gpuMsPerFrame", r.gpu_ms).field("speedupVsReference", reference_ms / r.ms);
      if (!std::isnan(r.floorMs())) {
        w.key("floors").beginObject().field("gpuMs", r.gpu_ms).field("readbackMs", r.readback_ms);
        if (!std::isnan(r.write_ms)) w.field("writeMs", r.write_ms);
        if (!std::isnan(r.encode_ms)) w.field("encodeMs", r.encode_ms);
        if (!std::isnan(r.draw_ms)) w.field("dispatchAndDrawMs", r.draw_ms);
        w.endObject();
        w.field("ratioToFloor", r.ms / r.floorMs());
      }
    }
    w.endObject();
  }
  w.endArray().endObject();
  fmt::print("{}\n", w.str());
}

void printTable(const BenchReport& report) {
  const FileBenchOptions& o = report.o;
  const double duration = report.duration;
  const std::string anim_name =
      report.animation == kNone ? std::string() : report.asset.animations[report.animation].name;
  const GpuDeviceInfo& device = report.device;
  const double reference_ms = report.reference_ms;
  fmt::print("{}: {} vertices in {} primitive(s), up to {} targets; {}; {} frames, best of {} passes\n", o.file,
             report.vertices, report.primitives, report.max_targets,
             report.animation == kNone ? std::string("rest pose")
                                       : fmt::format("animation {}{} ({:.3g} s)", report.animation,
                                                     anim_name.empty() ? "" : " \"" + anim_name + "\"", duration),
             o.frames, std::max(o.repetitions, 1u));
  if (o.positions_only)
    fmt::print("CPU rows: posed positions only (no normals, tangents, texture coordinates, colors)\n");
  if (!device.name.empty()) {
    fmt::print("device: {} ({}); GPU warmed up {:.0f} ms before each GPU row\n", device.name,
               gpuDeviceTypeName(device.type), warmUpMilliseconds(o.warmup_ms, device));
  }
  fmt::print("{:<15} {:>7} {:<13} {:>10} {:>12} {:>10} {:>12} {:>8}\n", "path", "threads", "layout", "ms/frame",
             "GPU ms/frame", "x reference", "floor ms", "x floor");
  for (const Row& r : report.rows) {
    const std::string threads_text = r.threads ? std::to_string(r.threads) : "-";
    const std::string layout_text = r.layout.empty() ? "-" : r.layout;
    if (!r.skipped.empty()) {
      fmt::print("{:<15} {:>7} {:<13}   skipped: {}\n", r.path, threads_text, layout_text, r.skipped);
    } else {
      fmt::print("{:<15} {:>7} {:<13} {:>10} {:>12} {:>10} {:>12} {:>8}\n", r.path, threads_text, layout_text,
                 fixed(r.ms, 3), fixed(r.gpu_ms, 3), fixed(reference_ms / r.ms, 1), fixed(r.floorMs(), 4),
                 fixed(r.ms / r.floorMs(), 2));
    }
  }
}

// Parses --size WxH (1..16384 each).
bool parseSize(const std::string& text, uint32_t& width, uint32_t& height) {
  const size_t x = text.find('x');
  return x != std::string::npos && std::from_chars(text.data(), text.data() + x, width).ptr == text.data() + x &&
         std::from_chars(text.data() + x + 1, text.data() + text.size(), height).ptr == text.data() + text.size() &&
         width > 0 && height > 0 && width <= 16384 && height <= 16384;
}

}  // namespace

int runFileBench(const FileBenchOptions& o) {
  uint32_t width = 0, height = 0;
  if (!parseSize(o.size, width, height))
    return reportUsage("bench: --size " + o.size + ": expected WxH (e.g. 256x256)");
  LoadOptions load;
  o.file_access.applyTo(load);
  Expected<Asset> asset = loadAsset(o.file, load);
  if (!asset) return reportFailure(o.file, asset.error());
  Expected<uint32_t> animation = findAnimation(*asset, o.anim);
  if (!animation) return reportFailure(o.file, animation.error());
  Expected<PosePrepared> prepared = preparePose(*asset);
  if (!prepared) return reportFailure(o.file, prepared.error());

  const double duration = *animation == kNone ? 0.0 : animationDuration(*asset, *animation);
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const unsigned threads = o.threads == 0 ? hardware : o.threads;
  uint64_t vertices = 0;
  uint32_t max_targets = 0;
  for (const PosePrepared::Instance& inst : prepared->instances) {
    vertices += prepared->primitives[inst.data].vertex_count;
    max_targets = std::max(max_targets, uint32_t(prepared->primitives[inst.data].targets.size()));
  }

  // Rows in order; the progress bar counts frames.
  const bool want_gpu = wants(o, "gpu"), want_render = wants(o, "render");
  const size_t row_count = (wants(o, "reference") ? 1 : 0) + (wants(o, "fast") ? threads : 0) + (want_gpu ? 6 : 0) +
                           (want_render ? 3 : 0) + (want_render && o.crowd > 0 ? 2 : 0);
  std::vector<Row> rows;
  GpuDeviceInfo device;
  std::string device_error;
  std::vector<std::string> messages;
  {
    ProgressBar bar("bench", row_count * size_t(o.frames) * std::max(o.repetitions, 1u));
    Context c{o, {}, bar};
    for (uint32_t i = 0; i < o.frames; ++i) c.times.push_back(duration * double(i) / double(o.frames));
    if (Status s = cpuRows(c, *prepared, *animation, threads, rows); !s) return reportFailure(o.file, s.error());
    if (want_gpu || want_render) {
      GpuContextOptions context_options;
      context_options.device_index = o.device;
      context_options.validation = o.validation;
      Expected<VulkanContext*> context = createVulkanContext(context_options);
      if (!context) {
        device_error = context.error().message;
        for (const char* p : {"gpu", "render_vertex", "render_compute", "render_png"}) {
          if ((p[0] == 'g' && want_gpu) || (p[0] == 'r' && want_render))
            rows.push_back(Row{p, 0, {}, NAN, NAN, NAN, NAN, device_error});
        }
      } else {
        std::unique_ptr<VulkanContext, void (*)(VulkanContext*)> owner(
            *context, [](VulkanContext* v) { destroyVulkanContext(v); });
        device = gpuDeviceInfo(**context);
        Status s = want_gpu ? gpuRows(c, **context, *prepared, *animation, rows) : Status(Ok{});
        if (s && want_gpu && !prepared->instances.empty())
          s = gpuFramesRow(c, **context, *prepared, *animation, threads, rows);
        if (s && want_gpu && !prepared->instances.empty())
          s = gpuFramesFileRow(c, **context, *prepared, *animation, threads, rows);
#if HAVE_morphkit_render
        if (s && want_render) s = renderRows(c, **context, *asset, *animation, width, height, threads, rows);
        if (s && want_render && o.crowd > 0)
          s = renderCrowdRow(c, **context, *asset, *animation, width, height, o.crowd, rows);
#else
        if (want_render) rows.push_back(Row{"render", 0, {}, NAN, NAN, NAN, NAN, "built without the render layer"});
#endif
        if (!s) return reportFailure(o.file, s.error());
        messages = gpuValidationMessages(**context);
      }
    }
  }
  for (const std::string& m : messages) fmt::print(stderr, "morphkit: {}\n", m);

  BenchReport report{o, *asset};
  report.animation = *animation;
  report.duration = duration;
  report.vertices = vertices;
  report.primitives = prepared->instances.size();
  report.max_targets = max_targets;
  report.hardware = hardware;
  report.device = device;
  report.rows = std::move(rows);
  for (const Row& r : report.rows) {
    if (r.path == "reference") report.reference_ms = r.ms;
  }
  if (o.json) {
    printJson(report);
  } else {
    printTable(report);
  }
  return messages.empty() ? 0 : kExitFailure;
}

}  // namespace morphkit::cli
#endif  // HAVE_morphkit_vk
