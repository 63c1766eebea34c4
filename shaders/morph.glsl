// SPDX-License-Identifier: MIT
// morph.glsl — the morph-target sum of one vertex, written once (glTF 2.0 §3.7.2.2: the morphed attribute is the
// base plus Σ wᵢ·Δᵢ). Included by every vertex path that reads band-major deltas: the renderer's vertex shader
// (shaders/render/mesh.vert: the seed's weights uniform and the active list) and the node materials' morph feature
// (src/material/node_morph.cpp, through shaderc's include callback; the text is embedded at build time). The
// compute kernel (morph.comp) reads vertex-tiled slabs and CSR rows instead (docs/LAYOUTS.md §3) and keeps its own
// loops, tuned per record shape.
//
// Bands: target t's attribute a is band t·bands + MSH_BAND_a (render_shared.h, included first): position, normal,
// then tangent when bands > 2. Where the deltas live is the includer's business: it defines, after including this
// file, the three hooks declared below.
#ifndef MORPHKIT_MORPH_GLSL
#define MORPHKIT_MORPH_GLSL

uint morphListTarget(uint k);                 // the k-th listed target
float morphListWeight(uint k);                // its weight; 0 adds nothing and is skipped
vec3 morphBandDelta(uint band, uint vertex);  // the xyz delta of `vertex` in `band`

// Adds Σ w·Δ over the `count` listed targets to the vertex's attributes (object space, before skinning).
void morphAccumulate(uint count, uint bands, uint vertex, inout vec3 position, inout vec3 normal, inout vec3 tangent) {
  for (uint k = 0u; k < count; k = k + 1u) {
    float w = morphListWeight(k);
    if (w == 0.0) continue;
    uint band0 = morphListTarget(k) * bands;
    position += w * morphBandDelta(band0 + uint(MSH_BAND_POSITION), vertex);
    normal += w * morphBandDelta(band0 + uint(MSH_BAND_NORMAL), vertex);
    if (bands > 2u) tangent += w * morphBandDelta(band0 + uint(MSH_BAND_TANGENT), vertex);
  }
}

#endif  // MORPHKIT_MORPH_GLSL
