// SPDX-License-Identifier: MIT
// `morphkit bench`: GPU morph + skin throughput per layout, next to a copy kernel (morphkit_bench/gpu_bench.h);
// `bench --crowd N`: the crowd kernel beside the per-instance kernel; `bench FILE`: every deformation path on the
// user's own asset (bench_file.cpp). Built only when the Vulkan layer exists (HAVE_morphkit_vk).
#ifdef HAVE_morphkit_vk
#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bench_file.h"
#include "command.h"
#include "morphkit/model/thread_pool.h"
#include "morphkit_bench/gpu_bench.h"
#include "selection.h"

namespace morphkit::cli {
namespace {

struct BenchOptions {
  std::vector<uint32_t> vertices = {10000, 100000, 1000000};
  std::vector<uint32_t> targets = {8, 52, 256, 1024};
  std::vector<std::string> layouts = {"dense_f32", "dense_f16", "dense_snorm16", "sparse"};
  uint32_t active = 16;
  uint32_t repetitions = 5;
  double warmup_ms = -1.0;     // < 0: the default (warmUpMilliseconds)
  std::string device = "gpu";  // gpu | N; FILE mode also takes cpu (the CPU rows only)
  bool json = false;
  bool validation = false;
  uint32_t crowd = 0;  // > 0: the crowd table for this many instances
};

// The copy kernel's buffer: 2 GiB on a GPU (benchCopyBytes caps it), 4 MiB on a CPU implementation, whose copy
// has no cache to outgrow and would take seconds.
uint64_t copyBytesFor(const VulkanContext& context) {
  return gpuDeviceInfo(context).type == GpuDeviceType::kCpu ? uint64_t(4) << 20 : uint64_t(2048) << 20;
}

// Both tables' context: the chosen device, validation when asked, the driver's statistics for the `regs` column.
Expected<VulkanContext*> createBenchContext(const BenchOptions& o) {
  GpuContextOptions options;
  options.device_index = parseDevice(o.device).value_or(DeviceChoice{}).index;
  options.validation = o.validation;
  options.pipeline_statistics = true;
  return createVulkanContext(options);
}

int runBench(const BenchOptions& o) {
  GpuBenchOptions options;
  options.vertices = o.vertices;
  options.targets = o.targets;
  options.active = o.active;
  options.repetitions = o.repetitions;
  options.warmup_ms = o.warmup_ms;
  options.layouts.clear();
  for (const std::string& name : o.layouts) {
    const std::optional<DeltaLayout> layout = layoutNamed(name);
    if (!layout) return reportUsage("bench: unknown layout '" + name + "' (" + kLayoutNames + ")");
    options.layouts.push_back(*layout);
  }
  Expected<VulkanContext*> context = createBenchContext(o);
  if (!context) return reportFailure({}, context.error());
  options.copy_bytes = copyBytesFor(**context);
  ProgressBar bar("bench", options.vertices.size() * options.targets.size());
  options.progress = [&bar](size_t done, size_t) { bar.update(done); };
  Expected<GpuBenchReport> report = runGpuBench(**context, options);
  bar.finish();
  std::vector<std::string> messages = gpuValidationMessages(**context);
  destroyVulkanContext(*context);
  if (!report) return reportFailure({}, report.error());
  for (const std::string& m : messages) reportMessage(m);
  if (o.json) {
    fmt::print("{}\n", gpuBenchJson(*report, true));
  } else {
    fmt::print("{}", gpuBenchTable(*report));
  }
  return messages.empty() ? 0 : kExitFailure;
}

// `bench --crowd N`: N skinned instances of one primitive (--vertices/--targets: the first value; default 20000 ×
// 52, 10 active each) in one crowd dispatch, beside the per-instance batch kernel and the copy kernel. `given`
// tells which options the user set (else the crowd's own defaults apply).
int runCrowdBench(const BenchOptions& o, const std::function<bool(const char*)>& given) {
  GpuCrowdBenchOptions options;
  options.instances = o.crowd;
  if (given("--vertices")) options.vertices = o.vertices.front();
  if (given("--targets")) options.targets = o.targets.front();
  if (given("--active")) options.active = o.active;
  options.repetitions = o.repetitions;
  options.warmup_ms = o.warmup_ms;
  if (given("--layouts")) {
    const std::optional<DeltaLayout> layout = o.layouts.size() == 1 ? layoutNamed(o.layouts[0]) : std::nullopt;
    if (layout != DeltaLayout::kDenseF32 && layout != DeltaLayout::kDenseF16) {
      return reportUsage("bench: --crowd takes one layout, dense_f32 or dense_f16");
    }
    options.layout = *layout;
  }
  if (options.vertices == 0 || options.targets == 0)
    return reportUsage("bench: --crowd needs --vertices and --targets above 0");
  Expected<VulkanContext*> context = createBenchContext(o);
  if (!context) return reportFailure({}, context.error());
  options.copy_bytes = copyBytesFor(**context);
  ProgressBar bar("bench --crowd", 2);
  options.progress = [&bar](size_t done, size_t) { bar.update(done); };
  ThreadPool pool(std::max(1u, std::thread::hardware_concurrency()));  // the frame preparation: every hardware thread
  options.pool = &pool;
  Expected<GpuCrowdBenchReport> report = runGpuCrowdBench(**context, options);
  bar.finish();
  std::vector<std::string> messages = gpuValidationMessages(**context);
  destroyVulkanContext(*context);
  if (!report) return reportFailure({}, report.error());
  for (const std::string& m : messages) reportMessage(m);
  fmt::print("{}", o.json ? gpuCrowdBenchJson(*report, true) + "\n" : gpuCrowdBenchTable(*report));
  return messages.empty() ? 0 : kExitFailure;
}

// Options of the synthetic table; with FILE they are a usage error (they would be silently ignored).
constexpr const char* kSyntheticOnly[] = {"--vertices", "--targets", "--layouts", "--active"};
// Options of the FILE mode; without FILE likewise.
constexpr const char* kFileOnly[] = {"--anim",       "--frames",        "--threads",
                                     "--paths",      "--size",          "--allow-external-paths",
                                     "--read-files", "--positions-only"};

const CommandRegistration kBenchCommand(
    {80, [](CLI::App& app, int& exit_code) {
       auto options = std::make_shared<BenchOptions>();
       auto file_options = std::make_shared<FileBenchOptions>();
       CLI::App* sub = app.add_subcommand("bench",
                                          "ms per frame of every deformation path on FILE; without FILE, GPU "
                                          "throughput per delta layout against a copy kernel");
       sub->add_option("FILE", file_options->file,
                       "a .gltf or .glb to run every path on (CPU reference, fast path at 1..N threads, "
                       "GPU compute per layout, renderer vertex/compute path)");
       sub->add_option("--anim", file_options->anim,
                       "FILE: animation index or name, or rest (default: the first; the rest pose when none)");
       sub->add_option("--frames", file_options->frames,
                       "FILE: frames per pass, frame i at t = i * duration / N (default 30)")
           ->check(CLI::Range(1u, 100000u));
       sub->add_option("--threads", file_options->threads,
                       "FILE: fast path at 1..N threads (default: every hardware thread)")
           ->check(CLI::Range(0u, 256u));
       sub->add_option("--paths", file_options->paths, "FILE: rows to run: reference, fast, gpu, render (default all)")
           ->delimiter(',')
           ->check(CLI::IsMember({"reference", "fast", "gpu", "render"}));
       sub->add_option("--size", file_options->size, "FILE: render rows' target size WxH (default 256x256)");
       addFileAccessOptions(sub, file_options->file_access, "FILE: ");
       sub->add_flag(
           "--positions-only", file_options->positions_only,
           "FILE: the CPU rows pose positions only (picking, bounds: what three.js's CPU path computes); with it, "
           "--paths defaults to reference,fast and takes no gpu or render rows");
       sub->add_option("--vertices", options->vertices, "vertex counts (default 10000 100000 1000000)")->delimiter(',');
       sub->add_option("--targets", options->targets, "morph target counts (default 8 52 256 1024)")->delimiter(',');
       sub->add_option("--layouts", options->layouts, "dense_f32, dense_f16, dense_snorm16, sparse (default all)")
           ->delimiter(',');
       sub->add_option("--active", options->active, "active targets for the active-list variants (default 16)");
       sub->add_option("--repetitions", options->repetitions,
                       "dispatches per configuration (FILE: passes over the frames per row), best is reported (default "
                       "5; FILE: 3)");
       sub->add_option("--crowd", options->crowd,
                       "N skinned instances of one primitive in one crowd dispatch (a vertex tile's deltas read once "
                       "per group of instances), beside the per-instance batch kernel; --vertices/--targets take one "
                       "value (default 20000, 52), --active default 10. With FILE: the render_crowd row, `render "
                       "FILE --crowd N` beside its dispatch and one draw")
           ->check(CLI::Range(1u, 100000000u));
       sub->add_option(
              "--warmup-ms", options->warmup_ms,
              "GPU rows: keep the GPU busy this long before each row is timed, so its clocks are up (default 2000 on a "
              "GPU, 0 on a CPU implementation such as lavapipe)")
           ->check(CLI::Range(0.0, 600000.0));
       addDeviceOption(
           sub, options->device,
           "gpu (default: the best Vulkan device), a Vulkan device index, or (FILE) cpu: the CPU rows only");
       sub->add_flag("--validation", options->validation,
                     "enable VK_LAYER_KHRONOS_validation (also MORPHKIT_VALIDATION=1)");
       sub->add_flag("--json", options->json, "machine-readable output");
       sub->callback([sub, options, file_options, &exit_code] {
         const bool file_mode = !file_options->file.empty();
         for (const char* name :
              file_mode ? std::span<const char* const>(kSyntheticOnly) : std::span<const char* const>(kFileOnly)) {
           if (sub->count(name) > 0) {
             exit_code = reportUsage(fmt::format(
                 "bench: {} {}", name, file_mode ? "applies to the synthetic table (no FILE)" : "needs FILE"));
             return;
           }
         }
         const DeviceChoice device = parseDevice(options->device).value_or(DeviceChoice{});
         if (!file_mode) {
           if (!device.gpu) {
             exit_code = reportUsage("bench: --device cpu needs FILE (the table times GPU kernels)");
           } else if (sub->count("--crowd") > 0) {
             exit_code = runCrowdBench(*options, [sub](const char* name) { return sub->count(name) > 0; });
           } else {
             exit_code = runBench(*options);
           }
           return;
         }
         if (!device.gpu) {
           const bool gpu_rows = sub->count("--paths") > 0 &&
                                 std::any_of(file_options->paths.begin(), file_options->paths.end(),
                                             [](const std::string& p) { return p == "gpu" || p == "render"; });
           if (gpu_rows) {
             exit_code = reportUsage("bench: --device cpu runs the CPU rows only; --paths asks for gpu/render rows");
             return;
           }
           if (sub->count("--paths") == 0) file_options->paths = {"reference", "fast"};  // else the CPU rows asked for
         }
         if (file_options->positions_only) {
           const bool gpu_rows = sub->count("--paths") > 0 &&
                                 std::any_of(file_options->paths.begin(), file_options->paths.end(),
                                             [](const std::string& p) { return p == "gpu" || p == "render"; });
           if (gpu_rows) {
             exit_code = reportUsage(
                 "bench: --positions-only applies to the CPU rows (reference, fast); --paths asks for gpu/render rows");
             return;
           }
           if (sub->count("--paths") == 0) file_options->paths = {"reference", "fast"};
         }
         file_options->json = options->json;
         file_options->validation = options->validation;
         file_options->device = device.index;
         if (sub->count("--repetitions") > 0) file_options->repetitions = options->repetitions;
         file_options->warmup_ms = options->warmup_ms;
         file_options->crowd = options->crowd;  // the render_crowd row
         exit_code = runFileBench(*file_options);
       });
     }});

}  // namespace
}  // namespace morphkit::cli
#endif  // HAVE_morphkit_vk
