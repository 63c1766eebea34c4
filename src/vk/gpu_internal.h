// SPDX-License-Identifier: MIT
// gpu_internal.h — internal: what the kernels of src/vk share beyond vk_context.h. A GpuPrimitive's device
// buffers (uploaded once, read by the group kernel morph.comp and the crowd kernel crowd.comp) and the origin
// split of an instance's matrices (docs/LAYOUTS.md §5), so both kernels place vertices with the same floats.
#pragma once
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "morph_shared.h"
#include "morphkit/core/pose.h"
#include "morphkit/vk/gpu.h"
#include "vk_context.h"

namespace morphkit {

// Where each instance's or group member's output starts in a shared output buffer: 256 bytes, the largest
// minStorageBufferOffsetAlignment the Vulkan spec allows, so any offset can be bound as a storage range.
constexpr VkDeviceSize kOutputAlignment = 256;

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

// createGpuMorphGroup with morph.comp's dense f32 loop fixed at `f32_targets_per_step` targets per iteration (2 or 4;
// 0: automatic, as createGpuMorphGroup: 4 below MORPH_WIDE_STEP_MAX_GROUPS workgroups, else 2) and its dense f16 loop
// at `f16_targets_per_step` (4 or 8; 0: automatic, 8 when every entry is dense f16, else 4). Tests run each.
Expected<GpuMorphGroup*> createGpuMorphGroupWithStep(VulkanContext& context, std::span<const GpuInstanceDesc> descs,
                                                     uint32_t f32_targets_per_step, uint32_t f16_targets_per_step = 0);

// A group over `descs` that runs `lender`'s pipeline (not compiled again; the lender must outlive it): a group of
// many frames' copies of a pose's instances computes each copy with the very code of the pose's own group.
Expected<GpuMorphGroup*> createGpuMorphGroupSharingPipeline(VulkanContext& context,
                                                            std::span<const GpuInstanceDesc> descs,
                                                            const GpuMorphGroup& lender);
// The group's output buffer (every instance, aligned: gpuMorphGroupOutput gives each one's range) and its size.
const GpuBuffer& gpuMorphGroupBuffer(const GpuMorphGroup& group);
VkDeviceSize gpuMorphGroupOutputBytes(const GpuMorphGroup& group);

// One pose on the device (morphkit/vk/gpu_pose.h): the prepared pose it belongs to, its uploaded primitives, and one
// group with an instance per (node, primitive).
struct GpuPose {
  const PosePrepared* prepared = nullptr;
  std::vector<GpuPrimitive*> primitives;  // per prepared.primitives
  GpuMorphGroup* group = nullptr;
};

// Registers per invocation of a group's pipeline as the driver reports them, or -1 (pipelineRegisters).
int64_t groupPipelineRegisters(VulkanContext& context, const GpuMorphGroup& group);

}  // namespace morphkit
