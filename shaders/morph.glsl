// SPDX-License-Identifier: MIT
// morph.glsl — the morph-target math, written once (glTF 2.0 §3.7.2.2: the morphed attribute is the base plus
// Σ wᵢ·Δᵢ; normals and tangents are renormalized once deformed). Included by every path that morphs on the GPU:
// the compute kernels (morph.comp, crowd.comp), the renderer's vertex shader (shaders/render/mesh.vert) and the node
// materials' morph feature (src/material/node_morph.cpp, through shaderc's include callback; the text is embedded
// at build time). The paths differ in where the deltas live (docs/LAYOUTS.md), not in this math: each reads its
// layout's records and hands them to morphAdd.
#ifndef MORPHKIT_MORPH_GLSL
#define MORPHKIT_MORPH_GLSL

// One term of the sum: s + w·Δ as one fused multiply-add, so every path rounds a term the same way. `precise`:
// GLSL lets a driver split an fma whose result is not precise into a multiply and an add (two roundings); this one
// always rounds once. Each path's sum is a chain of these over its listed targets.
float morphAdd(float s, float w, float delta) {
  precise float r = fma(w, delta, s);
  return r;
}
vec2 morphAdd(vec2 s, float w, vec2 delta) {
  precise vec2 r = fma(vec2(w), delta, s);
  return r;
}
vec3 morphAdd(vec3 s, float w, vec3 delta) {
  precise vec3 r = fma(vec3(w), delta, s);
  return r;
}
vec4 morphAdd(vec4 s, float w, vec4 delta) {
  precise vec4 r = fma(vec4(w), delta, s);
  return r;
}

// A deformed normal or tangent back to unit length; a zero-length vector stays as it is (never NaN), like
// morphkit::normalize on the CPU.
vec3 morphRenormalize(vec3 v) {
  float len = length(v);
  return len > 0.0 ? v / len : v;
}

// ---- Band-major lists (the vertex paths: compiled where render_shared.h, included first, defines the bands) ----
#ifdef MSH_BAND_POSITION
// Bands: target t's attribute a is band t·bands + MSH_BAND_a (render_shared.h, included first): position, normal,
// then tangent when bands > 2. Where the deltas live is the includer's business: a path that calls
// morphAccumulate defines, after including this file, the three hooks declared below.
uint morphListTarget(uint k);                 // the k-th listed target
float morphListWeight(uint k);                // its weight
vec3 morphBandDelta(uint band, uint vertex);  // the xyz delta of `vertex` in `band`

// Adds Σ w·Δ over the `count` listed targets to the vertex's attributes (object space, before skinning).
// `skip_zero`: the list may hold zero weights (every target in order: the band-texture design's uniform, node materials), so a
// zero skips the target's delta reads; an active list (pack/active_targets.h: |w| > ε only) passes false and the
// loop has no branch. A constant at every call site, so the driver folds it.
void morphAccumulate(uint count, uint bands, uint vertex, bool skip_zero, inout vec3 position, inout vec3 normal,
                     inout vec3 tangent) {
  for (uint k = 0u; k < count; k = k + 1u) {
    float w = morphListWeight(k);
    if (skip_zero && w == 0.0) continue;
    uint band0 = morphListTarget(k) * bands;
    position = morphAdd(position, w, morphBandDelta(band0 + uint(MSH_BAND_POSITION), vertex));
    normal = morphAdd(normal, w, morphBandDelta(band0 + uint(MSH_BAND_NORMAL), vertex));
    if (bands > 2u) tangent = morphAdd(tangent, w, morphBandDelta(band0 + uint(MSH_BAND_TANGENT), vertex));
  }
}
#endif  // MSH_BAND_POSITION

#endif  // MORPHKIT_MORPH_GLSL
