// SPDX-License-Identifier: MIT
// env_sh.comp — diffuse irradiance as nine spherical-harmonic coefficients (Ramamoorthi & Hanrahan 2001): the
// radiance of a small source mip projected on the l ≤ 2 basis, each texel weighted by its solid angle, then
// convolved with the clamped cosine (Â0 = π, Â1 = 2π/3, Â2 = π/4) and divided by π, so that Σ c_i · Y_i(n) is
// E(n) / π, the factor of the diffuse albedo. One workgroup; the 64 threads stride over the texels and reduce.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "environment.glsl"

layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform sampler2D source;
layout(set = 0, binding = 2, std430) restrict writeonly buffer Irradiance { vec4 coefficients[9]; };
layout(push_constant) uniform Push {
  float lod;  // the source level read
  float pad;
  uint width;  // that level's size
  uint height;
} push;

shared vec3 partial[64][9];

void main() {
  uint t = gl_LocalInvocationID.x;
  vec3 acc[9];
  for (int k = 0; k < 9; ++k) acc[k] = vec3(0.0);
  const float texel = (2.0 * kEnvPi / float(push.width)) * (kEnvPi / float(push.height));
  for (uint i = t; i < push.width * push.height; i += 64u) {
    vec2 uv = (vec2(i % push.width, i / push.width) + 0.5) / vec2(push.width, push.height);
    vec3 d = equirectDirection(uv);
    float solid_angle = texel * sqrt(max(1.0 - d.y * d.y, 0.0));  // cos(latitude)
    vec3 radiance = textureLod(source, uv, push.lod).rgb * solid_angle;
    float y[9];
    shBasis(d, y);
    for (int k = 0; k < 9; ++k) acc[k] += radiance * y[k];
  }
  for (int k = 0; k < 9; ++k) partial[t][k] = acc[k];
  barrier();
  if (t != 0u) return;
  const float band[9] = float[9](1.0, 2.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0, 0.25, 0.25, 0.25, 0.25, 0.25);
  for (int k = 0; k < 9; ++k) {
    vec3 s = vec3(0.0);
    for (uint j = 0u; j < 64u; ++j) s += partial[j][k];
    coefficients[k] = vec4(s * band[k], 0.0);
  }
}
