// SPDX-License-Identifier: MIT
// env_integrate.comp — one rough level of the prefiltered specular chain, integrated exactly: for each texel's
// direction N, every texel of a small source mip weighted by the GGX lobe of the level's roughness with V = N
// (D(H) · N·L · solid angle; with V = N, (N·H)² = (1 + N·L)/2). Importance sampling a wide lobe reads coarse,
// box-filtered equirect mips whose polar texels weigh too much; the sum over every texel has no such bias and no
// noise (three.js r187 integrates its roughest PMREM levels the same way). One invocation per texel.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "environment.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D source;  // full mip chain
layout(set = 0, binding = 1, rgba16f) uniform restrict writeonly image2D level;
layout(push_constant) uniform Push {
  float roughness;
  uint source_lod;  // the source level summed (kIntegrationWidth wide)
  uint width;       // this level's size
  uint height;
} push;

void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= push.width || p.y >= push.height) return;
  vec3 n = equirectDirection((vec2(p) + 0.5) / vec2(push.width, push.height));
  float a = push.roughness * push.roughness;
  float a2 = a * a;
  ivec2 size = textureSize(source, int(push.source_lod));
  vec3 sum = vec3(0.0);
  float total = 0.0;
  for (int y = 0; y < size.y; ++y) {
    float v = (float(y) + 0.5) / float(size.y);
    float ring = cos((0.5 - v) * kEnvPi);  // a texel's solid angle is ∝ cos(latitude)
    for (int x = 0; x < size.x; ++x) {
      vec3 l = equirectDirection(vec2((float(x) + 0.5) / float(size.x), v));
      float NdotL = dot(n, l);
      if (NdotL <= 0.0) continue;
      float d = 1.0 + a2 + (a2 - 1.0) * NdotL;  // ∝ the GGX denominator at (N·H)² = (1 + N·L)/2
      float w = NdotL * ring / (d * d);
      sum += texelFetch(source, ivec2(x, y), int(push.source_lod)).rgb * w;
      total += w;
    }
  }
  imageStore(level, ivec2(p), vec4(total > 0.0 ? sum / total : vec3(0.0), 1.0));
}
