// SPDX-License-Identifier: MIT
// mesh.vert — the one vertex shader of every pass (shadow, depth prepass, color), so the morph code runs in
// each pipeline that draws a mesh. Compiled once per per-mesh layout (MSH_LAYOUT = the MSH_LAYOUT_MASK bits);
// the other feature bits come in as a specialization constant.
//
// Order (morphkit/deform.h): morph in object space (glTF 2.0 §3.7.2.2) → skin (§3.7.3.3) or the node's
// rigid transform → project. The compute path's output (already morphed, skinned and in world space) is
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

layout(set = MSH_SET_FRAME, binding = MSH_BINDING_FRAME, std140) uniform FrameBlock { FrameUniforms frame; };
layout(set = MSH_SET_MESH, binding = MSH_BINDING_OBJECT, std140) uniform ObjectBlock { ObjectUniforms object; };
layout(push_constant) uniform Push { uint pass; } push;

#if (MSH_LAYOUT & MSH_HAS_SKIN) != 0
layout(set = MSH_SET_MESH, binding = MSH_BINDING_SKIN_STREAM, std430) restrict readonly buffer SkinStream { uint skin_words[]; };
layout(set = MSH_SET_MESH, binding = MSH_BINDING_JOINT_MATRICES, std430) restrict readonly buffer JointMatrices { mat4 joint_matrices[]; };
#endif

#if (MSH_LAYOUT & MSH_HAS_MORPH_TARGETS) != 0
// All deltas in one rgba32float 2D texture (seed 000 tiled layout): band b of a target holds one attribute's
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

layout(location = 0) out vec3 outWorldPosition;
layout(location = 1) out vec3 outNormal;
layout(location = 2) out vec4 outTangent;
layout(location = 3) out vec2 outUv0;
layout(location = 4) out vec2 outUv1;

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
  // Past the seed: any number of targets; only the active ones (|w| > 0) are listed; tangent bands when present.
  int col = int(vid % morphList.header.texWidth);
  int rowInBand = int(vid / morphList.header.texWidth);
  int rows = int(morphList.header.rowsPerBand);
  uint bands = morphList.header.bandsPerTarget;
  for (uint k = 0u; k < morphList.header.count; k = k + 1u) {
    uint i = morphList.entries[k].target;
    float w = morphList.entries[k].weight;
    int band0 = int(i * bands);
    morphedPos += w * texelFetch(morphTargets, ivec2(col, (band0 + MSH_BAND_POSITION) * rows + rowInBand), 0).xyz;
    morphedNorm += w * texelFetch(morphTargets, ivec2(col, (band0 + MSH_BAND_NORMAL) * rows + rowInBand), 0).xyz;
    if (bands > 2u) {
      morphedTan += w * texelFetch(morphTargets, ivec2(col, (band0 + MSH_BAND_TANGENT) * rows + rowInBand), 0).xyz;
    }
  }
#else
  // Seed 000, verbatim: at most 4 targets, weights in a vec4, position and normal bands only.
  int col = int(vid % morph.texWidth);
  int rowInBand = int(vid / morph.texWidth);
  for (uint i = 0u; i < morph.count; i = i + 1u) {
    float w = morph.weights[i];
    int posRow = int(i * 2u) * int(morph.rowsPerBand) + rowInBand;
    int normRow = int(i * 2u + 1u) * int(morph.rowsPerBand) + rowInBand;
    morphedPos += w * texelFetch(morphTargets, ivec2(col, posRow), 0).xyz;
    morphedNorm += w * texelFetch(morphTargets, ivec2(col, normRow), 0).xyz;
  }
#endif
#endif

  vec3 worldPos;
  vec3 worldNormal;
  vec3 worldTangent;
#if (MSH_LAYOUT & MSH_HAS_SKIN) != 0
  // Linear blend skinning over every JOINTS_n/WEIGHTS_n set; the node's own transform does not apply
  // (glTF 2.0 §3.7.3.3). Normals and tangents use the blended matrix's 3×3, then renormalize (deform.h).
  mat4 skin = mat4(0.0);
  uint n = 4u * object.skin_sets;
  uint base = vid * 2u * n;
  for (uint j = 0u; j < n; j = j + 1u) {
    float weight = uintBitsToFloat(skin_words[base + n + j]);
    if (weight != 0.0) skin += weight * joint_matrices[skin_words[base + j]];
  }
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
  gl_Position = (push.pass == MSH_PASS_SHADOW ? frame.light_view_proj : frame.view_proj) * vec4(worldPos, 1.0);
}
