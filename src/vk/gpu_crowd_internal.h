// SPDX-License-Identifier: MIT
// gpu_crowd_internal.h — GpuCrowd's state, shared by the crowd's two halves: gpu_crowd.cpp (planning, buffers,
// pipeline, dispatch) and gpu_crowd_frame.cpp (the CPU's part of a frame: lists and matrices). Not installed.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "morphkit/gpu_crowd.h"
#include "vk_context.h"

namespace morphkit {

struct GpuCrowd {
  GpuCrowdInfo info;
  const GpuPrimitive* primitive = nullptr;
  bool skinned = false;
  uint32_t joint_count = 0;
  GpuBuffer unions;    // host-visible: groups + 1 offsets, then up to groups × targets target indices
  GpuBuffer weights;   // host-visible: G floats per union entry (v4: each instance's active entries, CrowdPush)
  GpuBuffer matrices;  // host-visible: matrix_count mat4 per instance
  GpuBuffer output;    // device-local, STORAGE | VERTEX: instance i at i × instance_bytes
  GpuBuffer planes;    // v5: the deltas as FP16 planes (crowd5_pack.comp), device-local; empty without targets
  ComputePipeline pipeline;
  uint64_t last_entries = 0;
  double last_us = std::nan("");
  double last_host_us = std::nan("");     // the CPU's part of the last run: the frame's lists and matrices
  std::vector<uint32_t> scratch_entries;  // v4: the frame's lists, per group, before their one copy into `weights`
  std::vector<uint16_t> scratch_halves;   // v5: the frame's FP16 weight matrices, before their one copy
  float delta_scale = 1.0f;               // v5: the planes hold every delta × delta_scale (a power of two)
  float inverse_scale = 1.0f;             // v5: 1 / (delta_scale × the last frame's weight scale)
};

// Floats per matrix in the crowd's matrices buffer: mat4 columns (v1-v3), or v4's three rows (48 B: fewer bytes
// and fewer registers per joint load; crowd4.comp rebuilds the mat4 with (0, 0, 0, 1) as its never-read last row).
inline uint32_t crowdMatrixFloats(CrowdKernel kernel) {
  return kernel == CrowdKernel::kV4 || kernel == CrowdKernel::kV5 ? 12 : 16;  // v5 shares v4's finish
}

// The first word of v4's list entries in `weights`: after the instance_count + 1 offsets, padded to 4 words so
// the uvec4 entries are aligned (crowd4.comp computes the same from CrowdPush::instance_count).
inline uint64_t crowd4EntriesWord(uint32_t instances) {
  return (uint64_t(instances) + 4) & ~uint64_t(3);
}

// The frame's data in the crowd's host-visible buffers: the kernel's target lists and every instance's matrices
// (gpu_crowd_frame.cpp). On the job's pool when it lends one.
void writeCrowdFrame(const GpuCrowdJob& job);

// Kernel v5 (gpu_crowd5.cpp). Its plan (after the checks common to every kernel): rows, group, k_steps, split.
Status planV5(const VulkanContext& context, const GpuCrowdDesc& d, const GpuPrimitiveInfo& p, GpuCrowdInfo& info);
uint64_t crowd5PlaneBytes(const GpuPrimitiveInfo& p, const GpuCrowdInfo& info);  // the FP16 delta planes
uint64_t crowd5WeightBytes(const GpuCrowdInfo& info);  // the frame's hi and lo weight matrices
uint32_t crowd5WeightStride(uint32_t instances);       // halves per weight-matrix row: instances padded to 16
// Fills crowd.planes from the primitive's dense deltas; kInvalidArgument when a delta does not fit FP16.
Status packCrowd5Deltas(VulkanContext& context, GpuCrowd& crowd);
void writeCrowd5Weights(const GpuCrowdJob& job);  // the frame's weights as FP16 hi and lo matrices

}  // namespace morphkit
