// SPDX-License-Identifier: MIT
// morphkit_bench/gpu_bench.h — the benchmarks' machinery (an internal target, morphkit_bench_support: not library
// code, not installed): the copy-kernel ceiling, the warm-up, the synthetic primitives and the GPU tables of
// `morphkit bench` and bench/*.cpp. GPU morph + skin throughput is measured with timestamp queries, next to a copy
// kernel measured in the same run.
//
// Effective bandwidth = the minimal bytes a layout must move / the dispatch time, where the minimal bytes are
//   base vertices read + output vertices written + skin stream read
//   + dense:  vertices × walked targets × delta stride × (4 for f32, 2 for f16 and snorm16; snorm16's scales,
//             16 bytes per walked target and workgroup, are left out)
//   + sparse: rows (4·(V+1)) + every stored record (4·(1 + stride) bytes each; the kernel reads each record's
//             target index and skips zero weights, but the record is in its cache line anyway).
// The copy kernel's GB/s is 2 × bytes / time (read + write) over `ceiling.copy_bytes` (GpuBenchCeiling).
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "morphkit/model/error.h"
#include "morphkit/vk/gpu.h"

namespace morphkit {

class JsonWriter;
class ThreadPool;

// ---- The ceiling every row is compared with ----
// Times copy.comp over `bytes` (rounded up to 16) of device-local memory, best of `repetitions`, in µs.
Expected<double> measureCopyMicroseconds(VulkanContext& context, uint64_t bytes, uint32_t repetitions);

// The readback floor of a command that brings `bytes` of results to the host: one vkCmdCopyBuffer of that many bytes
// from device-local into host-visible memory, wall ms from submission to the host seeing it, best of `repetitions`
// after one untimed copy (bytes beyond one allocation are timed at one allocation and scaled).
Expected<double> measureReadbackMilliseconds(VulkanContext& context, uint64_t bytes, uint32_t repetitions);

// The copy kernel over `copy_bytes` (GB/s = 2 × bytes / time, read + write), measured after a warm-up of
// `warmup_ms`, the same warm-up each row then gets.
struct GpuBenchCeiling {
  uint64_t copy_bytes = 0;
  double copy_microseconds = 0.0;
  double copy_gbps = 0.0;
  double warmup_ms = 0.0;
};

// A GPU idles at a low clock and raises it only after sustained work: the H200's SM clock stays at 345 MHz through
// an upload and climbs to 1980 MHz over about 1.5 s of back-to-back dispatches, so twenty dispatches timed right
// after an upload measure the ramp, not the kernel. warmUpGpu keeps the device busy with the copy kernel for
// `milliseconds` of wall time; a measurement right after it sees the clocks of an application in a frame loop.
// 0: returns at once; < 0: the device's default (warmUpMilliseconds).
Status warmUpGpu(VulkanContext& context, double milliseconds);
inline constexpr double kGpuWarmUpMilliseconds = 2000.0;
// `requested` when >= 0; else kGpuWarmUpMilliseconds on a GPU and 0 on a CPU implementation (lavapipe has no
// clocks to raise).
double warmUpMilliseconds(double requested, const GpuDeviceInfo& device);

// The copy kernel's buffer size: the request, capped at one allocation and at a quarter of the device-local memory
// (source and destination together stay under half of it on a small GPU).
uint64_t benchCopyBytes(uint64_t requested, const GpuDeviceInfo& device);
// The warm-up (warmUpMilliseconds of `warmup_ms`), then the copy kernel over benchCopyBytes(`copy_bytes`), best of
// `repetitions`.
Expected<GpuBenchCeiling> measureBenchCeiling(VulkanContext& context, const GpuDeviceInfo& device, uint64_t copy_bytes,
                                              double warmup_ms, uint32_t repetitions);
// A row's GB/s as a percentage of the copy kernel's (0 when the copy was not timed).
inline double percentOfCopy(double gbps, const GpuBenchCeiling& ceiling) {
  return ceiling.copy_gbps > 0 ? 100.0 * gbps / ceiling.copy_gbps : 0.0;
}
// The `device` and `copy` objects and `warmupMs` every GPU benchmark's JSON starts with, and the same as its
// table's first line.
void writeBenchDeviceAndCopy(JsonWriter& w, const GpuDeviceInfo& device, const GpuBenchCeiling& ceiling);
std::string benchDeviceLine(const GpuDeviceInfo& device, const GpuBenchCeiling& ceiling);

// ---- Synthetic data ----
// A deterministic generator (a 64-bit LCG; 24 random bits per draw).
struct BenchRng {
  uint64_t state;
  uint32_t bits() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(state >> 40) & 0xFFFFFF;
  }
  float next() { return float(bits()) / float(1 << 24); }  // [0, 1)
};
// Positions + normals, each target moving position and normal deltas over a contiguous `region` (fraction) of the
// vertices, one JOINTS/WEIGHTS set of 4 influences over `joints` joints.
PrimitiveData benchPrimitive(uint32_t vertices, uint32_t targets, float region, uint32_t joints, uint64_t seed);

// ---- The synthetic layout table (`morphkit bench`, bench/gpu_bench.cpp) ----

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

// ---- The crowd (`morphkit bench --crowd N`): a crowd against the per-instance batch kernel and the copy kernel ----
struct GpuCrowdBenchOptions {
  uint32_t instances = 1000;
  uint32_t vertices = 20000;
  uint32_t targets = 52;
  uint32_t active = 10;  // active targets per instance, a different set each (deterministic)
  uint32_t joints = 32;  // per instance, 4 influences per vertex
  bool batch = true;     // also time morph.comp over the same instances (one GpuMorphGroup, one dispatch)
  DeltaLayout layout = DeltaLayout::kDenseF32;
  ThreadPool* pool = nullptr;  // lent to the GpuCrowdJob: the frame preparation timed in `host_microseconds`
  uint32_t repetitions = 5;    // best of N dispatches
  double warmup_ms = -1.0;     // GPU kept busy before the copy kernel and each row (as GpuBenchOptions)
  uint64_t copy_bytes = uint64_t(2048) << 20;  // copy-kernel buffer size (capped like GpuBenchOptions::copy_bytes)
  std::function<void(size_t done, size_t total)> progress;
};

struct GpuCrowdBenchRow {
  std::string variant;      // "crowd" or "batch"
  uint32_t group_size = 0;  // crowd row: instances per workgroup
  double microseconds = 0.0;
  uint64_t bytes = 0;             // the crowd's minimal bytes (same for every row, so GB/s compares times)
  uint64_t delta_read_bytes = 0;  // delta bytes the kernel's walk reads (staged once per group, or per instance)
  double gbps = 0.0, percent_of_copy = 0.0;
  double max_diff_vs_batch = -1.0;          // largest |crowd − batch| over the checked instances (-1: not compared)
  double host_microseconds = std::nan("");  // crowd row: the CPU's frame preparation, best of the repetitions
  int64_t registers = -1;                   // crowd row: registers per invocation, as the driver reports them
};

struct GpuCrowdBenchReport {
  GpuDeviceInfo device;
  GpuCrowdBenchOptions options;
  uint64_t output_bytes = 0;  // instances × vertices × stride × 4
  GpuBenchCeiling ceiling;
  std::vector<GpuCrowdBenchRow> rows;
};

Expected<GpuCrowdBenchReport> runGpuCrowdBench(VulkanContext& context, const GpuCrowdBenchOptions& options);
std::string gpuCrowdBenchTable(const GpuCrowdBenchReport& report);
std::string gpuCrowdBenchJson(const GpuCrowdBenchReport& report, bool pretty = false);

}  // namespace morphkit
