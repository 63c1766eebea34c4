// SPDX-License-Identifier: MIT
// The textured demo material's images (demo_internal.h makeSkinTextures): a skin's base colour, tangent-space normal
// map and occlusion-roughness-metallic map, made from one height field of multi-octave value noise and pores, so
// that they carry the fine, uncorrelated detail of a photographed skin (which is what makes real textures large
// and what a lossy encoder has to keep), not flat bands.
#include <algorithm>
#include <cmath>

#include "demo_internal.h"

namespace morphkit::demo_detail {
namespace {

// A 32-bit integer hash of a lattice point (lowbias32's finalizer): the same value on every platform.
uint32_t hash(uint32_t x, uint32_t y, uint32_t salt) {
  uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u ^ salt * 0xcb1ab31fu;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

float unit(uint32_t h) {
  return float(h >> 8) * (1.0f / 16777216.0f);  // [0, 1)
}

// Value noise: random values on a lattice `cell` pixels apart, blended with a smoothstep; in [0, 1).
float valueNoise(float x, float y, float cell, uint32_t salt) {
  const float fx = x / cell, fy = y / cell;
  const float x0 = std::floor(fx), y0 = std::floor(fy);
  const uint32_t ix = uint32_t(int32_t(x0)), iy = uint32_t(int32_t(y0));
  float tx = fx - x0, ty = fy - y0;
  tx = tx * tx * (3 - 2 * tx);
  ty = ty * ty * (3 - 2 * ty);
  const float a = unit(hash(ix, iy, salt)), b = unit(hash(ix + 1, iy, salt));
  const float c = unit(hash(ix, iy + 1, salt)), d = unit(hash(ix + 1, iy + 1, salt));
  return (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty;
}

// Octaves from `cell` pixels down to 2 pixels, each half the amplitude of the one before: in about [0, 1).
float fbm(float x, float y, float cell, uint32_t salt) {
  float sum = 0, amplitude = 0.5f, total = 0;
  for (uint32_t octave = 0; cell >= 2.0f; ++octave, cell *= 0.5f, amplitude *= 0.5f) {
    sum += amplitude * valueNoise(x, y, cell, salt + octave);
    total += amplitude;
  }
  return total > 0 ? sum / total : 0.5f;
}

// Pores: one per jittered cell of `cell` pixels, of radius 0.15-0.3 cells; the depth (0 outside, 1 at a centre)
// of the deepest pore covering the pixel.
float poreDepth(float x, float y, float cell, uint32_t salt) {
  const int32_t cx = int32_t(std::floor(x / cell)), cy = int32_t(std::floor(y / cell));
  float depth = 0;
  for (int32_t dy = -1; dy <= 1; ++dy) {
    for (int32_t dx = -1; dx <= 1; ++dx) {
      const uint32_t h = hash(uint32_t(cx + dx), uint32_t(cy + dy), salt);
      const float px = (float(cx + dx) + 0.2f + 0.6f * unit(h)) * cell;
      const float py = (float(cy + dy) + 0.2f + 0.6f * unit(h * 0x9e3779b9u)) * cell;
      const float radius = cell * (0.15f + 0.15f * unit(h ^ 0x5bd1e995u));
      const float r = std::hypot(x - px, y - py) / radius;
      if (r < 1) depth = std::max(depth, 1 - r * r);
    }
  }
  return depth;
}

uint8_t toByte(float v) {
  return uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
}

}  // namespace

SkinTextures makeSkinTextures(uint32_t size, uint64_t seed) {
  const uint32_t salt = uint32_t(seed ^ (seed >> 32)) * 0x27d4eb2du;
  const float scale = float(size) / 2048.0f;  // features keep their place on the face whatever the size
  const float pore_cell = std::max(2.0f, 11.0f * scale);
  // Height: broad undulation, fine grain and pores (0..1, pores are pits).
  std::vector<float> height(size_t(size) * size);
  std::vector<float> blotch(height.size());
  for (uint32_t y = 0; y < size; ++y) {
    for (uint32_t x = 0; x < size; ++x) {
      const float fx = float(x), fy = float(y);
      const float grain = fbm(fx, fy, 64.0f * scale, salt);
      const float pore = poreDepth(fx, fy, pore_cell, salt + 101);
      height[size_t(y) * size + x] = 0.7f * grain - 0.3f * pore;
      blotch[size_t(y) * size + x] = fbm(fx, fy, 256.0f * scale, salt + 202);
    }
  }
  SkinTextures out;
  out.size = size;
  out.base_color.resize(height.size() * 4);
  out.normal.resize(height.size() * 4);
  out.occlusion_roughness_metallic.resize(height.size() * 4);
  // Height units to slope: pores tilt the normal by up to ~40 degrees at 2048². A smaller map packs the same
  // features into fewer pixels, so its differences are steeper; the factor follows (down to a quarter).
  const float bump = 6.0f * std::clamp(scale, 0.25f, 1.0f);
  for (uint32_t y = 0; y < size; ++y) {
    for (uint32_t x = 0; x < size; ++x) {
      const size_t i = size_t(y) * size + x;
      const float h = height[i];
      // Base colour (sRGB): a skin tone, redder in the blotches, darker in the pits and with the grain.
      const float redness = std::clamp((blotch[i] - 0.45f) * 2.0f, 0.0f, 1.0f);
      const float light = 0.82f + 0.25f * (h - 0.35f);
      uint8_t* c = &out.base_color[i * 4];
      c[0] = toByte((0.88f + 0.06f * redness) * light);
      c[1] = toByte((0.66f - 0.10f * redness) * light);
      c[2] = toByte((0.55f - 0.08f * redness) * light);
      c[3] = 255;
      // Normal (tangent space, +Y up the image): the height field's central differences.
      const float hx =
          height[size_t(y) * size + std::min(x + 1, size - 1)] - height[size_t(y) * size + (x ? x - 1 : 0)];
      const float hy = height[size_t(std::min(y + 1, size - 1)) * size + x] - height[size_t(y ? y - 1 : 0) * size + x];
      const float nx = -hx * bump, ny = hy * bump, length = std::sqrt(nx * nx + ny * ny + 1.0f);
      uint8_t* n = &out.normal[i * 4];
      n[0] = toByte(nx / length * 0.5f + 0.5f);
      n[1] = toByte(ny / length * 0.5f + 0.5f);
      n[2] = toByte(1.0f / length * 0.5f + 0.5f);
      n[3] = 255;
      // Occlusion in the pits, rougher in the pits and the grain, no metal (glTF: R occlusion, G roughness, B metal).
      uint8_t* orm = &out.occlusion_roughness_metallic[i * 4];
      orm[0] = toByte(1.0f - 0.6f * std::max(0.0f, 0.35f - h));
      orm[1] = toByte(0.45f + 0.3f * (0.5f - h));
      orm[2] = 0;
      orm[3] = 255;
    }
  }
  return out;
}

}  // namespace morphkit::demo_detail
