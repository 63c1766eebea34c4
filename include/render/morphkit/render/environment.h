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

#include "morphkit/model/error.h"

namespace morphkit {

struct VulkanContext;    // morphkit/vk/gpu.h
struct EnvironmentMaps;  // the GPU maps of one environment (src/render/environment.cpp)

// Linear RGB radiance, rows top to bottom (row 0 = +Y), 3 floats per pixel, every value finite and >= 0.
struct HdrImage {
  uint32_t width = 0, height = 0;
  std::vector<float> rgb;
};

// The caps of decodeRadianceHdr (docs/RENDER.md "Environment"): larger files are refused, not resampled.
constexpr uint32_t kMaxEnvironmentWidth = 8192;
constexpr uint32_t kMaxEnvironmentHeight = 4096;
constexpr size_t kMaxEnvironmentFileBytes = size_t(256) << 20;

// A Radiance RGBE (.hdr) file: "#?RADIANCE" or "#?RGBE" header, FORMAT=32-bit_rle_rgbe, resolution
// "-Y H +X W" (top row first, the only orientation accepted), flat or new-style run-length scanlines.
// A pixel (r, g, b, e) is m · 2^(e − 128) / 255 per channel, 0 when e = 0 (three.js's HDRLoader), clamped to
// 65504 (the half-float maximum the GPU maps hold; RGBE has no NaN, and e = 255 would be ~1e38: treated as Inf
// and clamped). Fails with kInvalidArgument ("not a Radiance HDR file: …", "truncated …") or kTooLarge (caps).
Expected<HdrImage> decodeRadianceHdr(std::span<const uint8_t> bytes);
// The inverse (flat scanlines when `run_length` is false), for tests and tools.
std::vector<uint8_t> encodeRadianceHdr(const HdrImage& image, bool run_length = true);

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
