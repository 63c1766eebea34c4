// SPDX-License-Identifier: MIT
// morphkit/gpu_bench.h — GPU morph + skin throughput, measured with timestamp queries, next to a copy kernel
// measured in the same run. Used by `morphkit bench` and bench/gpu_bench.cpp.
//
// Effective bandwidth = the minimal bytes a layout must move / the dispatch time, where the minimal bytes are
//   base vertices read + output vertices written + skin stream read
//   + dense:  vertices × walked targets × delta stride × (4 for f32, 2 for f16 and snorm16; snorm16's scales,
//             16 bytes per walked target and workgroup, are left out)
//   + sparse: rows (4·(V+1)) + every stored record (4·(1 + stride) bytes each; the kernel reads each record's
//             target index and skips zero weights, but the record is in its cache line anyway).
// The copy kernel's GB/s is 2 × bytes / time (read + write) over `ceiling.copy_bytes` (GpuBenchCeiling).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "morphkit/error.h"
#include "morphkit/gpu.h"

namespace morphkit {

struct GpuBenchOptions {
  std::vector<uint32_t> vertices = {10000, 100000, 1000000};
  std::vector<uint32_t> targets = {8, 52, 256, 1024};
  uint32_t active = 16;      // active targets (min with target count) for the active-list variants
  float region = 0.25f;      // fraction of vertices each synthetic target moves (sparsity)
  uint32_t repetitions = 5;  // best of N dispatches
  // Wall time the GPU is kept busy (warmUpGpu) before the copy kernel and before each row is timed; < 0: automatic
  // (warmUpMilliseconds: 2 s on a GPU, 0 on lavapipe).
  double warmup_ms = -1.0;
  uint64_t max_delta_bytes = uint64_t(4) << 30;  // skip (V, T) whose dense f32 deltas exceed this
  uint64_t copy_bytes = uint64_t(2048) << 20;    // copy-kernel buffer size (capped: benchCopyBytes)
  std::vector<DeltaLayout> layouts = {DeltaLayout::kDenseF32, DeltaLayout::kDenseF16, DeltaLayout::kDenseSnorm16,
                                      DeltaLayout::kSparse};
  bool all_targets = true;  // also run dense f32 walking every target (no active list)
  bool skinned = true;      // 4 joints per vertex from a 32-joint palette; false: rigid (model matrix only)
  // Called after each (vertices, targets) configuration with (done, total); the CLI draws its progress bar.
  std::function<void(size_t done, size_t total)> progress;
};

struct GpuBenchRow {
  uint32_t vertices = 0, targets = 0, active = 0;  // active: targets the kernel walked (sparse: weights non-zero)
  std::string variant;  // "dense_f32", "dense_f32_all", "dense_f16", "dense_snorm16", "sparse"
  double microseconds = 0.0;
  uint64_t bytes = 0;  // minimal bytes moved (see above)
  double gbps = 0.0;
  double percent_of_copy = 0.0;
  int64_t registers = -1;  // registers per invocation of the row's pipeline, where the driver reports them (else -1)
  std::string skipped;     // non-empty: why this configuration did not run (too large, out of memory)
};

struct GpuBenchReport {
  GpuDeviceInfo device;
  GpuBenchCeiling ceiling;
  std::vector<GpuBenchRow> rows;
};

// Runs every (vertices, targets, variant). Synthetic skinned primitives (position + normal deltas, one
// JOINTS/WEIGHTS set, 32 joints), deterministic. A configuration that does not fit is reported as skipped.
Expected<GpuBenchReport> runGpuBench(VulkanContext& context, const GpuBenchOptions& options);

std::string gpuBenchTable(const GpuBenchReport& report);  // fixed-width text table
std::string gpuBenchJson(const GpuBenchReport& report, bool pretty = false);

}  // namespace morphkit
