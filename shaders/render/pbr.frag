// SPDX-License-Identifier: MIT
// pbr.frag — glTF 2.0 metallic-roughness shading (glTF 2.0 §3.9.2 and Appendix B "BRDF Implementation"):
// base color, metallic-roughness, normal (tangent space, §3.9.3), occlusion and emissive textures, lit by the
// image-based light (prefiltered GGX specular + SH9 irradiance + split-sum table, with the multiple-scattering
// compensation three.js r187 uses: Fdez-Agüera 2019) and the directional key light with a 3×3 PCF shadow map;
// then exposure and the tone curve (tone.glsl). Output is linear: the attachment is R8G8B8A8_SRGB.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "render_shared.h"
#include "environment.glsl"
#include "tone.glsl"

layout(constant_id = 0) const uint kFeatures = 0;

layout(location = 0) in vec3 inWorldPosition;
layout(location = 1) in vec3 inNormal;
layout(location = 2) in vec4 inTangent;
layout(location = 3) in vec2 inUv0;
layout(location = 4) in vec2 inUv1;

layout(set = MSH_SET_FRAME, binding = MSH_BINDING_FRAME, std140) uniform FrameBlock { FrameUniforms frame; };
layout(set = MSH_SET_FRAME, binding = MSH_BINDING_SHADOW_MAP) uniform sampler2DShadow shadowMap;
layout(set = MSH_SET_FRAME, binding = MSH_BINDING_ENVIRONMENT) uniform sampler2D environmentMap;
layout(set = MSH_SET_FRAME, binding = MSH_BINDING_BRDF_TABLE) uniform sampler2D brdfTable;
layout(set = MSH_SET_FRAME, binding = MSH_BINDING_IRRADIANCE, std430) restrict readonly buffer Irradiance {
  vec4 irradiance_sh9[9];
};
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_MATERIAL, std140) uniform MaterialBlock { MaterialUniforms material; };
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_BASE_COLOR_TEXTURE) uniform sampler2D baseColorTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_METALLIC_ROUGHNESS_TEXTURE) uniform sampler2D metallicRoughnessTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_NORMAL_TEXTURE) uniform sampler2D normalTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_OCCLUSION_TEXTURE) uniform sampler2D occlusionTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_EMISSIVE_TEXTURE) uniform sampler2D emissiveTexture;

layout(location = 0) out vec4 outColor;

const float kPi = 3.14159265358979;

// The texture's TEXCOORD set, through its KHR_texture_transform (identity rows without one).
vec2 uvFor(uint slot) {
  vec3 uv = vec3(((material.texcoord_sets >> slot) & 1u) != 0u ? inUv1 : inUv0, 1.0);
  return vec2(dot(material.uv_transform[2u * slot].xyz, uv), dot(material.uv_transform[2u * slot + 1u].xyz, uv));
}

float shadowFactor(vec3 worldPos, vec3 n) {
  if (frame.shadow_params.y == 0.0) return 1.0;
  vec4 clip = frame.light_view_proj * vec4(worldPos + n * frame.shadow_params.z, 1.0);
  vec3 ndc = clip.xyz / clip.w;
  vec2 uv = ndc.xy * 0.5 + 0.5;
  if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))) || ndc.z > 1.0) return 1.0;
  float texel = frame.shadow_params.x;
  float sum = 0.0;
  for (int y = -1; y <= 1; ++y) {
    for (int x = -1; x <= 1; ++x) sum += texture(shadowMap, vec3(uv + vec2(x, y) * texel, ndc.z));
  }
  return sum / 9.0;
}

// A world direction in the environment's frame: three.js samples R(rotation)ᵀ · d.
vec3 environmentDirection(vec3 d) {
  float c = frame.environment.z, s = frame.environment.w;
  return vec3(c * d.x - s * d.z, d.y, s * d.x + c * d.z);
}

// E(n)/π from the SH9 coefficients, never negative.
vec3 diffuseIrradiance(vec3 n) {
  float y[9];
  shBasis(environmentDirection(n), y);
  vec3 e = vec3(0.0);
  for (int k = 0; k < 9; ++k) e += irradiance_sh9[k].rgb * y[k];
  return max(e, vec3(0.0));
}

// Prefiltered radiance along the reflection, bent towards the normal as roughness grows (three.js's
// getIBLRadiance); level = last · (1 − (1 − roughness)²), the inverse of the chain's roughness per level.
vec3 specularRadiance(vec3 n, vec3 v, float roughness) {
  vec3 r = reflect(-v, n);
  float r2 = roughness * roughness;
  r = normalize(mix(r, n, r2 * r2));
  float level = frame.environment.y * (1.0 - (1.0 - roughness) * (1.0 - roughness));
  return textureLod(environmentMap, equirectUv(environmentDirection(r)), level).rgb;
}

// Single- and multiple-scattering parts of the specular lobe for reflectance `f0` (F90 = 1), from the split-sum
// table's (A, B) (Fdez-Agüera 2019, "A Multiple-Scattering Microfacet Model for Real-Time Image-based Lighting").
void specularScattering(vec2 ab, vec3 f0, out vec3 single, out vec3 multiple) {
  vec3 fss_ess = f0 * ab.x + ab.y;
  float ess = ab.x + ab.y;
  float ems = 1.0 - ess;
  vec3 f_avg = f0 + (1.0 - f0) / 21.0;
  multiple = fss_ess * f_avg / (1.0 - ems * f_avg) * ems;
  single = fss_ess;
}

void main() {
  // Base color (§3.9.2): factor × texture (sRGB texture decoded by the sampler).
  vec4 base = material.base_color_factor;
  if ((material.texture_flags & MAT_BASE_COLOR_TEXTURE) != 0) base *= texture(baseColorTexture, uvFor(0u));
  if ((material.texture_flags & MAT_ALPHA_MASK) != 0 && base.a < material.emissive_factor.w) discard;

  float metallic = material.metallic_factor;
  float roughness = material.roughness_factor;
  if ((material.texture_flags & MAT_METALLIC_ROUGHNESS_TEXTURE) != 0) {
    vec4 mr = texture(metallicRoughnessTexture, uvFor(1u));
    roughness *= mr.g;  // §3.9.2: roughness in G, metalness in B
    metallic *= mr.b;
  }
  metallic = clamp(metallic, 0.0, 1.0);
  roughness = clamp(roughness, 0.04, 1.0);

  // Geometric normal: interpolated NORMAL, or flat from derivatives when the mesh has none (§3.7.2.1).
  vec3 dpdx = dFdx(inWorldPosition);
  vec3 dpdy = dFdy(inWorldPosition);
  // Window y grows downwards in Vulkan while the projection keeps world up on screen up, so dpdy·dpdx (this order)
  // faces the viewer, whichever face is drawn: it needs no back-face flip.
  vec3 flatNormal = normalize(cross(dpdy, dpdx));
  vec3 n = flatNormal;
  if ((kFeatures & MSH_HAS_NORMALS) != 0 && dot(inNormal, inNormal) > 0.0) {
    n = normalize(inNormal);
    if (!gl_FrontFacing) n = -n;  // double-sided materials light the back face with the flipped normal (§3.9.5)
  }
  const vec3 unperturbed = n;

  if ((material.texture_flags & MAT_NORMAL_TEXTURE) != 0) {
    vec2 uv = uvFor(2u);
    vec3 t;
    float handedness;
    if ((kFeatures & MSH_HAS_TANGENTS) != 0 && dot(inTangent.xyz, inTangent.xyz) > 0.0) {
      t = normalize(inTangent.xyz - n * dot(n, inTangent.xyz));
      handedness = inTangent.w < 0.0 ? -1.0 : 1.0;
    } else {
      // No TANGENT: derive the frame from screen-space derivatives of position and uv.
      vec2 dudx = dFdx(uv);
      vec2 dudy = dFdy(uv);
      vec3 tt = dpdx * dudy.y - dpdy * dudx.y;
      t = dot(tt, tt) > 0.0 ? normalize(tt - n * dot(n, tt)) : vec3(1.0, 0.0, 0.0);
      handedness = 1.0;
    }
    vec3 b = cross(n, t) * handedness;
    vec3 tn = texture(normalTexture, uv).xyz * 2.0 - 1.0;
    tn.xy *= material.normal_scale;  // §3.9.3 normalTextureInfo.scale
    n = normalize(mat3(t, b, n) * tn);
  }

  vec3 v = normalize(frame.camera_position.xyz - inWorldPosition);
  vec3 l = normalize(frame.light_direction.xyz);
  vec3 h = normalize(l + v);
  float NdotL = clamp(dot(n, l), 0.0, 1.0);
  float NdotV = clamp(abs(dot(n, v)), 1e-4, 1.0);
  float NdotH = clamp(dot(n, h), 0.0, 1.0);
  float VdotH = clamp(dot(v, h), 0.0, 1.0);

  // Appendix B: Fresnel-Schlick with f0 mixed by metalness, Trowbridge-Reitz (GGX) distribution, height-
  // correlated Smith visibility, Lambertian diffuse of the non-metal part.
  vec3 f0 = mix(vec3(0.04), base.rgb, metallic);
  vec3 F = f0 + (1.0 - f0) * pow(1.0 - VdotH, 5.0);
  float a = roughness * roughness;
  float a2 = a * a;
  float d = NdotH * NdotH * (a2 - 1.0) + 1.0;
  float D = a2 / (kPi * d * d);
  float gv = NdotL * sqrt(NdotV * NdotV * (1.0 - a2) + a2);
  float gl = NdotV * sqrt(NdotL * NdotL * (1.0 - a2) + a2);
  float Vis = gv + gl > 0.0 ? 0.5 / (gv + gl) : 0.0;
  vec3 diffuse = (1.0 - F) * (1.0 - metallic) * base.rgb / kPi;
  vec3 specular = F * D * Vis;
  vec3 direct = (diffuse + specular) * frame.light_color.rgb * NdotL * shadowFactor(inWorldPosition, n);

  // Image-based light: the dielectric (F0 0.04) and metal (F0 = base colour) lobes mixed by metalness, the
  // diffuse part reduced by the dielectric lobe's energy. Roughness is widened by the normal's screen-space
  // change (specular antialiasing, as three.js), floored at 0.045.
  vec3 ndx = dFdx(unperturbed), ndy = dFdy(unperturbed);
  vec3 dxy = max(abs(ndx), abs(ndy));
  float ibl_roughness = min(max(roughness, 0.045) + max(max(dxy.x, dxy.y), dxy.z), 1.0);
  vec2 ab = texture(brdfTable, vec2(clamp(dot(n, v), 0.0, 1.0), ibl_roughness)).rg;
  vec3 single_d, multiple_d, single_m, multiple_m;
  specularScattering(ab, vec3(0.04), single_d, multiple_d);
  specularScattering(ab, base.rgb, single_m, multiple_m);
  vec3 irradiance = diffuseIrradiance(n) * frame.environment.x;  // E/π
  vec3 radiance = specularRadiance(n, v, ibl_roughness) * frame.environment.x;
  vec3 ibl_specular = radiance * mix(single_d, single_m, metallic) + irradiance * mix(multiple_d, multiple_m, metallic);
  vec3 ibl_diffuse = base.rgb * (1.0 - metallic) * (1.0 - single_d - multiple_d) * irradiance;
  if ((material.texture_flags & MAT_OCCLUSION_TEXTURE) != 0) {
    float ao = texture(occlusionTexture, uvFor(3u)).r;  // §3.9.4: occlusion in R
    ao = 1.0 + material.occlusion_strength * (ao - 1.0);
    ibl_diffuse *= ao;
    // Specular occlusion from the ambient occlusion (Lagarde & de Rousiers 2014), as three.js.
    float NdotVo = clamp(dot(n, v), 0.0, 1.0);
    ibl_specular *= clamp(pow(NdotVo + ao, exp2(-16.0 * ibl_roughness - 1.0)) - 1.0 + ao, 0.0, 1.0);
  }

  vec3 emissive = material.emissive_factor.rgb;
  if ((material.texture_flags & MAT_EMISSIVE_TEXTURE) != 0) emissive *= texture(emissiveTexture, uvFor(4u)).rgb;

  vec3 color = direct + ibl_diffuse + ibl_specular + emissive;
  float alpha = (material.texture_flags & MAT_ALPHA_BLEND) != 0 ? base.a : 1.0;
  outColor = vec4(toneMap(color, frame.tone.x, uint(frame.tone.y)), alpha);
}
