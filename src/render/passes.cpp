// SPDX-License-Identifier: MIT
// Render targets and passes: the offscreen color/depth/shadow images, the three render passes (shadow map, depth
// prepass, color) with their framebuffers, the readback copy honoring row pitch, the frame's uniforms (camera
// and light) and the recording of one frame's passes.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "environment_internal.h"
#include "renderer_state.h"

namespace morphkit {

namespace rs = render;

namespace {

constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_SRGB;  // hardware sRGB encode on store
constexpr VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT;

// A depth-only pass (shadow map, depth prepass): one cleared depth attachment left in `final_layout`.
Status createDepthOnlyPass(VkDevice device, VkImageLayout final_layout, const VkSubpassDependency (&deps)[2],
                           VkSampleCountFlagBits samples, const char* where, VkRenderPass& out) {
  VkAttachmentDescription a{0,
                            kDepthFormat,
                            samples,
                            VK_ATTACHMENT_LOAD_OP_CLEAR,
                            VK_ATTACHMENT_STORE_OP_STORE,
                            VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                            VK_ATTACHMENT_STORE_OP_DONT_CARE,
                            VK_IMAGE_LAYOUT_UNDEFINED,
                            final_layout};
  VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.pDepthStencilAttachment = &ref;
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  info.attachmentCount = 1;
  info.pAttachments = &a;
  info.subpassCount = 1;
  info.pSubpasses = &sub;
  info.dependencyCount = 2;
  info.pDependencies = deps;
  return checkVk(vkCreateRenderPass(device, &info, nullptr, &out), where);
}

// The color pass: with MSAA a multisampled color attachment resolved into the single-sample target the
// readback copies (attachment 2); the depth attachment has the color's samples (the prepass writes it).
Status createColorPass(VkDevice device, const RenderOptions& options, RenderTargets& t) {
  const VkPipelineStageFlags tests =
      VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  const VkAccessFlags depth_rw =
      VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  const bool msaa = t.samples != VK_SAMPLE_COUNT_1_BIT;
  VkAttachmentDescription a[3] = {
      {0, kColorFormat, t.samples, VK_ATTACHMENT_LOAD_OP_CLEAR,
       msaa ? VK_ATTACHMENT_STORE_OP_DONT_CARE : VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
       VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
       msaa ? VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL},
      {0, kDepthFormat, t.samples, options.depth_prepass ? VK_ATTACHMENT_LOAD_OP_LOAD : VK_ATTACHMENT_LOAD_OP_CLEAR,
       VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE,
       options.depth_prepass ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL : VK_IMAGE_LAYOUT_UNDEFINED,
       VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL},
      {0, kColorFormat, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_STORE,
       VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
       VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL}};
  VkAttachmentReference color_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkAttachmentReference resolve_ref{2, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.colorAttachmentCount = 1;
  sub.pColorAttachments = &color_ref;
  sub.pResolveAttachments = msaa ? &resolve_ref : nullptr;
  sub.pDepthStencilAttachment = &depth_ref;
  VkSubpassDependency deps[2] = {
      {VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_TRANSFER_BIT | tests,
       VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | tests, VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
       VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | depth_rw, 0},
      {0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | tests,
       VK_PIPELINE_STAGE_TRANSFER_BIT | tests,
       VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
       VK_ACCESS_TRANSFER_READ_BIT | depth_rw, 0}};
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  info.attachmentCount = msaa ? 3 : 2;
  info.pAttachments = a;
  info.subpassCount = 1;
  info.pSubpasses = &sub;
  info.dependencyCount = 2;
  info.pDependencies = deps;
  return checkVk(vkCreateRenderPass(device, &info, nullptr, &t.color_pass), "vkCreateRenderPass(color)");
}

Status createRenderPasses(VkDevice device, const RenderOptions& options, RenderTargets& t) {
  const VkPipelineStageFlags tests =
      VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  const VkAccessFlags depth_rw =
      VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  // Shadow: sampled by the color pass afterwards.
  const VkSubpassDependency shadow_deps[2] = {
      {VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, tests, 0, depth_rw, 0},
      {0, VK_SUBPASS_EXTERNAL, tests, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
       VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT, 0}};
  if (Status s = createDepthOnlyPass(device, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, shadow_deps,
                                     VK_SAMPLE_COUNT_1_BIT, "vkCreateRenderPass(shadow)", t.shadow_pass);
      !s) {
    return s;
  }
  if (options.depth_prepass) {  // the color pass loads its depth
    const VkSubpassDependency depth_deps[2] = {{VK_SUBPASS_EXTERNAL, 0, tests, tests, depth_rw, depth_rw, 0},
                                               {0, VK_SUBPASS_EXTERNAL, tests, tests, depth_rw, depth_rw, 0}};
    if (Status s = createDepthOnlyPass(device, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL, depth_deps, t.samples,
                                       "vkCreateRenderPass(depth)", t.depth_pass);
        !s) {
      return s;
    }
  }
  return createColorPass(device, options, t);
}

Status createFramebuffer(VkDevice device, VkRenderPass pass, std::initializer_list<VkImageView> views, uint32_t w,
                         uint32_t h, VkFramebuffer& out) {
  VkFramebufferCreateInfo info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  info.renderPass = pass;
  info.attachmentCount = uint32_t(views.size());
  info.pAttachments = views.begin();
  info.width = w;
  info.height = h;
  info.layers = 1;
  return checkVk(vkCreateFramebuffer(device, &info, nullptr, &out), "vkCreateFramebuffer");
}

}  // namespace

VkSampleCountFlagBits sampleCountFor(const VulkanContext& ctx, uint32_t msaa) {
  const VkSampleCountFlags supported =
      ctx.properties.limits.framebufferColorSampleCounts & ctx.properties.limits.framebufferDepthSampleCounts;
  for (uint32_t n = msaa; n > 1; n /= 2) {
    if (supported & n) return VkSampleCountFlagBits(n);
  }
  return VK_SAMPLE_COUNT_1_BIT;
}

Status createRenderTargets(VulkanContext& ctx, const RenderOptions& o, RenderTargets& t) {
  Expected<GpuImage> color =
      createImage(ctx, o.width, o.height, kColorFormat,
                  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_IMAGE_ASPECT_COLOR_BIT);
  if (!color) return color.error();
  t.color = *color;
  t.samples = sampleCountFor(ctx, o.msaa);
  RenderImageDesc attachment{
      o.width, o.height, kDepthFormat, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
      1,       t.samples};
  Expected<GpuImage> depth = createRenderImage(ctx, attachment);
  if (!depth) return depth.error();
  t.depth = *depth;
  if (t.samples != VK_SAMPLE_COUNT_1_BIT) {
    attachment.format = kColorFormat;
    attachment.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT;
    attachment.aspect = VK_IMAGE_ASPECT_COLOR_BIT;
    Expected<GpuImage> multisampled = createRenderImage(ctx, attachment);
    if (!multisampled) return multisampled.error();
    t.color_msaa = *multisampled;
  }
  t.shadow_size = o.shadows ? o.shadow_size : 1;
  Expected<GpuImage> shadow =
      createImage(ctx, t.shadow_size, t.shadow_size, kDepthFormat,
                  VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_ASPECT_DEPTH_BIT);
  if (!shadow) return shadow.error();
  t.shadow = *shadow;
  // Readback rows padded to 256 bytes: the copy honours an explicit row pitch (bufferRowLength) and the CPU
  // side de-pitches, the same code path as a driver-chosen pitch.
  t.row_pitch = (o.width * 4 + 255) / 256 * 256;
  if (Status s = createRenderPasses(ctx.device, o, t); !s) return s;
  if (Status s =
          createFramebuffer(ctx.device, t.shadow_pass, {t.shadow.view}, t.shadow_size, t.shadow_size, t.shadow_fb);
      !s)
    return s;
  if (o.depth_prepass) {
    if (Status s = createFramebuffer(ctx.device, t.depth_pass, {t.depth.view}, o.width, o.height, t.depth_fb); !s)
      return s;
  }
  const Status fb =
      t.color_msaa.view
          ? createFramebuffer(ctx.device, t.color_pass, {t.color_msaa.view, t.depth.view, t.color.view}, o.width,
                              o.height, t.color_fb)
          : createFramebuffer(ctx.device, t.color_pass, {t.color.view, t.depth.view}, o.width, o.height, t.color_fb);
  if (!fb) return fb;

  VkSamplerCreateInfo info{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
  info.magFilter = info.minFilter = VK_FILTER_LINEAR;
  info.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
  info.addressModeU = info.addressModeV = info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
  info.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE;
  info.compareEnable = VK_TRUE;
  info.compareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  info.maxLod = 0.0f;
  if (Status s = checkVk(vkCreateSampler(ctx.device, &info, nullptr, &t.shadow_sampler), "vkCreateSampler(shadow)"); !s)
    return s;
  if (ctx.info.timestamps) {
    VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    q.queryType = VK_QUERY_TYPE_TIMESTAMP;
    q.queryCount = kQueriesPerFrame * kRenderFramesInFlight;
    if (Status s = checkVk(vkCreateQueryPool(ctx.device, &q, nullptr, &t.queries), "vkCreateQueryPool"); !s) return s;
  }
  return Ok{};
}

void destroyRenderTargets(VulkanContext& ctx, RenderTargets& t) {
  VkDevice device = ctx.device;
  vkDestroyQueryPool(device, t.queries, nullptr);
  vkDestroySampler(device, t.shadow_sampler, nullptr);
  vkDestroyFramebuffer(device, t.shadow_fb, nullptr);
  vkDestroyFramebuffer(device, t.depth_fb, nullptr);
  vkDestroyFramebuffer(device, t.color_fb, nullptr);
  vkDestroyRenderPass(device, t.shadow_pass, nullptr);
  vkDestroyRenderPass(device, t.depth_pass, nullptr);
  vkDestroyRenderPass(device, t.color_pass, nullptr);
  destroyImage(ctx, t.color);
  destroyImage(ctx, t.color_msaa);
  destroyImage(ctx, t.depth);
  destroyImage(ctx, t.shadow);
  t = RenderTargets{};
}

VkRenderPass renderPassFor(const RenderTargets& t, Pass pass) {
  return pass == Pass::kColor ? t.color_pass : pass == Pass::kDepth ? t.depth_pass : t.shadow_pass;
}

namespace {

// A depth-only pass (shadow map, depth prepass): clear depth to 1, draw every mesh with `pass`'s pipelines.
void depthOnlyPass(VkCommandBuffer cmd, VkRenderPass render_pass, VkFramebuffer framebuffer, Pass pass, uint32_t w,
                   uint32_t h, const DrawPass* draw) {
  VkClearValue clear{};
  clear.depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  begin.renderPass = render_pass;
  begin.framebuffer = framebuffer;
  begin.renderArea = {{0, 0}, {w, h}};
  begin.clearValueCount = 1;
  begin.pClearValues = &clear;
  vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
  if (draw) (*draw)(cmd, pass, w, h);
  vkCmdEndRenderPass(cmd);
}

}  // namespace

void recordPasses(VkCommandBuffer cmd, const RenderTargets& t, const RenderOptions& options, VkBuffer readback,
                  const DrawPass& draw) {
  const uint32_t w = options.width, h = options.height;
  // The shadow map is cleared even when shadows are off: the color pass samples it.
  depthOnlyPass(cmd, t.shadow_pass, t.shadow_fb, Pass::kShadow, t.shadow_size, t.shadow_size,
                options.shadows ? &draw : nullptr);
  if (options.depth_prepass) depthOnlyPass(cmd, t.depth_pass, t.depth_fb, Pass::kDepth, w, h, &draw);
  VkClearValue clears[2]{};
  std::memcpy(clears[0].color.float32, options.background, sizeof(float) * 4);
  clears[1].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  begin.renderPass = t.color_pass;
  begin.framebuffer = t.color_fb;
  begin.renderArea = {{0, 0}, {w, h}};
  begin.clearValueCount = 2;
  begin.pClearValues = clears;
  vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
  draw(cmd, Pass::kColor, w, h);
  vkCmdEndRenderPass(cmd);
  if (readback != VK_NULL_HANDLE) {
    VkBufferImageCopy region{};
    region.bufferRowLength = t.row_pitch / 4;  // texels per buffer row: the explicit row pitch
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {w, h, 1};
    vkCmdCopyImageToBuffer(cmd, t.color.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, 1, &region);
  }
  // Transfer → host for the readback; vertex reads → the next frame's compute writes (WAR on the output).
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_VERTEX_INPUT_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, nullptr, 0,
                       nullptr);
}

std::vector<uint8_t> readbackPixels(const GpuBuffer& readback, uint32_t row_pitch, uint32_t w, uint32_t h) {
  std::vector<uint8_t> rgba(size_t(w) * h * 4);
  const auto* src = static_cast<const uint8_t*>(readback.mapped);
  for (uint32_t y = 0; y < h; ++y) std::memcpy(&rgba[size_t(y) * w * 4], src + size_t(y) * row_pitch, size_t(w) * 4);
  return rgba;
}

// ---- Frame uniforms: camera and light ----
namespace {

void copyMat(rs::mat4& dst, const Mat4& src) {
  std::memcpy(dst.m, src.m.data(), sizeof dst.m);
}

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

}  // namespace

void writeFrameUniforms(FrameResources& resources, const RenderOptions& options, const RenderCamera& camera,
                        const Bounds& bounds, const EnvironmentMaps& environment) {
  const float aspect = float(options.width) / float(options.height);
  rs::FrameUniforms frame{};
  const Mat4 view_proj =
      perspective(camera.yfov, aspect, camera.znear, camera.zfar) * lookAt(camera.eye, camera.target, camera.up);
  copyMat(frame.view_proj, view_proj);
  copyMat(frame.inverse_view_proj, inverse(view_proj));
  const Vec3 light_dir = normalize(Vec3{-0.45f, 1.0f, 0.65f});
  Vec3 center{0, 0, 0};
  float radius = 1.0f;
  if (!bounds.empty()) {
    center = (bounds.min + bounds.max) * 0.5f;
    radius = std::max(length(bounds.max - bounds.min) * 0.5f, 1e-4f);
  }
  const Mat4 light_view = lookAt(center + light_dir * (radius * 2.0f), center, {0, 1, 0});
  copyMat(frame.light_view_proj, orthographic(radius * 1.05f, radius * 0.5f, radius * 3.5f) * light_view);
  frame.camera_position = {camera.eye.x, camera.eye.y, camera.eye.z, 1};
  frame.light_direction = {light_dir.x, light_dir.y, light_dir.z, 0};
  const float key = options.key_light ? 1.0f : 0.0f;
  frame.light_color = {2.4f * key, 2.3f * key, 2.2f * key, 0};
  const bool shadows = options.shadows && options.key_light;
  const float shadow_texel = 1.0f / float(options.shadows ? options.shadow_size : 1);
  frame.shadow_params = {shadow_texel, shadows ? 1.0f : 0.0f, radius * 2.1f * shadow_texel, 0};
  const float rotation = options.environment_rotation_deg * 3.14159265f / 180.0f;
  const float intensity = environment.black ? 0.0f : options.environment_intensity;
  frame.environment = {intensity, float(environment.levels - 1), std::cos(rotation), std::sin(rotation)};
  const uint32_t curve = options.tone_mapping == ToneMapping::kNeutral ? MSH_TONE_NEUTRAL
                         : options.tone_mapping == ToneMapping::kAces  ? MSH_TONE_ACES
                                                                       : MSH_TONE_NONE;
  frame.tone = {std::exp2(options.exposure_ev), float(curve), options.background_environment ? 1.0f : 0.0f, 0};
  std::memcpy(resources.ubo.mapped, &frame, sizeof frame);
}

}  // namespace morphkit
