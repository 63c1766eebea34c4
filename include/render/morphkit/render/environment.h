// SPDX-License-Identifier: MIT
// morphkit/render/environment.h — the image-based light of morphkit::render: equirectangular environments (a Radiance
// RGBE file or the built-in procedural studio) and their GPU maps (prefiltered GGX specular, whose roughest level
// is the diffuse irradiance, and the split-sum BRDF table), computed on the GPU once per environment and shared by
// renderers.
//
// Orientation (three.js's EquirectangularReflectionMapping): a world direction d = (x, y, z) reads the image at
//   u = atan2(z, x) / 2π + 0.5   (column, 0 = left edge = −X, 0.5 = +X, 0.75 = +Z)
//   v = 0.5 − asin(y) / π        (row from the top: the top row is +Y)
// after the environment rotation (RenderOptions::environment_rotation_deg, about +Y, as three.js's
// scene.environmentRotation.y).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "morphkit/image/hdr.h"
#include "morphkit/model/error.h"

namespace morphkit {

struct VulkanContext;    // morphkit/vk/gpu.h
struct EnvironmentMaps;  // the GPU maps of one environment (src/render/environment.cpp)

// The built-in studio: a neutral grey room, brighter above, a dark floor, two large soft boxes (key above front
// right, fill left) and a rim strip behind: 512 × 256, deterministic. Its mean radiance is about 0.3.
HdrImage studioEnvironment();

// The GPU maps of one environment on `context` (prefiltered equirect mip chain, BRDF table).
// Made once and handed to any number of renderers on the same context (RenderOptions::environment_maps);
// destroy after them. A null `image` makes the "none" maps (black, no light).
Expected<EnvironmentMaps*> createEnvironmentMaps(VulkanContext& context, const HdrImage* image);
void destroyEnvironmentMaps(EnvironmentMaps* maps);  // null is fine

// What the maps hold, for tests: the prefiltered chain's level sizes and roughness, its roughest level (the
// cosine-weighted mean radiance about each direction: E(n)/π, what multiplies the diffuse albedo) and the BRDF
// table, read back from the GPU.
struct EnvironmentInfo {
  uint32_t width = 0, height = 0;  // level 0 of the prefiltered chain
  uint32_t levels = 0;             // level k holds roughness 1 − sqrt(1 − k / (levels − 1)) (three.js's PMREM)
  // The roughest level (width >> (levels − 1) × its height, RGB rows top first) and the BRDF table
  // (size × size, (A, B) per texel, N·V along x, roughness along y), read back from the GPU.
  uint32_t roughest_width = 0, roughest_height = 0;
  std::vector<float> roughest;
  uint32_t table_size = 0;
  std::vector<float> table;
  double startup_ms = 0;  // the start-up submission (upload, chain, kernels), wall clock
};
Expected<EnvironmentInfo> environmentInfo(VulkanContext& context, const EnvironmentMaps& maps);

}  // namespace morphkit
