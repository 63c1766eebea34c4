// SPDX-License-Identifier: MIT
// morphkit/image/hdr.h — high-dynamic-range images on the CPU (morphkit::image): the linear RGB float image the
// renderer's image-based light starts from (morphkit/render/environment.h) and the Radiance RGBE (.hdr) codec.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "morphkit/model/error.h"

namespace morphkit {

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

}  // namespace morphkit
