// SPDX-License-Identifier: MIT
// morphkit/gpu_crowd.h — crowds: many instances of ONE primitive, each with its own morph weights and its own
// joint palette (or world matrix), deformed in one dispatch that reads each delta once per group of instances
// (shaders/crowd.comp; design and figures: docs/PERFORMANCE.md, "Crowds").
//
// Where GpuBatch (morphkit/gpu.h) gives every instance its own workgroups, which re-read that instance's active
// deltas, a crowd walks, per vertex tile and group of G instances, the union of the group's active targets once
// and applies each delta to all G instances (weight 0 where an instance does not use the target).
//
// Five kernels (CrowdKernel): v1 loops, per vertex, over the group's instances; v2 and v3 give each (vertex,
// instance) its own invocation (a warp per instance) and share the group's loads through shared memory or L1; v4
// (the default) stages a vertex tile's records once per group of instances and lets each warp walk instances; v5
// computes the group's morph as a matrix product on the matrix units (VK_NV_cooperative_matrix, opt-in through
// GpuContextOptions::cooperative_matrix), measured slower than v4 on an H200 (docs/PERFORMANCE.md, "Kernel v5").
//
// Results: with v1-v4 each instance's output is bit-identical whatever the group size and kernel (so to the crowd
// run one instance at a time), and matches GpuMorphJob and the CPU reference MorphSkinJob within float tolerance, not
// bit for bit (the per-instance kernel sums its targets in two interleaved partial sums; tests/vk_crowd_test.cpp
// states the bounds). v5 matches v1 within float tolerance (FP16 operands split in hi + lo).
//
// Like the rest of the vk layer: typed handles, no Vulkan in this header, Expected/Status errors, synchronous run().
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "morphkit/error.h"
#include "morphkit/gpu.h"

namespace morphkit {

class ThreadPool;
struct GpuCrowd;  // one primitive × N instances: per-frame weights and matrices, one output buffer, the pipeline

inline constexpr uint32_t kMaxCrowdGroup = 32;  // instances per workgroup at most (CROWD_MAX_GROUP), v1-v3
// v4's defaults, the best measured on an H200 (docs/PERFORMANCE.md, "v4"): the kernel is latency-bound, so the
// staged records get a budget small enough to leave room for many resident warps.
inline constexpr uint32_t kCrowd4DefaultGroup = 128;           // instances per workgroup
inline constexpr uint32_t kCrowd4DefaultRows = 16;             // warps per workgroup (512 invocations)
inline constexpr uint64_t kCrowd4DefaultSharedBudget = 12288;  // bytes of staged records per workgroup
// v5's defaults, the best measured on an H200 (docs/PERFORMANCE.md, "Kernel v5"): instances per workgroup (a
// multiple of 16, the matrix tile) and subgroups per workgroup.
inline constexpr uint32_t kCrowd5DefaultGroup = 256;
inline constexpr uint32_t kCrowd5DefaultRows = 8;  // v5: subgroups per workgroup, each walking 16-instance tiles

// The crowd kernels (docs/PERFORMANCE.md, "Crowds"). All give the same bits for an instance whatever the group size,
// and the same bits as each other (tests/vk_crowd_test.cpp); they differ in speed.
enum class CrowdKernel : uint32_t {
  kV1 = 0,  // crowd.comp: one invocation per vertex loops over the group's G instances (sums parked in shared memory)
  kV2 = 1,  // crowd2.comp: one invocation per (vertex, instance), a warp per instance; the tile's union deltas and
            // the group's 3×4 palettes staged in shared memory, so per-invocation work does not grow with G
  kV3 = 2,  // crowd2.comp as v2, but each warp reads its instance's delta records from memory (the G warps of a
            // workgroup read the same records close in time: L1 shares them) instead of staging them
  kV4 = 3,  // crowd4.comp: a workgroup per (vertex tile of 32, group of G instances) stages the tile's records of the
            // group's targets in shared memory once, then each warp walks instances, one (vertex, instance) per
            // invocation, reading only its instance's active records, with no barrier after the staging
  kV5 = 4,  // crowd5.comp: the group's morph as a dense matrix product on the matrix units (VK_NV_cooperative_matrix,
            // GpuDeviceInfo::cooperative_matrix), FP16 operands split in hi + lo, sums in FP32; POSITION and NORMAL
            // deltas only. Within float tolerance of v1-v4, not bit-identical.
};
const char* crowdKernelName(CrowdKernel kernel);  // "v1", "v2", "v3", "v4", "v5"

struct GpuCrowdDesc {
  const GpuPrimitive* primitive = nullptr;  // uploaded with a dense layout (dense_f32 or dense_f16)
  uint32_t instance_count = 0;              // >= 1
  bool skinned = false;                     // joint palettes (needs JOINTS/WEIGHTS); else a world matrix each
  uint32_t joint_count = 0;                 // skinned: matrices per instance (>= gpuPrimitiveInfo().joints_needed)
  // Instances per workgroup, 1..kMaxCrowdGroup; 0 picks gpuCrowdDefaultGroup(). A bigger group reads the deltas
  // fewer times but keeps G × record floats of sums per invocation in registers and needs gpuCrowdSharedBytes().
  // v4: any size (capped at instance_count; 0: kCrowd4DefaultGroup): the instances that share one staging of a tile.
  uint32_t group_size = 0;
  CrowdKernel kernel = CrowdKernel::kV4;  // v2, v3: group_size is the warps per workgroup (32 × G invocations)
  // v5: group_size rounds up to a multiple of 16 (0: kCrowd5DefaultGroup); rows are subgroups per workgroup, which
  // share one staged 16-vertex tile and walk its 16-instance tiles (0: kCrowd5DefaultRows); shared_budget unused.
  uint32_t rows = 0;           // v4: rows of 32 invocations per workgroup (0: kCrowd4DefaultRows)
  uint64_t shared_budget = 0;  // v4: shared memory for the staged records, bytes (0: kCrowd4DefaultSharedBudget,
                               // capped at the device's limit)
};

// Shared memory one workgroup of crowd.comp (v1) needs: the staged union slice (64 targets, their G-wide weight rows)
// and the G instances' morph sums for the skinning loop, 256 · G · max(delta_stride, 1) bytes.
uint64_t gpuCrowdSharedBytes(uint32_t delta_stride, uint32_t group_size);
// The default group size for records of `delta_stride` components: the largest power of two G <= 16 whose sums
// fit 96 registers per invocation (G · stride <= 96) and whose shared memory fits min(shared_limit, 32 KiB), so
// that a few workgroups share an SM. Position + normal (stride 6): 16 (28.9 KiB); every attribute (15): 4.
uint32_t gpuCrowdDefaultGroup(uint32_t delta_stride, uint64_t shared_limit = 32768);

struct GpuCrowdInfo {
  uint32_t instance_count = 0;
  uint32_t group_size = 0;      // G
  uint32_t groups = 0;          // ceil(instance_count / G): workgroups per vertex tile
  uint32_t tiles = 0;           // ceil(vertex_count / 64)
  uint32_t matrix_count = 0;    // mat4s per instance: 1 + joints (skinned) or 3
  uint64_t instance_bytes = 0;  // output stride between instances (multiple of 256)
  uint64_t output_bytes = 0;    // instance_count × instance_bytes
  uint64_t shared_bytes = 0;    // shared memory per workgroup
  CrowdKernel kernel = CrowdKernel::kV1;
  uint32_t tile_vertices =
      0;               // vertices per workgroup: 64 (v1), 4 × 32 (v2, v3: four tiles of one warp width), 32 (v4)
  uint32_t slice = 0;  // v2, v3: union entries walked per slice (their weights, masks, v2: records staged)
  bool palette_shared = false;  // v2, v3: the group's palettes staged in shared memory (3×4 rows, 48 B per joint)
  uint32_t rows = 0;            // v4: rows of 32 invocations per workgroup, each walking the group's instances
  uint32_t k_steps = 0;         // v5: targets padded to k_steps × 16 (the product's inner dimension)
  bool split_deltas = false;    // v5: f32 deltas held as FP16 hi + lo planes (f16 deltas: hi only, exact)
  uint32_t slots = 0;           // v4: a tile's records staged per group (the most used of the group's targets;
                                // an instance's other targets are read from memory). Staged as floats, or for
                                // f16 deltas of an even stride as stored (two halves a word: twice the slots)
};
// v2/v3's shared memory: the slice (SLICE weight rows of G floats, SLICE targets, two G-wide masks; v2 also SLICE
// records of `delta_stride` floats for 32 vertices) and, when `palette_joints` > 0, G palettes of 48 B per joint.
uint64_t gpuCrowd2SharedBytes(uint32_t delta_stride, uint32_t group_size, uint32_t slice, uint32_t palette_joints,
                              bool stage_deltas = true);
// v2's slice for records of `delta_stride` components: as many entries as fit 12 KiB of shared memory (16 for
// position + normal, 6 for every attribute), 1 to 32 (one bit each in a mask word). v3 walks 32 per slice.
uint32_t gpuCrowd2Slice(uint32_t delta_stride);

// v4's staged slots: as many records of `record_words` 32-bit words for 32 vertices as fit `shared_limit`, at most
// `targets` (at least 1). A record is its stride in words for f32 deltas, half that for f16 deltas of even stride
// (v4 stages the halves as stored).
uint32_t gpuCrowd4Slots(uint32_t record_words, uint32_t targets, uint64_t shared_limit);

// Fails with kInvalidArgument naming the problem (no primitive, 0 instances, a sparse primitive, skinned without
// JOINTS/WEIGHTS, too few joints, group_size > kMaxCrowdGroup (v1-v3), an unknown kernel; v5: deltas other than
// POSITION and NORMAL, a device without the matrix units, a non-finite delta) and with kTooLarge when the
// output, the per-frame buffers, the group's shared memory, the workgroup (v2: 32 × G invocations) or the dispatch
// exceed the device's limits (maxMemoryAllocationSize, maxComputeSharedMemorySize, maxComputeWorkGroupInvocations,
// maxComputeWorkGroupCount) — before allocating anything. v2 stages the palettes in shared memory only when they
// fit beside the slice (else skinning reads them from memory; GpuCrowdInfo::palette_shared says which).
Expected<GpuCrowd*> createGpuCrowd(VulkanContext& context, const GpuCrowdDesc& desc);
void destroyGpuCrowd(VulkanContext& context, GpuCrowd* crowd);  // null is fine; destroy before the primitive
const GpuCrowdInfo& gpuCrowdInfo(const GpuCrowd& crowd);

// Deforms every instance (ozz-style job). Per frame the CPU builds each group's union of active targets
// (|w| > epsilon) with its weight rows and writes every instance's matrices (GpuInstanceState: weights =
// target_count floats, joint_matrices = joint_count matrices when skinned, else `world`). Synchronous.
struct GpuCrowdJob {
  VulkanContext* context = nullptr;
  GpuCrowd* crowd = nullptr;
  std::span<const GpuInstanceState> instances;  // exactly instance_count states
  float epsilon = 0.0f;
  // Optional: prepares the frame (v4's per-group lists, every instance's matrices) on the pool's threads. The
  // buffers written are the same with or without it.
  ThreadPool* pool = nullptr;

  bool validate() const;
  Status run() const;  // kInvalidArgument naming the first bad instance/field
};
// Why `job` is invalid (kInvalidArgument, "GpuCrowdJob: instances[3]: 51 weights, the primitive has 52 targets"),
// or Ok.
Status checkGpuCrowdJob(const GpuCrowdJob& job);

// GPU time of the last run's dispatch, from timestamp queries (NaN without timestamp support).
double lastCrowdDispatchMicroseconds(const GpuCrowd& crowd);
// CPU time of the last run's frame preparation (per group the targets to stage, per instance its active list and
// its matrices, written into the crowd's host-visible buffers), wall clock; NaN before the first run.
double lastCrowdHostMicroseconds(const GpuCrowd& crowd);
// Union entries (targets walked, summed over the groups) of the last run: the delta records read per vertex tile.
uint64_t lastCrowdUnionEntries(const GpuCrowd& crowd);

// One instance's deformed vertices: interleaved, gpuPrimitiveInfo().vertex format (as readGpuBatchOutput).
Expected<std::vector<float>> readGpuCrowdOutput(VulkanContext& context, const GpuCrowd& crowd, uint32_t instance);
Expected<PrimitiveData> readGpuCrowdVertices(VulkanContext& context, const GpuCrowd& crowd, uint32_t instance);

// ---- Benchmark: a crowd against the per-instance batch kernel and the copy kernel, in one run ----
struct GpuCrowdBenchOptions {
  uint32_t instances = 1000;
  uint32_t vertices = 20000;
  uint32_t targets = 52;
  uint32_t active = 10;                // active targets per instance, a different set each (deterministic)
  uint32_t joints = 32;                // per instance, 4 influences per vertex
  std::vector<uint32_t> groups = {0};  // crowd group sizes to time (0: the default)
  std::vector<CrowdKernel> kernels = {CrowdKernel::kV1, CrowdKernel::kV2, CrowdKernel::kV3,
                                      CrowdKernel::kV4};  // each × each group size
  std::vector<uint32_t> v4_rows = {0};                    // v4 rows: each × each of the following (0: the default)
  std::vector<uint32_t> v4_shared_kib = {0};  // v4 rows: GpuCrowdDesc::shared_budget in KiB (0: the default)
  bool batch = true;  // also time morph.comp over the same instances (one GpuBatch, one dispatch)
  DeltaLayout layout = DeltaLayout::kDenseF32;
  ThreadPool* pool = nullptr;  // lent to every GpuCrowdJob: the frame preparation timed in `host_microseconds`
  uint32_t repetitions = 5;    // best of N dispatches
  double warmup_ms = -1.0;     // GPU kept busy before the copy kernel and each row (as GpuBenchOptions)
  uint64_t copy_bytes = uint64_t(2048) << 20;  // copy-kernel buffer size (capped like GpuBenchOptions::copy_bytes)
  bool executable_reports = false;             // fill GpuCrowdBenchRow::executable_report
  std::function<void(size_t done, size_t total)> progress;
};

struct GpuCrowdBenchRow {
  std::string variant;                    // "crowd_g16" (v1), "crowd2_g16" (v2), "crowd3_g16" (v3), "batch"
  uint32_t group_size = 0;                // crowd rows
  CrowdKernel kernel = CrowdKernel::kV1;  // crowd rows
  double microseconds = 0.0;
  uint64_t bytes = 0;             // the crowd's minimal bytes (same for every row, so GB/s compares times)
  uint64_t delta_read_bytes = 0;  // delta bytes the kernel's walk reads (per group union, or per instance)
  double gbps = 0.0, percent_of_copy = 0.0;
  double max_diff_vs_batch = -1.0;          // largest |crowd − batch| over the checked instances (-1: not compared)
  double host_microseconds = std::nan("");  // crowd rows: the CPU's frame preparation, best of the repetitions
                                            // (lastCrowdHostMicroseconds); NaN for the batch row
  std::string executable_report;  // crowd rows, when asked: the driver's statistics and internal representations
                                  // of the pipeline (empty: the driver offers none, or the context captures none)
  int64_t registers = -1;         // crowd rows: registers per invocation, as the driver reports them (-1: not
                                  // reported; VK_KHR_pipeline_executable_properties)
  int same_bits_as_v1 = -1;       // v2-v4 rows: 1 when the checked instances equal the first v1 row's bit for bit,
                                  // 0 when not, -1 when the run has no v1 row
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
