// SPDX-License-Identifier: MIT
// `morphkit bench`: GPU morph + skin throughput per layout, next to a copy kernel (morphkit/gpu_bench.h);
// `morphkit bench FILE`: every deformation path on the user's own asset (bench_file.cpp).
// Built only when the Vulkan layer exists (HAVE_morphkit_vk).
#ifdef HAVE_morphkit_vk
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bench_file.h"
#include "command.h"
#include "morphkit/gpu_bench.h"
#include "morphkit/gpu_crowd.h"
#include "morphkit/io.h"
#include "morphkit/thread_pool.h"
#include "selection.h"

namespace morphkit::cli {
namespace {

struct BenchOptions {
  std::vector<uint32_t> vertices = {10000, 100000, 1000000};
  std::vector<uint32_t> targets = {8, 52, 256, 1024};
  std::vector<std::string> layouts = {"dense_f32", "dense_f16", "dense_snorm16", "sparse"};
  uint32_t active = 16;
  uint32_t repetitions = 5;
  double max_delta_mib = 4096;
  double copy_mib = 2048;
  double warmup_ms = -1.0;     // < 0: the default (warmUpMilliseconds)
  std::string device = "gpu";  // gpu | N; FILE mode also takes cpu (the CPU rows only)
  bool json = false;
  bool validation = false;
  bool skinned = true;
  uint32_t crowd = 0;  // > 0: the crowd table (gpu_crowd.h) for this many instances
  std::vector<uint32_t> crowd_groups = {0};
  std::vector<std::string> crowd_kernels = {"v1", "v2", "v3", "v4"};
  std::vector<uint32_t> crowd_rows = {0};        // v4: warps per workgroup to time (0: the default)
  std::vector<uint32_t> crowd_shared_kib = {0};  // v4: shared-memory budgets to time (0: the default, 12 KiB)
  std::string crowd_executables;                 // non-empty: write each crowd row's pipelineReport here
};

// The crowd kernel `name` stands for: the inverse of crowdKernelName (layouts: layoutNamed, selection.h).
std::optional<CrowdKernel> crowdKernelNamed(const std::string& name) {
  for (CrowdKernel k : {CrowdKernel::kV1, CrowdKernel::kV2, CrowdKernel::kV3, CrowdKernel::kV4, CrowdKernel::kV5}) {
    if (name == crowdKernelName(k)) return k;
  }
  return std::nullopt;
}

int runBench(const BenchOptions& o) {
  GpuBenchOptions options;
  options.vertices = o.vertices;
  options.targets = o.targets;
  options.active = o.active;
  options.repetitions = o.repetitions;
  options.max_delta_bytes = uint64_t(o.max_delta_mib * 1048576.0);
  options.copy_bytes = uint64_t(o.copy_mib * 1048576.0);
  options.warmup_ms = o.warmup_ms;
  options.skinned = o.skinned;
  options.layouts.clear();
  for (const std::string& name : o.layouts) {
    const std::optional<DeltaLayout> layout = layoutNamed(name);
    if (!layout) return reportUsage("bench: unknown layout '" + name + "' (" + kLayoutNames + ")");
    options.layouts.push_back(*layout);
  }
  GpuContextOptions context_options;
  context_options.device_index = parseDevice(o.device).value_or(DeviceChoice{}).index;
  context_options.validation = o.validation;
  context_options.pipeline_statistics = true;  // the `regs` column
  Expected<VulkanContext*> context = createVulkanContext(context_options);
  if (!context) return reportFailure({}, context.error());
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

// --crowd-executables DIR: the folder, created before anything is timed (a folder that cannot be made fails at once).
Status makeExecutablesFolder(const std::string& folder) {
  if (folder.empty()) return Ok{};
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) return fail(Error::kIo, "cannot create the folder: " + ec.message());
  return Ok{};
}

// --crowd-executables DIR: DIR/<row>.txt per crowd row, the driver's report on its pipeline (what it compiled:
// registers, statistics, and any internal representation it offers as text).
Status writeExecutableReports(const std::string& folder, const GpuCrowdBenchReport& report) {
  if (folder.empty()) return Ok{};
  size_t written = 0;
  for (const GpuCrowdBenchRow& row : report.rows) {
    if (row.executable_report.empty()) continue;
    if (Status s = writeFileAtomic(std::filesystem::path(folder) / (row.variant + ".txt"), row.executable_report); !s)
      return s;
    ++written;
  }
  if (written == 0)
    reportMessage(
        "bench: --crowd-executables: the device reports nothing on its pipelines (no "
        "VK_KHR_pipeline_executable_properties)");
  return Ok{};
}

// `bench --crowd N`: N skinned instances of one primitive (--vertices/--targets: the first value; default 20000 ×
// 52, 10 active each) in one crowd dispatch per --crowd-groups size, beside the per-instance batch kernel and the
// copy kernel. `given` tells which options the user set (else the crowd's own defaults apply).
int runCrowdBench(const BenchOptions& o, const std::function<bool(const char*)>& given) {
  GpuCrowdBenchOptions options;
  options.instances = o.crowd;
  if (given("--vertices")) options.vertices = o.vertices.front();
  if (given("--targets")) options.targets = o.targets.front();
  if (given("--active")) options.active = o.active;
  options.groups = o.crowd_groups;
  options.v4_rows = o.crowd_rows;
  options.v4_shared_kib = o.crowd_shared_kib;
  options.kernels.clear();
  for (const std::string& k : o.crowd_kernels) {
    const std::optional<CrowdKernel> kernel = crowdKernelNamed(k);
    if (!kernel) return reportUsage("bench: unknown crowd kernel '" + k + "' (v1, v2, v3, v4, v5)");
    options.kernels.push_back(*kernel);
  }
  for (uint32_t g : options.groups) {
    const bool only_v4_v5 = std::all_of(options.kernels.begin(), options.kernels.end(),
                                        [](CrowdKernel k) { return k == CrowdKernel::kV4 || k == CrowdKernel::kV5; });
    if (g > kMaxCrowdGroup && !only_v4_v5) {
      return reportUsage(fmt::format(
          "bench: --crowd-groups {} exceeds {} (kernels v1-v3; v4 and v5 take any group size)", g, kMaxCrowdGroup));
    }
  }
  options.repetitions = o.repetitions;
  options.copy_bytes = uint64_t(o.copy_mib * 1048576.0);
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
  if (Status s = makeExecutablesFolder(o.crowd_executables); !s) return reportFailure(o.crowd_executables, s.error());
  GpuContextOptions context_options;
  context_options.device_index = parseDevice(o.device).value_or(DeviceChoice{}).index;
  context_options.validation = o.validation;
  context_options.pipeline_statistics = true;  // the `regs` column
  context_options.cooperative_matrix =
      std::find(options.kernels.begin(), options.kernels.end(), CrowdKernel::kV5) != options.kernels.end();
  Expected<VulkanContext*> context = createVulkanContext(context_options);
  if (!context) return reportFailure({}, context.error());
  ProgressBar bar("bench --crowd", options.groups.size() * options.kernels.size() + 1);
  options.progress = [&bar](size_t done, size_t) { bar.update(done); };
  ThreadPool pool(std::max(1u, std::thread::hardware_concurrency()));  // the frame preparation: every hardware thread
  options.pool = &pool;
  options.executable_reports = !o.crowd_executables.empty();
  Expected<GpuCrowdBenchReport> report = runGpuCrowdBench(**context, options);
  bar.finish();
  std::vector<std::string> messages = gpuValidationMessages(**context);
  destroyVulkanContext(*context);
  if (!report) return reportFailure({}, report.error());
  for (const std::string& m : messages) reportMessage(m);
  if (Status s = writeExecutableReports(o.crowd_executables, *report); !s)
    return reportFailure(o.crowd_executables, s.error());
  fmt::print("{}", o.json ? gpuCrowdBenchJson(*report, true) + "\n" : gpuCrowdBenchTable(*report));
  return messages.empty() ? 0 : kExitFailure;
}

// Options of the synthetic table; with FILE they are a usage error (they would be silently ignored).
constexpr const char* kSyntheticOnly[] = {"--vertices",         "--targets",      "--layouts",    "--active",
                                          "--max-delta-mib",    "--rigid",        "--copy-mib",   "--crowd",
                                          "--crowd-groups",     "--crowd-kernel", "--crowd-rows", "--crowd-shared-kib",
                                          "--crowd-executables"};
// Options of the FILE mode; without FILE likewise.
constexpr const char* kFileOnly[] = {"--anim",       "--frames",        "--threads",
                                     "--paths",      "--size",          "--allow-external-paths",
                                     "--read-files", "--positions-only"};

const CommandRegistration kRegistration(
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
       sub->add_option("--max-delta-mib", options->max_delta_mib,
                       "skip configurations whose dense f32 deltas exceed this (default 4096)");
       sub->add_flag("!--rigid", options->skinned, "morph without skinning (the node's matrix only)");
       sub->add_option(
              "--crowd", options->crowd,
              "N skinned instances of one primitive in one crowd dispatch (each delta read once per group), beside the "
              "per-instance batch kernel; --vertices/--targets take one value (default 20000, 52), --active default 10")
           ->check(CLI::Range(1u, 100000000u));
       sub->add_option("--crowd-groups", options->crowd_groups,
                       "--crowd: instances per workgroup to time, 1..32 for v1-v3, any for v4 and v5 (v5 rounds up to "
                       "a multiple "
                       "of 16; default 0: automatic)")
           ->delimiter(',');
       sub->add_option(
              "--crowd-kernel", options->crowd_kernels,
              "--crowd: crowd kernels to time: v1 (an invocation per vertex loops over its group), v2 (an invocation "
              "per "
              "vertex and instance; deltas and 3x4 palettes staged in shared memory), v3 (as v2, deltas read per warp "
              "through L1), v4 (a workgroup stages a tile's deltas once for its group of instances, then a warp per "
              "instance), v5 (the group's morph as a matrix product on the matrix units, VK_NV_cooperative_matrix; "
              "within float tolerance, not bit-identical); rows crowd_gG, crowd2_gG, crowd3_gG, crowd4_gG, crowd5_gG "
              "(default v1,v2,v3,v4)")
           ->delimiter(',')
           ->check(CLI::IsMember({"v1", "v2", "v3", "v4", "v5"}));
       sub->add_option(
              "--crowd-rows", options->crowd_rows,
              "--crowd, kernels v4 and v5: warps (rows of 32 invocations) per workgroup to time, 1..32 (default 0: 16 "
              "for v4, 8 for v5, whose warps share a tile of 16 vertices)")
           ->delimiter(',')
           ->check(CLI::Range(0u, 32u));
       sub->add_option(
              "--crowd-shared-kib", options->crowd_shared_kib,
              "--crowd, kernel v4: shared memory for the staged deltas to time, KiB (default 0: 12, capped at the "
              "device's limit); records that do not fit are read from memory")
           ->delimiter(',')
           ->check(CLI::Range(0u, 1024u));
       sub->add_option(
           "--crowd-executables", options->crowd_executables,
           "--crowd: write DIR/<row>.txt for every crowd row: the driver's statistics and internal representations "
           "of its pipeline (VK_KHR_pipeline_executable_properties), for kernel work");
       sub->add_option(
              "--warmup-ms", options->warmup_ms,
              "GPU rows: keep the GPU busy this long before each row is timed, so its clocks are up (default 2000 on a "
              "GPU, 0 on a CPU implementation such as lavapipe)")
           ->check(CLI::Range(0.0, 600000.0));
       sub->add_option("--copy-mib", options->copy_mib,
                       "copy-kernel buffer size in MiB (default 2048, capped at maxMemoryAllocationSize and a quarter "
                       "of device-local memory)");
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
           } else if (sub->count("--crowd-groups") > 0 && sub->count("--crowd") == 0) {
             exit_code = reportUsage("bench: --crowd-groups needs --crowd");
           } else if (sub->count("--crowd-kernel") > 0 && sub->count("--crowd") == 0) {
             exit_code = reportUsage("bench: --crowd-kernel needs --crowd");
           } else if ((sub->count("--crowd-rows") > 0 || sub->count("--crowd-shared-kib") > 0 ||
                       sub->count("--crowd-executables") > 0) &&
                      sub->count("--crowd") == 0) {
             exit_code = reportUsage("bench: --crowd-rows, --crowd-shared-kib and --crowd-executables need --crowd");
           } else if (sub->count("--crowd") > 0) {
             for (const char* name : {"--rigid", "--max-delta-mib"}) {
               if (sub->count(name) > 0) {
                 exit_code = reportUsage(fmt::format("bench: {} does not apply to --crowd", name));
                 return;
               }
             }
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
         exit_code = runFileBench(*file_options);
       });
     }});

}  // namespace
}  // namespace morphkit::cli
#endif  // HAVE_morphkit_vk
