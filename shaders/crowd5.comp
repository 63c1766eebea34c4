// SPDX-License-Identifier: MIT
// crowd5.comp — the crowd kernel v5 (GpuCrowdDesc::kernel = CrowdKernel::kV5): a group's morph as a dense matrix
// product on the GPU's matrix units (VK_NV_cooperative_matrix), then each (vertex, instance) skinned and written as
// in every crowd kernel (docs/PERFORMANCE.md, "Crowds", "v5").
//
// For one component c of the records (position x, y, z, normal x, y, z), a tile of 16 vertices and 16 instances:
//   sums_c[vertex, instance] = Σ_target Δ_c[vertex, target] · W[target, instance]
// Δ_c is the primitive's deltas repacked once, when the crowd is created (crowd5_pack.comp), as FP16 planes of
// K_STEPS · 16 targets per vertex (zero-padded); W is the frame's weights as FP16, written by the CPU per frame. Both
// are scaled by powers of two that keep them in FP16's normal range (pc.inverse_scale undoes both, exactly). Each
// operand that is not exactly an FP16 value is split into two, x = hi + lo (hi = fp16(x), lo = fp16(x − hi)), and
// the products hi·hi + hi·lo + lo·hi are summed in FP32: about 22 bits of each operand, so the result is within
// float rounding of the FP32 sum (lo·lo, ~2^-22 relative, is left out). The matrix units take zero weights as any
// other, so the product walks every target: 2 · (16 · 6) · 64 FLOP per (16-vertex, instance) pair, which those units
// do at a rate that leaves the morph far below the output's write time.
//
// Workgroup (x, y) = (a tile of 16 vertices; a group of G instances, G a multiple of 16), ROWS subgroups of 32
// invocations. The tile's delta planes are staged in shared memory once; subgroup r then walks the group's
// 16-instance tiles r, r + ROWS, … (as crowd4.comp's rows walk instances). A matrix's elements are spread over the
// subgroup's invocations in an order the driver chooses, but the same for every matrix of one type, so element e of
// the six sums belongs to one (vertex, instance), which the invocation reads from an identity matrix loaded the
// same way (element e of `ids` = row · 16 + column).
//
// Not bit-identical to v1-v4 (FP16 splits, the matrix units' summation order): within float tolerance of them and
// of the CPU reference (tests/vk_crowd_test.cpp where the device has the matrix units; `bench --crowd` reports
// max |v5 − batch|).
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_shader_subgroup_basic : require

#include "crowd_shared.h"
#include "morph.glsl"

layout(local_size_x = CROWD5_SUBGROUP, local_size_y_id = CROWD_SC_ROWS) in;
const uint ROWS = gl_WorkGroupSize.y;

layout(constant_id = CROWD_SC_GROUP) const uint G = 16u;
layout(constant_id = CROWD_SC_VERTEX_STRIDE) const uint VERTEX_STRIDE = 3u;
layout(constant_id = CROWD_SC_VERTEX_NORMAL) const uint VERTEX_NORMAL = MORPH_ABSENT;
layout(constant_id = CROWD_SC_VERTEX_TANGENT) const uint VERTEX_TANGENT = MORPH_ABSENT;
layout(constant_id = CROWD_SC_VERTEX_EXTRA) const uint VERTEX_EXTRA = MORPH_ABSENT;
layout(constant_id = CROWD_SC_DELTA_STRIDE) const uint DELTA_STRIDE = 0u;
layout(constant_id = CROWD_SC_DELTA_POSITION) const uint DELTA_POSITION = MORPH_ABSENT;
layout(constant_id = CROWD_SC_DELTA_NORMAL) const uint DELTA_NORMAL = MORPH_ABSENT;
layout(constant_id = CROWD_SC_DELTA_EXTRA_COUNT) const uint DELTA_EXTRA_COUNT = 0u;  // always 0 for v5
layout(constant_id = CROWD_SC_SKINNED) const bool SKINNED = false;
layout(constant_id = CROWD_SC_INFLUENCE_SETS) const uint INFLUENCE_SETS = 0u;
layout(constant_id = CROWD_SC_K_STEPS) const uint K_STEPS = 1u;
layout(constant_id = CROWD_SC_SPLIT_DELTAS) const bool SPLIT_DELTAS = false;
const uint KPAD = K_STEPS * CROWD5_K;

layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Floats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer Uints { uint u[]; };
layout(buffer_reference, std430, buffer_reference_align = 2) restrict readonly buffer Halves { float16_t h[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict writeonly buffer OutFloats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict writeonly buffer OutVec2s { vec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Matrices { vec4 rows[]; };

layout(push_constant) uniform PushBlock { CrowdPush pc; };

#include "crowd_rows.glsl"
#include "crowd_finish.glsl"

// Scope 3 is gl_ScopeSubgroup, whose name would need GL_KHR_memory_scope_semantics.
#define DELTAS fcoopmatNV<16, 3, CROWD5_M, CROWD5_K>
#define WEIGHTS fcoopmatNV<16, 3, CROWD5_K, CROWD5_N>
#define SUMS fcoopmatNV<32, 3, CROWD5_M, CROWD5_N>

shared float s_ids[CROWD5_M * CROWD5_N];
// The workgroup's tile of the delta planes, staged once and read by every 16-instance tile of the group: APLANES planes of 16 rows (vertices) × KPAD targets, rows LDA halves apart (8 halves of padding move each
// row 4 banks on, so a fragment's rows do not share banks).
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer UVec4s { uvec4 v[]; };
const uint APLANES = (DELTA_STRIDE == 0u ? 1u : DELTA_STRIDE) * (SPLIT_DELTAS ? 2u : 1u);
const uint LDA = KPAD + 8u;
shared float16_t s_a[APLANES * CROWD5_M * LDA];

// Stages the tile of 16 vertices from `m0` of every plane into s_a, every invocation of the workgroup copying.
void stageDeltas(uint m0, uint vertices_padded) {
  const uint per_plane = CROWD5_M * KPAD / 8u;  // uvec4s: 8 halves each; a plane's 16 rows are contiguous
  for (uint j = gl_LocalInvocationIndex; j < APLANES * per_plane; j += CROWD5_SUBGROUP * ROWS) {
    uint plane = j / per_plane, at = j % per_plane;
    uint row = at / (KPAD / 8u), col = (at % (KPAD / 8u)) * 8u;
    uvec4 x = UVec4s(pc.delta_address + 2ul * (uint64_t(plane) * vertices_padded + m0) * KPAD).v[at];
    uint to = (plane * CROWD5_M + row) * LDA + col;
    f16vec2 h0 = unpackFloat2x16(x.x), h1 = unpackFloat2x16(x.y), h2 = unpackFloat2x16(x.z), h3 = unpackFloat2x16(x.w);
    s_a[to] = h0.x, s_a[to + 1u] = h0.y, s_a[to + 2u] = h1.x, s_a[to + 3u] = h1.y;
    s_a[to + 4u] = h2.x, s_a[to + 5u] = h2.y, s_a[to + 6u] = h3.x, s_a[to + 7u] = h3.y;
  }
}

void main() {
  for (uint i = gl_LocalInvocationIndex; i < CROWD5_M * CROWD5_N; i += CROWD5_SUBGROUP * ROWS) s_ids[i] = float(i);
  barrier();
  uint sub = gl_LocalInvocationID.y;
  uint m0 = gl_WorkGroupID.x * CROWD5_M;
  uint vertices_padded = (pc.vertex_count + CROWD5_M - 1u) / CROWD5_M * CROWD5_M;
  if (DELTA_STRIDE > 0u) stageDeltas(m0, vertices_padded);
  barrier();
  SUMS ids;
  coopMatLoadNV(ids, s_ids, 0, CROWD5_N, false);
  uint weight_stride = pc.weight_stride;  // instances padded to CROWD5_N
  uint first = gl_WorkGroupID.y * G;

  for (uint n0 = first + sub * CROWD5_N; n0 < min(first + G, pc.instance_count); n0 += CROWD5_N * ROWS) {
    SUMS sums[6];
    [[unroll]] for (uint c = 0u; c < DELTA_STRIDE; ++c) sums[c] = SUMS(0.0);
    [[unroll]] for (uint k = 0u; k < K_STEPS; ++k) {
      WEIGHTS w_hi, w_lo;
      Halves weights = Halves(pc.weights_address + 2ul * (uint64_t(k * CROWD5_K) * weight_stride + n0));
      coopMatLoadNV(w_hi, weights.h, 0, weight_stride, false);
      coopMatLoadNV(w_lo, weights.h, KPAD * weight_stride, weight_stride, false);
      [[unroll]] for (uint c = 0u; c < DELTA_STRIDE; ++c) {
        DELTAS d;
        coopMatLoadNV(d, s_a, (c * CROWD5_M) * LDA + k * CROWD5_K, LDA, false);
        sums[c] = coopMatMulAddNV(d, w_hi, sums[c]);
        sums[c] = coopMatMulAddNV(d, w_lo, sums[c]);
        if (SPLIT_DELTAS) {
          coopMatLoadNV(d, s_a, ((DELTA_STRIDE + c) * CROWD5_M) * LDA + k * CROWD5_K, LDA, false);
          sums[c] = coopMatMulAddNV(d, w_hi, sums[c]);
        }
      }
    }
    // Each element the invocation holds: one (vertex, instance) with its sums, skinned and written.
    for (int e = 0; e < ids.length(); ++e) {
      uint id = uint(ids[e]);
      uint v = m0 + id / CROWD5_N, instance = n0 + id % CROWD5_N;
      if (v >= pc.vertex_count || instance >= pc.instance_count) continue;
      vec3 p, n;
      vec4 t;
      loadBaseVertex(v, p, n, t);
      float inv = pc.inverse_scale;  // the scales are powers of two: this product is exact
      if (DELTA_POSITION != MORPH_ABSENT) p += vec3(sums[DELTA_POSITION][e], sums[DELTA_POSITION + 1u][e], sums[DELTA_POSITION + 2u][e]) * inv;
      if (DELTA_NORMAL != MORPH_ABSENT) n += vec3(sums[DELTA_NORMAL][e], sums[DELTA_NORMAL + 1u][e], sums[DELTA_NORMAL + 2u][e]) * inv;
      cacheSkinWords(v);
      float extra[MORPH_MAX_EXTRA];
      [[unroll]] for (uint c = 0u; c < MORPH_MAX_EXTRA; ++c) extra[c] = 0.0;
      finishVertex(v, instance, p, n, t, extra);
    }
  }
}
