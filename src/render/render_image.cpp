// SPDX-License-Identifier: MIT
// Images the renderer needs beyond src/vk's one-level, one-sample createImage: mip chains (the environment's
// maps), multisampled attachments (--msaa) and per-level views for storage writes. Same allocation rule as
// vk_resources.cpp (findMemoryType: DEVICE_LOCAL required, never an arbitrary type). Destroyed with destroyImage.
#include <algorithm>
#include <cstring>

#include "renderer_state.h"

namespace morphkit {

Expected<GpuImage> createRenderImage(VulkanContext& ctx, const RenderImageDesc& desc) {
  GpuImage out;
  out.width = desc.width;
  out.height = desc.height;
  out.format = desc.format;
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = desc.format;
  info.extent = {desc.width, desc.height, 1};
  info.mipLevels = desc.levels;
  info.arrayLayers = 1;
  info.samples = desc.samples;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = desc.usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  if (Status s = checkVk(vkCreateImage(ctx.device, &info, nullptr, &out.image), "vkCreateImage"); !s) return s.error();
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(ctx.device, out.image, &req);
  Expected<uint32_t> type = findMemoryType(ctx, req.memoryTypeBits, MemoryUse::kDevice);
  if (!type) {
    destroyImage(ctx, out);
    return type.error();
  }
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = *type;
  Status s = checkVk(vkAllocateMemory(ctx.device, &alloc, nullptr, &out.memory), "vkAllocateMemory(image)");
  if (s) s = checkVk(vkBindImageMemory(ctx.device, out.image, out.memory, 0), "vkBindImageMemory");
  if (s) {
    VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    view.image = out.image;
    view.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view.format = desc.format;
    view.subresourceRange = {desc.aspect, 0, desc.levels, 0, 1};
    s = checkVk(vkCreateImageView(ctx.device, &view, nullptr, &out.view), "vkCreateImageView");
  }
  if (!s) {
    destroyImage(ctx, out);
    return s.error();
  }
  return out;
}

Expected<VkImageView> createLevelView(VulkanContext& ctx, const GpuImage& image, uint32_t level) {
  VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view.image = image.image;
  view.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view.format = image.format;
  view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, level, 1, 0, 1};
  VkImageView out = VK_NULL_HANDLE;
  if (Status s = checkVk(vkCreateImageView(ctx.device, &view, nullptr, &out), "vkCreateImageView(level)"); !s)
    return s.error();
  return out;
}

Expected<GpuImage> uploadMipmappedImage(VulkanContext& ctx, uint32_t width, uint32_t height, VkFormat format,
                                        std::span<const uint8_t> rgba8) {
  uint32_t levels = 1;
  while ((std::max(width, height) >> levels) > 0) ++levels;
  RenderImageDesc desc{width,
                       height,
                       format,
                       VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                       VK_IMAGE_ASPECT_COLOR_BIT,
                       levels};
  Expected<GpuImage> image = createRenderImage(ctx, desc);
  if (!image) return image;
  Expected<GpuBuffer> staging = createBuffer(ctx, rgba8.size(), MemoryUse::kUpload);
  if (!staging) {
    destroyImage(ctx, *image);
    return staging.error();
  }
  std::memcpy(staging->mapped, rgba8.data(), rgba8.size());
  constexpr VkPipelineStageFlags kTransfer = VK_PIPELINE_STAGE_TRANSFER_BIT;
  const VkPipelineStageFlags shaders = VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
  Status s = submitAndWait(
      ctx,
      [&](VkCommandBuffer cmd) {
        imageBarrier(cmd, image->image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
                     VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, kTransfer);
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {width, height, 1};
        vkCmdCopyBufferToImage(cmd, staging->buffer, image->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        // Each level a linear (box) blit of the one above, in the image's own colour space.
        for (uint32_t level = 1; level < levels; ++level) {
          imageBarrier(cmd, image->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                       VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, kTransfer, kTransfer, level - 1, 1);
          VkImageBlit blit{};
          blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level - 1, 0, 1};
          blit.srcOffsets[1] = {int32_t(std::max(width >> (level - 1), 1u)),
                                int32_t(std::max(height >> (level - 1), 1u)), 1};
          blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
          blit.dstOffsets[1] = {int32_t(std::max(width >> level, 1u)), int32_t(std::max(height >> level, 1u)), 1};
          vkCmdBlitImage(cmd, image->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, image->image,
                         VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
        }
        if (levels > 1) {
          imageBarrier(cmd, image->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_READ_BIT, VK_ACCESS_SHADER_READ_BIT,
                       kTransfer, shaders, 0, levels - 1);
        }
        imageBarrier(cmd, image->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                     VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT, kTransfer, shaders, levels - 1, 1);
      },
      "uploadMipmappedImage");
  destroyBuffer(ctx, *staging);
  if (!s) {
    destroyImage(ctx, *image);
    return s.error();
  }
  return image;
}

void imageBarrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags src_access,
                  VkAccessFlags dst_access, VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage,
                  uint32_t base_level, uint32_t levels) {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, base_level, levels, 0, 1};
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, nullptr, 0, nullptr, 1, &b);
}

}  // namespace morphkit
