// SPDX-License-Identifier: MIT
// Images for the renderer: creation, upload through a staging buffer, image URIs.
#include "render_vk.h"

#include <cstring>
#include <filesystem>

#include "morphkit/io.h"

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

namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

}  // namespace

Expected<std::vector<uint8_t>> readImageUri(const Asset& asset, const std::string& uri, const std::string& where) {
  if (uri.rfind("data:", 0) == 0) {
    const size_t comma = uri.find(',');
    if (comma == std::string::npos || uri.substr(0, comma).find(";base64") == std::string::npos) {
      return fail(Error::kInvalidGltf, where + ": data URI is not base64");
    }
    std::vector<uint8_t> out;
    uint32_t bits = 0;
    int count = 0;
    for (size_t i = comma + 1; i < uri.size(); ++i) {
      if (uri[i] == '=') break;
      const int v = base64Value(uri[i]);
      if (v < 0) return fail(Error::kInvalidGltf, where + ": invalid base64 character");
      bits = (bits << 6) | uint32_t(v);
      if (++count == 4) {
        out.push_back(uint8_t(bits >> 16));
        out.push_back(uint8_t(bits >> 8));
        out.push_back(uint8_t(bits));
        bits = 0;
        count = 0;
      }
    }
    if (count == 2) out.push_back(uint8_t(bits >> 4));
    if (count == 3) {
      out.push_back(uint8_t(bits >> 10));
      out.push_back(uint8_t(bits >> 2));
    }
    return out;
  }
  if (uri.empty()) return fail(Error::kInvalidGltf, where + ": no uri and no bufferView");
  // glTF 2.0 §3.3: URIs are RFC 3986 references, percent-encoded.
  std::string path;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hexValue(uri[i + 1]) >= 0 && hexValue(uri[i + 2]) >= 0) {
      path += char(hexValue(uri[i + 1]) * 16 + hexValue(uri[i + 2]));
      i += 2;
    } else {
      path += uri[i];
    }
  }
  if (path.find("://") != std::string::npos) return fail(Error::kUnsupportedExtension, where + ": remote URI " + uri);
  const std::filesystem::path relative(path);
  if (relative.is_absolute()) return fail(Error::kPathEscapesFolder, where + ": absolute path " + uri);
  std::error_code ec;
  const std::filesystem::path base = std::filesystem::weakly_canonical(asset.base_dir, ec);
  const std::filesystem::path full = std::filesystem::weakly_canonical(asset.base_dir / relative, ec);
  const std::string base_text = base.string(), full_text = full.string();
  if (ec || full_text.compare(0, base_text.size(), base_text) != 0 ||
      (full_text.size() > base_text.size() && full_text[base_text.size()] != '/' && base_text.back() != '/')) {
    return fail(Error::kPathEscapesFolder, where + ": " + uri + " points outside the asset's folder");
  }
  Expected<std::vector<uint8_t>> bytes = readFile(full, size_t(256) << 20);
  if (!bytes) return fail(bytes.error().code, where + ": " + bytes.error().message);
  return bytes;
}

}  // namespace morphkit

// ---- Sanitizer builds: keep the Vulkan driver loaded ----
