// morph.comp — morph targets, then linear blend skinning, then renormalization, one invocation per vertex.
// Order and formulas: glTF 2.0 §3.7.2.2 (morphed = base + Σ wᵢ·Δᵢ, normals/tangents renormalized) and
// §3.7.3 (skinned = Σⱼ weightⱼ · jointMatrixⱼ · morphed, jointMatrix = world(joint) · inverseBindMatrix).
// Many (instance, primitive) entries run in one dispatch: a workgroup finds its entry in the table by
// binary search over first_group, so every workgroup is uniform (one entry, one layout, one branch).
// Variants: MORPH_STORAGE16 reads f16 deltas through 16-bit storage (storageBuffer16BitAccess); without
// it f16 deltas are read as u32 words and unpacked with unpackHalf2x16. The byte layout is the same.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#ifdef MORPH_STORAGE16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

#include "morph_shared.h"

layout(local_size_x = MORPH_GROUP_SIZE) in;

layout(buffer_reference, std430, buffer_reference_align = 8) restrict readonly buffer EntryTable { MorphEntry entries[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Floats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Uints { uint u[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict writeonly buffer OutFloats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict readonly buffer Actives { MorphActiveTarget a[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Matrices { mat4 m[]; };
#ifdef MORPH_STORAGE16
layout(buffer_reference, std430, buffer_reference_align = 2) restrict readonly buffer Halves { float16_t h[]; };
#endif

layout(push_constant) uniform PushBlock { MorphPush pc; };

float loadDelta(uint layout_kind, uint64_t block, uint index) {
  if (layout_kind == MORPH_LAYOUT_DENSE_F16) {
#ifdef MORPH_STORAGE16
    return float(Halves(block).h[index]);
#else
    uint word = Uints(block).u[index >> 1];
    return unpackHalf2x16(word >> ((index & 1u) * 16u)).x;
#endif
  }
  return Floats(block).f[index];
}

// Adds w × the delta record starting at component `first` of `block`.
void addDeltas(in MorphEntry e, uint layout_kind, uint64_t block, uint first, float w, inout vec3 p, inout vec3 n,
               inout vec3 t, inout float extra[MORPH_MAX_EXTRA]) {
  if (e.delta_position != MORPH_ABSENT) {
    uint i = first + e.delta_position;
    p += w * vec3(loadDelta(layout_kind, block, i), loadDelta(layout_kind, block, i + 1u), loadDelta(layout_kind, block, i + 2u));
  }
  if (e.delta_normal != MORPH_ABSENT) {
    uint i = first + e.delta_normal;
    n += w * vec3(loadDelta(layout_kind, block, i), loadDelta(layout_kind, block, i + 1u), loadDelta(layout_kind, block, i + 2u));
  }
  if (e.delta_tangent != MORPH_ABSENT) {
    uint i = first + e.delta_tangent;
    t += w * vec3(loadDelta(layout_kind, block, i), loadDelta(layout_kind, block, i + 1u), loadDelta(layout_kind, block, i + 2u));
  }
  // Constant trip count, unrolled: `extra` stays in registers (a dynamically indexed local array would spill
  // to slow local memory on every target and cost most of the bandwidth).
  [[unroll]] for (uint c = 0u; c < MORPH_MAX_EXTRA; ++c) {
    if (c < e.delta_extra_count) extra[c] += w * loadDelta(layout_kind, block, first + e.delta_extra + c);
  }
}

// A zero-length vector stays as it is (never NaN), like morphkit::normalize on the CPU.
vec3 safeNormalize(vec3 v) {
  float len = length(v);
  return len > 0.0 ? v / len : v;
}

void main() {
  uint group = gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x;
  if (group >= pc.total_groups) return;

  // Last entry with first_group <= group (entries with no groups share first_group with the next one).
  EntryTable table = EntryTable(pc.table_address);
  uint lo = 0u, hi = pc.entry_count;
  while (hi - lo > 1u) {
    uint mid = (lo + hi) >> 1;
    if (table.entries[mid].first_group <= group) lo = mid; else hi = mid;
  }
  MorphEntry e = table.entries[lo];
  uint v = (group - e.first_group) * MORPH_GROUP_SIZE + gl_LocalInvocationID.x;
  if (v >= e.vertex_count) return;

  Floats base = Floats(e.base_address);
  uint bv = v * e.vertex_stride;
  vec3 p = vec3(base.f[bv], base.f[bv + 1u], base.f[bv + 2u]);
  vec3 n = vec3(0.0);
  if (e.vertex_normal != MORPH_ABSENT) n = vec3(base.f[bv + e.vertex_normal], base.f[bv + e.vertex_normal + 1u], base.f[bv + e.vertex_normal + 2u]);
  vec4 t = vec4(0.0);
  if (e.vertex_tangent != MORPH_ABSENT) {
    uint i = bv + e.vertex_tangent;
    t = vec4(base.f[i], base.f[i + 1u], base.f[i + 2u], base.f[i + 3u]);
  }
  float extra[MORPH_MAX_EXTRA];
  [[unroll]] for (uint c = 0u; c < MORPH_MAX_EXTRA; ++c) extra[c] = 0.0;

  // Stage 1: morph (§3.7.2.2).
  uint layout_kind = e.flags & MORPH_LAYOUT_MASK;
  vec3 t3 = t.xyz;
  if ((e.flags & MORPH_FLAG_HAS_TARGETS) != 0u) {
    if (layout_kind == MORPH_LAYOUT_SPARSE) {
      // Entries of one vertex are sorted by target: the sum has the CPU reference's order, no atomics.
      Uints rows = Uints(e.rows_address);
      Floats weights = Floats(e.weights_address);
      uint begin = rows.u[v], end = rows.u[v + 1u];
      uint64_t record_bytes = uint64_t(e.delta_stride + 1u) * 4ul;
      for (uint k = begin; k < end; ++k) {
        uint64_t record = e.delta_address + uint64_t(k) * record_bytes;
        float w = weights.f[Uints(record).u[0]];
        if (w == 0.0) continue;
        addDeltas(e, MORPH_LAYOUT_DENSE_F32, record + 4ul, 0u, w, p, n, t3, extra);
      }
    } else {
      Actives actives = Actives(e.active_address);
      uint first = v * e.delta_stride;
      for (uint i = 0u; i < e.active_count; ++i) {
        MorphActiveTarget a = actives.a[i];
        uint64_t block = e.delta_address + uint64_t(a.target) * e.target_bytes;
        addDeltas(e, layout_kind, block, first, a.weight, p, n, t3, extra);
      }
    }
  }
  t.xyz = t3;

  // Stage 2: skinning (§3.7.3) or the node's transform.
  if ((e.flags & MORPH_FLAG_SKINNED) != 0u) {
    Uints skin = Uints(e.skin_address);
    Matrices palette = Matrices(e.matrices_address);
    uint n4 = 4u * e.influence_sets;
    uint sv = v * 2u * n4;
    mat4 m = mat4(0.0);
    for (uint i = 0u; i < n4; ++i) {
      float w = uintBitsToFloat(skin.u[sv + n4 + i]);
      if (w != 0.0) m += w * palette.m[skin.u[sv + i]];
    }
    p = (m * vec4(p, 1.0)).xyz;
    // The blended matrix itself, as three.js, Babylon.js and the CPU reference do (a blend of rotations is
    // not orthogonal; its inverse-transpose would differ from every engine).
    n = mat3(m) * n;
    t.xyz = mat3(m) * t.xyz;
  } else if ((e.flags & MORPH_FLAG_TRANSFORM) != 0u) {
    Matrices mats = Matrices(e.matrices_address);
    mat4 model = mats.m[0];
    p = (model * vec4(p, 1.0)).xyz;
    n = mat3(mats.m[1]) * n;
    t.xyz = mat3(model) * t.xyz;
  }

  // Stage 3: renormalize and write (texcoords/colors are copied, plus their deltas when morphed).
  OutFloats outv = OutFloats(e.output_address);
  outv.f[bv] = p.x;
  outv.f[bv + 1u] = p.y;
  outv.f[bv + 2u] = p.z;
  if (e.vertex_normal != MORPH_ABSENT) {
    n = safeNormalize(n);
    uint i = bv + e.vertex_normal;
    outv.f[i] = n.x;
    outv.f[i + 1u] = n.y;
    outv.f[i + 2u] = n.z;
  }
  if (e.vertex_tangent != MORPH_ABSENT) {
    vec3 tn = safeNormalize(t.xyz);
    uint i = bv + e.vertex_tangent;
    outv.f[i] = tn.x;
    outv.f[i + 1u] = tn.y;
    outv.f[i + 2u] = tn.z;
    outv.f[i + 3u] = t.w;
  }
  if (e.vertex_extra != MORPH_ABSENT) {
    uint extra_count = e.vertex_stride - e.vertex_extra;
    [[unroll]] for (uint k = 0u; k < MORPH_MAX_EXTRA; ++k) {
      if (k < extra_count) {
        uint c = bv + e.vertex_extra + k;
        outv.f[c] = base.f[c] + (k < e.delta_extra_count ? extra[k] : 0.0);
      }
    }
    for (uint k = MORPH_MAX_EXTRA; k < extra_count; ++k) {  // sets past the morphable ones: copied
      uint c = bv + e.vertex_extra + k;
      outv.f[c] = base.f[c];
    }
  }
}
