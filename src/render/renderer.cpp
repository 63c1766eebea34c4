// SPDX-License-Identifier: MIT
// The headless renderer: offscreen targets, render passes, pipelines (one vertex shader per per-mesh layout,
// shared by the shadow, depth and color passes), the scene's GPU resources and the per-frame loop.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <unordered_map>

#include "morphkit/gpu.h"
#include "morphkit/io.h"
#include "morphkit/node_material.h"
#include "morphkit/pose.h"
#include "morphkit/render.h"
#include "morphkit/scene.h"
#include "morphkit_render_spirv/mesh_vert_0.h"
#include "morphkit_render_spirv/mesh_vert_16.h"
#include "morphkit_render_spirv/mesh_vert_24.h"
#include "morphkit_render_spirv/mesh_vert_40.h"
#include "morphkit_render_spirv/mesh_vert_56.h"
#include "morphkit_render_spirv/mesh_vert_8.h"
#include "morphkit_render_spirv/pbr_frag.h"
#include "node_material_vk.h"
#include "render_shared.h"
#include "render_vk.h"
#include "vk_context.h"

namespace morphkit {

using Clock = std::chrono::steady_clock;
namespace rs = render;

namespace {

constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_SRGB;  // hardware sRGB encode on store
constexpr VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT;

double msSince(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

Mat4 lookAt(Vec3 eye, Vec3 target, Vec3 up) {
  const Vec3 f = normalize(target - eye);
  Vec3 s = cross(f, up);
  if (length(s) < 1e-6f) s = cross(f, std::fabs(f.y) < 0.9f ? Vec3{0, 1, 0} : Vec3{1, 0, 0});
  s = normalize(s);
  const Vec3 u = cross(s, f);
  Mat4 m;
  m(0, 0) = s.x, m(0, 1) = s.y, m(0, 2) = s.z, m(0, 3) = -dot(s, eye);
  m(1, 0) = u.x, m(1, 1) = u.y, m(1, 2) = u.z, m(1, 3) = -dot(u, eye);
  m(2, 0) = -f.x, m(2, 1) = -f.y, m(2, 2) = -f.z, m(2, 3) = dot(f, eye);
  return m;
}

// Right-handed view space → Vulkan clip space: y down (flipped here), depth 0..1.
Mat4 perspective(float yfov, float aspect, float znear, float zfar) {
  const float f = 1.0f / std::tan(yfov * 0.5f);
  Mat4 m;
  m.m.fill(0.0f);
  m(0, 0) = f / aspect;
  m(1, 1) = -f;
  m(2, 2) = zfar / (znear - zfar);
  m(2, 3) = znear * zfar / (znear - zfar);
  m(3, 2) = -1.0f;
  return m;
}

// Orthographic box [-r, r]² × [0, depth] in front of the light; no y flip (the shadow map is sampled with the
// same convention it is rendered with).
Mat4 orthographic(float r, float znear, float zfar) {
  Mat4 m;
  m(0, 0) = 1.0f / r;
  m(1, 1) = 1.0f / r;
  m(2, 2) = -1.0f / (zfar - znear);
  m(2, 3) = -znear / (zfar - znear);
  return m;
}

float determinant3(const Mat4& m) {
  return m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0)) +
         m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0));
}

void copyMat(rs::mat4& dst, const Mat4& src) { std::memcpy(dst.m, src.m.data(), sizeof dst.m); }

VkPrimitiveTopology topologyOf(PrimitiveMode mode) {
  switch (mode) {
    case PrimitiveMode::kPoints: return VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
    case PrimitiveMode::kLines: return VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
    case PrimitiveMode::kLineStrip: return VK_PRIMITIVE_TOPOLOGY_LINE_STRIP;
    case PrimitiveMode::kTriangleStrip: return VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
    case PrimitiveMode::kTriangleFan: return VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN;
    default: return VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  }
}

struct ShaderWords {
  const uint32_t* words;
  size_t bytes;
};
ShaderWords vertexShader(uint32_t layout_bits) {
  switch (layout_bits) {
    case 0: return {gpu::spirv::kMeshVert0, sizeof gpu::spirv::kMeshVert0};
    case 8: return {gpu::spirv::kMeshVert8, sizeof gpu::spirv::kMeshVert8};
    case 16: return {gpu::spirv::kMeshVert16, sizeof gpu::spirv::kMeshVert16};
    case 24: return {gpu::spirv::kMeshVert24, sizeof gpu::spirv::kMeshVert24};
    case 40: return {gpu::spirv::kMeshVert40, sizeof gpu::spirv::kMeshVert40};
    default: return {gpu::spirv::kMeshVert56, sizeof gpu::spirv::kMeshVert56};
  }
}

}  // namespace

// ---- Renderer state ----
struct Renderer {
  struct PrimitiveGpu {
    uint32_t data = 0;  // into prepared.primitives
    VertexFormat format;
    GpuBuffer vertices, indices, skin;
    uint32_t index_count = 0, vertex_count = 0;
    uint32_t target_count = 0;  // 0 when ignored
    bool tangent_deltas = false;
    uint32_t influence_sets = 0, joints_needed = 0;
    RenderImage morph_texture;  // vertex path
    MorphTextureLayout seed_layout, list_layout;
    GpuPrimitive* compute = nullptr;  // compute path
  };
  struct MaterialGpu {
    VkDescriptorSet set = VK_NULL_HANDLE;
    GpuBuffer ubo;
    AlphaMode alpha = AlphaMode::kOpaque;
    bool double_sided = false;
    bool normal_texture = false;
  };
  struct Draw {
    uint32_t instance = 0;  // into prepared.instances
    uint32_t copy = 0;      // RenderOptions::instances copy
    uint32_t primitive = 0; // into primitives
    uint32_t material = 0;  // into materials (last = default)
    uint32_t layout_bits = 0, features = 0;
    uint32_t skin = kNone;
    bool flip = false;
    VkDescriptorSet set = VK_NULL_HANDLE;
    GpuBuffer object, joints, morph;
    GpuBatchOutput compute_output;  // compute path: where the batch wrote this draw's vertices
    NodeDrawResources* node = nullptr;  // node material: the feature buffers (set is the node program's set)
    GpuBuffer node_ubo;                 // node material: the node uniform block
  };

  VulkanContext* ctx = nullptr;
  const Asset* asset = nullptr;
  RenderOptions options;
  RendererInfo info;
  PosePrepared prepared;
  RenderCamera camera;
  Bounds bounds;

  RenderImage color, depth, shadow;
  GpuBuffer readback;
  uint32_t row_pitch = 0;  // bytes per row in `readback`
  VkRenderPass shadow_pass = VK_NULL_HANDLE, depth_pass = VK_NULL_HANDLE, color_pass = VK_NULL_HANDLE;
  VkFramebuffer shadow_fb = VK_NULL_HANDLE, depth_fb = VK_NULL_HANDLE, color_fb = VK_NULL_HANDLE;
  VkSampler shadow_sampler = VK_NULL_HANDLE;
  std::vector<VkSampler> samplers;  // per glTF sampler, then the default
  std::vector<RenderImage> images;  // decoded glTF images, per (image, srgb): index 2·image + srgb
  std::set<uint32_t> warned_textures;  // textures already named in a warning (one warning each)
  RenderImage white, flat_normal;
  VkDescriptorSetLayout frame_layout = VK_NULL_HANDLE, material_layout = VK_NULL_HANDLE;
  std::unordered_map<uint32_t, VkDescriptorSetLayout> mesh_layouts;
  std::unordered_map<uint32_t, VkPipelineLayout> pipeline_layouts;
  std::unordered_map<uint32_t, VkShaderModule> vertex_modules;
  VkShaderModule fragment_module = VK_NULL_HANDLE;
  std::unordered_map<std::string, VkPipeline> pipelines;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet frame_set = VK_NULL_HANDLE;
  GpuBuffer frame_ubo;
  VkQueryPool queries = VK_NULL_HANDLE;

  std::vector<PrimitiveGpu> primitives;
  std::vector<MaterialGpu> materials;
  std::vector<Draw> draws;
  GpuBatch* batch = nullptr;

  // Node material (RenderOptions::node_material): one program for every draw, its own set 0, no push constants.
  bool node = false;
  NodeMaterialPrograms node_programs;
  NodeMaterialDevice* node_device = nullptr;
  NodeVkProgram node_program;
};

namespace {

Status check(VkResult r, const char* where) {
  if (r != VK_SUCCESS) return vulkanFailure(where, r);
  return Ok{};
}

// ---- Resources ----
Status createDescriptorLayouts(Renderer& r) {
  VkDevice device = r.ctx->device;
  {
    VkDescriptorSetLayoutBinding b[2] = {
        {MSH_BINDING_FRAME, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
        {MSH_BINDING_SHADOW_MAP, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr}};
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = 2;
    info.pBindings = b;
    if (Status s = check(vkCreateDescriptorSetLayout(device, &info, nullptr, &r.frame_layout), "vkCreateDescriptorSetLayout"); !s) return s;
  }
  {
    VkDescriptorSetLayoutBinding b[6];
    b[0] = {MSH_BINDING_MATERIAL, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
    for (uint32_t i = 1; i < 6; ++i) b[i] = {i, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = 6;
    info.pBindings = b;
    if (Status s = check(vkCreateDescriptorSetLayout(device, &info, nullptr, &r.material_layout), "vkCreateDescriptorSetLayout"); !s) return s;
  }
  return Ok{};
}

// The per-mesh set layout of a variant: the seed's "bind group layout" rule — entries present only with their
// feature, slots shifting with what is present (render_shared.h states the same slots for GLSL).
std::vector<VkDescriptorSetLayoutBinding> meshBindings(uint32_t layout_bits) {
  std::vector<VkDescriptorSetLayoutBinding> b;
  b.push_back({MSH_BINDING_OBJECT, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, nullptr});
  uint32_t next = 1;
  if (layout_bits & MSH_HAS_SKIN) {
    b.push_back({next++, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, nullptr});
    b.push_back({next++, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, nullptr});
  }
  if (layout_bits & MSH_HAS_MORPH_TARGETS) {
    b.push_back({next++, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1, VK_SHADER_STAGE_VERTEX_BIT, nullptr});
    b.push_back({next++,
                 (layout_bits & MSH_MORPH_ACTIVE_LIST) ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                 1, VK_SHADER_STAGE_VERTEX_BIT, nullptr});
  }
  return b;
}

Expected<VkPipelineLayout> pipelineLayout(Renderer& r, uint32_t layout_bits) {
  if (auto it = r.pipeline_layouts.find(layout_bits); it != r.pipeline_layouts.end()) return it->second;
  std::vector<VkDescriptorSetLayoutBinding> bindings = meshBindings(layout_bits);
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = uint32_t(bindings.size());
  info.pBindings = bindings.data();
  VkDescriptorSetLayout mesh = VK_NULL_HANDLE;
  if (Status s = check(vkCreateDescriptorSetLayout(r.ctx->device, &info, nullptr, &mesh), "vkCreateDescriptorSetLayout"); !s) return s.error();
  r.mesh_layouts[layout_bits] = mesh;
  VkDescriptorSetLayout sets[3] = {r.frame_layout, mesh, r.material_layout};
  VkPushConstantRange push{VK_SHADER_STAGE_VERTEX_BIT, 0, 4};
  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout.setLayoutCount = 3;
  layout.pSetLayouts = sets;
  layout.pushConstantRangeCount = 1;
  layout.pPushConstantRanges = &push;
  VkPipelineLayout out = VK_NULL_HANDLE;
  if (Status s = check(vkCreatePipelineLayout(r.ctx->device, &layout, nullptr, &out), "vkCreatePipelineLayout"); !s) return s.error();
  r.pipeline_layouts[layout_bits] = out;
  return out;
}

Expected<VkShaderModule> shaderModule(Renderer& r, ShaderWords words) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = words.bytes;
  info.pCode = words.words;
  VkShaderModule module = VK_NULL_HANDLE;
  if (Status s = check(vkCreateShaderModule(r.ctx->device, &info, nullptr, &module), "vkCreateShaderModule"); !s) return s.error();
  return module;
}

Status createRenderPasses(Renderer& r) {
  VkDevice device = r.ctx->device;
  {  // shadow: depth only, sampled afterwards
    VkAttachmentDescription a{0, kDepthFormat, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
                              VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
                              VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub{};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.pDepthStencilAttachment = &ref;
    VkSubpassDependency deps[2] = {
        {VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
         VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT, 0,
         VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, 0},
        {0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
         VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT, 0}};
    VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    info.attachmentCount = 1;
    info.pAttachments = &a;
    info.subpassCount = 1;
    info.pSubpasses = &sub;
    info.dependencyCount = 2;
    info.pDependencies = deps;
    if (Status s = check(vkCreateRenderPass(device, &info, nullptr, &r.shadow_pass), "vkCreateRenderPass(shadow)"); !s) return s;
  }
  const VkPipelineStageFlags tests = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  const VkAccessFlags depth_rw = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  if (r.options.depth_prepass) {
    VkAttachmentDescription a{0, kDepthFormat, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
                              VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
                              VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub{};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.pDepthStencilAttachment = &ref;
    VkSubpassDependency deps[2] = {{VK_SUBPASS_EXTERNAL, 0, tests, tests, depth_rw, depth_rw, 0},
                                   {0, VK_SUBPASS_EXTERNAL, tests, tests, depth_rw, depth_rw, 0}};
    VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    info.attachmentCount = 1;
    info.pAttachments = &a;
    info.subpassCount = 1;
    info.pSubpasses = &sub;
    info.dependencyCount = 2;
    info.pDependencies = deps;
    if (Status s = check(vkCreateRenderPass(device, &info, nullptr, &r.depth_pass), "vkCreateRenderPass(depth)"); !s) return s;
  }
  {
    VkAttachmentDescription a[2] = {
        {0, kColorFormat, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
         VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
         VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL},
        {0, kDepthFormat, VK_SAMPLE_COUNT_1_BIT,
         r.options.depth_prepass ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_DONT_CARE,
         VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE,
         r.options.depth_prepass ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL : VK_IMAGE_LAYOUT_UNDEFINED,
         VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL}};
    VkAttachmentReference color_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub{};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &color_ref;
    sub.pDepthStencilAttachment = &depth_ref;
    VkSubpassDependency deps[2] = {
        {VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_TRANSFER_BIT | tests,
         VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | tests, VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
         VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | depth_rw, 0},
        {0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | tests, VK_PIPELINE_STAGE_TRANSFER_BIT | tests,
         VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
         VK_ACCESS_TRANSFER_READ_BIT | depth_rw, 0}};
    VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    info.attachmentCount = 2;
    info.pAttachments = a;
    info.subpassCount = 1;
    info.pSubpasses = &sub;
    info.dependencyCount = 2;
    info.pDependencies = deps;
    if (Status s = check(vkCreateRenderPass(device, &info, nullptr, &r.color_pass), "vkCreateRenderPass(color)"); !s) return s;
  }
  return Ok{};
}

Status createFramebuffer(Renderer& r, VkRenderPass pass, std::initializer_list<VkImageView> views, uint32_t w, uint32_t h,
                         VkFramebuffer& out) {
  VkFramebufferCreateInfo info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  info.renderPass = pass;
  info.attachmentCount = uint32_t(views.size());
  info.pAttachments = views.begin();
  info.width = w;
  info.height = h;
  info.layers = 1;
  return check(vkCreateFramebuffer(r.ctx->device, &info, nullptr, &out), "vkCreateFramebuffer");
}

Status createTargets(Renderer& r) {
  const RenderOptions& o = r.options;
  Expected<RenderImage> color = createRenderImage(*r.ctx, o.width, o.height, kColorFormat,
                                                  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                                  VK_IMAGE_ASPECT_COLOR_BIT);
  if (!color) return color.error();
  r.color = *color;
  Expected<RenderImage> depth = createRenderImage(*r.ctx, o.width, o.height, kDepthFormat,
                                                  VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT);
  if (!depth) return depth.error();
  r.depth = *depth;
  const uint32_t shadow_size = o.shadows ? o.shadow_size : 1;
  Expected<RenderImage> shadow = createRenderImage(*r.ctx, shadow_size, shadow_size, kDepthFormat,
                                                   VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                                                   VK_IMAGE_ASPECT_DEPTH_BIT);
  if (!shadow) return shadow.error();
  r.shadow = *shadow;
  // Readback rows padded to 256 bytes: the copy honours an explicit row pitch (bufferRowLength) and the CPU
  // side de-pitches, the same code path as a driver-chosen pitch.
  r.row_pitch = (o.width * 4 + 255) / 256 * 256;
  Expected<GpuBuffer> readback = createBuffer(*r.ctx, VkDeviceSize(r.row_pitch) * o.height, MemoryUse::kReadback);
  if (!readback) return readback.error();
  r.readback = *readback;
  if (Status s = createRenderPasses(r); !s) return s;
  if (Status s = createFramebuffer(r, r.shadow_pass, {r.shadow.view}, shadow_size, shadow_size, r.shadow_fb); !s) return s;
  if (o.depth_prepass) {
    if (Status s = createFramebuffer(r, r.depth_pass, {r.depth.view}, o.width, o.height, r.depth_fb); !s) return s;
  }
  if (Status s = createFramebuffer(r, r.color_pass, {r.color.view, r.depth.view}, o.width, o.height, r.color_fb); !s) return s;

  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = info.minFilter = VK_FILTER_LINEAR;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
  info.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE;
  info.compareEnable = VK_TRUE;
  info.compareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  info.maxLod = 0.0f;
  if (Status s = check(vkCreateSampler(r.ctx->device, &info, nullptr, &r.shadow_sampler), "vkCreateSampler(shadow)"); !s) return s;
  if (r.ctx->info.timestamps) {
    VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    q.queryType = VK_QUERY_TYPE_TIMESTAMP;
    q.queryCount = 2;
    if (Status s = check(vkCreateQueryPool(r.ctx->device, &q, nullptr, &r.queries), "vkCreateQueryPool"); !s) return s;
  }
  return Ok{};
}

VkSamplerAddressMode wrapMode(uint32_t gl) {
  switch (gl) {
    case 33071: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    case 33648: return VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
    default: return VK_SAMPLER_ADDRESS_MODE_REPEAT;
  }
}

Status createSamplers(Renderer& r) {
  const Asset& asset = *r.asset;
  for (size_t i = 0; i <= asset.samplers.size(); ++i) {
    Sampler s = i < asset.samplers.size() ? asset.samplers[i] : Sampler{};
    VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    // glTF 2.0 §3.8.4: 9728 NEAREST; minification NEAREST and NEAREST_MIPMAP_* sample the nearest texel.
    info.magFilter = s.mag_filter == 9728 ? VK_FILTER_NEAREST : VK_FILTER_LINEAR;
    info.minFilter = (s.min_filter == 9728 || s.min_filter == 9984 || s.min_filter == 9986) ? VK_FILTER_NEAREST : VK_FILTER_LINEAR;
    info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    info.addressModeU = wrapMode(s.wrap_s);
    info.addressModeV = wrapMode(s.wrap_t);
    info.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    info.maxLod = 0.0f;  // textures have one level (no mip chain yet)
    VkSampler sampler = VK_NULL_HANDLE;
    if (Status st = check(vkCreateSampler(r.ctx->device, &info, nullptr, &sampler), "vkCreateSampler"); !st) return st;
    r.samplers.push_back(sampler);
  }
  return Ok{};
}

// A decoded image as a texture; `srgb` for color data (base color, emissive: glTF 2.0 §3.9.2/§3.9.5).
// images[index] decoded and uploaded once per (image, srgb).
Expected<const RenderImage*> sourceImage(Renderer& r, uint32_t index, bool srgb) {
  if (index >= r.asset->images.size()) return fail(Error::kInvalidArgument, "images[" + std::to_string(index) + "]: no such image");
  RenderImage& slot = r.images[size_t(index) * 2 + (srgb ? 1 : 0)];
  if (slot.image) return &slot;
  Expected<std::span<const uint8_t>> bytes = imageBytes(*r.asset, index);  // resolved by the loader: no file opened here
  if (!bytes) return bytes.error();
  Expected<DecodedImage> decoded = decodeImage(*bytes);
  if (!decoded) {
    return fail(decoded.error().code, "images[" + std::to_string(index) + "]: " + decoded.error().message);
  }
  Expected<RenderImage> image = uploadRenderImage(*r.ctx, decoded->width, decoded->height,
                                                  srgb ? VK_FORMAT_R8G8B8A8_SRGB : VK_FORMAT_R8G8B8A8_UNORM,
                                                  decoded->rgba.data(), decoded->rgba.size());
  if (!image) return image.error();
  slot = *image;
  return &slot;
}

// One warning per texture, however many materials and slots use it.
void warnTexture(Renderer& r, uint32_t texture, const std::string& message) {
  if (texture != kNone && !r.warned_textures.insert(texture).second) return;
  r.info.warnings.push_back(message);
}

// KHR_texture_basisu: `source` is the PNG/JPEG fallback when the file has one (used); the KTX2 image itself needs
// a Basis Universal transcoder, which Debian does not package, so without a fallback the texture is not drawn.
Expected<const RenderImage*> textureImage(Renderer& r, uint32_t texture, bool srgb) {
  const Texture& t = r.asset->textures[texture];
  const std::string where = "textures[" + std::to_string(texture) + "]";
  if (t.source == kNone || isKtx2Image(*r.asset, t.source)) {
    const uint32_t ktx2 = t.source != kNone ? t.source : t.basisu_source;
    if (ktx2 != kNone) {
      return fail(Error::kUnsupportedExtension, where + ": images[" + std::to_string(ktx2) +
                                                    "] is KTX2 (KHR_texture_basisu) and no fallback source exists; "
                                                    "morphkit has no Basis Universal transcoder");
    }
    return fail(Error::kUnsupportedExtension, where + ": no source");
  }
  return sourceImage(r, t.source, srgb);
}

Status createMaterials(Renderer& r) {
  const Asset& asset = *r.asset;
  const uint8_t white[4] = {255, 255, 255, 255}, flat[4] = {128, 128, 255, 255};
  Expected<RenderImage> w = uploadRenderImage(*r.ctx, 1, 1, VK_FORMAT_R8G8B8A8_UNORM, white, 4);
  if (!w) return w.error();
  r.white = *w;
  Expected<RenderImage> f = uploadRenderImage(*r.ctx, 1, 1, VK_FORMAT_R8G8B8A8_UNORM, flat, 4);
  if (!f) return f.error();
  r.flat_normal = *f;
  r.images.resize(asset.images.size() * 2);

  std::vector<Material> list = asset.materials;
  list.push_back(Material{});  // the default material (glTF 2.0 §3.9.6)
  for (size_t m = 0; m < list.size(); ++m) {
    const Material& mat = list[m];
    Renderer::MaterialGpu gpu;
    gpu.alpha = mat.alpha_mode;
    gpu.double_sided = mat.double_sided;
    rs::MaterialUniforms u{};
    u.base_color_factor = {mat.base_color_factor[0], mat.base_color_factor[1], mat.base_color_factor[2], mat.base_color_factor[3]};
    u.emissive_factor = {mat.emissive_factor[0], mat.emissive_factor[1], mat.emissive_factor[2], mat.alpha_cutoff};
    u.metallic_factor = mat.metallic_factor;
    u.roughness_factor = mat.roughness_factor;
    u.normal_scale = mat.normal_texture.scale;
    u.occlusion_strength = mat.occlusion_texture.scale;
    if (mat.alpha_mode == AlphaMode::kMask) u.texture_flags |= MAT_ALPHA_MASK;
    if (mat.alpha_mode == AlphaMode::kBlend) u.texture_flags |= MAT_ALPHA_BLEND;

    const TextureRef* refs[5] = {&mat.base_color_texture, &mat.metallic_roughness_texture, &mat.normal_texture,
                                 &mat.occlusion_texture, &mat.emissive_texture};
    const uint32_t flags[5] = {MAT_BASE_COLOR_TEXTURE, MAT_METALLIC_ROUGHNESS_TEXTURE, MAT_NORMAL_TEXTURE,
                               MAT_OCCLUSION_TEXTURE, MAT_EMISSIVE_TEXTURE};
    const bool srgb[5] = {true, false, false, false, true};
    VkDescriptorImageInfo images[5];
    for (int i = 0; i < 5; ++i) {
      images[i] = {r.samplers.back(), i == 2 ? r.flat_normal.view : r.white.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
      const TextureRef& ref = *refs[i];
      const std::array<float, 6> t = textureTransformMatrix(ref);
      u.uv_transform[2 * i] = {t[0], t[1], t[2], 0};
      u.uv_transform[2 * i + 1] = {t[3], t[4], t[5], 0};
      if (ref.texture == kNone || ref.texture >= asset.textures.size()) continue;
      const uint32_t set = textureCoordinateSet(ref);
      if (set > 1) {
        r.info.warnings.push_back("materials[" + std::to_string(m) + "]: TEXCOORD_" + std::to_string(set) +
                                  " is not supported; texture ignored");
        continue;
      }
      Expected<const RenderImage*> image = textureImage(r, ref.texture, srgb[i]);
      if (!image) {
        warnTexture(r, ref.texture, image.error().message + "; materials using it are drawn with their factors");
        continue;
      }
      const uint32_t sampler = asset.textures[ref.texture].sampler;
      images[i] = {sampler != kNone && sampler < asset.samplers.size() ? r.samplers[sampler] : r.samplers.back(),
                   (*image)->view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
      u.texture_flags |= flags[i];
      if (set == 1) u.texcoord_sets |= 1u << i;
      if (i == 2) gpu.normal_texture = true;
    }
    Expected<GpuBuffer> ubo = createBuffer(*r.ctx, sizeof u, MemoryUse::kUpload, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
    if (!ubo) return ubo.error();
    gpu.ubo = *ubo;
    std::memcpy(gpu.ubo.mapped, &u, sizeof u);

    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = r.pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &r.material_layout;
    if (Status s = check(vkAllocateDescriptorSets(r.ctx->device, &alloc, &gpu.set), "vkAllocateDescriptorSets(material)"); !s) return s;
    VkDescriptorBufferInfo buffer{gpu.ubo.buffer, 0, sizeof u};
    VkWriteDescriptorSet writes[6];
    writes[0] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, gpu.set, MSH_BINDING_MATERIAL, 0, 1,
                 VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, nullptr, &buffer, nullptr};
    for (uint32_t i = 0; i < 5; ++i) {
      writes[i + 1] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, gpu.set, i + 1, 0, 1,
                       VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &images[i], nullptr, nullptr};
    }
    vkUpdateDescriptorSets(r.ctx->device, 6, writes, 0, nullptr);
    r.materials.push_back(gpu);
  }
  return Ok{};
}

Status createPrimitives(Renderer& r, bool vertex_path, bool compute_path) {
  const uint32_t max_dim = r.ctx->properties.limits.maxImageDimension2D;
  for (uint32_t i = 0; i < r.prepared.primitives.size(); ++i) {
    PrimitiveData& data = r.prepared.primitives[i];
    if (r.options.ignore_morph_targets) data.targets.clear();
    const std::string where = "meshes[" + std::to_string(data.mesh) + "].primitives[" + std::to_string(data.primitive) + "]";
    Renderer::PrimitiveGpu gpu;
    gpu.data = i;
    gpu.vertex_count = data.vertex_count;
    gpu.target_count = uint32_t(data.targets.size());
    if (data.vertex_count == 0) return fail(Error::kInvalidArgument, where + ": no vertices");
    PackedVertices packed = packVertices(data);
    gpu.format = packed.format;
    Expected<GpuBuffer> vb = createBuffer(*r.ctx, packed.data.size() * 4, MemoryUse::kDevice, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    if (!vb) return vb.error();
    gpu.vertices = *vb;
    if (Status s = uploadToBuffer(*r.ctx, gpu.vertices, 0, packed.data.data(), packed.data.size() * 4); !s) return s;
    if (!data.indices.empty()) {
      for (uint32_t index : data.indices) {
        if (index >= data.vertex_count) return fail(Error::kInvalidGltf, where + ": index " + std::to_string(index) + " out of range");
      }
      Expected<GpuBuffer> ib = createBuffer(*r.ctx, data.indices.size() * 4, MemoryUse::kDevice, VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
      if (!ib) return ib.error();
      gpu.indices = *ib;
      if (Status s = uploadToBuffer(*r.ctx, gpu.indices, 0, data.indices.data(), data.indices.size() * 4); !s) return s;
      gpu.index_count = uint32_t(data.indices.size());
    }
    PackedSkin skin = packSkin(data);
    gpu.influence_sets = skin.influence_sets;
    gpu.joints_needed = skin.joints_needed;
    if (skin.influence_sets > 0 && (vertex_path || r.node)) {
      Expected<GpuBuffer> sb = createBuffer(*r.ctx, skin.words.size() * 4, MemoryUse::kDevice);
      if (!sb) return sb.error();
      gpu.skin = *sb;
      if (Status s = uploadToBuffer(*r.ctx, gpu.skin, 0, skin.words.data(), skin.words.size() * 4); !s) return s;
    }
    for (const MorphTargetData& t : data.targets) gpu.tangent_deltas |= !t.tangent.empty();
    // Tangent deltas matter only where a normal map uses the tangent frame (glTF 2.0 §3.9.3); elsewhere the
    // seed's 2-band layout serves (it ignores TANGENT deltas, as the seed says).
    const uint32_t material = r.asset->meshes[data.mesh].primitives[data.primitive].material;
    const bool normal_mapped = material != kNone && material < r.asset->materials.size() && r.materials[material].normal_texture;
    gpu.tangent_deltas = gpu.tangent_deltas && gpu.format.tangent != kLayoutAbsent && normal_mapped;
    if (vertex_path && gpu.target_count > 0) {
      // One texture serves both variants: the seed reads bands 2i and 2i+1, so the seed layout (2 bands) is used
      // unless tangent bands are needed, in which case only the active-list variant can read it.
      const uint32_t bands = gpu.tangent_deltas ? 3 : 2;
      Expected<MorphTextureLayout> layout = morphTextureLayout(gpu.vertex_count, gpu.target_count, bands, max_dim);
      if (!layout) return fail(layout.error().code, where + ": " + layout.error().message);
      gpu.list_layout = *layout;
      gpu.seed_layout = *layout;
      std::vector<float> texels = packMorphTexture(data, *layout);
      Expected<RenderImage> image = uploadRenderImage(*r.ctx, layout->tex_width, layout->height, VK_FORMAT_R32G32B32A32_SFLOAT,
                                                      texels.data(), texels.size() * 4);
      if (!image) return image.error();
      gpu.morph_texture = *image;
    }
    if (compute_path) {
      Expected<GpuPrimitive*> uploaded = uploadGpuPrimitive(*r.ctx, data);
      if (!uploaded) return fail(uploaded.error().code, where + ": " + uploaded.error().message);
      gpu.compute = *uploaded;
    }
    r.primitives.push_back(gpu);
  }
  return Ok{};
}

// A node-material draw: its feature resources, node uniform block and the one set, written by binding name
// (the binding contract of morphkit/node_material.h). On failure the caller still keeps `d` in r.draws so that
// destroyRenderer frees what was created.
Status createNodeDraw(Renderer& r, Renderer::Draw& d, const PosePrepared::Instance& inst, const Renderer::PrimitiveGpu& prim) {
  const Asset& asset = *r.asset;
  const NodeMaterial& material = *r.options.node_material;
  const std::string where = "meshes[" + std::to_string(inst.mesh) + "].primitives[" + std::to_string(inst.primitive) + "]";
  if (d.skin != kNone) {
    Expected<GpuBuffer> joints = createBuffer(*r.ctx, sizeof(float) * 16 * asset.skins[d.skin].joints.size(), MemoryUse::kUpload);
    if (!joints) return joints.error();
    d.joints = *joints;
  }
  Expected<NodeDrawResources*> resources =
      createNodeDrawResources(*r.node_device, material, r.prepared.primitives[inst.data], asset.meshes[inst.mesh].weights);
  if (!resources) return fail(resources.error().code, where + ": " + resources.error().message);
  d.node = *resources;
  Expected<GpuBuffer> ubo = createBuffer(*r.ctx, material.uniform_block_bytes, MemoryUse::kUpload, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
  if (!ubo) return ubo.error();
  d.node_ubo = *ubo;
  std::memset(d.node_ubo.mapped, 0, material.uniform_block_bytes);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = r.pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &r.node_program.set_layout;
  if (Status s = check(vkAllocateDescriptorSets(r.ctx->device, &alloc, &d.set), "vkAllocateDescriptorSets(node)"); !s) return s;
  const Material* gltf = d.material < asset.materials.size() ? &asset.materials[d.material] : nullptr;
  const std::vector<NodeBinding>& bindings = r.node_programs.glsl.bindings;
  std::vector<VkDescriptorBufferInfo> buffers(bindings.size());
  std::vector<VkDescriptorImageInfo> images(bindings.size());
  std::vector<VkWriteDescriptorSet> writes;
  std::string missing;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const NodeBinding& b = bindings[i];
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, d.set, b.binding, 0, 1, nodeDescriptorType(b.kind),
                           nullptr, nullptr, nullptr};
    auto useBuffer = [&](VkBuffer buffer, VkDeviceSize offset, VkDeviceSize range) {
      buffers[i] = {buffer, offset, range};
      w.pBufferInfo = &buffers[i];
    };
    const NodeDrawBuffer* feature = nullptr;
    for (const NodeDrawBuffer& fb : d.node->buffers) {
      if (fb.binding == b.name) feature = &fb;
    }
    if (b.name == "NodeUniforms") {
      useBuffer(d.node_ubo.buffer, 0, VK_WHOLE_SIZE);
    } else if (b.name == "FrameBlock") {
      useBuffer(r.frame_ubo.buffer, 0, VK_WHOLE_SIZE);
    } else if (b.kind == NodeBindingKind::kShadowSampler) {
      images[i] = {r.shadow_sampler, r.shadow.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
      w.pImageInfo = &images[i];
    } else if (b.kind == NodeBindingKind::kSampledTexture) {
      images[i] = {r.samplers.back(), r.white.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};  // unbound: never read
      const NodeTextureSource src = nodeTextureSource(material, b.texture, asset, gltf);
      if (src.bound) {
        Expected<const RenderImage*> image =
            src.texture != kNone ? textureImage(r, src.texture, src.srgb) : sourceImage(r, src.image, src.srgb);
        if (image) {
          images[i] = {src.sampler != kNone ? r.samplers[src.sampler] : r.samplers.back(), (*image)->view,
                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        } else {
          warnTexture(r, src.texture, image.error().message + "; materials using it are drawn with their factors");
        }
      }
      w.pImageInfo = &images[i];
    } else if ((b.name == "NodeSkinStream" || b.name == "NodeJointMatrices") && d.skin != kNone) {
      useBuffer(b.name == "NodeSkinStream" ? prim.skin.buffer : d.joints.buffer, 0, VK_WHOLE_SIZE);
    } else if (feature) {
      useBuffer(feature->buffer, feature->offset, feature->range);
    } else if ((b.name == "NodeSkinStream" || b.name == "NodeJointMatrices") && prim.skin.buffer) {
      // Skin attributes on a node without a skin: skin_sets is 0, the buffer is never read.
      useBuffer(prim.skin.buffer, 0, VK_WHOLE_SIZE);
    } else {
      missing = b.name;
      continue;
    }
    writes.push_back(w);
  }
  vkUpdateDescriptorSets(r.ctx->device, uint32_t(writes.size()), writes.data(), 0, nullptr);
  if (!missing.empty()) {
    return fail(Error::kInvalidArgument, where + ": node binding '" + missing + "' has no resource");
  }
  return Ok{};
}

Status createDraws(Renderer& r, MorphPath path) {
  const Asset& asset = *r.asset;
  std::vector<GpuInstanceDesc> descs;
  for (uint32_t copy = 0; copy < std::max(r.options.instances, 1u); ++copy) {
    for (uint32_t i = 0; i < r.prepared.instances.size(); ++i) {
      const PosePrepared::Instance& inst = r.prepared.instances[i];
      const Renderer::PrimitiveGpu& prim = r.primitives[inst.data];
      const Primitive& gltf = asset.meshes[inst.mesh].primitives[inst.primitive];
      if (gltf.mode == PrimitiveMode::kLineLoop) {
        if (copy == 0) r.info.warnings.push_back("meshes[" + std::to_string(inst.mesh) + "]: LINE_LOOP is not drawn");
        continue;
      }
      Renderer::Draw d;
      d.instance = i;
      d.copy = copy;
      d.primitive = inst.data;
      d.material = gltf.material != kNone && gltf.material < asset.materials.size() ? gltf.material : uint32_t(asset.materials.size());
      const uint32_t skin = asset.nodes[inst.node].skin;
      const bool skinned = skin != kNone && prim.influence_sets > 0;
      if (skinned) {
        d.skin = skin;
        if (prim.joints_needed > asset.skins[skin].joints.size()) {
          return fail(Error::kInvalidGltf, "nodes[" + std::to_string(inst.node) + "]: skin " + std::to_string(skin) + " has " +
                                               std::to_string(asset.skins[skin].joints.size()) + " joints, JOINTS_0 uses " +
                                               std::to_string(prim.joints_needed));
        }
      }
      d.features = 0;
      if (prim.format.normal != kLayoutAbsent) d.features |= MSH_HAS_NORMALS;
      if (prim.format.tangent != kLayoutAbsent) d.features |= MSH_HAS_TANGENTS;
      if (prim.format.texcoord_sets >= 1) d.features |= MSH_HAS_UV0;
      if (prim.format.texcoord_sets >= 2) d.features |= MSH_HAS_UV1;
      if (r.node) {
        // Node draws deform in the node program's vertex shader: no morph texture, no compute batch.
      } else if (path == MorphPath::kVertex) {
        if (skinned) d.features |= MSH_HAS_SKIN;
        if (prim.target_count > 0) {
          d.features |= MSH_HAS_MORPH_TARGETS;
          if (prim.target_count > MSH_SEED_MAX_TARGETS || prim.tangent_deltas || r.options.force_active_list ||
              prim.seed_layout.bands_per_target != 2) {
            d.features |= MSH_MORPH_ACTIVE_LIST;
            ++r.info.morph_draws_active_list;
          } else {
            ++r.info.morph_draws_seed;
          }
        }
      } else {
        GpuInstanceDesc desc;
        desc.primitive = prim.compute;
        desc.skinned = skinned;
        desc.joint_count = skinned ? uint32_t(asset.skins[skin].joints.size()) : 0;
        descs.push_back(desc);
      }
      d.layout_bits = d.features & MSH_LAYOUT_MASK;
      r.info.max_targets = std::max(r.info.max_targets, prim.target_count);
      if (r.node) {
        Status s = createNodeDraw(r, d, inst, prim);
        r.draws.push_back(d);
        if (!s) return s;
        continue;
      }

      Expected<VkPipelineLayout> layout = pipelineLayout(r, d.layout_bits);
      if (!layout) return layout.error();
      Expected<GpuBuffer> object = createBuffer(*r.ctx, sizeof(rs::ObjectUniforms), MemoryUse::kUpload, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
      if (!object) return object.error();
      d.object = *object;
      std::memset(d.object.mapped, 0, sizeof(rs::ObjectUniforms));
      if (d.features & MSH_HAS_SKIN) {
        Expected<GpuBuffer> joints = createBuffer(*r.ctx, sizeof(float) * 16 * asset.skins[skin].joints.size(), MemoryUse::kUpload);
        if (!joints) return joints.error();
        d.joints = *joints;
      }
      if (d.features & MSH_HAS_MORPH_TARGETS) {
        const bool list = (d.features & MSH_MORPH_ACTIVE_LIST) != 0;
        const VkDeviceSize bytes = list ? sizeof(rs::MorphActiveHeader) + sizeof(rs::MorphActiveEntry) * prim.target_count
                                        : sizeof(rs::MorphUniforms);
        Expected<GpuBuffer> morph = createBuffer(*r.ctx, bytes, MemoryUse::kUpload, list ? 0 : VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
        if (!morph) return morph.error();
        d.morph = *morph;
        auto* bytes_ptr = static_cast<uint8_t*>(d.morph.mapped);
        if (list) {
          rs::MorphActiveHeader h{0, prim.list_layout.tex_width, prim.list_layout.rows_per_band, prim.list_layout.bands_per_target};
          std::memcpy(bytes_ptr, &h, sizeof h);
        } else {
          // Seed 000 initialization step 6: initial weights + immutable layout params, all 32 bytes once.
          const std::vector<float>& initial = asset.meshes[inst.mesh].weights;
          std::vector<float> w(prim.target_count, 0.0f);
          for (size_t k = 0; k < w.size() && k < initial.size(); ++k) w[k] = initial[k];
          initMorphUniform(std::span<uint8_t>(bytes_ptr, sizeof(rs::MorphUniforms)), prim.seed_layout, w);
        }
      }
      VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      alloc.descriptorPool = r.pool;
      alloc.descriptorSetCount = 1;
      alloc.pSetLayouts = &r.mesh_layouts[d.layout_bits];
      if (Status s = check(vkAllocateDescriptorSets(r.ctx->device, &alloc, &d.set), "vkAllocateDescriptorSets(mesh)"); !s) return s;
      // The seed's "bind group creation": the entries present with the features, in slot order.
      std::vector<VkDescriptorBufferInfo> buffers;
      buffers.reserve(4);
      VkDescriptorImageInfo morph_image{VK_NULL_HANDLE, prim.morph_texture.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
      std::vector<VkWriteDescriptorSet> writes;
      auto addBuffer = [&](uint32_t binding, VkDescriptorType type, const GpuBuffer& b) {
        buffers.push_back({b.buffer, 0, VK_WHOLE_SIZE});
        writes.push_back({VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, d.set, binding, 0, 1, type, nullptr, &buffers.back(), nullptr});
      };
      uint32_t next = 0;
      addBuffer(next++, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, d.object);
      if (d.features & MSH_HAS_SKIN) {
        addBuffer(next++, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, prim.skin);
        addBuffer(next++, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, d.joints);
      }
      if (d.features & MSH_HAS_MORPH_TARGETS) {
        writes.push_back({VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, d.set, next++, 0, 1, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE,
                          &morph_image, nullptr, nullptr});
        addBuffer(next++, (d.features & MSH_MORPH_ACTIVE_LIST) ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                  d.morph);
      }
      vkUpdateDescriptorSets(r.ctx->device, uint32_t(writes.size()), writes.data(), 0, nullptr);
      r.draws.push_back(d);
    }
  }
  if (path == MorphPath::kCompute && !descs.empty()) {
    Expected<GpuBatch*> batch = createGpuBatch(*r.ctx, descs);
    if (!batch) return batch.error();
    r.batch = *batch;
  }
  r.info.draws = uint32_t(r.draws.size());
  return Ok{};
}

Status createFrameSet(Renderer& r) {
  Expected<GpuBuffer> ubo = createBuffer(*r.ctx, sizeof(rs::FrameUniforms), MemoryUse::kUpload, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
  if (!ubo) return ubo.error();
  r.frame_ubo = *ubo;
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = r.pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &r.frame_layout;
  if (Status s = check(vkAllocateDescriptorSets(r.ctx->device, &alloc, &r.frame_set), "vkAllocateDescriptorSets(frame)"); !s) return s;
  VkDescriptorBufferInfo buffer{r.frame_ubo.buffer, 0, sizeof(rs::FrameUniforms)};
  VkDescriptorImageInfo shadow{r.shadow_sampler, r.shadow.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkWriteDescriptorSet writes[2] = {
      {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, r.frame_set, MSH_BINDING_FRAME, 0, 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
       nullptr, &buffer, nullptr},
      {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, r.frame_set, MSH_BINDING_SHADOW_MAP, 0, 1,
       VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &shadow, nullptr, nullptr}};
  vkUpdateDescriptorSets(r.ctx->device, 2, writes, 0, nullptr);
  return Ok{};
}

// ---- Pipelines ----
enum class Pass : uint32_t { kColor = MSH_PASS_COLOR, kDepth = MSH_PASS_DEPTH, kShadow = MSH_PASS_SHADOW };

Expected<VkPipeline> pipelineFor(Renderer& r, const Renderer::Draw& d, Pass pass) {
  const Renderer::PrimitiveGpu& prim = r.primitives[d.primitive];
  const Renderer::MaterialGpu& mat = r.materials[d.material];
  const PrimitiveMode mode = r.prepared.primitives[prim.data].mode;
  const VertexFormat& f = prim.format;
  const uint32_t key_words[] = {d.features, uint32_t(pass), uint32_t(mat.alpha), mat.double_sided, d.flip, uint32_t(mode),
                                f.stride, f.normal, f.tangent, f.extra, f.texcoord_sets};
  std::string key(reinterpret_cast<const char*>(key_words), sizeof key_words);
  if (auto it = r.pipelines.find(key); it != r.pipelines.end()) return it->second;

  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].pName = "main";
  const uint32_t features = d.features;
  VkSpecializationMapEntry entry{0, 0, 4};
  VkSpecializationInfo spec{1, &entry, 4, &features};
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  if (r.node) {
    // The node program: its own layout (one set, no push constants) and a vertex module per pipeline; no
    // specialization constants (node.features is a uniform).
    const NodePipeline node_pipeline = pass == Pass::kColor ? NodePipeline::kColor
                                       : pass == Pass::kDepth ? NodePipeline::kDepth : NodePipeline::kShadow;
    stages[0].module = r.node_program.vertex[uint32_t(node_pipeline)];
    stages[1].module = r.node_program.fragment;
    pipeline_layout = r.node_program.layout;
  } else {
  if (!r.vertex_modules.count(d.layout_bits)) {
    Expected<VkShaderModule> module = shaderModule(r, vertexShader(d.layout_bits));
    if (!module) return module.error();
    r.vertex_modules[d.layout_bits] = *module;
  }
  if (!r.fragment_module) {
    Expected<VkShaderModule> module = shaderModule(r, {gpu::spirv::kPbrFrag, sizeof gpu::spirv::kPbrFrag});
    if (!module) return module.error();
    r.fragment_module = *module;
  }
  Expected<VkPipelineLayout> layout = pipelineLayout(r, d.layout_bits);
  if (!layout) return layout.error();
  pipeline_layout = *layout;
  stages[0].module = r.vertex_modules[d.layout_bits];
  stages[0].pSpecializationInfo = &spec;
  stages[1].module = r.fragment_module;
  stages[1].pSpecializationInfo = &spec;
  }

  // Absent attributes read POSITION's bytes (the shader ignores them per kFeatures): every input is bound.
  VkVertexInputBindingDescription binding{0, f.stride * 4, VK_VERTEX_INPUT_RATE_VERTEX};
  VkVertexInputAttributeDescription attrs[5] = {
      {0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
      {1, 0, VK_FORMAT_R32G32B32_SFLOAT, f.normal != kLayoutAbsent ? f.normal * 4 : 0},
      {2, 0, f.tangent != kLayoutAbsent ? VK_FORMAT_R32G32B32A32_SFLOAT : VK_FORMAT_R32G32B32_SFLOAT,
       f.tangent != kLayoutAbsent ? f.tangent * 4 : 0},
      {3, 0, VK_FORMAT_R32G32_SFLOAT, f.texcoord_sets >= 1 ? f.extra * 4 : 0},
      {4, 0, VK_FORMAT_R32G32_SFLOAT, f.texcoord_sets >= 2 ? f.extra * 4 + 8 : 0}};
  VkPipelineVertexInputStateCreateInfo input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  input.vertexBindingDescriptionCount = 1;
  input.pVertexBindingDescriptions = &binding;
  input.vertexAttributeDescriptionCount = 5;
  input.pVertexAttributeDescriptions = attrs;
  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = topologyOf(mode);
  VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport.viewportCount = 1;
  viewport.scissorCount = 1;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.lineWidth = 1.0f;
  // glTF 2.0 §3.7.4: counter-clockwise front faces, reversed when the node's world determinant is negative;
  // double-sided materials are not culled (§3.9.5). The shadow pass draws both faces with a slope bias.
  raster.cullMode = (mat.double_sided || pass == Pass::kShadow) ? VK_CULL_MODE_NONE : VK_CULL_MODE_BACK_BIT;
  raster.frontFace = d.flip ? VK_FRONT_FACE_CLOCKWISE : VK_FRONT_FACE_COUNTER_CLOCKWISE;
  if (pass == Pass::kShadow) {
    raster.depthBiasEnable = VK_TRUE;
    raster.depthBiasConstantFactor = 1.5f;
    raster.depthBiasSlopeFactor = 2.0f;
  }
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineDepthStencilStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  ds.depthTestEnable = VK_TRUE;
  ds.depthWriteEnable = VK_TRUE;
  ds.depthCompareOp = VK_COMPARE_OP_LESS;
  if (pass == Pass::kColor) {
    ds.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
    // With a prepass, opaque depth is final already; blended surfaces never write depth.
    ds.depthWriteEnable = mat.alpha == AlphaMode::kBlend || (r.options.depth_prepass && mat.alpha == AlphaMode::kOpaque)
                              ? VK_FALSE : VK_TRUE;
  }
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = 0xF;
  if (mat.alpha == AlphaMode::kBlend) {
    blend.blendEnable = VK_TRUE;
    blend.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
    blend.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
    blend.colorBlendOp = VK_BLEND_OP_ADD;
    blend.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
    blend.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
    blend.alphaBlendOp = VK_BLEND_OP_ADD;
  }
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = pass == Pass::kColor ? 1 : 0;
  cb.pAttachments = &blend;
  VkDynamicState dynamic_states[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dyn{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dyn.dynamicStateCount = 2;
  dyn.pDynamicStates = dynamic_states;

  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.stageCount = pass == Pass::kColor ? 2 : 1;  // depth-only passes have no fragment shader
  info.pStages = stages;
  info.pVertexInputState = &input;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewport;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &ms;
  info.pDepthStencilState = &ds;
  info.pColorBlendState = &cb;
  info.pDynamicState = &dyn;
  info.layout = pipeline_layout;
  info.renderPass = pass == Pass::kColor ? r.color_pass : pass == Pass::kDepth ? r.depth_pass : r.shadow_pass;
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (Status s = check(vkCreateGraphicsPipelines(r.ctx->device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline),
                       "vkCreateGraphicsPipelines");
      !s) {
    return s.error();
  }
  r.pipelines[key] = pipeline;
  return pipeline;
}

// Points every draw at its compute output: the batch's output buffer itself is bound as the vertex buffer
// (seed 003 §3: STORAGE | VERTEX usage, a barrier after the dispatch, no copy and no readback).
Status bindComputeOutputs(Renderer& r) {
  for (uint32_t i = 0; i < r.draws.size(); ++i) {
    const GpuBufferRange range = gpuBatchOutputRange(*r.batch, i);
    r.draws[i].compute_output = {range.buffer, range.offset, range.size};
  }
  return Ok{};
}

}  // namespace

// ---- Public API ----
Expected<Renderer*> createRenderer(VulkanContext& context, const Asset& asset, const RenderOptions& options) {
  if (options.width == 0 || options.height == 0 || options.width > 8192 || options.height > 8192) {
    return fail(Error::kInvalidArgument, "createRenderer: size " + std::to_string(options.width) + "×" +
                                             std::to_string(options.height) + " outside 1..8192");
  }
  if (options.shadows && (options.shadow_size == 0 || options.shadow_size > 8192)) {
    return fail(Error::kInvalidArgument, "createRenderer: shadow size outside 1..8192");
  }
  if (!context.queue_has_graphics) {
    return fail(Error::kNoDevice, "createRenderer: the device's queue (" + context.info.name + ") cannot do graphics");
  }
  Expected<PosePrepared> prepared = preparePose(asset, options.scene);
  if (!prepared) return prepared.error();

  auto* r = new Renderer();
  r->ctx = &context;
  r->asset = &asset;
  r->options = options;
  r->options.instances = std::max(options.instances, 1u);
  r->prepared = std::move(*prepared);
  r->info.device = context.info.name;
  r->info.passes = 1 + (options.shadows ? 1 : 0) + (options.depth_prepass ? 1 : 0);
  auto failWith = [&](const Failure& f) -> Expected<Renderer*> {
    destroyRenderer(r);
    return f;
  };

  uint32_t max_targets = 0;
  for (const PrimitiveData& p : r->prepared.primitives) max_targets = std::max<uint32_t>(max_targets, uint32_t(p.targets.size()));
  if (options.ignore_morph_targets) max_targets = 0;
  MorphPath path = options.morph_path;
  if (path == MorphPath::kAuto) path = chooseMorphPath(r->info.passes, max_targets);
  if (options.node_material) {
    // Node draws morph and skin in the node program's vertex shader.
    path = MorphPath::kVertex;
    r->node = true;
    Expected<NodeMaterialPrograms> programs = compileNodeMaterial(*options.node_material);
    if (!programs) return failWith(programs.error());
    r->node_programs = std::move(*programs);
    Expected<NodeMaterialDevice*> device = createNodeMaterialDevice(context);
    if (!device) return failWith(device.error());
    r->node_device = *device;
    Expected<NodeVkProgram> program = createNodeVkProgram(context, r->node_programs);
    if (!program) return failWith(program.error());
    r->node_program = *program;
  }
  r->info.path = path;

  // Pool sized for the worst case of every draw's set.
  const uint32_t draw_count = uint32_t(r->prepared.instances.size()) * r->options.instances;
  const uint32_t material_count = uint32_t(asset.materials.size()) + 1;
  VkDescriptorPoolSize sizes[4] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2 * draw_count + material_count + 1},
                                   {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3 * draw_count + 1},
                                   {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, draw_count + 1},
                                   {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 5 * material_count + 1}};
  VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  if (r->node) {
    // Per node draw: the node uniform block + FrameBlock, the textures + the shadow map, up to 4 feature buffers.
    const uint32_t textures = uint32_t(options.node_material->textures.size());
    sizes[0].descriptorCount += 2 * draw_count;
    sizes[1].descriptorCount += 4 * draw_count;
    sizes[3].descriptorCount += (textures + 1) * draw_count;
  }
  pool.maxSets = draw_count + material_count + 1;
  pool.poolSizeCount = 4;
  pool.pPoolSizes = sizes;
  if (Status s = check(vkCreateDescriptorPool(context.device, &pool, nullptr, &r->pool), "vkCreateDescriptorPool"); !s) return failWith(s.error());

  if (Status s = createDescriptorLayouts(*r); !s) return failWith(s.error());
  if (Status s = createTargets(*r); !s) return failWith(s.error());
  if (Status s = createSamplers(*r); !s) return failWith(s.error());
  if (Status s = createFrameSet(*r); !s) return failWith(s.error());
  if (Status s = createMaterials(*r); !s) return failWith(s.error());
  if (Status s = createPrimitives(*r, path == MorphPath::kVertex && !r->node, path == MorphPath::kCompute && !r->node); !s) {
    return failWith(s.error());
  }
  if (Status s = createDraws(*r, path); !s) return failWith(s.error());

  // Default camera: framed on the rest pose.
  Expected<Bounds> bounds = posedBounds(asset, r->prepared.scene, kNone, 0, 0, 1);
  if (!bounds) return failWith(bounds.error());
  r->bounds = *bounds;
  r->camera = frameBounds(r->bounds, float(options.width) / float(options.height));
  // Pipelines up front so the first frame's timing is not pipeline compilation.
  for (const Renderer::Draw& d : r->draws) {
    for (Pass pass : {Pass::kShadow, Pass::kDepth, Pass::kColor}) {
      if (pass == Pass::kShadow && !options.shadows) continue;
      if (pass == Pass::kDepth && !options.depth_prepass) continue;
      if (pass != Pass::kColor && r->materials[d.material].alpha != AlphaMode::kOpaque) continue;
      Expected<VkPipeline> p = pipelineFor(*r, d, pass);
      if (!p) return failWith(p.error());
    }
  }
  return r;
}

void destroyRenderer(Renderer* r) {
  if (!r) return;
  VulkanContext& ctx = *r->ctx;
  VkDevice device = ctx.device;
  vkDeviceWaitIdle(device);
  for (auto& [key, pipeline] : r->pipelines) vkDestroyPipeline(device, pipeline, nullptr);
  for (auto& [bits, module] : r->vertex_modules) vkDestroyShaderModule(device, module, nullptr);
  vkDestroyShaderModule(device, r->fragment_module, nullptr);
  for (auto& [bits, layout] : r->pipeline_layouts) vkDestroyPipelineLayout(device, layout, nullptr);
  for (auto& [bits, layout] : r->mesh_layouts) vkDestroyDescriptorSetLayout(device, layout, nullptr);
  vkDestroyDescriptorSetLayout(device, r->frame_layout, nullptr);
  vkDestroyDescriptorSetLayout(device, r->material_layout, nullptr);
  vkDestroyDescriptorPool(device, r->pool, nullptr);  // frees every set
  for (Renderer::Draw& d : r->draws) {
    if (r->node_device) destroyNodeDrawResources(*r->node_device, d.node);
    destroyBuffer(ctx, d.node_ubo);
    destroyBuffer(ctx, d.object);
    destroyBuffer(ctx, d.joints);
    destroyBuffer(ctx, d.morph);
  }
  destroyGpuBatch(ctx, r->batch);
  for (Renderer::PrimitiveGpu& p : r->primitives) {
    destroyBuffer(ctx, p.vertices);
    destroyBuffer(ctx, p.indices);
    destroyBuffer(ctx, p.skin);
    destroyRenderImage(ctx, p.morph_texture);
    destroyGpuPrimitive(ctx, p.compute);
  }
  for (Renderer::MaterialGpu& m : r->materials) destroyBuffer(ctx, m.ubo);
  for (RenderImage& image : r->images) destroyRenderImage(ctx, image);
  destroyRenderImage(ctx, r->white);
  destroyRenderImage(ctx, r->flat_normal);
  for (VkSampler s : r->samplers) vkDestroySampler(device, s, nullptr);
  vkDestroySampler(device, r->shadow_sampler, nullptr);
  destroyBuffer(ctx, r->frame_ubo);
  vkDestroyQueryPool(device, r->queries, nullptr);
  vkDestroyFramebuffer(device, r->shadow_fb, nullptr);
  vkDestroyFramebuffer(device, r->depth_fb, nullptr);
  vkDestroyFramebuffer(device, r->color_fb, nullptr);
  vkDestroyRenderPass(device, r->shadow_pass, nullptr);
  vkDestroyRenderPass(device, r->depth_pass, nullptr);
  vkDestroyRenderPass(device, r->color_pass, nullptr);
  destroyRenderImage(ctx, r->color);
  destroyRenderImage(ctx, r->depth);
  destroyRenderImage(ctx, r->shadow);
  destroyBuffer(ctx, r->readback);
  destroyNodeVkProgram(ctx, r->node_program);
  destroyNodeMaterialDevice(r->node_device);
  delete r;
}

const RendererInfo& rendererInfo(const Renderer& renderer) { return renderer.info; }

void setRendererCamera(Renderer& renderer, const RenderCamera& camera, std::optional<Bounds> shadow_bounds) {
  renderer.camera = camera;
  if (shadow_bounds && !shadow_bounds->empty()) renderer.bounds = *shadow_bounds;
}

std::vector<std::string> rendererValidationMessages(const Renderer& renderer) { return gpuValidationMessages(*renderer.ctx); }

Expected<RenderedImage> renderFrame(Renderer& r, const RenderFrameInput& input, RenderStats* stats) {
  const Clock::time_point wall_start = Clock::now();
  const Asset& asset = *r.asset;
  VulkanContext& ctx = *r.ctx;
  if (input.animation != kNone && input.animation >= r.prepared.animations.size()) {
    return fail(Error::kInvalidArgument, "animations[" + std::to_string(input.animation) + "]: no such animation (the asset has " +
                                             std::to_string(r.prepared.animations.size()) + ")");
  }
  RenderStats local;
  Clock::time_point cpu_start = Clock::now();

  // ---- CPU: per copy, sample → scene → per draw weights, matrices ----
  std::vector<GpuInstanceState> states;
  std::vector<std::vector<float>> state_weights;
  std::vector<std::vector<DMat4>> state_joints;
  const bool compute = r.info.path == MorphPath::kCompute;
  if (compute) {
    states.resize(r.draws.size());
    state_weights.resize(r.draws.size());
    state_joints.resize(r.draws.size());
  }
  size_t draw_index = 0;
  for (uint32_t copy = 0; copy < r.options.instances; ++copy) {
    FrameRequest request;  // the same frame step as evaluatePose / evaluateGpuPose
    request.animation = input.animation;
    request.time = input.time + copy * r.options.instance_time_step;
    request.weights = input.weights;
    Expected<SceneState> state = evaluateFrame(r.prepared, request);
    if (!state) return state.error();
    // Joint and world matrices come in double (scene.h): the compute path takes them so (it keeps the digits far
    // from the origin); the vertex path and node materials upload floats, rounded once here.
    std::vector<std::vector<DMat4>> joints(asset.skins.size());
    std::vector<std::vector<Mat4>> joints_float(asset.skins.size());
    for (; draw_index < r.draws.size() && r.draws[draw_index].copy == copy; ++draw_index) {
      Renderer::Draw& d = r.draws[draw_index];
      const PosePrepared::Instance& inst = r.prepared.instances[d.instance];
      const Renderer::PrimitiveGpu& prim = r.primitives[d.primitive];
      std::vector<float> weights(prim.target_count, 0.0f);
      const std::vector<float>& node_weights = input.override_weights ? *input.override_weights : state->weights[inst.node];
      for (size_t k = 0; k < weights.size() && k < node_weights.size(); ++k) weights[k] = node_weights[k];
      if (d.skin != kNone && joints[d.skin].empty()) {
        joints[d.skin] = jointMatrices(asset, *state, d.skin, r.prepared.inverse_bind[d.skin]);
        joints_float[d.skin] = toFloat(joints[d.skin]);
      }
      const Mat4 world = toFloat(state->world[inst.node]);
      d.flip = d.skin == kNone && determinant3(world) < 0.0f;
      if (r.node) {
        const NodeMaterial& material = *r.options.node_material;
        NodeObjectHeader header{};
        const Mat4 model = d.skin != kNone ? Mat4{} : world;  // skinned vertices are in world space already
        const Mat4 normal = d.skin != kNone ? Mat4{} : normalMatrix(world);
        std::memcpy(header.model, model.m.data(), sizeof header.model);
        std::memcpy(header.normal_matrix, normal.m.data(), sizeof header.normal_matrix);
        header.features = d.features & (MSH_HAS_NORMALS | MSH_HAS_TANGENTS | MSH_HAS_UV0 | MSH_HAS_UV1);
        header.skin_sets = d.skin != kNone ? prim.influence_sets : 0;
        const Material* gltf = d.material < asset.materials.size() ? &asset.materials[d.material] : nullptr;
        const std::vector<uint8_t> bytes = nodeUniformBytes(material, asset, gltf, header);
        std::memcpy(d.node_ubo.mapped, bytes.data(), std::min<size_t>(bytes.size(), material.uniform_block_bytes));
        if (Status s = updateNodeDrawWeights(*d.node, weights); !s) return s.error();
        if (d.skin != kNone) std::memcpy(d.joints.mapped, joints_float[d.skin].data(), joints_float[d.skin].size() * sizeof(Mat4));
        continue;
      }
      rs::ObjectUniforms object{};
      if (compute || d.skin != kNone) {
        copyMat(object.model, Mat4{});  // the compute output and skinned vertices are in world space already
        copyMat(object.normal_matrix, Mat4{});
      } else {
        copyMat(object.model, world);
        copyMat(object.normal_matrix, normalMatrix(world));
      }
      object.features = d.features;
      object.skin_sets = prim.influence_sets;
      std::memcpy(d.object.mapped, &object, sizeof object);
      if (compute) {
        state_weights[draw_index] = weights;
        if (d.skin != kNone) state_joints[draw_index] = joints[d.skin];
        states[draw_index].weights = state_weights[draw_index];
        states[draw_index].joint_matrices = state_joints[draw_index];
        states[draw_index].world = state->world[inst.node];
        continue;
      }
      if (d.features & MSH_HAS_SKIN) std::memcpy(d.joints.mapped, joints_float[d.skin].data(), joints_float[d.skin].size() * sizeof(Mat4));
      if (d.features & MSH_MORPH_ACTIVE_LIST) {
        auto* bytes = static_cast<uint8_t*>(d.morph.mapped);
        auto* entries = reinterpret_cast<rs::MorphActiveEntry*>(bytes + sizeof(rs::MorphActiveHeader));
        uint32_t count = 0;
        for (uint32_t t = 0; t < weights.size(); ++t) {
          if (weights[t] != 0.0f) entries[count++] = {t, weights[t]};
        }
        std::memcpy(bytes, &count, sizeof count);  // header.count; the layout fields never change
      } else if (d.features & MSH_HAS_MORPH_TARGETS) {
        // Seed 000 per-frame update: the first 16 bytes (vec4 weights) only.
        writeMorphWeights(std::span<uint8_t>(static_cast<uint8_t*>(d.morph.mapped), sizeof(rs::MorphUniforms)), weights);
      }
    }
  }
  // Pipelines per draw and pass (winding may change with the pose, so look them up per frame; cached).
  std::vector<std::array<VkPipeline, 3>> draw_pipelines(r.draws.size(), {VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE});
  for (size_t i = 0; i < r.draws.size(); ++i) {
    const Renderer::Draw& d = r.draws[i];
    for (Pass pass : {Pass::kShadow, Pass::kDepth, Pass::kColor}) {
      if (pass == Pass::kShadow && !r.options.shadows) continue;
      if (pass == Pass::kDepth && !r.options.depth_prepass) continue;
      if (pass != Pass::kColor && r.materials[d.material].alpha != AlphaMode::kOpaque) continue;
      Expected<VkPipeline> p = pipelineFor(r, d, pass);
      if (!p) return p.error();
      draw_pipelines[i][uint32_t(pass)] = *p;
    }
  }

  // ---- Frame uniforms: camera and light ----
  const RenderCamera& camera = input.camera ? *input.camera : r.camera;
  const float aspect = float(r.options.width) / float(r.options.height);
  rs::FrameUniforms frame{};
  copyMat(frame.view_proj, perspective(camera.yfov, aspect, camera.znear, camera.zfar) * lookAt(camera.eye, camera.target, camera.up));
  const Vec3 light_dir = normalize(Vec3{-0.45f, 1.0f, 0.65f});
  Vec3 center{0, 0, 0};
  float radius = 1.0f;
  if (!r.bounds.empty()) {
    center = (r.bounds.min + r.bounds.max) * 0.5f;
    radius = std::max(length(r.bounds.max - r.bounds.min) * 0.5f, 1e-4f);
  }
  const Mat4 light_view = lookAt(center + light_dir * (radius * 2.0f), center, {0, 1, 0});
  copyMat(frame.light_view_proj, orthographic(radius * 1.05f, radius * 0.5f, radius * 3.5f) * light_view);
  frame.camera_position = {camera.eye.x, camera.eye.y, camera.eye.z, 1};
  frame.light_direction = {light_dir.x, light_dir.y, light_dir.z, 0};
  frame.light_color = {2.4f, 2.3f, 2.2f, 0};
  frame.sky_color = {0.32f, 0.35f, 0.42f, 0};
  frame.ground_color = {0.13f, 0.11f, 0.10f, 0};
  const float shadow_texel = 1.0f / float(r.options.shadows ? r.options.shadow_size : 1);
  frame.shadow_params = {shadow_texel, r.options.shadows ? 1.0f : 0.0f, radius * 2.1f * shadow_texel, 0};
  std::memcpy(r.frame_ubo.mapped, &frame, sizeof frame);

  // ---- Compute path: one dispatch deforms every draw (h3's GpuMorphJob, its own submission) ----
  if (compute && r.batch) {
    local.cpu_ms += msSince(cpu_start);
    GpuMorphJob job;
    job.context = &ctx;
    job.batch = r.batch;
    job.instances = states;
    if (Status s = job.run(); !s) return s.error();
    local.morph_gpu_ms = lastDispatchMicroseconds(*r.batch) / 1000.0;
    cpu_start = Clock::now();
    if (Status s = bindComputeOutputs(r); !s) return s.error();
  }

  // ---- Record and submit the passes ----
  const uint32_t w = r.options.width, h = r.options.height;
  auto drawAll = [&](VkCommandBuffer cmd, Pass pass, uint32_t vw, uint32_t vh) {
    VkViewport viewport{0, 0, float(vw), float(vh), 0, 1};
    VkRect2D scissor{{0, 0}, {vw, vh}};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
    const uint32_t pass_id = uint32_t(pass);
    // Opaque, then masked, then blended (the last two in the color pass only).
    for (AlphaMode order : {AlphaMode::kOpaque, AlphaMode::kMask, AlphaMode::kBlend}) {
      if (pass != Pass::kColor && order != AlphaMode::kOpaque) break;
      for (size_t i = 0; i < r.draws.size(); ++i) {
        const Renderer::Draw& d = r.draws[i];
        const Renderer::MaterialGpu& mat = r.materials[d.material];
        if (mat.alpha != order) continue;
        const Renderer::PrimitiveGpu& prim = r.primitives[d.primitive];
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, draw_pipelines[i][pass_id]);
        if (r.node) {  // the node program's one set; no push constant (each pass has its own vertex module)
          vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.node_program.layout, kNodeMaterialSet, 1, &d.set, 0, nullptr);
        } else {
          VkPipelineLayout layout = r.pipeline_layouts.at(d.layout_bits);
          VkDescriptorSet sets[3] = {r.frame_set, d.set, mat.set};
          vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 3, sets, 0, nullptr);
          vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, 4, &pass_id);
        }
        // The compute path's output buffer is bound directly as the vertex buffer.
        VkBuffer vb = prim.vertices.buffer;
        VkDeviceSize offset = 0;
        if (compute) {
          vb = d.compute_output.buffer;
          offset = d.compute_output.offset;
        }
        vkCmdBindVertexBuffers(cmd, 0, 1, &vb, &offset);
        if (prim.index_count > 0) {
          vkCmdBindIndexBuffer(cmd, prim.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
          vkCmdDrawIndexed(cmd, prim.index_count, 1, 0, 0, 0);
        } else {
          vkCmdDraw(cmd, prim.vertex_count, 1, 0, 0);
        }
      }
    }
  };
  Status submitted = submitAndWait(ctx, [&](VkCommandBuffer cmd) {
    if (r.queries) {
      vkCmdResetQueryPool(cmd, r.queries, 0, 2);
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, r.queries, 0);
    }
    // A depth-only pass (shadow map, depth prepass): clear depth to 1, draw every mesh with `pass`'s pipelines.
    auto depthOnlyPass = [&](VkRenderPass render_pass, VkFramebuffer framebuffer, Pass pass, uint32_t pw, uint32_t ph,
                             bool draw) {
      VkClearValue clear{};
      clear.depthStencil = {1.0f, 0};
      VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
      begin.renderPass = render_pass;
      begin.framebuffer = framebuffer;
      begin.renderArea = {{0, 0}, {pw, ph}};
      begin.clearValueCount = 1;
      begin.pClearValues = &clear;
      vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
      if (draw) drawAll(cmd, pass, pw, ph);
      vkCmdEndRenderPass(cmd);
    };
    // The shadow map is cleared even when shadows are off: the color pass samples it.
    const uint32_t shadow_size = r.options.shadows ? r.options.shadow_size : 1;
    depthOnlyPass(r.shadow_pass, r.shadow_fb, Pass::kShadow, shadow_size, shadow_size, r.options.shadows);
    if (r.options.depth_prepass) depthOnlyPass(r.depth_pass, r.depth_fb, Pass::kDepth, w, h, true);
    {
      VkClearValue clears[2]{};
      std::memcpy(clears[0].color.float32, r.options.background, sizeof(float) * 4);
      clears[1].depthStencil = {1.0f, 0};
      VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
      begin.renderPass = r.color_pass;
      begin.framebuffer = r.color_fb;
      begin.renderArea = {{0, 0}, {w, h}};
      begin.clearValueCount = 2;
      begin.pClearValues = clears;
      vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
      drawAll(cmd, Pass::kColor, w, h);
      vkCmdEndRenderPass(cmd);
    }
    if (input.readback) {
      VkBufferImageCopy region{};
      region.bufferRowLength = r.row_pitch / 4;  // texels per buffer row: the explicit row pitch
      region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
      region.imageExtent = {w, h, 1};
      vkCmdCopyImageToBuffer(cmd, r.color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r.readback.buffer, 1, &region);
    }
    // Transfer → host for the readback; vertex reads → the next frame's compute writes (WAR on the output).
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_VERTEX_INPUT_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, nullptr, 0, nullptr);
    if (r.queries) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r.queries, 1);
    local.cpu_ms += msSince(cpu_start);
  }, "renderFrame");
  if (!submitted) return submitted.error();

  local.gpu_ms = std::nan("");
  if (r.queries) {
    uint64_t ticks[2] = {0, 0};
    VkResult q = vkGetQueryPoolResults(ctx.device, r.queries, 0, 2, sizeof ticks, ticks, sizeof(uint64_t),
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (q == VK_SUCCESS) local.gpu_ms = double(ticks[1] - ticks[0]) * ctx.info.timestamp_period_ns / 1e6;
  }
  RenderedImage image;
  image.width = w;
  image.height = h;
  if (input.readback) {
    image.rgba.resize(size_t(w) * h * 4);
    const auto* src = static_cast<const uint8_t*>(r.readback.mapped);
    for (uint32_t y = 0; y < h; ++y) std::memcpy(&image.rgba[size_t(y) * w * 4], src + size_t(y) * r.row_pitch, size_t(w) * 4);
  }
  local.wall_ms = msSince(wall_start);
  if (stats) *stats = local;
  return image;
}

}  // namespace morphkit
