// SPDX-License-Identifier: MIT
// crowd4.comp — the crowd kernel v4 (GpuCrowdDesc::kernel = CrowdKernel::kV4): many instances of one primitive, each
// with its own morph weights and joint palette, in one dispatch that reads a vertex tile's deltas from memory once per
// group of instances and then serves every instance of the group from shared memory (docs/PERFORMANCE.md, "Crowds",
// "v4").
//
// Workgroup (x, y) = (vertex tile of CROWD4_TILE vertices, instance group of G instances); its invocations form a
// CROWD4_TILE × ROWS grid: x the vertex of the tile, y a row that walks the group's instances y, y + ROWS, …
// With CROWD4_TILE = 32 a row is one NVIDIA warp, so an instance's active list and weights are uniform per warp.
// 1. Once per workgroup: the tile's records of the group's staged targets (the CPU picks up to SLOTS of the group's
//    union, the most used first) are copied to shared memory, converted to floats, one barrier.
// 2. Per (vertex, instance), with no further barrier: the instance's own active targets in ascending order (a list
//    built on the CPU), each record from shared memory, or from memory when its target was not staged; then skin
//    (skin.glsl) or place, renormalize and write (crowd_finish.glsl). The work per invocation is one instance's:
//    nothing loops over the group inside an instance, and the group size sets only how often a tile is staged.
// Order and formulas as crowd.comp, from the same sources: morph (glTF 2.0 §3.7.2.2, morph.glsl's morphAdd), then
// skin (§3.7.3, skin.glsl's deformRelative) or the node's transform, then renormalize (morphRenormalize).
//
// Determinism: each instance's sum is one `precise` chain of morphAdd over its own active targets in ascending
// order, on the same floats (a staged record is the loaded record, copied), exactly crowd.comp's chain; the
// skinning, origin and output code are crowd2.comp's calls. So the output is bit-identical to v1, v2 and v3 and
// whatever G (tests/vk_crowd_test.cpp checks with memcmp on lavapipe; `bench --crowd` on the device it runs on).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "crowd_shared.h"
#include "morph.glsl"

layout(local_size_x = CROWD4_TILE, local_size_y_id = CROWD_SC_ROWS) in;
const uint ROWS = gl_WorkGroupSize.y;

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
layout(constant_id = CROWD_SC_SUMS) const uint kSums = 1u;  // max(DELTA_STRIDE, 1)
layout(constant_id = CROWD_SC_SLOTS) const uint SLOTS = 1u;
layout(constant_id = CROWD_SC_STAGED_WORDS) const uint kWords = 1u;
// f16 records of an even stride are staged as stored, two halves a word: half the shared-memory reads per record.
layout(constant_id = CROWD_SC_STAGE_HALVES) const bool STAGE_HALVES = false;

#include "crowd_record.glsl"

layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Floats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Uints { uint u[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Entries { uvec4 e[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict writeonly buffer OutFloats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict writeonly buffer OutVec2s { vec2 v[]; };
// An instance's matrices as three rows each (rows 0-2 of the affine matrix; gpu_crowd.cpp writes them).
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Matrices { vec4 rows[]; };

layout(push_constant) uniform PushBlock { CrowdPush pc; };

// Word w of slot s's record for tile lane l at (s·kWords + w)·CROWD4_TILE + l: consecutive lanes, consecutive
// banks. A word is a float's bits, or two halves (STAGE_HALVES).
shared uint s_delta[SLOTS * kWords * CROWD4_TILE];

#include "crowd_rows.glsl"
#include "crowd_finish.glsl"

vec3 recordVec3(in float rec[kRecordMax], uint offset) { return vec3(rec[offset], rec[offset + 1u], rec[offset + 2u]); }
// Component c (a constant once specialized) of the staged record whose first word is at `at`.
float stagedComponent(uint at, uint c) {
  if (STAGE_HALVES) {
    vec2 pair = unpackHalf2x16(s_delta[at + (c >> 1) * CROWD4_TILE]);
    return (c & 1u) == 0u ? pair.x : pair.y;
  }
  return uintBitsToFloat(s_delta[at + c * CROWD4_TILE]);
}
vec3 stagedVec3(uint at, uint c) { return vec3(stagedComponent(at, c), stagedComponent(at, c + 1u), stagedComponent(at, c + 2u)); }

void main() {
  uint x = gl_LocalInvocationID.x, y = gl_LocalInvocationID.y;
  uint tile = gl_WorkGroupID.x, group = gl_WorkGroupID.y;
  uint v = tile * CROWD4_TILE + x;
  bool vertex_live = v < pc.vertex_count;
  uint slab_lane = v % MORPH_GROUP_SIZE;
  uint slab_first = (v / MORPH_GROUP_SIZE) * pc.target_count;  // the deltas' slabs are MORPH_GROUP_SIZE wide

  // Stage 1: the group's staged records of this tile, row y copying slots y, y + ROWS, …
  Uints unions = Uints(pc.union_address);
  uint begin = unions.u[group], staged = unions.u[group + 1u] - begin;
  uint targets_at = pc.groups + 1u;  // the target indices follow the offsets
  for (uint s = y; s < staged && vertex_live; s += ROWS) {
    uint slab = slab_first + unions.u[targets_at + begin + s];
    if (STAGE_HALVES) {
      [[unroll]] for (uint w = 0u; w < kWords; ++w) {
        s_delta[(s * kWords + w) * CROWD4_TILE + x] = loadRecordHalfPair(pc.delta_address, slab, slab_lane, w);
      }
    } else {
      float rec[kRecordMax];
      loadRecord(pc.delta_address, slab, slab_lane, rec);
      [[unroll]] for (uint c = 0u; c < DELTA_STRIDE; ++c) s_delta[(s * kWords + c) * CROWD4_TILE + x] = floatBitsToUint(rec[c]);
    }
  }
  barrier();  // the only one: every invocation reaches it, the rest runs per row without synchronizing
  if (!vertex_live) return;

  // The base vertex and its skin words, once for every instance.
  vec3 base_p, base_n;
  vec4 base_t;
  loadBaseVertex(v, base_p, base_n, base_t);
  cacheSkinWords(v);

  // Stage 2 per instance of the group that this row serves: its own active targets, ascending. What bounds this
  // loop is latency (docs/PERFORMANCE.md, "v4"), so every load that does not depend on the previous one is issued
  // early: the next instance's list bounds during this one, and the list four entries at a time.
  Uints offsets = Uints(pc.weights_address);
  Entries entries = Entries(pc.weights_address + uint64_t((pc.instance_count + 4u) & ~3u) * 4u);
  uint first_instance = group * G;
  uint instances = min(G, pc.instance_count - first_instance);  // the last group may be partial
  uint list_begin = 0u, list_end = 0u;
  if (y < instances) list_begin = offsets.u[first_instance + y], list_end = offsets.u[first_instance + y + 1u];
  for (uint g = y; g < instances; g += ROWS) {
    uint instance = first_instance + g;
    uint begin = list_begin, end = list_end;
    if (g + ROWS < instances) {
      list_begin = offsets.u[instance + ROWS];
      list_end = offsets.u[instance + ROWS + 1u];
    }
    precise vec3 sum_p = vec3(0.0), sum_n = vec3(0.0), sum_t = vec3(0.0);
    precise float sum_e[MORPH_MAX_EXTRA];
    [[unroll]] for (uint c = 0u; c < MORPH_MAX_EXTRA; ++c) sum_e[c] = 0.0;
    for (uint a = begin; a < end; a += 4u) {
      uvec4 batch[4];  // the list has 3 entries of slack after its end, so these loads stay in the buffer
      [[unroll]] for (uint k = 0u; k < 4u; ++k) batch[k] = entries.e[a + k];
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        if (a + k >= end) break;
        uvec4 entry = batch[k];  // uniform per row: the row's instance
        float w = uintBitsToFloat(entry.z);
        if (entry.y != CROWD4_NOT_STAGED) {
          uint at = entry.y * kWords * CROWD4_TILE + x;
          if (DELTA_POSITION != MORPH_ABSENT) sum_p = morphAdd(sum_p, w, stagedVec3(at, DELTA_POSITION));
          if (DELTA_NORMAL != MORPH_ABSENT) sum_n = morphAdd(sum_n, w, stagedVec3(at, DELTA_NORMAL));
          if (DELTA_TANGENT != MORPH_ABSENT) sum_t = morphAdd(sum_t, w, stagedVec3(at, DELTA_TANGENT));
          [[unroll]] for (uint c = 0u; c < DELTA_EXTRA_COUNT; ++c) sum_e[c] = morphAdd(sum_e[c], w, stagedComponent(at, DELTA_EXTRA + c));
        } else {
          float rec[kRecordMax];
          loadRecord(pc.delta_address, slab_first + entry.x, slab_lane, rec);
          if (DELTA_POSITION != MORPH_ABSENT) sum_p = morphAdd(sum_p, w, recordVec3(rec, DELTA_POSITION));
          if (DELTA_NORMAL != MORPH_ABSENT) sum_n = morphAdd(sum_n, w, recordVec3(rec, DELTA_NORMAL));
          if (DELTA_TANGENT != MORPH_ABSENT) sum_t = morphAdd(sum_t, w, recordVec3(rec, DELTA_TANGENT));
          [[unroll]] for (uint c = 0u; c < DELTA_EXTRA_COUNT; ++c) sum_e[c] = morphAdd(sum_e[c], w, rec[DELTA_EXTRA + c]);
        }
      }
    }
    // Stage 3: base + sums, then skin, place and write.
    vec3 p = base_p, n = base_n;
    vec4 t = base_t;
    if (DELTA_POSITION != MORPH_ABSENT) p += sum_p;
    if (DELTA_NORMAL != MORPH_ABSENT) n += sum_n;
    if (DELTA_TANGENT != MORPH_ABSENT) t.xyz += sum_t;
    float extra[MORPH_MAX_EXTRA] = sum_e;
    finishVertex(v, instance, p, n, t, extra);
  }
}
