// SPDX-License-Identifier: MIT
// skin.glsl — linear blend skinning's blended matrix, written once (glTF 2.0 §3.7.3.3: skinned = Σⱼ wⱼ·Mⱼ · morphed,
// Mⱼ = world(joint) · inverseBindMatrix, over every JOINTS_n/WEIGHTS_n set). Included by the compute kernel
// (morph.comp), the renderer's vertex shader (shaders/render/mesh.vert) and the node materials' skinning feature
// (src/material/node_skin.cpp, through shaderc's include callback; the text is embedded at build time).
//
// The skin stream (docs/LAYOUTS.md): per vertex 4·sets u32 joint indices, then 4·sets f32 weights (as u32 bits).
// Normals and tangents take the blended matrix's 3×3 itself, as three.js, Babylon.js and the CPU reference do.
// The includer defines, after including this file, the two hooks declared below. The compute kernels also use the
// origin split at the end of the file (one more hook).
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

// ---- The compute kernels' stage 2: the origin split (docs/LAYOUTS.md §5) ----
// morph.comp and crowd.comp get matrices relative to an origin block, read through one more hook: block 0 holds
// the primitive's pivot (column 0) and the origin as a high and a low float (columns 1 and 2); then come the joint
// matrices (skinned: skinJointMatrix(j) is block 1 + j) or the node's model and normal matrices (blocks 1, 2).
// Every product works on small numbers (the morphed position minus the pivot); the origin is added last, weighted
// like every joint (`excess` = Σ weights − 1; 0 for a rigid node), so a primitive far from 0 keeps its digits.
mat4 relativeMatrix(uint block);

// Skins the morphed p, n, t of `vertex` (§3.7.3) or applies the node's transform, then places the result at the
// origin. Normals and tangents take the blended matrix itself, as three.js, Babylon.js and the CPU reference do (a
// blend of rotations is not orthogonal; its inverse-transpose would differ from every engine).
void deformRelative(bool skinned, uint vertex, uint sets, inout vec3 p, inout vec3 n, inout vec3 t) {
  mat4 origin = relativeMatrix(0u);
  vec3 rel = p - origin[0].xyz;
  float excess = 0.0;
  if (skinned) {
    excess = -1.0;
    mat4 m = skinBlend(vertex, sets, excess);
    p = (m * vec4(rel, 1.0)).xyz;
    n = mat3(m) * n;
    t = mat3(m) * t;
  } else {
    mat4 model = relativeMatrix(1u);
    p = (model * vec4(rel, 1.0)).xyz;
    n = mat3(relativeMatrix(2u)) * n;
    t = mat3(model) * t;
  }
  // `precise`: these two adds in this order, never fused, whatever the driver.
  precise vec3 low = p + origin[2].xyz + excess * origin[1].xyz;
  precise vec3 placed = low + origin[1].xyz;
  p = placed;
}

#endif  // MORPHKIT_SKIN_GLSL
