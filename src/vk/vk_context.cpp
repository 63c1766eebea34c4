// SPDX-License-Identifier: MIT
// Vulkan context: headless instance, device selection, compute queue (submissions and timestamps: vk_submit.cpp;
// buffers, images and compute pipelines: vk_resources.cpp).
#include "vk_context.h"

#include <algorithm>
#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
#include <link.h>
#endif
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace morphkit {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool envValidation() {
  const char* value = std::getenv("MORPHKIT_VALIDATION");
  return value && std::string(value) == "1";
}

VKAPI_ATTR VkBool32 VKAPI_CALL debugCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                             VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                             const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* context = static_cast<VulkanContext*>(user);
  const char* level = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning";
  std::string line = std::string("[validation ") + level + "] " + (data && data->pMessage ? data->pMessage : "");
  std::lock_guard<std::mutex> lock(context->messages_mutex);
  context->messages.push_back(std::move(line));
  return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messengerInfo(VulkanContext* context) {
  VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = debugCallback;
  info.pUserData = context;
  return info;
}

int typeRank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

GpuDeviceType deviceType(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return GpuDeviceType::kDiscrete;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return GpuDeviceType::kIntegrated;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return GpuDeviceType::kVirtual;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return GpuDeviceType::kCpu;
    default:
      return GpuDeviceType::kOther;
  }
}

// A device morphkit can use: Vulkan 1.2, a compute queue, bufferDeviceAddress and shaderInt64.
bool deviceHasExtension(VkPhysicalDevice device, const char* name) {
  uint32_t count = 0;
  if (vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> extensions(count);
  if (vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data()) != VK_SUCCESS) return false;
  for (const VkExtensionProperties& e : extensions) {
    if (std::strcmp(e.extensionName, name) == 0) return true;
  }
  return false;
}

struct Candidate {
  VkPhysicalDevice device = VK_NULL_HANDLE;
  uint32_t index = 0;
  uint32_t queue_family = 0;
  std::string why_not;  // empty: usable
};

Candidate inspect(VkPhysicalDevice device, uint32_t index) {
  Candidate c{device, index, 0, {}};
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(device, &props);
  if (props.apiVersion < VK_API_VERSION_1_2) {
    c.why_not = "Vulkan 1.2 required";
    return c;
  }
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12};
  vkGetPhysicalDeviceFeatures2(device, &f2);
  if (!f12.bufferDeviceAddress || !f2.features.shaderInt64) {
    c.why_not = "bufferDeviceAddress and shaderInt64 required";
    return c;
  }
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
  // Prefer a compute queue with timestamps that also does graphics (a render pass can then consume the
  // output on the same queue without an ownership transfer); any compute queue otherwise.
  int best = -1, best_score = -1;
  for (uint32_t i = 0; i < count; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    const int score =
        (families[i].timestampValidBits > 0 ? 2 : 0) + ((families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) ? 1 : 0);
    if (score > best_score) best = int(i), best_score = score;
  }
  if (best < 0) {
    c.why_not = "no compute queue";
    return c;
  }
  c.queue_family = uint32_t(best);
  return c;
}

// Sanitizer builds only: the loader unloads the ICD and layers at vkDestroyInstance, after which their
// process-lifetime allocations show in LeakSanitizer as "<unknown module>" that no suppression can name.
// Marking every loaded Vulkan driver and layer "never unload" (RTLD_NOLOAD | RTLD_NODELETE: no new load, the
// handle is not needed) keeps the frames symbolized, so tests/lsan.supp (drivers only) applies and morphkit's
// own leaks still show. Runs once the physical devices are enumerated, when the drivers and layers are loaded.
#if defined(__SANITIZE_ADDRESS__)
static int pinVulkanLibrary(struct dl_phdr_info* info, size_t, void*) {
  const char* name = info->dlpi_name;
  if (name && (std::strstr(name, "libvulkan_") || std::strstr(name, "libVkLayer_"))) {
    dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
  return 0;
}
#endif

}  // namespace

void pinDriversForLeakSanitizer() {
#if defined(__SANITIZE_ADDRESS__)
  dl_iterate_phdr(pinVulkanLibrary, nullptr);
#endif
}

namespace {

Status createDeviceObjects(VulkanContext& context, const GpuContextOptions& options) {
  uint32_t count = 0;
  VkResult r = vkEnumeratePhysicalDevices(context.instance, &count, nullptr);
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) return vulkanFailure("vkEnumeratePhysicalDevices", r);
  std::vector<VkPhysicalDevice> devices(count);
  if (count > 0) {
    r = vkEnumeratePhysicalDevices(context.instance, &count, devices.data());
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) return vulkanFailure("vkEnumeratePhysicalDevices", r);
  }
  pinDriversForLeakSanitizer();  // the drivers and layers are loaded now, whatever fails next
  if (devices.empty()) {
    return fail(Error::kNoDevice,
                "createVulkanContext: no Vulkan device (install mesa-vulkan-drivers for a CPU implementation)");
  }
  Candidate chosen;
  if (options.device_index >= 0) {
    if (size_t(options.device_index) >= devices.size()) {
      return fail(Error::kNoDevice, "createVulkanContext: device index " + std::to_string(options.device_index) +
                                        " out of range (" + std::to_string(devices.size()) + " devices)");
    }
    chosen = inspect(devices[size_t(options.device_index)], uint32_t(options.device_index));
    if (!chosen.why_not.empty()) {
      return fail(Error::kNoDevice,
                  "createVulkanContext: device " + std::to_string(options.device_index) + ": " + chosen.why_not);
    }
  } else {
    int best_rank = std::numeric_limits<int>::max();
    std::string reasons;
    for (uint32_t i = 0; i < devices.size(); ++i) {
      Candidate c = inspect(devices[i], i);
      if (!c.why_not.empty()) {
        reasons += "; device " + std::to_string(i) + ": " + c.why_not;
        continue;
      }
      VkPhysicalDeviceProperties props;
      vkGetPhysicalDeviceProperties(devices[i], &props);
      if (typeRank(props.deviceType) < best_rank) {
        best_rank = typeRank(props.deviceType);
        chosen = c;
      }
    }
    if (chosen.device == VK_NULL_HANDLE) {
      return fail(
          Error::kNoDevice,
          "createVulkanContext: no Vulkan device (install mesa-vulkan-drivers for a CPU implementation)" + reasons);
    }
  }
  context.physical = chosen.device;
  context.queue_family = chosen.queue_family;
  describeDevice(context, chosen.index);
  const GpuDeviceInfo& info = context.info;

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = context.queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  f12.bufferDeviceAddress = VK_TRUE;
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &f12};
  f11.storageBuffer16BitAccess = info.storage_16bit ? VK_TRUE : VK_FALSE;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11};
  features.features.shaderInt64 = VK_TRUE;
  {
    VkPhysicalDeviceFeatures have{};
    vkGetPhysicalDeviceFeatures(context.physical, &have);
    context.multi_draw_indirect = have.multiDrawIndirect == VK_TRUE;  // the crowd's one draw per primitive
    features.features.multiDrawIndirect = have.multiDrawIndirect;
  }
  // The driver's pipeline statistics (registers per invocation) for the benchmarks, when asked and offered.
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  {
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR have{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &have};
    if (options.pipeline_statistics &&
        deviceHasExtension(context.physical, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
      vkGetPhysicalDeviceFeatures2(context.physical, &query);
      context.pipeline_statistics = have.pipelineExecutableInfo == VK_TRUE;
    }
  }
  std::vector<const char*> extensions;
  if (context.pipeline_statistics) {
    executable.pipelineExecutableInfo = VK_TRUE;
    executable.pNext = f12.pNext;
    f12.pNext = &executable;
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  }
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  device_info.enabledExtensionCount = uint32_t(extensions.size());
  device_info.ppEnabledExtensionNames = extensions.empty() ? nullptr : extensions.data();
  r = vkCreateDevice(context.physical, &device_info, nullptr, &context.device);
  if (r != VK_SUCCESS) return vulkanFailure("vkCreateDevice", r);
  vkGetDeviceQueue(context.device, context.queue_family, 0, &context.queue);

  return createContextObjects(context);
}

}  // namespace

void describeDevice(VulkanContext& context, uint32_t index) {
  vkGetPhysicalDeviceProperties(context.physical, &context.properties);
  vkGetPhysicalDeviceMemoryProperties(context.physical, &context.memory);
  VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES, &m3};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &driver};
  vkGetPhysicalDeviceProperties2(context.physical, &props2);
  context.max_allocation = m3.maxMemoryAllocationSize;

  VkPhysicalDeviceVulkan11Features have11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceFeatures2 have{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &have11};
  vkGetPhysicalDeviceFeatures2(context.physical, &have);

  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(context.physical, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(context.physical, &family_count, families.data());

  GpuDeviceInfo& info = context.info;
  info.name = context.properties.deviceName;
  info.type = deviceType(context.properties.deviceType);
  info.index = index;
  info.api_version = context.properties.apiVersion;
  info.driver = std::string(driver.driverName) + " " + driver.driverInfo;
  info.storage_16bit = have11.storageBuffer16BitAccess == VK_TRUE;
  context.queue_has_graphics = (families[context.queue_family].queueFlags & VK_QUEUE_GRAPHICS_BIT) != 0;
  info.timestamps =
      families[context.queue_family].timestampValidBits > 0 && context.properties.limits.timestampPeriod > 0;
  info.timestamp_period_ns = context.properties.limits.timestampPeriod;
  info.max_allocation_bytes = context.max_allocation;
  for (uint32_t h = 0; h < context.memory.memoryHeapCount; ++h) {
    if (context.memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
      info.device_local_bytes = std::max<uint64_t>(info.device_local_bytes, context.memory.memoryHeaps[h].size);
    }
  }
}

Status createContextObjects(VulkanContext& context) {
  VkResult r = VK_SUCCESS;
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = context.queue_family;
  r = vkCreateCommandPool(context.device, &pool_info, nullptr, &context.command_pool);
  if (r != VK_SUCCESS) return vulkanFailure("vkCreateCommandPool", r);
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = context.command_pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  r = vkAllocateCommandBuffers(context.device, &alloc, &context.command_buffer);
  if (r != VK_SUCCESS) return vulkanFailure("vkAllocateCommandBuffers", r);
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  r = vkCreateFence(context.device, &fence_info, nullptr, &context.fence);
  if (r != VK_SUCCESS) return vulkanFailure("vkCreateFence", r);
  if (context.info.timestamps) {
    VkQueryPoolCreateInfo query_info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query_info.queryCount = 2;
    r = vkCreateQueryPool(context.device, &query_info, nullptr, &context.timestamps);
    if (r != VK_SUCCESS) return vulkanFailure("vkCreateQueryPool", r);
  }
  return Ok{};
}

const char* vkResultName(VkResult result) {
  switch (result) {
#define MORPHKIT_RESULT(name) \
  case name:                  \
    return #name;
    MORPHKIT_RESULT(VK_SUCCESS)
    MORPHKIT_RESULT(VK_NOT_READY)
    MORPHKIT_RESULT(VK_TIMEOUT)
    MORPHKIT_RESULT(VK_INCOMPLETE)
    MORPHKIT_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    MORPHKIT_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    MORPHKIT_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    MORPHKIT_RESULT(VK_ERROR_DEVICE_LOST)
    MORPHKIT_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    MORPHKIT_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    MORPHKIT_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    MORPHKIT_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    MORPHKIT_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    MORPHKIT_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    MORPHKIT_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    MORPHKIT_RESULT(VK_ERROR_FRAGMENTED_POOL)
    MORPHKIT_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    MORPHKIT_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    MORPHKIT_RESULT(VK_ERROR_FRAGMENTATION)
    MORPHKIT_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    MORPHKIT_RESULT(VK_ERROR_UNKNOWN)
#undef MORPHKIT_RESULT
    default:
      return "VkResult(unknown)";
  }
}

Status checkVk(VkResult r, const char* where) {
  if (r != VK_SUCCESS) return vulkanFailure(where, r);
  return Ok{};
}

Failure vulkanFailure(const std::string& where, VkResult result) {
  std::string message = where + ": " + vkResultName(result) + " (" + std::to_string(int(result)) + ")";
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
      return fail(Error::kOutOfMemory, std::move(message));
    case VK_ERROR_DEVICE_LOST:
      return fail(Error::kDeviceLost, std::move(message));
    default:
      return fail(Error::kVulkan, std::move(message));
  }
}

const char* gpuDeviceTypeName(GpuDeviceType type) {
  switch (type) {
    case GpuDeviceType::kDiscrete:
      return "discrete";
    case GpuDeviceType::kIntegrated:
      return "integrated";
    case GpuDeviceType::kVirtual:
      return "virtual";
    case GpuDeviceType::kCpu:
      return "cpu";
    case GpuDeviceType::kOther:
      break;
  }
  return "other";
}

Expected<VulkanContext*> createVulkanContext(const GpuContextOptions& options) {
  auto* context = new VulkanContext();
  const bool validation = options.validation || envValidation();
  context->info.validation = validation;

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  if (validation) {
    uint32_t count = 0;
    vkEnumerateInstanceLayerProperties(&count, nullptr);
    std::vector<VkLayerProperties> available(count);
    vkEnumerateInstanceLayerProperties(&count, available.data());
    bool found = std::any_of(available.begin(), available.end(), [](const VkLayerProperties& l) {
      return std::strcmp(l.layerName, kValidationLayer) == 0;
    });
    if (!found) {
      delete context;
      return fail(Error::kVulkan,
                  "createVulkanContext: validation requested but VK_LAYER_KHRONOS_validation is not "
                  "installed (VK_ERROR_LAYER_NOT_PRESENT; install vulkan-validationlayers)");
    }
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "morphkit";
  app.pEngineName = "morphkit";
  app.apiVersion = VK_API_VERSION_1_2;
  VkDebugUtilsMessengerCreateInfoEXT messenger = messengerInfo(context);
  VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, &messenger};
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pNext = validation ? &features : nullptr;  // the messenger also sees instance creation
  info.pApplicationInfo = &app;
  info.enabledLayerCount = uint32_t(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VkResult r = vkCreateInstance(&info, nullptr, &context->instance);
  if (r != VK_SUCCESS) {
    delete context;
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
      return fail(Error::kNoDevice,
                  "createVulkanContext: no Vulkan device (install mesa-vulkan-drivers for a CPU implementation) "
                  "(vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER)");
    }
    return vulkanFailure("vkCreateInstance", r);
  }
  if (validation) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(context->instance, "vkCreateDebugUtilsMessengerEXT"));
    if (create) {
      r = create(context->instance, &messenger, nullptr, &context->messenger);
      if (r != VK_SUCCESS) {
        destroyVulkanContext(context);
        return vulkanFailure("vkCreateDebugUtilsMessengerEXT", r);
      }
    }
  }
  Status s = createDeviceObjects(*context, options);
  if (!s) {
    destroyVulkanContext(context);
    return s.error();
  }
  return context;
}

void destroyVulkanContext(VulkanContext* context, std::vector<std::string>* final_messages) {
  if (!context) return;
  if (context->device) {
    // A caller's device may be busy on other queues (and vkDeviceWaitIdle would need all of them externally
    // synchronized): the caller waits for morphkit's work itself (morphkit/vk/gpu_interop.h).
    if (context->owns_device) vkDeviceWaitIdle(context->device);
    vkDestroyQueryPool(context->device, context->timestamps, nullptr);
    vkDestroyFence(context->device, context->fence, nullptr);
    vkDestroyCommandPool(context->device, context->command_pool, nullptr);  // frees the command buffer
    if (context->owns_device) vkDestroyDevice(context->device, nullptr);
  }
  if (context->messenger) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(context->instance, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(context->instance, context->messenger, nullptr);
  }
  if (context->instance && context->owns_device) vkDestroyInstance(context->instance, nullptr);
  if (final_messages) *final_messages = std::move(context->messages);
  delete context;
}

const GpuDeviceInfo& gpuDeviceInfo(const VulkanContext& context) {
  return context.info;
}

std::vector<std::string> gpuValidationMessages(const VulkanContext& context) {
  std::lock_guard<std::mutex> lock(const_cast<VulkanContext&>(context).messages_mutex);
  return context.messages;
}

void clearGpuValidationMessages(VulkanContext& context) {
  std::lock_guard<std::mutex> lock(context.messages_mutex);
  context.messages.clear();
}

}  // namespace morphkit
