// SPDX-License-Identifier: MIT
// Node materials on Vulkan: the morph feature's shared zero-target fallback (one allocation per device, however
// many meshes), per-mesh morph buffers, pipelines built from the generated SPIR-V and binding list with the
// validation layer on, and draws that check numerically that morph runs before skinning and that the fallback
// reads no delta.
#include "node_material_vk.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gltf_test_util.h"
#include "morphkit/node_material.h"
#include "render_shared.h"
#include "vk_context.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

using test::VulkanTest;

std::filesystem::path sourceDir() {
  return test::sourceDir();
}

// Morph (optionally then skin) with a constant emissive color, no lighting needed.
std::string graph(bool skin) {
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
PrimitiveData quad(bool target, bool skinned) {
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

TEST_F(VulkanTest, NodeMorphFallbackIsOneAllocationPerDeviceAcrossManyMeshes) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<NodeMaterial> material = parseNodeMaterial(graph(false));
  ASSERT_TRUE(material) << material.error().message;
  const uint64_t total_before = nodeFallbackAllocationsTotal();
  const PrimitiveData plain = quad(false, false);

  Expected<NodeMaterialDevice*> device_a = createNodeMaterialDevice(*context_);
  ASSERT_TRUE(device_a);
  EXPECT_EQ(nodeFallbackStats(**device_a, "morph").allocations, 0u);  // nothing until a draw needs it
  std::vector<NodeDrawResources*> draws_a;
  for (int i = 0; i < 64; ++i) {
    Expected<NodeDrawResources*> r = createNodeDrawResources(**device_a, *material, plain, {});
    ASSERT_TRUE(r) << r.error().message;
    draws_a.push_back(*r);
    const NodeDrawInfo info = nodeDrawInfo(**r);
    EXPECT_TRUE(info.morph);
    EXPECT_TRUE(info.morph_fallback);
    EXPECT_EQ(info.buffers_owned, 0u);
    ASSERT_EQ((*r)->buffers.size(), 2u);
    EXPECT_EQ((*r)->buffers[0].binding, "NodeMorphDeltas");
    EXPECT_EQ((*r)->buffers[1].binding, "NodeMorphWeights");
    EXPECT_EQ((*r)->buffers[0].buffer, (*r)->buffers[1].buffer);        // one buffer for both bindings
    EXPECT_EQ((*r)->buffers[0].buffer, draws_a[0]->buffers[0].buffer);  // and for every mesh
    EXPECT_EQ((*r)->buffers[0].range, 24u);
  }
  NodeFallbackStats a = nodeFallbackStats(**device_a, "morph");
  EXPECT_EQ(a.allocations, 1u);
  EXPECT_EQ(a.users, 64u);
  EXPECT_EQ(a.bytes, 24u);
  EXPECT_EQ(nodeFallbackStats(**device_a, "skin").allocations, 0u);
  // Its bytes on the device: count 0, vertexCount 1, rest 0.
  uint8_t bytes[24];
  std::memset(bytes, 0xCD, sizeof bytes);
  ASSERT_TRUE(downloadFromBuffer(*context_, (*device_a)->fallbacks.front().buffer, 0, bytes, sizeof bytes));
  const std::array<uint8_t, 24> expected = nodeMorphFallbackBytes();
  EXPECT_EQ(std::memcmp(bytes, expected.data(), 24), 0);

  // A second device (its own VulkanContext) gets its own single allocation.
  GpuContextOptions options;
  options.validation = true;
  Expected<VulkanContext*> second = createVulkanContext(options);
  ASSERT_TRUE(second) << second.error().message;
  Expected<NodeMaterialDevice*> device_b = createNodeMaterialDevice(**second);
  ASSERT_TRUE(device_b);
  std::vector<NodeDrawResources*> draws_b;
  for (int i = 0; i < 16; ++i) {
    Expected<NodeDrawResources*> r = createNodeDrawResources(**device_b, *material, plain, {});
    ASSERT_TRUE(r) << r.error().message;
    draws_b.push_back(*r);
  }
  EXPECT_EQ(nodeFallbackStats(**device_b, "morph").allocations, 1u);
  EXPECT_EQ(nodeFallbackStats(**device_b, "morph").users, 16u);
  EXPECT_EQ(nodeFallbackStats(**device_a, "morph").allocations, 1u);
  EXPECT_EQ(nodeFallbackAllocationsTotal(), total_before + 2);

  // Releasing every user keeps the one buffer until the device goes.
  for (NodeDrawResources* r : draws_a) destroyNodeDrawResources(**device_a, r);
  a = nodeFallbackStats(**device_a, "morph");
  EXPECT_EQ(a.users, 0u);
  EXPECT_EQ(a.allocations, 1u);
  Expected<NodeDrawResources*> again = createNodeDrawResources(**device_a, *material, plain, {});
  ASSERT_TRUE(again);
  EXPECT_EQ(nodeFallbackAllocationsTotal(), total_before + 2);
  destroyNodeDrawResources(**device_a, *again);

  for (NodeDrawResources* r : draws_b) destroyNodeDrawResources(**device_b, r);
  destroyNodeMaterialDevice(*device_b);
  std::vector<std::string> messages;
  destroyVulkanContext(*second, &messages);
  EXPECT_TRUE(messages.empty()) << test::joinLines(messages);
  destroyNodeMaterialDevice(*device_a);
}

TEST_F(VulkanTest, NodeStaticGraphAllocatesNothingForMorph) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<NodeMaterial> material = loadNodeMaterial((sourceDir() / "examples" / "static_pbr.json").string());
  ASSERT_TRUE(material) << material.error().message;
  const uint64_t total_before = nodeFallbackAllocationsTotal();
  Expected<NodeMaterialDevice*> device = createNodeMaterialDevice(*context_);
  ASSERT_TRUE(device);
  for (bool target : {false, true}) {
    Expected<NodeDrawResources*> r = createNodeDrawResources(**device, *material, quad(target, false), {});
    ASSERT_TRUE(r);
    const NodeDrawInfo info = nodeDrawInfo(**r);
    EXPECT_FALSE(info.morph);
    EXPECT_FALSE(info.morph_fallback);
    EXPECT_EQ(info.buffers_owned, 0u);
    EXPECT_TRUE((*r)->buffers.empty());
    destroyNodeDrawResources(**device, *r);
  }
  EXPECT_EQ(nodeFallbackStats(**device, "morph").allocations, 0u);
  EXPECT_EQ(nodeFallbackAllocationsTotal(), total_before);
  destroyNodeMaterialDevice(*device);
}

TEST_F(VulkanTest, NodeMeshWithTargetsOwnsItsMorphBuffers) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<NodeMaterial> material = parseNodeMaterial(graph(false));
  ASSERT_TRUE(material);
  Expected<NodeMaterialDevice*> device = createNodeMaterialDevice(*context_);
  ASSERT_TRUE(device);
  const PrimitiveData p = quad(true, false);
  const float w[] = {0.75f};
  Expected<NodeDrawResources*> r = createNodeDrawResources(**device, *material, p, w);
  ASSERT_TRUE(r) << r.error().message;
  const NodeDrawInfo info = nodeDrawInfo(**r);
  EXPECT_TRUE(info.morph);
  EXPECT_FALSE(info.morph_fallback);
  EXPECT_EQ(info.morph_targets, 1u);
  EXPECT_EQ(info.buffers_owned, 2u);
  EXPECT_EQ(nodeFallbackStats(**device, "morph").allocations, 0u);
  const std::vector<uint8_t> expected = packNodeMorphDeltas(p);
  std::vector<uint8_t> back(expected.size(), 0xCD);
  ASSERT_TRUE(downloadFromBuffer(*context_, (*r)->morph_deltas, 0, back.data(), back.size()));
  EXPECT_EQ(back, expected);
  const float w2[] = {-0.5f};
  ASSERT_TRUE(updateNodeDrawWeights(**r, w2));
  float stored = 0;
  std::memcpy(&stored, static_cast<uint8_t*>((*r)->morph_weights.mapped) + 24, 4);
  EXPECT_EQ(stored, -0.5f);
  destroyNodeDrawResources(**device, *r);
  destroyNodeMaterialDevice(*device);
}

// ---- A minimal draw harness: one pipeline per graph, a 64×64 R8G8B8A8 target, readback ----
constexpr uint32_t kSize = 64;

struct Harness {
  VulkanContext& ctx;
  VkRenderPass color_pass = VK_NULL_HANDLE, depth_pass = VK_NULL_HANDLE;
  VkImage color = VK_NULL_HANDLE, shadow = VK_NULL_HANDLE;
  VkDeviceMemory color_memory = VK_NULL_HANDLE, shadow_memory = VK_NULL_HANDLE;
  VkImageView color_view = VK_NULL_HANDLE, shadow_view = VK_NULL_HANDLE;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VkSampler shadow_sampler = VK_NULL_HANDLE;
  GpuBuffer readback;

  explicit Harness(VulkanContext& context) : ctx(context) {}
  ~Harness() {
    vkDeviceWaitIdle(ctx.device);
    vkDestroyFramebuffer(ctx.device, framebuffer, nullptr);
    vkDestroyImageView(ctx.device, color_view, nullptr);
    vkDestroyImageView(ctx.device, shadow_view, nullptr);
    vkDestroyImage(ctx.device, color, nullptr);
    vkDestroyImage(ctx.device, shadow, nullptr);
    vkFreeMemory(ctx.device, color_memory, nullptr);
    vkFreeMemory(ctx.device, shadow_memory, nullptr);
    vkDestroySampler(ctx.device, shadow_sampler, nullptr);
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
               VK_IMAGE_ASPECT_DEPTH_BIT, 1, shadow, shadow_memory, shadow_view)) {
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
    Expected<GpuBuffer> rb = createBuffer(ctx, kSize * kSize * 4, MemoryUse::kReadback);
    if (!rb) return false;
    readback = *rb;
    // The shadow map: cleared to 1 and left in SHADER_READ_ONLY_OPTIMAL for the shadow binding.
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
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                               nullptr, 1, &b);
          VkClearDepthStencilValue one{1.0f, 0};
          vkCmdClearDepthStencilImage(cmd, shadow, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &one, 1, &b.subresourceRange);
          b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
          b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
          b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
          b.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0,
                               nullptr, 0, nullptr, 1, &b);
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

TEST_F(VulkanTest, NodePipelinesBuildForEveryExampleWithValidationClean) {
  MORPHKIT_REQUIRE_GPU(context_);
  if (!context_->queue_has_graphics) {
    if (test::runningInCi()) FAIL() << "the device's queue cannot do graphics";
    GTEST_SKIP() << "no graphics queue (CI=true fails above)";
  }
  Harness h(*context_);
  ASSERT_TRUE(h.init());
  ParseNodeMaterialOptions options;
  // examples/custom_rim.json's blocks, minimal versions (tests/node_material_test.cpp has the full ones).
  struct Legacy final : NodeBlockEmitter {
    std::vector<NodePortDecl> inputs() const override {
      return {{"position", NodeValueType::kVec3, true, {}, "nodePosition"},
              {"normal", NodeValueType::kVec3, true, {}, "nodeNormal"}};
    }
    std::vector<NodePortDecl> outputs() const override {
      return {{"position", NodeValueType::kVec3}, {"normal", NodeValueType::kVec3}};
    }
    Status declare(NodeBuildState& state, const NodeBlock&) const override {
      state.uses_morph_targets = true;
      return Ok{};
    }
    Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string&) const override {
      return std::vector<std::string>{c.inputs[0] + " + nodeMorphDeltaPosition",
                                      c.inputs[1] + " + nodeMorphDeltaNormal"};
    }
  };
  struct Rim final : NodeBlockEmitter {
    std::vector<NodePortDecl> inputs() const override {
      return {{"normal", NodeValueType::kVec3}, {"view", NodeValueType::kVec3}, {"power", NodeValueType::kFloat}};
    }
    std::vector<NodePortDecl> outputs() const override { return {{"value", NodeValueType::kFloat}}; }
    Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string&) const override {
      return std::vector<std::string>{"pow(1.0 - abs(dot(" + c.inputs[0] + ", " + c.inputs[1] + ")), " + c.inputs[2] +
                                      ")"};
    }
  };
  options.block_loader = [](std::string_view type) -> std::shared_ptr<const NodeBlockEmitter> {
    if (type == "LegacyMorph") return std::make_shared<Legacy>();
    if (type == "Rim") return std::make_shared<Rim>();
    return nullptr;
  };
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(sourceDir() / "examples")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    ++count;
    Expected<NodeMaterial> m = loadNodeMaterial(entry.path().string(), options);
    ASSERT_TRUE(m) << m.error().message;
    Expected<NodeMaterialPrograms> programs = compileNodeMaterial(*m);
    ASSERT_TRUE(programs) << programs.error().message;
    NodePipelines pipelines(*context_);
    EXPECT_TRUE(pipelines.build(*programs, h));
    const std::vector<std::string> messages = gpuValidationMessages(*context_);
    EXPECT_TRUE(messages.empty()) << test::joinLines(messages);
  }
  EXPECT_GE(count, 3);
}

struct Coverage {
  uint32_t min_x = kSize, max_x = 0, min_y = kSize, max_y = 0, pixels = 0;
  uint8_t rgba[4] = {0, 0, 0, 0};  // of the last covered pixel
};

// Draws `primitive` with `material` (node block, frame, fallback or own morph buffers, skin) and returns the
// covered pixels. view_proj is the identity: world x, y are NDC.
Expected<Coverage> drawQuad(VulkanContext& ctx, Harness& h, NodeMaterialDevice& device, const NodeMaterial& material,
                            const PrimitiveData& primitive, std::span<const float> weights, const float joint[16]) {
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
  float frame[56] = {};
  std::memcpy(frame, identity, 64);       // view_proj
  std::memcpy(frame + 16, identity, 64);  // light_view_proj; shadow_params.y = 0: no shadow lookups
  const GpuBuffer frame_ubo = make(sizeof frame, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, frame);
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

TEST_F(VulkanTest, NodeDrawMorphsBeforeSkinningAndTheFallbackReadsNoDelta) {
  MORPHKIT_REQUIRE_GPU(context_);
  if (!context_->queue_has_graphics) {
    if (test::runningInCi()) FAIL() << "the device's queue cannot do graphics";
    GTEST_SKIP() << "no graphics queue (CI=true fails above)";
  }
  Harness h(*context_);
  ASSERT_TRUE(h.init());
  Expected<NodeMaterialDevice*> device = createNodeMaterialDevice(*context_);
  ASSERT_TRUE(device);
  Expected<NodeMaterial> morph_skin = parseNodeMaterial(graph(true));
  Expected<NodeMaterial> morph_only = parseNodeMaterial(graph(false));
  ASSERT_TRUE(morph_skin && morph_only);
  // Joint 0 scales x and y by 2 (column-major).
  const float scale2[16] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  const float one[] = {1.0f};

  // Morph (+0.25 x) then skin (×2): x in [0, 1] → columns 32..63; y in [-0.5, 0.5] → rows 16..47.
  // (Skin then morph would give x in [-0.25, 0.75] → columns 24..55.)
  Expected<Coverage> c = drawQuad(*context_, h, **device, *morph_skin, quad(true, true), one, scale2);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->min_x, 32u);
  EXPECT_EQ(c->max_x, 63u);
  EXPECT_EQ(c->min_y, 16u);
  EXPECT_EQ(c->max_y, 47u);
  EXPECT_EQ(c->pixels, 32u * 32u);
  // emissive (1, 0.5, 0.25), black base, no light: the emissive color. 0.5 × 255 = 127.5 lies on a rounding tie,
  // which Vulkan lets the device break either way (lavapipe 128; the H200's driver fails an exact 128), so ±1 there.
  EXPECT_EQ(c->rgba[0], 255);
  EXPECT_NEAR(c->rgba[1], 128, 1);
  EXPECT_EQ(c->rgba[2], 64);

  // Half weight: x in [2·(-0.25 + 0.125), 2·(0.25 + 0.125)] = [-0.25, 0.75] → columns 24..55.
  const float half[] = {0.5f};
  c = drawQuad(*context_, h, **device, *morph_skin, quad(true, true), half, scale2);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->min_x, 24u);
  EXPECT_EQ(c->max_x, 55u);

  // No morph data: the shared fallback (count 0) — skinned only: x in [-0.5, 0.5] → columns 16..47.
  c = drawQuad(*context_, h, **device, *morph_skin, quad(false, true), {}, scale2);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->min_x, 16u);
  EXPECT_EQ(c->max_x, 47u);
  EXPECT_EQ(c->min_y, 16u);
  EXPECT_EQ(c->max_y, 47u);
  EXPECT_EQ(nodeFallbackStats(**device, "morph").allocations, 1u);

  // Morph only, unskinned through the skin-less graph, and the fallback with neither: x in [-0.25, 0.25].
  c = drawQuad(*context_, h, **device, *morph_only, quad(true, false), one, scale2);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->min_x, 32u);  // [-0.25 + 0.25, 0.25 + 0.25] = [0, 0.5] → columns 32..47
  EXPECT_EQ(c->max_x, 47u);
  c = drawQuad(*context_, h, **device, *morph_only, quad(false, false), {}, scale2);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->min_x, 24u);  // [-0.25, 0.25] → columns 24..39
  EXPECT_EQ(c->max_x, 39u);
  EXPECT_EQ(nodeFallbackStats(**device, "morph").allocations, 1u);
  destroyNodeMaterialDevice(*device);
}

// ---- The static PBR node graph against the renderer's built-in shaders (shaders/render/mesh.vert + pbr.frag) ----
struct TestImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
};

bool uploadImage(VulkanContext& ctx, Harness& h, VkFormat format, uint32_t w, const std::vector<uint8_t>& rgba,
                 TestImage& out) {
  if (!h.image(format, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_IMAGE_ASPECT_COLOR_BIT, w,
               out.image, out.memory, out.view)) {
    return false;
  }
  Expected<GpuBuffer> staging = createBuffer(ctx, rgba.size(), MemoryUse::kUpload);
  if (!staging) return false;
  std::memcpy(staging->mapped, rgba.data(), rgba.size());
  Status s = submitAndWait(
      ctx,
      [&](VkCommandBuffer cmd) {
        VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
        b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        b.image = out.image;
        b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 0,
                             nullptr, 1, &b);
        VkBufferImageCopy copy{};
        copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        copy.imageExtent = {w, w, 1};
        vkCmdCopyBufferToImage(cmd, staging->buffer, out.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
        b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
        b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        b.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0, nullptr,
                             0, nullptr, 1, &b);
      },
      "upload image");
  destroyBuffer(ctx, *staging);
  return bool(s);
}

void destroyImage(VulkanContext& ctx, TestImage& i) {
  vkDestroyImageView(ctx.device, i.view, nullptr);
  vkDestroyImage(ctx.device, i.image, nullptr);
  vkFreeMemory(ctx.device, i.memory, nullptr);
  i = TestImage{};
}

std::string readSource(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The renderer's shader with render_shared.h pasted in place of its #include.
std::string inlineShared(const std::string& source) {
  std::string out = source;
  for (const char* name : {"render_shared.h", "environment.glsl", "tone.glsl"}) {
    const std::string line = std::string("#include \"") + name + "\"";
    const size_t at = out.find(line);
    if (at != std::string::npos) out.replace(at, line.size(), readSource(sourceDir() / "shaders" / "render" / name));
  }
  // glslang puts `invariant gl_Position` on the gl_PerVertex member, which this validation layer's SPIR-V validator
  // reports ("Decoration not allowed on struct members"); one draw per pipeline does not need it.
  const std::string invariant = "invariant gl_Position;";
  if (const size_t inv = out.find(invariant); inv != std::string::npos) out.replace(inv, invariant.size(), "");
  return out;
}

// A hemisphere (radius 0.8, facing +z) as a 17×17 grid with normals and uvs: varied normals, so the lighting varies.
struct TestMesh {
  std::vector<float> positions, normals, uvs;
  std::vector<uint32_t> indices;
};
TestMesh hemisphere() {
  TestMesh m;
  const int n = 16;
  for (int j = 0; j <= n; ++j) {
    for (int i = 0; i <= n; ++i) {
      const float u = float(i) / n, v = float(j) / n;
      const float theta = (u - 0.5f) * 2.6f, phi = (v - 0.5f) * 2.6f;
      float x = std::sin(theta) * std::cos(phi * 0.5f), y = std::sin(phi), z = std::cos(theta) * std::cos(phi);
      const float len = std::sqrt(x * x + y * y + z * z);
      x /= len, y /= len, z /= len;
      m.positions.insert(m.positions.end(), {0.8f * x, 0.8f * y, 0.8f * z});
      m.normals.insert(m.normals.end(), {x, y, z});
      m.uvs.insert(m.uvs.end(), {u * 2.0f, v * 2.0f});
    }
  }
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      m.indices.insert(m.indices.end(), {a, b, d, a, d, c});
    }
  }
  return m;
}

VkPipeline colorPipeline(VulkanContext& ctx, const Harness& h, VkPipelineLayout layout, VkShaderModule vs,
                         VkShaderModule fs, const VkSpecializationInfo* spec) {
  // positions (binding 0), normals (1), uvs (2); tangent reads POSITION, uv1 reads the uvs (features say absent).
  VkVertexInputBindingDescription vb[3] = {
      {0, 12, VK_VERTEX_INPUT_RATE_VERTEX}, {1, 12, VK_VERTEX_INPUT_RATE_VERTEX}, {2, 8, VK_VERTEX_INPUT_RATE_VERTEX}};
  VkVertexInputAttributeDescription attrs[5] = {{0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
                                                {1, 1, VK_FORMAT_R32G32B32_SFLOAT, 0},
                                                {2, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
                                                {3, 2, VK_FORMAT_R32G32_SFLOAT, 0},
                                                {4, 2, VK_FORMAT_R32G32_SFLOAT, 0}};
  VkPipelineVertexInputStateCreateInfo input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  input.vertexBindingDescriptionCount = 3;
  input.pVertexBindingDescriptions = vb;
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
  cb.attachmentCount = 1;
  cb.pAttachments = &blend;
  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vs;
  stages[0].pName = "main";
  stages[0].pSpecializationInfo = spec;
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = fs;
  stages[1].pName = "main";
  stages[1].pSpecializationInfo = spec;
  VkGraphicsPipelineCreateInfo gp{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  gp.stageCount = 2;
  gp.pStages = stages;
  gp.pVertexInputState = &input;
  gp.pInputAssemblyState = &assembly;
  gp.pViewportState = &vp;
  gp.pRasterizationState = &raster;
  gp.pMultisampleState = &ms;
  gp.pDepthStencilState = &ds;
  gp.pColorBlendState = &cb;
  gp.layout = layout;
  gp.renderPass = h.color_pass;
  VkPipeline pipeline = VK_NULL_HANDLE;
  vkCreateGraphicsPipelines(ctx.device, VK_NULL_HANDLE, 1, &gp, nullptr, &pipeline);
  return pipeline;
}

Expected<std::vector<uint8_t>> drawPixels(VulkanContext& ctx, Harness& h, VkPipeline pipeline, VkPipelineLayout layout,
                                          const std::vector<VkDescriptorSet>& sets, bool push_pass,
                                          const std::vector<GpuBuffer>& vertex_buffers, const GpuBuffer& indices,
                                          uint32_t count) {
  Status s = submitAndWait(
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
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, uint32_t(sets.size()), sets.data(), 0,
                                nullptr);
        if (push_pass) {
          const uint32_t pass = MSH_PASS_COLOR;
          vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, 4, &pass);
        }
        std::vector<VkBuffer> vbs;
        std::vector<VkDeviceSize> offsets(vertex_buffers.size(), 0);
        for (const GpuBuffer& b : vertex_buffers) vbs.push_back(b.buffer);
        vkCmdBindVertexBuffers(cmd, 0, uint32_t(vbs.size()), vbs.data(), offsets.data());
        vkCmdBindIndexBuffer(cmd, indices.buffer, 0, VK_INDEX_TYPE_UINT32);
        vkCmdDrawIndexed(cmd, count, 1, 0, 0, 0);
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
      "draw pixels");
  if (!s) return s.error();
  const auto* px = static_cast<const uint8_t*>(h.readback.mapped);
  return std::vector<uint8_t>(px, px + kSize * kSize * 4);
}

TEST_F(VulkanTest, NodeStaticPbrRendersLikeTheBuiltInPbrShaders) {
  MORPHKIT_REQUIRE_GPU(context_);
  if (!context_->queue_has_graphics) {
    if (test::runningInCi()) FAIL() << "the device's queue cannot do graphics";
    GTEST_SKIP() << "no graphics queue (CI=true fails above)";
  }
  namespace rs = morphkit::render;
  VulkanContext& ctx = *context_;
  Harness h(ctx);
  ASSERT_TRUE(h.init());
  std::vector<GpuBuffer> buffers;
  auto make = [&](VkDeviceSize size, VkBufferUsageFlags usage, const void* data) -> GpuBuffer {
    Expected<GpuBuffer> b = createBuffer(ctx, size, MemoryUse::kUpload, usage);
    EXPECT_TRUE(b);
    if (!b) return {};
    std::memcpy(b->mapped, data, size);
    buffers.push_back(*b);
    return *b;
  };
  const TestMesh mesh = hemisphere();
  const std::vector<GpuBuffer> vertex_buffers = {
      make(mesh.positions.size() * 4, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, mesh.positions.data()),
      make(mesh.normals.size() * 4, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, mesh.normals.data()),
      make(mesh.uvs.size() * 4, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, mesh.uvs.data())};
  const GpuBuffer indices = make(mesh.indices.size() * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, mesh.indices.data());

  // Textures: an 8×8 sRGB checker base color, a metallic-roughness gradient, and 1×1 defaults.
  std::vector<uint8_t> checker, mr;
  for (uint32_t y = 0; y < 8; ++y) {
    for (uint32_t x = 0; x < 8; ++x) {
      const bool on = ((x + y) & 1) != 0;
      checker.insert(checker.end(), {uint8_t(on ? 230 : 60), uint8_t(on ? 180 : 120), uint8_t(on ? 90 : 200), 255});
      mr.insert(mr.end(), {0, uint8_t(40 + 25 * y), uint8_t(30 * x), 255});
    }
  }
  TestImage base_image, mr_image, white;
  ASSERT_TRUE(uploadImage(ctx, h, VK_FORMAT_R8G8B8A8_SRGB, 8, checker, base_image));
  ASSERT_TRUE(uploadImage(ctx, h, VK_FORMAT_R8G8B8A8_UNORM, 8, mr, mr_image));
  ASSERT_TRUE(uploadImage(ctx, h, VK_FORMAT_R8G8B8A8_UNORM, 1, {255, 255, 255, 255}, white));
  VkSamplerCreateInfo si{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  si.magFilter = si.minFilter = VK_FILTER_LINEAR;
  si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
  VkSampler sampler = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateSampler(ctx.device, &si, nullptr, &sampler), VK_SUCCESS);

  // The glTF material both draws restate.
  Asset built;
  built.images.resize(2);
  built.images[0].uri = "base.png";  // an image names its bytes (§5.18); the draws bind uploaded images instead
  built.images[1].uri = "metallic_roughness.png";
  built.textures.push_back(Texture{kNone, 0});
  built.textures.push_back(Texture{kNone, 1});
  Material mat;
  const float base_factor[4] = {0.9f, 0.85f, 0.8f, 1.0f};
  std::memcpy(mat.base_color_factor, base_factor, sizeof base_factor);
  mat.metallic_factor = 0.7f;
  mat.roughness_factor = 0.8f;
  mat.emissive_factor[0] = 0.03f;
  mat.emissive_factor[1] = 0.02f;
  mat.base_color_texture.texture = 0;
  mat.metallic_roughness_texture.texture = 1;
  built.materials.push_back(mat);  // validated with the asset: its texture indices are in range
  const Asset asset = test::validated(std::move(built));

  // Frame: clip = (x, -y, 0.5 - 0.25 z); light from the upper right front; a 1×1 shadow map cleared to 1 (lit).
  rs::FrameUniforms frame{};
  const float clip[16] = {1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -0.25f, 0, 0, 0, 0.5f, 1};
  std::memcpy(frame.view_proj.m, clip, 64);
  std::memcpy(frame.light_view_proj.m, clip, 64);
  frame.camera_position = {0, 0, 3, 1};
  const float light_len = std::sqrt(0.3f * 0.3f + 0.5f * 0.5f + 0.8f * 0.8f);
  frame.light_direction = {0.3f / light_len, 0.5f / light_len, 0.8f / light_len, 0};
  frame.light_color = {2.5f, 2.4f, 2.2f, 0};
  // No environment and no tone curve: pbr.frag's image-based light is off (intensity 0) and node materials' hemisphere
  // fill is black, so both draw the key light + emissive (docs/RENDER.md: node materials keep the old fill).
  frame.sky_color = {0, 0, 0, 0};
  frame.ground_color = {0, 0, 0, 0};
  frame.shadow_params = {1.0f, 1.0f, 0.01f, 0};
  frame.environment = {0.0f, 0.0f, 1.0f, 0.0f};
  frame.tone = {1.0f, float(MSH_TONE_NONE), 0.0f, 0.0f};
  const GpuBuffer frame_ubo = make(sizeof frame, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &frame);
  const float zero_sh[36] = {};
  const GpuBuffer irradiance = make(sizeof zero_sh, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, zero_sh);
  const uint32_t features = MSH_HAS_NORMALS | MSH_HAS_UV0;
  const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

  VkDescriptorPoolSize sizes[3] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 8},
                                   {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 20},
                                   {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2}};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 4;
  pool_info.poolSizeCount = 3;
  pool_info.pPoolSizes = sizes;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateDescriptorPool(ctx.device, &pool_info, nullptr, &pool), VK_SUCCESS);
  auto allocate = [&](VkDescriptorSetLayout layout) {
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    EXPECT_EQ(vkAllocateDescriptorSets(ctx.device, &alloc, &set), VK_SUCCESS);
    return set;
  };
  std::vector<VkDescriptorBufferInfo> buffer_infos;
  std::vector<VkDescriptorImageInfo> image_infos;
  buffer_infos.reserve(16);
  image_infos.reserve(16);
  std::vector<VkWriteDescriptorSet> writes;
  auto writeBuffer = [&](VkDescriptorSet set, uint32_t binding, const GpuBuffer& b) {
    buffer_infos.push_back({b.buffer, 0, VK_WHOLE_SIZE});
    writes.push_back({VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, binding, 0, 1,
                      VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, nullptr, &buffer_infos.back(), nullptr});
  };
  auto writeImage = [&](VkDescriptorSet set, uint32_t binding, VkSampler s, VkImageView view) {
    image_infos.push_back({s, view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL});
    writes.push_back({VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, binding, 0, 1,
                      VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &image_infos.back(), nullptr, nullptr});
  };

  // ---- Built-in: mesh.vert (MSH_LAYOUT 0) + pbr.frag, the renderer's three sets and push constant ----
  Expected<std::vector<uint32_t>> vs_words = compileNodeGlsl(
      inlineShared(readSource(sourceDir() / "shaders" / "render" / "mesh.vert")), kNodeStageVertex, "mesh.vert");
  ASSERT_TRUE(vs_words) << vs_words.error().message;
  Expected<std::vector<uint32_t>> fs_words = compileNodeGlsl(
      inlineShared(readSource(sourceDir() / "shaders" / "render" / "pbr.frag")), kNodeStageFragment, "pbr.frag");
  ASSERT_TRUE(fs_words) << fs_words.error().message;
  auto moduleOf = [&](const std::vector<uint32_t>& words) {
    VkShaderModuleCreateInfo m{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    m.codeSize = words.size() * 4;
    m.pCode = words.data();
    VkShaderModule out = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateShaderModule(ctx.device, &m, nullptr, &out), VK_SUCCESS);
    return out;
  };
  VkShaderModule builtin_vs = moduleOf(*vs_words), builtin_fs = moduleOf(*fs_words);
  VkDescriptorSetLayout set_layouts[3] = {};
  {
    const VkDescriptorSetLayoutBinding frame_b[5] = {
        {MSH_BINDING_FRAME, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1,
         VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
        {MSH_BINDING_SHADOW_MAP, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
        {MSH_BINDING_ENVIRONMENT, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
        {MSH_BINDING_BRDF_TABLE, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
        {MSH_BINDING_IRRADIANCE, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr}};
    const VkDescriptorSetLayoutBinding mesh_b[1] = {
        {MSH_BINDING_OBJECT, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, nullptr}};
    VkDescriptorSetLayoutBinding material_b[6];
    material_b[0] = {MSH_BINDING_MATERIAL, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
    for (uint32_t i = 1; i < 6; ++i)
      material_b[i] = {i, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
    const std::pair<const VkDescriptorSetLayoutBinding*, uint32_t> lists[3] = {
        {frame_b, 5}, {mesh_b, 1}, {material_b, 6}};
    for (int i = 0; i < 3; ++i) {
      VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
      info.bindingCount = lists[i].second;
      info.pBindings = lists[i].first;
      ASSERT_EQ(vkCreateDescriptorSetLayout(ctx.device, &info, nullptr, &set_layouts[i]), VK_SUCCESS);
    }
  }
  VkPushConstantRange push{VK_SHADER_STAGE_VERTEX_BIT, 0, 4};
  VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = 3;
  pli.pSetLayouts = set_layouts;
  pli.pushConstantRangeCount = 1;
  pli.pPushConstantRanges = &push;
  VkPipelineLayout builtin_layout = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreatePipelineLayout(ctx.device, &pli, nullptr, &builtin_layout), VK_SUCCESS);
  VkSpecializationMapEntry entry{0, 0, 4};
  VkSpecializationInfo spec{1, &entry, 4, &features};
  VkPipeline builtin = colorPipeline(ctx, h, builtin_layout, builtin_vs, builtin_fs, &spec);
  ASSERT_NE(builtin, VK_NULL_HANDLE);
  rs::ObjectUniforms object{};
  std::memcpy(object.model.m, identity, 64);
  std::memcpy(object.normal_matrix.m, identity, 64);
  object.features = features;
  const GpuBuffer object_ubo = make(sizeof object, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &object);
  rs::MaterialUniforms mu{};
  mu.base_color_factor = {base_factor[0], base_factor[1], base_factor[2], base_factor[3]};
  mu.emissive_factor = {mat.emissive_factor[0], mat.emissive_factor[1], mat.emissive_factor[2], mat.alpha_cutoff};
  mu.metallic_factor = mat.metallic_factor;
  mu.roughness_factor = mat.roughness_factor;
  mu.normal_scale = 1.0f;
  mu.occlusion_strength = 1.0f;
  mu.texture_flags = MAT_BASE_COLOR_TEXTURE | MAT_METALLIC_ROUGHNESS_TEXTURE;
  for (int i = 0; i < 5; ++i) {  // no KHR_texture_transform: identity rows
    mu.uv_transform[2 * i] = {1, 0, 0, 0};
    mu.uv_transform[2 * i + 1] = {0, 1, 0, 0};
  }
  const GpuBuffer material_ubo = make(sizeof mu, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &mu);
  const VkDescriptorSet frame_set = allocate(set_layouts[0]), mesh_set = allocate(set_layouts[1]),
                        material_set = allocate(set_layouts[2]);
  writeBuffer(frame_set, MSH_BINDING_FRAME, frame_ubo);
  writeImage(frame_set, MSH_BINDING_SHADOW_MAP, h.shadow_sampler, h.shadow_view);
  writeImage(frame_set, MSH_BINDING_ENVIRONMENT, sampler, white.view);  // intensity 0: read, then scaled to 0
  writeImage(frame_set, MSH_BINDING_BRDF_TABLE, sampler, white.view);
  buffer_infos.push_back({irradiance.buffer, 0, VK_WHOLE_SIZE});
  writes.push_back({VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, frame_set, MSH_BINDING_IRRADIANCE, 0, 1,
                    VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nullptr, &buffer_infos.back(), nullptr});
  writeBuffer(mesh_set, MSH_BINDING_OBJECT, object_ubo);
  writeBuffer(material_set, MSH_BINDING_MATERIAL, material_ubo);
  writeImage(material_set, MSH_BINDING_BASE_COLOR_TEXTURE, sampler, base_image.view);
  writeImage(material_set, MSH_BINDING_METALLIC_ROUGHNESS_TEXTURE, sampler, mr_image.view);
  for (uint32_t b : {MSH_BINDING_NORMAL_TEXTURE, MSH_BINDING_OCCLUSION_TEXTURE, MSH_BINDING_EMISSIVE_TEXTURE}) {
    writeImage(material_set, b, sampler, white.view);
  }

  // ---- Node: examples/static_pbr.json with its one set ----
  Expected<NodeMaterial> node = loadNodeMaterial((sourceDir() / "examples" / "static_pbr.json").string());
  ASSERT_TRUE(node) << node.error().message;
  Expected<NodeMaterialPrograms> programs = compileNodeMaterial(*node);
  ASSERT_TRUE(programs) << programs.error().message;
  Expected<NodeVkProgram> program = createNodeVkProgram(ctx, *programs);
  ASSERT_TRUE(program) << program.error().message;
  VkPipeline node_pipeline =
      colorPipeline(ctx, h, program->layout, program->vertex[size_t(NodePipeline::kColor)], program->fragment, nullptr);
  ASSERT_NE(node_pipeline, VK_NULL_HANDLE);
  NodeObjectHeader header{};
  std::memcpy(header.model, identity, 64);
  std::memcpy(header.normal_matrix, identity, 64);
  header.features = features;
  const std::vector<uint8_t> node_bytes = nodeUniformBytes(*node, asset, &mat, header);
  const GpuBuffer node_ubo = make(node_bytes.size(), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, node_bytes.data());
  const VkDescriptorSet node_set = allocate(program->set_layout);
  for (const NodeBinding& b : programs->glsl.bindings) {
    if (b.name == "NodeUniforms") {
      writeBuffer(node_set, b.binding, node_ubo);
    } else if (b.name == "FrameBlock") {
      writeBuffer(node_set, b.binding, frame_ubo);
    } else if (b.name == "nodeShadowMap") {
      writeImage(node_set, b.binding, h.shadow_sampler, h.shadow_view);
    } else if (b.kind == NodeBindingKind::kSampledTexture) {
      const NodeTextureSource source = nodeTextureSource(*node, b.texture, asset, &mat);
      writeImage(node_set, b.binding, sampler,
                 !source.bound       ? white.view
                 : source.image == 0 ? base_image.view
                                     : mr_image.view);
    } else {
      ADD_FAILURE() << "unexpected binding " << b.name;
    }
  }
  vkUpdateDescriptorSets(ctx.device, uint32_t(writes.size()), writes.data(), 0, nullptr);

  Expected<std::vector<uint8_t>> a = drawPixels(ctx, h, builtin, builtin_layout, {frame_set, mesh_set, material_set},
                                                true, vertex_buffers, indices, uint32_t(mesh.indices.size()));
  Expected<std::vector<uint8_t>> b = drawPixels(ctx, h, node_pipeline, program->layout, {node_set}, false,
                                                vertex_buffers, indices, uint32_t(mesh.indices.size()));
  ASSERT_TRUE(a && b);
  // The tolerance of the task: mean |a − b| ≤ 0.5/255 over every channel, ≤ 0.1 % of pixels off by more than 8/255.
  double sum = 0;
  uint32_t over = 0, covered = 0, max_diff = 0;
  std::vector<uint8_t> distinct;
  for (uint32_t i = 0; i < kSize * kSize; ++i) {
    uint32_t largest = 0;
    for (uint32_t c = 0; c < 4; ++c) {
      const uint32_t d = uint32_t(std::abs(int((*a)[i * 4 + c]) - int((*b)[i * 4 + c])));
      sum += d;
      largest = std::max(largest, d);
    }
    max_diff = std::max(max_diff, largest);
    if (largest > 8) ++over;
    if ((*a)[i * 4] || (*a)[i * 4 + 1] || (*a)[i * 4 + 2]) {
      ++covered;
      if (std::find(distinct.begin(), distinct.end(), (*a)[i * 4 + 1]) == distinct.end())
        distinct.push_back((*a)[i * 4 + 1]);
    }
  }
  const double mean = sum / (kSize * kSize * 4);
  EXPECT_GT(covered, kSize * kSize / 3) << "the built-in draw covers too little to compare";
  EXPECT_GT(distinct.size(), 20u) << "the lighting should vary across the hemisphere";
  EXPECT_LE(mean, 0.5) << "max " << max_diff;
  EXPECT_LE(double(over) / (kSize * kSize), 0.001) << over << " pixels, max " << max_diff;
  RecordProperty("mean_abs_diff", std::to_string(mean));
  RecordProperty("max_abs_diff", std::to_string(max_diff));

  vkDeviceWaitIdle(ctx.device);
  vkDestroyPipeline(ctx.device, builtin, nullptr);
  vkDestroyPipeline(ctx.device, node_pipeline, nullptr);
  destroyNodeVkProgram(ctx, *program);
  vkDestroyPipelineLayout(ctx.device, builtin_layout, nullptr);
  for (VkDescriptorSetLayout l : set_layouts) vkDestroyDescriptorSetLayout(ctx.device, l, nullptr);
  vkDestroyShaderModule(ctx.device, builtin_vs, nullptr);
  vkDestroyShaderModule(ctx.device, builtin_fs, nullptr);
  vkDestroyDescriptorPool(ctx.device, pool, nullptr);
  vkDestroySampler(ctx.device, sampler, nullptr);
  destroyImage(ctx, base_image);
  destroyImage(ctx, mr_image);
  destroyImage(ctx, white);
  for (GpuBuffer& buffer : buffers) destroyBuffer(ctx, buffer);
}

}  // namespace
}  // namespace morphkit
