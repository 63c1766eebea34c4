// SPDX-License-Identifier: MIT
// crowd_finish.glsl — stage 3 of every crowd kernel (crowd.comp, crowd2.comp, crowd4.comp), written once: skin or
// place the morphed vertex relative to the instance's origin, renormalize, write.
//
// The includer declares before including this file: the specialization constants VERTEX_STRIDE, VERTEX_NORMAL,
// VERTEX_TANGENT, VERTEX_EXTRA, DELTA_EXTRA_COUNT, SKINNED, INFLUENCE_SETS; the buffer references Floats,
// OutFloats, OutVec2s and Matrices; the push block `pc` (CrowdPush); skin.glsl with its hooks reading `g_matrices`;
// instanceMatrices(instance); and skinStreamVertex(v), the vertex whose words skin.glsl asks skinStreamWord for
// (v itself, or 0 where the includer keeps v's words in registers).
#ifndef MORPHKIT_CROWD_FINISH_GLSL
#define MORPHKIT_CROWD_FINISH_GLSL

// Stage 3 for one (vertex, instance): the morphed attributes p, n, t (extras: `sum_e`) skinned or transformed
// relative to the instance's origin (skin.glsl, LAYOUTS.md §5), renormalized (morph.glsl) and written.
void finishVertex(uint v, uint instance, vec3 p, vec3 n, vec4 t, in float sum_e[MORPH_MAX_EXTRA]) {
  g_matrices = instanceMatrices(instance);
  deformRelative(SKINNED, skinStreamVertex(v), INFLUENCE_SETS, p, n, t.xyz);

  uint64_t out_address = pc.output_address + uint64_t(instance) * pc.instance_bytes;
  uint bv = v * VERTEX_STRIDE;
  if (VERTEX_STRIDE == 6u && VERTEX_NORMAL == 3u) {
    n = morphRenormalize(n);
    OutVec2s out2 = OutVec2s(out_address);
    out2.v[3u * v] = p.xy;
    out2.v[3u * v + 1u] = vec2(p.z, n.x);
    out2.v[3u * v + 2u] = n.yz;
    return;
  }
  OutFloats outv = OutFloats(out_address);
  outv.f[bv] = p.x;
  outv.f[bv + 1u] = p.y;
  outv.f[bv + 2u] = p.z;
  if (VERTEX_NORMAL != MORPH_ABSENT) {
    n = morphRenormalize(n);
    uint i = bv + VERTEX_NORMAL;
    outv.f[i] = n.x;
    outv.f[i + 1u] = n.y;
    outv.f[i + 2u] = n.z;
  }
  if (VERTEX_TANGENT != MORPH_ABSENT) {
    vec3 tn = morphRenormalize(t.xyz);
    uint i = bv + VERTEX_TANGENT;
    outv.f[i] = tn.x;
    outv.f[i + 1u] = tn.y;
    outv.f[i + 2u] = tn.z;
    outv.f[i + 3u] = t.w;
  }
  if (VERTEX_EXTRA != MORPH_ABSENT) {
    // Texcoords and colors: copied, plus their deltas where morphed (the first DELTA_EXTRA_COUNT floats).
    Floats base = Floats(pc.base_address);
    for (uint k = 0u; k < VERTEX_STRIDE - VERTEX_EXTRA; ++k) {
      uint c = bv + VERTEX_EXTRA + k;
      float add = k < DELTA_EXTRA_COUNT ? sum_e[k] : 0.0;
      outv.f[c] = base.f[c] + add;
    }
  }
}

#endif  // MORPHKIT_CROWD_FINISH_GLSL
