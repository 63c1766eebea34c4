// SPDX-License-Identifier: MIT
// The built-in procedural studio environment (morphkit/render/environment.h studioEnvironment): CPU-only and pure.
#include <algorithm>
#include <cmath>

#include "morphkit/render/environment.h"

namespace morphkit {
namespace {

// A soft-edged rectangular light on the sphere: `u0..u1` columns, `v0..v1` rows (0..1), edges blurred by `soft`.
float softBox(float u, float v, float u0, float u1, float v0, float v1, float soft) {
  auto edge = [soft](float t, float a, float b) {
    const float inside = std::min(t - a, b - t);
    return std::clamp(inside / soft + 0.5f, 0.0f, 1.0f);
  };
  return edge(u, u0, u1) * edge(v, v0, v1);
}

}  // namespace

HdrImage studioEnvironment() {
  HdrImage image;
  image.width = 512;
  image.height = 256;
  image.rgb.resize(size_t(image.width) * image.height * 3);
  for (uint32_t y = 0; y < image.height; ++y) {
    const float v = (float(y) + 0.5f) / float(image.height);
    const float up = std::sin((0.5f - v) * 3.14159265f);  // +1 at the top, −1 at the bottom
    for (uint32_t x = 0; x < image.width; ++x) {
      const float u = (float(x) + 0.5f) / float(image.width);
      // Walls: neutral grey, lighter towards the ceiling; the floor darker and a little warm.
      float r, g, b;
      if (up >= 0.0f) {
        const float wall = 0.16f + 0.22f * up;
        r = wall * 0.98f, g = wall, b = wall * 1.03f;
      } else {
        const float floor = 0.05f + 0.07f * (1.0f + up);
        r = floor * 1.03f, g = floor, b = floor * 0.95f;
      }
      // Soft boxes (u = 0.75 is +Z, the front the auto camera looks from; 0.5 is +X, 0.25 is −Z, behind).
      const float key = softBox(u, v, 0.56f, 0.70f, 0.12f, 0.30f, 0.02f) * 6.0f;   // above front right
      const float fill = softBox(u, v, 0.84f, 0.98f, 0.30f, 0.46f, 0.03f) * 1.5f;  // front left, lower
      const float rim = softBox(u, v, 0.15f, 0.35f, 0.18f, 0.24f, 0.01f) * 3.0f;   // a strip behind
      const float lights = key + fill + rim;
      float* p = &image.rgb[(size_t(y) * image.width + x) * 3];
      p[0] = r + lights;
      p[1] = g + lights;
      p[2] = b + lights * 0.98f;
    }
  }
  return image;
}

}  // namespace morphkit
