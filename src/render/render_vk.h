// SPDX-License-Identifier: MIT
// render_vk.h — internal: images and the few Vulkan helpers the renderer needs beyond src/vk/vk_context.h
// (which owns the context, buffers, memory types and submission; the renderer reuses those as they are).
#pragma once
#include <vulkan/vulkan.h>

#include <string>
#include <vector>

#include "morphkit/asset.h"
#include "morphkit/error.h"
#include "morphkit/gpu.h"
#include "vk_context.h"

namespace morphkit {

// One 2D image with one mip level, its own allocation and a view.
struct RenderImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  uint32_t width = 0, height = 0;
  VkFormat format = VK_FORMAT_UNDEFINED;
};

Expected<RenderImage> createRenderImage(VulkanContext& context, uint32_t width, uint32_t height, VkFormat format,
                                        VkImageUsageFlags usage, VkImageAspectFlags aspect);
// Creates a SAMPLED | TRANSFER_DST image, copies `bytes` (tightly packed rows) through a staging buffer and leaves it
// in SHADER_READ_ONLY_OPTIMAL, visible to vertex and fragment shader reads.
Expected<RenderImage> uploadRenderImage(VulkanContext& context, uint32_t width, uint32_t height, VkFormat format,
                                        const void* bytes, size_t size);
void destroyRenderImage(VulkanContext& context, RenderImage& image);  // resets it; an empty image is fine

// Where instance `instance` of a compute batch wrote its deformed vertices (interleaved VertexFormat).
struct GpuBatchOutput {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0, size = 0;
};

}  // namespace morphkit
