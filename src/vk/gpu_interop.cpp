// SPDX-License-Identifier: MIT
// morphkit on the caller's Vulkan device (morphkit/vk/gpu_interop.h): the checks, and the output's barriers.
// The output description and the recording live beside the group (gpu_morph.cpp) and the pose (gpu_pose.cpp).
#include "morphkit/vk/gpu_interop.h"

#include <algorithm>
#include <string>
#include <vector>

#include "vk_context.h"

namespace morphkit {

namespace {

std::string versionText(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." + std::to_string(VK_API_VERSION_MINOR(version));
}

constexpr const char* kWhere = "createVulkanContextFromDevice: ";

Failure unusable(const std::string& what) {
  return fail(Error::kNoDevice, std::string(kWhere) + what);
}

// Fails on the first requirement `device` misses (morphkit/vk/gpu_interop.h). `index` receives the physical
// device's place in its instance's enumeration.
Status checkDevice(const GpuExternalDevice& device, uint32_t& index) {
  if (device.api_version < VK_API_VERSION_1_2) {
    return unusable("the instance's apiVersion is " + versionText(device.api_version) + "; morphkit needs Vulkan 1.2");
  }
  uint32_t count = 0;
  VkResult r = vkEnumeratePhysicalDevices(device.instance, &count, nullptr);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE)
    return vulkanFailure("createVulkanContextFromDevice: vkEnumeratePhysicalDevices", r);
  std::vector<VkPhysicalDevice> devices(count);
  if (count > 0) {
    r = vkEnumeratePhysicalDevices(device.instance, &count, devices.data());
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
      return vulkanFailure("createVulkanContextFromDevice: vkEnumeratePhysicalDevices", r);
  }
  pinDriversForLeakSanitizer();  // as createVulkanContext does, once the drivers are loaded
  auto found = std::find(devices.begin(), devices.end(), device.physical_device);
  if (found == devices.end())
    return fail(Error::kInvalidArgument, std::string(kWhere) + "physical_device is not one of the instance's devices");
  index = uint32_t(found - devices.begin());

  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(device.physical_device, &props);
  if (props.apiVersion < VK_API_VERSION_1_2) {
    return unusable(std::string(props.deviceName) + " supports Vulkan " + versionText(props.apiVersion) +
                    "; morphkit needs 1.2");
  }
  uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device.physical_device, &families, nullptr);
  if (device.queue_family_index >= families) {
    return fail(Error::kInvalidArgument,
                std::string(kWhere) + ("queue_family_index " + std::to_string(device.queue_family_index) +
                                       " out of range (" + std::to_string(families) + " queue families)"));
  }
  std::vector<VkQueueFamilyProperties> family(families);
  vkGetPhysicalDeviceQueueFamilyProperties(device.physical_device, &families, family.data());
  if (!(family[device.queue_family_index].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
    return unusable("queue family " + std::to_string(device.queue_family_index) + " has no VK_QUEUE_COMPUTE_BIT");
  }
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
  vkGetPhysicalDeviceFeatures2(device.physical_device, &f2);
  if (!f12.bufferDeviceAddress)
    return unusable(std::string(props.deviceName) + " does not support bufferDeviceAddress");
  if (!f2.features.shaderInt64) return unusable(std::string(props.deviceName) + " does not support shaderInt64");
  // Vulkan cannot tell which features a VkDevice was created with: the caller says so.
  if (!device.buffer_device_address)
    return unusable("bufferDeviceAddress was not enabled on the device (GpuExternalDevice::buffer_device_address)");
  if (!device.shader_int64)
    return unusable("shaderInt64 was not enabled on the device (GpuExternalDevice::shader_int64)");
  return Ok{};
}

}  // namespace

Expected<VulkanContext*> createVulkanContextFromDevice(const GpuExternalDevice& device) {
  if (!device.instance || !device.physical_device || !device.device || !device.queue) {
    return fail(Error::kInvalidArgument,
                std::string(kWhere) + "instance, physical_device, device and queue must all be given");
  }
  uint32_t index = 0;
  if (Status usable = checkDevice(device, index); !usable) return usable.error();
  auto* context = new VulkanContext();
  context->owns_device = false;
  context->instance = device.instance;
  context->physical = device.physical_device;
  context->device = device.device;
  context->queue = device.queue;
  context->queue_family = device.queue_family_index;
  describeDevice(*context, index);
  // describeDevice reports what the device supports; only what the caller enabled may be used.
  context->info.storage_16bit = context->info.storage_16bit && device.storage_buffer_16bit_access;
  Status s = createContextObjects(*context);
  if (!s) {
    destroyVulkanContext(context);
    return s.error();
  }
  return context;
}

GpuOutputSync gpuOutputSync(uint32_t readers) {
  GpuOutputSync sync;
  sync.src_stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  sync.src_access = VK_ACCESS_SHADER_WRITE_BIT;
  sync.src_stage2 = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
  sync.src_access2 = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
  if (readers & kReadAsVertexBuffer) {
    sync.dst_stage |= VK_PIPELINE_STAGE_VERTEX_INPUT_BIT;
    sync.dst_access |= VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT;
    sync.dst_stage2 |= VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT;
    sync.dst_access2 |= VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT;
  }
  if (readers & kReadByTransfer) {
    sync.dst_stage |= VK_PIPELINE_STAGE_TRANSFER_BIT;
    sync.dst_access |= VK_ACCESS_TRANSFER_READ_BIT;
    sync.dst_stage2 |= VK_PIPELINE_STAGE_2_COPY_BIT;
    sync.dst_access2 |= VK_ACCESS_2_TRANSFER_READ_BIT;
  }
  if (readers & kReadByShader) {
    sync.dst_stage |= VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    sync.dst_access |= VK_ACCESS_SHADER_READ_BIT;
    sync.dst_stage2 |= VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    sync.dst_access2 |= VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
  }
  return sync;
}

VkBufferMemoryBarrier gpuOutputBarrier(const GpuOutputBuffer& output, uint32_t readers) {
  const GpuOutputSync sync = gpuOutputSync(readers);
  VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
  barrier.srcAccessMask = sync.src_access;
  barrier.dstAccessMask = sync.dst_access;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.buffer = output.buffer;
  barrier.offset = output.offset;
  barrier.size = output.size;
  return barrier;
}

VkBufferMemoryBarrier2 gpuOutputBarrier2(const GpuOutputBuffer& output, uint32_t readers) {
  const GpuOutputSync sync = gpuOutputSync(readers);
  VkBufferMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2};
  barrier.srcStageMask = sync.src_stage2;
  barrier.srcAccessMask = sync.src_access2;
  barrier.dstStageMask = sync.dst_stage2;
  barrier.dstAccessMask = sync.dst_access2;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.buffer = output.buffer;
  barrier.offset = output.offset;
  barrier.size = output.size;
  return barrier;
}

void recordGpuOutputReuseBarrier(VkCommandBuffer cmd, uint32_t readers) {
  // Write-after-read: an execution dependency is enough (no access masks).
  const VkPipelineStageFlags src = gpuOutputSync(readers).dst_stage;
  vkCmdPipelineBarrier(cmd, src ? src : VkPipelineStageFlags(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT),
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, nullptr, 0, nullptr, 0, nullptr);
}

}  // namespace morphkit
