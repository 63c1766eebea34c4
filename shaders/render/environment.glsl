// SPDX-License-Identifier: MIT
// environment.glsl — the equirectangular convention of morphkit/environment.h (three.js's
// EquirectangularReflectionMapping) and the GGX sample generator, shared by the start-up kernels
// (env_prefilter.comp, env_integrate.comp, brdf_lut.comp) and pbr.frag, so that the maps are written and read with
// one convention.
#ifndef MORPHKIT_ENVIRONMENT_GLSL
#define MORPHKIT_ENVIRONMENT_GLSL

const float kEnvPi = 3.14159265358979;

// Direction → image coordinates: u = atan2(z, x) / 2π + 0.5, v = 0.5 − asin(y) / π (v = 0 is the top row, +Y).
vec2 equirectUv(vec3 d) {
  return vec2(atan(d.z, d.x) * (0.5 / kEnvPi) + 0.5, 0.5 - asin(clamp(d.y, -1.0, 1.0)) / kEnvPi);
}

// The inverse: the unit direction a texel centre at `uv` shows.
vec3 equirectDirection(vec2 uv) {
  float phi = (uv.x - 0.5) * 2.0 * kEnvPi;
  float latitude = (0.5 - uv.y) * kEnvPi;
  return vec3(cos(phi) * cos(latitude), sin(latitude), sin(phi) * cos(latitude));
}

// Low-discrepancy point i of n in [0, 1)²: i / n and the base-2 radical inverse of i.
vec2 hammersleyPoint(uint i, uint n) {
  return vec2(float(i) / float(n), float(bitfieldReverse(i)) * 2.3283064365386963e-10);
}

// A GGX (Trowbridge-Reitz) half vector around +Z for alpha² = a2: cos θ from the distribution's CDF inverse.
vec3 ggxHalfVector(vec2 xi, float a2) {
  float cos_theta = sqrt((1.0 - xi.x) / (1.0 + (a2 - 1.0) * xi.x));
  float sin_theta = sqrt(max(1.0 - cos_theta * cos_theta, 0.0));
  float phi = 2.0 * kEnvPi * xi.y;
  return vec3(sin_theta * cos(phi), sin_theta * sin(phi), cos_theta);
}

// An orthonormal frame whose third axis is n.
mat3 frameAround(vec3 n) {
  vec3 helper = abs(n.y) < 0.999 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
  vec3 t = normalize(cross(helper, n));
  return mat3(t, cross(n, t), n);
}

#endif  // MORPHKIT_ENVIRONMENT_GLSL
