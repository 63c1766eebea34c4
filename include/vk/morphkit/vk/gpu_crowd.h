// SPDX-License-Identifier: MIT
// morphkit/vk/gpu_crowd.h — crowds: many instances of ONE primitive, each with its own morph weights and its own
// joint palette (or world matrix), deformed in one dispatch (shaders/crowd.comp; kernel history:
// docs/PERFORMANCE.md).
//
// Where GpuMorphGroup (morphkit/vk/gpu.h) gives every instance its own workgroups, which re-read that instance's active
// deltas, a crowd stages a vertex tile's records of a group of instances' most used targets in shared memory once,
// then each instance walks its own active targets, reading the staged records from there and the others from
// memory.
//
// Results: each instance's output is bit-identical whatever the group it shares (so to a crowd of one instance),
// and matches GpuMorphJob and the CPU reference MorphSkinJob within float tolerance, not bit for bit (the
// per-instance kernel sums its targets in two interleaved partial sums; tests/vk/vk_crowd_test.cpp states the bounds).
//
// Like the rest of the vk layer: typed handles, no Vulkan in this header, Expected/Status errors, synchronous run().
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "morphkit/model/error.h"
#include "morphkit/vk/gpu.h"

namespace morphkit {

class ThreadPool;
struct GpuCrowd;  // one primitive × N instances: per-frame weights and matrices, one output buffer, the pipeline

struct GpuCrowdDesc {
  const GpuPrimitive* primitive = nullptr;  // uploaded with a dense layout (dense_f32 or dense_f16)
  uint32_t instance_count = 0;              // >= 1
  bool skinned = false;                     // joint palettes (needs JOINTS/WEIGHTS); else a world matrix each
  uint32_t joint_count = 0;                 // skinned: matrices per instance (>= gpuPrimitiveInfo().joints_needed)
};

struct GpuCrowdInfo {
  uint32_t instance_count = 0;
  uint32_t group_size = 0;      // G: instances that share one staging of a vertex tile's records
  uint32_t groups = 0;          // ceil(instance_count / G): workgroups per vertex tile
  uint32_t tiles = 0;           // ceil(vertex_count / tile_vertices)
  uint32_t tile_vertices = 0;   // vertices per workgroup
  uint32_t rows = 0;            // rows of tile_vertices invocations per workgroup, each walking the group's instances
  uint32_t slots = 0;           // a tile's records staged per group (the most used of the group's targets; an
                                // instance's other targets are read from memory)
  uint32_t matrix_count = 0;    // matrices per instance: 1 + joints (skinned) or 3
  uint64_t instance_bytes = 0;  // output stride between instances (gpuCrowdInstanceBytes)
  uint64_t output_bytes = 0;    // instance_count × instance_bytes
  uint64_t shared_bytes = 0;    // shared memory per workgroup
};

// Fails with kInvalidArgument naming the problem (no primitive, 0 instances, a sparse or snorm16 primitive, skinned
// without JOINTS/WEIGHTS, too few joints) and with kTooLarge when the output, the per-frame buffers, the workgroup or
// the dispatch exceed the device's limits (maxMemoryAllocationSize, maxComputeWorkGroupInvocations,
// maxComputeWorkGroupCount), naming the bytes — before allocating anything.
Expected<GpuCrowd*> createGpuCrowd(VulkanContext& context, const GpuCrowdDesc& desc);
void destroyGpuCrowd(VulkanContext& context, GpuCrowd* crowd);  // null is fine; destroy before the primitive
const GpuCrowdInfo& gpuCrowdInfo(const GpuCrowd& crowd);
// One instance's output bytes in the crowd's buffer: its vertices rounded up to a multiple of 256 (a storage range
// a caller may bind) and of the vertex stride (so one vertex-buffer binding of the output reaches instance i by a
// vertex offset: the render draws every copy of a primitive with one indirect draw).
uint64_t gpuCrowdInstanceBytes(uint64_t vertex_count, uint32_t vertex_stride_floats);

// Deforms every instance (ozz-style job). Per frame the CPU picks each group's staged targets and every instance's
// active list (|w| > epsilon) and writes every instance's matrices (GpuInstanceState: weights = target_count
// floats, joint_matrices = joint_count matrices when skinned, else `world`). Synchronous.
struct GpuCrowdJob {
  VulkanContext* context = nullptr;
  GpuCrowd* crowd = nullptr;
  std::span<const GpuInstanceState> instances;  // exactly instance_count states
  float epsilon = 0.0f;
  // Optional: prepares the frame (the per-group lists, every instance's matrices) on the pool's threads. The
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
// One instance's deformed vertices: interleaved, gpuPrimitiveInfo().vertex format (as readGpuMorphGroupOutput).
Expected<std::vector<float>> readGpuCrowdOutput(VulkanContext& context, const GpuCrowd& crowd, uint32_t instance);
Expected<PrimitiveData> readGpuCrowdVertices(VulkanContext& context, const GpuCrowd& crowd, uint32_t instance);

}  // namespace morphkit
