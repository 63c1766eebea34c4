// SPDX-License-Identifier: MIT
// copy.comp — dst[i] = src[i] over uvec4 elements: the bandwidth ceiling the morph kernels are compared with.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require

#include "morph_shared.h"

layout(local_size_x = MORPH_COPY_GROUP_SIZE) in;

layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Src { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict writeonly buffer Dst { uvec4 v[]; };

layout(push_constant) uniform PushBlock { CopyPush pc; };

// Each group copies MORPH_COPY_PER_THREAD consecutive slices of MORPH_COPY_GROUP_SIZE elements: every load
// of a warp is contiguous, and each thread has several independent loads in flight.
void main() {
  uint group = gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x;
  uint first = group * (MORPH_COPY_GROUP_SIZE * MORPH_COPY_PER_THREAD) + gl_LocalInvocationID.x;
  Src src = Src(pc.src_address);
  Dst dst = Dst(pc.dst_address);
  uvec4 values[MORPH_COPY_PER_THREAD];
  [[unroll]] for (uint k = 0u; k < MORPH_COPY_PER_THREAD; ++k) {
    uint i = first + k * MORPH_COPY_GROUP_SIZE;
    if (i < pc.count) values[k] = src.v[i];
  }
  [[unroll]] for (uint k = 0u; k < MORPH_COPY_PER_THREAD; ++k) {
    uint i = first + k * MORPH_COPY_GROUP_SIZE;
    if (i < pc.count) dst.v[i] = values[k];
  }
}
