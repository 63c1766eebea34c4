// SPDX-License-Identifier: MIT
// engine_interop: morphkit inside an engine's own Vulkan frame (docs/ENGINE_INTEROP.md).
// The "engine" creates the instance, device, queue and command buffer; morphkit deforms a glTF scene into
// its output buffer from a dispatch recorded in the engine's command buffer; the engine issues the barrier,
// binds the output as its vertex buffer and copies it back to check it against the CPU reference pose.
//   engine_interop [--validation] [FILE.gltf|FILE.glb]   (default: the built-in demo face)
// Exit 0: GPU pose == CPU pose (1e-4 of the scene size) and, with --validation, not one validation message.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "morphkit/demo.h"
#include "morphkit/gltf.h"
#include "morphkit/gpu_interop.h"

static int messages = 0;  // validation warnings and errors
static VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                                const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  std::fprintf(stderr, "validation: %s\n", data->pMessage);
  return ++messages, VK_FALSE;
}
#define CHECK(call) \
  if (VkResult r_ = (call); r_ != VK_SUCCESS) return std::fprintf(stderr, "%s: %d\n", #call, r_), 1
static int failed(const morphkit::Failure& f) {
  return std::fprintf(stderr, "morphkit: %s\n", f.message.c_str()), 1;
}

int main(int argc, char** argv) {
  bool validation = argc > 1 && std::strcmp(argv[1], "--validation") == 0;
  const char* file = argc > 1 + int(validation) ? argv[1 + int(validation)] : nullptr;
  morphkit::DemoOptions demo;
  demo.vertices = 2000, demo.targets = 16;
  auto asset = file ? morphkit::loadAsset(file) : morphkit::makeDemoAsset(demo);
  if (!asset) return failed(asset.error());
  auto prepared = morphkit::preparePose(*asset);
  if (!prepared) return failed(prepared.error());

  // ---- The engine's Vulkan objects (morphkit needs 1.2, bufferDeviceAddress and shaderInt64) ----
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "engine", 1, "engine", 1, VK_API_VERSION_1_2};
  VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType =
      VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
  messenger_info.pfnUserCallback = onMessage;
  const char* layer = "VK_LAYER_KHRONOS_validation";
  const char* extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkValidationFeatureEnableEXT sync_validation = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT features_info{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, &messenger_info, 1,
                                        &sync_validation};
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, validation ? &features_info : nullptr};
  instance_info.pApplicationInfo = &app;
  instance_info.enabledLayerCount = instance_info.enabledExtensionCount = validation ? 1 : 0;
  instance_info.ppEnabledLayerNames = &layer;
  instance_info.ppEnabledExtensionNames = &extension;
  VkInstance instance;
  if (VkResult r = vkCreateInstance(&instance_info, nullptr, &instance); r == VK_ERROR_INCOMPATIBLE_DRIVER) {
    return std::fprintf(stderr, "no Vulkan device\n"), 77;  // the test skips on a user's machine, fails in CI
  } else if (r != VK_SUCCESS) {
    return std::fprintf(stderr, "vkCreateInstance: %d\n", r), 1;
  }
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  auto create_messenger =
      PFN_vkCreateDebugUtilsMessengerEXT(vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
  if (validation) CHECK(create_messenger(instance, &messenger_info, nullptr, &messenger));
  uint32_t count = 1;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  if (vkEnumeratePhysicalDevices(instance, &count, &physical) < 0 || count == 0)
    return std::fprintf(stderr, "no Vulkan device\n"), 77;
  uint32_t family = 0;  // a graphics + compute family: draws and the morph dispatch share the queue
  VkQueueFamilyProperties families[16];
  uint32_t family_count = 16;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, families);
  while (family < family_count && (families[family].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) !=
                                      (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
    ++family;
  if (family == family_count) return std::fprintf(stderr, "no graphics + compute queue\n"), 1;
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, family, 1, &priority};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f12.bufferDeviceAddress = VK_TRUE;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
  features.features.shaderInt64 = VK_TRUE;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features, 0, 1, &queue_info};
  VkDevice device;
  CHECK(vkCreateDevice(physical, &device_info, nullptr, &device));
  VkQueue queue;
  vkGetDeviceQueue(device, family, 0, &queue);

  // ---- morphkit on the engine's device ----
  morphkit::GpuExternalDevice external{instance, physical, device, queue, family, app.apiVersion, true, true, false};
  auto context = morphkit::createVulkanContextFromDevice(external);  // checks the device; fails clearly
  if (!context) return failed(context.error());
  auto pose = morphkit::prepareGpuPose(**context, *prepared);  // uploads (submits to `queue` and waits)
  if (!pose) return failed(pose.error());
  const uint32_t instances = morphkit::gpuPoseInstanceCount(**pose);

  // ---- One frame: the engine's command buffer, morphkit's dispatch in it, the barrier, the draw's binding ----
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, nullptr, 0, family};
  VkCommandPool pool;
  CHECK(vkCreateCommandPool(device, &pool_info, nullptr, &pool));
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, pool,
                                    VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
  VkCommandBuffer cmd;
  CHECK(vkAllocateCommandBuffers(device, &alloc, &cmd));
  VkDeviceSize readback_size = 0;  // the engine's host-visible copy, for the check below
  for (uint32_t i = 0; i < instances; ++i) readback_size += morphkit::gpuPoseOutput(**pose, i)->size;
  VkBufferCreateInfo buffer_info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, readback_size,
                                 VK_BUFFER_USAGE_TRANSFER_DST_BIT};
  VkBuffer readback;
  CHECK(vkCreateBuffer(device, &buffer_info, nullptr, &readback));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, readback, &req);
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = 0;
  while (!((req.memoryTypeBits >> type) & 1) || (memory.memoryTypes[type].propertyFlags & host) != host) ++type;
  VkMemoryAllocateInfo memory_info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, req.size, type};
  VkDeviceMemory readback_memory;
  CHECK(vkAllocateMemory(device, &memory_info, nullptr, &readback_memory));
  CHECK(vkBindBufferMemory(device, readback, readback_memory, 0));

  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CHECK(vkBeginCommandBuffer(cmd, &begin));
  morphkit::GpuPoseOptions frame;
  frame.animation = asset->animations.empty() ? morphkit::kNone : 0;
  frame.time = 0.4;
  if (auto s = morphkit::recordGpuPose(**context, **pose, frame, cmd); !s) return failed(s.error());
  VkDeviceSize at = 0;
  for (uint32_t i = 0; i < instances; ++i) {
    const morphkit::GpuOutputBuffer out = *morphkit::gpuPoseOutput(**pose, i);
    const uint32_t readers = morphkit::kReadAsVertexBuffer | morphkit::kReadByTransfer;
    const morphkit::GpuOutputSync sync = morphkit::gpuOutputSync(readers);
    const VkBufferMemoryBarrier barrier = morphkit::gpuOutputBarrier(out, readers);
    vkCmdPipelineBarrier(cmd, sync.src_stage, sync.dst_stage, 0, 0, nullptr, 1, &barrier, 0, nullptr);
    vkCmdBindVertexBuffers(cmd, 0, 1, &out.buffer, &out.offset);  // a draw would read it here
    VkBufferCopy region{out.offset, at, out.size};
    vkCmdCopyBuffer(cmd, out.buffer, readback, 1, &region);
    at += out.size;
  }
  VkBufferMemoryBarrier to_host{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                                nullptr,
                                VK_ACCESS_TRANSFER_WRITE_BIT,
                                VK_ACCESS_HOST_READ_BIT,
                                VK_QUEUE_FAMILY_IGNORED,
                                VK_QUEUE_FAMILY_IGNORED,
                                readback,
                                0,
                                VK_WHOLE_SIZE};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &to_host, 0,
                       nullptr);
  CHECK(vkEndCommandBuffer(cmd));
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  CHECK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));
  CHECK(vkQueueWaitIdle(queue));  // the engine's frame fence

  // ---- Check: the engine's copy against the CPU reference pose ----
  morphkit::PoseOptions cpu_options;
  cpu_options.animation = frame.animation, cpu_options.time = frame.time;
  auto cpu = morphkit::evaluatePose(*prepared, cpu_options);
  if (!cpu) return failed(cpu.error());
  void* mapped = nullptr;
  CHECK(vkMapMemory(device, readback_memory, 0, VK_WHOLE_SIZE, 0, &mapped));
  const float* gpu = static_cast<const float*>(mapped);
  double error = 0.0, size = 1e-6;
  size_t vertices = 0;
  for (uint32_t i = 0; i < instances; ++i) {
    const morphkit::GpuOutputBuffer out = *morphkit::gpuPoseOutput(**pose, i);
    const std::vector<float>& positions = cpu->meshes[i].positions;
    for (uint32_t v = 0; v < out.vertex_count; ++v, ++vertices) {
      for (int c = 0; c < 3; ++c) {
        error = std::max(error,
                         std::fabs(double(gpu[(out.stride * v + out.position_offset) / 4 + c]) - positions[3 * v + c]));
        size = std::max(size, std::fabs(double(positions[3 * v + c])));
      }
    }
    gpu += out.size / 4;
  }
  std::printf(
      "engine_interop: %u instances, %zu vertices on %s; max |GPU - CPU| position %.3g (scene size %.3g); "
      "%d validation messages\n",
      instances, vertices, morphkit::gpuDeviceInfo(**context).name.c_str(), error, size, messages);

  // ---- Shutdown: morphkit's objects first (the GPU is idle), then the engine's ----
  morphkit::destroyGpuPose(**context, *pose);
  morphkit::destroyVulkanContext(*context);  // leaves instance, device and queue alone
  vkDestroyBuffer(device, readback, nullptr);
  vkFreeMemory(device, readback_memory, nullptr);
  vkDestroyCommandPool(device, pool, nullptr);
  vkDestroyDevice(device, nullptr);
  if (messenger)
    PFN_vkDestroyDebugUtilsMessengerEXT(vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"))(
        instance, messenger, nullptr);
  vkDestroyInstance(instance, nullptr);
  return error <= 1e-4 * size && messages == 0 ? 0 : 1;
}
