// SPDX-License-Identifier: MIT
// The environment's GPU maps (morphkit/render/environment.h), made once at start-up in one submission:
//   1. the equirect resampled on the CPU to a power of two (width × width/2, at most kMaxPrefilterWidth),
//      uploaded as rgba16f, its mip chain blitted (box filter);
//   2. one dispatch per level of the prefiltered chain (GGX, level k ↔ roughness 1 − sqrt(1 − k / (levels − 1)),
//      three.js's PMREM mapping): env_prefilter.comp importance samples the sharp levels, env_integrate.comp sums
//      a kIntegrationWidth-wide source mip for the last kIntegrationLevels;
//   3. brdf_lut.comp: the split-sum table.
// The diffuse irradiance is the chain's roughest level (pbr.frag), as three.js reads its PMREM.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "environment_internal.h"
#include "morphkit_render_spirv/brdf_lut_comp.h"
#include "morphkit_render_spirv/env_integrate_comp.h"
#include "morphkit_render_spirv/env_prefilter_comp.h"
#include "renderer_state.h"

namespace morphkit {
namespace {

constexpr VkFormat kMapFormat = VK_FORMAT_R16G16B16A16_SFLOAT;  // filterable, blittable and storable everywhere

uint16_t toHalf(float value) {
  // Non-negative finite input (the decoder's rule), rounded to nearest.
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const int exponent = int((bits >> 23) & 0xFF) - 127 + 15;
  uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent >= 31) return uint16_t(sign | 0x7BFFu);  // clamp to 65504
  if (exponent <= 0) {
    if (exponent < -10) return uint16_t(sign);
    mantissa |= 0x800000u;
    const uint32_t shift = uint32_t(14 - exponent);
    return uint16_t(sign | ((mantissa + (1u << (shift - 1))) >> shift));
  }
  const uint32_t rounded = (uint32_t(exponent) << 10 | (mantissa >> 13)) + ((mantissa >> 12) & 1u);
  return uint16_t(sign | std::min(rounded, 0x7BFFu));
}

// One axis of a separable resample of 3-float pixels: a box average of the source texels whose centres fall in
// the target texel when shrinking, linear interpolation when growing. U wraps (the equirect's seam), V clamps.
std::vector<float> resampleAxis(const std::vector<float>& in, uint32_t w, uint32_t h, uint32_t out_n, bool horizontal) {
  const uint32_t n = horizontal ? w : h;
  const uint32_t lines = horizontal ? h : w;
  std::vector<float> out(size_t(out_n) * lines * 3);
  auto at = [&](uint32_t line, uint32_t i, uint32_t len) -> size_t {
    return horizontal ? (size_t(line) * len + i) * 3 : (size_t(i) * w + line) * 3;
  };
  const double scale = double(n) / double(out_n);
  for (uint32_t line = 0; line < lines; ++line) {
    for (uint32_t o = 0; o < out_n; ++o) {
      float sum[3] = {0, 0, 0};
      if (scale >= 1.0) {
        const uint32_t first = uint32_t(std::floor(o * scale)),
                       last = std::max(first + 1, uint32_t(std::floor((o + 1) * scale)));
        for (uint32_t i = first; i < last && i < n; ++i) {
          for (int c = 0; c < 3; ++c) sum[c] += in[at(line, i, n) + c];
        }
        for (int c = 0; c < 3; ++c) sum[c] /= float(std::min(last, n) - first);
      } else {
        const double x = (o + 0.5) * scale - 0.5;
        const double x0 = std::floor(x);
        const float t = float(x - x0);
        auto index = [&](int64_t i) {
          if (horizontal) return uint32_t(((i % int64_t(n)) + int64_t(n)) % int64_t(n));
          return uint32_t(std::clamp<int64_t>(i, 0, int64_t(n) - 1));
        };
        const size_t a = at(line, index(int64_t(x0)), n), b = at(line, index(int64_t(x0) + 1), n);
        for (int c = 0; c < 3; ++c) sum[c] = in[a + c] * (1.0f - t) + in[b + c] * t;
      }
      const size_t dst = horizontal ? (size_t(line) * out_n + o) * 3 : (size_t(o) * w + line) * 3;
      std::memcpy(&out[dst], sum, sizeof sum);
    }
  }
  return out;
}

// The source as rgba16f texels at width × width/2.
std::vector<uint16_t> sourceTexels(const HdrImage& image, uint32_t width) {
  std::vector<float> resampled;
  if (image.width != width || image.height != width / 2) {
    resampled = resampleAxis(image.rgb, image.width, image.height, width, true);
    resampled = resampleAxis(resampled, width, image.height, width / 2, false);
  }
  const std::vector<float>& pixels = resampled.empty() ? image.rgb : resampled;
  std::vector<uint16_t> out(size_t(width) * (width / 2) * 4);
  for (size_t p = 0; p < out.size() / 4; ++p) {
    for (int c = 0; c < 3; ++c) out[p * 4 + c] = toHalf(std::max(pixels[p * 3 + c], 0.0f));
    out[p * 4 + 3] = toHalf(1.0f);
  }
  return out;
}

// The kernels: one set layout (0 source sampler, 1 storage image), three pipelines.
struct EnvironmentKernels {
  VkDevice device = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline prefilter = VK_NULL_HANDLE, integrate = VK_NULL_HANDLE, table = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  std::vector<VkImageView> level_views;
  ~EnvironmentKernels() {
    for (VkImageView v : level_views) vkDestroyImageView(device, v, nullptr);
    vkDestroyDescriptorPool(device, pool, nullptr);
    for (VkPipeline p : {prefilter, integrate, table}) vkDestroyPipeline(device, p, nullptr);
    vkDestroyPipelineLayout(device, layout, nullptr);
    vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
  }
};

Status createKernel(VkDevice device, VkPipelineLayout layout, const uint32_t* words, size_t bytes, VkPipeline& out) {
  Expected<VkShaderModule> module = createShaderModule(device, words, bytes);
  if (!module) return module.error();
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = *module;
  info.stage.pName = "main";
  info.layout = layout;
  Status s = checkVk(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, &out),
                     "vkCreateComputePipelines(environment)");
  vkDestroyShaderModule(device, *module, nullptr);
  return s;
}

Status createKernels(VulkanContext& ctx, uint32_t sets, EnvironmentKernels& k) {
  k.device = ctx.device;
  const VkDescriptorSetLayoutBinding bindings[2] = {
      {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_info.bindingCount = 2;
  set_info.pBindings = bindings;
  if (Status s = checkVk(vkCreateDescriptorSetLayout(ctx.device, &set_info, nullptr, &k.set_layout),
                         "vkCreateDescriptorSetLayout(environment)");
      !s)
    return s;
  const VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 32};
  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &k.set_layout;
  layout.pushConstantRangeCount = 1;
  layout.pPushConstantRanges = &push;
  if (Status s = checkVk(vkCreatePipelineLayout(ctx.device, &layout, nullptr, &k.layout),
                         "vkCreatePipelineLayout(environment)");
      !s)
    return s;
  namespace sp = gpu::spirv;
  if (Status s = createKernel(ctx.device, k.layout, sp::kEnvPrefilterComp, sizeof sp::kEnvPrefilterComp, k.prefilter);
      !s)
    return s;
  if (Status s = createKernel(ctx.device, k.layout, sp::kEnvIntegrateComp, sizeof sp::kEnvIntegrateComp, k.integrate);
      !s)
    return s;
  if (Status s = createKernel(ctx.device, k.layout, sp::kBrdfLutComp, sizeof sp::kBrdfLutComp, k.table); !s) return s;
  const VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, sets},
                                         {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, sets}};
  VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool.maxSets = sets;
  pool.poolSizeCount = 2;
  pool.pPoolSizes = sizes;
  return checkVk(vkCreateDescriptorPool(ctx.device, &pool, nullptr, &k.pool), "vkCreateDescriptorPool(environment)");
}

// A set reading the source and writing `target`.
Expected<VkDescriptorSet> kernelSet(VulkanContext& ctx, EnvironmentKernels& k, const EnvironmentMaps& m,
                                    VkImageView target) {
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = k.pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &k.set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (Status s = checkVk(vkAllocateDescriptorSets(ctx.device, &alloc, &set), "vkAllocateDescriptorSets(environment)");
      !s)
    return s.error();
  const VkDescriptorImageInfo source{m.environment_sampler, m.source.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  const VkDescriptorImageInfo storage{VK_NULL_HANDLE, target, VK_IMAGE_LAYOUT_GENERAL};
  const VkWriteDescriptorSet writes[2] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, 0, 0, 1,
                                           VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &source, nullptr, nullptr},
                                          {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, 1, 0, 1,
                                           VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, &storage, nullptr, nullptr}};
  vkUpdateDescriptorSets(ctx.device, 2, writes, 0, nullptr);
  return set;
}

Status createMapSamplers(VulkanContext& ctx, EnvironmentMaps& m) {
  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = info.minFilter = VK_FILTER_LINEAR;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR;
  info.addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT;
  info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  info.maxLod = float(std::max(m.source_levels, m.levels));
  if (Status s = checkVk(vkCreateSampler(ctx.device, &info, nullptr, &m.environment_sampler), "vkCreateSampler"); !s)
    return s;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  info.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  info.maxLod = 0.0f;
  return checkVk(vkCreateSampler(ctx.device, &info, nullptr, &m.table_sampler), "vkCreateSampler");
}

Status createImages(VulkanContext& ctx, uint32_t width, EnvironmentMaps& m) {
  m.source_levels = uint32_t(std::log2(double(width))) + 1;
  m.levels = std::max(uint32_t(std::log2(double(width))) - 3, 2u);
  RenderImageDesc desc;
  desc.width = width;
  desc.height = width / 2;
  desc.format = kMapFormat;
  desc.levels = m.source_levels;
  desc.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  Expected<GpuImage> source = createRenderImage(ctx, desc);
  if (!source) return source.error();
  m.source = *source;
  desc.levels = m.levels;
  desc.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  Expected<GpuImage> prefiltered = createRenderImage(ctx, desc);
  if (!prefiltered) return prefiltered.error();
  m.prefiltered = *prefiltered;
  desc.width = desc.height = kBrdfTableSize;
  desc.levels = 1;
  Expected<GpuImage> brdf = createRenderImage(ctx, desc);
  if (!brdf) return brdf.error();
  m.brdf = *brdf;
  return createMapSamplers(ctx, m);
}

// Upload → blit chain → shader-read, in `cmd`.
void recordSourceChain(VkCommandBuffer cmd, const EnvironmentMaps& m, VkBuffer staging) {
  constexpr VkPipelineStageFlags kTransfer = VK_PIPELINE_STAGE_TRANSFER_BIT;
  imageBarrier(cmd, m.source.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
               VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, kTransfer);
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {m.source.width, m.source.height, 1};
  vkCmdCopyBufferToImage(cmd, staging, m.source.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
  for (uint32_t level = 1; level < m.source_levels; ++level) {
    imageBarrier(cmd, m.source.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                 VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, kTransfer, kTransfer, level - 1, 1);
    VkImageBlit blit{};
    blit.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level - 1, 0, 1};
    blit.srcOffsets[1] = {int32_t(std::max(m.source.width >> (level - 1), 1u)),
                          int32_t(std::max(m.source.height >> (level - 1), 1u)), 1};
    blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
    blit.dstOffsets[1] = {int32_t(std::max(m.source.width >> level, 1u)),
                          int32_t(std::max(m.source.height >> level, 1u)), 1};
    vkCmdBlitImage(cmd, m.source.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, m.source.image,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_LINEAR);
  }
  const uint32_t last = m.source_levels - 1;
  if (last > 0) {
    imageBarrier(cmd, m.source.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                 VK_ACCESS_TRANSFER_READ_BIT, VK_ACCESS_SHADER_READ_BIT, kTransfer,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, last);
  }
  imageBarrier(cmd, m.source.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
               VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT, kTransfer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
               last, 1);
}

struct PrefilterPush {
  float roughness, source_texel_log2;
  uint32_t width, height, samples;
};
struct IntegratePush {
  float roughness;
  uint32_t source_lod, width, height;
};
struct TablePush {
  uint32_t size, samples;
};

// The prefiltered chain, a dispatch per level: importance sampled, or summed over every texel of the source mip
// kIntegrationWidth wide for the last kIntegrationLevels (a wide lobe would otherwise read coarse equirect mips).
void recordPrefilter(VkCommandBuffer cmd, const EnvironmentKernels& k, const EnvironmentMaps& m,
                     const std::vector<VkDescriptorSet>& level_sets, float source_texel_log2) {
  const uint32_t integrated_from = m.levels > kIntegrationLevels ? m.levels - kIntegrationLevels : 1;
  const uint32_t source_lod =
      m.source.width > kIntegrationWidth ? uint32_t(std::log2(double(m.source.width / kIntegrationWidth))) : 0;
  for (uint32_t level = 0; level < m.levels; ++level) {
    const float roughness = 1.0f - std::sqrt(1.0f - float(level) / float(m.levels - 1));
    const uint32_t width = std::max(m.prefiltered.width >> level, 1u),
                   height = std::max(m.prefiltered.height >> level, 1u);
    const bool integrated = level >= integrated_from;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, integrated ? k.integrate : k.prefilter);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &level_sets[level], 0, nullptr);
    if (integrated) {
      const IntegratePush push{roughness, source_lod, width, height};
      vkCmdPushConstants(cmd, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    } else {
      const PrefilterPush push{roughness, source_texel_log2, width, height, kPrefilterSamples};
      vkCmdPushConstants(cmd, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    }
    vkCmdDispatch(cmd, (width + 7) / 8, (height + 7) / 8, 1);
  }
}

Status runKernels(VulkanContext& ctx, EnvironmentMaps& m, const std::vector<uint16_t>& texels) {
  EnvironmentKernels k;
  if (Status s = createKernels(ctx, m.levels + 1, k); !s) return s;
  std::vector<VkDescriptorSet> level_sets;
  for (uint32_t level = 0; level < m.levels; ++level) {
    Expected<VkImageView> view = createLevelView(ctx, m.prefiltered, level);
    if (!view) return view.error();
    k.level_views.push_back(*view);
    Expected<VkDescriptorSet> set = kernelSet(ctx, k, m, *view);
    if (!set) return set.error();
    level_sets.push_back(*set);
  }
  Expected<VkDescriptorSet> table_set = kernelSet(ctx, k, m, m.brdf.view);
  if (!table_set) return table_set.error();
  Expected<GpuBuffer> staging = createBuffer(ctx, texels.size() * 2, MemoryUse::kUpload);
  if (!staging) return staging.error();
  std::memcpy(staging->mapped, texels.data(), texels.size() * 2);
  const float texel_log2 = float(std::log2(4.0 * 3.14159265358979 / (double(m.source.width) * m.source.height)));
  constexpr VkPipelineStageFlags kCompute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  Status s = submitAndWait(
      ctx,
      [&](VkCommandBuffer cmd) {
        recordSourceChain(cmd, m, staging->buffer);
        for (VkImage image : {m.prefiltered.image, m.brdf.image}) {
          imageBarrier(cmd, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, kCompute);
        }
        recordPrefilter(cmd, k, m, level_sets, texel_log2);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.table);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &*table_set, 0, nullptr);
        TablePush table{kBrdfTableSize, kBrdfTableSamples};
        vkCmdPushConstants(cmd, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof table, &table);
        vkCmdDispatch(cmd, (kBrdfTableSize + 7) / 8, (kBrdfTableSize + 7) / 8, 1);
        for (VkImage image : {m.prefiltered.image, m.brdf.image}) {
          imageBarrier(cmd, image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                       VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT, kCompute,
                       VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT);
        }
      },
      "createEnvironmentMaps");
  destroyBuffer(ctx, *staging);
  return s;
}

uint32_t floorPowerOfTwo(uint32_t v) {
  uint32_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

}  // namespace

Expected<EnvironmentMaps*> createEnvironmentMaps(VulkanContext& ctx, const HdrImage* image) {
  if (image &&
      (image->width == 0 || image->height == 0 || image->rgb.size() != size_t(image->width) * image->height * 3)) {
    return fail(Error::kInvalidArgument, "createEnvironmentMaps: the image's size does not match its pixels");
  }
  const auto start = std::chrono::steady_clock::now();
  auto* m = new EnvironmentMaps();
  m->ctx = &ctx;
  m->black = image == nullptr;
  HdrImage black;
  if (!image) {
    black.width = kMinPrefilterWidth;
    black.height = kMinPrefilterWidth / 2;
    black.rgb.assign(size_t(black.width) * black.height * 3, 0.0f);
    image = &black;
  }
  const uint32_t width = std::clamp(floorPowerOfTwo(image->width), kMinPrefilterWidth, kMaxPrefilterWidth);
  Status s = createImages(ctx, width, *m);
  if (s) s = runKernels(ctx, *m, sourceTexels(*image, width));
  if (!s) {
    destroyEnvironmentMaps(m);
    return s.error();
  }
  m->startup_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return m;
}

void destroyEnvironmentMaps(EnvironmentMaps* m) {
  if (!m) return;
  VulkanContext& ctx = *m->ctx;
  vkDeviceWaitIdle(ctx.device);
  vkDestroySampler(ctx.device, m->environment_sampler, nullptr);
  vkDestroySampler(ctx.device, m->table_sampler, nullptr);
  destroyImage(ctx, m->source);
  destroyImage(ctx, m->prefiltered);
  destroyImage(ctx, m->brdf);
  delete m;
}

namespace {

float fromHalf(uint16_t h) {
  const uint32_t exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (exponent == 0) return sign * std::ldexp(float(mantissa), -24);
  if (exponent == 31) return sign * 65504.0f;
  return sign * std::ldexp(float(mantissa | 0x400), int(exponent) - 25);
}

// Level `level` of `image` (rgba16f, SHADER_READ_ONLY) as `channels` floats per texel.
Expected<std::vector<float>> readLevel(VulkanContext& ctx, const GpuImage& image, uint32_t level, int channels) {
  const uint32_t w = std::max(image.width >> level, 1u), h = std::max(image.height >> level, 1u);
  Expected<GpuBuffer> buffer = createBuffer(ctx, VkDeviceSize(w) * h * 8, MemoryUse::kReadback);
  if (!buffer) return buffer.error();
  Status s = submitAndWait(
      ctx,
      [&](VkCommandBuffer cmd) {
        imageBarrier(cmd, image.image, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                     VK_ACCESS_SHADER_READ_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                     VK_PIPELINE_STAGE_TRANSFER_BIT, level, 1);
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
        region.imageExtent = {w, h, 1};
        vkCmdCopyImageToBuffer(cmd, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer->buffer, 1, &region);
        imageBarrier(cmd, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                     VK_ACCESS_TRANSFER_READ_BIT, VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                     VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, level, 1);
        VkMemoryBarrier host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, nullptr,
                             0, nullptr);
      },
      "environmentInfo");
  std::vector<float> out;
  if (s) {
    const auto* texels = static_cast<const uint16_t*>(buffer->mapped);
    for (size_t t = 0; t < size_t(w) * h; ++t) {
      for (int c = 0; c < channels; ++c) out.push_back(fromHalf(texels[t * 4 + c]));
    }
  }
  destroyBuffer(ctx, *buffer);
  if (!s) return s.error();
  return out;
}

}  // namespace

Expected<EnvironmentInfo> environmentInfo(VulkanContext& ctx, const EnvironmentMaps& m) {
  EnvironmentInfo info;
  info.width = m.prefiltered.width;
  info.height = m.prefiltered.height;
  info.levels = m.levels;
  info.startup_ms = m.startup_ms;
  info.roughest_width = std::max(m.prefiltered.width >> (m.levels - 1), 1u);
  info.roughest_height = std::max(m.prefiltered.height >> (m.levels - 1), 1u);
  Expected<std::vector<float>> roughest = readLevel(ctx, m.prefiltered, m.levels - 1, 3);
  if (!roughest) return roughest.error();
  info.roughest = std::move(*roughest);
  info.table_size = kBrdfTableSize;
  Expected<std::vector<float>> table = readLevel(ctx, m.brdf, 0, 2);
  if (!table) return table.error();
  info.table = std::move(*table);
  return info;
}

}  // namespace morphkit
