// SPDX-License-Identifier: MIT
// pbr.frag — glTF 2.0 metallic-roughness shading (glTF 2.0 §3.9.2 and Appendix B "BRDF Implementation"):
// base color, metallic-roughness, normal (tangent space, §3.9.3), occlusion and emissive textures, lit by the
// image-based light (prefiltered GGX specular, irradiance from its roughest level as three.js reads it, the
// split-sum table, with the multiple-scattering compensation three.js r187 uses: Fdez-Agüera 2019) and the
// directional key light with a 3×3 PCF shadow map;
// then exposure and the tone curve (tone.glsl). Output is linear: the attachment is R8G8B8A8_SRGB.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "render_shared.h"

// After render_shared.h, whose bindings and structs they use (a group of their own: clang-format sorts groups).
#include "environment.glsl"
#include "tone.glsl"

layout(constant_id = 0) const uint kFeatures = 0;

layout(location = 0) in vec3 inWorldPosition;
layout(location = 1) in vec3 inNormal;
layout(location = 2) in vec4 inTangent;
layout(location = 3) in vec2 inUv0;
layout(location = 4) in vec2 inUv1;
layout(location = 5) in vec4 inColor0;  // vec4(1) without COLOR_0

layout(set = MSH_SET_FRAME, binding = MSH_BINDING_FRAME, std140) uniform FrameBlock {
  FrameUniforms frame;
};
layout(set = MSH_SET_FRAME, binding = MSH_BINDING_SHADOW_MAP) uniform sampler2DShadow shadowMap;
layout(set = MSH_SET_FRAME, binding = MSH_BINDING_ENVIRONMENT) uniform sampler2D environmentMap;
layout(set = MSH_SET_FRAME, binding = MSH_BINDING_BRDF_TABLE) uniform sampler2D brdfTable;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_MATERIAL, std140) uniform MaterialBlock {
  MaterialUniforms material;
};
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_BASE_COLOR_TEXTURE) uniform sampler2D baseColorTexture;
layout(set = MSH_SET_MATERIAL,
       binding = MSH_BINDING_METALLIC_ROUGHNESS_TEXTURE) uniform sampler2D metallicRoughnessTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_NORMAL_TEXTURE) uniform sampler2D normalTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_OCCLUSION_TEXTURE) uniform sampler2D occlusionTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_EMISSIVE_TEXTURE) uniform sampler2D emissiveTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_CLEARCOAT_TEXTURE) uniform sampler2D clearcoatTexture;
layout(set = MSH_SET_MATERIAL,
       binding = MSH_BINDING_CLEARCOAT_ROUGHNESS_TEXTURE) uniform sampler2D clearcoatRoughnessTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_SHEEN_COLOR_TEXTURE) uniform sampler2D sheenColorTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_SHEEN_ROUGHNESS_TEXTURE) uniform sampler2D sheenRoughnessTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_SPECULAR_TEXTURE) uniform sampler2D specularTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_SPECULAR_COLOR_TEXTURE) uniform sampler2D specularColorTexture;
layout(set = MSH_SET_MATERIAL, binding = MSH_BINDING_CLEARCOAT_NORMAL_TEXTURE) uniform sampler2D clearcoatNormalTexture;

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

// E(n)/π: the roughest prefiltered level is the cosine-weighted mean of the radiance about n (GGX at roughness 1
// with V = N weighs each direction by N·L alone), which three.js's getIBLIrradiance reads too.
vec3 diffuseIrradiance(vec3 n) {
  return textureLod(environmentMap, equirectUv(environmentDirection(n)), frame.environment.y).rgb;
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

bool hasFlag(uint flag) {
  return (material.texture_flags & flag) != 0u;
}

// The split-sum table's (A, B) for N·V and roughness (brdf_lut.comp).
vec2 dfg(float NdotV, float roughness) {
  return texture(brdfTable, vec2(NdotV, roughness)).rg;
}

// Single- and multiple-scattering parts of the specular lobe for reflectance `f0` at normal incidence and `f90` at
// grazing, from the split-sum table's (A, B) (Fdez-Agüera 2019, "A Multiple-Scattering Microfacet Model for
// Real-Time Image-based Lighting"; three.js's computeMultiscattering).
void specularScattering(vec2 ab, vec3 f0, float f90, out vec3 single, out vec3 multiple) {
  vec3 fss_ess = f0 * ab.x + f90 * ab.y;
  float ess = ab.x + ab.y;
  float ems = 1.0 - ess;
  vec3 f_avg = f0 + (1.0 - f0) / 21.0;
  multiple = fss_ess * f_avg / (1.0 - ems * f_avg) * ems;
  single = fss_ess;
}

// Schlick's Fresnel between f0 and f90.
vec3 fresnel(vec3 f0, float f90, float cos_theta) {
  return f0 + (f90 - f0) * pow(1.0 - cos_theta, 5.0);
}

// GGX distribution × height-correlated Smith visibility for alpha = roughness² (Appendix B).
float specularDV(float NdotL, float NdotV, float NdotH, float roughness) {
  float a2 = roughness * roughness * roughness * roughness;
  float d = NdotH * NdotH * (a2 - 1.0) + 1.0;
  float gv = NdotL * sqrt(NdotV * NdotV * (1.0 - a2) + a2);
  float gl = NdotV * sqrt(NdotL * NdotL * (1.0 - a2) + a2);
  return gv + gl > 0.0 ? a2 / (kPi * d * d) * 0.5 / (gv + gl) : 0.0;
}

// KHR_materials_sheen: the Charlie distribution (Estevez & Kulla 2017) with Neubelt's visibility, and the
// hemisphere albedo of the lobe as three.js r187's curve fit of Estevez & Kulla's table (IBLSheenBRDF).
float sheenDV(float NdotL, float NdotV, float NdotH, float roughness) {
  float inv_alpha = 1.0 / (roughness * roughness);
  float sin2h = max(1.0 - NdotH * NdotH, 0.0078125);
  float D = (2.0 + inv_alpha) * pow(sin2h, inv_alpha * 0.5) / (2.0 * kPi);
  return D * clamp(1.0 / (4.0 * (NdotL + NdotV - NdotL * NdotV)), 0.0, 1.0);
}
float sheenAlbedo(float NdotV, float roughness) {
  float r2 = roughness * roughness, r_inv = 1.0 / (roughness + 0.1);
  float a = -1.9362 + 1.0678 * roughness + 0.4573 * r2 - 0.8469 * r_inv;
  float b = -0.6014 + 0.5538 * roughness - 0.4670 * r2 - 0.1255 * r_inv;
  return clamp(exp(a * NdotV + b), 0.0, 1.0);
}

// What the fragment's material is, after textures (three.js's PhysicalMaterial setup).
struct Shading {
  vec4 base;
  float metallic, roughness;
  vec3 specular_f0;  // dielectric lobe's F0: KHR_materials_ior × KHR_materials_specular's colour and strength
  float specular_f90;
  float clearcoat, clearcoat_roughness;
  vec3 sheen_color;
  float sheen_roughness;
};

Shading shadingInputs(vec4 base) {
  Shading m;
  m.base = base;
  m.metallic = material.metallic_factor;
  m.roughness = material.roughness_factor;
  if (hasFlag(MAT_METALLIC_ROUGHNESS_TEXTURE)) {
    vec4 mr = texture(metallicRoughnessTexture, uvFor(1u));
    m.roughness *= mr.g;  // §3.9.2: roughness in G, metalness in B
    m.metallic *= mr.b;
  }
  m.metallic = clamp(m.metallic, 0.0, 1.0);
  m.roughness = clamp(m.roughness, 0.0, 1.0);
  vec3 specular_color = material.specular.rgb;
  float specular = material.specular.w;
  if (hasFlag(MAT_SPECULAR_COLOR_TEXTURE)) specular_color *= texture(specularColorTexture, uvFor(10u)).rgb;
  if (hasFlag(MAT_SPECULAR_TEXTURE)) specular *= texture(specularTexture, uvFor(9u)).a;
  m.specular_f0 = min(vec3(material.dielectric_f0) * specular_color, vec3(1.0)) * specular;
  m.specular_f90 = mix(specular, 1.0, m.metallic);
  m.clearcoat = material.clearcoat.x;
  m.clearcoat_roughness = material.clearcoat.y;
  if (hasFlag(MAT_CLEARCOAT_TEXTURE)) m.clearcoat *= texture(clearcoatTexture, uvFor(5u)).r;
  if (hasFlag(MAT_CLEARCOAT_ROUGHNESS_TEXTURE))
    m.clearcoat_roughness *= texture(clearcoatRoughnessTexture, uvFor(6u)).g;
  m.clearcoat = clamp(m.clearcoat, 0.0, 1.0);
  m.sheen_color = material.sheen.rgb;
  m.sheen_roughness = clamp(material.sheen.w, 1e-4, 1.0);
  if (hasFlag(MAT_SHEEN_COLOR_TEXTURE)) m.sheen_color *= texture(sheenColorTexture, uvFor(7u)).rgb;
  if (hasFlag(MAT_SHEEN_ROUGHNESS_TEXTURE)) m.sheen_roughness *= texture(sheenRoughnessTexture, uvFor(8u)).a;
  return m;
}

// `n` bent by a tangent-space normal map sample `texel` (§3.9.3) whose xy is scaled by `scale`, in the frame of
// TANGENT, or without one the frame of the screen-space derivatives of position and the map's `uv`.
vec3 mapNormal(vec3 n, vec2 uv, vec3 texel, float scale) {
  vec3 t;
  float handedness;
  if ((kFeatures & MSH_HAS_TANGENTS) != 0 && dot(inTangent.xyz, inTangent.xyz) > 0.0) {
    t = normalize(inTangent.xyz - n * dot(n, inTangent.xyz));
    handedness = inTangent.w < 0.0 ? -1.0 : 1.0;
  } else {
    vec2 dudx = dFdx(uv);
    vec2 dudy = dFdy(uv);
    vec3 tt = dFdx(inWorldPosition) * dudy.y - dFdy(inWorldPosition) * dudx.y;
    t = dot(tt, tt) > 0.0 ? normalize(tt - n * dot(n, tt)) : vec3(1.0, 0.0, 0.0);
    handedness = 1.0;
  }
  vec3 b = cross(n, t) * handedness;
  vec3 tn = texel * 2.0 - 1.0;
  tn.xy *= scale;
  return normalize(mat3(t, b, n) * tn);
}

// The shading normal: interpolated NORMAL (flipped on back faces), or flat from derivatives when the mesh has none
// (§3.7.2.1), then the normal map (§3.9.3). `unperturbed` is the normal before the map (clearcoat, antialiasing).
vec3 shadingNormal(out vec3 unperturbed) {
  vec3 dpdx = dFdx(inWorldPosition);
  vec3 dpdy = dFdy(inWorldPosition);
  // Window y grows downwards in Vulkan while the projection keeps world up on screen up, so dpdy·dpdx (this order)
  // faces the viewer, whichever face is drawn: it needs no back-face flip.
  vec3 n = normalize(cross(dpdy, dpdx));
  if ((kFeatures & MSH_HAS_NORMALS) != 0 && dot(inNormal, inNormal) > 0.0) {
    n = normalize(inNormal);
    if (!gl_FrontFacing) n = -n;  // double-sided materials light the back face with the flipped normal (§3.9.5)
  }
  unperturbed = n;
  if (!hasFlag(MAT_NORMAL_TEXTURE)) return n;
  vec2 uv = uvFor(2u);
  return mapNormal(n, uv, texture(normalTexture, uv).xyz, material.normal_scale);
}

// KHR_materials_clearcoat's normal: the unperturbed normal bent by clearcoatNormalTexture, or the unperturbed one.
vec3 clearcoatNormal(vec3 unperturbed) {
  if (!hasFlag(MAT_CLEARCOAT_NORMAL_TEXTURE)) return unperturbed;
  vec2 uv = uvFor(11u);
  return mapNormal(unperturbed, uv, texture(clearcoatNormalTexture, uv).xyz, material.clearcoat.z);
}

// Roughness widened by the normal's screen-space change (specular antialiasing, as three.js), floored at 0.045.
float iblRoughness(float roughness, vec3 geometry_roughness) {
  return min(max(roughness, 0.045) + max(max(geometry_roughness.x, geometry_roughness.y), geometry_roughness.z), 1.0);
}

void main() {
  // Base color (§3.9.2): factor × COLOR_0 (§3.7.2.1) × texture (sRGB texture decoded by the sampler).
  vec4 base = material.base_color_factor * inColor0;
  if (hasFlag(MAT_BASE_COLOR_TEXTURE)) base *= texture(baseColorTexture, uvFor(0u));
  if (hasFlag(MAT_ALPHA_MASK) && base.a < material.emissive_factor.w) discard;
  float alpha = hasFlag(MAT_ALPHA_BLEND) ? base.a : 1.0;
  if (hasFlag(MAT_UNLIT)) {  // KHR_materials_unlit: the base colour, tone-mapped like every other surface
    outColor = vec4(toneMap(base.rgb, frame.tone.x, uint(frame.tone.y)), alpha);
    return;
  }
  const Shading m = shadingInputs(base);
  vec3 unperturbed;
  const vec3 n = shadingNormal(unperturbed);
  const vec3 v = normalize(frame.camera_position.xyz - inWorldPosition);
  const float NdotV = clamp(dot(n, v), 0.0, 1.0);
  const vec3 dxy = max(abs(dFdx(unperturbed)), abs(dFdy(unperturbed)));
  const float roughness = iblRoughness(m.roughness, dxy);
  const vec3 metal_f0 = base.rgb;

  // Key light (Appendix B): GGX with height-correlated Smith visibility, Schlick Fresnel with F0 mixed by
  // metalness, Lambertian diffuse of the non-metal part outside that Fresnel (as node materials do; three.js
  // takes the dielectric Fresnel there, which differs for partly metallic materials only).
  vec3 l = normalize(frame.light_direction.xyz);
  vec3 h = normalize(l + v);
  float NdotL = clamp(dot(n, l), 0.0, 1.0);
  float NdotH = clamp(dot(n, h), 0.0, 1.0);
  float VdotH = clamp(dot(v, h), 0.0, 1.0);
  float NdotVd = clamp(abs(dot(n, v)), 1e-4, 1.0);
  float direct_roughness = max(m.roughness, 0.04);
  vec3 light = frame.light_color.rgb * NdotL * shadowFactor(inWorldPosition, n);
  vec3 F = fresnel(mix(m.specular_f0, metal_f0, m.metallic), m.specular_f90, VdotH);
  vec3 direct_diffuse = (1.0 - F) * (1.0 - m.metallic) * base.rgb / kPi * light;
  vec3 direct_specular = F * specularDV(NdotL, NdotVd, NdotH, direct_roughness) * light;

  // Image-based light: the dielectric and metal lobes mixed by metalness, the diffuse part reduced by the
  // dielectric lobe's energy (three.js r187's RE_IndirectSpecular_Physical).
  vec2 ab = dfg(NdotV, roughness);
  vec3 single_d, multiple_d, single_m, multiple_m;
  specularScattering(ab, m.specular_f0, m.specular_f90, single_d, multiple_d);
  specularScattering(ab, metal_f0, m.specular_f90, single_m, multiple_m);
  vec3 irradiance = diffuseIrradiance(n) * frame.environment.x;  // E/π
  vec3 radiance = specularRadiance(n, v, roughness) * frame.environment.x;
  vec3 ibl_specular =
      radiance * mix(single_d, single_m, m.metallic) + irradiance * mix(multiple_d, multiple_m, m.metallic);
  vec3 ibl_diffuse = base.rgb * (1.0 - m.metallic) * (1.0 - single_d - multiple_d) * irradiance;
  if (hasFlag(MAT_OCCLUSION_TEXTURE)) {
    float ao = texture(occlusionTexture, uvFor(3u)).r;  // §3.9.4: occlusion in R
    ao = 1.0 + material.occlusion_strength * (ao - 1.0);
    ibl_diffuse *= ao;
    // Specular occlusion from the ambient occlusion (Lagarde & de Rousiers 2014), as three.js.
    ibl_specular *= clamp(pow(NdotV + ao, exp2(-16.0 * roughness - 1.0)) - 1.0 + ao, 0.0, 1.0);
  }

  vec3 emissive = material.emissive_factor.rgb;  // × KHR_materials_emissive_strength
  if (hasFlag(MAT_EMISSIVE_TEXTURE)) emissive *= texture(emissiveTexture, uvFor(4u)).rgb;

  vec3 color;
  if (hasFlag(MAT_SHEEN)) {
    // KHR_materials_sheen: the lobe on top, the layers below scaled by the energy it takes.
    float max_sheen = max(max(m.sheen_color.r, m.sheen_color.g), m.sheen_color.b);
    float albedo_v = sheenAlbedo(NdotV, m.sheen_roughness);
    float direct_scale = 1.0 - max_sheen * max(albedo_v, sheenAlbedo(NdotL, m.sheen_roughness));
    float ibl_scale = 1.0 - max_sheen * albedo_v;
    vec3 sheen = light * m.sheen_color * sheenDV(NdotL, NdotVd, NdotH, m.sheen_roughness) +
                 irradiance * m.sheen_color * albedo_v;
    color =
        (direct_diffuse + direct_specular) * direct_scale + (ibl_diffuse + ibl_specular) * ibl_scale + emissive + sheen;
  } else {
    color = direct_diffuse + direct_specular + ibl_diffuse + ibl_specular + emissive;
  }
  if (hasFlag(MAT_CLEARCOAT)) {
    // KHR_materials_clearcoat: a GGX layer with F0 0.04 on its own normal (the unperturbed one bent by
    // clearcoatNormalTexture), over everything below.
    vec3 cc_n = clearcoatNormal(unperturbed);
    float cc_roughness = iblRoughness(m.clearcoat_roughness, dxy);
    float cc_NdotV = clamp(dot(cc_n, v), 0.0, 1.0);
    vec2 cc_ab = dfg(cc_NdotV, cc_roughness);
    vec3 cc = specularRadiance(cc_n, v, cc_roughness) * frame.environment.x * (0.04 * cc_ab.x + cc_ab.y);
    float cc_NdotL = clamp(dot(cc_n, l), 0.0, 1.0);
    cc += frame.light_color.rgb * cc_NdotL * shadowFactor(inWorldPosition, cc_n) * fresnel(vec3(0.04), 1.0, VdotH) *
          specularDV(cc_NdotL, max(cc_NdotV, 1e-4), clamp(dot(cc_n, h), 0.0, 1.0), max(cc_roughness, 0.04));
    vec3 cc_fresnel = fresnel(vec3(0.04), 1.0, cc_NdotV);
    color = color * (1.0 - m.clearcoat * cc_fresnel) + cc * m.clearcoat;
  }
  outColor = vec4(toneMap(color, frame.tone.x, uint(frame.tone.y)), alpha);
}
