// SPDX-License-Identifier: MIT
// crowd.comp — the crowd kernel (morphkit/gpu_crowd.h): many instances of one primitive, each with its own morph
// weights and joint palette, in one dispatch that reads a vertex tile's deltas from memory once per group of
// instances and then serves every instance of the group from shared memory (kernel history: docs/PERFORMANCE.md).
//
// Workgroup (x, y) = (vertex tile of CROWD_TILE vertices, instance group of G instances); its invocations form a
// CROWD_TILE × ROWS grid: x the vertex of the tile, y a row that walks the group's instances y, y + ROWS, …
// With CROWD_TILE = 32 a row is one NVIDIA warp, so an instance's active list and weights are uniform per warp.
// 1. Once per workgroup: the tile's records of the group's staged targets (the CPU picks up to SLOTS of the group's
//    union, the most used first) are copied to shared memory, one barrier.
// 2. Per (vertex, instance), with no further barrier: the instance's own active targets in ascending order (a list
//    built on the CPU), each record from shared memory, or from memory when its target was not staged; then skin
//    (skin.glsl) or place, renormalize and write (vertex_io.glsl). The work per invocation is one instance's:
//    nothing loops over the group inside an instance, and the group size sets only how often a tile is staged.
// Order and formulas: morph (glTF 2.0 §3.7.2.2, morph.glsl's morphAdd), then skin (§3.7.3, skin.glsl's
// deformRelative) or the node's transform, then renormalize (morphRenormalize).
//
// Determinism: each instance's sum is one `precise` chain of morphAdd over its own active targets in ascending
// order, on the same floats (a staged record is the loaded record, copied). So an instance's output is
// bit-identical whatever G, the rows and the slots (tests/vk/vk_crowd_test.cpp checks with memcmp on lavapipe).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "crowd_shared.h"
#include "morph.glsl"
#include "vertex_io.glsl"

layout(local_size_x = CROWD_TILE, local_size_y_id = CROWD_SC_ROWS) in;
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

// The dense layouts' records (docs/LAYOUTS.md §3a: vertex-tiled slabs of MORPH_GROUP_SIZE records). Slab `slab`
// holds one target's records for one tile of 64 vertices; plane k holds components 4k … 4k+3 of the tile's 64
// records, width min(4, stride − 4k), so a full plane is one 16-byte (f32) or 8-byte (f16) load. Every width is a
// constant once specialized.
// A record has at most 3 + 3 + 3 + MORPH_MAX_EXTRA = 25 components: 7 planes of 4.
const uint kRecordMax = 28u;
const uint kPlanes = (DELTA_STRIDE + 3u) / 4u;

layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer RecordFloats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict readonly buffer RecordVec2s { vec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer RecordVec4s { vec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer RecordUints { uint u[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict readonly buffer RecordUVec2s { uvec2 v[]; };

float recordHalf(uint64_t deltas, uint index) {
  uint word = RecordUints(deltas).u[index >> 1];
  return unpackHalf2x16(word >> ((index & 1u) * 16u)).x;
}

// The record of tile lane `lane` (0 … 63) in slab `slab` of the deltas at `deltas`, as floats.
void loadRecord(uint64_t deltas, uint slab, uint lane, inout float rec[kRecordMax]) {
  [[unroll]] for (uint k = 0u; k < kPlanes; ++k) {
    uint width = min(4u, DELTA_STRIDE - 4u * k);
    uint first = slab * (MORPH_GROUP_SIZE * DELTA_STRIDE) + MORPH_GROUP_SIZE * 4u * k + lane * width;
    if (!DELTA_F16 && width == 4u) {
      vec4 x = RecordVec4s(deltas).v[first >> 2];
      rec[4u * k] = x.x, rec[4u * k + 1u] = x.y, rec[4u * k + 2u] = x.z, rec[4u * k + 3u] = x.w;
    } else if (!DELTA_F16 && width == 2u) {
      vec2 x = RecordVec2s(deltas).v[first >> 1];
      rec[4u * k] = x.x, rec[4u * k + 1u] = x.y;
    } else if (DELTA_F16 && width == 4u) {
      uvec2 h = RecordUVec2s(deltas).v[first >> 2];
      vec2 a = unpackHalf2x16(h.x), b = unpackHalf2x16(h.y);
      rec[4u * k] = a.x, rec[4u * k + 1u] = a.y, rec[4u * k + 2u] = b.x, rec[4u * k + 3u] = b.y;
    } else if (DELTA_F16 && width == 2u) {
      vec2 a = unpackHalf2x16(RecordUints(deltas).u[first >> 1]);
      rec[4u * k] = a.x, rec[4u * k + 1u] = a.y;
    } else {
      [[unroll]] for (uint c = 0u; c < 4u; ++c) {
        if (c < width) rec[4u * k + c] = DELTA_F16 ? recordHalf(deltas, first + c) : RecordFloats(deltas).f[first + c];
      }
    }
  }
}

// Word w (halves 2w and 2w + 1) of the f16 record of tile lane `lane` in slab `slab`, as stored. Only for an even
// DELTA_STRIDE, where every plane's width is even, so each lane's halves start on a word.
uint loadRecordHalfPair(uint64_t deltas, uint slab, uint lane, uint w) {
  uint k = w / 2u, width = min(4u, DELTA_STRIDE - 4u * k);
  uint first = slab * (MORPH_GROUP_SIZE * DELTA_STRIDE) + MORPH_GROUP_SIZE * 4u * k + lane * width + 2u * w - 4u * k;
  return RecordUints(deltas).u[first >> 1];
}

layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Uints { uint u[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Entries { uvec4 e[]; };
// An instance's matrices as three rows each (rows 0-2 of the affine matrix; gpu_crowd.cpp writes them).
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Matrices { vec4 rows[]; };

layout(push_constant) uniform PushBlock { CrowdPush pc; };

// Word w of slot s's record for tile lane l at (s·kWords + w)·CROWD_TILE + l: consecutive lanes, consecutive
// banks. A word is a float's bits, or two halves (STAGE_HALVES).
shared uint s_delta[SLOTS * kWords * CROWD_TILE];

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
// Function variable without the AliasedPointer decoration which the validation layer rejects.
#define instanceMatrices(instance) Matrices(pc.matrices_address + uint64_t(instance) * pc.matrix_count * 48u)

// Vertex v's skin words into g_skin, for skinStreamWord.
void cacheSkinWords(uint v) {
  g_skin_vertex = v;
  if (SKINNED && CACHE_SKIN) {
    Uints stream = Uints(pc.skin_address);
    [[unroll]] for (uint k = 0u; k < 8u * INFLUENCE_SETS; ++k) g_skin[k] = stream.u[v * 8u * INFLUENCE_SETS + k];
  }
}

vec3 recordVec3(in float rec[kRecordMax], uint offset) { return vec3(rec[offset], rec[offset + 1u], rec[offset + 2u]); }
// Component c (a constant once specialized) of the staged record whose first word is at `at`.
float stagedComponent(uint at, uint c) {
  if (STAGE_HALVES) {
    vec2 pair = unpackHalf2x16(s_delta[at + (c >> 1) * CROWD_TILE]);
    return (c & 1u) == 0u ? pair.x : pair.y;
  }
  return uintBitsToFloat(s_delta[at + c * CROWD_TILE]);
}
vec3 stagedVec3(uint at, uint c) { return vec3(stagedComponent(at, c), stagedComponent(at, c + 1u), stagedComponent(at, c + 2u)); }

void main() {
  uint x = gl_LocalInvocationID.x, y = gl_LocalInvocationID.y;
  uint tile = gl_WorkGroupID.x, group = gl_WorkGroupID.y;
  uint v = tile * CROWD_TILE + x;
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
        s_delta[(s * kWords + w) * CROWD_TILE + x] = loadRecordHalfPair(pc.delta_address, slab, slab_lane, w);
      }
    } else {
      float rec[kRecordMax];
      loadRecord(pc.delta_address, slab, slab_lane, rec);
      [[unroll]] for (uint c = 0u; c < DELTA_STRIDE; ++c) s_delta[(s * kWords + c) * CROWD_TILE + x] = floatBitsToUint(rec[c]);
    }
  }
  barrier();  // the only one: every invocation reaches it, the rest runs per row without synchronizing
  if (!vertex_live) return;

  // The base vertex and its skin words, once for every instance.
  const VertexShape shape = VertexShape(VERTEX_STRIDE, VERTEX_NORMAL, VERTEX_TANGENT, VERTEX_EXTRA);
  vec3 base_p, base_n;
  vec4 base_t;
  loadBaseVertex(pc.base_address, shape, v, base_p, base_n, base_t);
  cacheSkinWords(v);

  // Stage 2 per instance of the group that this row serves: its own active targets, ascending. What bounds this
  // loop is latency (docs/PERFORMANCE.md, kernel history), so every load that does not depend on the previous one is issued
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
      uvec4 group[4];  // the list has 3 entries of slack after its end, so these loads stay in the buffer
      [[unroll]] for (uint k = 0u; k < 4u; ++k) group[k] = entries.e[a + k];
      [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        if (a + k >= end) break;
        uvec4 entry = group[k];  // uniform per row: the row's instance
        float w = uintBitsToFloat(entry.z);
        if (entry.y != CROWD_NOT_STAGED) {
          uint at = entry.y * kWords * CROWD_TILE + x;
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
    g_matrices = instanceMatrices(instance);
    deformRelative(SKINNED, skinStreamVertex(v), INFLUENCE_SETS, p, n, t.xyz);
    float extra[MORPH_MAX_EXTRA] = sum_e;
    writeVertex(pc.output_address + uint64_t(instance) * pc.instance_bytes, pc.base_address, shape, v, p, n, t,
                DELTA_EXTRA_COUNT, extra);
  }
}
