// SPDX-License-Identifier: MIT
// `morphkit bench`: GPU morph + skin throughput per layout, next to a copy kernel (morphkit/gpu_bench.h);
// `morphkit bench FILE`: every deformation path on the user's own asset (bench_file.cpp).
// Built only when the Vulkan layer exists (HAVE_morphkit_vk).
#ifdef HAVE_morphkit_vk
#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench_file.h"
#include "command.h"
#include "selection.h"
#include "morphkit/gpu_bench.h"

namespace morphkit::cli {
namespace {

struct BenchOptions {
  std::vector<uint32_t> vertices = {10000, 100000, 1000000};
  std::vector<uint32_t> targets = {8, 52, 256, 1024};
  std::vector<std::string> layouts = {"dense_f32", "dense_f16", "sparse"};
  uint32_t active = 16;
  uint32_t repetitions = 5;
  double max_delta_mib = 4096;
  double copy_mib = 1024;
  std::string device = "gpu";  // gpu | N; FILE mode also takes cpu (the CPU rows only)
  bool json = false;
  bool validation = false;
  bool skinned = true;
};

int runBench(const BenchOptions& o) {
  GpuBenchOptions options;
  options.vertices = o.vertices;
  options.targets = o.targets;
  options.active = o.active;
  options.repetitions = o.repetitions;
  options.max_delta_bytes = uint64_t(o.max_delta_mib * 1048576.0);
  options.copy_bytes = uint64_t(o.copy_mib * 1048576.0);
  options.skinned = o.skinned;
  options.layouts.clear();
  for (const std::string& name : o.layouts) {
    if (name == "dense_f32") options.layouts.push_back(DeltaLayout::kDenseF32);
    else if (name == "dense_f16") options.layouts.push_back(DeltaLayout::kDenseF16);
    else if (name == "sparse") options.layouts.push_back(DeltaLayout::kSparse);
    else return reportUsage("bench: unknown layout '" + name + "' (dense_f32, dense_f16, sparse)");
  }
  GpuContextOptions context_options;
  context_options.device_index = parseDevice(o.device).value_or(DeviceChoice{}).index;
  context_options.validation = o.validation;
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

// Options of the synthetic table; with FILE they are a usage error (they would be silently ignored).
constexpr const char* kSyntheticOnly[] = {"--vertices", "--targets", "--layouts", "--active", "--max-delta-mib", "--rigid", "--copy-mib"};
// Options of the FILE mode; without FILE likewise.
constexpr const char* kFileOnly[] = {"--anim", "--frames", "--threads", "--paths", "--size", "--allow-external-paths"};

const CommandRegistration kRegistration({80, [](CLI::App& app, int& exit_code) {
  auto options = std::make_shared<BenchOptions>();
  auto file_options = std::make_shared<FileBenchOptions>();
  CLI::App* sub = app.add_subcommand(
      "bench", "ms per frame of every deformation path on FILE; without FILE, GPU throughput per delta layout against a copy kernel");
  sub->add_option("FILE", file_options->file, "a .gltf or .glb to run every path on (CPU reference, fast path at 1..N threads, "
                                              "GPU compute per layout, renderer vertex/compute path)");
  sub->add_option("--anim", file_options->anim, "FILE: animation index or name, or rest (default: the first; the rest pose when none)");
  sub->add_option("--frames", file_options->frames, "FILE: frames per pass, frame i at t = i * duration / N (default 30)")
      ->check(CLI::Range(1u, 100000u));
  sub->add_option("--threads", file_options->threads, "FILE: fast path at 1..N threads (default: every hardware thread)")
      ->check(CLI::Range(0u, 256u));
  sub->add_option("--paths", file_options->paths, "FILE: rows to run: reference, fast, gpu, render (default all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"reference", "fast", "gpu", "render"}));
  sub->add_option("--size", file_options->size, "FILE: render rows' target size WxH (default 256x256)");
  sub->add_flag("--allow-external-paths", file_options->allow_external_paths, "FILE: let URIs point outside the file's folder");
  sub->add_option("--vertices", options->vertices, "vertex counts (default 10000 100000 1000000)")->delimiter(',');
  sub->add_option("--targets", options->targets, "morph target counts (default 8 52 256 1024)")->delimiter(',');
  sub->add_option("--layouts", options->layouts, "dense_f32, dense_f16, sparse (default all)")->delimiter(',');
  sub->add_option("--active", options->active, "active targets for the active-list variants (default 16)");
  sub->add_option("--repetitions", options->repetitions,
                  "dispatches per configuration (FILE: passes over the frames per row), best is reported (default 5; FILE: 3)");
  sub->add_option("--max-delta-mib", options->max_delta_mib, "skip configurations whose dense f32 deltas exceed this (default 4096)");
  sub->add_flag("!--rigid", options->skinned, "morph without skinning (the node's matrix only)");
  sub->add_option("--copy-mib", options->copy_mib, "copy-kernel buffer size in MiB (default 1024, capped at the device's maxMemoryAllocationSize)");
  addDeviceOption(sub, options->device, "gpu (default: the best Vulkan device), a Vulkan device index, or (FILE) cpu: the CPU rows only");
  sub->add_flag("--validation", options->validation, "enable VK_LAYER_KHRONOS_validation (also MORPHKIT_VALIDATION=1)");
  sub->add_flag("--json", options->json, "machine-readable output");
  sub->callback([sub, options, file_options, &exit_code] {
    const bool file_mode = !file_options->file.empty();
    for (const char* name : file_mode ? std::span<const char* const>(kSyntheticOnly) : std::span<const char* const>(kFileOnly)) {
      if (sub->count(name) > 0) {
        exit_code = reportUsage(fmt::format("bench: {} {}", name, file_mode ? "applies to the synthetic table (no FILE)" : "needs FILE"));
        return;
      }
    }
    const DeviceChoice device = parseDevice(options->device).value_or(DeviceChoice{});
    if (!file_mode) {
      exit_code = device.gpu ? runBench(*options) : reportUsage("bench: --device cpu needs FILE (the table times GPU kernels)");
      return;
    }
    if (!device.gpu) {
      const bool gpu_rows = sub->count("--paths") > 0 && std::any_of(file_options->paths.begin(), file_options->paths.end(),
                                                                      [](const std::string& p) { return p == "gpu" || p == "render"; });
      if (gpu_rows) {
        exit_code = reportUsage("bench: --device cpu runs the CPU rows only; --paths asks for gpu/render rows");
        return;
      }
      file_options->paths = {"reference", "fast"};
    }
    file_options->json = options->json;
    file_options->validation = options->validation;
    file_options->device = device.index;
    if (sub->count("--repetitions") > 0) file_options->repetitions = options->repetitions;
    exit_code = runFileBench(*file_options);
  });
}});

}  // namespace
}  // namespace morphkit::cli
#endif  // HAVE_morphkit_vk
