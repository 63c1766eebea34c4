// SPDX-License-Identifier: MIT
// engine_interop: morphkit inside an engine's own Vulkan frame (docs/ENGINE_INTEROP.md).
// The "engine" creates the instance, device, queue and command buffer; morphkit deforms a glTF scene into
// its output buffer from a dispatch recorded in the engine's command buffer; the engine issues the barrier,
// binds the output as its vertex buffer and copies it back to check it against the CPU reference pose.
//   engine_interop [--validation] [--crowd N] [FILE.gltf|FILE.glb]   (default: the built-in demo face)
// --crowd N: also N copies of the first primitive, each at its own time of the clip, in one crowd dispatch.
// Exit 0: GPU pose == CPU pose (1e-4 of the scene size) and, with --validation, not one validation message.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "morphkit/demo/demo.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/vk/gpu_crowd.h"
#include "morphkit/vk/gpu_interop.h"

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

// The engine's side: what it owns and morphkit borrows.
struct Engine {
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  uint32_t api_version = VK_API_VERSION_1_2;
};

// The engine's Vulkan objects (morphkit needs 1.2, bufferDeviceAddress and shaderInt64). Returns 0, 77 (no device:
// the test skips on a user's machine, fails in CI) or 1.
static int createEngine(bool validation, Engine& e) {
  VkInstance& instance = e.instance;
  VkDebugUtilsMessengerEXT& messenger = e.messenger;
  VkPhysicalDevice& physical = e.physical;
  VkDevice& device = e.device;
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "engine", 1, "engine", 1, e.api_version};
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
  if (VkResult r = vkCreateInstance(&instance_info, nullptr, &instance); r == VK_ERROR_INCOMPATIBLE_DRIVER) {
    return std::fprintf(stderr, "no Vulkan device\n"), 77;  // the test skips on a user's machine, fails in CI
  } else if (r != VK_SUCCESS) {
    return std::fprintf(stderr, "vkCreateInstance: %d\n", r), 1;
  }
  auto create_messenger =
      PFN_vkCreateDebugUtilsMessengerEXT(vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
  if (validation) CHECK(create_messenger(instance, &messenger_info, nullptr, &messenger));
  uint32_t count = 1;
  if (vkEnumeratePhysicalDevices(instance, &count, &physical) < 0 || count == 0)
    return std::fprintf(stderr, "no Vulkan device\n"), 77;
  uint32_t& family = e.family;  // a graphics + compute family: draws and the morph dispatch share the queue
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
  CHECK(vkCreateDevice(physical, &device_info, nullptr, &device));
  vkGetDeviceQueue(device, family, 0, &e.queue);
  return 0;
}

static void destroyEngine(Engine& e) {
  vkDestroyDevice(e.device, nullptr);
  if (e.messenger)
    PFN_vkDestroyDebugUtilsMessengerEXT(vkGetInstanceProcAddr(e.instance, "vkDestroyDebugUtilsMessengerEXT"))(
        e.instance, e.messenger, nullptr);
  vkDestroyInstance(e.instance, nullptr);
}

// A host-visible, coherent buffer the engine copies the output into, to check it.
struct HostBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

static int createHostBuffer(const Engine& e, VkDeviceSize readback_size, HostBuffer& out) {
  VkDevice device = e.device;
  VkPhysicalDevice physical = e.physical;
  VkBufferCreateInfo buffer_info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, readback_size,
                                 VK_BUFFER_USAGE_TRANSFER_DST_BIT};
  CHECK(vkCreateBuffer(device, &buffer_info, nullptr, &out.buffer));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, out.buffer, &req);
  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = 0;
  while (!((req.memoryTypeBits >> type) & 1) || (memory.memoryTypes[type].propertyFlags & host) != host) ++type;
  VkMemoryAllocateInfo memory_info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, req.size, type};
  CHECK(vkAllocateMemory(device, &memory_info, nullptr, &out.memory));
  CHECK(vkBindBufferMemory(device, out.buffer, out.memory, 0));
  return 0;
}

// The largest |GPU − CPU| position over every instance of the engine's copy, and the scene's size.
// The largest |GPU − CPU| position of one instance's vertices (`gpu`: its range of the engine's copy), and the size.
static void comparePositions(const float* gpu, const morphkit::GpuOutputBuffer& out,
                             const std::vector<float>& positions, double& error, double& size) {
  for (uint32_t v = 0; v < out.vertex_count; ++v) {
    for (int c = 0; c < 3; ++c) {
      error = std::max(error,
                       std::fabs(double(gpu[(out.stride * v + out.position_offset) / 4 + c]) - positions[3 * v + c]));
      size = std::max(size, std::fabs(double(positions[3 * v + c])));
    }
  }
}

// The same over every instance of the pose, copied one after the other.
static void compareWithCpu(const float* gpu, const morphkit::GpuPose& pose, const morphkit::PoseResult& cpu,
                           double& error, double& size, size_t& vertices) {
  const uint32_t instances = morphkit::gpuPoseInstanceCount(pose);
  for (uint32_t i = 0; i < instances; ++i) {
    const morphkit::GpuOutputBuffer out = *morphkit::gpuPoseOutput(pose, i);
    comparePositions(gpu, out, cpu.meshes[i].positions, error, size);
    vertices += out.vertex_count;
    gpu += out.size / 4;
  }
}

// The engine's frame: one submission of `cmd`, then the frame fence (here: the queue going idle).
static int submitAndWait(VkQueue queue, VkCommandBuffer cmd) {
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  CHECK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));
  CHECK(vkQueueWaitIdle(queue));
  return 0;
}

// A crowd in the engine's frame: `count` copies of the scene's first primitive, each at its own time of the clip,
// deformed by one dispatch that morphkit records into the engine's command buffer (recordGpuCrowdJob). The output is
// one buffer, instance i at i × instance_bytes: bind it once and draw instanced (a vertex shader that reads instance
// i at gl_InstanceIndex × vertex_count), or bind each instance's offset. Checked against the CPU pose of each time.
static int crowdFrame(const Engine& e, morphkit::VulkanContext& context, const morphkit::PosePrepared& prepared,
                      uint32_t animation, uint32_t count, VkCommandBuffer cmd, double& error, double& size) {
  const morphkit::PosePrepared::Instance& first = prepared.instances[0];
  morphkit::GpuUploadOptions upload;
  upload.layout = morphkit::DeltaLayout::kDenseF32;  // a crowd reads a dense layout
  auto primitive = morphkit::uploadGpuPrimitive(context, prepared.primitives[first.data], upload);
  if (!primitive) return failed(primitive.error());
  const double duration = animation == morphkit::kNone ? 0.0 : morphkit::animationDuration(*prepared.asset, animation);
  std::vector<morphkit::FrameState> frames(count);  // the CPU frame step of each instance's own time
  std::vector<morphkit::GpuInstanceState> states(count);
  for (uint32_t i = 0; i < count; ++i) {
    morphkit::FrameRequest request;
    request.animation = animation, request.time = duration * i / count;
    if (auto s = morphkit::evaluateFrame(prepared, request, frames[i]); !s) return failed(s.error());
    const morphkit::InstanceFrame& f = frames[i].instances[0];
    states[i] = {f.weights, f.joint_matrices, f.world};
  }
  const morphkit::GpuCrowdDesc desc{*primitive, count, first.skinned, uint32_t(states[0].joint_matrices.size())};
  auto crowd = morphkit::createGpuCrowd(context, desc);
  if (!crowd) return failed(crowd.error());
  const morphkit::GpuCrowdInfo& info = morphkit::gpuCrowdInfo(**crowd);
  HostBuffer readback;
  if (int code = createHostBuffer(e, info.output_bytes, readback); code != 0) return code;

  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  CHECK(vkBeginCommandBuffer(cmd, &begin));
  morphkit::GpuCrowdJob job{&context, *crowd, states};
  if (auto s = morphkit::recordGpuCrowdJob(job, cmd); !s) return failed(s.error());
  morphkit::GpuOutputBuffer all = *morphkit::gpuCrowdOutput(**crowd, 0);
  all.size = info.output_bytes;  // every instance: one barrier, one binding
  const uint32_t readers = morphkit::kReadAsVertexBuffer | morphkit::kReadByTransfer;
  const morphkit::GpuOutputSync sync = morphkit::gpuOutputSync(readers);
  const VkBufferMemoryBarrier barrier = morphkit::gpuOutputBarrier(all, readers);
  vkCmdPipelineBarrier(cmd, sync.src_stage, sync.dst_stage, 0, 0, nullptr, 1, &barrier, 0, nullptr);
  vkCmdBindVertexBuffers(cmd, 0, 1, &all.buffer, &all.offset);  // an instanced draw would read it here
  VkBufferCopy region{all.offset, 0, all.size};
  vkCmdCopyBuffer(cmd, all.buffer, readback.buffer, 1, &region);
  const VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_TRANSFER_WRITE_BIT,
                                VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0,
                       nullptr);
  CHECK(vkEndCommandBuffer(cmd));
  if (int code = submitAndWait(e.queue, cmd); code != 0) return code;

  void* mapped = nullptr;
  CHECK(vkMapMemory(e.device, readback.memory, 0, VK_WHOLE_SIZE, 0, &mapped));
  for (uint32_t i = 0; i < count; ++i) {
    morphkit::PoseOptions cpu_options;
    cpu_options.animation = animation, cpu_options.time = duration * i / count;
    auto cpu = morphkit::evaluatePose(prepared, cpu_options);
    if (!cpu) return failed(cpu.error());
    const morphkit::GpuOutputBuffer out = *morphkit::gpuCrowdOutput(**crowd, i);
    const float* gpu = static_cast<const float*>(mapped) + (out.offset - all.offset) / 4;
    comparePositions(gpu, out, cpu->meshes[0].positions, error, size);
  }
  vkDestroyBuffer(e.device, readback.buffer, nullptr);
  vkFreeMemory(e.device, readback.memory, nullptr);
  morphkit::destroyGpuCrowd(context, *crowd);
  morphkit::destroyGpuPrimitive(context, *primitive);
  return 0;
}

int main(int argc, char** argv) {
  bool validation = false;
  uint32_t crowd = 0;  // --crowd N: also a crowd of N instances of the first primitive
  const char* file = nullptr;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--validation") == 0) {
      validation = true;
    } else if (std::strcmp(argv[a], "--crowd") == 0 && a + 1 < argc) {
      crowd = uint32_t(std::strtoul(argv[++a], nullptr, 10));
    } else {
      file = argv[a];
    }
  }
  morphkit::DemoOptions demo;
  demo.vertices = 2000, demo.targets = 16;
  auto asset = file ? morphkit::loadAsset(file) : morphkit::makeDemoAsset(demo);
  if (!asset) return failed(asset.error());
  auto prepared = morphkit::preparePose(*asset);
  if (!prepared) return failed(prepared.error());

  Engine engine;
  if (int code = createEngine(validation, engine); code != 0) return code;
  VkDevice device = engine.device;
  VkQueue queue = engine.queue;
  const uint32_t family = engine.family;

  // ---- morphkit on the engine's device ----
  morphkit::GpuExternalDevice external{
      engine.instance, engine.physical, device, queue, family, engine.api_version, true, true, false};
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
  HostBuffer readback;
  if (int code = createHostBuffer(engine, readback_size, readback); code != 0) return code;

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
    vkCmdCopyBuffer(cmd, out.buffer, readback.buffer, 1, &region);
    at += out.size;
  }
  VkBufferMemoryBarrier to_host{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                                nullptr,
                                VK_ACCESS_TRANSFER_WRITE_BIT,
                                VK_ACCESS_HOST_READ_BIT,
                                VK_QUEUE_FAMILY_IGNORED,
                                VK_QUEUE_FAMILY_IGNORED,
                                readback.buffer,
                                0,
                                VK_WHOLE_SIZE};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &to_host, 0,
                       nullptr);
  CHECK(vkEndCommandBuffer(cmd));
  if (int code = submitAndWait(queue, cmd); code != 0) return code;

  // ---- Check: the engine's copy against the CPU reference pose ----
  morphkit::PoseOptions cpu_options;
  cpu_options.animation = frame.animation, cpu_options.time = frame.time;
  auto cpu = morphkit::evaluatePose(*prepared, cpu_options);
  if (!cpu) return failed(cpu.error());
  void* mapped = nullptr;
  CHECK(vkMapMemory(device, readback.memory, 0, VK_WHOLE_SIZE, 0, &mapped));
  double error = 0.0, size = 1e-6;
  size_t vertices = 0;
  compareWithCpu(static_cast<const float*>(mapped), **pose, *cpu, error, size, vertices);
  std::printf(
      "engine_interop: %u instances, %zu vertices on %s; max |GPU - CPU| position %.3g (scene size %.3g); "
      "%d validation messages\n",
      instances, vertices, morphkit::gpuDeviceInfo(**context).name.c_str(), error, size, messages);
  double crowd_error = 0.0, crowd_size = 1e-6;
  if (crowd > 0) {
    CHECK(vkResetCommandPool(device, pool, 0));  // the command buffer back to its initial state for the next frame
    if (int code = crowdFrame(engine, **context, *prepared, frame.animation, crowd, cmd, crowd_error, crowd_size))
      return code;
    std::printf("engine_interop: a crowd of %u in one dispatch; max |GPU - CPU| position %.3g (scene size %.3g)\n",
                crowd, crowd_error, crowd_size);
  }

  // ---- Shutdown: morphkit's objects first (the GPU is idle), then the engine's ----
  morphkit::destroyGpuPose(**context, *pose);
  morphkit::destroyVulkanContext(*context);  // leaves instance, device and queue alone
  vkDestroyBuffer(device, readback.buffer, nullptr);
  vkFreeMemory(device, readback.memory, nullptr);
  vkDestroyCommandPool(device, pool, nullptr);
  destroyEngine(engine);
  return error <= 1e-4 * size && crowd_error <= 1e-4 * crowd_size && messages == 0 ? 0 : 1;
}
