// SPDX-License-Identifier: MIT
// The helpers of node_material_vk_test.cpp and node_material_draw_test.cpp (one file until it passed 600 lines).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gltf_test_util.h"
#include "morphkit/material/node_material.h"
#include "node_material_vk.h"
#include "render_shared.h"
#include "vk_context.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

using test::VulkanTest;

inline std::filesystem::path sourceDir() {
  return test::sourceDir();
}

// Morph (optionally then skin) with a constant emissive color, no lighting needed.
inline std::string graph(bool skin) {
  std::string s = R"({"name": "vk-test", "blocks": [
    {"id": "m", "type": "MorphTargets"},)";
  if (skin) {
    s += R"({"id": "s", "type": "Skinning", "inputs": {"position": "m.position", "normal": "m.normal"}},
            {"id": "v", "type": "VertexOutput", "inputs": {"worldPosition": "s.worldPosition", "worldNormal": "s.worldNormal"}},)";
  } else {
    s += R"({"id": "v", "type": "VertexOutput", "inputs": {"position": "m.position", "normal": "m.normal"}},)";
  }
  s += R"({"id": "e", "type": "Uniform", "name": "glow", "value": [1.0, 0.5, 0.25]},
    {"id": "out", "type": "PbrOutput", "inputs": {"baseColor": [0, 0, 0, 1], "metallic": 0.0, "emissive": "e"}}]})";
  return s;
}

// A quad in the z = 0.5 plane, x, y in [-0.25, 0.25]; optionally one target moving every vertex by +0.25 in x, and
// one skin set bound to joint 0 with weight 1.
inline PrimitiveData quad(bool target, bool skinned) {
  PrimitiveData p;
  p.mesh = 0;
  p.primitive = 0;
  p.vertex_count = 4;
  p.position = {-0.25f, -0.25f, 0.5f, 0.25f, -0.25f, 0.5f, 0.25f, 0.25f, 0.5f, -0.25f, 0.25f, 0.5f};
  p.indices = {0, 1, 2, 0, 2, 3};
  if (target) {
    MorphTargetData t;
    for (int v = 0; v < 4; ++v) t.position.insert(t.position.end(), {0.25f, 0.0f, 0.0f});
    p.targets.push_back(t);
  }
  if (skinned) {
    p.influences = 4;
    for (int v = 0; v < 4; ++v) {
      p.joints.insert(p.joints.end(), {0, 0, 0, 0});
      p.skin_weights.insert(p.skin_weights.end(), {1, 0, 0, 0});
    }
  }
  return p;
}

// ---- A minimal draw harness: one pipeline per graph, a 64×64 R8G8B8A8 target, readback ----
constexpr uint32_t kSize = 64;

struct Harness {
  VulkanContext& ctx;
  VkRenderPass color_pass = VK_NULL_HANDLE, depth_pass = VK_NULL_HANDLE;
  VkImage color = VK_NULL_HANDLE, shadow = VK_NULL_HANDLE, black = VK_NULL_HANDLE;
  VkDeviceMemory color_memory = VK_NULL_HANDLE, shadow_memory = VK_NULL_HANDLE, black_memory = VK_NULL_HANDLE;
  VkImageView color_view = VK_NULL_HANDLE, shadow_view = VK_NULL_HANDLE;
  VkImageView black_view = VK_NULL_HANDLE;  // 1×1, (0, 0, 0, 0): the environment's maps where no light is wanted
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VkSampler shadow_sampler = VK_NULL_HANDLE, plain_sampler = VK_NULL_HANDLE;
  GpuBuffer readback;

  explicit Harness(VulkanContext& context) : ctx(context) {}
  ~Harness() {
    vkDeviceWaitIdle(ctx.device);
    vkDestroyFramebuffer(ctx.device, framebuffer, nullptr);
    vkDestroyImageView(ctx.device, color_view, nullptr);
    vkDestroyImageView(ctx.device, shadow_view, nullptr);
    vkDestroyImageView(ctx.device, black_view, nullptr);
    vkDestroyImage(ctx.device, color, nullptr);
    vkDestroyImage(ctx.device, shadow, nullptr);
    vkDestroyImage(ctx.device, black, nullptr);
    vkFreeMemory(ctx.device, color_memory, nullptr);
    vkFreeMemory(ctx.device, shadow_memory, nullptr);
    vkFreeMemory(ctx.device, black_memory, nullptr);
    vkDestroySampler(ctx.device, shadow_sampler, nullptr);
    vkDestroySampler(ctx.device, plain_sampler, nullptr);
    vkDestroyRenderPass(ctx.device, color_pass, nullptr);
    vkDestroyRenderPass(ctx.device, depth_pass, nullptr);
    destroyBuffer(ctx, readback);
  }

  bool image(VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect, uint32_t size, VkImage& out,
             VkDeviceMemory& memory, VkImageView& view) {
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = format;
    info.extent = {size, size, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = usage;
    if (vkCreateImage(ctx.device, &info, nullptr, &out) != VK_SUCCESS) return false;
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(ctx.device, out, &req);
    Expected<uint32_t> type = findMemoryType(ctx, req.memoryTypeBits, MemoryUse::kDevice);
    if (!type) return false;
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = *type;
    if (vkAllocateMemory(ctx.device, &alloc, nullptr, &memory) != VK_SUCCESS) return false;
    vkBindImageMemory(ctx.device, out, memory, 0);
    VkImageViewCreateInfo v{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    v.image = out;
    v.viewType = VK_IMAGE_VIEW_TYPE_2D;
    v.format = format;
    v.subresourceRange = {aspect, 0, 1, 0, 1};
    return vkCreateImageView(ctx.device, &v, nullptr, &view) == VK_SUCCESS;
  }

  bool init() {
    VkAttachmentDescription color_attachment{};
    color_attachment.format = VK_FORMAT_R8G8B8A8_UNORM;
    color_attachment.samples = VK_SAMPLE_COUNT_1_BIT;
    color_attachment.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    color_attachment.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    color_attachment.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    color_attachment.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    color_attachment.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    color_attachment.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &ref;
    // The final layout transition happens before the copy that reads the image.
    VkSubpassDependency after{0,
                              VK_SUBPASS_EXTERNAL,
                              VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                              VK_PIPELINE_STAGE_TRANSFER_BIT,
                              VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                              VK_ACCESS_TRANSFER_READ_BIT,
                              0};
    VkRenderPassCreateInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    rp.attachmentCount = 1;
    rp.pAttachments = &color_attachment;
    rp.subpassCount = 1;
    rp.pSubpasses = &subpass;
    rp.dependencyCount = 1;
    rp.pDependencies = &after;
    if (vkCreateRenderPass(ctx.device, &rp, nullptr, &color_pass) != VK_SUCCESS) return false;
    rp.dependencyCount = 0;
    VkAttachmentDescription depth_attachment = color_attachment;
    depth_attachment.format = VK_FORMAT_D32_SFLOAT;
    depth_attachment.finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    VkAttachmentReference depth_ref{0, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription depth_subpass{};
    depth_subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    depth_subpass.pDepthStencilAttachment = &depth_ref;
    rp.pAttachments = &depth_attachment;
    rp.pSubpasses = &depth_subpass;
    if (vkCreateRenderPass(ctx.device, &rp, nullptr, &depth_pass) != VK_SUCCESS) return false;
    if (!image(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
               VK_IMAGE_ASPECT_COLOR_BIT, kSize, color, color_memory, color_view)) {
      return false;
    }
    if (!image(VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
               VK_IMAGE_ASPECT_DEPTH_BIT, 1, shadow, shadow_memory, shadow_view) ||
        !image(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
               VK_IMAGE_ASPECT_COLOR_BIT, 1, black, black_memory, black_view)) {
      return false;
    }
    VkFramebufferCreateInfo fb{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fb.renderPass = color_pass;
    fb.attachmentCount = 1;
    fb.pAttachments = &color_view;
    fb.width = kSize;
    fb.height = kSize;
    fb.layers = 1;
    if (vkCreateFramebuffer(ctx.device, &fb, nullptr, &framebuffer) != VK_SUCCESS) return false;
    VkSamplerCreateInfo s{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    s.magFilter = VK_FILTER_NEAREST;
    s.minFilter = VK_FILTER_NEAREST;
    s.addressModeU = s.addressModeV = s.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    s.compareEnable = VK_TRUE;
    s.compareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
    if (vkCreateSampler(ctx.device, &s, nullptr, &shadow_sampler) != VK_SUCCESS) return false;
    s.compareEnable = VK_FALSE;
    if (vkCreateSampler(ctx.device, &s, nullptr, &plain_sampler) != VK_SUCCESS) return false;
    Expected<GpuBuffer> rb = createBuffer(ctx, kSize * kSize * 4, MemoryUse::kReadback);
    if (!rb) return false;
    readback = *rb;
    // The shadow map cleared to 1 and the black image to 0, both left in SHADER_READ_ONLY_OPTIMAL for sampling.
    return bool(submitAndWait(
        ctx,
        [&](VkCommandBuffer cmd) {
          VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
          b.srcAccessMask = 0;
          b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
          b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
          b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
          b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
          b.image = shadow;
          b.subresourceRange = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1};
          VkImageMemoryBarrier c = b;
          c.image = black;
          c.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
          VkImageMemoryBarrier to_transfer[2] = {b, c};
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                               nullptr, 2, to_transfer);
          VkClearDepthStencilValue one{1.0f, 0};
          vkCmdClearDepthStencilImage(cmd, shadow, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &one, 1, &b.subresourceRange);
          VkClearColorValue zero{};
          vkCmdClearColorImage(cmd, black, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &c.subresourceRange);
          for (VkImageMemoryBarrier* barrier : {&b, &c}) {
            barrier->srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
            barrier->dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
            barrier->oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
            barrier->newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
          }
          VkImageMemoryBarrier to_read[2] = {b, c};
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0,
                               nullptr, 0, nullptr, 2, to_read);
        },
        "harness init"));
  }
};

// The three pipelines of one node material, on the program objects of createNodeVkProgram.
struct NodePipelines {
  VulkanContext& ctx;
  NodeVkProgram program;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipelines[kNodePipelineCount] = {};
  explicit NodePipelines(VulkanContext& context) : ctx(context) {}
  ~NodePipelines() {
    for (VkPipeline p : pipelines) vkDestroyPipeline(ctx.device, p, nullptr);
    destroyNodeVkProgram(ctx, program);
  }
  bool build(const NodeMaterialPrograms& programs, const Harness& h) {
    Expected<NodeVkProgram> created = createNodeVkProgram(ctx, programs);
    if (!created) return false;
    program = *created;
    set_layout = program.set_layout;
    layout = program.layout;
    // Vertex input as the renderer's: positions at binding 0; absent attributes read POSITION (features say so).
    VkVertexInputBindingDescription vb{0, 12, VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription attrs[5] = {{0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
                                                  {1, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
                                                  {2, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
                                                  {3, 0, VK_FORMAT_R32G32_SFLOAT, 0},
                                                  {4, 0, VK_FORMAT_R32G32_SFLOAT, 0}};
    VkPipelineVertexInputStateCreateInfo input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    input.vertexBindingDescriptionCount = 1;
    input.pVertexBindingDescriptions = &vb;
    input.vertexAttributeDescriptionCount = 5;
    input.pVertexAttributeDescriptions = attrs;
    VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkViewport viewport{0, 0, float(kSize), float(kSize), 0, 1};
    VkRect2D scissor{{0, 0}, {kSize, kSize}};
    VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vp.viewportCount = 1;
    vp.pViewports = &viewport;
    vp.scissorCount = 1;
    vp.pScissors = &scissor;
    VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = VK_CULL_MODE_NONE;
    raster.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineDepthStencilStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    VkPipelineColorBlendAttachmentState blend{};
    blend.colorWriteMask = 0xF;
    VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    for (NodePipeline p : {NodePipeline::kDepth, NodePipeline::kShadow, NodePipeline::kColor}) {
      VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                                   {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
      stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
      stages[0].module = program.vertex[size_t(p)];
      stages[0].pName = "main";
      const bool color = p == NodePipeline::kColor;
      if (color) {
        stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
        stages[1].module = program.fragment;
        stages[1].pName = "main";
      }
      ds.depthTestEnable = color ? VK_FALSE : VK_TRUE;
      ds.depthWriteEnable = color ? VK_FALSE : VK_TRUE;
      ds.depthCompareOp = VK_COMPARE_OP_LESS;
      cb.attachmentCount = color ? 1 : 0;
      cb.pAttachments = &blend;
      VkGraphicsPipelineCreateInfo gp{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
      gp.stageCount = color ? 2 : 1;
      gp.pStages = stages;
      gp.pVertexInputState = &input;
      gp.pInputAssemblyState = &assembly;
      gp.pViewportState = &vp;
      gp.pRasterizationState = &raster;
      gp.pMultisampleState = &ms;
      gp.pDepthStencilState = &ds;
      gp.pColorBlendState = &cb;
      gp.layout = layout;
      gp.renderPass = color ? h.color_pass : h.depth_pass;
      if (vkCreateGraphicsPipelines(ctx.device, VK_NULL_HANDLE, 1, &gp, nullptr, &pipelines[size_t(p)]) != VK_SUCCESS)
        return false;
    }
    return true;
  }
};

struct Coverage {
  uint32_t min_x = kSize, max_x = 0, min_y = kSize, max_y = 0, pixels = 0;
  uint8_t rgba[4] = {0, 0, 0, 0};  // of the last covered pixel
};

// Draws `primitive` with `material` (node block, frame, fallback or own morph buffers, skin) and returns the
// covered pixels. view_proj is the identity: world x, y are NDC.
inline Expected<Coverage> drawQuad(VulkanContext& ctx, Harness& h, NodeMaterialDevice& device,
                                   const NodeMaterial& material, const PrimitiveData& primitive,
                                   std::span<const float> weights, const float joint[16]) {
  Expected<NodeMaterialPrograms> programs = compileNodeMaterial(material);
  if (!programs) return programs.error();
  NodePipelines pipelines(ctx);
  if (!pipelines.build(*programs, h)) return fail(Error::kVulkan, "pipelines");
  Expected<NodeDrawResources*> draw = createNodeDrawResources(device, material, primitive, weights);
  if (!draw) return draw.error();
  std::vector<GpuBuffer> buffers;
  auto make = [&](VkDeviceSize size, VkBufferUsageFlags usage, const void* data) -> GpuBuffer {
    Expected<GpuBuffer> b = createBuffer(ctx, size, MemoryUse::kUpload, usage);
    if (!b) return {};
    std::memcpy(b->mapped, data, size);
    buffers.push_back(*b);
    return *b;
  };
  std::vector<uint8_t> node(material.uniform_block_bytes, 0);
  NodeObjectHeader header{};
  const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  std::memcpy(header.model, identity, 64);
  std::memcpy(header.normal_matrix, identity, 64);
  header.skin_sets = primitive.influences / 4;
  std::memcpy(node.data(), &header, sizeof header);
  for (const NodeUniformInfo& u : material.uniforms) std::memcpy(node.data() + u.offset, u.value.data(), 16);
  const GpuBuffer node_ubo = make(node.size(), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, node.data());
  render::FrameUniforms frame{};
  std::memcpy(frame.view_proj.m, identity, 64);
  std::memcpy(frame.light_view_proj.m, identity, 64);  // shadow_params.y = 0: no shadow lookups
  // No light (key light and environment 0), exposure 1 and no tone curve: the graph's emissive colour as it is.
  frame.tone = {1.0f, float(MSH_TONE_NONE), 0.0f, 0.0f};
  const GpuBuffer frame_ubo = make(sizeof frame, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &frame);
  const GpuBuffer vertices =
      make(primitive.position.size() * 4, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, primitive.position.data());
  const GpuBuffer indices =
      make(primitive.indices.size() * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, primitive.indices.data());
  GpuBuffer skin_stream, joints;
  if (primitive.influences > 0) {
    std::vector<uint32_t> words;
    for (uint32_t v = 0; v < primitive.vertex_count; ++v) {
      for (uint32_t i = 0; i < 4; ++i) words.push_back(primitive.joints[v * 4 + i]);
      for (uint32_t i = 0; i < 4; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &primitive.skin_weights[v * 4 + i], 4);
        words.push_back(bits);
      }
    }
    skin_stream = make(words.size() * 4, 0, words.data());
    joints = make(64, 0, joint);
  }

  VkDescriptorPoolSize sizes[3] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2},
                                   {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4},
                                   {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 8}};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 3;
  pool_info.pPoolSizes = sizes;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  vkCreateDescriptorPool(ctx.device, &pool_info, nullptr, &pool);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &pipelines.set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  vkAllocateDescriptorSets(ctx.device, &alloc, &set);
  // The binding list says what goes where.
  std::vector<VkDescriptorBufferInfo> infos;
  infos.reserve(16);
  VkDescriptorImageInfo shadow_info{h.shadow_sampler, h.shadow_view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  VkDescriptorImageInfo black_info{h.plain_sampler, h.black_view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  std::vector<VkWriteDescriptorSet> writes;
  for (const NodeBinding& b : programs->glsl.bindings) {
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.dstBinding = b.binding;
    w.descriptorCount = 1;
    w.descriptorType = nodeDescriptorType(b.kind);
    if (b.name == "NodeUniforms") {
      infos.push_back({node_ubo.buffer, 0, VK_WHOLE_SIZE});
    } else if (b.name == "FrameBlock") {
      infos.push_back({frame_ubo.buffer, 0, VK_WHOLE_SIZE});
    } else if (b.name == "nodeShadowMap") {
      w.pImageInfo = &shadow_info;
    } else if (b.name == "nodeEnvironmentMap" || b.name == "nodeBrdfTable") {
      w.pImageInfo = &black_info;
    } else if (b.name == "NodeSkinStream" && skin_stream.buffer) {
      infos.push_back({skin_stream.buffer, 0, VK_WHOLE_SIZE});
    } else if (b.name == "NodeJointMatrices" && joints.buffer) {
      infos.push_back({joints.buffer, 0, VK_WHOLE_SIZE});
    } else {
      bool found = false;
      for (const NodeDrawBuffer& d : (*draw)->buffers) {
        if (d.binding == b.name) {
          infos.push_back({d.buffer, d.offset, d.range});
          found = true;
        }
      }
      if (!found) return fail(Error::kInvalidArgument, "nothing to bind at " + b.name);
    }
    if (!w.pImageInfo) w.pBufferInfo = &infos.back();
    writes.push_back(w);
  }
  vkUpdateDescriptorSets(ctx.device, uint32_t(writes.size()), writes.data(), 0, nullptr);

  Status drawn = submitAndWait(
      ctx,
      [&](VkCommandBuffer cmd) {
        VkClearValue clear{};
        VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
        begin.renderPass = h.color_pass;
        begin.framebuffer = h.framebuffer;
        begin.renderArea = {{0, 0}, {kSize, kSize}};
        begin.clearValueCount = 1;
        begin.pClearValues = &clear;
        vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipelines.pipelines[size_t(NodePipeline::kColor)]);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipelines.layout, kNodeMaterialSet, 1, &set, 0,
                                nullptr);
        VkDeviceSize offset = 0;
        vkCmdBindVertexBuffers(cmd, 0, 1, &vertices.buffer, &offset);
        vkCmdBindIndexBuffer(cmd, indices.buffer, 0, VK_INDEX_TYPE_UINT32);
        vkCmdDrawIndexed(cmd, uint32_t(primitive.indices.size()), 1, 0, 0, 0);
        vkCmdEndRenderPass(cmd);
        VkBufferImageCopy copy{};
        copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        copy.imageExtent = {kSize, kSize, 1};
        vkCmdCopyImageToBuffer(cmd, h.color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, h.readback.buffer, 1, &copy);
        VkMemoryBarrier host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, nullptr,
                             0, nullptr);
      },
      "node draw");
  Coverage c;
  const auto* px = static_cast<const uint8_t*>(h.readback.mapped);
  for (uint32_t y = 0; y < kSize; ++y) {
    for (uint32_t x = 0; x < kSize; ++x) {
      const uint8_t* p = px + (y * kSize + x) * 4;
      if (p[0] == 0 && p[1] == 0 && p[2] == 0) continue;
      ++c.pixels;
      c.min_x = std::min(c.min_x, x), c.max_x = std::max(c.max_x, x);
      c.min_y = std::min(c.min_y, y), c.max_y = std::max(c.max_y, y);
      std::memcpy(c.rgba, p, 4);
    }
  }
  vkDestroyDescriptorPool(ctx.device, pool, nullptr);
  for (GpuBuffer& b : buffers) destroyBuffer(ctx, b);
  destroyNodeDrawResources(device, *draw);
  if (!drawn) return drawn.error();
  return c;
}

// A descriptor pool and the writes of the draws' sets, flushed in one vkUpdateDescriptorSets.
struct DescriptorWriter {
  VulkanContext& ctx;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  std::vector<VkDescriptorBufferInfo> buffer_infos;
  std::vector<VkDescriptorImageInfo> image_infos;
  std::vector<VkWriteDescriptorSet> writes;

  explicit DescriptorWriter(VulkanContext& c) : ctx(c) {
    buffer_infos.reserve(64);  // the writes point into these: never reallocated
    image_infos.reserve(64);
    VkDescriptorPoolSize sizes[3] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 8},
                                     {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 40},
                                     {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2}};
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool_info.maxSets = 4;
    pool_info.poolSizeCount = 3;
    pool_info.pPoolSizes = sizes;
    EXPECT_EQ(vkCreateDescriptorPool(ctx.device, &pool_info, nullptr, &pool), VK_SUCCESS);
  }
  ~DescriptorWriter() { vkDestroyDescriptorPool(ctx.device, pool, nullptr); }
  VkDescriptorSet allocate(VkDescriptorSetLayout layout) {
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateDescriptorSets(ctx.device, &alloc, &set), VK_SUCCESS);
    return set;
  }
  void buffer(VkDescriptorSet set, uint32_t binding, const GpuBuffer& b) {
    buffer_infos.push_back({b.buffer, 0, VK_WHOLE_SIZE});
    writes.push_back({VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, binding, 0, 1,
                      VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, nullptr, &buffer_infos.back(), nullptr});
  }
  void image(VkDescriptorSet set, uint32_t binding, VkSampler s, VkImageView view) {
    image_infos.push_back({s, view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL});
    writes.push_back({VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, binding, 0, 1,
                      VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &image_infos.back(), nullptr, nullptr});
  }
  void flush() { vkUpdateDescriptorSets(ctx.device, uint32_t(writes.size()), writes.data(), 0, nullptr); }
};

// The renderer's three set layouts (frame, mesh, material) as mesh.vert and pbr.frag declare them.
inline bool builtinSetLayouts(VulkanContext& ctx, VkDescriptorSetLayout (&set_layouts)[3]) {
  const VkDescriptorSetLayoutBinding frame_b[4] = {
      {MSH_BINDING_FRAME, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1,
       VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
      {MSH_BINDING_SHADOW_MAP, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
      {MSH_BINDING_ENVIRONMENT, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
      {MSH_BINDING_BRDF_TABLE, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr}};
  const VkDescriptorSetLayoutBinding mesh_b[1] = {
      {MSH_BINDING_OBJECT, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, nullptr}};
  VkDescriptorSetLayoutBinding material_b[1 + MAT_TEXTURE_COUNT];
  material_b[0] = {MSH_BINDING_MATERIAL, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
  for (uint32_t i = 1; i <= MAT_TEXTURE_COUNT; ++i)
    material_b[i] = {i, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
  const std::pair<const VkDescriptorSetLayoutBinding*, uint32_t> lists[3] = {
      {frame_b, 4}, {mesh_b, 1}, {material_b, 1 + MAT_TEXTURE_COUNT}};
  for (int i = 0; i < 3; ++i) {
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = lists[i].second;
    info.pBindings = lists[i].first;
    if (vkCreateDescriptorSetLayout(ctx.device, &info, nullptr, &set_layouts[i]) != VK_SUCCESS) return false;
  }
  return true;
}

}  // namespace
}  // namespace morphkit
