// SPDX-License-Identifier: MIT
// environment_internal.h — internal: the GPU maps behind morphkit/render/environment.h's EnvironmentMaps handle, read
// by the mesh program's frame set (pipelines.cpp) and node materials' set (path_node.cpp), written once by
// environment.cpp.
#pragma once
#include <vulkan/vulkan.h>

#include "morphkit/render/environment.h"
#include "vk_context.h"

namespace morphkit {

// Binding order and sizes the shaders and C++ agree on (pbr.frag reads the two maps in set 0).
constexpr uint32_t kBrdfTableSize = 16;  // N·V × roughness texels, texel centres at (i + 0.5) / 16 (three.js r187)
constexpr uint32_t kBrdfTableSamples = 4096;   // GGX samples per table texel (three.js r187)
constexpr uint32_t kPrefilterSamples = 256;    // GGX samples per prefiltered texel (filtered importance sampling)
constexpr uint32_t kIntegrationLevels = 3;     // the roughest levels, summed over every texel (three.js r187: 3)
constexpr uint32_t kIntegrationWidth = 64;     // the source mip they sum: 64 × 32 texels (three.js: 6 × 16²)
constexpr uint32_t kMaxPrefilterWidth = 1024;  // level 0 of the chain: the source resampled to a power of two
constexpr uint32_t kMinPrefilterWidth = 32;

struct EnvironmentMaps {
  VulkanContext* ctx = nullptr;
  bool black = false;  // the "none" maps
  GpuImage source;     // the equirect resampled to width × width/2, full mip chain (rgba16f)
  uint32_t source_levels = 0;
  GpuImage prefiltered;  // same size, `levels` levels, level k for roughness 1 − sqrt(1 − k / (levels − 1))
  uint32_t levels = 0;
  GpuImage brdf;                                   // kBrdfTableSize², (A, B) of the split sum
  VkSampler environment_sampler = VK_NULL_HANDLE;  // trilinear, U repeats, V clamps
  VkSampler table_sampler = VK_NULL_HANDLE;        // bilinear, clamped
  double startup_ms = 0;                           // the start-up submission, wall clock
};

// The two maps as every lit shader samples them (lighting.glsl): the built-in path's frame set (pipelines.cpp) and
// a node material's nodeEnvironmentMap / nodeBrdfTable (path_node.cpp) bind these same descriptors.
inline VkDescriptorImageInfo environmentMapInfo(const EnvironmentMaps& maps) {
  return {maps.environment_sampler, maps.prefiltered.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
}
inline VkDescriptorImageInfo brdfTableInfo(const EnvironmentMaps& maps) {
  return {maps.table_sampler, maps.brdf.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
}

}  // namespace morphkit
