// copy.comp — dst[i] = src[i] over uvec4 elements: the bandwidth ceiling the morph kernels are compared with.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "morph_shared.h"

layout(local_size_x = MORPH_GROUP_SIZE) in;

layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer Src { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict writeonly buffer Dst { uvec4 v[]; };

layout(push_constant) uniform PushBlock { CopyPush pc; };

void main() {
  uint i = (gl_WorkGroupID.y * pc.groups_x + gl_WorkGroupID.x) * MORPH_GROUP_SIZE + gl_LocalInvocationID.x;
  if (i >= pc.count) return;
  Dst(pc.dst_address).v[i] = Src(pc.src_address).v[i];
}
