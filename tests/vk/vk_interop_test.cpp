// SPDX-License-Identifier: MIT
// morphkit/vk/gpu_interop.h: a context on a device morphkit does not own, the output description and barrier, and
// dispatches recorded into the caller's command buffer. The "caller's" device here is the suite's validated
// context (synchronization validation on): an external context borrows its handles, so every command the
// record path emits is validated, and objects the external context leaves alive are reported at the owner's
// vkDestroyDevice (VulkanTest::TearDownTestSuite fails on any message).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "morphkit/core/pose.h"
#include "morphkit/core/scene.h"
#include "morphkit/demo/demo.h"
#include "morphkit/vk/gpu_interop.h"
#include "morphkit_bench/gpu_bench.h"
#include "vk_context.h"
#include "vk_interop_support.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

using test::borrow;
using test::CallerFrame;
using test::smallDemo;
using test::VulkanTest;

TEST_F(VulkanTest, ExternalDeviceIsCheckedAndRefusedClearly) {
  MORPHKIT_REQUIRE_GPU(context_);
  const GpuExternalDevice good = borrow(*context_);
  struct Case {
    const char* name;
    GpuExternalDevice device;
    Error code;
    const char* says;
  };
  std::vector<Case> cases;
  cases.push_back({"null device", good, Error::kInvalidArgument, "must all be given"});
  cases.back().device.device = VK_NULL_HANDLE;
  cases.push_back({"Vulkan 1.1 instance", good, Error::kNoDevice, "morphkit needs Vulkan 1.2"});
  cases.back().device.api_version = VK_API_VERSION_1_1;
  cases.push_back({"queue family out of range", good, Error::kInvalidArgument, "queue_family_index 99 out of range"});
  cases.back().device.queue_family_index = 99;
  cases.push_back({"bufferDeviceAddress off", good, Error::kNoDevice, "bufferDeviceAddress was not enabled"});
  cases.back().device.buffer_device_address = false;
  cases.push_back({"shaderInt64 off", good, Error::kNoDevice, "shaderInt64 was not enabled"});
  cases.back().device.shader_int64 = false;
  for (const Case& c : cases) {
    Expected<VulkanContext*> context = createVulkanContextFromDevice(c.device);
    ASSERT_FALSE(context) << c.name;
    EXPECT_EQ(context.error().code, c.code) << c.name;
    EXPECT_NE(context.error().message.find(c.says), std::string::npos) << c.name << ": " << context.error().message;
    EXPECT_EQ(context.error().message.rfind("createVulkanContextFromDevice: ", 0), 0u) << context.error().message;
  }
}

TEST_F(VulkanTest, ExternalContextLeavesTheCallersDeviceAlive) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<VulkanContext*> external = createVulkanContextFromDevice(borrow(*context_));
  ASSERT_TRUE(external) << external.error().message;
  EXPECT_EQ(gpuDeviceInfo(**external).name, gpuDeviceInfo(*context_).name);
  EXPECT_EQ(gpuDeviceInfo(**external).index, gpuDeviceInfo(*context_).index);
  EXPECT_FALSE(gpuDeviceInfo(**external).validation);
  Expected<double> copy = measureCopyMicroseconds(**external, 4096, 1);  // its own pipelines and submissions work
  ASSERT_TRUE(copy) << copy.error().message;
  destroyVulkanContext(*external);
  // The owner's device, queue and instance still work; what the external context made is gone (else the
  // owner's vkDestroyDevice reports it and the suite fails).
  copy = measureCopyMicroseconds(*context_, 4096, 1);
  ASSERT_TRUE(copy) << copy.error().message;
}

// Records two frames into the caller's command buffer and checks each against the CPU pose.
TEST_F(VulkanTest, RecordedPoseMatchesTheCpuPose) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<Asset> asset = smallDemo();
  ASSERT_TRUE(asset) << asset.error().message;
  ASSERT_FALSE(asset->animations.empty());
  Expected<PosePrepared> prepared = preparePose(*asset);
  ASSERT_TRUE(prepared) << prepared.error().message;
  Expected<VulkanContext*> external = createVulkanContextFromDevice(borrow(*context_));
  ASSERT_TRUE(external) << external.error().message;
  Expected<GpuPose*> pose = prepareGpuPose(**external, *prepared);
  ASSERT_TRUE(pose) << pose.error().message;
  const uint32_t instances = gpuPoseInstanceCount(**pose);
  ASSERT_EQ(instances, prepared->instances.size());

  // The output description: the demo's vertices are position, normal, tangent, TEXCOORD_0.
  Expected<GpuOutputBuffer> first = gpuPoseOutput(**pose, 0);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->stride, (3 + 3 + 4 + 2) * 4u);
  EXPECT_EQ(first->position_offset, 0u);
  EXPECT_EQ(first->normal_offset, 12u);
  EXPECT_EQ(first->tangent_offset, 24u);
  EXPECT_EQ(first->extra_offset, 40u);
  EXPECT_EQ(first->texcoord_sets, 1u);
  EXPECT_EQ(first->vertex_count, prepared->primitives[prepared->instances[0].data].vertex_count);
  EXPECT_EQ(first->size, VkDeviceSize(first->vertex_count) * first->stride);
  EXPECT_EQ(first->offset % 256, 0u);
  Expected<GpuOutputBuffer> beyond = gpuPoseOutput(**pose, instances);
  ASSERT_FALSE(beyond);
  EXPECT_EQ(beyond.error().code, Error::kInvalidArgument);

  VkDeviceSize total = 0;
  for (uint32_t i = 0; i < instances; ++i) total += gpuPoseOutput(**pose, i)->size;
  Expected<GpuBuffer> readback = createBuffer(*context_, total, MemoryUse::kReadback);
  ASSERT_TRUE(readback) << readback.error().message;
  CallerFrame frame(*context_);
  const uint32_t readers = kReadByTransfer | (context_->queue_has_graphics ? uint32_t(kReadAsVertexBuffer) : 0u);
  for (double time : {0.2, 0.7}) {
    SCOPED_TRACE("time " + std::to_string(time));
    ASSERT_EQ(vkResetCommandBuffer(frame.cmd, 0), VK_SUCCESS);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    ASSERT_EQ(vkBeginCommandBuffer(frame.cmd, &begin), VK_SUCCESS);
    recordGpuOutputReuseBarrier(frame.cmd, readers);  // the previous frame read the output
    GpuPoseOptions options;
    options.animation = 0;
    options.time = time;
    Status recorded = recordGpuPose(**external, **pose, options, frame.cmd);
    ASSERT_TRUE(recorded) << recorded.error().message;
    const GpuOutputSync sync = gpuOutputSync(readers);
    VkDeviceSize at = 0;
    for (uint32_t i = 0; i < instances; ++i) {
      const GpuOutputBuffer out = *gpuPoseOutput(**pose, i);
      const VkBufferMemoryBarrier barrier = gpuOutputBarrier(out, readers);
      vkCmdPipelineBarrier(frame.cmd, sync.src_stage, sync.dst_stage, 0, 0, nullptr, 1, &barrier, 0, nullptr);
      VkBufferCopy region{out.offset, at, out.size};
      vkCmdCopyBuffer(frame.cmd, out.buffer, readback->buffer, 1, &region);
      at += out.size;
    }
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

    PoseOptions cpu_options;
    cpu_options.animation = 0;
    cpu_options.time = time;
    Expected<PoseResult> cpu = evaluatePose(*prepared, cpu_options);
    ASSERT_TRUE(cpu) << cpu.error().message;
    const auto* gpu = static_cast<const float*>(readback->mapped);
    for (uint32_t i = 0; i < instances; ++i) {
      const GpuOutputBuffer out = *gpuPoseOutput(**pose, i);
      const PosedPrimitive& c = cpu->meshes[i];
      float size = 1e-6f;
      for (float p : c.positions) size = std::max(size, std::fabs(p));
      float position_error = 0, normal_error = 0, tangent_error = 0;
      for (uint32_t v = 0; v < out.vertex_count; ++v) {
        const float* vertex = gpu + (size_t(v) * out.stride) / 4;
        for (int k = 0; k < 3; ++k) {
          position_error =
              std::max(position_error, std::fabs(vertex[out.position_offset / 4 + k] - c.positions[3 * v + k]));
          normal_error = std::max(normal_error, std::fabs(vertex[out.normal_offset / 4 + k] - c.normals[3 * v + k]));
        }
        for (int k = 0; k < 4; ++k) {
          tangent_error =
              std::max(tangent_error, std::fabs(vertex[out.tangent_offset / 4 + k] - c.tangents[4 * v + k]));
        }
      }
      // The GPU tolerances of tests/vk/vk_morph_test.cpp (positions relative to the primitive's size).
      EXPECT_LE(position_error, 1e-5f * size) << "instance " << i;
      EXPECT_LE(normal_error, 1e-4f) << "instance " << i;
      EXPECT_LE(tangent_error, 1e-4f) << "instance " << i;
      gpu += out.size / 4;
    }
  }
  destroyBuffer(*context_, *readback);
  destroyGpuPose(**external, *pose);
  destroyVulkanContext(*external);
}

// recordGpuMorphJob in the caller's command buffer and GpuMorphJob::run write the same bits, for a skinned and a
// rigid instance; gpuMorphGroupOutput describes the range the renderer binds as its vertex buffer
// (gpuMorphGroupOutputRange).
TEST_F(VulkanTest, RecordedJobEqualsRunBitForBit) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<Asset> asset = smallDemo();
  ASSERT_TRUE(asset) << asset.error().message;
  Expected<PosePrepared> prepared = preparePose(*asset);
  ASSERT_TRUE(prepared) << prepared.error().message;
  const PosePrepared::Instance& node_instance = prepared->instances[0];
  const PrimitiveData& data = prepared->primitives[node_instance.data];
  FrameRequest request;
  request.animation = 0;
  request.time = 0.5;
  Expected<SceneState> state = evaluateFrame(*prepared, request);
  ASSERT_TRUE(state) << state.error().message;
  std::vector<float> weights = state->weights[node_instance.node];
  weights.resize(data.targets.size(), 0.0f);
  ASSERT_EQ(asset->skins.size(), 1u);
  const std::vector<DMat4> joints = jointMatrices(*asset, *state, 0, prepared->inverse_bind[0]);
  DMat4 world;
  world(0, 3) = 3.5, world(1, 1) = 2.0;  // a translated, stretched rigid instance

  Expected<VulkanContext*> external = createVulkanContextFromDevice(borrow(*context_));
  ASSERT_TRUE(external) << external.error().message;
  Expected<GpuPrimitive*> primitive = uploadGpuPrimitive(**external, data);
  ASSERT_TRUE(primitive) << primitive.error().message;
  const GpuInstanceDesc descs[] = {{*primitive, true, uint32_t(joints.size())}, {*primitive, false, 0}};
  Expected<GpuMorphGroup*> ran = createGpuMorphGroup(**external, descs);
  ASSERT_TRUE(ran) << ran.error().message;
  Expected<GpuMorphGroup*> recorded = createGpuMorphGroup(**external, descs);
  ASSERT_TRUE(recorded) << recorded.error().message;
  GpuInstanceState states[2];
  states[0].weights = weights;
  states[0].joint_matrices = joints;
  states[1].weights = weights;
  states[1].world = world;

  GpuMorphJob job;
  job.context = *external;
  job.group = *ran;
  job.instances = states;
  Status run = job.run();
  ASSERT_TRUE(run) << run.error().message;

  CallerFrame frame(*context_);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(frame.cmd, &begin), VK_SUCCESS);
  job.group = *recorded;
  Status record = recordGpuMorphJob(job, frame.cmd);
  ASSERT_TRUE(record) << record.error().message;
  const GpuOutputSync sync = gpuOutputSync(kReadByTransfer);
  for (uint32_t i = 0; i < 2; ++i) {
    const VkBufferMemoryBarrier barrier = gpuOutputBarrier(*gpuMorphGroupOutput(**recorded, i), kReadByTransfer);
    vkCmdPipelineBarrier(frame.cmd, sync.src_stage, sync.dst_stage, 0, 0, nullptr, 1, &barrier, 0, nullptr);
  }
  ASSERT_EQ(vkEndCommandBuffer(frame.cmd), VK_SUCCESS);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &frame.cmd;
  ASSERT_EQ(vkQueueSubmit(context_->queue, 1, &submit, VK_NULL_HANDLE), VK_SUCCESS);
  ASSERT_EQ(vkQueueWaitIdle(context_->queue), VK_SUCCESS);

  const VertexFormat format = vertexFormat(data);
  for (uint32_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i == 0 ? "skinned" : "rigid");
    Expected<std::vector<float>> expected = readGpuMorphGroupOutput(**external, **ran, i);
    Expected<std::vector<float>> actual = readGpuMorphGroupOutput(**external, **recorded, i);
    ASSERT_TRUE(expected && actual);
    ASSERT_EQ(expected->size(), actual->size());
    EXPECT_EQ(std::memcmp(expected->data(), actual->data(), expected->size() * sizeof(float)), 0);
    const GpuOutputBuffer out = *gpuMorphGroupOutput(**recorded, i);
    const GpuBufferRange range = gpuMorphGroupOutputRange(**recorded, i);
    EXPECT_EQ(out.buffer, range.buffer);
    EXPECT_EQ(out.offset, range.offset);
    EXPECT_EQ(out.size, range.size);
    EXPECT_EQ(out.size, expected->size() * sizeof(float));
    EXPECT_EQ(out.stride, format.stride * 4);
    EXPECT_EQ(out.normal_offset, format.normal * 4);
    EXPECT_EQ(out.tangent_offset, format.tangent * 4);
    EXPECT_EQ(out.extra_offset, format.extra * 4);
  }
  destroyGpuMorphGroup(**external, *ran);
  destroyGpuMorphGroup(**external, *recorded);
  destroyGpuPrimitive(**external, *primitive);
  destroyVulkanContext(*external);
}

TEST_F(VulkanTest, RecordRefusesAnInvalidJob) {
  MORPHKIT_REQUIRE_GPU(context_);
  GpuMorphJob job;  // no context, no batch
  Status s = recordGpuMorphJob(job, VK_NULL_HANDLE);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Error::kInvalidArgument);
}

TEST(GpuInterop, OutputBarrierNamesTheComputeWriteAndTheReaders) {
  GpuOutputBuffer out;
  out.buffer = VkBuffer(uintptr_t(0x1234));
  out.offset = 512;
  out.size = 4800;
  const VkBufferMemoryBarrier vertex = gpuOutputBarrier(out);
  EXPECT_EQ(vertex.sType, VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER);
  EXPECT_EQ(vertex.srcAccessMask, VkAccessFlags(VK_ACCESS_SHADER_WRITE_BIT));
  EXPECT_EQ(vertex.dstAccessMask, VkAccessFlags(VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT));
  EXPECT_EQ(vertex.srcQueueFamilyIndex, VK_QUEUE_FAMILY_IGNORED);
  EXPECT_EQ(vertex.buffer, out.buffer);
  EXPECT_EQ(vertex.offset, 512u);
  EXPECT_EQ(vertex.size, 4800u);
  const GpuOutputSync sync = gpuOutputSync();
  EXPECT_EQ(sync.src_stage, VkPipelineStageFlags(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT));
  EXPECT_EQ(sync.dst_stage, VkPipelineStageFlags(VK_PIPELINE_STAGE_VERTEX_INPUT_BIT));
  const VkBufferMemoryBarrier2 both = gpuOutputBarrier2(out, kReadAsVertexBuffer | kReadByTransfer);
  EXPECT_EQ(both.sType, VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2);
  EXPECT_EQ(both.srcStageMask, VkPipelineStageFlags2(VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT));
  EXPECT_EQ(both.srcAccessMask, VkAccessFlags2(VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT));
  EXPECT_EQ(both.dstStageMask,
            VkPipelineStageFlags2(VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT | VK_PIPELINE_STAGE_2_COPY_BIT));
  EXPECT_EQ(both.dstAccessMask, VkAccessFlags2(VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT));
  EXPECT_EQ(both.offset, 512u);
  EXPECT_EQ(both.size, 4800u);
}

}  // namespace
}  // namespace morphkit
