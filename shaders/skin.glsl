// SPDX-License-Identifier: MIT
// skin.glsl — linear blend skinning's blended matrix, written once (glTF 2.0 §3.7.3.3: skinned = Σⱼ wⱼ·Mⱼ · morphed,
// Mⱼ = world(joint) · inverseBindMatrix, over every JOINTS_n/WEIGHTS_n set). Included by the compute kernel
// (morph.comp), the renderer's vertex shader (shaders/render/mesh.vert) and the node materials' skinning feature
// (src/material/node_skin.cpp, through shaderc's include callback; the text is embedded at build time).
//
// The skin stream (docs/LAYOUTS.md): per vertex 4·sets u32 joint indices, then 4·sets f32 weights (as u32 bits).
// Normals and tangents take the blended matrix's 3×3 itself, as three.js, Babylon.js and the CPU reference do.
// The includer defines, after including this file, the two hooks declared below.
#ifndef MORPHKIT_SKIN_GLSL
#define MORPHKIT_SKIN_GLSL

uint skinStreamWord(uint index);   // word `index` of the skin stream
mat4 skinJointMatrix(uint joint);  // the palette's matrix of joint `joint`

// Σ wⱼ·Mⱼ over the influences of `vertex`; zero weights are skipped. Every weight used is added to `weight_sum`
// (the compute path weights its origin with it; others pass a dummy).
mat4 skinBlend(uint vertex, uint sets, inout float weight_sum) {
  mat4 m = mat4(0.0);
  uint n = 4u * sets;
  uint base = vertex * 2u * n;
  for (uint j = 0u; j < n; j = j + 1u) {
    float w = uintBitsToFloat(skinStreamWord(base + n + j));
    if (w != 0.0) {
      m += w * skinJointMatrix(skinStreamWord(base + j));
      weight_sum += w;
    }
  }
  return m;
}

#endif  // MORPHKIT_SKIN_GLSL
