// SPDX-License-Identifier: MIT
// renderer_state.h — internal: the Renderer and its parts, one owner each, shared by the files of src/render.
//   passes.cpp     RenderTargets: images, render passes, framebuffers, readback; the frame's uniforms; recording
//   materials.cpp  MaterialSet: samplers, decoded images, PBR material sets
//   pipelines.cpp  MeshProgram (mesh.vert variants + pbr.frag and their layouts), MeshDraw, the pipeline cache
//   path_*.cpp     one DeformPath per way of deforming: vertex (seed band texture), compute, crowd, node material
//   renderer.cpp   createRenderer / destroyRenderer: the shared primitives and draws
//   frame.cpp      the frame step, the draws' updates and recording, submitFrame / collectFrame / renderFrame
#pragma once
#include <vulkan/vulkan.h>

#include <array>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/pack/packed_deltas.h"
#include "morphkit/render/render.h"
#include "morphkit/vk/gpu.h"
#include "render_shared.h"
#include "vk_context.h"

namespace morphkit {

inline std::string primitiveName(uint32_t mesh, uint32_t primitive) {
  return "meshes[" + std::to_string(mesh) + "].primitives[" + std::to_string(primitive) + "]";
}

// ---- render_image.cpp: images with mip levels or samples (src/vk's createImage makes one level, one sample) ----
struct RenderImageDesc {
  uint32_t width = 1, height = 1;
  VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
  VkImageUsageFlags usage = 0;
  VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;
  uint32_t levels = 1;
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
};
// The view covers every level; destroyImage frees it.
Expected<GpuImage> createRenderImage(VulkanContext& ctx, const RenderImageDesc& desc);
Expected<VkImageView> createLevelView(VulkanContext& ctx, const GpuImage& image, uint32_t level);  // caller destroys
// A SAMPLED image with its full mip chain (linear blits of level 0), in SHADER_READ_ONLY_OPTIMAL: material textures.
Expected<GpuImage> uploadMipmappedImage(VulkanContext& ctx, uint32_t width, uint32_t height, VkFormat format,
                                        std::span<const uint8_t> rgba8);
void imageBarrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags src_access,
                  VkAccessFlags dst_access, VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage,
                  uint32_t base_level = 0, uint32_t levels = VK_REMAINING_MIP_LEVELS);

// ---- passes.cpp ----
enum class Pass : uint32_t { kColor = MSH_PASS_COLOR, kDepth = MSH_PASS_DEPTH, kShadow = MSH_PASS_SHADOW };

// The offscreen attachments, the three render passes, their framebuffers and the timestamp queries (3 per frame
// slot). The shadow map exists (1×1) even without shadows: the color pass samples it. The readback buffers are the
// frame slots' (renderer.cpp creates them).
struct RenderTargets {
  GpuImage color, depth, shadow;
  GpuImage color_msaa;     // with MSAA: the multisampled color attachment, resolved into `color`
  uint32_t row_pitch = 0;  // bytes per row of a readback buffer
  uint32_t shadow_size = 1;
  VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;  // color pass (and depth prepass) samples
  VkRenderPass shadow_pass = VK_NULL_HANDLE, depth_pass = VK_NULL_HANDLE, color_pass = VK_NULL_HANDLE;
  VkFramebuffer shadow_fb = VK_NULL_HANDLE, depth_fb = VK_NULL_HANDLE, color_fb = VK_NULL_HANDLE;
  VkSampler shadow_sampler = VK_NULL_HANDLE;
  VkQueryPool queries = VK_NULL_HANDLE;  // per slot: start, after the path's dispatch, end (when the device has them)
};
constexpr uint32_t kQueriesPerFrame = 3;
Status createRenderTargets(VulkanContext& ctx, const RenderOptions& options, RenderTargets& out);
// The largest sample count <= `msaa` that the device's color and depth attachments both support.
VkSampleCountFlagBits sampleCountFor(const VulkanContext& ctx, uint32_t msaa);
void destroyRenderTargets(VulkanContext& ctx, RenderTargets& targets);
VkRenderPass renderPassFor(const RenderTargets& targets, Pass pass);
// Records shadow (cleared even when off), depth prepass, color and the copy into `readback` (none when null);
// `draw` records one pass's draws into the bound render pass.
using DrawPass = std::function<void(VkCommandBuffer, Pass, uint32_t width, uint32_t height)>;
void recordPasses(VkCommandBuffer cmd, const RenderTargets& targets, const RenderOptions& options, VkBuffer readback,
                  const DrawPass& draw);
// The color target's pixels from a readback buffer, rows de-pitched.
std::vector<uint8_t> readbackPixels(const GpuBuffer& readback, uint32_t row_pitch, uint32_t width, uint32_t height);

// The frame uniform block and set 0 of the mesh program (frame block + shadow map).
struct FrameResources {
  GpuBuffer ubo;
  VkDescriptorSet set = VK_NULL_HANDLE;
};
// Camera and light for this frame; the light box is fitted to `bounds`.
void writeFrameUniforms(FrameResources& frame, const RenderOptions& options, const RenderCamera& camera,
                        const Bounds& bounds, const EnvironmentMaps& environment);

// ---- materials.cpp ----
struct MaterialGpu {
  VkDescriptorSet set = VK_NULL_HANDLE;
  GpuBuffer ubo;
  AlphaMode alpha = AlphaMode::kOpaque;
  bool double_sided = false;
  bool normal_texture = false;
};
struct MaterialSet {
  std::vector<VkSampler> samplers;     // per glTF sampler, then the default
  std::vector<GpuImage> images;        // decoded glTF images, per (image, srgb): index 2·image + srgb
  std::set<uint32_t> warned_textures;  // textures already named in a warning (one warning each)
  GpuImage white, flat_normal;
  std::vector<MaterialGpu> materials;  // per glTF material, then the default (last)
};
void destroyMaterialSet(VulkanContext& ctx, MaterialSet& set);

// ---- shared primitives and draws (renderer.cpp) ----
// A primitive's static vertices and indices, drawn by every path (the compute path binds its output instead).
struct PrimitiveGpu {
  uint32_t data = 0;  // into prepared.primitives
  VertexFormat format;
  GpuBuffer vertices, indices;
  uint32_t index_count = 0, vertex_count = 0;
  uint32_t target_count = 0;    // 0 when ignored
  bool tangent_deltas = false;  // TANGENT deltas that a normal map reads (glTF 2.0 §3.9.3)
  uint32_t influence_sets = 0, joints_needed = 0;
  Vec3 center{0, 0, 0};  // the base positions' box centre (object space): where BLEND draws sort from
};
// One (instance, primitive, copy): what every path shares. A path keeps its own per-draw state, by draw index.
struct Draw {
  uint32_t instance = 0;   // into prepared.instances
  uint32_t copy = 0;       // RenderOptions::instances copy
  uint32_t primitive = 0;  // into primitives
  uint32_t material = 0;   // into materials (last = default)
  uint32_t layout_bits = 0, features = 0;
  uint32_t skin = kNone;
  bool flip = false;
  float view_depth = 0.0f;  // this frame: the primitive's centre along the view direction (BLEND draws far to near)
};

// What the frame step gives one draw this frame.
struct DrawFrame {
  std::span<const float> weights;  // target_count weights
  const DMat4* world = nullptr;    // the node's world matrix (double)
  Mat4 world_float;                // the same, rounded once
  std::span<const DMat4> joints;   // the skin's joint matrices, empty when unskinned
  std::span<const Mat4> joints_float;
};

// The shaders and layout a draw's pipelines use.
struct PipelineStages {
  VkShaderModule vertex = VK_NULL_HANDLE, fragment = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  bool specialize = false;  // constant 0 = the draw's features (mesh program); node programs have none
};

struct Renderer;

// A morph path (RendererInfo::path; node materials are a third), one way of deforming: it owns its per-primitive and
// per-draw state and updates it each frame. The renderer calls the hooks in this order: addPrimitive per primitive,
// addDraw per draw, finishDraws; then per frame updateDraw per draw, recordDispatch into the frame's command buffer
// before the passes, and stages/bind while recording them. A path with frameCopies keeps a copy of its per-frame
// data (what updateDraw and recordDispatch write, and the outputs the passes read) per frame slot and uses copy
// r.data_slot; a path without writes its one copy only once the GPU finished the previous frame (submitFrame waits
// for it). destroy frees everything it created, also after a failure half-way.
class DeformPath {
 public:
  virtual ~DeformPath() = default;
  virtual Status addPrimitive(Renderer& r, uint32_t primitive) = 0;
  // r.draws[draw] holds the shared fields and the attribute features; the path adds its feature bits.
  virtual Status addDraw(Renderer& r, uint32_t draw) = 0;
  virtual Status finishDraws(Renderer&) { return Ok{}; }
  virtual Status updateDraw(Renderer& r, uint32_t draw, const DrawFrame& frame) = 0;
  // The path's compute work, recorded with its barrier before the passes (after every draw's update).
  virtual Status recordDispatch(Renderer&, VkCommandBuffer) { return Ok{}; }
  virtual bool dispatches() const { return false; }   // recordDispatch records anything (RenderStats::morph_gpu_ms)
  virtual bool frameCopies() const { return false; }  // a copy of the per-frame data per frame slot (see above)
  virtual Expected<PipelineStages> stages(Renderer& r, const Draw& d, Pass pass) = 0;
  // Binds the draw's descriptor sets, push constants and vertex buffer.
  virtual void bind(const Renderer& r, VkCommandBuffer cmd, uint32_t draw, Pass pass) const = 0;
  // Records the draw's own vkCmdDraw* after bind (true), or leaves it to drawPass (false: one draw of the primitive).
  // The crowd draws every copy of a primitive at its first copy and nothing at the others.
  virtual bool recordDraw(const Renderer&, VkCommandBuffer, uint32_t /*draw*/) const { return false; }
  // True when the draw is drawn by another one's recordDraw (it is neither bound nor drawn).
  virtual bool drawnWithAnother(const Renderer&, uint32_t /*draw*/) const { return false; }
  virtual void destroy(VulkanContext& ctx) = 0;
};
std::unique_ptr<DeformPath> makeVertexPath();
std::unique_ptr<DeformPath> makeComputePath();
std::unique_ptr<DeformPath> makeCrowdPath();  // RenderOptions::crowd
Expected<std::unique_ptr<DeformPath>> makeNodePath(VulkanContext& ctx, const NodeMaterial& material);

// ---- pipelines.cpp ----
// mesh.vert (one variant per per-mesh layout) + pbr.frag, with set 0 frame, set 1 per mesh, set 2 material.
struct MeshProgram {
  VkDescriptorSetLayout frame_layout = VK_NULL_HANDLE, material_layout = VK_NULL_HANDLE;
  std::unordered_map<uint32_t, VkDescriptorSetLayout> mesh_layouts;
  std::unordered_map<uint32_t, VkPipelineLayout> pipeline_layouts;
  std::unordered_map<uint32_t, VkShaderModule> vertex_modules;
  VkShaderModule fragment_module = VK_NULL_HANDLE;
};
Status createMeshProgram(VulkanContext& ctx, MeshProgram& program);
void destroyMeshProgram(VulkanContext& ctx, MeshProgram& program);
Expected<VkPipelineLayout> meshPipelineLayout(VulkanContext& ctx, MeshProgram& program, uint32_t layout_bits);
Expected<PipelineStages> meshStages(VulkanContext& ctx, MeshProgram& program, uint32_t layout_bits);
// The frame uniform block and its set (set 0: frame block + shadow map), after the targets exist.
Status createFrameResources(Renderer& r);

// A mesh-program draw: its object uniforms and per-mesh set (vertex and compute paths).
struct MeshDraw {
  GpuBuffer object;
  VkDescriptorSet set = VK_NULL_HANDLE;
};
// One per-mesh set entry after the object uniforms, in slot order (render_shared.h).
struct MeshBinding {
  VkDescriptorType type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  VkBuffer buffer = VK_NULL_HANDLE;  // or
  VkImageView view = VK_NULL_HANDLE;
};
Status createMeshDraw(Renderer& r, uint32_t layout_bits, std::span<const MeshBinding> bindings, MeshDraw& out);
void destroyMeshDraw(VulkanContext& ctx, MeshDraw& draw);
void writeObjectUniforms(MeshDraw& draw, const Mat4& model, const Mat4& normal_matrix, uint32_t features,
                         uint32_t skin_sets);
void bindMeshDraw(const Renderer& r, VkCommandBuffer cmd, const Draw& d, const MeshDraw& draw, Pass pass);
// A draw of already-deformed world-space vertices (the compute and crowd paths): its mesh set, then `vertices` at
// `offset` as the vertex buffer.
void bindDeformedDraw(const Renderer& r, VkCommandBuffer cmd, const Draw& d, const MeshDraw& draw, Pass pass,
                      const VkBuffer& vertices, const VkDeviceSize& offset);

// Graphics pipelines by (features, pass, material state, winding, topology, vertex format), built once each.
struct PipelineCache {
  std::unordered_map<std::string, VkPipeline> pipelines;
};
Expected<VkPipeline> pipelineFor(Renderer& r, const Draw& d, Pass pass);
void destroyPipelineCache(VulkanContext& ctx, PipelineCache& cache);
// The passes a draw is drawn in: shadow and depth only when enabled, and only for opaque materials.
bool drawsInPass(const Renderer& r, const Draw& d, Pass pass);

// ---- background.cpp: --background environment ----
struct BackgroundPipeline {
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;  // null unless RenderOptions::background_environment
};
Status createBackground(Renderer& r);                           // after the frame set and the color pass exist
void recordBackground(const Renderer& r, VkCommandBuffer cmd);  // first in the color pass; nothing without one
void destroyBackground(VulkanContext& ctx, BackgroundPipeline& background);

// ---- Frames in flight (frame.cpp; submitFrame / collectFrame) ----
// One frame's command buffer, fence, readback buffer and timestamps (queries kQueriesPerFrame × its index).
struct FrameSlot {
  InFlightSubmission submission;
  GpuBuffer readback;
  bool readback_wanted = false;
  RenderStats stats;  // cpu_ms and the submit call's share of wall_ms
};
// Every draw's pipeline per pass it is drawn in (looked up per frame: winding may change with the pose; cached).
// createRenderer calls it once so the first frame's timing is not pipeline compilation.
using DrawPipelines = std::vector<std::array<VkPipeline, 3>>;
Status drawPipelines(Renderer& r, DrawPipelines& out);

// ---- The renderer ----
struct Renderer {
  VulkanContext* ctx = nullptr;
  const Asset* asset = nullptr;
  RenderOptions options;
  RendererInfo info;
  PosePrepared prepared;
  RenderCamera camera;
  Bounds bounds;
  const EnvironmentMaps* environment = nullptr;  // options.environment_maps or own_environment
  EnvironmentMaps* own_environment = nullptr;    // made by createRenderer when none was given

  VkDescriptorPool pool = VK_NULL_HANDLE;  // every set; destroyed with the renderer
  RenderTargets targets;
  std::array<FrameResources, kRenderFramesInFlight> frames;  // per slot (only frames[0] is used without frameCopies)
  MeshProgram mesh_program;
  MaterialSet materials;
  PipelineCache pipelines;
  BackgroundPipeline background;
  std::vector<PrimitiveGpu> primitives;
  std::vector<Draw> draws;
  std::unique_ptr<DeformPath> path;
  std::array<FrameSlot, kRenderFramesInFlight> slots;
  uint32_t next_submit = 0, next_collect = 0, in_flight = 0;  // slot indices (round robin) and uncollected frames
  uint32_t data_slot = 0;  // the copy of the per-frame data the frame being submitted uses (0 without frameCopies)
};

// materials.cpp (they read and fill the Renderer's MaterialSet)
Status createSamplers(Renderer& r);
Status createMaterials(Renderer& r);
// The image of textures[texture] (its PNG/JPEG source; a KTX2-only texture is an error), or of images[image],
// decoded and uploaded once per (image, srgb).
Expected<const GpuImage*> textureImage(Renderer& r, uint32_t texture, bool srgb);
Expected<const GpuImage*> sourceImage(Renderer& r, uint32_t image, bool srgb);
// One warning per texture, however many materials and slots use it.
void warnTexture(Renderer& r, uint32_t texture, const std::string& message);

}  // namespace morphkit
