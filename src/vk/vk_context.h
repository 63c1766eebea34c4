// SPDX-License-Identifier: MIT
// vk_context.h — internal: the Vulkan objects behind morphkit/vk/gpu.h's typed handles. Plain structs with
// createX/destroyX free functions and one owner (the VulkanContext owns the instance, device, queue,
// command pool; buffers, images and compute pipelines, all created in vk_resources.cpp, are owned by whoever
// created them: the morph pipeline by a GpuMorphGroup, the render targets by a renderer).
#pragma once
#include <vulkan/vulkan.h>

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "morphkit/model/error.h"
#include "morphkit/vk/gpu.h"

namespace morphkit {

struct VulkanContext {
  bool owns_device = true;  // false: the caller's instance and device (createVulkanContextFromDevice)
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  bool queue_has_graphics = false;  // the barrier after a dispatch may name the vertex-input stage
  // VK_KHR_pipeline_executable_properties enabled: compute pipelines capture the driver's statistics (registers,
  // …) and internal representations for the benchmarks (pipelineStatistics, pipelineReport). Only on devices morphkit
  // creates, when GpuContextOptions asks for it and the driver offers it.
  bool pipeline_statistics = false;
  // multiDrawIndirect enabled (devices morphkit creates, when offered): one indirect draw may hold many commands.
  bool multi_draw_indirect = false;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceMemoryProperties memory{};
  VkDeviceSize max_allocation = 0;
  VkCommandPool command_pool = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkQueryPool timestamps = VK_NULL_HANDLE;  // 2 queries: before and after a dispatch
  GpuDeviceInfo info;
  // Compute and graphics pipelines created on this context so far: the cost a worker that reuses its context pays
  // once (the group's tests count them).
  uint64_t pipelines_created = 0;

  std::mutex messages_mutex;  // the messenger may be called from driver threads
  std::vector<std::string> messages;
};

// Fills context.properties, memory, max_allocation, queue_has_graphics and info from context.physical and
// context.queue_family (`index`: the device's place in vkEnumeratePhysicalDevices order).
void describeDevice(VulkanContext& context, uint32_t index);
// Creates what the context owns on context.device: command pool + buffer, fence, timestamp pool, pipelines.
Status createContextObjects(VulkanContext& context);
// Sanitizer builds: keeps the loaded Vulkan drivers and layers from being unloaded (see vk_context.cpp).
void pinDriversForLeakSanitizer();

// "<where>: <VkResult name>" with the code mapped: OUT_OF_*_MEMORY → kOutOfMemory, DEVICE_LOST → kDeviceLost.
Failure vulkanFailure(const std::string& where, VkResult result);
// Ok for VK_SUCCESS, else vulkanFailure(where, r): the one way a Vulkan result becomes a Status.
Status checkVk(VkResult r, const char* where);
const char* vkResultName(VkResult result);

enum class MemoryUse : uint8_t {
  kDevice,    // DEVICE_LOCAL (required)
  kUpload,    // HOST_VISIBLE | HOST_COHERENT (required), DEVICE_LOCAL preferred; persistently mapped
  kReadback,  // HOST_VISIBLE | HOST_COHERENT (required), HOST_CACHED preferred; persistently mapped
};

// A memory type index for `type_bits` with the `use`'s required flags, or kVulkan naming the missing flags.
// Never falls back to an arbitrary type.
Expected<uint32_t> findMemoryType(const VulkanContext& context, uint32_t type_bits, MemoryUse use);

// One VkBuffer with its own allocation, created with SHADER_DEVICE_ADDRESS so kernels reach it by address.
struct GpuBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  VkDeviceAddress address = 0;
  void* mapped = nullptr;  // kUpload / kReadback
};

// `size` 0 becomes 16 (Vulkan forbids empty buffers). Extra `usage` bits are added to
// STORAGE | SHADER_DEVICE_ADDRESS | TRANSFER_SRC | TRANSFER_DST.
Expected<GpuBuffer> createBuffer(VulkanContext& context, VkDeviceSize size, MemoryUse use,
                                 VkBufferUsageFlags usage = 0);
void destroyBuffer(VulkanContext& context, GpuBuffer& buffer);  // resets it; an empty buffer is fine

// One 2D image with one mip level, its own allocation and a view.
struct GpuImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  uint32_t width = 0, height = 0;
  VkFormat format = VK_FORMAT_UNDEFINED;
};
Expected<GpuImage> createImage(VulkanContext& context, uint32_t width, uint32_t height, VkFormat format,
                               VkImageUsageFlags usage, VkImageAspectFlags aspect);
// Creates a SAMPLED | TRANSFER_DST image, copies `bytes` (tightly packed rows) through a staging buffer and leaves it
// in SHADER_READ_ONLY_OPTIMAL, visible to vertex and fragment shader reads.
Expected<GpuImage> uploadImage(VulkanContext& context, uint32_t width, uint32_t height, VkFormat format,
                               const void* bytes, size_t size);
void destroyImage(VulkanContext& context, GpuImage& image);  // resets it; an empty image is fine

// A compute pipeline with one push-constant range and no descriptor sets (buffers are reached by address).
// `specialization` (optional) sets the shader's specialization constants (the crowd kernel's record shape).
struct ComputePipeline {
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};
// The one shader-module creator: SPIR-V words (`bytes` long) into a VkShaderModule the caller destroys.
Expected<VkShaderModule> createShaderModule(VkDevice device, const uint32_t* words, size_t bytes);
Status createComputePipeline(VulkanContext& context, const uint32_t* words, size_t bytes, uint32_t push_size,
                             ComputePipeline& out,  // on failure `out` holds what was created: destroy it
                             const VkSpecializationInfo* specialization = nullptr);
void destroyComputePipeline(VulkanContext& context, ComputePipeline& pipeline);  // resets it; empty is fine

// The driver's statistics of a compute pipeline's executable `executable` (the first by default: "Register
// Count" = 40, …), as VK_KHR_pipeline_executable_properties reports them; empty when the context does not capture
// them.
struct PipelineStatistic {
  std::string name;
  double value = 0.0;
};
std::vector<PipelineStatistic> pipelineStatistics(VulkanContext& context, VkPipeline pipeline, uint32_t executable = 0);
// The first statistic whose name contains "register" (any case), or -1: registers per invocation, which bound how
// many invocations an SM holds.
int64_t pipelineRegisters(VulkanContext& context, VkPipeline pipeline);
// Everything the driver says about a compute pipeline's executables, as text: name, subgroup size, every statistic
// and every internal representation it offers as text; empty when the context does not capture
// them. For `bench --crowd --crowd-executables`.
std::string pipelineReport(VulkanContext& context, VkPipeline pipeline);

// Records with `record` into the context's command buffer, submits to the compute queue and waits.
Status submitAndWait(VulkanContext& context, const std::function<void(VkCommandBuffer)>& record, const char* where);

// A submission that stays in flight while the CPU works on: its own command buffer (from the context's pool) and
// fence. begin → record → submitInFlight; later waitInFlight before its buffers are reused or read. Single-threaded,
// like every use of the context's pool.
struct InFlightSubmission {
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  bool pending = false;  // submitted and not yet waited for
};
Status createInFlightSubmission(VulkanContext& context, InFlightSubmission& submission);
void destroyInFlightSubmission(VulkanContext& context, InFlightSubmission& submission);  // waits if pending
Status beginInFlight(VulkanContext& context, InFlightSubmission& submission, const char* where);
Status submitInFlight(VulkanContext& context, InFlightSubmission& submission, const char* where);
Status waitInFlight(VulkanContext& context, InFlightSubmission& submission, const char* where);  // Ok when idle

// Copies `bytes` into a device-local buffer at `offset` through a staging buffer (chunks of 64 MiB).
Status uploadToBuffer(VulkanContext& context, GpuBuffer& dst, VkDeviceSize offset, const void* bytes,
                      VkDeviceSize size);
// Copies `size` bytes from `src` at `offset` into `out`.
Status downloadFromBuffer(VulkanContext& context, const GpuBuffer& src, VkDeviceSize offset, void* out,
                          VkDeviceSize size);

// The two timestamps of the last submission that wrote them, as µs (NaN without timestamp support).
double readTimestampMicroseconds(VulkanContext& context);

// One timed compute submission, the shape every kernel run shares (group, crowd, copy): `record` between a top
// and a bottom timestamp (when the context has them), then computeWriteBarrier; submits, waits and returns the
// GPU µs between the timestamps (NaN without timestamp support).
Expected<double> submitTimedCompute(VulkanContext& context, const std::function<void(VkCommandBuffer)>& record,
                                    const char* where);

// Where instance `instance` of a group writes its deformed vertices: a render pass binds this range directly
// as a vertex buffer (the buffer has VERTEX usage) after computeWriteBarrier — no copy, no readback.
struct GpuBufferRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0, size = 0;
};
GpuBufferRange gpuMorphGroupOutputRange(const GpuMorphGroup& group, uint32_t instance);

// Global memory barrier: compute writes → vertex attribute reads, transfer reads and later compute reads.
// Vertex-input is named only when the queue supports graphics (else the stage is invalid there).
void computeWriteBarrier(const VulkanContext& context, VkCommandBuffer cmd);

}  // namespace morphkit
