// SPDX-License-Identifier: MIT
// morphkit/material/node_material.h — node materials (morphkit::material): a material as a graph of blocks in JSON,
// compiled to GLSL and SPIR-V for the renderer's depth, shadow and color pipelines. Morph targets and skinning
// are opt-in feature modules (band-texture path "NodeMaterial Opt-In Path"): only a graph that asks for morph targets
// compiles morph GLSL, declares morph bindings and allocates the per-device zero-target fallback.
//
// The format is documented in docs/NODE_MATERIALS.md; examples/*.json hold sample graphs. Vulkan stays out of this
// header: per-device and per-draw GPU state are typed handles; the renderer reaches their Vulkan objects through
// the internal src/material/node_material_vk.h. Nothing throws; failures are Expected/Status with
// "<where>: <what>", where names the block: "blocks[3].inputs.a: unknown block 'foo'".
//
// Binding contract (one descriptor set, kNodeMaterialSet), in this fixed order:
//   1. the node uniform block (NodeObjectHeader, then the graph's uniforms) and the declared textures;
//   2. the morph delta and weight storage buffers (only when the morph feature is installed);
//   3. the skin stream and joint palette storage buffers (only when the skinning feature is installed);
//   4. the environment: FrameUniforms of shaders/render/render_shared.h, the shadow map, the prefiltered environment
//      chain and the split-sum table (the color program lights with shaders/render/lighting.glsl, as pbr.frag).
// Vertex inputs and varyings match shaders/render/mesh.vert (locations 0..4: position, normal, tangent, uv0, uv1).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/model/error.h"
#include "morphkit/model/primitive.h"
#include "morphkit/pack/node_morph_buffers.h"

namespace morphkit {

struct VulkanContext;  // morphkit/vk/gpu.h

// ---- Values and ports ----
enum class NodeValueType : uint8_t { kFloat, kVec2, kVec3, kVec4 };
const char* nodeValueTypeName(NodeValueType type);  // "float", "vec2", "vec3", "vec4"
uint32_t nodeValueComponents(NodeValueType type);   // 1..4

// Shader stages, as a bit mask.
inline constexpr uint32_t kNodeStageVertex = 1u << 0;
inline constexpr uint32_t kNodeStageFragment = 1u << 1;

// One input or output of a block. Unconnected optional inputs take `fallback` (components beyond the type's are
// ignored); required inputs must be connected.
struct NodePortDecl {
  std::string name;
  NodeValueType type = NodeValueType::kFloat;
  bool optional = true;
  std::array<float, 4> fallback{0, 0, 0, 0};
  std::string default_expression;  // GLSL used when unconnected instead of `fallback` (e.g. "nodePosition")
};

// ---- Build state and emitters (the compiler seam) ----
struct NodeFeature;  // private seam (src/material/node_feature.h): GLSL snippets, bindings, fallback allocation

// What emitters declare while a graph is parsed. Built-in MorphTargets/Skinning blocks install their feature
// module directly. Custom blocks written against the older flag-only contract only set `uses_morph_targets`
// (or `uses_skinning`); parseNodeMaterial then installs the same feature before compilation, exactly as if the
// built-in block had been used.
struct NodeBuildState {
  bool uses_morph_targets = false;                           // flag-only contract: the graph needs the morph feature
  bool uses_skinning = false;                                // flag-only contract: the graph needs the skinning feature
  std::vector<std::shared_ptr<const NodeFeature>> features;  // installed features, in install order
};
// True when a feature of that name ("morph", "skin") is installed.
bool nodeFeatureInstalled(const NodeBuildState& state, std::string_view name);

struct NodeBlock;

// What a block's emitter receives to write GLSL for one stage.
struct NodeEmitContext {
  uint32_t stage = kNodeStageFragment;  // kNodeStageVertex or kNodeStageFragment
  std::string prefix;                   // unique identifier prefix for this block's temporaries, e.g. "n3"
  std::vector<std::string> inputs;      // one GLSL expression per NodeBlockEmitter::inputs(), already of its type
  const NodeBlock* block = nullptr;
};

// A block type. Built-in types (docs/NODE_MATERIALS.md) and custom ones returned by ParseNodeMaterialOptions::
// block_loader share this interface.
//
// Names available to emit() (the emitter contract): in both stages `node.u_<uniform name>` (vec4 slots; read the
// components you need) and `frame.*` (FrameUniforms); in the vertex stage `nodePosition`, `nodeNormal`,
// `nodeTangent` (object-space attributes) and, once the morph feature is installed, `nodeMorphDeltaPosition`,
// `nodeMorphDeltaNormal`, `nodeMorphDeltaTangent` (the weighted sum of the mesh's deltas; zero for the fallback);
// in the fragment stage `nodeWorldPosition`, `nodeWorldNormal`, `nodeUv0`, `nodeUv1`, `nodeViewDirection`.
class NodeBlockEmitter {
 public:
  virtual ~NodeBlockEmitter() = default;
  virtual std::vector<NodePortDecl> inputs() const = 0;
  virtual std::vector<NodePortDecl> outputs() const = 0;
  virtual uint32_t stages() const { return kNodeStageVertex | kNodeStageFragment; }
  // Called once per block while parsing, before compilation: request or install features.
  virtual Status declare(NodeBuildState& state, const NodeBlock& block) const {
    (void)state, (void)block;
    return Ok{};
  }
  // Appends GLSL statements to `code` and returns one expression per output (of the output's type).
  virtual Expected<std::vector<std::string>> emit(const NodeEmitContext& context, std::string& code) const = 0;
};

// Returns the emitter of a custom block type, or null when the type is unknown.
using NodeBlockLoader = std::function<std::shared_ptr<const NodeBlockEmitter>(std::string_view type)>;

struct ParseNodeMaterialOptions {
  // Consulted for block types that are not built in (the band-texture design's blockLoader).
  NodeBlockLoader block_loader;
};

// ---- The parsed graph ----
// An input's source: a block output, or a literal.
struct NodeInput {
  std::string name;        // the port name
  uint32_t block = kNone;  // source block index, or kNone for a literal
  uint32_t output = 0;     // source output index
  bool literal = false;
  NodeValueType literal_type = NodeValueType::kFloat;
  std::array<float, 4> value{0, 0, 0, 0};
};

// Where a glTF-driven uniform takes its value from (the renderer fills it from the primitive's material).
enum class NodeGltfValue : uint8_t {
  kUnset,              // a plain uniform (its default value until the caller writes it)
  kBaseColorFactor,    // vec4, glTF 2.0 §5.22 pbrMetallicRoughness.baseColorFactor
  kMetallicFactor,     // float
  kRoughnessFactor,    // float
  kEmissiveFactor,     // vec3, §5.19 material.emissiveFactor
  kNormalScale,        // float, §5.20 normalTextureInfo.scale
  kOcclusionStrength,  // float, §5.21 occlusionTextureInfo.strength
};

// Texture sources: a glTF material slot of the drawn primitive, or an image of the asset by index.
enum class NodeTextureSlot : uint8_t { kImage, kBaseColor, kMetallicRoughness, kNormal, kOcclusion, kEmissive };
const char* nodeTextureSlotName(NodeTextureSlot slot);  // "image", "baseColor", ...

struct NodeBlock {
  std::string id;                 // unique within the graph
  std::string type;               // "Add", "MorphTargets", a custom type, ...
  std::vector<NodeInput> inputs;  // one per emitter input, in the emitter's order
  // Parameters (which apply depends on the type):
  NodeValueType value_type = NodeValueType::kFloat;  // Constant, Uniform
  std::array<float, 4> value{0, 0, 0, 0};            // Constant, Uniform default
  std::string uniform;                               // Uniform: GLSL name in the node block
  NodeGltfValue gltf = NodeGltfValue::kUnset;        // Uniform
  uint32_t texture = kNone;                          // Texture: index into NodeMaterial::textures
  uint32_t texcoord = 0;                             // Uv: set 0 or 1
  std::string components;                            // Swizzle: "xyz", "w", ...
  std::shared_ptr<const NodeBlockEmitter> emitter;
};

// A uniform of the node block: a vec4 slot at `offset` bytes of the block (after NodeObjectHeader).
struct NodeUniformInfo {
  std::string name;
  NodeValueType type = NodeValueType::kFloat;
  std::array<float, 4> value{0, 0, 0, 0};  // default
  NodeGltfValue gltf = NodeGltfValue::kUnset;
  uint32_t offset = 0;
};

struct NodeTextureInfo {
  NodeTextureSlot slot = NodeTextureSlot::kImage;
  uint32_t image = kNone;  // kImage: asset.images index
  bool srgb = false;       // baseColor and emissive slots are sRGB (glTF 2.0 §3.9.2); images by the block's "srgb"
  std::array<float, 4> unbound{1, 1, 1, 1};  // the value sampled when the texture is not bound (texture_mask bit 0)
};

struct NodeMaterial {
  std::string name;
  std::vector<NodeBlock> blocks;
  std::vector<NodeUniformInfo> uniforms;  // in declaration order
  std::vector<NodeTextureInfo> textures;  // in declaration order (binding 1 + index)
  NodeBuildState state;                   // features installed (morph, skin), in install order
  uint32_t uv_transform_offset = 0;       // sizeof(NodeObjectHeader) + 16 × uniforms: 2 vec4 per texture follow
  uint32_t uniform_block_bytes = 0;       // uv_transform_offset + 32 × textures
  uint32_t pbr_output = kNone;            // the PbrOutput block
  uint32_t vertex_output = kNone;         // the VertexOutput block, or kNone (attributes pass through)
};

// Parses and type-checks a graph. On success every installed feature is in `state.features`.
Expected<NodeMaterial> parseNodeMaterial(std::string_view json_text, const ParseNodeMaterialOptions& options = {});
// readFile + parseNodeMaterial; messages start with the path.
Expected<NodeMaterial> loadNodeMaterial(const std::string& path, const ParseNodeMaterialOptions& options = {});
bool nodeMaterialUsesMorph(const NodeMaterial& material);     // the morph feature is installed
bool nodeMaterialUsesSkinning(const NodeMaterial& material);  // the skinning feature is installed

// ---- Compilation ----
enum class NodePipeline : uint8_t { kDepth, kShadow, kColor };
inline constexpr uint32_t kNodePipelineCount = 3;
const char* nodePipelineName(NodePipeline pipeline);  // "depth", "shadow", "color"

enum class NodeBindingKind : uint8_t { kUniformBuffer, kStorageBuffer, kSampledTexture, kShadowSampler };
const char* nodeBindingKindName(NodeBindingKind kind);
// Which part of the binding contract a binding belongs to (the order above).
enum class NodeBindingGroup : uint8_t { kNode, kFeature, kEnvironment };

inline constexpr uint32_t kNodeMaterialSet = 0;

struct NodeBinding {
  uint32_t set = kNodeMaterialSet;
  uint32_t binding = 0;
  NodeBindingKind kind = NodeBindingKind::kUniformBuffer;
  uint32_t stages = 0;  // kNodeStage* bits
  std::string name;     // "NodeUniforms", "nodeTexture0", "NodeMorphDeltas", "NodeMorphWeights", "FrameBlock", ...
  NodeBindingGroup group = NodeBindingGroup::kNode;
  std::string feature;       // the installing feature ("morph", "skin"); empty otherwise
  uint32_t texture = kNone;  // kSampledTexture: index into NodeMaterial::textures
};

struct NodeShaderText {
  std::string vertex;
  std::string fragment;  // empty for the depth and shadow pipelines (depth-only passes have no fragment shader)
};

// GLSL for every pipeline (index by NodePipeline) and the binding list shared by all of them.
struct NodeMaterialGlsl {
  std::array<NodeShaderText, kNodePipelineCount> shaders;
  std::vector<NodeBinding> bindings;
};
Expected<NodeMaterialGlsl> generateNodeMaterialGlsl(const NodeMaterial& material);

struct NodeSpirv {
  std::vector<uint32_t> vertex;
  std::vector<uint32_t> fragment;  // empty for depth and shadow
};
// What a renderer needs: SPIR-V per pipeline (index by NodePipeline), the binding list, the source GLSL.
struct NodeMaterialPrograms {
  std::array<NodeSpirv, kNodePipelineCount> spirv;
  NodeMaterialGlsl glsl;
};
// generateNodeMaterialGlsl + shaderc (Vulkan 1.2 target). A GLSL compile error is kInvalidArgument naming the
// pipeline and stage, with shaderc's message.
Expected<NodeMaterialPrograms> compileNodeMaterial(const NodeMaterial& material);
// The files the generated GLSL #includes: shaders/render/render_shared.h (the renderer's GPU contract),
// shaders/morph.glsl and shaders/skin.glsl (the morph sum and the skinning blend, shared with the renderer's own
// shaders), shaders/render/lighting.glsl with environment.glsl and tone.glsl (the renderer's light, pbr.frag's). Their
// text is embedded at build time; compileNodeGlsl resolves `#include "name"` to it, and `morphkit material --out`
// writes them beside the shaders so that glslc compiles those as they are.
struct NodeShaderInclude {
  const char* name;  // as written in #include "name"
  const char* text;
};
std::span<const NodeShaderInclude> nodeShaderIncludes();
// shaderc on one GLSL text (exposed for tests); `stage` is kNodeStageVertex or kNodeStageFragment. `#include`
// resolves only to nodeShaderIncludes(); any other name is a compile error naming it.
Expected<std::vector<uint32_t>> compileNodeGlsl(const std::string& glsl, uint32_t stage, const std::string& name);

// ---- GPU data layouts (std140/std430, static_asserts in node_material.cpp; docs/NODE_MATERIALS.md) ----
// The start of the node uniform block, per draw. The graph's uniforms follow, one 16-byte slot each.
struct alignas(16) NodeObjectHeader {
  float model[16];          // object → world, column-major (identity for skinned draws)
  float normal_matrix[16];  // inverse-transpose of model's 3×3 (morphkit/model/math.h normalMatrix)
  uint32_t features;        // MSH_HAS_NORMALS | MSH_HAS_TANGENTS | MSH_HAS_UV0 | MSH_HAS_UV1 (render_shared.h)
  uint32_t skin_sets;       // JOINTS_n/WEIGHTS_n sets; 0: not skinned (the Skinning block applies `model`)
  uint32_t texture_mask;    // bit k: textures[k] is bound; else it samples NodeTextureInfo::unbound
  uint32_t texcoord_sets;   // bit k: textures[k] samples TEXCOORD_1 (glTF textureInfo.texCoord)
  uint32_t alpha_mode;      // 0 OPAQUE, 1 MASK, 2 BLEND (glTF 2.0 §3.9.4)
  float alpha_cutoff;       // MASK: fragments with alpha < cutoff are discarded
  uint32_t pad0, pad1;
};
static_assert(sizeof(NodeObjectHeader) == 160);

// The morph feature's storage buffers (NodeMorphHeader, packNodeMorphDeltas, ...): morphkit/pack/node_morph_buffers.h.

// ---- Renderer helpers (pure) ----
// What declared texture `k` samples when a primitive with glTF material `gltf` (null: the default material,
// glTF 2.0 §3.9.6) is drawn: a slot's textureInfo (texture, its image and sampler, texCoord) or the image by index.
// `bound` is false for an empty slot, an out-of-range index or a texCoord above 1 (TEXCOORD_0/1 only): the shader
// then reads NodeTextureInfo::unbound.
struct NodeTextureSource {
  bool bound = false;
  uint32_t texture = kNone;  // asset.textures index (slots); kNone for image textures
  uint32_t image = kNone;    // asset.images index
  uint32_t sampler = kNone;  // asset.samplers index, kNone: the default sampler
  uint32_t texcoord = 0;     // 0 or 1 (KHR_texture_transform's texCoord when the slot has one)
  bool srgb = false;
  std::array<float, 6> uv_transform{1, 0, 0, 0, 1, 0};  // the slot's KHR_texture_transform (textureTransformMatrix)
};
NodeTextureSource nodeTextureSource(const NodeMaterial& node, uint32_t k, const Asset& asset, const Material* gltf);
// The node uniform block of one draw (node.uniform_block_bytes bytes): `header` with texture_mask, texcoord_sets,
// the textures' KHR_texture_transform rows at uv_transform_offset (identity for unbound and image textures),
// alpha_mode and alpha_cutoff filled from `gltf` and the texture sources, then each uniform: glTF-driven ones from
// `gltf` (or the glTF defaults), the others their default value.
std::vector<uint8_t> nodeUniformBytes(const NodeMaterial& node, const Asset& asset, const Material* gltf,
                                      NodeObjectHeader header);

// ---- Per-device state: the shared fallbacks ----
// Owns, per VulkanContext, the features' shared fallback buffers (the morph feature's 24-byte zero-target
// buffer). Each is allocated on first use and lives until destroyNodeMaterialDevice: one allocation per device,
// however many meshes use it. Create one per context; destroy it before destroyVulkanContext.
struct NodeMaterialDevice;
Expected<NodeMaterialDevice*> createNodeMaterialDevice(VulkanContext& context);
void destroyNodeMaterialDevice(NodeMaterialDevice* device);  // null is fine

struct NodeFallbackStats {
  uint32_t allocations = 0;  // buffers allocated for this feature's fallback on this device (0 or 1)
  uint32_t users = 0;        // draw resources currently bound to it
  uint64_t bytes = 0;        // size of the fallback buffer
};
NodeFallbackStats nodeFallbackStats(const NodeMaterialDevice& device, std::string_view feature);
// Process-wide: fallback buffers allocated by every device since start (tests: a static graph adds none).
uint64_t nodeFallbackAllocationsTotal();

// ---- Per-draw feature resources ----
// The buffers one draw binds for the material's features: for the morph feature, the primitive's own delta
// buffer and a per-draw weights buffer when it has targets, else the device's shared fallback for both bindings.
// A material without features gets an empty object that allocates nothing.
struct NodeDrawResources;
Expected<NodeDrawResources*> createNodeDrawResources(NodeMaterialDevice& device, const NodeMaterial& material,
                                                     const PrimitiveData& primitive, std::span<const float> weights);
// Per-frame weights (no-op for the fallback and for materials without morph).
Status updateNodeDrawWeights(NodeDrawResources& resources, std::span<const float> weights);
void destroyNodeDrawResources(NodeMaterialDevice& device, NodeDrawResources* resources);  // null is fine
struct NodeDrawInfo {
  bool morph = false;           // the morph bindings are part of this draw
  bool morph_fallback = false;  // they point at the shared zero-target buffer
  uint32_t morph_targets = 0;
  bool skin = false;           // the skinning bindings are part of this draw
  bool skin_fallback = false;  // unskinned primitive: the shared fallback; else the renderer binds its skin data
  uint32_t buffers_owned = 0;  // buffers this draw allocated itself
};
NodeDrawInfo nodeDrawInfo(const NodeDrawResources& resources);

}  // namespace morphkit
