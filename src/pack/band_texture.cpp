// SPDX-License-Identifier: MIT
// Band-texture path's tiled morph texture (docs/LAYOUTS.md §9): layout, texel address, packer and decoder. Pure, no
// Vulkan.
#include "morphkit/pack/band_texture.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace morphkit {

uint32_t morphBandsPerTarget(const PrimitiveData& primitive) {
  if (primitive.tangent.empty()) return 2;
  for (const MorphTargetData& target : primitive.targets) {
    if (!target.tangent.empty()) return 3;
  }
  return 2;
}

Expected<MorphTextureLayout> morphTextureLayout(uint32_t vertex_count, uint32_t target_count, uint32_t bands_per_target,
                                                uint32_t max_dimension) {
  if (vertex_count == 0) return fail(Error::kInvalidArgument, "morphTextureLayout: vertex count 0");
  if (bands_per_target != 2 && bands_per_target != 3) {
    return fail(Error::kInvalidArgument,
                "morphTextureLayout: bands per target must be 2 or 3, not " + std::to_string(bands_per_target));
  }
  if (max_dimension == 0) return fail(Error::kInvalidArgument, "morphTextureLayout: max dimension 0");
  MorphTextureLayout layout;
  layout.vertex_count = vertex_count;
  layout.target_count = target_count;
  layout.bands_per_target = bands_per_target;
  layout.tex_width = std::min(vertex_count, max_dimension);
  layout.rows_per_band = (vertex_count + layout.tex_width - 1) / layout.tex_width;
  const uint64_t height = uint64_t(target_count) * bands_per_target * layout.rows_per_band;
  if (height > max_dimension) {
    return fail(Error::kTooLarge, "morphTextureLayout: " + std::to_string(target_count) + " targets × " +
                                      std::to_string(bands_per_target) + " bands × " +
                                      std::to_string(layout.rows_per_band) + " rows = " + std::to_string(height) +
                                      " rows exceed maxImageDimension2D " + std::to_string(max_dimension));
  }
  layout.height = uint32_t(height);
  return layout;
}

MorphTexel morphTexel(const MorphTextureLayout& layout, uint32_t vertex, uint32_t target, uint32_t band) {
  const uint32_t b = target * layout.bands_per_target + band;
  return {vertex % layout.tex_width, b * layout.rows_per_band + vertex / layout.tex_width};
}

std::vector<float> packMorphTexture(const PrimitiveData& primitive, const MorphTextureLayout& layout) {
  std::vector<float> texels(size_t(layout.tex_width) * layout.height * 4, 0.0f);
  if (layout.vertex_count != primitive.vertex_count || layout.target_count != primitive.targets.size()) return texels;
  for (uint32_t t = 0; t < layout.target_count; ++t) {
    const MorphTargetData& target = primitive.targets[t];
    const std::vector<float>* bands[3] = {&target.position, &target.normal, &target.tangent};
    for (uint32_t b = 0; b < layout.bands_per_target; ++b) {
      const std::vector<float>& src = *bands[b];
      if (src.size() != size_t(layout.vertex_count) * 3) continue;  // the target does not move this attribute
      for (uint32_t v = 0; v < layout.vertex_count; ++v) {
        const MorphTexel texel = morphTexel(layout, v, t, b);
        float* dst = &texels[(size_t(texel.y) * layout.tex_width + texel.x) * 4];
        dst[0] = src[size_t(v) * 3 + 0];
        dst[1] = src[size_t(v) * 3 + 1];
        dst[2] = src[size_t(v) * 3 + 2];
      }
    }
  }
  return texels;
}

std::vector<float> unpackMorphBand(const MorphTextureLayout& layout, std::span<const float> texels, uint32_t target,
                                   uint32_t band) {
  std::vector<float> out(size_t(layout.vertex_count) * 3, 0.0f);
  if (texels.size() < size_t(layout.tex_width) * layout.height * 4 || target >= layout.target_count ||
      band >= layout.bands_per_target) {
    return out;
  }
  for (uint32_t v = 0; v < layout.vertex_count; ++v) {
    const MorphTexel texel = morphTexel(layout, v, target, band);
    const float* src = &texels[(size_t(texel.y) * layout.tex_width + texel.x) * 4];
    std::memcpy(&out[size_t(v) * 3], src, sizeof(float) * 3);
  }
  return out;
}

}  // namespace morphkit
