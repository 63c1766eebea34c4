// SPDX-License-Identifier: MIT
// morphkit/vk/gpu_interop.h's output used as what it is for: a vertex buffer. A graphics pipeline built from the
// GpuOutputBuffer description alone draws the deformed vertices (tests/shaders/interop_draw.*) on the suite's
// validated device, lent to an external context as in tests/vk/vk_interop_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "morphkit/core/pose.h"
#include "morphkit_test_spirv/interop_draw_frag.h"
#include "morphkit_test_spirv/interop_draw_vert.h"
#include "vk_interop_support.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

using test::borrow;
using test::CallerFrame;
using test::smallDemo;
using test::VulkanTest;

// A float color attachment the test draws into, with a readback buffer.
struct Target {
  VkDevice device = VK_NULL_HANDLE;
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  GpuBuffer readback;
  VulkanContext* context = nullptr;
  Target(VulkanContext& owner, uint32_t width, uint32_t height) : device(owner.device), context(&owner) {
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = VK_FORMAT_R32G32B32A32_SFLOAT;
    info.extent = {width, height, 1};
    info.mipLevels = info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    EXPECT_EQ(vkCreateImage(device, &info, nullptr, &image), VK_SUCCESS);
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, image, &req);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, req.size,
                               *findMemoryType(owner, req.memoryTypeBits, MemoryUse::kDevice)};
    EXPECT_EQ(vkAllocateMemory(device, &alloc, nullptr, &memory), VK_SUCCESS);
    EXPECT_EQ(vkBindImageMemory(device, image, memory, 0), VK_SUCCESS);
    VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view_info.image = image;
    view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view_info.format = info.format;
    view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    EXPECT_EQ(vkCreateImageView(device, &view_info, nullptr, &view), VK_SUCCESS);
    readback = *createBuffer(owner, VkDeviceSize(width) * height * 16, MemoryUse::kReadback);
  }
  ~Target() {
    destroyBuffer(*context, readback);
    vkDestroyImageView(device, view, nullptr);
    vkDestroyImage(device, image, nullptr);
    vkFreeMemory(device, memory, nullptr);
  }
};

Expected<VkShaderModule> shaderModule(VkDevice device, const uint32_t* words, size_t bytes) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, nullptr, 0, bytes, words};
  VkShaderModule module = VK_NULL_HANDLE;
  if (VkResult r = vkCreateShaderModule(device, &info, nullptr, &module); r != VK_SUCCESS)
    return vulkanFailure("vkCreateShaderModule", r);
  return module;
}

// Render pass with two R32G32B32A32 attachments, cleared, left in TRANSFER_SRC for the readback copies.
VkResult createTwoTargetPass(VkDevice device, VkRenderPass& pass) {
  VkAttachmentDescription attachment{0,
                                     VK_FORMAT_R32G32B32A32_SFLOAT,
                                     VK_SAMPLE_COUNT_1_BIT,
                                     VK_ATTACHMENT_LOAD_OP_CLEAR,
                                     VK_ATTACHMENT_STORE_OP_STORE,
                                     VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                                     VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                     VK_IMAGE_LAYOUT_UNDEFINED,
                                     VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
  const VkAttachmentDescription attachments[] = {attachment, attachment};
  const VkAttachmentReference refs[] = {{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL},
                                        {1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL}};
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = 2;
  subpass.pColorAttachments = refs;
  // The attachments' writes → the copies after the render pass (the final layout transition is inside it).
  VkSubpassDependency after{0,
                            VK_SUBPASS_EXTERNAL,
                            VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                            VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                            VK_ACCESS_TRANSFER_READ_BIT,
                            0};
  VkRenderPassCreateInfo pass_info{
      VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, nullptr, 0, 2, attachments, 1, &subpass, 1, &after};
  return vkCreateRenderPass(device, &pass_info, nullptr, &pass);
}

// The points pipeline: its vertex input state is gpuPoseOutput's description (binding stride, position and normal
// offsets), nothing else; no blending, no depth.
VkResult createPointPipeline(VkDevice device, const GpuOutputBuffer& out, VkRenderPass pass, VkPipelineLayout layout,
                             uint32_t width, uint32_t height, VkPipeline& pipeline) {
  Expected<VkShaderModule> vert =
      shaderModule(device, gpu::spirv::kInteropDraw_vert, sizeof gpu::spirv::kInteropDraw_vert);
  Expected<VkShaderModule> frag =
      shaderModule(device, gpu::spirv::kInteropDraw_frag, sizeof gpu::spirv::kInteropDraw_frag);
  if (!vert || !frag) return VK_ERROR_INITIALIZATION_FAILED;
  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT, stages[0].module = *vert, stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT, stages[1].module = *frag, stages[1].pName = "main";
  // The vertex input state is gpuPoseOutput's description, nothing else.
  VkVertexInputBindingDescription binding{0, out.stride, VK_VERTEX_INPUT_RATE_VERTEX};
  const VkVertexInputAttributeDescription attributes[] = {{0, 0, VK_FORMAT_R32G32B32_SFLOAT, out.position_offset},
                                                          {1, 0, VK_FORMAT_R32G32B32_SFLOAT, out.normal_offset}};
  VkPipelineVertexInputStateCreateInfo input{
      VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO, nullptr, 0, 1, &binding, 2, attributes};
  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
  VkViewport viewport{0, 0, float(width), float(height), 0, 1};
  VkRect2D scissor{{0, 0}, {width, height}};
  VkPipelineViewportStateCreateInfo viewport_state{
      VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO, nullptr, 0, 1, &viewport, 1, &scissor};
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask =
      VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  const VkPipelineColorBlendAttachmentState blends[] = {blend, blend};
  VkPipelineColorBlendStateCreateInfo blend_state{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blend_state.attachmentCount = 2;
  blend_state.pAttachments = blends;
  VkGraphicsPipelineCreateInfo pipeline_info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  pipeline_info.stageCount = 2;
  pipeline_info.pStages = stages;
  pipeline_info.pVertexInputState = &input;
  pipeline_info.pInputAssemblyState = &assembly;
  pipeline_info.pViewportState = &viewport_state;
  pipeline_info.pRasterizationState = &raster;
  pipeline_info.pMultisampleState = &multisample;
  pipeline_info.pColorBlendState = &blend_state;
  pipeline_info.layout = layout;
  pipeline_info.renderPass = pass;
  const VkResult r = vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &pipeline_info, nullptr, &pipeline);
  vkDestroyShaderModule(device, *vert, nullptr);
  vkDestroyShaderModule(device, *frag, nullptr);
  return r;
}

// The output is drawn as a vertex buffer: a pipeline whose vertex input is exactly gpuPoseOutput's description
// (binding stride, position and normal offsets) draws each vertex as a point and writes its attributes into
// float attachments; they must equal, bit for bit, a plain copy of the same range.
TEST_F(VulkanTest, OutputDrawsAsAVertexBuffer) {
  MORPHKIT_REQUIRE_GPU(context_);
  ASSERT_TRUE(context_->queue_has_graphics) << "the test draws: it needs a graphics + compute queue (lavapipe has one)";
  Expected<Asset> asset = smallDemo();
  ASSERT_TRUE(asset) << asset.error().message;
  Expected<PosePrepared> prepared = preparePose(*asset);
  ASSERT_TRUE(prepared) << prepared.error().message;
  Expected<VulkanContext*> external = createVulkanContextFromDevice(borrow(*context_));
  ASSERT_TRUE(external) << external.error().message;
  Expected<GpuPose*> pose = prepareGpuPose(**external, *prepared);
  ASSERT_TRUE(pose) << pose.error().message;
  const GpuOutputBuffer out = *gpuPoseOutput(**pose, 0);
  ASSERT_NE(out.normal_offset, kLayoutAbsent);
  const uint32_t width = 32, height = (out.vertex_count + width - 1) / width;
  VkDevice device = context_->device;

  // Render pass, framebuffer and pipeline: two R32G32B32A32 attachments, points, no blending, no depth.
  Target positions(*context_, width, height), normals(*context_, width, height);
  VkRenderPass pass = VK_NULL_HANDLE;
  ASSERT_EQ(createTwoTargetPass(device, pass), VK_SUCCESS);
  const VkImageView views[] = {positions.view, normals.view};
  VkFramebufferCreateInfo fb_info{
      VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO, nullptr, 0, pass, 2, views, width, height, 1};
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateFramebuffer(device, &fb_info, nullptr, &framebuffer), VK_SUCCESS);
  VkPushConstantRange push_range{VK_SHADER_STAGE_VERTEX_BIT, 0, 8};
  VkPipelineLayoutCreateInfo layout_info{
      VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, nullptr, 0, 0, nullptr, 1, &push_range};
  VkPipelineLayout layout = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreatePipelineLayout(device, &layout_info, nullptr, &layout), VK_SUCCESS);
  VkPipeline pipeline = VK_NULL_HANDLE;
  ASSERT_EQ(createPointPipeline(device, out, pass, layout, width, height, pipeline), VK_SUCCESS);

  // One frame: dispatch, barrier, a copy of the range and the draw from it, then the attachments read back.
  Expected<GpuBuffer> copied = createBuffer(*context_, out.size, MemoryUse::kReadback);
  ASSERT_TRUE(copied) << copied.error().message;
  CallerFrame frame(*context_);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(frame.cmd, &begin), VK_SUCCESS);
  GpuPoseOptions options;
  options.animation = 0;
  options.time = 0.6;
  Status recorded = recordGpuPose(**external, **pose, options, frame.cmd);
  ASSERT_TRUE(recorded) << recorded.error().message;
  const uint32_t readers = kReadAsVertexBuffer | kReadByTransfer;
  const GpuOutputSync sync = gpuOutputSync(readers);
  const VkBufferMemoryBarrier barrier = gpuOutputBarrier(out, readers);
  vkCmdPipelineBarrier(frame.cmd, sync.src_stage, sync.dst_stage, 0, 0, nullptr, 1, &barrier, 0, nullptr);
  VkBufferCopy region{out.offset, 0, out.size};
  vkCmdCopyBuffer(frame.cmd, out.buffer, copied->buffer, 1, &region);
  VkClearValue clear[2] = {};
  const VkRect2D scissor{{0, 0}, {width, height}};
  VkRenderPassBeginInfo pass_begin{
      VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, nullptr, pass, framebuffer, scissor, 2, clear};
  vkCmdBeginRenderPass(frame.cmd, &pass_begin, VK_SUBPASS_CONTENTS_INLINE);
  vkCmdBindPipeline(frame.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  const uint32_t push[2] = {width, height};
  vkCmdPushConstants(frame.cmd, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof push, push);
  vkCmdBindVertexBuffers(frame.cmd, 0, 1, &out.buffer, &out.offset);
  vkCmdDraw(frame.cmd, out.vertex_count, 1, 0, 0);
  vkCmdEndRenderPass(frame.cmd);
  VkBufferImageCopy image_region{0, 0, 0, {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, {0, 0, 0}, {width, height, 1}};
  vkCmdCopyImageToBuffer(frame.cmd, positions.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, positions.readback.buffer, 1,
                         &image_region);
  vkCmdCopyImageToBuffer(frame.cmd, normals.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, normals.readback.buffer, 1,
                         &image_region);
  VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(frame.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
                       nullptr, 0, nullptr);
  ASSERT_EQ(vkEndCommandBuffer(frame.cmd), VK_SUCCESS);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &frame.cmd;
  ASSERT_EQ(vkQueueSubmit(context_->queue, 1, &submit, VK_NULL_HANDLE), VK_SUCCESS);
  ASSERT_EQ(vkQueueWaitIdle(context_->queue), VK_SUCCESS);

  const auto* vertices = static_cast<const float*>(copied->mapped);
  const auto* drawn_positions = static_cast<const float*>(positions.readback.mapped);
  const auto* drawn_normals = static_cast<const float*>(normals.readback.mapped);
  uint32_t mismatches = 0, not_unit = 0;
  for (uint32_t v = 0; v < out.vertex_count; ++v) {
    const float* vertex = vertices + size_t(v) * out.stride / 4;
    mismatches += std::memcmp(drawn_positions + 4 * v, vertex + out.position_offset / 4, 12) != 0;
    mismatches += std::memcmp(drawn_normals + 4 * v, vertex + out.normal_offset / 4, 12) != 0;
    const float* n = drawn_normals + 4 * v;  // unit length: the pose was written, not the clear value 0
    not_unit += std::fabs(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0f) > 1e-4f;
  }
  EXPECT_EQ(mismatches, 0u) << "of " << 2 * out.vertex_count << " attributes drawn from the vertex buffer";
  EXPECT_EQ(not_unit, 0u);

  destroyBuffer(*context_, *copied);
  vkDestroyPipeline(device, pipeline, nullptr);
  vkDestroyPipelineLayout(device, layout, nullptr);
  vkDestroyFramebuffer(device, framebuffer, nullptr);
  vkDestroyRenderPass(device, pass, nullptr);
  destroyGpuPose(**external, *pose);
  destroyVulkanContext(*external);
}

}  // namespace
}  // namespace morphkit
