// SPDX-License-Identifier: MIT
// morph.comp — morph targets, then linear blend skinning, then renormalization, one invocation per vertex.
// Order and formulas: glTF 2.0 §3.7.2.2 (morphed = base + Σ wᵢ·Δᵢ, normals/tangents renormalized) and
// §3.7.3 (skinned = Σⱼ weightⱼ · jointMatrixⱼ · morphed, jointMatrix = world(joint) · inverseBindMatrix). The math
// is morph.glsl's (each term one morphAdd, morphRenormalize) and skin.glsl's (the blend, the origin split), shared
// with crowd.comp and the vertex paths; this file holds the layouts' loads and loops.
// Many (instance, primitive) entries run in one dispatch: a workgroup finds its entry in the table by
// binary search over first_group, so every workgroup is uniform (one entry, one layout, one branch).
// Variants: MORPH_STORAGE16 reads f16 deltas through 16-bit storage (storageBuffer16BitAccess); without
// it f16 deltas are read as u32 words and unpacked with unpackHalf2x16. The byte layout is the same. snorm16
// deltas are always read as u32 words and converted as the integers q they are (snormQ2x16); 1/32767 and their
// scales are folded into the weights once per workgroup (s_scaled), so the inner loop costs f16's.
//
// Speed (docs/PERFORMANCE.md): the common record shapes (position + normal: f32, f16, snorm16; position only: f32) take
// a loop with no per-target branch, whole-plane vector loads (one 16-byte load per 4 f32 components) from
// vertex-tiled slabs (docs/LAYOUTS.md §3a: a workgroup reads one contiguous run), 2–4 targets per iteration with
// independent sums, 32-bit element indices and the active list staged in shared memory. Every other shape takes the generic loop. The choice is uniform per
// workgroup, so it costs one branch per group, not per target.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#ifdef MORPH_STORAGE16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#endif

#include "morph_shared.h"
#include "morph.glsl"
#include "vertex_io.glsl"

layout(local_size_x = MORPH_GROUP_SIZE) in;

layout(buffer_reference, std430, buffer_reference_align = 8) restrict readonly buffer EntryTable { MorphEntry entries[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Floats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict readonly buffer Vec2s { vec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Vec4s { vec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Uints { uint u[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict readonly buffer UVec2s { uvec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict readonly buffer Actives { MorphActiveTarget a[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Matrices { mat4 m[]; };
#ifdef MORPH_STORAGE16
layout(buffer_reference, std430, buffer_reference_align = 2) restrict readonly buffer Halves { float16_t h[]; };
#endif

layout(push_constant) uniform PushBlock { MorphPush pc; };

// Targets per iteration of the dense f32 position + normal loop: 4 for dispatches smaller than a wave of the GPU
// (each invocation keeps more loads in flight: 20k × 52 on an H200 12.9 → 11.3 µs), 2 for larger ones (fewer
// registers, more resident invocations: 1M × 64 with 16 active 133 → 123 µs). The host picks it (gpu_morph.cpp).
layout(constant_id = MORPH_SC_F32_TARGETS_PER_STEP) const uint kF32TargetsPerStep = 2u;
// Targets per iteration of the dense f16 position + normal loop: 8 when every entry of the group is f16 (1M × 64 on
// an H200: 236 → 220 µs), else 4 — its eight sums raise the whole pipeline's registers, which costs the f32 loop
// 4 % at 1M × 64 when both share a pipeline (docs/PERFORMANCE.md, run 29).
layout(constant_id = MORPH_SC_F16_TARGETS_PER_STEP) const uint kF16TargetsPerStep = 4u;

// A slice of the entry's active-target list, staged once per workgroup: every invocation of a group belongs
// to the same entry, so all of them walk the same list.
shared MorphActiveTarget s_active[MORPH_GROUP_SIZE];
// snorm16 only: s_active's weight times its target's scales (position, normal, tangent, extra; docs/LAYOUTS.md §3d)
// and 1/32767, so a delta is this times its integer q.
shared vec4 s_scaled[MORPH_GROUP_SIZE];

// The morph sums of one vertex.
struct Sums {
  vec3 p, n, t;
  float extra[MORPH_MAX_EXTRA];
};

// ---- Element loads (index in f32 or f16 elements from the buffer's start) ----
float loadF32(uint64_t address, uint index) { return Floats(address).f[index]; }

float loadF16(uint64_t address, uint index) {
#ifdef MORPH_STORAGE16
  return float(Halves(address).h[index]);
#else
  uint word = Uints(address).u[index >> 1];
  return unpackHalf2x16(word >> ((index & 1u) * 16u)).x;
#endif
}

// snorm16: the two int16 of a word as exact floats q (half 0 in the low bits), sign-extended: one integer-to-float
// conversion each, like unpackHalf2x16, where unpackSnorm2x16 would add a multiply and a clamp per component
// (1/32767 is in the staged weight instead; q is never -32768, so no clamp is needed).
vec2 snormQ2x16(uint word) { return vec2(float(bitfieldExtract(int(word), 0, 16)), float(int(word) >> 16)); }

float loadSnorm16(uint64_t address, uint index) {
  return snormQ2x16(Uints(address).u[index >> 1])[index & 1u];
}

// `kind`: the element type, as MORPH_LAYOUT_* (the sparse layout's records are f32).
float loadDelta(uint kind, uint64_t address, uint index) {
  if (kind == MORPH_LAYOUT_DENSE_F16) return loadF16(address, index);
  if (kind == MORPH_LAYOUT_DENSE_SNORM16) return loadSnorm16(address, index);
  return loadF32(address, index);
}

// Element index of component c of the tile lane `lane`'s record in dense slab `slab` (docs/LAYOUTS.md §3a):
// slabs of MORPH_GROUP_SIZE records split into planes of up to 4 components.
uint slabIndex(in MorphEntry e, uint slab, uint lane, uint c) {
  uint plane = c >> 2;
  uint width = min(4u, e.delta_stride - 4u * plane);
  return slab * (MORPH_GROUP_SIZE * e.delta_stride) + MORPH_GROUP_SIZE * 4u * plane + lane * width + (c & 3u);
}

// ---- Generic record: any attribute set. Dense: `block` is the slab and `v` the tile lane; sparse: `block`
// is the record's first component, the next one MORPH_GROUP_SIZE words on (sliced, docs/LAYOUTS.md §3c). ----
uint recordIndex(in MorphEntry e, bool dense, uint block, uint v, uint c) {
  return dense ? slabIndex(e, block, v, c) : block + c * MORPH_GROUP_SIZE;  // sparse: one word per lane apart
}

vec3 loadVec3(in MorphEntry e, uint kind, bool dense, uint64_t address, uint block, uint v, uint c) {
  return vec3(loadDelta(kind, address, recordIndex(e, dense, block, v, c)),
              loadDelta(kind, address, recordIndex(e, dense, block, v, c + 1u)),
              loadDelta(kind, address, recordIndex(e, dense, block, v, c + 2u)));
}

// `w`: the weight of the position, normal, tangent and extra deltas (equal but for snorm16's scales).
void addRecord(in MorphEntry e, uint kind, bool dense, uint64_t address, uint block, uint v, vec4 w, inout Sums s) {
  if (e.delta_position != MORPH_ABSENT) s.p = morphAdd(s.p, w.x, loadVec3(e, kind, dense, address, block, v,
                                                                          e.delta_position));
  if (e.delta_normal != MORPH_ABSENT) s.n = morphAdd(s.n, w.y, loadVec3(e, kind, dense, address, block, v,
                                                                          e.delta_normal));
  if (e.delta_tangent != MORPH_ABSENT) s.t = morphAdd(s.t, w.z, loadVec3(e, kind, dense, address, block, v,
                                                                          e.delta_tangent));
  // Constant trip count, unrolled: `extra` stays in registers (a dynamically indexed local array would spill
  // to slow local memory on every target).
  [[unroll]] for (uint c = 0u; c < MORPH_MAX_EXTRA; ++c) {
    if (c < e.delta_extra_count) {
      float delta = loadDelta(kind, address, recordIndex(e, dense, block, v, e.delta_extra + c));
      s.extra[c] = morphAdd(s.extra[c], w.w, delta);
    }
  }
}

// ---- Fast dense shapes: no branch inside the target loop ----
// Record shapes the fast loops handle (else MORPH_SHAPE_GENERIC).
const uint kShapeGeneric = 0u;
const uint kShapePN = 1u;  // position xyz + normal xyz (stride 6): planes (px py pz nx) (ny nz)
const uint kShapeP = 2u;   // position xyz only (stride 3): one plane of width 3

uint recordShape(in MorphEntry e) {
  if (e.delta_position != 0u || e.delta_tangent != MORPH_ABSENT || e.delta_extra_count != 0u) return kShapeGeneric;
  if (e.delta_stride == 6u && e.delta_normal == 3u) return kShapePN;
  if (e.delta_stride == 3u && e.delta_normal == MORPH_ABSENT) return kShapeP;
  return kShapeGeneric;
}

// Position + normal, f32: per target one vec4 (px py pz nx) and one vec2 (ny nz). A slab is 64 × 24 bytes:
// 96 vec4s, the vec2 plane from vec2 128 on. `slab_base` = tile × target_count. kF32TargetsPerStep targets per
// iteration with independent sums (a specialization constant, so the unused sums cost no registers).
void addPNF32(in MorphEntry e, uint lane, uint count, uint slab_base, inout Sums s) {
  Vec4s planes4 = Vec4s(e.delta_address);
  Vec2s planes2 = Vec2s(e.delta_address);
  vec4 a[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
  vec2 b[4] = vec2[4](vec2(0.0), vec2(0.0), vec2(0.0), vec2(0.0));
  uint i = 0u;
  for (; i + kF32TargetsPerStep <= count; i += kF32TargetsPerStep) {
    [[unroll]] for (uint k = 0u; k < 4u; ++k) {
      if (k < kF32TargetsPerStep) {
        MorphActiveTarget t = s_active[i + k];
        uint slab = (slab_base + t.target) * 96u;
        a[k] = morphAdd(a[k], t.weight, planes4.v[slab + lane]);
        b[k] = morphAdd(b[k], t.weight, planes2.v[2u * slab + 128u + lane]);
      }
    }
  }
  for (; i < count; ++i) {
    MorphActiveTarget t = s_active[i];
    uint slab = (slab_base + t.target) * 96u;
    a[0] = morphAdd(a[0], t.weight, planes4.v[slab + lane]);
    b[0] = morphAdd(b[0], t.weight, planes2.v[2u * slab + 128u + lane]);
  }
  vec4 sa = (a[0] + a[1]) + (a[2] + a[3]);
  vec2 sb = (b[0] + b[1]) + (b[2] + b[3]);
  s.p += sa.xyz;
  s.n += vec3(sa.w, sb);
}

// Position + normal, f16: per target one uvec2 (4 halves) and one u32 (2 halves). A slab is 64 × 12 bytes:
// 96 uvec2s, the 2-half plane from u32 128 on. kF16TargetsPerStep (4 or 8) targets per iteration: a record is half
// of f32's bytes, so twice the f32 loop's targets keep as many bytes in flight per invocation.
void addPNF16(in MorphEntry e, uint lane, uint count, uint slab_base, inout Sums s) {
  UVec2s planes8 = UVec2s(e.delta_address);
  Uints planes4 = Uints(e.delta_address);
  vec4 a[8] = vec4[8](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
  vec2 b[8] = vec2[8](vec2(0.0), vec2(0.0), vec2(0.0), vec2(0.0), vec2(0.0), vec2(0.0), vec2(0.0), vec2(0.0));
  uint i = 0u;
  for (; i + kF16TargetsPerStep <= count; i += kF16TargetsPerStep) {
    [[unroll]] for (uint k = 0u; k < 8u; ++k) {
      if (k < kF16TargetsPerStep) {
        MorphActiveTarget t = s_active[i + k];
        uint slab = (slab_base + t.target) * 96u;
        uvec2 h = planes8.v[slab + lane];
        a[k] = morphAdd(a[k], t.weight, vec4(unpackHalf2x16(h.x), unpackHalf2x16(h.y)));
        b[k] = morphAdd(b[k], t.weight, unpackHalf2x16(planes4.u[2u * slab + 128u + lane]));
      }
    }
  }
  for (; i < count; ++i) {
    MorphActiveTarget t = s_active[i];
    uint slab = (slab_base + t.target) * 96u;
    uvec2 h = planes8.v[slab + lane];
    a[0] = morphAdd(a[0], t.weight, vec4(unpackHalf2x16(h.x), unpackHalf2x16(h.y)));
    b[0] = morphAdd(b[0], t.weight, unpackHalf2x16(planes4.u[2u * slab + 128u + lane]));
  }
  vec4 sa = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
  vec2 sb = ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]));
  s.p += sa.xyz;
  s.n += vec3(sa.w, sb);
}

// Position + normal, snorm16: f16's loads converted with snormQ2x16, and per target the weight times its position
// and normal scales / 32767 (s_scaled.xy) instead of the weight; position and normal sums apart, as their weights
// differ.
void addPNSnorm16(in MorphEntry e, uint lane, uint count, uint slab_base, inout Sums s) {
  UVec2s planes8 = UVec2s(e.delta_address);
  Uints planes4 = Uints(e.delta_address);
  vec3 p0 = vec3(0.0), p1 = vec3(0.0), n0 = vec3(0.0), n1 = vec3(0.0);
  uint i = 0u;
  for (; i + 1u < count; i += 2u) {
    uint k0 = (slab_base + s_active[i].target) * 96u, k1 = (slab_base + s_active[i + 1u].target) * 96u;
    vec2 w0 = s_scaled[i].xy, w1 = s_scaled[i + 1u].xy;
    uvec2 q0 = planes8.v[k0 + lane], q1 = planes8.v[k1 + lane];
    vec4 x0 = vec4(snormQ2x16(q0.x), snormQ2x16(q0.y));
    vec4 x1 = vec4(snormQ2x16(q1.x), snormQ2x16(q1.y));
    p0 = morphAdd(p0, w0.x, x0.xyz);
    p1 = morphAdd(p1, w1.x, x1.xyz);
    n0 = morphAdd(n0, w0.y, vec3(x0.w, snormQ2x16(planes4.u[2u * k0 + 128u + lane])));
    n1 = morphAdd(n1, w1.y, vec3(x1.w, snormQ2x16(planes4.u[2u * k1 + 128u + lane])));
  }
  if (i < count) {
    uint k0 = (slab_base + s_active[i].target) * 96u;
    vec2 w0 = s_scaled[i].xy;
    uvec2 q0 = planes8.v[k0 + lane];
    vec4 x0 = vec4(snormQ2x16(q0.x), snormQ2x16(q0.y));
    p0 = morphAdd(p0, w0.x, x0.xyz);
    n0 = morphAdd(n0, w0.y, vec3(x0.w, snormQ2x16(planes4.u[2u * k0 + 128u + lane])));
  }
  s.p += p0 + p1;
  s.n += n0 + n1;
}

// Position only, f32: three consecutive floats per lane; a slab is 192 floats.
void addPF32(in MorphEntry e, uint lane, uint count, uint slab_base, inout Sums s) {
  Floats deltas = Floats(e.delta_address);
  vec3 a0 = vec3(0.0), a1 = vec3(0.0);
  uint i = 0u;
  for (; i + 1u < count; i += 2u) {
    MorphActiveTarget t0 = s_active[i], t1 = s_active[i + 1u];
    uint k0 = (slab_base + t0.target) * 192u + 3u * lane, k1 = (slab_base + t1.target) * 192u + 3u * lane;
    a0 = morphAdd(a0, t0.weight, vec3(deltas.f[k0], deltas.f[k0 + 1u], deltas.f[k0 + 2u]));
    a1 = morphAdd(a1, t1.weight, vec3(deltas.f[k1], deltas.f[k1 + 1u], deltas.f[k1 + 2u]));
  }
  if (i < count) {
    MorphActiveTarget t0 = s_active[i];
    uint k0 = (slab_base + t0.target) * 192u + 3u * lane;
    a0 = morphAdd(a0, t0.weight, vec3(deltas.f[k0], deltas.f[k0 + 1u], deltas.f[k0 + 2u]));
  }
  s.p += a0 + a1;
}

// The dense layouts: the active list in slices of one workgroup's size, staged in shared memory. Every
// invocation reaches the barriers (`live` guards the work, not the control flow).
void morphDense(in MorphEntry e, uint v, bool live, inout Sums s) {
  uint kind = e.flags & MORPH_LAYOUT_MASK;
  bool f32 = kind == MORPH_LAYOUT_DENSE_F32, f16 = kind == MORPH_LAYOUT_DENSE_F16;
  bool snorm = kind == MORPH_LAYOUT_DENSE_SNORM16;
  Vec4s scales = Vec4s(e.delta_address + e.target_bytes * e.target_count);  // snorm16 only
  uint shape = recordShape(e);
  uint lane = v % MORPH_GROUP_SIZE;
  uint slab_base = (v / MORPH_GROUP_SIZE) * e.target_count;  // this tile's first slab
  Actives actives = Actives(e.active_address);
  for (uint first = 0u; first < e.active_count; first += MORPH_GROUP_SIZE) {
    uint count = min(e.active_count - first, MORPH_GROUP_SIZE);
    barrier();
    if (gl_LocalInvocationID.x < count) {
      MorphActiveTarget a = actives.a[first + gl_LocalInvocationID.x];
      s_active[gl_LocalInvocationID.x] = a;
      if (snorm) s_scaled[gl_LocalInvocationID.x] = a.weight * (1.0 / 32767.0) * scales.v[a.target];
    }
    barrier();
    if (!live) continue;
    if (shape == kShapePN && f32) {
      addPNF32(e, lane, count, slab_base, s);
    } else if (shape == kShapePN && f16) {
      addPNF16(e, lane, count, slab_base, s);
    } else if (shape == kShapePN && snorm) {
      addPNSnorm16(e, lane, count, slab_base, s);
    } else if (shape == kShapeP && f32) {
      addPF32(e, lane, count, slab_base, s);
    } else {
      for (uint i = 0u; i < count; ++i) {
        MorphActiveTarget a = s_active[i];
        vec4 w = snorm ? s_scaled[i] : vec4(a.weight);
        addRecord(e, kind, true, e.delta_address, slab_base + a.target, lane, w, s);
      }
    }
  }
}

// The sparse layout, sliced per tile (docs/LAYOUTS.md §3c): slot j holds the j-th record of every vertex of
// the tile, word-major, so a warp's loads are consecutive words. A vertex's records are sorted by target, so
// the sum has the CPU reference's order and needs no atomics; its first padded slot (target MORPH_ABSENT) ends it.
void morphSparse(in MorphEntry e, uint v, inout Sums s) {
  Uints tiles = Uints(e.rows_address);
  Floats weights = Floats(e.weights_address);
  Uints words = Uints(e.delta_address);
  uint slot_words = (e.delta_stride + 1u) * MORPH_GROUP_SIZE;
  uint tile = v / MORPH_GROUP_SIZE;
  uint first = tiles.u[tile], slots = (tiles.u[tile + 1u] - first) / slot_words;
  // Four slots per step: a record is a chain of three loads (its target, that target's weight, its deltas), so
  // every slot's first two links are issued before any record is added (in order: the same sums). H200, 1M × 64
  // (docs/PERFORMANCE.md, "Active lists and sparse"): one slot per step 158 µs at 16 active, two 132, four 114.
  const uint kSlotsPerStep = 4u;
  for (uint j = 0u; j < slots; j += kSlotsPerStep) {
    uint at[kSlotsPerStep], t[kSlotsPerStep];
    float w[kSlotsPerStep];
    [[unroll]] for (uint i = 0u; i < kSlotsPerStep; ++i) {
      at[i] = first + (j + i) * slot_words + v % MORPH_GROUP_SIZE;
      t[i] = j + i < slots ? words.u[at[i]] : MORPH_ABSENT;
    }
    [[unroll]] for (uint i = 0u; i < kSlotsPerStep; ++i) w[i] = t[i] != MORPH_ABSENT ? weights.f[t[i]] : 0.0;
    bool done = false;  // this vertex's records ended (a padded slot)
    [[unroll]] for (uint i = 0u; i < kSlotsPerStep; ++i) {
      done = done || t[i] == MORPH_ABSENT;
      if (!done && w[i] != 0.0) addRecord(e, MORPH_LAYOUT_DENSE_F32, false, e.delta_address, at[i] + MORPH_GROUP_SIZE, v, vec4(w[i]), s);
    }
    if (done) break;
  }
}

// Skinning (skin.glsl): the entry's skin stream and matrices; joint j is matrices[1 + j] after the origin block.
#include "skin.glsl"
Uints g_skin_words;
Matrices g_matrices;
uint skinStreamWord(uint index) { return g_skin_words.u[index]; }
mat4 relativeMatrix(uint block) { return g_matrices.m[block]; }
mat4 skinJointMatrix(uint joint) { return relativeMatrix(1u + joint); }

void main() {
  uint group = gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x;
  if (group >= pc.total_groups) return;  // uniform per workgroup

  // Last entry with first_group <= group (entries with no groups share first_group with the next one).
  EntryTable table = EntryTable(pc.table_address);
  uint lo = 0u, hi = pc.entry_count;
  while (hi - lo > 1u) {
    uint mid = (lo + hi) >> 1;
    if (table.entries[mid].first_group <= group) lo = mid; else hi = mid;
  }
  MorphEntry e = table.entries[lo];
  uint v = (group - e.first_group) * MORPH_GROUP_SIZE + gl_LocalInvocationID.x;
  bool live = v < e.vertex_count;

  Sums s;
  s.p = vec3(0.0);
  s.n = vec3(0.0);
  s.t = vec3(0.0);
  [[unroll]] for (uint c = 0u; c < MORPH_MAX_EXTRA; ++c) s.extra[c] = 0.0;

  // Stage 1: morph sums (§3.7.2.2). The dense path has barriers: the whole workgroup enters it.
  uint layout_kind = e.flags & MORPH_LAYOUT_MASK;
  if ((e.flags & MORPH_FLAG_HAS_TARGETS) != 0u) {
    if (layout_kind == MORPH_LAYOUT_SPARSE) {
      if (live) morphSparse(e, v, s);
    } else {
      morphDense(e, v, live, s);
    }
  }
  if (!live) return;

  VertexShape shape = VertexShape(e.vertex_stride, e.vertex_normal, e.vertex_tangent, e.vertex_extra);
  vec3 p, n;
  vec4 t;
  loadBaseVertex(e.base_address, shape, v, p, n, t);
  p += s.p;
  n += s.n;
  t.xyz += s.t;

  // Stage 2: skinning (§3.7.3) or the node's transform, on matrices relative to an origin (skin.glsl,
  // docs/LAYOUTS.md §5).
  if ((e.flags & (MORPH_FLAG_SKINNED | MORPH_FLAG_TRANSFORM)) != 0u) {
    g_matrices = Matrices(e.matrices_address);
    g_skin_words = Uints(e.skin_address);  // read only when skinned
    deformRelative((e.flags & MORPH_FLAG_SKINNED) != 0u, v, e.influence_sets, p, n, t.xyz);
  }

  // Stage 3: renormalize and write (texcoords/colors are copied, plus their deltas when morphed).
  writeVertex(e.output_address, e.base_address, shape, v, p, n, t, e.delta_extra_count, s.extra);
}
