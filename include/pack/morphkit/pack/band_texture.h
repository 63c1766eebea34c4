// SPDX-License-Identifier: MIT
// morphkit/pack/band_texture.h — part of the pack module (src/pack/, docs/LAYOUTS.md §9): the vertex path's morph
// texture (band-texture path "Tiled Texture Layout"), a pure function with a decoder. No Vulkan.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "morphkit/model/error.h"
#include "morphkit/model/primitive.h"

namespace morphkit {

// texWidth = min(vertexCount, maxDimension); rowsPerBand = ceil(vertexCount / texWidth); bands in order
// target 0 position, target 0 normal, [target 0 tangent,] target 1 position, ...; vertex `vid` of band `b` lives at
// texel (vid % texWidth, b · rowsPerBand + vid / texWidth). Texels are RGBA32F: xyz = delta, w = 0.
struct MorphTextureLayout {
  uint32_t vertex_count = 0, target_count = 0;
  uint32_t bands_per_target = 2;  // 2: position, normal (the band-texture design); 3: + tangent (beyond it)
  uint32_t tex_width = 0, rows_per_band = 0;
  uint32_t height = 0;  // target_count · bands_per_target · rows_per_band
};
// Fails (kInvalidArgument) for vertex_count 0, bands not 2 or 3, max_dimension 0; (kTooLarge) when the height
// exceeds max_dimension (the device's maxImageDimension2D).
Expected<MorphTextureLayout> morphTextureLayout(uint32_t vertex_count, uint32_t target_count, uint32_t bands_per_target,
                                                uint32_t max_dimension);
struct MorphTexel {
  uint32_t x = 0, y = 0;
};
MorphTexel morphTexel(const MorphTextureLayout& layout, uint32_t vertex, uint32_t target, uint32_t band);
// layout.tex_width × layout.height × 4 floats. Targets without an attribute leave zeros there.
// Requires layout.vertex_count == primitive.vertex_count and layout.target_count == primitive.targets.size().
std::vector<float> packMorphTexture(const PrimitiveData& primitive, const MorphTextureLayout& layout);
// Decoder: band `band` of `target` as 3 × vertex_count floats.
std::vector<float> unpackMorphBand(const MorphTextureLayout& layout, std::span<const float> texels, uint32_t target,
                                   uint32_t band);

// 3 when the primitive has tangents and any target moves them (the tangent band, beyond the band-texture design), else
// 2: the node material's delta buffer (morphkit/pack/node_morph_buffers.h). The vertex path also drops the tangent band
// when the material has no normal map (render/renderer.cpp), since nothing would read it.
uint32_t morphBandsPerTarget(const PrimitiveData& primitive);

}  // namespace morphkit
