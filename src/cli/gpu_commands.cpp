// `morphkit bench`: GPU morph + skin throughput per layout, next to a copy kernel (morphkit/gpu_bench.h).
// Built only when the Vulkan layer exists (HAVE_morphkit_vk).
#ifdef HAVE_morphkit_vk
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include "command.h"
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
  int device = -1;
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
    else return reportError("bench: unknown layout '" + name + "' (dense_f32, dense_f16, sparse)");
  }
  GpuContextOptions context_options;
  context_options.device_index = o.device;
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
  for (const std::string& m : messages) fmt::print(stderr, "morphkit: {}\n", m);
  if (o.json) {
    fmt::print("{}\n", gpuBenchJson(*report, true));
  } else {
    fmt::print("{}", gpuBenchTable(*report));
  }
  return messages.empty() ? 0 : kExitFailure;
}

const CommandRegistration kRegistration({80, [](CLI::App& app, int& exit_code) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* sub = app.add_subcommand("bench", "GPU morph + skin throughput per delta layout, against a copy kernel");
  sub->add_option("--vertices", options->vertices, "vertex counts (default 10000 100000 1000000)")->delimiter(',');
  sub->add_option("--targets", options->targets, "morph target counts (default 8 52 256 1024)")->delimiter(',');
  sub->add_option("--layouts", options->layouts, "dense_f32, dense_f16, sparse (default all)")->delimiter(',');
  sub->add_option("--active", options->active, "active targets for the active-list variants (default 16)");
  sub->add_option("--repetitions", options->repetitions, "dispatches per configuration, best is reported (default 5)");
  sub->add_option("--max-delta-mib", options->max_delta_mib, "skip configurations whose dense f32 deltas exceed this (default 4096)");
  sub->add_flag("!--rigid", options->skinned, "morph without skinning (the node's matrix only)");
  sub->add_option("--copy-mib", options->copy_mib, "copy-kernel buffer size in MiB (default 1024, capped at the device's maxMemoryAllocationSize)");
  sub->add_option("--device", options->device, "Vulkan device index (default: the best)");
  sub->add_flag("--validation", options->validation, "enable VK_LAYER_KHRONOS_validation (also MORPHKIT_VALIDATION=1)");
  sub->add_flag("--json", options->json, "machine-readable output");
  sub->callback([options, &exit_code] { exit_code = runBench(*options); });
}});

}  // namespace
}  // namespace morphkit::cli
#endif  // HAVE_morphkit_vk
