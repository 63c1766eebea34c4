// SPDX-License-Identifier: MIT
// gpu_internal.h — internal: what the kernels of src/vk share beyond vk_context.h. A GpuPrimitive's device
// buffers (uploaded once, read by the batch kernel morph.comp and the crowd kernel crowd.comp) and the origin
// split of an instance's matrices (docs/LAYOUTS.md §5), so both kernels place vertices with the same floats.
#pragma once
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "morph_shared.h"
#include "morphkit/gpu.h"
#include "morphkit/json_writer.h"
#include "vk_context.h"

namespace morphkit {

struct GpuPrimitive {
  GpuPrimitiveInfo info;
  GpuBuffer vertices;         // base vertices (VertexFormat)
  GpuBuffer deltas;           // dense target blocks or sparse records
  GpuBuffer rows;             // sparse: vertex_count + 1 u32
  GpuBuffer skin;             // skin stream (PackedSkin)
  uint64_t target_bytes = 0;  // dense layouts: PackedDeltas::target_bytes
};

// One instance's matrices block (docs/LAYOUTS.md §5): the origin block (pivot, origin high floats, origin low
// floats), then the joint palette (skinned: `joints`, each world(joint)·IBM) or the model matrix and the normal
// matrix (rigid: `world`). Far from the origin a float matrix cannot place a small primitive to 1e-5 of its
// size, so the split happens here, in double.
std::vector<Mat4> relativeMatrices(const float pivot[3], bool skinned, std::span<const DMat4> joints,
                                   const DMat4& world);
// How many matrices that is: the origin block, then the palette (skinned) or the model and normal matrices.
inline uint32_t relativeMatrixCount(bool skinned, size_t joints) {
  return 1 + uint32_t(skinned ? joints : 2);
}
// The same into `out` (relativeMatrixCount matrices), allocating nothing: per frame and instance.
void relativeMatrices(const float pivot[3], bool skinned, std::span<const DMat4> joints, const DMat4& world,
                      std::span<Mat4> out);

// The benchmarks' deterministic generator (a 64-bit LCG; 24 random bits per draw).
struct BenchRng {
  uint64_t state;
  uint32_t bits() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(state >> 40) & 0xFFFFFF;
  }
  float next() { return float(bits()) / float(1 << 24); }  // [0, 1)
};

// The benchmarks' synthetic primitive: positions + normals, each target moving position and normal deltas over a
// contiguous `region` (fraction) of the vertices, one JOINTS/WEIGHTS set of 4 influences over `joints` joints.
PrimitiveData benchPrimitive(uint32_t vertices, uint32_t targets, float region, uint32_t joints, uint64_t seed);

// The 2D grid of one dispatch of `groups` workgroups (a kernel rebuilds group = y · x_count + x and returns past
// the last): rows of at most MORPH_MAX_GROUPS_X, as even as possible, so at most y − 1 idle groups are launched.
// Full-width rows launched up to 65534 idle groups after the last one: 65527 for a 2 GiB copy, 12.5 % of its 524288.
struct DispatchGrid {
  uint32_t x = 0, y = 0;
};
inline DispatchGrid dispatchGrid(uint64_t groups) {
  if (groups == 0) return {};
  const uint64_t y = (groups + MORPH_MAX_GROUPS_X - 1) / MORPH_MAX_GROUPS_X;
  return {uint32_t((groups + y - 1) / y), uint32_t(y)};
}

// The copy kernel's buffer size for a benchmark: the request, capped at one allocation and at a quarter of the
// device-local memory (source and destination together stay under half of it on a small GPU).
inline uint64_t benchCopyBytes(uint64_t requested, const GpuDeviceInfo& device) {
  uint64_t cap = device.max_allocation_bytes;
  if (device.device_local_bytes != 0) cap = std::min(cap, device.device_local_bytes / 4);
  return std::min(requested, cap);
}

// createGpuBatch with morph.comp's dense f32 loop fixed at `f32_targets_per_step` targets per iteration (2 or 4;
// 0: automatic, as createGpuBatch: 4 below MORPH_WIDE_STEP_MAX_GROUPS workgroups, else 2) and its dense f16 loop at
// `f16_targets_per_step` (4 or 8; 0: automatic, 8 when every entry is dense f16, else 4). Tests run each.
Expected<GpuBatch*> createGpuBatchWithStep(VulkanContext& context, std::span<const GpuInstanceDesc> descs,
                                           uint32_t f32_targets_per_step, uint32_t f16_targets_per_step = 0);

// A benchmark's ceiling (`bench`, `bench --crowd`): the warm-up (warmUpMilliseconds of `warmup_ms`), then the
// copy kernel over benchCopyBytes(`copy_bytes`), best of `repetitions`.
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

// Registers per invocation of a crowd's or a batch's pipeline as the driver reports them, or -1 (pipelineRegisters).
struct GpuCrowd;
int64_t crowdPipelineRegisters(VulkanContext& context, const GpuCrowd& crowd);
// The driver's report on a crowd's pipeline (pipelineReport).
std::string crowdPipelineReport(VulkanContext& context, const GpuCrowd& crowd);
int64_t batchPipelineRegisters(VulkanContext& context, const GpuBatch& batch);

}  // namespace morphkit
