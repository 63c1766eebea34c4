// SPDX-License-Identifier: MIT
// render_shared.h — GPU structs, feature flags and binding slots shared by the render shaders
// (shaders/render/*.vert|frag, shaders/morph.glsl), the GLSL that node materials generate (src/material, through
// shaderc's include callback) and C++ (src/render/*.cpp, src/material/*.cpp). One definition, two languages: C++ sees
// the same struct names with static_asserts on every size and offset (std140 for uniform blocks, std430 for storage
// blocks; every member here is a 16-byte vec4/mat4 or a run of 4-byte scalars, so C++ natural alignment
// with alignas(16) vectors gives the same bytes). Macros are plain ints so the GLSL preprocessor can use them.
#ifndef MORPHKIT_RENDER_SHARED_H
#define MORPHKIT_RENDER_SHARED_H

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
namespace morphkit::render {
using uint = uint32_t;
struct alignas(16) vec4 {
  float x, y, z, w;
};
struct alignas(16) mat4 {
  float m[16];  // column-major, as GLSL
};
#endif

// ---- Per-mesh feature flags (the band-texture design's mesh-features) ----
#define MSH_HAS_NORMALS (1 << 0)        // NORMAL present (else: flat normals from screen-space derivatives)
#define MSH_HAS_TANGENTS (1 << 1)       // TANGENT present (else: tangent frame from derivatives for normal maps)
#define MSH_HAS_UV0 (1 << 2)            // TEXCOORD_0 present
#define MSH_HAS_MORPH_TARGETS (1 << 3)  // band-texture path: morph texture + weights in the per-mesh set; VS morphs
#define MSH_HAS_SKIN (1 << 4)           // skin stream + joint matrices (storage buffers) in the per-mesh set
#define MSH_MORPH_ACTIVE_LIST (1 << 5)  // > 4 targets: weights + active list in a storage buffer
#define MSH_HAS_UV1 (1 << 6)            // TEXCOORD_1 present
#define MSH_HAS_COLOR0 (1 << 7)         // COLOR_0 present (vertex input location 5, RGBA; multiplies the base colour)

// Flags that change the per-mesh descriptor-set layout: each combination is a compiled vertex-shader variant
// (MSH_LAYOUT define). The others are a specialization constant (constant_id = 0).
#define MSH_LAYOUT_MASK (MSH_HAS_MORPH_TARGETS | MSH_HAS_SKIN | MSH_MORPH_ACTIVE_LIST)

// Band-texture path: the 32-byte weights uniform holds at most 4 weights.
#define MSH_SEED_MAX_TARGETS 4
// Bands of the morph texture per target: position, normal (band-texture path), then tangent (beyond its design).
#define MSH_BAND_POSITION 0
#define MSH_BAND_NORMAL 1
#define MSH_BAND_TANGENT 2

// ---- Descriptor sets (grouped by update frequency) ----
// set 0: per frame. set 1: per mesh (draw). set 2: per material.
#define MSH_SET_FRAME 0
#define MSH_SET_MESH 1
#define MSH_SET_MATERIAL 2
#define MSH_BINDING_FRAME 0        // FrameUniforms (uniform)
#define MSH_BINDING_SHADOW_MAP 1   // sampler2DShadow
#define MSH_BINDING_ENVIRONMENT 2  // sampler2D: the prefiltered equirect chain (environment.glsl's convention)
#define MSH_BINDING_BRDF_TABLE 3   // sampler2D: split-sum (A, B) by (N·V, roughness)

// Tone curves (FrameUniforms::tone.y), applied after the exposure scale.
#define MSH_TONE_NONE 0
#define MSH_TONE_NEUTRAL 1  // Khronos PBR Neutral (three.js NeutralToneMapping)
#define MSH_TONE_ACES 2     // ACES filmic, Hill's fit (three.js ACESFilmicToneMapping)
// Per-mesh set: the slots of the optional entries shift with the entries present, as in the band-texture design.
#define MSH_BINDING_OBJECT 0          // ObjectUniforms (uniform), always
#define MSH_BINDING_SKIN_STREAM 1     // MSH_HAS_SKIN: per vertex 4·sets u32 joints then 4·sets f32 weights
#define MSH_BINDING_JOINT_MATRICES 2  // MSH_HAS_SKIN: mat4 joint palette
#ifdef MSH_LAYOUT
#if (MSH_LAYOUT & MSH_HAS_SKIN) != 0
#define MSH_BINDING_MORPH_TEXTURE 3
#define MSH_BINDING_MORPH_WEIGHTS 4
#else
#define MSH_BINDING_MORPH_TEXTURE 1  // MSH_HAS_MORPH_TARGETS: rgba32float texture (unfilterable, texelFetch)
#define MSH_BINDING_MORPH_WEIGHTS 2  // MSH_HAS_MORPH_TARGETS: MorphUniforms (uniform) or MorphActiveHeader (storage)
#endif
#endif
#define MSH_BINDING_MATERIAL 0  // MaterialUniforms, then MAT_TEXTURE_COUNT combined image samplers (slot k at k + 1):
#define MSH_BINDING_BASE_COLOR_TEXTURE 1
#define MSH_BINDING_METALLIC_ROUGHNESS_TEXTURE 2
#define MSH_BINDING_NORMAL_TEXTURE 3
#define MSH_BINDING_OCCLUSION_TEXTURE 4
#define MSH_BINDING_EMISSIVE_TEXTURE 5
#define MSH_BINDING_CLEARCOAT_TEXTURE 6            // KHR_materials_clearcoat clearcoatTexture (R)
#define MSH_BINDING_CLEARCOAT_ROUGHNESS_TEXTURE 7  // clearcoatRoughnessTexture (G)
#define MSH_BINDING_SHEEN_COLOR_TEXTURE 8          // KHR_materials_sheen sheenColorTexture (RGB, sRGB)
#define MSH_BINDING_SHEEN_ROUGHNESS_TEXTURE 9      // sheenRoughnessTexture (A)
#define MSH_BINDING_SPECULAR_TEXTURE 10            // KHR_materials_specular specularTexture (A)
#define MSH_BINDING_SPECULAR_COLOR_TEXTURE 11      // specularColorTexture (RGB, sRGB)
#define MSH_BINDING_CLEARCOAT_NORMAL_TEXTURE 12    // KHR_materials_clearcoat clearcoatNormalTexture (tangent space)
#define MAT_TEXTURE_COUNT 12

// Push constant: which pass draws (the shadow pass projects with the light's matrix).
#define MSH_PASS_COLOR 0
#define MSH_PASS_DEPTH 1
#define MSH_PASS_SHADOW 2

// MaterialUniforms.texture_flags: bit k says texture slot k (binding k + 1) is bound (others are 1×1 defaults and
// ignored); the bits from 16 are the material's shading switches.
#define MAT_BASE_COLOR_TEXTURE (1 << 0)
#define MAT_METALLIC_ROUGHNESS_TEXTURE (1 << 1)
#define MAT_NORMAL_TEXTURE (1 << 2)
#define MAT_OCCLUSION_TEXTURE (1 << 3)
#define MAT_EMISSIVE_TEXTURE (1 << 4)
#define MAT_CLEARCOAT_TEXTURE (1 << 5)
#define MAT_CLEARCOAT_ROUGHNESS_TEXTURE (1 << 6)
#define MAT_SHEEN_COLOR_TEXTURE (1 << 7)
#define MAT_SHEEN_ROUGHNESS_TEXTURE (1 << 8)
#define MAT_SPECULAR_TEXTURE (1 << 9)
#define MAT_SPECULAR_COLOR_TEXTURE (1 << 10)
#define MAT_CLEARCOAT_NORMAL_TEXTURE (1 << 11)
#define MAT_ALPHA_MASK (1 << 16)
#define MAT_ALPHA_BLEND (1 << 17)
#define MAT_UNLIT (1 << 18)      // KHR_materials_unlit: base colour only
#define MAT_CLEARCOAT (1 << 19)  // KHR_materials_clearcoat with a non-zero factor
#define MAT_SHEEN (1 << 20)      // KHR_materials_sheen with a non-black colour or a colour texture

// Band-texture path "Weights UBO Layout — 32 bytes": per-frame updates write only the first 16 bytes (weights);
// count, texWidth and rowsPerBand are immutable after creation.
struct MorphUniforms {
  vec4 weights;
  uint count;
  uint texWidth;
  uint rowsPerBand;
  uint pad;
};

// Beyond the band-texture design (MSH_MORPH_ACTIVE_LIST): a storage buffer with this header, then `count`
// MorphActiveEntry.
// Same texture layout as the band-texture design, with bandsPerTarget bands per target (2, or 3 with tangent deltas).
struct MorphActiveHeader {
  uint count;  // active targets this frame (|w| > 0)
  uint texWidth;
  uint rowsPerBand;
  uint bandsPerTarget;
};
struct MorphActiveEntry {
  uint target;
  float weight;
};

struct FrameUniforms {
  mat4 view_proj;        // camera: world → clip (Vulkan clip space, y down, depth 0..1)
  mat4 light_view_proj;  // directional light: world → shadow-map clip
  vec4 camera_position;  // xyz world
  vec4 light_direction;  // xyz: unit vector from the surface toward the light
  vec4 light_color;      // rgb radiance (linear), w unused
  vec4 shadow_params;    // x: 1 / shadow-map size, y: enabled (0/1), z: normal offset (world units), w unused
  // Image-based light (morphkit/render/environment.h): x intensity (0: none), y the prefiltered chain's last level,
  // z cos and w sin of the rotation about +Y.
  vec4 environment;
  // x: exposure scale 2^EV, y: tone curve (MSH_TONE_*), z: 1 when the background shows the environment, w unused.
  vec4 tone;
  mat4 inverse_view_proj;  // clip → world (the background's view rays)
};

struct ObjectUniforms {
  mat4 model;          // object → world (identity for skinned meshes and the compute path's output)
  mat4 normal_matrix;  // inverse-transpose of model's 3×3 (morphkit/model/math.h normalMatrix)
  uint features;       // MSH_* flags of this draw
  uint skin_sets;      // JOINTS_n/WEIGHTS_n sets (MSH_HAS_SKIN)
  uint pad0;
  uint pad1;
};

struct MaterialUniforms {
  vec4 base_color_factor;
  vec4 emissive_factor;  // rgb (× KHR_materials_emissive_strength); w: alpha cutoff
  float metallic_factor;
  float roughness_factor;
  float normal_scale;
  float occlusion_strength;
  uint texture_flags;   // MAT_*
  uint texcoord_sets;   // 1 bit per texture (bit i set: texture i uses TEXCOORD_1), order of the bindings
  float dielectric_f0;  // KHR_materials_ior: ((ior − 1)/(ior + 1))² (0.04 for the default 1.5)
  uint pad0;
  vec4 specular;   // KHR_materials_specular: rgb specularColorFactor, w specularFactor (1, 1, 1, 1 without)
  vec4 clearcoat;  // KHR_materials_clearcoat: x clearcoatFactor, y clearcoatRoughnessFactor, z normal scale, w unused
  vec4 sheen;      // KHR_materials_sheen: rgb sheenColorFactor, w sheenRoughnessFactor
  // KHR_texture_transform per texture (binding order): rows 2i and 2i+1 hold (a, b, c, 0) and (d, e, f, 0) with
  // u' = a·u + b·v + c, v' = d·u + e·v + f (textureTransformMatrix in morphkit/model/asset.h); identity without one.
  vec4 uv_transform[2 * MAT_TEXTURE_COUNT];
};

// ---- Node materials (src/material): the generated GLSL #includes this header (shaderc's include callback) ----
// The fixed head of the generated `uniform NodeUniforms { MSH_NODE_OBJECT_MEMBERS <graph uniforms> } node;` block
// (std140). A member list rather than a struct, so generated code and custom blocks keep writing `node.model`.
// C++ fills it as morphkit::NodeObjectHeader (morphkit/material/node_material.h; static_asserts in node_layout.cpp).
#define MSH_NODE_OBJECT_MEMBERS                                                            \
  mat4 model;         /* object → world (identity for skinned draws) */                  \
  mat4 normal_matrix; /* inverse-transpose of model's 3×3 */                              \
  uint features;      /* MSH_HAS_NORMALS | MSH_HAS_TANGENTS | MSH_HAS_UV0 | MSH_HAS_UV1 */ \
  uint skin_sets;     /* JOINTS_n/WEIGHTS_n sets; 0: not skinned */                        \
  uint texture_mask;  /* bit k: texture k is bound */                                      \
  uint texcoord_sets; /* bit k: texture k samples TEXCOORD_1 */                            \
  uint alpha_mode;    /* 0 OPAQUE, 1 MASK, 2 BLEND (glTF 2.0 §3.9.4) */                   \
  float alpha_cutoff;                                                                      \
  uint pad0;                                                                               \
  uint pad1;
struct NodeObjectUniforms {
  MSH_NODE_OBJECT_MEMBERS
};

// Both storage buffers of the morph feature (NodeMorphDeltas, NodeMorphWeights) start with this std430 header;
// C++ writes it as morphkit::NodeMorphHeader (node_material.h). Deltas: band b of target t (MSH_BAND_*), vertex v
// at ((t · bands_per_target + b) · vertex_count + v) · 3.
struct NodeMorphHeader {
  uint count;             // morph targets (0: the shared fallback, no delta is read)
  uint vertex_count;      // vertices per band (never 0)
  uint bands_per_target;  // 2 (position, normal) or 3 (+ tangent)
  uint pad0;
  uint pad1;
  uint pad2;
};

#ifdef __cplusplus
static_assert(sizeof(MorphUniforms) == 32, "band-texture path: the weights UBO is 32 bytes");
static_assert(offsetof(MorphUniforms, weights) == 0 && offsetof(MorphUniforms, count) == 16 &&
              offsetof(MorphUniforms, texWidth) == 20 && offsetof(MorphUniforms, rowsPerBand) == 24 &&
              offsetof(MorphUniforms, pad) == 28);
static_assert(sizeof(MorphActiveHeader) == 16 && sizeof(MorphActiveEntry) == 8);
static_assert(sizeof(FrameUniforms) == 288 && offsetof(FrameUniforms, light_view_proj) == 64 &&
              offsetof(FrameUniforms, camera_position) == 128 && offsetof(FrameUniforms, shadow_params) == 176 &&
              offsetof(FrameUniforms, environment) == 192 && offsetof(FrameUniforms, tone) == 208 &&
              offsetof(FrameUniforms, inverse_view_proj) == 224);
static_assert(sizeof(ObjectUniforms) == 144 && offsetof(ObjectUniforms, features) == 128 &&
              offsetof(ObjectUniforms, skin_sets) == 132);
static_assert(sizeof(MaterialUniforms) == 496 && offsetof(MaterialUniforms, metallic_factor) == 32 &&
              offsetof(MaterialUniforms, texture_flags) == 48 && offsetof(MaterialUniforms, dielectric_f0) == 56 &&
              offsetof(MaterialUniforms, specular) == 64 && offsetof(MaterialUniforms, sheen) == 96 &&
              offsetof(MaterialUniforms, uv_transform) == 112);
static_assert(sizeof(NodeObjectUniforms) == 160 && offsetof(NodeObjectUniforms, features) == 128 &&
              offsetof(NodeObjectUniforms, alpha_cutoff) == 148);
static_assert(sizeof(NodeMorphHeader) == 24 && offsetof(NodeMorphHeader, bands_per_target) == 8);
static_assert(MSH_BAND_POSITION == 0 && MSH_BAND_NORMAL == 1 && MSH_BAND_TANGENT == 2,
              "morph.glsl and the node-material delta buffer put position, normal, tangent in this band order");
static_assert(MSH_HAS_MORPH_TARGETS == 8, "band-texture path: MSH_HAS_MORPH_TARGETS = 1 << 3");
}  // namespace morphkit::render
#endif

#endif  // MORPHKIT_RENDER_SHARED_H
