// SPDX-License-Identifier: MIT
// mesh.vert — the one vertex shader of every pass (shadow, depth prepass, color), so the morph code runs in
// each pipeline that draws a mesh. Compiled once per per-mesh layout (MSH_LAYOUT = the MSH_LAYOUT_MASK bits);
// the other feature bits come in as a specialization constant.
//
// Order (morphkit/deform.h): morph in object space (glTF 2.0 §3.7.2.2, shaders/morph.glsl) → skin (§3.7.3.3,
// shaders/skin.glsl) or the node's rigid transform → project. The compute path's output (already morphed, skinned and in world space) is
// drawn with MSH_LAYOUT = 0 and an identity model matrix.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

#ifndef MSH_LAYOUT
#define MSH_LAYOUT 0
#endif
#include "render_shared.h"

layout(constant_id = 0) const uint kFeatures = 0;

layout(location = 0) in vec3 inPosition;
layout(location = 1) in vec3 inNormal;   // bound to POSITION when absent (kFeatures says so)
layout(location = 2) in vec4 inTangent;  // bound to POSITION when absent
layout(location = 3) in vec2 inUv0;      // bound to POSITION when absent
layout(location = 4) in vec2 inUv1;      // bound to POSITION when absent
layout(location = 5) in vec4 inColor0;   // COLOR_0 (RGBA, already morphed on the compute path); POSITION when absent

layout(set = MSH_SET_FRAME, binding = MSH_BINDING_FRAME, std140) uniform FrameBlock { FrameUniforms frame; };
layout(set = MSH_SET_MESH, binding = MSH_BINDING_OBJECT, std140) uniform ObjectBlock { ObjectUniforms object; };
layout(push_constant) uniform Push { uint pass; } push;

#if (MSH_LAYOUT & MSH_HAS_SKIN) != 0
layout(set = MSH_SET_MESH, binding = MSH_BINDING_SKIN_STREAM, std430) restrict readonly buffer SkinStream { uint skin_words[]; };
layout(set = MSH_SET_MESH, binding = MSH_BINDING_JOINT_MATRICES, std430) restrict readonly buffer JointMatrices { mat4 joint_matrices[]; };
#endif

#if (MSH_LAYOUT & MSH_HAS_MORPH_TARGETS) != 0
// All deltas in one rgba32float 2D texture (band-texture path tiled layout): band b of a target holds one attribute's
// deltas; texel (vid % texWidth, b·rowsPerBand + vid / texWidth).
layout(set = MSH_SET_MESH, binding = MSH_BINDING_MORPH_TEXTURE) uniform texture2D morphTargets;
#if (MSH_LAYOUT & MSH_MORPH_ACTIVE_LIST) != 0
layout(set = MSH_SET_MESH, binding = MSH_BINDING_MORPH_WEIGHTS, std430) restrict readonly buffer MorphActive {
  MorphActiveHeader header;
  MorphActiveEntry entries[];
} morphList;
#else
layout(set = MSH_SET_MESH, binding = MSH_BINDING_MORPH_WEIGHTS, std140) uniform MorphBlock { MorphUniforms morph; };
#endif
#endif

#if (MSH_LAYOUT & MSH_HAS_SKIN) != 0
#include "skin.glsl"
uint skinStreamWord(uint index) { return skin_words[index]; }
mat4 skinJointMatrix(uint joint) { return joint_matrices[joint]; }
#endif

#if (MSH_LAYOUT & MSH_HAS_MORPH_TARGETS) != 0
#include "morph.glsl"
#if (MSH_LAYOUT & MSH_MORPH_ACTIVE_LIST) != 0
uint morphListTarget(uint k) { return morphList.entries[k].target; }
float morphListWeight(uint k) { return morphList.entries[k].weight; }
vec3 morphBandDelta(uint band, uint vertex) {
  uint width = morphList.header.texWidth;
  return texelFetch(morphTargets, ivec2(vertex % width, band * morphList.header.rowsPerBand + vertex / width), 0).xyz;
}
#else
uint morphListTarget(uint k) { return k; }
float morphListWeight(uint k) { return morph.weights[k]; }
vec3 morphBandDelta(uint band, uint vertex) {
  return texelFetch(morphTargets, ivec2(vertex % morph.texWidth, band * morph.rowsPerBand + vertex / morph.texWidth), 0).xyz;
}
#endif
#endif

layout(location = 0) out vec3 outWorldPosition;
layout(location = 1) out vec3 outNormal;
layout(location = 2) out vec4 outTangent;
layout(location = 3) out vec2 outUv0;
layout(location = 4) out vec2 outUv1;
layout(location = 5) out vec4 outColor0;

// The depth prepass and the color pass run this same SPIR-V with the same specialization, so they compute the same
// depths; the color pass tests LESS_OR_EQUAL. (`invariant gl_Position` would be the belt and braces, but glslang
// emits it on a block member and the validation layer warns about that.)

void main() {
  vec3 morphedPos = inPosition;
  vec3 morphedNorm = (kFeatures & MSH_HAS_NORMALS) != 0 ? inNormal : vec3(0.0);
  vec3 morphedTan = (kFeatures & MSH_HAS_TANGENTS) != 0 ? inTangent.xyz : vec3(0.0);
  // gl_VertexIndex is the index buffer value for indexed draws (vertexOffset is 0), so it addresses the
  // per-vertex deltas directly.
  uint vid = uint(gl_VertexIndex);

#if (MSH_LAYOUT & MSH_HAS_MORPH_TARGETS) != 0
#if (MSH_LAYOUT & MSH_MORPH_ACTIVE_LIST) != 0
  // Beyond the band-texture design: any number of targets; only the active ones (|w| > 0) are listed, so no zero test; tangent bands
  // when present.
  morphAccumulate(morphList.header.count, morphList.header.bandsPerTarget, vid, false, morphedPos, morphedNorm,
                  morphedTan);
#else
  // Band-texture path: at most 4 targets, weights in a vec4, position and normal bands only.
  morphAccumulate(morph.count, 2u, vid, true, morphedPos, morphedNorm, morphedTan);
#endif
#endif

  vec3 worldPos;
  vec3 worldNormal;
  vec3 worldTangent;
#if (MSH_LAYOUT & MSH_HAS_SKIN) != 0
  // Linear blend skinning over every JOINTS_n/WEIGHTS_n set; the node's own transform does not apply
  // (glTF 2.0 §3.7.3.3). Normals and tangents use the blended matrix's 3×3, then renormalize (deform.h).
  float weight_sum = 0.0;  // unused here
  mat4 skin = skinBlend(vid, object.skin_sets, weight_sum);
  worldPos = (skin * vec4(morphedPos, 1.0)).xyz;
  worldNormal = mat3(skin) * morphedNorm;
  worldTangent = mat3(skin) * morphedTan;
#else
  worldPos = (object.model * vec4(morphedPos, 1.0)).xyz;
  worldNormal = mat3(object.normal_matrix) * morphedNorm;
  worldTangent = mat3(object.model) * morphedTan;
#endif

  outWorldPosition = worldPos;
  outNormal = worldNormal;
  outTangent = vec4(worldTangent, (kFeatures & MSH_HAS_TANGENTS) != 0 ? inTangent.w : 1.0);
  outUv0 = (kFeatures & MSH_HAS_UV0) != 0 ? inUv0 : vec2(0.0);
  outUv1 = (kFeatures & MSH_HAS_UV1) != 0 ? inUv1 : vec2(0.0);
  outColor0 = (kFeatures & MSH_HAS_COLOR0) != 0 ? inColor0 : vec4(1.0);
  gl_Position = (push.pass == MSH_PASS_SHADOW ? frame.light_view_proj : frame.view_proj) * vec4(worldPos, 1.0);
}
