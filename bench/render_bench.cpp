// SPDX-License-Identifier: MIT
// Frame time of the renderer's two morph paths (morphkit/render/render.h), one binary, every variant:
//   path      vertex (band-texture path texture; active-list storage buffer past 4 targets) | compute (GpuMorphGroup
//   output bound
//             as the vertex buffer)
//   passes    1 (color only) | 3 (shadow + depth prepass + color: the vertex path morphs in each, compute once)
//   instances 1 | 100 (each its own animation time, weights and joints; compute: one dispatch for all)
//   assets    demo4 (asset:2): 4 targets, 20k vertices — the band-texture uniform's limit; demo52 (asset:0):
//   makeDemoAsset(52 targets, 20k vertices); demo256 (asset:1): 256 targets, 65k vertices (makeDemoAsset
//             caps targets × vertices at 2^24, so 100k vertices at 256 targets cannot be generated; 65k is the largest)
// Time is GPU time (timestamps: render passes + the compute dispatch) when the device has timestamps, else wall
// time. Counters: gpu_ms, morph_ms (compute dispatch), cpu_ms per frame, and items = vertices × targets × instances.
// On a CPU device (lavapipe) everything is scaled down (3k / 8k vertices, 4 instances, 128×128) so it runs in seconds.
#include <benchmark/benchmark.h>

#ifdef HAVE_morphkit_render
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "morphkit/demo/demo.h"
#include "morphkit/render/render.h"
#include "morphkit/vk/gpu.h"
#include "morphkit_bench/gpu_bench.h"

namespace morphkit {
namespace {

VulkanContext* benchContext() {
  static VulkanContext* context = [] {
    auto created = createVulkanContext();
    if (!created) {
      std::fprintf(stderr, "render_bench: %s\n", created.error().message.c_str());
      return static_cast<VulkanContext*>(nullptr);
    }
    return *created;
  }();
  return context;
}

bool smallDevice() {
  VulkanContext* context = benchContext();
  return !context || gpuDeviceInfo(*context).type == GpuDeviceType::kCpu;
}

// kind 0: demo52, 1: demo256, 2: demo4 (a seed-sized mesh: 4 targets, 20k vertices).
const Asset* benchAsset(int kind) {
  static std::unique_ptr<Asset> assets[3];
  std::unique_ptr<Asset>& slot = assets[kind];
  if (!slot) {
    const bool large = kind == 1;
    DemoOptions options;
    options.targets = kind == 0 ? 52 : kind == 1 ? 256 : 4;
    options.vertices = smallDevice() ? (large ? 8000 : 3000) : (large ? 65000 : 20000);
    auto asset = makeDemoAsset(options);
    if (!asset) return nullptr;
    slot = std::make_unique<Asset>(std::move(*asset));
  }
  return slot.get();
}

// Args: path (0 vertex, 1 compute), passes (1 or 3), instances, large asset (0/1).
void BM_RenderFrame(benchmark::State& state) {
  VulkanContext* context = benchContext();
  if (!context) {
    state.SkipWithError("no Vulkan device");
    return;
  }
  const bool compute = state.range(0) == 1;
  const bool three = state.range(1) == 3;
  // 100 instances become 4 on a CPU device (the label says what ran).
  const uint32_t instances = smallDevice() && state.range(2) > 4 ? 4u : uint32_t(state.range(2));
  const Asset* asset = benchAsset(int(state.range(3)));
  if (!asset) {
    state.SkipWithError("makeDemoAsset failed");
    return;
  }
  RenderOptions options;
  options.width = options.height = smallDevice() ? 128 : 512;
  options.morph_path = compute ? MorphPath::kCompute : MorphPath::kVertex;
  options.shadows = three;
  options.depth_prepass = three;
  options.shadow_size = smallDevice() ? 256 : 2048;
  options.instances = instances;
  auto renderer = createRenderer(*context, *asset, options);
  if (!renderer) {
    state.SkipWithError(renderer.error().message.c_str());
    return;
  }
  std::unique_ptr<Renderer, void (*)(Renderer*)> owner(*renderer, destroyRenderer);
  const bool timestamps = gpuDeviceInfo(*context).timestamps;
  // The GPU's clocks up before the first timed frame (warmUpGpu: an idle GPU runs its first second of work at a
  // fraction of its clock; docs/PERFORMANCE.md, "Clocks"). Nothing on a CPU device.
  if (Status warmed = warmUpGpu(*context, -1.0); !warmed) {
    state.SkipWithError(warmed.error().message.c_str());
    return;
  }
  {  // one untimed frame: first-use costs (driver JIT, page faults) stay out of the numbers
    RenderFrameInput warm;
    warm.animation = 0;
    warm.readback = false;
    if (auto frame = renderFrame(**renderer, warm); !frame) {
      state.SkipWithError(frame.error().message.c_str());
      return;
    }
  }
  double gpu = 0, morph = 0, cpu = 0;
  double t = 0;
  for (auto _ : state) {
    RenderFrameInput input;
    input.animation = 0;  // "talk": CUBICSPLINE weights on the mouth/jaw targets
    input.time = std::fmod(t, 3.0);
    input.readback = false;
    t += 1.0 / 60.0;
    RenderStats stats;
    auto frame = renderFrame(**renderer, input, &stats);
    if (!frame) {
      state.SkipWithError(frame.error().message.c_str());
      return;
    }
    const double frame_gpu = stats.gpu_ms + (std::isnan(stats.morph_gpu_ms) ? 0.0 : stats.morph_gpu_ms);
    state.SetIterationTime((timestamps && !std::isnan(stats.gpu_ms) ? frame_gpu : stats.wall_ms) / 1000.0);
    gpu += stats.gpu_ms;
    morph += std::isnan(stats.morph_gpu_ms) ? 0.0 : stats.morph_gpu_ms;
    cpu += stats.cpu_ms;
  }
  const double n = double(std::max<int64_t>(state.iterations(), 1));
  state.counters["gpu_ms"] = gpu / n;
  state.counters["morph_ms"] = morph / n;
  state.counters["cpu_ms"] = cpu / n;
  const RendererInfo& info = rendererInfo(**renderer);
  const uint64_t vertices =
      asset->accessors[findAttribute(asset->meshes[0].primitives[0].attributes, "POSITION")].count;
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(vertices * info.max_targets * instances));
  state.SetLabel(std::string(morphPathName(info.path)) + " " + std::to_string(info.passes) + "pass " +
                 std::to_string(instances) + "inst " + std::to_string(vertices) + "v×" +
                 std::to_string(info.max_targets) + "t");
}

void renderArgs(benchmark::internal::Benchmark* b) {
  for (int large : {2, 0, 1}) {
    for (int instances : {1, 100}) {
      for (int passes : {1, 3}) {
        for (int path : {0, 1}) b->Args({path, passes, instances, large});
      }
    }
  }
  b->ArgNames({"compute", "passes", "instances", "asset"});
}

BENCHMARK(BM_RenderFrame)->Apply(renderArgs)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.2);

}  // namespace
}  // namespace morphkit
#endif  // HAVE_morphkit_render

BENCHMARK_MAIN();
