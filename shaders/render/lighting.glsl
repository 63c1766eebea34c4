// SPDX-License-Identifier: MIT
// lighting.glsl — the renderer's light, written once: glTF 2.0 metallic-roughness shading (§3.9.2 and Appendix B
// "BRDF Implementation") under the directional key light with its 3×3 PCF shadow map and the image-based light
// (prefiltered GGX specular, irradiance from its roughest level as three.js reads it, the split-sum table, with the
// multiple-scattering compensation three.js r187 uses: Fdez-Agüera 2019), then exposure and the tone curve
// (tone.glsl). Included by pbr.frag and by the fragment shader node materials generate (src/material, through
// shaderc's include callback; the text is embedded at build time), so a node graph that states a glTF material is
// lit exactly as the built-in path lights it.
//
// The includer declares `frame` (FrameUniforms of render_shared.h, included first) before this file and defines
// the three hooks below for its own bindings (pbr.frag: set 0 of the mesh program; node materials: their one set).
#ifndef MORPHKIT_LIGHTING_GLSL
#define MORPHKIT_LIGHTING_GLSL

#include "environment.glsl"
#include "tone.glsl"

const float kPi = 3.14159265358979;

// ---- Hooks: where the frame's maps are read ----
float lightShadowTap(vec3 uv_depth);             // the shadow map's comparison sample (sampler2DShadow)
vec3 lightEnvironmentTap(vec2 uv, float level);  // the prefiltered equirect chain at `level` (environment.glsl)
vec2 lightBrdfTap(vec2 uv);                      // the split-sum table's (A, B) at (N·V, roughness)

float shadowFactor(vec3 world_position, vec3 n) {
  if (frame.shadow_params.y == 0.0) return 1.0;
  vec4 clip = frame.light_view_proj * vec4(world_position + n * frame.shadow_params.z, 1.0);
  vec3 ndc = clip.xyz / clip.w;
  vec2 uv = ndc.xy * 0.5 + 0.5;
  if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))) || ndc.z > 1.0) return 1.0;
  float texel = frame.shadow_params.x;
  float sum = 0.0;
  for (int y = -1; y <= 1; ++y) {
    for (int x = -1; x <= 1; ++x) sum += lightShadowTap(vec3(uv + vec2(x, y) * texel, ndc.z));
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
  return lightEnvironmentTap(equirectUv(environmentDirection(n)), frame.environment.y);
}

// Prefiltered radiance along the reflection, bent towards the normal as roughness grows (three.js's
// getIBLRadiance); level = last · (1 − (1 − roughness)²), the inverse of the chain's roughness per level.
vec3 specularRadiance(vec3 n, vec3 v, float roughness) {
  vec3 r = reflect(-v, n);
  float r2 = roughness * roughness;
  r = normalize(mix(r, n, r2 * r2));
  float level = frame.environment.y * (1.0 - (1.0 - roughness) * (1.0 - roughness));
  return lightEnvironmentTap(equirectUv(environmentDirection(r)), level);
}

// The split-sum table's (A, B) for N·V and roughness (brdf_lut.comp).
vec2 dfg(float NdotV, float roughness) {
  return lightBrdfTap(vec2(NdotV, roughness));
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

// Roughness widened by the normal's screen-space change (specular antialiasing, as three.js), floored at 0.045.
float iblRoughness(float roughness, vec3 geometry_roughness) {
  return min(max(roughness, 0.045) + max(max(geometry_roughness.x, geometry_roughness.y), geometry_roughness.z), 1.0);
}

// `n` bent by a tangent-space normal map sample `texel` (§3.9.3) whose xy is scaled by `scale`, in the frame of the
// interpolated TANGENT (`has_tangent`), or without a usable one (absent, zero or parallel to `n`) the frame of the
// screen-space derivatives of position (`dpdx`, `dpdy`) and the map's `uv`.
vec3 perturbNormal(vec3 n, vec4 tangent, bool has_tangent, vec3 dpdx, vec3 dpdy, vec2 uv, vec3 texel, float scale) {
  vec3 t;
  float handedness;
  vec3 ortho = tangent.xyz - n * dot(n, tangent.xyz);
  if (has_tangent && dot(ortho, ortho) > 1e-12) {
    t = normalize(ortho);
    handedness = tangent.w < 0.0 ? -1.0 : 1.0;
  } else {
    vec2 dudx = dFdx(uv);
    vec2 dudy = dFdy(uv);
    vec3 tt = dpdx * dudy.y - dpdy * dudx.y;
    t = dot(tt, tt) > 0.0 ? normalize(tt - n * dot(n, tt)) : vec3(1.0, 0.0, 0.0);
    handedness = 1.0;
  }
  vec3 b = cross(n, t) * handedness;
  vec3 tn = texel * 2.0 - 1.0;
  tn.xy *= scale;
  return normalize(mat3(t, b, n) * tn);
}

// What a fragment's surface is, after its textures (three.js's PhysicalMaterial setup). surfaceOf gives glTF's
// defaults (§3.9.2: metallic 1, roughness 1; F0 0.04 of IOR 1.5; no occlusion, emission, sheen or clearcoat).
struct Surface {
  vec4 base;  // base colour; alpha is the caller's
  float metallic, roughness;
  vec3 specular_f0;  // dielectric lobe's F0: KHR_materials_ior × KHR_materials_specular's colour and strength
  float specular_f90;
  bool occluded;    // `occlusion` applies (§3.9.4)
  float occlusion;  // 1 + strength · (texel − 1)
  vec3 emissive;    // × KHR_materials_emissive_strength
  bool sheen;       // KHR_materials_sheen
  vec3 sheen_color;
  float sheen_roughness;
  bool clearcoat;  // KHR_materials_clearcoat
  float clearcoat_factor, clearcoat_roughness;
  vec3 clearcoat_normal;
};

Surface surfaceOf(vec4 base) {
  Surface s;
  s.base = base;
  s.metallic = 1.0;
  s.roughness = 1.0;
  s.specular_f0 = vec3(0.04);
  s.specular_f90 = 1.0;
  s.occluded = false;
  s.occlusion = 1.0;
  s.emissive = vec3(0.0);
  s.sheen = false;
  s.sheen_color = vec3(0.0);
  s.sheen_roughness = 1.0;
  s.clearcoat = false;
  s.clearcoat_factor = 0.0;
  s.clearcoat_roughness = 0.0;
  s.clearcoat_normal = vec3(0.0, 0.0, 1.0);
  return s;
}

// The linear radiance leaving `world_position` towards the camera: key light + image-based light + emission, with
// sheen and clearcoat on top when the surface has them. `n` is the shading normal, `unperturbed` the normal before
// the normal map (its screen-space change widens the IBL roughness). Called in uniform control flow (derivatives).
vec3 shadeSurface(Surface m, vec3 world_position, vec3 n, vec3 unperturbed) {
  const vec3 v = normalize(frame.camera_position.xyz - world_position);
  const float NdotV = clamp(dot(n, v), 0.0, 1.0);
  const vec3 dxy = max(abs(dFdx(unperturbed)), abs(dFdy(unperturbed)));
  const float roughness = iblRoughness(m.roughness, dxy);
  const vec3 base = m.base.rgb;
  const vec3 metal_f0 = base;

  // Key light (Appendix B): GGX with height-correlated Smith visibility, Schlick Fresnel with F0 mixed by
  // metalness, Lambertian diffuse of the non-metal part outside that Fresnel (three.js takes the dielectric Fresnel
  // there, which differs for partly metallic materials only).
  vec3 l = normalize(frame.light_direction.xyz);
  vec3 h = normalize(l + v);
  float NdotL = clamp(dot(n, l), 0.0, 1.0);
  float NdotH = clamp(dot(n, h), 0.0, 1.0);
  float VdotH = clamp(dot(v, h), 0.0, 1.0);
  float NdotVd = clamp(abs(dot(n, v)), 1e-4, 1.0);
  float direct_roughness = max(m.roughness, 0.04);
  vec3 light = frame.light_color.rgb * NdotL * shadowFactor(world_position, n);
  vec3 F = fresnel(mix(m.specular_f0, metal_f0, m.metallic), m.specular_f90, VdotH);
  vec3 direct_diffuse = (1.0 - F) * (1.0 - m.metallic) * base / kPi * light;
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
  vec3 ibl_diffuse = base * (1.0 - m.metallic) * (1.0 - single_d - multiple_d) * irradiance;
  if (m.occluded) {
    ibl_diffuse *= m.occlusion;
    // Specular occlusion from the ambient occlusion (Lagarde & de Rousiers 2014), as three.js.
    ibl_specular *= clamp(pow(NdotV + m.occlusion, exp2(-16.0 * roughness - 1.0)) - 1.0 + m.occlusion, 0.0, 1.0);
  }

  vec3 color;
  if (m.sheen) {
    // KHR_materials_sheen: the lobe on top, the layers below scaled by the energy it takes.
    float max_sheen = max(max(m.sheen_color.r, m.sheen_color.g), m.sheen_color.b);
    float albedo_v = sheenAlbedo(NdotV, m.sheen_roughness);
    float direct_scale = 1.0 - max_sheen * max(albedo_v, sheenAlbedo(NdotL, m.sheen_roughness));
    float ibl_scale = 1.0 - max_sheen * albedo_v;
    vec3 sheen = light * m.sheen_color * sheenDV(NdotL, NdotVd, NdotH, m.sheen_roughness) +
                 irradiance * m.sheen_color * albedo_v;
    color = (direct_diffuse + direct_specular) * direct_scale + (ibl_diffuse + ibl_specular) * ibl_scale + m.emissive +
            sheen;
  } else {
    color = direct_diffuse + direct_specular + ibl_diffuse + ibl_specular + m.emissive;
  }
  if (m.clearcoat) {
    // KHR_materials_clearcoat: a GGX layer with F0 0.04 on its own normal (the unperturbed one bent by
    // clearcoatNormalTexture), over everything below.
    vec3 cc_n = m.clearcoat_normal;
    float cc_roughness = iblRoughness(m.clearcoat_roughness, dxy);
    float cc_NdotV = clamp(dot(cc_n, v), 0.0, 1.0);
    vec2 cc_ab = dfg(cc_NdotV, cc_roughness);
    vec3 cc = specularRadiance(cc_n, v, cc_roughness) * frame.environment.x * (0.04 * cc_ab.x + cc_ab.y);
    float cc_NdotL = clamp(dot(cc_n, l), 0.0, 1.0);
    cc += frame.light_color.rgb * cc_NdotL * shadowFactor(world_position, cc_n) * fresnel(vec3(0.04), 1.0, VdotH) *
          specularDV(cc_NdotL, max(cc_NdotV, 1e-4), clamp(dot(cc_n, h), 0.0, 1.0), max(cc_roughness, 0.04));
    vec3 cc_fresnel = fresnel(vec3(0.04), 1.0, cc_NdotV);
    color = color * (1.0 - m.clearcoat_factor * cc_fresnel) + cc * m.clearcoat_factor;
  }
  return color;
}

// The frame's exposure and tone curve (FrameUniforms::tone) on a linear colour: what every lit or unlit surface
// writes to the sRGB attachment.
vec3 toneMapFrame(vec3 color) {
  return toneMap(color, frame.tone.x, uint(frame.tone.y));
}

#endif  // MORPHKIT_LIGHTING_GLSL
