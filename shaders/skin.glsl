// SPDX-License-Identifier: MIT
// skin.glsl — linear blend skinning's blended matrix, written once (glTF 2.0 §3.7.3.3: skinned = Σⱼ wⱼ·Mⱼ · morphed,
// Mⱼ = world(joint) · inverseBindMatrix, over every JOINTS_n/WEIGHTS_n set). Included by the compute kernel
// (morph.comp), the renderer's vertex shader (shaders/render/mesh.vert) and the node materials' skinning feature
// (src/material/node_skin.cpp, through shaderc's include callback; the text is embedded at build time).
//
// The skin stream (docs/LAYOUTS.md): per vertex 4·sets u32 joint indices, then 4·sets f32 weights (as u32 bits).
// Normals and tangents take the blended matrix's 3×3 itself, as three.js, Babylon.js and the CPU reference do.
// The includer defines, after including this file, the two hooks declared below. The compute kernels also use the
// origin split at the end of the file.
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

// ---- The compute kernels' origin split (docs/LAYOUTS.md §5) ----
// morph.comp and crowd.comp get matrices relative to an origin block: origin[0] holds the primitive's pivot,
// origin[1] and origin[2] the origin as a high and a low float. Every product works on small numbers (the morphed
// position minus the pivot); the origin is added last, weighted like every joint (`excess` = Σ weights − 1, 0 for
// a rigid node), so a primitive far from 0 keeps its digits. `precise`: the two adds in this order, never fused.
vec3 skinPlace(vec3 p, mat4 origin, float excess) {
  precise vec3 low = p + origin[2].xyz + excess * origin[1].xyz;
  precise vec3 placed = low + origin[1].xyz;
  return placed;
}

// Skins the morphed p, n, t of `vertex` relative to `origin` (§3.7.3). Normals and tangents take the blended matrix
// itself, as three.js, Babylon.js and the CPU reference do (a blend of rotations is not orthogonal; its
// inverse-transpose would differ from every engine).
void skinRelative(uint vertex, uint sets, mat4 origin, inout vec3 p, inout vec3 n, inout vec3 t) {
  float excess = -1.0;
  mat4 m = skinBlend(vertex, sets, excess);
  p = skinPlace((m * vec4(p - origin[0].xyz, 1.0)).xyz, origin, excess);
  n = mat3(m) * n;
  t = mat3(m) * t;
}

// An unskinned primitive under its node's transform (`model`) and normal matrix, relative to `origin`.
void rigidRelative(mat4 origin, mat4 model, mat4 normal_matrix, inout vec3 p, inout vec3 n, inout vec3 t) {
  p = skinPlace((model * vec4(p - origin[0].xyz, 1.0)).xyz, origin, 0.0);
  n = mat3(normal_matrix) * n;
  t = mat3(model) * t;
}

#endif  // MORPHKIT_SKIN_GLSL
