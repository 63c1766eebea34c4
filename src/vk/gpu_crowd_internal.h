// SPDX-License-Identifier: MIT
// gpu_crowd_internal.h — GpuCrowd's state, shared by the crowd's two halves: gpu_crowd.cpp (planning, buffers,
// pipeline, dispatch) and gpu_crowd_frame.cpp (the CPU's part of a frame: lists and matrices), and the kernel's
// tuning, which tests and the benchmarks reach. Not installed.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "morphkit/vk/gpu_crowd.h"
#include "vk_context.h"

namespace morphkit {

// The kernel's tuning, the best measured on an H200 (docs/PERFORMANCE.md, kernel history): the kernel is
// latency-bound, so the staged records get a budget small enough to leave room for many resident warps.
inline constexpr uint32_t kCrowdDefaultGroup = 128;           // instances per workgroup
inline constexpr uint32_t kCrowdDefaultRows = 16;             // warps per workgroup (512 invocations)
inline constexpr uint64_t kCrowdDefaultSharedBudget = 12288;  // bytes of staged records per workgroup

// 0 everywhere: the defaults above. Any group size gives the same bits (tests/vk/vk_crowd_test.cpp).
struct GpuCrowdTuning {
  uint32_t group_size = 0;     // instances per workgroup (capped at instance_count)
  uint32_t rows = 0;           // rows of CROWD_TILE invocations per workgroup
  uint64_t shared_budget = 0;  // shared memory for the staged records, bytes (capped at the device's limit)
};
Expected<GpuCrowd*> createGpuCrowd(VulkanContext& context, const GpuCrowdDesc& desc, const GpuCrowdTuning& tuning);

// Staged slots: as many records of `record_words` 32-bit words for CROWD_TILE vertices as fit `shared_limit`, at
// most `targets` (at least 1). A record is its stride in words for f32 deltas, half that for f16 deltas of even
// stride (staged as stored).
uint32_t crowdSlots(uint32_t record_words, uint32_t targets, uint64_t shared_limit);

struct GpuCrowd {
  GpuCrowdInfo info;
  const GpuPrimitive* primitive = nullptr;
  bool skinned = false;
  uint32_t joint_count = 0;
  GpuBuffer unions;    // host-visible: groups + 1 offsets, then each group's staged target indices
  GpuBuffer weights;   // host-visible: each instance's active entries (CrowdPush::weights_address)
  GpuBuffer matrices;  // host-visible: matrix_count matrices of three rows per instance
  GpuBuffer output;    // device-local, STORAGE | VERTEX: instance i at i × instance_bytes
  ComputePipeline pipeline;
  uint64_t last_reads = 0;  // records read per vertex tile in the last run (staged once + the rest)
  double last_us = std::nan("");
  double last_host_us = std::nan("");     // the CPU's part of the last run: the frame's lists and matrices
  std::vector<uint32_t> scratch_entries;  // the frame's lists, per group, before their one copy into `weights`
};

// Floats per matrix in the crowd's matrices buffer: three rows (48 B: fewer bytes and fewer registers per joint
// load; crowd.comp rebuilds the mat4 with (0, 0, 0, 1) as its never-read last row).
inline constexpr uint32_t kCrowdMatrixFloats = 12;

// The first word of the list entries in `weights`: after the instance_count + 1 offsets, padded to 4 words so the
// uvec4 entries are aligned (crowd.comp computes the same from CrowdPush::instance_count).
inline uint64_t crowdEntriesWord(uint32_t instances) {
  return (uint64_t(instances) + 4) & ~uint64_t(3);
}

// The frame's data in the crowd's host-visible buffers: the kernel's target lists and every instance's matrices
// (gpu_crowd_frame.cpp). On the job's pool when it lends one.
void writeCrowdFrame(const GpuCrowdJob& job);

// For the benchmarks: the CPU time of the last run's frame preparation (wall clock; NaN before the first run) and
// the delta records it had the kernel read per vertex tile.
double lastCrowdHostMicroseconds(const GpuCrowd& crowd);
uint64_t lastCrowdRecordReads(const GpuCrowd& crowd);
int64_t crowdPipelineRegisters(VulkanContext& context, const GpuCrowd& crowd);
std::string crowdPipelineReport(VulkanContext& context, const GpuCrowd& crowd);

}  // namespace morphkit
