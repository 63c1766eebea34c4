// SPDX-License-Identifier: MIT
// env_prefilter.comp — one level of the prefiltered specular chain (the split sum's first factor, Karis 2013):
// for each texel's direction N, the GGX lobe of the level's roughness with V = N, importance sampled and weighted
// by N·L; each sample reads the source mip whose texel matches the sample's solid angle (filtered importance
// sampling: few samples, no fireflies). Roughness 0 copies the source. One invocation per texel.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "environment.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D source;  // full mip chain, trilinear, U repeats
layout(set = 0, binding = 1, rgba16f) uniform restrict writeonly image2D level;
layout(push_constant) uniform Push {
  float roughness;
  float source_texel_log2;  // log2 of the solid angle of a source level-0 texel (4π / (w · h))
  uint width;               // this level's size
  uint height;
  uint samples;
} push;

void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= push.width || p.y >= push.height) return;
  vec2 uv = (vec2(p) + 0.5) / vec2(push.width, push.height);
  vec3 n = equirectDirection(uv);
  if (push.roughness <= 0.0) {
    imageStore(level, ivec2(p), vec4(textureLod(source, uv, 0.0).rgb, 1.0));
    return;
  }
  float a = push.roughness * push.roughness;
  float a2 = a * a;
  mat3 frame = frameAround(n);
  vec3 sum = vec3(0.0);
  float weight = 0.0;
  for (uint i = 0u; i < push.samples; ++i) {
    vec3 h = ggxHalfVector(hammersleyPoint(i, push.samples), a2);
    float NdotH = h.z;
    vec3 l = frame * (2.0 * NdotH * h - vec3(0.0, 0.0, 1.0));  // reflect V = N about H
    float NdotL = dot(n, l);
    if (NdotL <= 0.0) continue;
    // pdf(L) = D(H) / 4 when V = N; the sample covers 1 / (samples · pdf) steradians.
    float d = NdotH * NdotH * (a2 - 1.0) + 1.0;
    float D = a2 / (kEnvPi * d * d);
    float sample_log2 = log2(4.0 / (float(push.samples) * D));
    float lod = max(0.5 * (sample_log2 - push.source_texel_log2) + 1.0, 0.0);
    sum += textureLod(source, equirectUv(l), lod).rgb * NdotL;
    weight += NdotL;
  }
  imageStore(level, ivec2(p), vec4(weight > 0.0 ? sum / weight : vec3(0.0), 1.0));
}
