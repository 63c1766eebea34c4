// SPDX-License-Identifier: MIT
// morphkit/model/asset.h — plain structs mirroring glTF 2.0
// (https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html). Filled by morphkit::loadAsset (morphkit/gltf/gltf.h) and
// validated once, right after parsing: every index here is in range and every accessor fits its bufferView, so
// consumers need no further checks. An absent optional index is kNone. No getters: read the fields.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/model/buffer_bytes.h"
#include "morphkit/model/error.h"
#include "morphkit/model/math.h"

namespace morphkit {

inline constexpr uint32_t kNone = UINT32_MAX;

enum class ComponentType : uint32_t {  // glTF 2.0 §3.6.2.2, the GL enum values
  kByte = 5120,
  kUnsignedByte = 5121,
  kShort = 5122,
  kUnsignedShort = 5123,
  kUnsignedInt = 5125,
  kFloat = 5126,
};
enum class AccessorType : uint8_t { kScalar, kVec2, kVec3, kVec4, kMat2, kMat3, kMat4 };

uint32_t componentSize(ComponentType type);  // bytes per component
uint32_t componentCount(AccessorType type);  // components per element (MAT4 = 16)
// Bytes of one element including the column padding §3.6.2.4 requires for MAT2/MAT3 of 1- and 2-byte components.
uint32_t elementSize(ComponentType component, AccessorType type);
const char* componentTypeName(ComponentType type);  // "u8", "i16", "f32", ...
const char* accessorTypeName(AccessorType type);    // "SCALAR", "VEC3", ...

struct Buffer {
  std::string name;
  std::string uri;         // empty for the GLB BIN chunk; for a data: URI only its header "data:...;base64,"
                           // (the loader decodes the payload into `data` and keeps no second copy)
  size_t byte_length = 0;  // as declared; `data` holds at least this many bytes after loading
  // The bytes (GLB BIN chunk, decoded data URI, or external file). loadAsset leaves a file's bytes where they
  // are: `data` is then a view into the mapped .glb or .bin (BufferBytes::isView(), morphkit/model/buffer_bytes.h),
  // valid while the Asset or any copy of it lives. Reads look like a const vector; a writer calls data.mutate()
  // (or assign, resize), which copies a view into owned bytes first.
  BufferBytes data;
};

struct BufferView {
  std::string name;
  uint32_t buffer = kNone;
  size_t byte_offset = 0;
  size_t byte_length = 0;
  uint32_t byte_stride = 0;  // 0: elements tightly packed (stride = element size)
  uint32_t target = 0;       // 34962 ARRAY_BUFFER, 34963 ELEMENT_ARRAY_BUFFER, 0 unset
};

// glTF 2.0 §3.6.2.3: `count` (index, value) pairs that replace elements of the base accessor.
struct SparseAccessor {
  uint32_t count = 0;
  uint32_t indices_buffer_view = kNone;
  size_t indices_byte_offset = 0;
  ComponentType indices_component_type = ComponentType::kUnsignedInt;  // u8, u16 or u32
  uint32_t values_buffer_view = kNone;
  size_t values_byte_offset = 0;
};

struct Accessor {
  std::string name;
  uint32_t buffer_view = kNone;  // kNone: all zeros (then sparse values, if any)
  size_t byte_offset = 0;
  ComponentType component_type = ComponentType::kFloat;
  bool normalized = false;  // integers map to [0,1] / [-1,1] (§3.11)
  uint32_t count = 0;
  AccessorType type = AccessorType::kScalar;
  std::vector<double> min, max;  // as stored in the file; empty when absent
  bool has_sparse = false;
  SparseAccessor sparse;
};

// A named vertex attribute ("POSITION", "TEXCOORD_0", "JOINTS_1", ...) and its accessor.
struct Attribute {
  std::string name;
  uint32_t accessor = kNone;
};

// A morph target: attribute deltas (glTF 2.0 §3.7.2.2). Attributes it does not list do not move.
struct MorphTarget {
  std::vector<Attribute> attributes;
};

enum class PrimitiveMode : uint32_t {
  kPoints = 0,
  kLines,
  kLineLoop,
  kLineStrip,
  kTriangles,
  kTriangleStrip,
  kTriangleFan
};

struct Primitive {
  std::vector<Attribute> attributes;
  uint32_t indices = kNone;   // kNone: non-indexed
  uint32_t material = kNone;  // kNone: the default material
  PrimitiveMode mode = PrimitiveMode::kTriangles;
  std::vector<MorphTarget> targets;
};

struct Mesh {
  std::string name;
  std::vector<Primitive> primitives;
  std::vector<float> weights;             // default morph weights; empty or one per target
  std::vector<std::string> target_names;  // from extras.targetNames; empty when absent
};

struct Node {
  std::string name;
  std::vector<uint32_t> children;
  uint32_t mesh = kNone;
  uint32_t skin = kNone;
  uint32_t camera = kNone;
  // The file's numbers in double, as JSON gives them (three.js and Babylon.js keep them so too): far from the
  // origin a float translation alone would cost 1e-5 of a small primitive (evaluateScene composes in double).
  bool has_matrix = false;  // true: `matrix` is the local transform, else TRS
  DMat4 matrix;
  DVec3 translation;
  DQuat rotation;
  DVec3 scale{1, 1, 1};
  std::vector<float> weights;  // per-instance morph weights; empty: use mesh.weights
};

struct Skin {
  std::string name;
  uint32_t inverse_bind_matrices = kNone;  // kNone: identity matrices (§3.7.3.1)
  uint32_t skeleton = kNone;
  std::vector<uint32_t> joints;
};

enum class Interpolation : uint8_t { kLinear, kStep, kCubicSpline };
enum class TargetPath : uint8_t { kTranslation, kRotation, kScale, kWeights };

struct AnimationSampler {
  uint32_t input = kNone;   // key times in seconds, scalar float, strictly increasing
  uint32_t output = kNone;  // values; CUBICSPLINE stores (in-tangent, value, out-tangent) per key
  Interpolation interpolation = Interpolation::kLinear;
};

// KHR_animation_pointer's target (extensions/2.0/Khronos/KHR_animation_pointer): the JSON pointer a "pointer" channel
// animates. morphkit plays the morph-weight pointers; every other one is listed by inspect and ignored.
enum class PointerTarget : uint8_t {
  kNotPointer,   // not a pointer channel
  kNodeWeights,  // "/nodes/{index}/weights": the node's whole weight array
  kNodeWeight,   // "/nodes/{index}/weights/{element}": one weight of the node
  kMeshWeights,  // "/meshes/{index}/weights": the mesh's default weights (nodes without weights of their own)
  kOther,        // any other pointer (materials, cameras, node transforms, ...): ignored
};

struct AnimationPointer {
  std::string text;  // the pointer as written (RFC 6901), e.g. "/nodes/0/weights/2"; empty: none given
  PointerTarget target = PointerTarget::kNotPointer;
  uint32_t index = kNone;    // the node or mesh index the pointer names (kNodeWeight(s), kMeshWeights)
  uint32_t element = kNone;  // kNodeWeight: the weight's index
};

struct AnimationChannel {
  uint32_t sampler = kNone;
  uint32_t node = kNone;  // kNone: the channel targets nothing (allowed; ignored) or is a pointer channel
  TargetPath path = TargetPath::kTranslation;
  std::string other_path;    // the file's target.path when it is not a core one (e.g. "pointer"); then node is kNone
  AnimationPointer pointer;  // path "pointer": KHR_animation_pointer's pointer (path stays kWeights for weights)
};

// Whether morphkit plays the channel: a core channel with a node, or a morph-weight KHR_animation_pointer one.
inline bool channelPlays(const AnimationChannel& channel) {
  return channel.node != kNone || channel.pointer.target == PointerTarget::kNodeWeights ||
         channel.pointer.target == PointerTarget::kNodeWeight || channel.pointer.target == PointerTarget::kMeshWeights;
}

struct Animation {
  std::string name;
  std::vector<AnimationChannel> channels;
  std::vector<AnimationSampler> samplers;
};

struct Scene {
  std::string name;
  std::vector<uint32_t> nodes;  // root nodes
};

// KHR_texture_transform on a textureInfo
// (https://github.com/KhronosGroup/glTF/tree/main/extensions/2.0/Khronos/KHR_texture_transform): uv' = T(offset) ·
// R(rotation) · S(scale) · uv, in UV space (origin top-left, rotation counter-clockwise).
struct TextureTransform {
  float offset[2] = {0, 0};
  float rotation = 0.0f;  // radians
  float scale[2] = {1, 1};
  uint32_t texcoord = kNone;  // the extension's texCoord: replaces TextureRef::texcoord when set
};

// Kept for the renderer: texture references and PBR metallic-roughness factors (glTF 2.0 §3.9).
struct TextureRef {
  uint32_t texture = kNone;
  uint32_t texcoord = 0;
  float scale = 1.0f;          // normalTexture.scale or occlusionTexture.strength
  bool has_transform = false;  // KHR_texture_transform present (writers write it back as it was)
  TextureTransform transform;
};

// u' = m[0]·u + m[1]·v + m[2], v' = m[3]·u + m[4]·v + m[5]: the reference's KHR_texture_transform (identity
// without one), computed in double and rounded once.
std::array<float, 6> textureTransformMatrix(const TextureRef& ref);
// The TEXCOORD_n set a reference samples: KHR_texture_transform's texCoord when present, else textureInfo.texCoord.
uint32_t textureCoordinateSet(const TextureRef& ref);

enum class AlphaMode : uint8_t { kOpaque, kMask, kBlend };

struct Material {
  std::string name;
  float base_color_factor[4] = {1, 1, 1, 1};
  TextureRef base_color_texture;
  float metallic_factor = 1.0f;
  float roughness_factor = 1.0f;
  TextureRef metallic_roughness_texture;
  TextureRef normal_texture;
  TextureRef occlusion_texture;
  TextureRef emissive_texture;
  float emissive_factor[3] = {0, 0, 0};
  AlphaMode alpha_mode = AlphaMode::kOpaque;
  float alpha_cutoff = 0.5f;
  bool double_sided = false;

  // KHR_materials_* (https://github.com/KhronosGroup/glTF/tree/main/extensions/2.0/Khronos): each field holds the
  // extension's default when the extension is absent, so a renderer can shade every material alike.
  bool unlit = false;              // KHR_materials_unlit: base colour only, no lighting
  float emissive_strength = 1.0f;  // KHR_materials_emissive_strength: emissive × strength (≥ 0)
  float ior = 1.5f;                // KHR_materials_ior: dielectric F0 = ((ior − 1)/(ior + 1))²; 1 or more, or 0
  struct Specular {                // KHR_materials_specular: the dielectric lobe's strength and F0 tint
    float factor = 1.0f;           // specularFactor 0..1 (× texture A)
    TextureRef texture;
    float color_factor[3] = {1, 1, 1};  // specularColorFactor ≥ 0 (× texture RGB, sRGB)
    TextureRef color_texture;
  } specular;
  struct Clearcoat {      // KHR_materials_clearcoat: a GGX layer (F0 0.04) over the base
    float factor = 0.0f;  // clearcoatFactor 0..1 (× texture R)
    TextureRef texture;
    float roughness_factor = 0.0f;  // clearcoatRoughnessFactor 0..1 (× texture G)
    TextureRef roughness_texture;
    TextureRef normal_texture;  // clearcoatNormalTexture: the coat's own normal map (scale as normalTexture's)
  } clearcoat;
  struct Sheen {                        // KHR_materials_sheen: a Charlie sheen lobe over the base
    float color_factor[3] = {0, 0, 0};  // sheenColorFactor 0..1 (× texture RGB, sRGB)
    TextureRef color_texture;
    float roughness_factor = 0.0f;  // sheenRoughnessFactor 0..1 (× texture A)
    TextureRef roughness_texture;
  } sheen;
  // The names of every extension on the material, in file order (the six above and the ones morphkit does not
  // shade, e.g. KHR_materials_transmission): inspect lists them, render warns once per unshaded one.
  std::vector<std::string> extensions;
};

struct Texture {
  uint32_t sampler = kNone;
  uint32_t source = kNone;         // image index (with KHR_texture_basisu or EXT_texture_webp: the PNG/JPEG
                                   // fallback, if any)
  uint32_t basisu_source = kNone;  // KHR_texture_basisu: the KTX2 image (extensions.KHR_texture_basisu.source)
  uint32_t webp_source = kNone;    // EXT_texture_webp: the WebP image (extensions.EXT_texture_webp.source)
};

struct Image {
  std::string name;
  std::string uri;  // relative file, "data:" URI, or empty when buffer_view is set
  std::string mime_type;
  uint32_t buffer_view = kNone;
  // The bytes of a `uri` image, resolved by the loader with the same URI rules and LoadOptions as buffers
  // (glTF 2.0 §3.8.3, §2.8): a data: URI decoded, or the file read inside the asset's folder. No later layer opens
  // a file. Empty for a bufferView image (imageBytes reads the view) and for assets built in code.
  std::vector<uint8_t> data;
  // Why `data` could not be filled (missing file, bad base64): not a load error, since an image only matters to a
  // renderer, which warns and draws the materials using it with their factors. A URI leaving the asset's folder
  // *is* a load error, as for buffers.
  std::string data_error;
};

struct Sampler {
  uint32_t mag_filter = 0, min_filter = 0;  // 0: unset
  uint32_t wrap_s = 10497, wrap_t = 10497;  // REPEAT
};

struct Camera {
  bool perspective = true;
  float yfov = 0.8f, aspect_ratio = 0.0f, znear = 0.01f, zfar = 0.0f;  // zfar 0: infinite
  float xmag = 1.0f, ymag = 1.0f;                                      // orthographic
};

// A VRM avatar's expressions: VRMC_vrm 1.0 `expressions` (preset + custom) or VRM 0.x `blendShapeMaster`
// (https://github.com/vrm-c/vrm-specification, VRMC_vrm-1.0/expressions.md): named sets of morph target weights.
// morphkit/core/expressions.h turns expression values into target weights (isBinary and the override rules).
enum class ExpressionOverride : uint8_t { kNoOverride, kBlock, kBlend };  // overrideBlink/LookAt/Mouth

struct MorphTargetBind {
  uint32_t node = kNone;   // VRM 1.0: the node whose mesh's target moves (kNone for VRM 0.x)
  uint32_t mesh = kNone;   // VRM 0.x: the mesh whose target moves (kNone for VRM 1.0)
  uint32_t index = kNone;  // the morph target, in every primitive of the mesh
  float weight = 1.0f;     // the target's weight at expression value 1: [0, 1] (VRM 0.x's 0..100 divided by 100)
};

struct Expression {
  std::string name;     // 1.0's spelling: a preset (0.x presets renamed: joy → happy, a → aa, ...) or custom name
  bool preset = false;  // from expressions.preset (1.0) or a 0.x presetName other than "unknown"
  bool is_binary = false;  // the value is 1 above 0.5, else 0
  ExpressionOverride override_blink = ExpressionOverride::kNoOverride;
  ExpressionOverride override_look_at = ExpressionOverride::kNoOverride;
  ExpressionOverride override_mouth = ExpressionOverride::kNoOverride;
  std::vector<MorphTargetBind> binds;
};

struct VrmExpressions {
  std::string version;  // "" (not a VRM), "1.0" (VRMC_vrm) or "0.x" (VRM)
  std::vector<Expression> expressions;
};

struct Asset {
  std::filesystem::path path;      // the file it was loaded from
  std::filesystem::path base_dir;  // folder that relative URIs resolve against
  std::string generator;
  std::vector<std::string> extensions_used;
  std::vector<std::string> extensions_required;
  std::vector<std::string> notes;  // non-fatal remarks (ignored extensions, ...), one line each
  // The JSON document as read (the .gltf text or the GLB's JSON chunk): the glTF writer edits it, so what the data
  // model does not hold (extras, unknown extensions) survives a load → write (morphkit/gltf/glb_writer.h). Empty for an
  // asset built in code.
  std::string source_json;
  // Decoding choice, not file content (LoadOptions::keep_skin_weights): true keeps WEIGHTS_n as stored; false
  // (default) lets decodePrimitive rescale each vertex's weights to sum 1 as three.js and Babylon.js do.
  bool keep_skin_weights = false;

  std::vector<Buffer> buffers;
  std::vector<BufferView> buffer_views;
  std::vector<Accessor> accessors;
  std::vector<Mesh> meshes;
  std::vector<Node> nodes;
  std::vector<Skin> skins;
  std::vector<Animation> animations;
  std::vector<Scene> scenes;
  uint32_t scene = kNone;  // the default scene; kNone: none declared (use 0 when scenes exist)
  std::vector<Material> materials;
  std::vector<Texture> textures;
  std::vector<Image> images;
  std::vector<Sampler> samplers;
  std::vector<Camera> cameras;
  VrmExpressions vrm;  // extensions.VRMC_vrm.expressions or extensions.VRM.blendShapeMaster
};

// True when images[image] is a KTX2 container (mimeType image/ktx2, or a .ktx2 URI): KHR_texture_basisu data,
// which needs a Basis Universal transcoder to draw.
bool isKtx2Image(const Asset& asset, uint32_t image);
// The image a reader that decodes PNG, JPEG and WebP draws for `texture`: the EXT_texture_webp image (a client
// that supports the extension uses it, `source` being the fallback for those that do not), else a `source` that is
// not KTX2 (KHR_texture_basisu's fallback); kNone when neither exists.
uint32_t drawnTextureImage(const Asset& asset, const Texture& texture);
// The encoded bytes of images[image] (PNG, JPEG, ...): its bufferView's bytes or the loader-resolved Image::data.
// Fails (kInvalidArgument, "images[i]: ...") for an index out of range, an image with neither, or data_error.
Expected<std::span<const uint8_t>> imageBytes(const Asset& asset, uint32_t image);

// The accessor index of attribute `name`, or kNone.
uint32_t findAttribute(const std::vector<Attribute>& attributes, std::string_view name);
// Number of morph targets of a mesh (all primitives have the same count after validation).
uint32_t targetCount(const Mesh& mesh);

}  // namespace morphkit
