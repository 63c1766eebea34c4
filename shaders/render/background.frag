// SPDX-License-Identifier: MIT
// background.frag — the environment behind the model (--background environment): the view ray through the pixel,
// rotated as the lighting is, reads level 0 of the prefiltered chain (the mirror level, the source resampled),
// scaled by the intensity, then exposure and the tone curve like the model (three.js tone-maps a texture
// background too).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "render_shared.h"
#include "environment.glsl"
#include "tone.glsl"

layout(location = 0) in vec2 inClip;
layout(set = MSH_SET_FRAME, binding = MSH_BINDING_FRAME, std140) uniform FrameBlock { FrameUniforms frame; };
layout(set = MSH_SET_FRAME, binding = MSH_BINDING_ENVIRONMENT) uniform sampler2D environmentMap;
layout(location = 0) out vec4 outColor;

void main() {
  vec4 far = frame.inverse_view_proj * vec4(inClip, 1.0, 1.0);
  vec3 d = normalize(far.xyz / far.w - frame.camera_position.xyz);
  float c = frame.environment.z, s = frame.environment.w;
  d = vec3(c * d.x - s * d.z, d.y, s * d.x + c * d.z);
  vec3 radiance = textureLod(environmentMap, equirectUv(d), 0.0).rgb * frame.environment.x;
  outColor = vec4(toneMap(radiance, frame.tone.x, uint(frame.tone.y)), 1.0);
}
