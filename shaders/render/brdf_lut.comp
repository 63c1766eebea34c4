// SPDX-License-Identifier: MIT
// brdf_lut.comp — the split sum's second factor (Karis 2013), the same integral and sampling as three.js r187's
// DFG table: for N·V = x and roughness = y at texel centres ((i + 0.5) / size), ∫ GGX · height-correlated Smith
// visibility over the hemisphere as a scale A and a bias B of F0 (F = F0 · A + F90 · B), `samples` GGX half vectors
// per texel from the Hammersley set (environment.glsl), the polar angle from tan θ = α·sqrt((1 − ξ)/ξ) with
// ξ = i / samples. Written as (A, B, 0, 1) in an rgba16f table sampled linearly with (N·V, roughness).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "environment.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 1, rgba16f) uniform restrict writeonly image2D table;
layout(push_constant) uniform Push {
  uint size;
  uint samples;
} push;

void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= push.size || p.y >= push.size) return;
  float NdotV = (float(p.x) + 0.5) / float(push.size);
  float roughness = (float(p.y) + 0.5) / float(push.size);
  float a = roughness * roughness;
  float a2 = a * a;
  vec3 v = vec3(sqrt(1.0 - NdotV * NdotV), 0.0, NdotV);
  float A = 0.0, B = 0.0;
  for (uint i = 0u; i < push.samples; ++i) {
    // ξ → 1 − ξ in ggxHalfVector's inverse CDF: ξ = 0 is the grazing half vector (dropped), not the normal.
    vec2 xi = hammersleyPoint(i, push.samples);
    vec3 h = ggxHalfVector(vec2(1.0 - xi.x, xi.y), a2);
    vec3 l = 2.0 * dot(v, h) * h - v;
    float NdotL = l.z;
    float NdotH = h.z;
    float VdotH = max(dot(v, h), 0.0);
    if (NdotL <= 0.0) continue;
    // Height-correlated Smith visibility V = G / (4 N·L N·V); with pdf = D · N·H / (4 V·H) the estimator of
    // ∫ D · V · N·L dL is V · 4 · V·H · N·L / N·H.
    float gv = NdotL * sqrt(NdotV * NdotV * (1.0 - a2) + a2);
    float gl = NdotV * sqrt(NdotL * NdotL * (1.0 - a2) + a2);
    float vis = 0.5 / (gv + gl);
    float g = vis * 4.0 * VdotH * NdotL / NdotH;
    float fc = pow(1.0 - VdotH, 5.0);
    A += (1.0 - fc) * g;
    B += fc * g;
  }
  imageStore(table, ivec2(p), vec4(A / float(push.samples), B / float(push.samples), 0.0, 1.0));
}
