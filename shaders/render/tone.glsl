// SPDX-License-Identifier: MIT
// tone.glsl — the tone curves of FrameUniforms::tone (MSH_TONE_*), linear in, linear [0, 1] out (the sRGB
// attachment encodes on store).
#ifndef MORPHKIT_TONE_GLSL
#define MORPHKIT_TONE_GLSL

// Khronos PBR Neutral (KhronosGroup/ToneMapping, "PBR Neutral" specification): colours below the compression
// start pass unchanged apart from a small black-level offset; brighter peaks roll off towards 1 and desaturate.
vec3 toneNeutral(vec3 color) {
  const float start = 0.8 - 0.04;
  const float desaturation = 0.15;
  float lowest = min(color.r, min(color.g, color.b));
  float offset = lowest < 0.08 ? lowest - 6.25 * lowest * lowest : 0.04;
  color -= offset;
  float peak = max(color.r, max(color.g, color.b));
  if (peak < start) return color;
  float d = 1.0 - start;
  float new_peak = 1.0 - d * d / (peak + d - start);
  color *= new_peak / peak;
  float g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
  return mix(color, vec3(new_peak), g);
}

// ACES filmic: Stephen Hill's fit of the RRT + ODT, between the sRGB → ACES AP1 input matrix and its inverse
// (the input pre-scaled by 1 / 0.6, as three.js does, so that mid grey lands where its other curves put it).
vec3 toneAces(vec3 color) {
  const mat3 to_aces = mat3(vec3(0.59719, 0.07600, 0.02840), vec3(0.35458, 0.90834, 0.13383),
                            vec3(0.04823, 0.01566, 0.83777));
  const mat3 from_aces = mat3(vec3(1.60475, -0.10208, -0.00327), vec3(-0.53108, 1.10813, -0.07276),
                              vec3(-0.07367, -0.00605, 1.07602));
  vec3 v = to_aces * (color / 0.6);
  vec3 a = v * (v + 0.0245786) - 0.000090537;
  vec3 b = v * (0.983729 * v + 0.4329510) + 0.238081;
  return clamp(from_aces * (a / b), 0.0, 1.0);
}

// `exposure` multiplies first (also with MSH_TONE_NONE); the result is clamped to [0, 1].
vec3 toneMap(vec3 color, float exposure, uint curve) {
  color = max(color * exposure, vec3(0.0));
  if (curve == MSH_TONE_NEUTRAL) color = toneNeutral(color);
  else if (curve == MSH_TONE_ACES) color = toneAces(color);
  return clamp(color, 0.0, 1.0);
}

#endif  // MORPHKIT_TONE_GLSL
