// SPDX-License-Identifier: MIT
// crowd.comp — many instances of one primitive, each with its own morph weights and joint palette, in one dispatch
// that reads each delta once per group of instances (docs/PERFORMANCE.md, "Crowds").
//
// Workgroup (x, y) = (instance group, vertex tile): 64 invocations, one vertex each, deform the tile's vertices
// for the G instances of the group. The group's union of active targets (built on the CPU, ascending) is staged
// in shared memory with a G-wide row of weights per target (zero for an instance that does not use the target);
// each delta record is loaded once and added to every instance's sums. The skin stream and base vertex are read
// once per vertex too; only the palette differs per instance.
// Order and formulas as morph.comp, from the same sources: morph (glTF 2.0 §3.7.2.2, morph.glsl), then skin
// (§3.7.3, skin.glsl's blend and origin split, LAYOUTS.md §5) or the node's transform, then renormalize normals
// and tangents (morph.glsl).
//
// Determinism: each instance's sum is one chain of morphAdd (morph.glsl: one fma per term, rounded once) over its
// own active targets in ascending order, the sums decorated `precise` (NoContraction: the same rounding in every
// specialization); a target the instance does not use is skipped. So an instance's result does not depend on which
// other instances share its group: the group size changes speed, not bits (tests/vk_crowd_test.cpp checks that
// with memcmp).
//
// The record shape, the vertex format and G are specialization constants (crowd_shared.h): the driver folds every
// attribute test, so the target loop has no branch but its own.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "crowd_shared.h"
#include "morph.glsl"

layout(local_size_x = MORPH_GROUP_SIZE) in;

layout(constant_id = CROWD_SC_GROUP) const uint G = 1u;
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
// The morph sums one instance keeps per vertex, laid out like a delta record: max(DELTA_STRIDE, 1).
layout(constant_id = CROWD_SC_SUMS) const uint kSums = 1u;

#include "crowd_record.glsl"

layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Floats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Uints { uint u[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict writeonly buffer OutFloats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict writeonly buffer OutVec2s { vec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Matrices { mat4 m[]; };

layout(push_constant) uniform PushBlock { CrowdPush pc; };

shared uint s_target[CROWD_CHUNK];
shared float s_weight[CROWD_CHUNK * G];
// Stage 1 hands the sums to stage 2 through shared memory: sum c of instance g for lane l at (g·kSums + c)·64 + l
// (consecutive lanes, consecutive banks). This is what bounds G: 256 · G · kSums bytes (crowd_shared.h).
shared float s_sums[G * kSums * MORPH_GROUP_SIZE];

vec3 recordVec3(in float rec[kRecordMax], uint offset) { return vec3(rec[offset], rec[offset + 1u], rec[offset + 2u]); }

// Skinning (skin.glsl): joint j of the current instance is matrices[1 + j] after its origin block.
#include "skin.glsl"
Matrices g_matrices;
uint skinStreamWord(uint index) { return Uints(pc.skin_address).u[index]; }
mat4 relativeMatrix(uint block) { return g_matrices.m[block]; }
mat4 skinJointMatrix(uint joint) { return relativeMatrix(1u + joint); }
Matrices instanceMatrices(uint instance) { return Matrices(pc.matrices_address + uint64_t(instance) * pc.matrix_count * 64u); }
uint skinStreamVertex(uint v) { return v; }  // the skin stream read in place (crowd4 caches it in registers)

#include "crowd_finish.glsl"

void main() {
  uint group = gl_WorkGroupID.x;
  uint tile = gl_WorkGroupID.y;
  uint lane = gl_LocalInvocationID.x;
  uint v = tile * MORPH_GROUP_SIZE + lane;
  bool live = v < pc.vertex_count;

  // Per instance of the group: the morph sums (registers: the loops over g are unrolled).
  precise vec3 sum_p[G], sum_n[G], sum_t[G];
  precise float sum_e[G * MORPH_MAX_EXTRA];
  [[unroll]] for (uint g = 0u; g < G; ++g) {
    sum_p[g] = vec3(0.0), sum_n[g] = vec3(0.0), sum_t[g] = vec3(0.0);
    [[unroll]] for (uint c = 0u; c < DELTA_EXTRA_COUNT; ++c) sum_e[g * MORPH_MAX_EXTRA + c] = 0.0;
  }

  // Stage 1 (§3.7.2.2): the group's union of active targets, a slice of CROWD_CHUNK at a time in shared memory.
  // Every invocation reaches the barriers (`live` guards the work, not the control flow).
  Uints unions = Uints(pc.union_address);
  Floats weights = Floats(pc.weights_address);
  uint begin = unions.u[group], end = unions.u[group + 1u];
  uint targets_at = pc.groups + 1u;  // the target indices follow the offsets
  for (uint first = begin; first < end; first += CROWD_CHUNK) {
    uint count = min(end - first, CROWD_CHUNK);
    barrier();
    if (lane < count) s_target[lane] = unions.u[targets_at + first + lane];
    for (uint k = lane; k < count * G; k += MORPH_GROUP_SIZE) s_weight[k] = weights.f[first * G + k];
    barrier();
    if (!live) continue;
    for (uint i = 0u; i < count; ++i) {
      float rec[kRecordMax];
      loadRecord(pc.delta_address, tile * pc.target_count + s_target[i], lane, rec);
      [[unroll]] for (uint g = 0u; g < G; ++g) {
        float w = s_weight[i * G + g];
        // Uniform over the workgroup (one target, one instance): instances that do not use the target skip it
        // without divergence. Exact either way: fma(0, Δ, s) = s for finite Δ.
        if (w == 0.0) continue;
        if (DELTA_POSITION != MORPH_ABSENT) sum_p[g] = morphAdd(sum_p[g], w, recordVec3(rec, DELTA_POSITION));
        if (DELTA_NORMAL != MORPH_ABSENT) sum_n[g] = morphAdd(sum_n[g], w, recordVec3(rec, DELTA_NORMAL));
        if (DELTA_TANGENT != MORPH_ABSENT) sum_t[g] = morphAdd(sum_t[g], w, recordVec3(rec, DELTA_TANGENT));
        [[unroll]] for (uint c = 0u; c < DELTA_EXTRA_COUNT; ++c) {
          sum_e[g * MORPH_MAX_EXTRA + c] = morphAdd(sum_e[g * MORPH_MAX_EXTRA + c], w, rec[DELTA_EXTRA + c]);
        }
      }
    }
  }
  // Park the sums in shared memory (each invocation its own slots: no barrier needed), so that stage 2 is one
  // loop over the instances, not G unrolled copies of the skinning code.
  [[unroll]] for (uint g = 0u; g < G; ++g) {
    uint at = g * kSums * MORPH_GROUP_SIZE + lane;
    if (DELTA_POSITION != MORPH_ABSENT) {
      [[unroll]] for (uint c = 0u; c < 3u; ++c) s_sums[at + (DELTA_POSITION + c) * MORPH_GROUP_SIZE] = sum_p[g][c];
    }
    if (DELTA_NORMAL != MORPH_ABSENT) {
      [[unroll]] for (uint c = 0u; c < 3u; ++c) s_sums[at + (DELTA_NORMAL + c) * MORPH_GROUP_SIZE] = sum_n[g][c];
    }
    if (DELTA_TANGENT != MORPH_ABSENT) {
      [[unroll]] for (uint c = 0u; c < 3u; ++c) s_sums[at + (DELTA_TANGENT + c) * MORPH_GROUP_SIZE] = sum_t[g][c];
    }
    [[unroll]] for (uint c = 0u; c < DELTA_EXTRA_COUNT; ++c) {
      s_sums[at + (DELTA_EXTRA + c) * MORPH_GROUP_SIZE] = sum_e[g * MORPH_MAX_EXTRA + c];
    }
  }
  if (!live) return;

  // The base vertex, once for every instance.
  Floats base = Floats(pc.base_address);
  uint bv = v * VERTEX_STRIDE;
  vec3 base_p = vec3(base.f[bv], base.f[bv + 1u], base.f[bv + 2u]);
  vec3 base_n = vec3(0.0);
  if (VERTEX_NORMAL != MORPH_ABSENT) base_n = vec3(base.f[bv + VERTEX_NORMAL], base.f[bv + VERTEX_NORMAL + 1u], base.f[bv + VERTEX_NORMAL + 2u]);
  vec4 base_t = vec4(0.0);
  if (VERTEX_TANGENT != MORPH_ABSENT) {
    uint i = bv + VERTEX_TANGENT;
    base_t = vec4(base.f[i], base.f[i + 1u], base.f[i + 2u], base.f[i + 3u]);
  }

  // Stages 2 and 3 per instance of the group.
  uint instances = min(G, pc.instance_count - group * G);  // the last group may be partial
  for (uint g = 0u; g < instances; ++g) {
    uint instance = group * G + g;
    uint at = g * kSums * MORPH_GROUP_SIZE + lane;
    vec3 p = base_p, n = base_n;
    vec4 t = base_t;
    if (DELTA_POSITION != MORPH_ABSENT) {
      uint c = at + DELTA_POSITION * MORPH_GROUP_SIZE;
      p += vec3(s_sums[c], s_sums[c + 64u], s_sums[c + 128u]);
    }
    if (DELTA_NORMAL != MORPH_ABSENT) {
      uint c = at + DELTA_NORMAL * MORPH_GROUP_SIZE;
      n += vec3(s_sums[c], s_sums[c + 64u], s_sums[c + 128u]);
    }
    if (DELTA_TANGENT != MORPH_ABSENT) {
      uint c = at + DELTA_TANGENT * MORPH_GROUP_SIZE;
      t.xyz += vec3(s_sums[c], s_sums[c + 64u], s_sums[c + 128u]);
    }

    // Stages 2 and 3 (crowd_finish.glsl, shared with crowd2.comp and crowd4.comp): skin or place relative to the
    // instance's origin, renormalize, write this instance's copy of the vertex.
    float extra[MORPH_MAX_EXTRA];
    [[unroll]] for (uint c = 0u; c < MORPH_MAX_EXTRA; ++c) {
      extra[c] = c < DELTA_EXTRA_COUNT ? s_sums[at + (DELTA_EXTRA + c) * MORPH_GROUP_SIZE] : 0.0;
    }
    finishVertex(v, instance, p, n, t, extra);
  }
}
