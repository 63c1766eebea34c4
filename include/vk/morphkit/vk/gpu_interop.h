// SPDX-License-Identifier: MIT
// morphkit/vk/gpu_interop.h — morphkit inside an engine's Vulkan frame (vk component; docs/ENGINE_INTEROP.md).
//
// The only public header that includes <vulkan/vulkan.h>. It adds three doors to morphkit/vk/gpu.h:
//   1. createVulkanContextFromDevice: a context on the caller's VkInstance / VkPhysicalDevice / VkDevice /
//      VkQueue. morphkit never destroys them; it creates (and destroyVulkanContext destroys) only its own objects:
//      a command pool + buffer + fence for uploads and readbacks, a timestamp query pool, and the buffers of its
//      primitives and groups (each group with its morph compute pipeline, destroyed with the group).
//   2. gpuMorphGroupOutput / gpuPoseOutput / gpuCrowdOutput: the deformed vertices as a VkBuffer range with its vertex
//   layout, and the
//      barrier to issue between the dispatch and the first read (gpuOutputBarrier / gpuOutputBarrier2).
//   3. recordGpuMorphJob / recordGpuPose / recordGpuCrowdJob: write the frame's weights and matrices, then record the
//   morph + skin
//      dispatch into the caller's command buffer without submitting.
//
// Synchronization contract (the caller's side):
//   - uploadGpuPrimitive, createGpuMorphGroup, prepareGpuPose, GpuMorphJob::run, evaluateGpuPose and the
//   readGpuMorphGroup*
//     functions submit to `queue` and wait for their own fence: the caller must not use the queue from another
//     thread meanwhile (Vulkan: vkQueueSubmit needs external synchronization of the queue).
//   - A group has one copy of its weights, active lists and matrices, in host-visible memory that record*() writes
//     at record time. Record a group again only once the GPU finished the previous submission that holds its
//     dispatch (your frame fence); with several frames in flight, make one group (or GpuPose) per frame.
//   - Between a dispatch and the next one on the same group, the previous frame's reads of the output must be
//     finished or ordered: record gpuOutputReuseBarrier (a read → compute-write execution dependency) first.
//   - Destroy morphkit's objects (groups, primitives, poses, then the context) only when the GPU no longer runs
//     any command buffer that uses them; morphkit does not vkDeviceWaitIdle a device it does not own.
#pragma once
#include <vulkan/vulkan.h>

#include <cstdint>

#include "morphkit/model/error.h"
#include "morphkit/vk/gpu.h"
#include "morphkit/vk/gpu_crowd.h"
#include "morphkit/vk/gpu_pose.h"

namespace morphkit {

// ---- 1. The caller's device ----
// Vulkan has no query for the features a VkDevice was created with, so the caller states them. morphkit needs
// (and createVulkanContextFromDevice checks on the physical device and in these flags): Vulkan 1.2 on the instance
// (`api_version`, as passed in VkApplicationInfo::apiVersion) and the device, a queue family with
// VK_QUEUE_COMPUTE_BIT, VkPhysicalDeviceVulkan12Features::bufferDeviceAddress and VkPhysicalDeviceFeatures::
// shaderInt64. storageBuffer16BitAccess is optional (f16 deltas are then read as float16_t; else a kernel
// variant converts them).
struct GpuExternalDevice {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;  // one of instance's devices
  VkDevice device = VK_NULL_HANDLE;                   // created from physical_device
  VkQueue queue = VK_NULL_HANDLE;                     // a queue of queue_family_index on device
  uint32_t queue_family_index = 0;                    // must support VK_QUEUE_COMPUTE_BIT
  uint32_t api_version = 0;                           // the instance's VkApplicationInfo::apiVersion (>= 1.2)
  // What the caller enabled in VkDeviceCreateInfo (its pNext chain / pEnabledFeatures).
  bool buffer_device_address = false;        // required
  bool shader_int64 = false;                 // required
  bool storage_buffer_16bit_access = false;  // optional
};

// Checks the device (kNoDevice naming the first missing requirement, kInvalidArgument for a null handle or a
// queue family out of range), then creates morphkit's own objects on it. gpuDeviceInfo() describes the device;
// its `validation` is false and gpuValidationMessages() stays empty: the caller owns the instance and its
// debug messengers. destroyVulkanContext destroys only what morphkit created.
Expected<VulkanContext*> createVulkanContextFromDevice(const GpuExternalDevice& device);

// ---- 2. The deformed output ----
// One instance's deformed vertices, interleaved 32-bit floats (morphkit/pack/packed_deltas.h VertexFormat, in bytes
// here): position xyz at +0 (VK_FORMAT_R32G32B32_SFLOAT), normal xyz (R32G32B32_SFLOAT), tangent xyzw
// (R32G32B32A32_SFLOAT, w = handedness), then texcoords and colors copied from the base vertices.
// The buffer has VERTEX_BUFFER | STORAGE_BUFFER | TRANSFER_SRC usage: bind it with
// vkCmdBindVertexBuffers(cmd, binding, 1, &buffer, &offset) and stride `stride`. Valid until the group is destroyed.
struct GpuOutputBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;  // bytes; a multiple of 256
  VkDeviceSize size = 0;    // bytes: vertex_count × stride
  uint32_t vertex_count = 0;
  uint32_t stride = 0;                      // bytes per vertex
  uint32_t position_offset = 0;             // bytes from the vertex start
  uint32_t normal_offset = kLayoutAbsent;   // bytes, or kLayoutAbsent (morphkit/pack/packed_deltas.h)
  uint32_t tangent_offset = kLayoutAbsent;  // bytes, or kLayoutAbsent
  uint32_t extra_offset = kLayoutAbsent;    // first texcoord (then colors), bytes, or kLayoutAbsent
  uint32_t texcoord_sets = 0, color_sets = 0;
};

// kInvalidArgument when `instance` is out of range.
Expected<GpuOutputBuffer> gpuMorphGroupOutput(const GpuMorphGroup& group, uint32_t instance);
// The GpuPose's instances are one per (node, primitive), sorted by node, mesh, primitive — the order of
// PoseResult::meshes. The positions, normals and tangents are in world space, as in PoseResult.
uint32_t gpuPoseInstanceCount(const GpuPose& pose);
Expected<GpuOutputBuffer> gpuPoseOutput(const GpuPose& pose, uint32_t instance);

// A crowd (morphkit/vk/gpu_crowd.h) writes all its instances into one buffer: instance i at i × instance_bytes. Every
// instance's range is a GpuOutputBuffer of the same layout; bind the whole buffer once and step `offset`, or use it as
// an instanced vertex source. kInvalidArgument when `instance` is out of range.
Expected<GpuOutputBuffer> gpuCrowdOutput(const GpuCrowd& crowd, uint32_t instance);

// Who reads the output after the dispatch (bits; any combination).
enum GpuOutputReaders : uint32_t {
  kReadAsVertexBuffer = 1u << 0,  // vertex input (needs a graphics-capable queue family)
  kReadByTransfer = 1u << 1,      // vkCmdCopyBuffer from it (a readback)
  kReadByShader = 1u << 2,        // a later compute shader reads it as a storage buffer
};

// The dependency between record*() and the first read: compute-shader storage writes → the readers' stages.
// The legacy and synchronization2 spellings carry the same bits.
struct GpuOutputSync {
  VkPipelineStageFlags src_stage = 0, dst_stage = 0;  // for vkCmdPipelineBarrier
  VkAccessFlags src_access = 0, dst_access = 0;
  VkPipelineStageFlags2 src_stage2 = 0, dst_stage2 = 0;  // for vkCmdPipelineBarrier2 (Vulkan 1.3 / synchronization2)
  VkAccessFlags2 src_access2 = 0, dst_access2 = 0;
};
GpuOutputSync gpuOutputSync(uint32_t readers = kReadAsVertexBuffer);

// A VkBufferMemoryBarrier over `output`'s range with gpuOutputSync(readers)'s access masks, no queue family
// transfer. Pass it to vkCmdPipelineBarrier(cmd, sync.src_stage, sync.dst_stage, 0, 0, nullptr, 1, &barrier, 0,
// nullptr).
VkBufferMemoryBarrier gpuOutputBarrier(const GpuOutputBuffer& output, uint32_t readers = kReadAsVertexBuffer);
// The same as a VkBufferMemoryBarrier2 (stages included) for vkCmdPipelineBarrier2 / VkDependencyInfo.
VkBufferMemoryBarrier2 gpuOutputBarrier2(const GpuOutputBuffer& output, uint32_t readers = kReadAsVertexBuffer);
// Before re-recording a group whose output an earlier command in the same queue read: an execution dependency
// readers' stages → compute shader (write-after-read needs no memory barrier). Records vkCmdPipelineBarrier.
void recordGpuOutputReuseBarrier(VkCommandBuffer cmd, uint32_t readers = kReadAsVertexBuffer);

// ---- 3. Recording into the caller's command buffer ----
// Validates `job` (GpuMorphJob::validate), writes its weights, active lists and matrices into the group's host-
// visible memory, and records into `cmd` (recording state, allocated from a pool of job.context's queue family):
// vkCmdBindPipeline(COMPUTE, morphkit's pipeline), vkCmdPushConstants, vkCmdDispatch. No barrier and no submit:
// issue gpuOutputBarrier before reading the output. Rebind your own compute pipeline and push constants after.
// No timestamps are written (lastDispatchMicroseconds reports GpuMorphJob::run only).
Status recordGpuMorphJob(const GpuMorphJob& job, VkCommandBuffer cmd);

// The same for a crowd: checkGpuCrowdJob, then the frame's unions, weights and matrices written into the crowd's
// host-visible memory, then vkCmdBindPipeline + vkCmdPushConstants + one vkCmdDispatch recorded into `cmd`. The
// same contract as recordGpuMorphJob (one copy of the per-frame data: re-record only after the GPU finished).
Status recordGpuCrowdJob(const GpuCrowdJob& job, VkCommandBuffer cmd);

// The GPU twin of evaluatePose, recorded: samples the animation and evaluates the scene on the CPU exactly as
// evaluateGpuPose does, then recordGpuMorphJob over every instance. The output (gpuPoseOutput) holds the pose
// once the submission of `cmd` passed the barrier.
Status recordGpuPose(VulkanContext& context, GpuPose& pose, const GpuPoseOptions& options, VkCommandBuffer cmd);

}  // namespace morphkit
