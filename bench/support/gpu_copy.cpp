// SPDX-License-Identifier: MIT
// The copy kernel (copy.comp) and its two uses: the bandwidth ceiling every benchmark row is compared with, and
// the warm-up that brings a GPU's clocks up before anything is timed (morphkit_bench/gpu_bench.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "gpu_internal.h"
#include "morph_shared.h"
#include "morphkit/vk/gpu.h"
#include "morphkit_bench/gpu_bench.h"
#include "morphkit_spirv/copy.h"
#include "vk_context.h"

namespace morphkit {

namespace {

// copy.comp bound to a source and a destination buffer of `bytes` each.
struct CopyKernel {
  ComputePipeline pipeline;
  GpuBuffer src, dst;
  gpu::CopyPush push{};
  uint32_t groups_y = 1;
};

void destroyCopyKernel(VulkanContext& context, CopyKernel& kernel) {
  destroyBuffer(context, kernel.src);
  destroyBuffer(context, kernel.dst);
  destroyComputePipeline(context, kernel.pipeline);
}

Status createCopyKernel(VulkanContext& context, uint64_t bytes, const char* where, CopyKernel& kernel) {
  bytes = std::max<uint64_t>((bytes + 15) & ~uint64_t(15), 16);
  const uint64_t count = bytes / 16;
  const uint64_t per_group = MORPH_COPY_GROUP_SIZE * MORPH_COPY_PER_THREAD;
  const uint64_t groups = (count + per_group - 1) / per_group;
  if (count > UINT32_MAX || groups > uint64_t(MORPH_MAX_GROUPS_X) * MORPH_MAX_GROUPS_X) {
    return fail(Error::kTooLarge,
                std::string(where) + ": " + std::to_string(bytes) + " bytes is too large for one dispatch");
  }
  Status s = createComputePipeline(context, gpu::spirv::kCopy, sizeof(gpu::spirv::kCopy), sizeof(gpu::CopyPush),
                                   kernel.pipeline);
  Expected<GpuBuffer> src = s ? createBuffer(context, bytes, MemoryUse::kDevice) : Expected<GpuBuffer>(s.error());
  if (src) kernel.src = *src;
  Expected<GpuBuffer> dst = src ? createBuffer(context, bytes, MemoryUse::kDevice) : Expected<GpuBuffer>(src.error());
  if (dst) kernel.dst = *dst;
  if (dst) {
    s = submitAndWait(
        context,
        [&](VkCommandBuffer cmd) {
          vkCmdFillBuffer(cmd, kernel.src.buffer, 0, VK_WHOLE_SIZE, 0x3F800000u);
          VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
          barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
          barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                               &barrier, 0, nullptr, 0, nullptr);
        },
        where);
  }
  if (!dst || !s) {
    destroyCopyKernel(context, kernel);
    return dst ? s : Status(dst.error());
  }
  kernel.push.src_address = kernel.src.address;
  kernel.push.dst_address = kernel.dst.address;
  kernel.push.count = uint32_t(count);
  const DispatchGrid grid = dispatchGrid(groups);
  kernel.push.groups_x = grid.x;
  kernel.groups_y = grid.y;
  return Ok{};
}

void recordCopy(const CopyKernel& kernel, VkCommandBuffer cmd) {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.pipeline.pipeline);
  vkCmdPushConstants(cmd, kernel.pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof kernel.push, &kernel.push);
  vkCmdDispatch(cmd, kernel.push.groups_x, kernel.groups_y, 1);
}

// The warm-up's copies: 256 MiB each way on a GPU (about 0.13 ms per copy on an H200); 4 MiB on a CPU
// implementation, which has no clocks to raise (the path still runs, cheaply). Each submission holds enough copies
// for about kSubmitMilliseconds, so the device stays busy between two host waits.
constexpr uint64_t kWarmUpBytes = uint64_t(256) << 20;
constexpr uint64_t kWarmUpBytesCpu = uint64_t(4) << 20;
constexpr double kSubmitMilliseconds = 4.0;
constexpr int kMaxCopiesPerSubmit = 64;

}  // namespace

uint64_t benchCopyBytes(uint64_t requested, const GpuDeviceInfo& device) {
  uint64_t cap = device.max_allocation_bytes;
  if (device.device_local_bytes != 0) cap = std::min(cap, device.device_local_bytes / 4);
  return std::min(requested, cap);
}

Expected<double> measureCopyMicroseconds(VulkanContext& context, uint64_t bytes, uint32_t repetitions) {
  CopyKernel kernel;
  if (Status s = createCopyKernel(context, bytes, "measureCopyMicroseconds", kernel); !s) return s.error();
  double best = std::nan("");
  Status s = Ok{};
  for (uint32_t r = 0; r < std::max(repetitions, 1u) && s; ++r) {
    Expected<double> us = submitTimedCompute(
        context, [&](VkCommandBuffer cmd) { recordCopy(kernel, cmd); }, "measureCopyMicroseconds");
    if (!us)
      s = us.error();
    else if (!std::isnan(*us) && (std::isnan(best) || *us < best))
      best = *us;
  }
  destroyCopyKernel(context, kernel);
  if (!s) return s.error();
  return best;
}

Expected<double> measureReadbackMilliseconds(VulkanContext& context, uint64_t bytes, uint32_t repetitions) {
  const GpuDeviceInfo device = gpuDeviceInfo(context);
  const uint64_t measured = std::max<uint64_t>(16, std::min<uint64_t>(bytes, device.max_allocation_bytes));
  Expected<GpuBuffer> src = createBuffer(context, measured, MemoryUse::kDevice);
  if (!src) return src.error();
  Expected<GpuBuffer> dst = createBuffer(context, measured, MemoryUse::kReadback);
  if (!dst) {
    destroyBuffer(context, *src);
    return dst.error();
  }
  double best = std::nan("");
  Status s = Ok{};
  for (uint32_t r = 0; r < std::max(repetitions, 1u) + 1 && s; ++r) {  // +1: the first touches fresh pages
    const auto start = std::chrono::steady_clock::now();
    s = submitAndWait(
        context,
        [&](VkCommandBuffer cmd) {
          const VkBufferCopy region{0, 0, measured};
          vkCmdCopyBuffer(cmd, src->buffer, dst->buffer, 1, &region);
          VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
          barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
          barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                               nullptr, 0, nullptr);
        },
        "measureReadbackMilliseconds");
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (s && r > 0 && (std::isnan(best) || ms < best)) best = ms;
  }
  destroyBuffer(context, *dst);
  destroyBuffer(context, *src);
  if (!s) return s.error();
  return best * double(std::max<uint64_t>(bytes, 1)) / double(measured);  // scaled when capped at one allocation
}

double warmUpMilliseconds(double requested, const GpuDeviceInfo& device) {
  if (requested >= 0.0) return requested;
  return device.type == GpuDeviceType::kCpu ? 0.0 : kGpuWarmUpMilliseconds;
}

Status warmUpGpu(VulkanContext& context, double milliseconds) {
  const GpuDeviceInfo device = gpuDeviceInfo(context);
  milliseconds = warmUpMilliseconds(milliseconds, device);
  if (!(milliseconds > 0.0)) return Ok{};
  CopyKernel kernel;
  const uint64_t bytes = benchCopyBytes(device.type == GpuDeviceType::kCpu ? kWarmUpBytesCpu : kWarmUpBytes, device);
  if (Status s = createCopyKernel(context, bytes, "warmUpGpu", kernel); !s) return s;
  using Clock = std::chrono::steady_clock;
  const auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  const Clock::time_point start = Clock::now();
  int copies = 1;  // per submission: one at first, then as many as fill kSubmitMilliseconds at the last rate
  Status s = Ok{};
  while (s && ms_since(start) < milliseconds) {
    const Clock::time_point submitted = Clock::now();
    s = submitAndWait(
        context,
        [&](VkCommandBuffer cmd) {
          for (int k = 0; k < copies; ++k) {
            recordCopy(kernel, cmd);
            VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};  // the next copy writes the same destination
            barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
            barrier.dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                 &barrier, 0, nullptr, 0, nullptr);
          }
        },
        "warmUpGpu");
    const double per_copy = std::max(ms_since(submitted), 1e-3) / copies;
    copies = std::clamp(int(kSubmitMilliseconds / per_copy), 1, kMaxCopiesPerSubmit);
  }
  destroyCopyKernel(context, kernel);
  return s;
}

}  // namespace morphkit
