// SPDX-License-Identifier: MIT
// crowd_rows.glsl — what crowd4.comp and crowd5.comp share around stage 3: the instance's matrices as three rows
// each (48 B; gpu_crowd_frame.cpp writes them), the vertex's skin words cached in registers, and the base vertex.
//
// The includer declares before including this file: the specialization constants VERTEX_STRIDE, VERTEX_NORMAL,
// VERTEX_TANGENT, SKINNED, INFLUENCE_SETS; the buffer references Floats, Uints and Matrices (vec4 rows[]); and the
// push block `pc` (CrowdPush).
#ifndef MORPHKIT_CROWD_ROWS_GLSL
#define MORPHKIT_CROWD_ROWS_GLSL

// Skinning (skin.glsl): joint j of the current instance is matrices[1 + j] after its origin block. The vertex's
// skin-stream words are the same for every instance, so they are loaded once into g_skin (up to two influence sets;
// beyond, from memory) and skin.glsl reads them as vertex 0's: its loop over the influences has a constant count
// once specialized, so every index is a constant and g_skin stays in registers.
#include "skin.glsl"
Matrices g_matrices;
const uint kCachedSkinWords = 16u;  // 2 sets × (4 joints + 4 weights)
const bool CACHE_SKIN = INFLUENCE_SETS <= 2u;
uint g_skin[kCachedSkinWords];
uint g_skin_vertex;
uint skinStreamWord(uint index) {
  if (CACHE_SKIN) return g_skin[index];
  return Uints(pc.skin_address).u[g_skin_vertex * 8u * INFLUENCE_SETS + index];
}
uint skinStreamVertex(uint v) { return 0u; }
// The mat4 of three rows, with (0, 0, 0, 1) as its last row: nothing reads that row (only rows 0-2 place a point or
// turn a normal), so the driver drops its arithmetic and the blend is the other kernels' on the same floats.
mat4 relativeMatrix(uint block) {
  vec4 r0 = g_matrices.rows[3u * block], r1 = g_matrices.rows[3u * block + 1u], r2 = g_matrices.rows[3u * block + 2u];
  return mat4(vec4(r0.x, r1.x, r2.x, 0.0), vec4(r0.y, r1.y, r2.y, 0.0), vec4(r0.z, r1.z, r2.z, 0.0), vec4(r0.w, r1.w, r2.w, 1.0));
}
mat4 skinJointMatrix(uint joint) { return relativeMatrix(1u + joint); }
// A macro, not a function: glslang leaves the inlined return value of a function returning a buffer reference in a
// Function variable without the AliasedPointer decoration in crowd5.comp, which the validation layer rejects.
#define instanceMatrices(instance) Matrices(pc.matrices_address + uint64_t(instance) * pc.matrix_count * 48u)

// Vertex v's skin words into g_skin, for skinStreamWord.
void cacheSkinWords(uint v) {
  g_skin_vertex = v;
  if (SKINNED && CACHE_SKIN) {
    Uints stream = Uints(pc.skin_address);
    [[unroll]] for (uint k = 0u; k < 8u * INFLUENCE_SETS; ++k) g_skin[k] = stream.u[v * 8u * INFLUENCE_SETS + k];
  }
}

// Vertex v's base position, normal and tangent (zero where the format has none).
void loadBaseVertex(uint v, out vec3 p, out vec3 n, out vec4 t) {
  Floats base = Floats(pc.base_address);
  uint bv = v * VERTEX_STRIDE;
  p = vec3(base.f[bv], base.f[bv + 1u], base.f[bv + 2u]);
  n = vec3(0.0);
  if (VERTEX_NORMAL != MORPH_ABSENT) n = vec3(base.f[bv + VERTEX_NORMAL], base.f[bv + VERTEX_NORMAL + 1u], base.f[bv + VERTEX_NORMAL + 2u]);
  t = vec4(0.0);
  if (VERTEX_TANGENT != MORPH_ABSENT) {
    uint i = bv + VERTEX_TANGENT;
    t = vec4(base.f[i], base.f[i + 1u], base.f[i + 2u], base.f[i + 3u]);
  }
}

#endif  // MORPHKIT_CROWD_ROWS_GLSL
