// SPDX-License-Identifier: MIT
// Submissions on the context's compute queue (vk_context.h): one at a time and waited for (submitAndWait,
// submitTimedCompute with its timestamps), or kept in flight while the CPU works on (InFlightSubmission).
#include <cmath>
#include <functional>
#include <string>

#include "vk_context.h"

namespace morphkit {
namespace {

constexpr uint64_t kFenceTimeoutNs = 120ull * 1000 * 1000 * 1000;  // lavapipe under ASan is slow; 2 minutes

}  // namespace

Status submitAndWait(VulkanContext& context, const std::function<void(VkCommandBuffer)>& record, const char* where) {
  VkCommandBuffer cmd = context.command_buffer;
  VkResult r = vkResetCommandBuffer(cmd, 0);
  if (r != VK_SUCCESS) return vulkanFailure(std::string(where) + ": vkResetCommandBuffer", r);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  r = vkBeginCommandBuffer(cmd, &begin);
  if (r != VK_SUCCESS) return vulkanFailure(std::string(where) + ": vkBeginCommandBuffer", r);
  record(cmd);
  r = vkEndCommandBuffer(cmd);
  if (r != VK_SUCCESS) return vulkanFailure(std::string(where) + ": vkEndCommandBuffer", r);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  r = vkQueueSubmit(context.queue, 1, &submit, context.fence);
  if (r != VK_SUCCESS) return vulkanFailure(std::string(where) + ": vkQueueSubmit", r);
  r = vkWaitForFences(context.device, 1, &context.fence, VK_TRUE, kFenceTimeoutNs);
  VkResult reset = vkResetFences(context.device, 1, &context.fence);
  if (r != VK_SUCCESS) {
    if (r == VK_TIMEOUT) vkDeviceWaitIdle(context.device);
    return vulkanFailure(std::string(where) + ": vkWaitForFences", r);
  }
  if (reset != VK_SUCCESS) return vulkanFailure(std::string(where) + ": vkResetFences", reset);
  return Ok{};
}

Status createInFlightSubmission(VulkanContext& context, InFlightSubmission& submission) {
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = context.command_pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkResult r = vkAllocateCommandBuffers(context.device, &alloc, &submission.cmd);
  if (r != VK_SUCCESS) return vulkanFailure("vkAllocateCommandBuffers", r);
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  r = vkCreateFence(context.device, &fence_info, nullptr, &submission.fence);
  if (r != VK_SUCCESS) {
    destroyInFlightSubmission(context, submission);
    return vulkanFailure("vkCreateFence", r);
  }
  return Ok{};
}

void destroyInFlightSubmission(VulkanContext& context, InFlightSubmission& submission) {
  if (submission.pending) (void)waitInFlight(context, submission, "destroyInFlightSubmission");
  if (submission.fence) vkDestroyFence(context.device, submission.fence, nullptr);
  if (submission.cmd) vkFreeCommandBuffers(context.device, context.command_pool, 1, &submission.cmd);
  submission = InFlightSubmission{};
}

Status beginInFlight(VulkanContext& context, InFlightSubmission& submission, const char* where) {
  if (Status s = waitInFlight(context, submission, where); !s) return s;
  VkResult r = vkResetCommandBuffer(submission.cmd, 0);
  if (r != VK_SUCCESS) return vulkanFailure(std::string(where) + ": vkResetCommandBuffer", r);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  r = vkBeginCommandBuffer(submission.cmd, &begin);
  if (r != VK_SUCCESS) return vulkanFailure(std::string(where) + ": vkBeginCommandBuffer", r);
  return Ok{};
}

Status submitInFlight(VulkanContext& context, InFlightSubmission& submission, const char* where) {
  VkResult r = vkEndCommandBuffer(submission.cmd);
  if (r != VK_SUCCESS) return vulkanFailure(std::string(where) + ": vkEndCommandBuffer", r);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &submission.cmd;
  r = vkQueueSubmit(context.queue, 1, &submit, submission.fence);
  if (r != VK_SUCCESS) return vulkanFailure(std::string(where) + ": vkQueueSubmit", r);
  submission.pending = true;
  return Ok{};
}

Status waitInFlight(VulkanContext& context, InFlightSubmission& submission, const char* where) {
  if (!submission.pending) return Ok{};
  submission.pending = false;
  VkResult r = vkWaitForFences(context.device, 1, &submission.fence, VK_TRUE, kFenceTimeoutNs);
  VkResult reset = vkResetFences(context.device, 1, &submission.fence);
  if (r != VK_SUCCESS) {
    if (r == VK_TIMEOUT) vkDeviceWaitIdle(context.device);
    return vulkanFailure(std::string(where) + ": vkWaitForFences", r);
  }
  if (reset != VK_SUCCESS) return vulkanFailure(std::string(where) + ": vkResetFences", reset);
  return Ok{};
}

double readTimestampMicroseconds(VulkanContext& context) {
  if (!context.timestamps) return std::nan("");
  uint64_t ticks[2] = {0, 0};
  VkResult r = vkGetQueryPoolResults(context.device, context.timestamps, 0, 2, sizeof ticks, ticks, sizeof(uint64_t),
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (r != VK_SUCCESS || ticks[1] < ticks[0]) return std::nan("");
  return double(ticks[1] - ticks[0]) * context.info.timestamp_period_ns / 1000.0;
}

Expected<double> submitTimedCompute(VulkanContext& context, const std::function<void(VkCommandBuffer)>& record,
                                    const char* where) {
  Status s = submitAndWait(
      context,
      [&](VkCommandBuffer cmd) {
        if (context.timestamps) {
          vkCmdResetQueryPool(cmd, context.timestamps, 0, 2);
          vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, context.timestamps, 0);
        }
        record(cmd);
        if (context.timestamps) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, context.timestamps, 1);
        computeWriteBarrier(context, cmd);
      },
      where);
  if (!s) return s.error();
  return readTimestampMicroseconds(context);
}

void computeWriteBarrier(const VulkanContext& context, VkCommandBuffer cmd) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_SHADER_READ_BIT;
  VkPipelineStageFlags dst = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  if (context.queue_has_graphics) {
    barrier.dstAccessMask |= VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT;
    dst |= VK_PIPELINE_STAGE_VERTEX_INPUT_BIT;
  }
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, dst, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace morphkit
