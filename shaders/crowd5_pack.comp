// SPDX-License-Identifier: MIT
// crowd5_pack.comp — run once when a v5 crowd is created (gpu_crowd.cpp): the primitive's dense deltas (vertex-tiled
// slabs, crowd_record.glsl) repacked as crowd5.comp's matrix operand, one FP16 plane per record component,
// [component][vertex padded to 16][target padded to K_STEPS · 16], zero where padded. With SPLIT_DELTAS (f32 deltas)
// a second set of planes holds each delta's remainder, lo = fp16(d − fp16(d)). Two passes: the first finds the
// largest |delta| (a NaN or infinity sorts above every finite value: the crowd is refused), the second writes every
// delta times a power of two that puts that largest near 2^14, so hi and lo stay in FP16's normal range (the
// remainders of small deltas would otherwise be subnormal, which the matrix units may flush to zero).
//
// One invocation per (vertex, target) of the padded planes: x across a chunk of the grid, y the chunk.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

#include "crowd_shared.h"

layout(local_size_x = MORPH_GROUP_SIZE) in;

layout(constant_id = CROWD_SC_DELTA_STRIDE) const uint DELTA_STRIDE = 0u;
layout(constant_id = CROWD_SC_DELTA_F16) const bool DELTA_F16 = false;
layout(constant_id = CROWD_SC_K_STEPS) const uint K_STEPS = 1u;
layout(constant_id = CROWD_SC_SPLIT_DELTAS) const bool SPLIT_DELTAS = false;
const uint KPAD = K_STEPS * CROWD5_K;

#include "crowd_record.glsl"

layout(buffer_reference, std430, buffer_reference_align = 2) restrict writeonly buffer OutHalves { float16_t h[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict buffer Largest { uint bits; };

layout(push_constant) uniform PushBlock { Crowd5PackPush pc; };

void main() {
  uint64_t i = uint64_t(gl_WorkGroupID.y) * gl_NumWorkGroups.x * MORPH_GROUP_SIZE + gl_GlobalInvocationID.x;
  uint vertices_padded = (pc.vertex_count + CROWD5_M - 1u) / CROWD5_M * CROWD5_M;
  if (i >= uint64_t(vertices_padded) * KPAD) return;
  uint v = uint(i / KPAD), t = uint(i % KPAD);
  float rec[kRecordMax];
  [[unroll]] for (uint c = 0u; c < kRecordMax; ++c) rec[c] = 0.0;
  if (v < pc.vertex_count && t < pc.target_count) {
    loadRecord(pc.delta_address, (v / MORPH_GROUP_SIZE) * pc.target_count + t, v % MORPH_GROUP_SIZE, rec);
  }
  if (pc.measure != 0u) {
    uint largest = 0u;  // bits of a non-negative float: their order as integers is the floats' order
    [[unroll]] for (uint c = 0u; c < DELTA_STRIDE; ++c) largest = max(largest, floatBitsToUint(abs(rec[c])));
    if (largest != 0u) atomicMax(Largest(pc.max_address).bits, largest);
    return;
  }
  uint64_t plane_bytes = 2ul * vertices_padded * KPAD;
  uint at = uint(i);  // < 2^32: createGpuCrowd checks a plane's size
  [[unroll]] for (uint c = 0u; c < DELTA_STRIDE; ++c) {
    float d = rec[c] * pc.scale;
    // hi: d with its mantissa cut to FP16's 10 bits, by its bits (a compiler may fold float(float16_t(d)) back
    // to d, which would make every lo 0); exact as FP16 in the normal range the scale keeps d in, and d − hi is an
    // exact float.
    float hi = uintBitsToFloat(floatBitsToUint(d) & 0xFFFFE000u);
    OutHalves(pc.planes_address + c * plane_bytes).h[at] = float16_t(hi);
    if (SPLIT_DELTAS) OutHalves(pc.planes_address + (DELTA_STRIDE + c) * plane_bytes).h[at] = float16_t(d - hi);
  }
}
