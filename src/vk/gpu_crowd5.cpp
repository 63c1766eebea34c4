// SPDX-License-Identifier: MIT
// Crowd kernel v5 (morphkit/gpu_crowd.h, shaders/crowd5.comp): the group's morph as a matrix product on the matrix
// units. This file holds what v5 adds to the crowd: its plan, the deltas repacked once as FP16 planes
// (crowd5_pack.comp), and the frame's weight matrices.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "crowd_shared.h"
#include "gpu_crowd_internal.h"
#include "gpu_internal.h"
#include "morphkit/active_targets.h"
#include "morphkit/packed_deltas.h"
#include "morphkit_spirv/crowd5_pack.h"
#include "vk_context.h"

namespace morphkit {
namespace {

uint32_t roundUp(uint32_t value, uint32_t step) {
  return (value + step - 1) / step * step;
}

bool hasTargets(const GpuPrimitiveInfo& p) {
  return p.target_count > 0 && p.delta.stride > 0;
}

}  // namespace

uint64_t crowd5PlaneElements(const GpuPrimitiveInfo& p, uint32_t k_steps) {
  return uint64_t(roundUp(p.vertex_count, CROWD5_M)) * k_steps * CROWD5_K;
}

uint32_t crowd5WeightStride(uint32_t instances) {
  return roundUp(instances, CROWD5_N);
}

Status planV5(const VulkanContext& context, const GpuCrowdDesc& d, const GpuPrimitiveInfo& p, GpuCrowdInfo& info) {
  const std::string where = "createGpuCrowd: kernel v5: ";
  if (hasTargets(p) && (p.delta.tangent != kLayoutAbsent || p.delta.extra_count > 0)) {
    return fail(Error::kInvalidArgument, where +
                                             "the primitive's deltas hold TANGENT, TEXCOORD or COLOR components; v5 "
                                             "morphs POSITION and NORMAL only (use v4)");
  }
  if (!context.info.cooperative_matrix) {
    const std::string why = context.cooperative_matrix_offered
                                ? "the context was created without GpuContextOptions::cooperative_matrix"
                                : context.info.name + " does not offer it (use v4)";
    return fail(Error::kInvalidArgument, where +
                                             "needs VK_NV_cooperative_matrix (FP16 16x16x16 tiles summed in FP32, "
                                             "32-wide subgroups); " +
                                             why);
  }
  const VkPhysicalDeviceLimits& limits = context.properties.limits;
  info.rows = d.rows ? d.rows : kCrowd5DefaultRows;
  if (uint64_t(info.rows) * CROWD5_SUBGROUP > limits.maxComputeWorkGroupInvocations ||
      info.rows > limits.maxComputeWorkGroupSize[1]) {
    return fail(Error::kTooLarge, where + "rows " + std::to_string(info.rows) + " needs " +
                                      std::to_string(uint64_t(info.rows) * CROWD5_SUBGROUP) +
                                      " invocations per workgroup, the device allows " +
                                      std::to_string(limits.maxComputeWorkGroupInvocations));
  }
  const uint32_t group = roundUp(d.group_size ? d.group_size : kCrowd5DefaultGroup, CROWD5_N);
  info.group_size = std::min(group, roundUp(d.instance_count, CROWD5_N));
  info.tile_vertices = CROWD5_M;
  info.k_steps = hasTargets(p) ? (p.target_count + CROWD5_K - 1) / CROWD5_K : 1;
  info.split_deltas = hasTargets(p) && p.layout == DeltaLayout::kDenseF32;
  // The identity matrix of element positions, and the tile's staged planes (crowd5.comp's s_a: rows of K + 8 halves).
  const uint64_t planes = hasTargets(p) ? uint64_t(p.delta.stride) * (info.split_deltas ? 2 : 1) : 1;
  info.shared_bytes = 4ull * CROWD5_M * CROWD5_N + 2 * planes * CROWD5_M * (uint64_t(info.k_steps) * CROWD5_K + 8);
  if (crowd5PlaneElements(p, info.k_steps) > UINT32_MAX) {
    return fail(Error::kTooLarge, where + std::to_string(p.vertex_count) + " vertices × " +
                                      std::to_string(p.target_count) + " targets exceed 2^32 elements per FP16 plane");
  }
  return Ok{};
}

uint64_t crowd5PlaneBytes(const GpuPrimitiveInfo& p, const GpuCrowdInfo& info) {
  if (!hasTargets(p)) return 0;
  return 2 * crowd5PlaneElements(p, info.k_steps) * p.delta.stride * (info.split_deltas ? 2 : 1);
}

uint64_t crowd5WeightBytes(const GpuCrowdInfo& info) {
  return 2ull * 2 * info.k_steps * CROWD5_K * crowd5WeightStride(info.instance_count);  // hi and lo matrices
}

// A power of two that puts `largest` (> 0) between 2^13 and 2^14: FP16's normal range holds the scaled values and
// their remainders, with room for hi + lo rounding. Exponents are clamped so that the product of two scales stays a
// normal float.
float crowd5Scale(double largest) {
  if (!(largest > 0.0) || !std::isfinite(largest)) return 1.0f;  // inf or NaN weights: the output shows them, as v1-v4
  const int e = std::clamp(int(std::floor(std::log2(16384.0 / largest))), -60, 60);
  return std::ldexp(1.0f, e);
}

Status packCrowd5Deltas(VulkanContext& context, GpuCrowd& crowd) {
  const GpuPrimitiveInfo& p = crowd.primitive->info;
  if (!hasTargets(p)) return Ok{};
  Expected<GpuBuffer> largest = createBuffer(context, 4, MemoryUse::kReadback);
  if (!largest) return largest.error();
  std::memset(largest->mapped, 0, 4);
  const uint32_t values[] = {p.delta.stride, p.layout == DeltaLayout::kDenseF16 ? 1u : 0u, crowd.info.k_steps,
                             crowd.info.split_deltas ? 1u : 0u};
  const uint32_t ids[] = {CROWD_SC_DELTA_STRIDE, CROWD_SC_DELTA_F16, CROWD_SC_K_STEPS, CROWD_SC_SPLIT_DELTAS};
  VkSpecializationMapEntry entries[4];
  for (uint32_t i = 0; i < 4; ++i) entries[i] = {ids[i], 4 * i, 4};
  const VkSpecializationInfo specialization{4, entries, sizeof values, values};
  ComputePipeline pack;
  Status s = createComputePipeline(context, gpu::spirv::kCrowd5Pack, sizeof(gpu::spirv::kCrowd5Pack),
                                   sizeof(gpu::Crowd5PackPush), pack, &specialization);
  gpu::Crowd5PackPush push{
      crowd.primitive->deltas.address, crowd.planes.address, largest->address, p.vertex_count, p.target_count, 1.0f, 1};
  auto pass = [&](const char* where) {
    const uint64_t groups = (crowd5PlaneElements(p, crowd.info.k_steps) + MORPH_GROUP_SIZE - 1) / MORPH_GROUP_SIZE;
    const uint32_t x = uint32_t(std::min<uint64_t>(groups, context.properties.limits.maxComputeWorkGroupCount[0]));
    const uint32_t y = uint32_t((groups + x - 1) / x);
    return submitAndWait(
        context,
        [&](VkCommandBuffer cmd) {
          vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pack.pipeline);
          vkCmdPushConstants(cmd, pack.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
          vkCmdDispatch(cmd, x, y, 1);
          VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
          barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
          barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_SHADER_READ_BIT;
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0,
                               nullptr, 0, nullptr);
        },
        where);
  };
  float largest_delta = 0.0f;
  if (s) s = pass("createGpuCrowd (v5: the largest delta)");
  if (s) std::memcpy(&largest_delta, largest->mapped, 4);
  const bool finite = std::isfinite(largest_delta);
  if (s && finite) {
    crowd.delta_scale = crowd5Scale(largest_delta);
    push.scale = crowd.delta_scale;
    push.measure = 0;
    s = pass("createGpuCrowd (v5: the FP16 planes)");
  }
  destroyComputePipeline(context, pack);
  destroyBuffer(context, *largest);
  if (!s) return s;
  if (!finite) {
    return fail(Error::kInvalidArgument,
                "createGpuCrowd: kernel v5: a delta is not finite (NaN or infinity); the matrix "
                "units take FP16 operands scaled from the largest delta (use v4)");
  }
  return Ok{};
}

void writeCrowd5Weights(const GpuCrowdJob& job) {
  GpuCrowd& crowd = *job.crowd;
  const GpuCrowdInfo& info = crowd.info;
  const uint32_t targets = crowd.primitive->info.target_count;
  const size_t stride = crowd5WeightStride(info.instance_count), rows = size_t(info.k_steps) * CROWD5_K;
  // Built in host memory, then copied once: the destination may be write-combined device memory.
  std::vector<uint16_t>& w = crowd.scratch_halves;
  w.assign(2 * rows * stride, 0);
  uint16_t* hi = w.data();
  uint16_t* lo = hi + rows * stride;
  float largest = 0.0f;  // the frame's weights are scaled like the deltas (crowd5Scale)
  for (uint32_t i = 0; i < info.instance_count; ++i) {
    for (float x : job.instances[i].weights) largest = std::max(largest, std::fabs(activeWeight(x, job.epsilon)));
  }
  const float scale = crowd5Scale(largest);
  crowd.inverse_scale = 1.0f / (crowd.delta_scale * scale);  // powers of two in [2^-120, 2^120]: exact
  for (uint32_t i = 0; i < info.instance_count; ++i) {
    const float* weights = job.instances[i].weights.data();
    for (uint32_t t = 0; t < targets; ++t) {
      const float x = activeWeight(weights[t], job.epsilon) * scale;  // the one rule (morphkit/active_targets.h)
      if (x == 0.0f) continue;
      const uint16_t h = floatToHalf(x);
      hi[t * stride + i] = h;
      lo[t * stride + i] = floatToHalf(x - halfToFloat(h));
    }
  }
  std::memcpy(crowd.weights.mapped, w.data(), 2 * w.size());
  // What the product walks: every padded target of every 16-instance tile, per vertex tile.
  crowd.last_entries = uint64_t(info.groups) * (info.group_size / CROWD5_N) * rows;
}

}  // namespace morphkit
