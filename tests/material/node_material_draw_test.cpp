// SPDX-License-Identifier: MIT
// Node materials on Vulkan, the draws: morph runs before skinning and the fallback reads no delta, and the static PBR
// graph renders like the built-in PBR shaders. Allocations and pipelines: node_material_vk_test.cpp.
#include <gtest/gtest.h>

#include "node_material_vk_support.h"

namespace morphkit {
namespace {

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
  // positions (binding 0), normals (1), uvs (2); tangent reads POSITION, uv1 reads the uvs (features say absent);
  // the built-in program's COLOR_0 (location 5) reads POSITION too (absent), node programs have no such input.
  VkVertexInputBindingDescription vb[3] = {
      {0, 12, VK_VERTEX_INPUT_RATE_VERTEX}, {1, 12, VK_VERTEX_INPUT_RATE_VERTEX}, {2, 8, VK_VERTEX_INPUT_RATE_VERTEX}};
  VkVertexInputAttributeDescription attrs[6] = {
      {0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0}, {1, 1, VK_FORMAT_R32G32B32_SFLOAT, 0},
      {2, 0, VK_FORMAT_R32G32B32_SFLOAT, 0}, {3, 2, VK_FORMAT_R32G32_SFLOAT, 0},
      {4, 2, VK_FORMAT_R32G32_SFLOAT, 0},    {5, 0, VK_FORMAT_R32G32B32_SFLOAT, 0}};
  VkPipelineVertexInputStateCreateInfo input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  input.vertexBindingDescriptionCount = 3;
  input.pVertexBindingDescriptions = vb;
  input.vertexAttributeDescriptionCount = spec ? 6 : 5;
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

// The glTF material both draws restate: an sRGB base-colour texture and a metallic-roughness one, with factors.
Asset pbrTestAsset() {
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
  return test::validated(std::move(built));
}

// Frame: clip = (x, -y, 0.5 - 0.25 z); light from the upper right front; a 1×1 shadow map cleared to 1 (lit).
render::FrameUniforms pbrTestFrame() {
  render::FrameUniforms frame{};
  const float clip[16] = {1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -0.25f, 0, 0, 0, 0.5f, 1};
  std::memcpy(frame.view_proj.m, clip, 64);
  std::memcpy(frame.light_view_proj.m, clip, 64);
  frame.camera_position = {0, 0, 3, 1};
  const float light_len = std::sqrt(0.3f * 0.3f + 0.5f * 0.5f + 0.8f * 0.8f);
  frame.light_direction = {0.3f / light_len, 0.5f / light_len, 0.8f / light_len, 0};
  frame.light_color = {2.5f, 2.4f, 2.2f, 0};
  // No environment and no tone curve: the image-based light is off (intensity 0), so both draw the key light +
  // emissive through the one lighting.glsl.
  frame.shadow_params = {1.0f, 1.0f, 0.01f, 0};
  frame.environment = {0.0f, 0.0f, 1.0f, 0.0f};
  frame.tone = {1.0f, float(MSH_TONE_NONE), 0.0f, 0.0f};
  return frame;
}

// The built-in PBR's material uniforms for `mat` (no KHR_texture_transform: identity rows).
render::MaterialUniforms builtinMaterialUniforms(const Material& mat) {
  render::MaterialUniforms mu{};
  mu.base_color_factor = {mat.base_color_factor[0], mat.base_color_factor[1], mat.base_color_factor[2],
                          mat.base_color_factor[3]};
  mu.emissive_factor = {mat.emissive_factor[0], mat.emissive_factor[1], mat.emissive_factor[2], mat.alpha_cutoff};
  mu.metallic_factor = mat.metallic_factor;
  mu.roughness_factor = mat.roughness_factor;
  mu.normal_scale = 1.0f;
  mu.occlusion_strength = 1.0f;
  mu.texture_flags = MAT_BASE_COLOR_TEXTURE | MAT_METALLIC_ROUGHNESS_TEXTURE;
  mu.dielectric_f0 = 0.04f;  // no KHR_materials_ior / KHR_materials_specular
  mu.specular = {1, 1, 1, 1};
  for (int i = 0; i < MAT_TEXTURE_COUNT; ++i) {
    mu.uv_transform[2 * i] = {1, 0, 0, 0};
    mu.uv_transform[2 * i + 1] = {0, 1, 0, 0};
  }
  return mu;
}

// The tolerance of the task: mean |a − b| ≤ 0.5/255 over every channel, ≤ 0.1 % of pixels off by more than 8/255;
// and the built-in draw must cover enough, with enough shading variety, to mean something.
void expectSameDraw(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  double sum = 0;
  uint32_t over = 0, covered = 0, max_diff = 0;
  std::vector<uint8_t> distinct;
  for (uint32_t i = 0; i < kSize * kSize; ++i) {
    uint32_t largest = 0;
    for (uint32_t c = 0; c < 4; ++c) {
      const uint32_t d = uint32_t(std::abs(int(a[i * 4 + c]) - int(b[i * 4 + c])));
      sum += d;
      largest = std::max(largest, d);
    }
    max_diff = std::max(max_diff, largest);
    if (largest > 8) ++over;
    if (a[i * 4] || a[i * 4 + 1] || a[i * 4 + 2]) {
      ++covered;
      if (std::find(distinct.begin(), distinct.end(), a[i * 4 + 1]) == distinct.end()) distinct.push_back(a[i * 4 + 1]);
    }
  }
  const double mean = sum / (kSize * kSize * 4);
  EXPECT_GT(covered, kSize * kSize / 3) << "the built-in draw covers too little to compare";
  EXPECT_GT(distinct.size(), 20u) << "the lighting should vary across the hemisphere";
  EXPECT_LE(mean, 0.5) << "max " << max_diff;
  EXPECT_LE(double(over) / (kSize * kSize), 0.001) << over << " pixels, max " << max_diff;
  testing::Test::RecordProperty("mean_abs_diff", std::to_string(mean));
  testing::Test::RecordProperty("max_abs_diff", std::to_string(max_diff));
}

// The draws' textures: an 8×8 sRGB checker base color, a metallic-roughness gradient, and a 1×1 white default.
struct PbrTextures {
  TestImage base, mr, white;
  VkSampler sampler = VK_NULL_HANDLE;
  bool create(VulkanContext& ctx, Harness& h) {
    std::vector<uint8_t> checker, gradient;
    for (uint32_t y = 0; y < 8; ++y) {
      for (uint32_t x = 0; x < 8; ++x) {
        const bool on = ((x + y) & 1) != 0;
        checker.insert(checker.end(), {uint8_t(on ? 230 : 60), uint8_t(on ? 180 : 120), uint8_t(on ? 90 : 200), 255});
        gradient.insert(gradient.end(), {0, uint8_t(40 + 25 * y), uint8_t(30 * x), 255});
      }
    }
    if (!uploadImage(ctx, h, VK_FORMAT_R8G8B8A8_SRGB, 8, checker, base) ||
        !uploadImage(ctx, h, VK_FORMAT_R8G8B8A8_UNORM, 8, gradient, mr) ||
        !uploadImage(ctx, h, VK_FORMAT_R8G8B8A8_UNORM, 1, {255, 255, 255, 255}, white))
      return false;
    VkSamplerCreateInfo si{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    si.magFilter = si.minFilter = VK_FILTER_LINEAR;
    si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT;
    return vkCreateSampler(ctx.device, &si, nullptr, &sampler) == VK_SUCCESS;
  }
  void destroy(VulkanContext& ctx) {
    vkDestroySampler(ctx.device, sampler, nullptr);
    destroyImage(ctx, base);
    destroyImage(ctx, mr);
    destroyImage(ctx, white);
  }
};

// The renderer's own mesh.vert (MSH_LAYOUT 0) and pbr.frag, compiled from the source tree.
bool builtinShaders(VulkanContext& ctx, VkShaderModule& vs, VkShaderModule& fs) {
  Expected<std::vector<uint32_t>> vs_words = compileNodeGlsl(
      inlineShared(readSource(sourceDir() / "shaders" / "render" / "mesh.vert")), kNodeStageVertex, "mesh.vert");
  Expected<std::vector<uint32_t>> fs_words = compileNodeGlsl(
      inlineShared(readSource(sourceDir() / "shaders" / "render" / "pbr.frag")), kNodeStageFragment, "pbr.frag");
  if (!vs_words || !fs_words) {
    ADD_FAILURE() << (vs_words ? fs_words.error().message : vs_words.error().message);
    return false;
  }
  auto moduleOf = [&](const std::vector<uint32_t>& words, VkShaderModule& out) {
    VkShaderModuleCreateInfo m{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    m.codeSize = words.size() * 4;
    m.pCode = words.data();
    return vkCreateShaderModule(ctx.device, &m, nullptr, &out) == VK_SUCCESS;
  };
  return moduleOf(*vs_words, vs) && moduleOf(*fs_words, fs);
}

// The node program's one set: its uniforms, the frame block, the shadow map, the environment's two maps (white, as
// the built-in frame set below: intensity 0) and each sampled texture's source.
void writeNodeSet(DescriptorWriter& writer, VkDescriptorSet node_set, const NodeMaterialPrograms& programs,
                  const NodeMaterial& node, const Asset& asset, const GpuBuffer& node_ubo, const GpuBuffer& frame_ubo,
                  const Harness& h, const PbrTextures& textures) {
  const Material& mat = asset.materials[0];
  for (const NodeBinding& b : programs.glsl.bindings) {
    if (b.name == "NodeUniforms") {
      writer.buffer(node_set, b.binding, node_ubo);
    } else if (b.name == "FrameBlock") {
      writer.buffer(node_set, b.binding, frame_ubo);
    } else if (b.name == "nodeShadowMap") {
      writer.image(node_set, b.binding, h.shadow_sampler, h.shadow_view);
    } else if (b.name == "nodeEnvironmentMap" || b.name == "nodeBrdfTable") {
      writer.image(node_set, b.binding, textures.sampler, textures.white.view);  // as the built-in frame set
    } else if (b.kind == NodeBindingKind::kSampledTexture) {
      const NodeTextureSource source = nodeTextureSource(node, b.texture, asset, &mat);
      writer.image(node_set, b.binding, textures.sampler,
                   !source.bound       ? textures.white.view
                   : source.image == 0 ? textures.base.view
                                       : textures.mr.view);
    } else {
      ADD_FAILURE() << "unexpected binding " << b.name;
    }
  }
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

  PbrTextures textures;
  ASSERT_TRUE(textures.create(ctx, h));
  const TestImage &base_image = textures.base, &mr_image = textures.mr, &white = textures.white;
  const VkSampler sampler = textures.sampler;

  const Asset asset = pbrTestAsset();
  const Material& mat = asset.materials[0];

  rs::FrameUniforms frame = pbrTestFrame();
  const GpuBuffer frame_ubo = make(sizeof frame, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &frame);
  const uint32_t features = MSH_HAS_NORMALS | MSH_HAS_UV0;
  const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

  DescriptorWriter writer(ctx);
  // ---- Built-in: mesh.vert (MSH_LAYOUT 0) + pbr.frag, the renderer's three sets and push constant ----
  VkShaderModule builtin_vs = VK_NULL_HANDLE, builtin_fs = VK_NULL_HANDLE;
  ASSERT_TRUE(builtinShaders(ctx, builtin_vs, builtin_fs));
  VkDescriptorSetLayout set_layouts[3] = {};
  ASSERT_TRUE(builtinSetLayouts(ctx, set_layouts));
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
  const rs::MaterialUniforms mu = builtinMaterialUniforms(mat);
  const GpuBuffer material_ubo = make(sizeof mu, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &mu);
  const VkDescriptorSet frame_set = writer.allocate(set_layouts[0]), mesh_set = writer.allocate(set_layouts[1]),
                        material_set = writer.allocate(set_layouts[2]);
  writer.buffer(frame_set, MSH_BINDING_FRAME, frame_ubo);
  writer.image(frame_set, MSH_BINDING_SHADOW_MAP, h.shadow_sampler, h.shadow_view);
  writer.image(frame_set, MSH_BINDING_ENVIRONMENT, sampler, white.view);  // intensity 0: read, then scaled to 0
  writer.image(frame_set, MSH_BINDING_BRDF_TABLE, sampler, white.view);
  writer.buffer(mesh_set, MSH_BINDING_OBJECT, object_ubo);
  writer.buffer(material_set, MSH_BINDING_MATERIAL, material_ubo);
  writer.image(material_set, MSH_BINDING_BASE_COLOR_TEXTURE, sampler, base_image.view);
  writer.image(material_set, MSH_BINDING_METALLIC_ROUGHNESS_TEXTURE, sampler, mr_image.view);
  for (uint32_t b = MSH_BINDING_NORMAL_TEXTURE; b <= MAT_TEXTURE_COUNT; ++b)
    writer.image(material_set, b, sampler, white.view);

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
  const VkDescriptorSet node_set = writer.allocate(program->set_layout);
  writeNodeSet(writer, node_set, *programs, *node, asset, node_ubo, frame_ubo, h, textures);
  writer.flush();

  Expected<std::vector<uint8_t>> a = drawPixels(ctx, h, builtin, builtin_layout, {frame_set, mesh_set, material_set},
                                                true, vertex_buffers, indices, uint32_t(mesh.indices.size()));
  Expected<std::vector<uint8_t>> b = drawPixels(ctx, h, node_pipeline, program->layout, {node_set}, false,
                                                vertex_buffers, indices, uint32_t(mesh.indices.size()));
  ASSERT_TRUE(a && b);
  expectSameDraw(*a, *b);

  vkDeviceWaitIdle(ctx.device);
  vkDestroyPipeline(ctx.device, builtin, nullptr);
  vkDestroyPipeline(ctx.device, node_pipeline, nullptr);
  destroyNodeVkProgram(ctx, *program);
  vkDestroyPipelineLayout(ctx.device, builtin_layout, nullptr);
  for (VkDescriptorSetLayout l : set_layouts) vkDestroyDescriptorSetLayout(ctx.device, l, nullptr);
  vkDestroyShaderModule(ctx.device, builtin_vs, nullptr);
  vkDestroyShaderModule(ctx.device, builtin_fs, nullptr);
  textures.destroy(ctx);
  for (GpuBuffer& buffer : buffers) destroyBuffer(ctx, buffer);
}

}  // namespace
}  // namespace morphkit
