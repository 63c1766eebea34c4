// SPDX-License-Identifier: MIT
// GPU morph + skin throughput per delta layout (Google Benchmark front end of morphkit_bench/gpu_bench.h).
// Each benchmark reports the dispatch time from timestamp queries (manual time), items = vertices × walked
// targets, bytes = the minimal bytes the layout must move; `morphkit bench` prints the same with % of copy.
#include "morphkit_bench/gpu_bench.h"

#include <benchmark/benchmark.h>

#include <cstdio>

namespace {

morphkit::VulkanContext* context() {
  static morphkit::VulkanContext* ctx = [] {
    morphkit::Expected<morphkit::VulkanContext*> c = morphkit::createVulkanContext({});
    if (!c) std::fprintf(stderr, "gpu_bench: %s\n", c.error().message.c_str());
    return c ? *c : nullptr;
  }();
  return ctx;
}

// args: vertices, targets, layout (0 dense_f32, 1 dense_f16, 2 sparse, 3 dense_f32 all targets, 4 dense_snorm16)
void BM_GpuMorph(benchmark::State& state) {
  morphkit::VulkanContext* ctx = context();
  if (!ctx) {
    state.SkipWithError("no Vulkan device");
    return;
  }
  morphkit::GpuBenchOptions options;
  options.vertices = {uint32_t(state.range(0))};
  options.targets = {uint32_t(state.range(1))};
  const int layout = int(state.range(2));
  options.layouts = {layout == 1   ? morphkit::DeltaLayout::kDenseF16
                     : layout == 2 ? morphkit::DeltaLayout::kSparse
                     : layout == 4 ? morphkit::DeltaLayout::kDenseSnorm16
                                   : morphkit::DeltaLayout::kDenseF32};
  options.all_targets = layout == 3;
  options.repetitions = 1;
  options.copy_bytes = 16 << 20;
  // The clocks up once per benchmark (morphkit_bench/gpu_bench.h, warmUpGpu); the iterations then follow each other
  // closely enough to keep them up. `morphkit bench` warms before every row and is the figure docs/PERFORMANCE.md
  // quotes.
  options.warmup_ms = 0.0;
  if (morphkit::Status s = morphkit::warmUpGpu(*ctx, -1.0); !s) {
    state.SkipWithError(s.error().message.c_str());
    return;
  }
  for (auto _ : state) {
    morphkit::Expected<morphkit::GpuBenchReport> report = morphkit::runGpuBench(*ctx, options);
    if (!report) {
      state.SkipWithError(report.error().message.c_str());
      return;
    }
    const morphkit::GpuBenchRow& row = layout == 3 ? report->rows.front() : report->rows.back();
    if (!row.skipped.empty()) {
      state.SkipWithError(row.skipped.c_str());
      return;
    }
    state.SetIterationTime(row.microseconds * 1e-6);
    state.counters["GB/s"] = row.gbps;
    state.counters["%copy"] = row.percent_of_copy;
    state.SetItemsProcessed(int64_t(row.vertices) * row.active);
    state.SetBytesProcessed(int64_t(row.bytes));
  }
}

BENCHMARK(BM_GpuMorph)
    ->ArgsProduct({{10000, 100000}, {8, 52, 256}, {0, 1, 2, 3, 4}})
    ->ArgNames({"vertices", "targets", "layout"})
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
