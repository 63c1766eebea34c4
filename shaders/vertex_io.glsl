// SPDX-License-Identifier: MIT
// vertex_io.glsl — a compute kernel's base-vertex load and its output write, written once for morph.comp and
// crowd.comp. A vertex is `stride` floats (VertexFormat, docs/LAYOUTS.md §1): position at 0, then normal, tangent
// and the extras (texcoords, colors) at their offsets or MORPH_ABSENT. The crowd passes specialization constants,
// morph.comp its entry's fields: the same code either way, folded where the shape is a constant.
// The includer enables GL_EXT_buffer_reference and the int64 types, and includes morph.glsl (morphRenormalize) and
// morph_shared.h (MORPH_ABSENT, MORPH_MAX_EXTRA) first.
#ifndef MORPHKIT_VERTEX_IO_GLSL
#define MORPHKIT_VERTEX_IO_GLSL

layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer VertexFloats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict readonly buffer VertexVec2s { vec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict writeonly buffer VertexOutFloats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict writeonly buffer VertexOutVec2s { vec2 v[]; };

struct VertexShape {
  uint stride, normal, tangent, extra;  // floats per vertex; offsets of normal, tangent, extras or MORPH_ABSENT
};

// Position + normal vertices (stride 6, 8-byte aligned) move as three vec2s; others float by float.
bool isPositionNormal(VertexShape s) { return s.stride == 6u && s.normal == 3u; }

// Vertex v's base position, normal and tangent (zero where the shape has none).
void loadBaseVertex(uint64_t base_address, VertexShape s, uint v, out vec3 p, out vec3 n, out vec4 t) {
  n = vec3(0.0);
  t = vec4(0.0);
  if (isPositionNormal(s)) {
    VertexVec2s base2 = VertexVec2s(base_address);
    vec2 x0 = base2.v[3u * v], x1 = base2.v[3u * v + 1u], x2 = base2.v[3u * v + 2u];
    p = vec3(x0, x1.x);
    n = vec3(x1.y, x2);
    return;
  }
  VertexFloats base = VertexFloats(base_address);
  uint bv = v * s.stride;
  p = vec3(base.f[bv], base.f[bv + 1u], base.f[bv + 2u]);
  if (s.normal != MORPH_ABSENT) n = vec3(base.f[bv + s.normal], base.f[bv + s.normal + 1u], base.f[bv + s.normal + 2u]);
  if (s.tangent != MORPH_ABSENT) {
    uint i = bv + s.tangent;
    t = vec4(base.f[i], base.f[i + 1u], base.f[i + 2u], base.f[i + 3u]);
  }
}

// Vertex v, deformed: normal and tangent renormalized (tangent.w kept), the extras copied from the base vertex plus
// their morph sums where morphed (the first `extra_deltas` floats; sets past MORPH_MAX_EXTRA are copied as they are).
void writeVertex(uint64_t out_address, uint64_t base_address, VertexShape s, uint v, vec3 p, vec3 n, vec4 t,
                 uint extra_deltas, in float sum_e[MORPH_MAX_EXTRA]) {
  if (isPositionNormal(s)) {
    n = morphRenormalize(n);
    VertexOutVec2s out2 = VertexOutVec2s(out_address);
    out2.v[3u * v] = p.xy;
    out2.v[3u * v + 1u] = vec2(p.z, n.x);
    out2.v[3u * v + 2u] = n.yz;
    return;
  }
  VertexOutFloats outv = VertexOutFloats(out_address);
  uint bv = v * s.stride;
  outv.f[bv] = p.x;
  outv.f[bv + 1u] = p.y;
  outv.f[bv + 2u] = p.z;
  if (s.normal != MORPH_ABSENT) {
    n = morphRenormalize(n);
    uint i = bv + s.normal;
    outv.f[i] = n.x;
    outv.f[i + 1u] = n.y;
    outv.f[i + 2u] = n.z;
  }
  if (s.tangent != MORPH_ABSENT) {
    vec3 tn = morphRenormalize(t.xyz);
    uint i = bv + s.tangent;
    outv.f[i] = tn.x;
    outv.f[i + 1u] = tn.y;
    outv.f[i + 2u] = tn.z;
    outv.f[i + 3u] = t.w;
  }
  if (s.extra != MORPH_ABSENT) {
    VertexFloats base = VertexFloats(base_address);
    uint extra_count = s.stride - s.extra;
    [[unroll]] for (uint k = 0u; k < MORPH_MAX_EXTRA; ++k) {
      if (k < extra_count) {
        uint c = bv + s.extra + k;
        outv.f[c] = base.f[c] + (k < extra_deltas ? sum_e[k] : 0.0);
      }
    }
    for (uint k = MORPH_MAX_EXTRA; k < extra_count; ++k) {  // sets past the morphable ones: copied
      uint c = bv + s.extra + k;
      outv.f[c] = base.f[c];
    }
  }
}

#endif  // MORPHKIT_VERTEX_IO_GLSL
