// SPDX-License-Identifier: MIT
// crowd2.comp — the crowd kernel's second variant (GpuCrowdDesc::kernel = CrowdKernel::kV2): many instances of one
// primitive, each with its own morph weights and joint palette, one invocation per (vertex, instance)
// (docs/PERFORMANCE.md, "Crowds", "v2").
//
// Workgroup (x, y) = (instance group, vertex span of SUBTILES tiles of CROWD2_TILE vertices); its invocations form
// a CROWD2_TILE × G grid: x the vertex of the tile, y the instance of the group. With CROWD2_TILE = 32 each warp of
// an NVIDIA GPU serves ONE instance, so "does my instance use this target" and its weight are uniform per warp.
// 1. Once per workgroup: the G instances' joint palettes, as 3×4 rows of the affine matrix (48 B per joint), are
//    staged in shared memory when they fit (PALETTE_SHARED; else skinning reads the mat4s from memory).
// 2. Per tile, per slice of SLICE union targets (the group's ascending union, built on the CPU as for crowd.comp):
//    the workgroup stages the slice's weight rows and the tile's delta records in shared memory — each record
//    read from memory ONCE per workgroup, whatever G — and every invocation adds the records of its instance's
//    active targets to its own sums (registers, no loop over instances).
// 3. Each invocation skins its (vertex, instance) (skin.glsl's blend) or applies the node's transform, relative to
//    the instance's origin (LAYOUTS.md §5), renormalizes, and writes. Nothing loops over G: the per-invocation
//    work does not grow with the group size; only the shared memory does.
// Order and formulas as crowd.comp, from the same sources: morph (glTF 2.0 §3.7.2.2, morph.glsl's morphAdd), then
// skin (§3.7.3, skin.glsl's deformRelative: skinBlend and the origin split of LAYOUTS.md §5) or the node's
// transform, then renormalize normals and tangents (morphRenormalize).
//
// Determinism: each instance's sum is one `precise` chain of morphAdd (one fma per term) over its own active
// targets in ascending order (targets it does not use are skipped), exactly the chain crowd.comp computes; the
// skinning, origin and output code are the same calls. So the output is bit-identical whatever G, and to
// crowd.comp (tests/vk_crowd_test.cpp checks both with memcmp on lavapipe; `bench --crowd` compares the two on the
// device it runs on).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "crowd_shared.h"
#include "morph.glsl"

layout(local_size_x = CROWD2_TILE, local_size_y_id = CROWD_SC_GROUP) in;
const uint G = gl_WorkGroupSize.y;

layout(constant_id = CROWD_SC_VERTEX_STRIDE) const uint VERTEX_STRIDE = 3u;
layout(constant_id = CROWD_SC_VERTEX_NORMAL) const uint VERTEX_NORMAL = MORPH_ABSENT;
layout(constant_id = CROWD_SC_VERTEX_TANGENT) const uint VERTEX_TANGENT = MORPH_ABSENT;
layout(constant_id = CROWD_SC_VERTEX_EXTRA) const uint VERTEX_EXTRA = MORPH_ABSENT;
layout(constant_id = CROWD_SC_DELTA_STRIDE) const uint DELTA_STRIDE = 0u;
layout(constant_id = CROWD_SC_DELTA_POSITION) const uint DELTA_POSITION = MORPH_ABSENT;
layout(constant_id = CROWD_SC_DELTA_NORMAL) const uint DELTA_NORMAL = MORPH_ABSENT;
layout(constant_id = CROWD_SC_DELTA_TANGENT) const uint DELTA_TANGENT = MORPH_ABSENT;
layout(constant_id = CROWD_SC_DELTA_EXTRA) const uint DELTA_EXTRA = MORPH_ABSENT;
layout(constant_id = CROWD_SC_DELTA_EXTRA_COUNT) const uint DELTA_EXTRA_COUNT = 0u;
layout(constant_id = CROWD_SC_DELTA_F16) const bool DELTA_F16 = false;
layout(constant_id = CROWD_SC_SKINNED) const bool SKINNED = false;
layout(constant_id = CROWD_SC_INFLUENCE_SETS) const uint INFLUENCE_SETS = 0u;
layout(constant_id = CROWD_SC_SUMS) const uint kSums = 1u;  // max(DELTA_STRIDE, 1)
layout(constant_id = CROWD_SC_SLICE) const uint SLICE = 16u;
layout(constant_id = CROWD_SC_PALETTE_SHARED) const bool PALETTE_SHARED = false;
layout(constant_id = CROWD_SC_PALETTE_JOINTS) const uint PALETTE_JOINTS = 1u;
layout(constant_id = CROWD_SC_SUBTILES) const uint SUBTILES = 1u;
layout(constant_id = CROWD_SC_STAGE_DELTAS) const bool STAGE_DELTAS = true;  // false: kernel v3
layout(constant_id = CROWD_SC_DELTA_SLOTS) const uint DELTA_SLOTS = 1u;      // SLICE when staged, else 1

#include "crowd_record.glsl"

layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Floats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Uints { uint u[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict writeonly buffer OutFloats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict writeonly buffer OutVec2s { vec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Matrices { mat4 m[]; };

layout(push_constant) uniform PushBlock { CrowdPush pc; };

// The slice: weight of entry i for instance g at i·G + g; bit i of s_mask[b·G + g] set when that weight is not 0
// (two buffers b, alternating per slice, so one is cleared while the other is read); the entries' targets; and,
// when staged, component c of entry i's record for tile lane l at (i·kSums + c)·CROWD2_TILE + l (consecutive
// lanes, consecutive banks).
shared float s_weight[SLICE * G];
shared uint s_mask[2u * G];
shared uint s_target[SLICE];
shared float s_delta[DELTA_SLOTS * kSums * CROWD2_TILE];
// Row r of joint j of instance g (the affine matrix's rows, columns 0-2 and the translation) at (g·J + j)·3 + r.
shared vec4 s_palette[G * PALETTE_JOINTS * 3u];

// Skinning (skin.glsl): joint j of the invocation's instance, from the staged rows or from memory (matrices[1 + j]
// after the origin block). The rows rebuild the matrix with (0, 0, 0, 1) as its last row, which the blend carries
// but nothing reads (only rows 0-2 place a point or turn a normal), so the blend's arithmetic is crowd.comp's.
#include "skin.glsl"
Matrices g_matrices;
uint g_palette;  // first row of the instance's staged palette
uint skinStreamWord(uint index) { return Uints(pc.skin_address).u[index]; }
uint skinStreamVertex(uint v) { return v; }
mat4 relativeMatrix(uint block) { return g_matrices.m[block]; }
mat4 skinJointMatrix(uint joint) {
  if (!PALETTE_SHARED) return relativeMatrix(1u + joint);
  uint at = g_palette + 3u * joint;
  vec4 r0 = s_palette[at], r1 = s_palette[at + 1u], r2 = s_palette[at + 2u];
  return mat4(vec4(r0.x, r1.x, r2.x, 0.0), vec4(r0.y, r1.y, r2.y, 0.0), vec4(r0.z, r1.z, r2.z, 0.0), vec4(r0.w, r1.w, r2.w, 1.0));
}

Matrices instanceMatrices(uint instance) {
  return Matrices(pc.matrices_address + uint64_t(instance) * pc.matrix_count * 64u);
}

vec3 recordVec3(in float rec[kRecordMax], uint offset) { return vec3(rec[offset], rec[offset + 1u], rec[offset + 2u]); }
vec3 slicedVec3(uint at) { return vec3(s_delta[at], s_delta[at + CROWD2_TILE], s_delta[at + 2u * CROWD2_TILE]); }

// Stage 1: the group's palettes as 3×4 rows, one (instance, joint) per invocation at a time.
void stagePalettes(uint group, uint local) {
  for (uint k = local; k < G * PALETTE_JOINTS; k += G * CROWD2_TILE) {
    uint g = k / PALETTE_JOINTS, j = k - g * PALETTE_JOINTS;
    uint instance = group * G + g;
    if (instance >= pc.instance_count) continue;
    mat4 m = instanceMatrices(instance).m[1u + j];
    uint at = 3u * k;
    [[unroll]] for (uint r = 0u; r < 3u; ++r) s_palette[at + r] = vec4(m[0][r], m[1][r], m[2][r], m[3][r]);
  }
}

#include "crowd_finish.glsl"

void main() {
  uint x = gl_LocalInvocationID.x, y = gl_LocalInvocationID.y;
  uint local = y * CROWD2_TILE + x;
  uint group = gl_WorkGroupID.x;
  uint instance = group * G + y;
  bool instance_live = instance < pc.instance_count;  // the last group may be partial
  if (SKINNED && PALETTE_SHARED) stagePalettes(group, local);
  g_palette = 3u * PALETTE_JOINTS * y;
  if (local < G) s_mask[local] = 0u;  // buffer 0, for the first slice
  barrier();  // the palettes, before any tile reads them (also when the union is empty)

  Uints unions = Uints(pc.union_address);
  Floats weights = Floats(pc.weights_address);
  uint begin = unions.u[group], end = unions.u[group + 1u];
  uint targets_at = pc.groups + 1u;  // the target indices follow the offsets
  Floats base = Floats(pc.base_address);
  uint slice_index = 0u;  // slices walked so far: picks the mask buffer
  // Every invocation reaches every barrier: the loop bounds are uniform over the workgroup, and `live` guards the
  // work, not the control flow.
  for (uint s = 0u; s < SUBTILES; ++s) {
    uint tile_first = (gl_WorkGroupID.y * SUBTILES + s) * CROWD2_TILE;
    if (tile_first >= pc.vertex_count) break;
    uint v = tile_first + x;
    bool vertex_live = v < pc.vertex_count;
    bool live = vertex_live && instance_live;

    precise vec3 sum_p = vec3(0.0), sum_n = vec3(0.0), sum_t = vec3(0.0);
    precise float sum_e[MORPH_MAX_EXTRA];
    [[unroll]] for (uint c = 0u; c < MORPH_MAX_EXTRA; ++c) sum_e[c] = 0.0;

    // Stage 2 (§3.7.2.2), a slice of the union at a time.
    for (uint first = begin; first < end; first += SLICE, ++slice_index) {
      uint count = min(end - first, SLICE);
      uint masks = (slice_index & 1u) * G;
      barrier();  // the previous slice's readers are done
      if (local < G) s_mask[(G - masks) + local] = 0u;  // the other buffer, for the next slice
      if (local < count) s_target[local] = unions.u[targets_at + first + local];
      for (uint k = local; k < count * G; k += G * CROWD2_TILE) {
        float w = weights.f[first * G + k];
        s_weight[k] = w;
        if (w != 0.0) atomicOr(s_mask[masks + k % G], 1u << (k / G));
      }
      // Staged: row y of the workgroup loads entries y, y + G, …: one record per invocation, whole-plane loads.
      for (uint i = y; STAGE_DELTAS && i < count && vertex_live; i += G) {
        float rec[kRecordMax];
        loadRecord(pc.delta_address, (v / MORPH_GROUP_SIZE) * pc.target_count + unions.u[targets_at + first + i],
                   v % MORPH_GROUP_SIZE, rec);
        [[unroll]] for (uint c = 0u; c < DELTA_STRIDE; ++c) s_delta[(i * kSums + c) * CROWD2_TILE + x] = rec[c];
      }
      barrier();
      if (!live) continue;
      // Only the instance's own targets, ascending (lowest bit first); the mask is uniform per row (one instance),
      // so a warp walks its instance's entries without divergence and never visits the others.
      uint mask = s_mask[masks + y];
      while (mask != 0u) {
        uint i = uint(findLSB(mask));
        mask &= mask - 1u;
        float w = s_weight[i * G + y];
        if (STAGE_DELTAS) {
          uint at = i * kSums * CROWD2_TILE + x;
          if (DELTA_POSITION != MORPH_ABSENT) sum_p = morphAdd(sum_p, w, slicedVec3(at + DELTA_POSITION * CROWD2_TILE));
          if (DELTA_NORMAL != MORPH_ABSENT) sum_n = morphAdd(sum_n, w, slicedVec3(at + DELTA_NORMAL * CROWD2_TILE));
          if (DELTA_TANGENT != MORPH_ABSENT) sum_t = morphAdd(sum_t, w, slicedVec3(at + DELTA_TANGENT * CROWD2_TILE));
          [[unroll]] for (uint c = 0u; c < DELTA_EXTRA_COUNT; ++c) {
            sum_e[c] = morphAdd(sum_e[c], w, s_delta[at + (DELTA_EXTRA + c) * CROWD2_TILE]);
          }
        } else {
          // v3: the record from memory; the G rows of the workgroup read the same records, so L1 serves most.
          float rec[kRecordMax];
          loadRecord(pc.delta_address, (v / MORPH_GROUP_SIZE) * pc.target_count + s_target[i], v % MORPH_GROUP_SIZE, rec);
          if (DELTA_POSITION != MORPH_ABSENT) sum_p = morphAdd(sum_p, w, recordVec3(rec, DELTA_POSITION));
          if (DELTA_NORMAL != MORPH_ABSENT) sum_n = morphAdd(sum_n, w, recordVec3(rec, DELTA_NORMAL));
          if (DELTA_TANGENT != MORPH_ABSENT) sum_t = morphAdd(sum_t, w, recordVec3(rec, DELTA_TANGENT));
          [[unroll]] for (uint c = 0u; c < DELTA_EXTRA_COUNT; ++c) sum_e[c] = morphAdd(sum_e[c], w, rec[DELTA_EXTRA + c]);
        }
      }
    }
    if (!live) continue;

    // Stage 3: base + sums, then skin, place and write.
    uint bv = v * VERTEX_STRIDE;
    vec3 p = vec3(base.f[bv], base.f[bv + 1u], base.f[bv + 2u]);
    vec3 n = vec3(0.0);
    if (VERTEX_NORMAL != MORPH_ABSENT) n = vec3(base.f[bv + VERTEX_NORMAL], base.f[bv + VERTEX_NORMAL + 1u], base.f[bv + VERTEX_NORMAL + 2u]);
    vec4 t = vec4(0.0);
    if (VERTEX_TANGENT != MORPH_ABSENT) {
      uint i = bv + VERTEX_TANGENT;
      t = vec4(base.f[i], base.f[i + 1u], base.f[i + 2u], base.f[i + 3u]);
    }
    if (DELTA_POSITION != MORPH_ABSENT) p += sum_p;
    if (DELTA_NORMAL != MORPH_ABSENT) n += sum_n;
    if (DELTA_TANGENT != MORPH_ABSENT) t.xyz += sum_t;
    float extra[MORPH_MAX_EXTRA] = sum_e;
    finishVertex(v, instance, p, n, t, extra);
  }
}
