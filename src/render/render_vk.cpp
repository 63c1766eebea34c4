// SPDX-License-Identifier: MIT
// Images for the renderer: creation, upload through a staging buffer.
#include "render_vk.h"

#include <cstring>

namespace morphkit {

Expected<RenderImage> createRenderImage(VulkanContext& context, uint32_t width, uint32_t height, VkFormat format,
                                        VkImageUsageFlags usage, VkImageAspectFlags aspect) {
  RenderImage out;
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
  if (r != VK_SUCCESS) return vulkanFailure("vkCreateImage(" + std::to_string(width) + "×" + std::to_string(height) + ")", r);
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(context.device, out.image, &req);
  Expected<uint32_t> type = findMemoryType(context, req.memoryTypeBits, MemoryUse::kDevice);
  if (!type) {
    destroyRenderImage(context, out);
    return type.error();
  }
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = *type;
  r = vkAllocateMemory(context.device, &alloc, nullptr, &out.memory);
  if (r != VK_SUCCESS) {
    destroyRenderImage(context, out);
    return vulkanFailure("vkAllocateMemory(image, " + std::to_string(req.size) + " bytes)", r);
  }
  r = vkBindImageMemory(context.device, out.image, out.memory, 0);
  if (r != VK_SUCCESS) {
    destroyRenderImage(context, out);
    return vulkanFailure("vkBindImageMemory", r);
  }
  VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view.image = out.image;
  view.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view.format = format;
  view.subresourceRange = {aspect, 0, 1, 0, 1};
  r = vkCreateImageView(context.device, &view, nullptr, &out.view);
  if (r != VK_SUCCESS) {
    destroyRenderImage(context, out);
    return vulkanFailure("vkCreateImageView", r);
  }
  return out;
}

Expected<RenderImage> uploadRenderImage(VulkanContext& context, uint32_t width, uint32_t height, VkFormat format,
                                        const void* bytes, size_t size) {
  Expected<RenderImage> image = createRenderImage(context, width, height, format,
                                                  VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                                  VK_IMAGE_ASPECT_COLOR_BIT);
  if (!image) return image;
  Expected<GpuBuffer> staging = createBuffer(context, size, MemoryUse::kUpload);
  if (!staging) {
    destroyRenderImage(context, *image);
    return staging.error();
  }
  std::memcpy(staging->mapped, bytes, size);
  Status s = submitAndWait(context, [&](VkCommandBuffer cmd) {
    VkImageMemoryBarrier to_dst{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    to_dst.srcAccessMask = 0;
    to_dst.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_dst.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    to_dst.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    to_dst.srcQueueFamilyIndex = to_dst.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    to_dst.image = image->image;
    to_dst.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0, nullptr, 1, &to_dst);
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
                         VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0, nullptr, 0, nullptr,
                         1, &to_read);
  }, "uploadRenderImage");
  destroyBuffer(context, *staging);
  if (!s) {
    destroyRenderImage(context, *image);
    return s.error();
  }
  return image;
}

void destroyRenderImage(VulkanContext& context, RenderImage& image) {
  if (image.view) vkDestroyImageView(context.device, image.view, nullptr);
  if (image.image) vkDestroyImage(context.device, image.image, nullptr);
  if (image.memory) vkFreeMemory(context.device, image.memory, nullptr);
  image = RenderImage{};
}

}  // namespace morphkit

// ---- Sanitizer builds: keep the Vulkan driver loaded ----
