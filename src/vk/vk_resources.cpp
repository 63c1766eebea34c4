// SPDX-License-Identifier: MIT
// Vulkan resources, created in one place: memory types, buffers (with staging uploads and downloads), 2D images
// and compute pipelines. Each has a create/destroy pair; the creator owns the object.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

#include "vk_context.h"

namespace morphkit {

namespace {

constexpr VkDeviceSize kStagingChunk = VkDeviceSize(64) << 20;

// One allocation of `use`'s memory for `req` (a buffer's or an image's), `next` chained to the allocate info.
Status allocateMemory(VulkanContext& context, const VkMemoryRequirements& req, MemoryUse use, const void* next,
                      const std::string& what, VkDeviceMemory& out) {
  Expected<uint32_t> type = findMemoryType(context, req.memoryTypeBits, use);
  if (!type) return type.error();
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, next};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = *type;
  const VkResult r = vkAllocateMemory(context.device, &alloc, nullptr, &out);
  if (r != VK_SUCCESS) return vulkanFailure("vkAllocateMemory(" + what + std::to_string(req.size) + " bytes)", r);
  return Ok{};
}

}  // namespace

// ---- Buffers ----
Expected<uint32_t> findMemoryType(const VulkanContext& context, uint32_t type_bits, MemoryUse use) {
  VkMemoryPropertyFlags required = 0, preferred = 0;
  switch (use) {
    case MemoryUse::kDevice:
      required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
    case MemoryUse::kUpload:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
    case MemoryUse::kReadback:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
      break;
  }
  int fallback = -1;
  for (uint32_t i = 0; i < context.memory.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    const VkMemoryPropertyFlags flags = context.memory.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return i;
    if (fallback < 0) fallback = int(i);
  }
  if (fallback >= 0) return uint32_t(fallback);
  char bits[16];
  std::snprintf(bits, sizeof bits, "0x%x", type_bits);
  return fail(Error::kVulkan, std::string("findMemoryType: no memory type among ") + bits + " has " +
                                  (use == MemoryUse::kDevice ? "DEVICE_LOCAL" : "HOST_VISIBLE|HOST_COHERENT"));
}

Expected<GpuBuffer> createBuffer(VulkanContext& context, VkDeviceSize size, MemoryUse use, VkBufferUsageFlags usage) {
  GpuBuffer buffer;
  buffer.size = std::max<VkDeviceSize>(size, 16);
  if (context.max_allocation && buffer.size > context.max_allocation) {
    return fail(Error::kOutOfMemory, "createBuffer: " + std::to_string(buffer.size) +
                                         " bytes exceed maxMemoryAllocationSize " +
                                         std::to_string(context.max_allocation));
  }
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = buffer.size;
  info.usage = usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = vkCreateBuffer(context.device, &info, nullptr, &buffer.buffer);
  if (r != VK_SUCCESS) return vulkanFailure("vkCreateBuffer", r);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(context.device, buffer.buffer, &req);
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  if (Status s = allocateMemory(context, req, use, &flags, "", buffer.memory); !s) {
    destroyBuffer(context, buffer);
    return s.error();
  }
  r = vkBindBufferMemory(context.device, buffer.buffer, buffer.memory, 0);
  if (r != VK_SUCCESS) {
    destroyBuffer(context, buffer);
    return vulkanFailure("vkBindBufferMemory", r);
  }
  if (use != MemoryUse::kDevice) {
    r = vkMapMemory(context.device, buffer.memory, 0, VK_WHOLE_SIZE, 0, &buffer.mapped);
    if (r != VK_SUCCESS) {
      destroyBuffer(context, buffer);
      return vulkanFailure("vkMapMemory", r);
    }
  }
  VkBufferDeviceAddressInfo address{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  address.buffer = buffer.buffer;
  buffer.address = vkGetBufferDeviceAddress(context.device, &address);
  return buffer;
}

void destroyBuffer(VulkanContext& context, GpuBuffer& buffer) {
  if (buffer.buffer) vkDestroyBuffer(context.device, buffer.buffer, nullptr);
  if (buffer.memory) vkFreeMemory(context.device, buffer.memory, nullptr);  // unmaps implicitly
  buffer = GpuBuffer{};
}

Status uploadToBuffer(VulkanContext& context, GpuBuffer& dst, VkDeviceSize offset, const void* bytes,
                      VkDeviceSize size) {
  if (size == 0) return Ok{};
  if (offset + size > dst.size) return fail(Error::kInvalidArgument, "uploadToBuffer: range exceeds the buffer");
  Expected<GpuBuffer> staging = createBuffer(context, std::min(size, kStagingChunk), MemoryUse::kUpload);
  if (!staging) return staging.error();
  Status status = Ok{};
  for (VkDeviceSize done = 0; done < size && status; done += kStagingChunk) {
    const VkDeviceSize chunk = std::min(kStagingChunk, size - done);
    std::memcpy(staging->mapped, static_cast<const uint8_t*>(bytes) + done, size_t(chunk));
    status = submitAndWait(
        context,
        [&](VkCommandBuffer cmd) {
          VkBufferCopy region{0, offset + done, chunk};
          vkCmdCopyBuffer(cmd, staging->buffer, dst.buffer, 1, &region);
          // Make the copy visible to every later compute read (the kernels read these buffers).
          VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
          barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
          barrier.dstAccessMask =
              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0,
                               nullptr, 0, nullptr);
        },
        "uploadToBuffer");
  }
  destroyBuffer(context, *staging);
  return status;
}

Status downloadFromBuffer(VulkanContext& context, const GpuBuffer& src, VkDeviceSize offset, void* out,
                          VkDeviceSize size) {
  if (size == 0) return Ok{};
  if (offset + size > src.size) return fail(Error::kInvalidArgument, "downloadFromBuffer: range exceeds the buffer");
  Expected<GpuBuffer> staging = createBuffer(context, std::min(size, kStagingChunk), MemoryUse::kReadback);
  if (!staging) return staging.error();
  Status status = Ok{};
  for (VkDeviceSize done = 0; done < size && status; done += kStagingChunk) {
    const VkDeviceSize chunk = std::min(kStagingChunk, size - done);
    status = submitAndWait(
        context,
        [&](VkCommandBuffer cmd) {
          VkBufferCopy region{offset + done, 0, chunk};
          vkCmdCopyBuffer(cmd, src.buffer, staging->buffer, 1, &region);
          VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
          barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
          barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                               nullptr, 0, nullptr);
        },
        "downloadFromBuffer");
    if (status) std::memcpy(static_cast<uint8_t*>(out) + done, staging->mapped, size_t(chunk));
  }
  destroyBuffer(context, *staging);
  return status;
}

// ---- Images ----
Expected<GpuImage> createImage(VulkanContext& context, uint32_t width, uint32_t height, VkFormat format,
                               VkImageUsageFlags usage, VkImageAspectFlags aspect) {
  GpuImage out;
  out.width = width;
  out.height = height;
  out.format = format;
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format;
  info.extent = {width, height, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkResult r = vkCreateImage(context.device, &info, nullptr, &out.image);
  if (r != VK_SUCCESS)
    return vulkanFailure("vkCreateImage(" + std::to_string(width) + "×" + std::to_string(height) + ")", r);
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(context.device, out.image, &req);
  if (Status s = allocateMemory(context, req, MemoryUse::kDevice, nullptr, "image, ", out.memory); !s) {
    destroyImage(context, out);
    return s.error();
  }
  r = vkBindImageMemory(context.device, out.image, out.memory, 0);
  if (r != VK_SUCCESS) {
    destroyImage(context, out);
    return vulkanFailure("vkBindImageMemory", r);
  }
  VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view.image = out.image;
  view.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view.format = format;
  view.subresourceRange = {aspect, 0, 1, 0, 1};
  r = vkCreateImageView(context.device, &view, nullptr, &out.view);
  if (r != VK_SUCCESS) {
    destroyImage(context, out);
    return vulkanFailure("vkCreateImageView", r);
  }
  return out;
}

Expected<GpuImage> uploadImage(VulkanContext& context, uint32_t width, uint32_t height, VkFormat format,
                               const void* bytes, size_t size) {
  Expected<GpuImage> image =
      createImage(context, width, height, format, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                  VK_IMAGE_ASPECT_COLOR_BIT);
  if (!image) return image;
  Expected<GpuBuffer> staging = createBuffer(context, size, MemoryUse::kUpload);
  if (!staging) {
    destroyImage(context, *image);
    return staging.error();
  }
  std::memcpy(staging->mapped, bytes, size);
  Status s = submitAndWait(
      context,
      [&](VkCommandBuffer cmd) {
        VkImageMemoryBarrier to_dst{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
        to_dst.srcAccessMask = 0;
        to_dst.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        to_dst.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        to_dst.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        to_dst.srcQueueFamilyIndex = to_dst.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        to_dst.image = image->image;
        to_dst.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                             nullptr, 1, &to_dst);
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {width, height, 1};
        vkCmdCopyBufferToImage(cmd, staging->buffer, image->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        VkImageMemoryBarrier to_read = to_dst;
        to_read.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        to_read.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
        to_read.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        to_read.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0, nullptr,
                             0, nullptr, 1, &to_read);
      },
      "uploadImage");
  destroyBuffer(context, *staging);
  if (!s) {
    destroyImage(context, *image);
    return s.error();
  }
  return image;
}

void destroyImage(VulkanContext& context, GpuImage& image) {
  if (image.view) vkDestroyImageView(context.device, image.view, nullptr);
  if (image.image) vkDestroyImage(context.device, image.image, nullptr);
  if (image.memory) vkFreeMemory(context.device, image.memory, nullptr);
  image = GpuImage{};
}

// ---- Compute pipelines ----
Expected<VkShaderModule> createShaderModule(VkDevice device, const uint32_t* words, size_t bytes) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = bytes;
  info.pCode = words;
  VkShaderModule module = VK_NULL_HANDLE;
  VkResult r = vkCreateShaderModule(device, &info, nullptr, &module);
  if (r != VK_SUCCESS) return vulkanFailure("vkCreateShaderModule", r);
  return module;
}

Status createComputePipeline(VulkanContext& context, const uint32_t* words, size_t bytes, uint32_t push_size,
                             ComputePipeline& out, const VkSpecializationInfo* specialization) {
  VkPipelineLayout& layout = out.layout;
  VkPipeline& pipeline = out.pipeline;
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &range;
  VkResult r = vkCreatePipelineLayout(context.device, &layout_info, nullptr, &layout);
  if (r != VK_SUCCESS) return vulkanFailure("vkCreatePipelineLayout", r);
  Expected<VkShaderModule> module = createShaderModule(context.device, words, bytes);
  if (!module) return module.error();
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = *module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = specialization;
  info.layout = layout;
  if (context.pipeline_statistics) {
    info.flags |=
        VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR | VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
  }
  r = vkCreateComputePipelines(context.device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline);
  vkDestroyShaderModule(context.device, *module, nullptr);
  if (r != VK_SUCCESS) return vulkanFailure("vkCreateComputePipelines", r);
  ++context.pipelines_created;
  return Ok{};
}

std::vector<PipelineStatistic> pipelineStatistics(VulkanContext& context, VkPipeline pipeline,
                                                  uint32_t executable_index) {
  std::vector<PipelineStatistic> out;
  if (!context.pipeline_statistics || pipeline == VK_NULL_HANDLE) return out;
  // Extension entry points: the loader exports only the core ones.
  auto statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetDeviceProcAddr(context.device, "vkGetPipelineExecutableStatisticsKHR"));
  if (!statistics) return out;
  VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
  executable.pipeline = pipeline;
  executable.executableIndex = executable_index;
  uint32_t count = 0;
  if (statistics(context.device, &executable, &count, nullptr) != VK_SUCCESS) return out;
  std::vector<VkPipelineExecutableStatisticKHR> stats(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
  if (statistics(context.device, &executable, &count, stats.data()) != VK_SUCCESS) return out;
  for (const VkPipelineExecutableStatisticKHR& s : stats) {
    double value = 0.0;
    switch (s.format) {
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
        value = s.value.b32 ? 1.0 : 0.0;
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        value = double(s.value.i64);
        break;
      case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        value = double(s.value.u64);
        break;
      default:
        value = s.value.f64;
        break;
    }
    out.push_back({s.name, value});
  }
  return out;
}

int64_t pipelineRegisters(VulkanContext& context, VkPipeline pipeline) {
  for (const PipelineStatistic& s : pipelineStatistics(context, pipeline)) {
    std::string lower = s.name;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (lower.find("register") != std::string::npos) return int64_t(s.value);
  }
  return -1;
}

std::string pipelineReport(VulkanContext& context, VkPipeline pipeline) {
  std::string text;
  if (!context.pipeline_statistics || pipeline == VK_NULL_HANDLE) return text;
  // Extension entry points: the loader exports only the core ones.
  auto properties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      vkGetDeviceProcAddr(context.device, "vkGetPipelineExecutablePropertiesKHR"));
  auto representations = reinterpret_cast<PFN_vkGetPipelineExecutableInternalRepresentationsKHR>(
      vkGetDeviceProcAddr(context.device, "vkGetPipelineExecutableInternalRepresentationsKHR"));
  if (!properties || !representations) return text;
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  info.pipeline = pipeline;
  uint32_t count = 0;
  if (properties(context.device, &info, &count, nullptr) != VK_SUCCESS) return text;
  std::vector<VkPipelineExecutablePropertiesKHR> executables(count,
                                                             {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  if (properties(context.device, &info, &count, executables.data()) != VK_SUCCESS) return text;
  for (uint32_t e = 0; e < count; ++e) {
    text += "executable " + std::to_string(e) + ": " + std::string(executables[e].name) + " (" +
            executables[e].description + "), subgroup size " + std::to_string(executables[e].subgroupSize) + "\n";
    VkPipelineExecutableInfoKHR executable{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    executable.pipeline = pipeline;
    executable.executableIndex = e;
    for (const PipelineStatistic& s : pipelineStatistics(context, pipeline, e)) {
      text += "  statistic " + s.name + " = " + std::to_string(s.value) + "\n";
    }
    uint32_t irs = 0;
    if (representations(context.device, &executable, &irs, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableInternalRepresentationKHR> ir(
        irs, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR});
    if (representations(context.device, &executable, &irs, ir.data()) != VK_SUCCESS) continue;
    std::vector<std::vector<char>> data(irs);
    for (uint32_t i = 0; i < irs; ++i) {  // second call with the sizes the first one returned
      data[i].resize(ir[i].dataSize);
      ir[i].pData = data[i].data();
    }
    if (representations(context.device, &executable, &irs, ir.data()) != VK_SUCCESS) continue;
    for (uint32_t i = 0; i < irs; ++i) {
      text += std::string("  representation ") + ir[i].name + " (" + ir[i].description + "), " +
              std::to_string(ir[i].dataSize) + " bytes" + (ir[i].isText ? "" : ", binary: not shown") + "\n";
      if (ir[i].isText && !data[i].empty())
        text += std::string(data[i].data(), strnlen(data[i].data(), data[i].size())) + "\n";
    }
  }
  return text;
}

void destroyComputePipeline(VulkanContext& context, ComputePipeline& pipeline) {
  vkDestroyPipeline(context.device, pipeline.pipeline, nullptr);
  vkDestroyPipelineLayout(context.device, pipeline.layout, nullptr);
  pipeline = ComputePipeline{};
}

}  // namespace morphkit
