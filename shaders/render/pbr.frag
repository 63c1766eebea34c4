// SPDX-License-Identifier: MIT
// pbr.frag — glTF 2.0 metallic-roughness materials (glTF 2.0 §3.9.2): base color, metallic-roughness, normal
// (tangent space, §3.9.3), occlusion and emissive textures and the KHR_materials_* the renderer shades, read into
// lighting.glsl's Surface and lit there (key light, image-based light, exposure and the tone curve: the one copy
// node materials use too). Output is linear: the attachment is R8G8B8A8_SRGB.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "render_shared.h"

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

// After the frame block and its maps, which lighting.glsl reads (its hooks are defined below).
#include "lighting.glsl"

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

// lighting.glsl's hooks: set 0's maps.
float lightShadowTap(vec3 uv_depth) {
  return texture(shadowMap, uv_depth);
}
vec3 lightEnvironmentTap(vec2 uv, float level) {
  return textureLod(environmentMap, uv, level).rgb;
}
vec2 lightBrdfTap(vec2 uv) {
  return texture(brdfTable, uv).rg;
}

// The texture's TEXCOORD set, through its KHR_texture_transform (identity rows without one).
vec2 uvFor(uint slot) {
  vec3 uv = vec3(((material.texcoord_sets >> slot) & 1u) != 0u ? inUv1 : inUv0, 1.0);
  return vec2(dot(material.uv_transform[2u * slot].xyz, uv), dot(material.uv_transform[2u * slot + 1u].xyz, uv));
}

bool hasFlag(uint flag) {
  return (material.texture_flags & flag) != 0u;
}

// The fragment's surface after its textures (three.js's PhysicalMaterial setup): metallic-roughness, IOR and
// specular, occlusion, emission, sheen and clearcoat of the material block.
Surface shadingInputs(vec4 base) {
  Surface m = surfaceOf(base);
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
  if (hasFlag(MAT_OCCLUSION_TEXTURE)) {
    float ao = texture(occlusionTexture, uvFor(3u)).r;  // §3.9.4: occlusion in R
    m.occluded = true;
    m.occlusion = 1.0 + material.occlusion_strength * (ao - 1.0);
  }
  m.emissive = material.emissive_factor.rgb;  // × KHR_materials_emissive_strength
  if (hasFlag(MAT_EMISSIVE_TEXTURE)) m.emissive *= texture(emissiveTexture, uvFor(4u)).rgb;
  m.sheen = hasFlag(MAT_SHEEN);
  m.sheen_color = material.sheen.rgb;
  m.sheen_roughness = clamp(material.sheen.w, 1e-4, 1.0);
  if (hasFlag(MAT_SHEEN_COLOR_TEXTURE)) m.sheen_color *= texture(sheenColorTexture, uvFor(7u)).rgb;
  if (hasFlag(MAT_SHEEN_ROUGHNESS_TEXTURE)) m.sheen_roughness *= texture(sheenRoughnessTexture, uvFor(8u)).a;
  m.clearcoat = hasFlag(MAT_CLEARCOAT);
  m.clearcoat_factor = material.clearcoat.x;
  m.clearcoat_roughness = material.clearcoat.y;
  if (hasFlag(MAT_CLEARCOAT_TEXTURE)) m.clearcoat_factor *= texture(clearcoatTexture, uvFor(5u)).r;
  if (hasFlag(MAT_CLEARCOAT_ROUGHNESS_TEXTURE))
    m.clearcoat_roughness *= texture(clearcoatRoughnessTexture, uvFor(6u)).g;
  m.clearcoat_factor = clamp(m.clearcoat_factor, 0.0, 1.0);
  return m;
}

// `n` bent by the map sampled at `uv` (lighting.glsl's perturbNormal), in TANGENT's frame when the mesh has one.
vec3 mapNormal(vec3 n, vec2 uv, vec3 texel, float scale) {
  return perturbNormal(n, inTangent, (kFeatures & MSH_HAS_TANGENTS) != 0, dFdx(inWorldPosition), dFdy(inWorldPosition),
                       uv, texel, scale);
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

void main() {
  // Base color (§3.9.2): factor × COLOR_0 (§3.7.2.1) × texture (sRGB texture decoded by the sampler).
  vec4 base = material.base_color_factor * inColor0;
  if (hasFlag(MAT_BASE_COLOR_TEXTURE)) base *= texture(baseColorTexture, uvFor(0u));
  if (hasFlag(MAT_ALPHA_MASK) && base.a < material.emissive_factor.w) discard;
  float alpha = hasFlag(MAT_ALPHA_BLEND) ? base.a : 1.0;
  if (hasFlag(MAT_UNLIT)) {  // KHR_materials_unlit: the base colour, tone-mapped like every other surface
    outColor = vec4(toneMapFrame(base.rgb), alpha);
    return;
  }
  Surface m = shadingInputs(base);
  vec3 unperturbed;
  const vec3 n = shadingNormal(unperturbed);
  if (m.clearcoat) m.clearcoat_normal = clearcoatNormal(unperturbed);
  outColor = vec4(toneMapFrame(shadeSurface(m, inWorldPosition, n, unperturbed)), alpha);
}
