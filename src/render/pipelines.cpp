// SPDX-License-Identifier: MIT
// The mesh program (mesh.vert, one variant per per-mesh layout, + pbr.frag; set 0 frame, set 1 per mesh, set 2
// material), its per-draw uniforms and sets, and the graphics pipelines every path's draws use, built once per
// (features, pass, material state, winding, topology, vertex format).
#include <cstring>

#include "environment_internal.h"
#include "morphkit_render_spirv/mesh_vert_0.h"
#include "morphkit_render_spirv/mesh_vert_16.h"
#include "morphkit_render_spirv/mesh_vert_24.h"
#include "morphkit_render_spirv/mesh_vert_40.h"
#include "morphkit_render_spirv/mesh_vert_56.h"
#include "morphkit_render_spirv/mesh_vert_8.h"
#include "morphkit_render_spirv/pbr_frag.h"
#include "renderer_state.h"

namespace morphkit {

namespace rs = render;

namespace {

VkPrimitiveTopology topologyOf(PrimitiveMode mode) {
  switch (mode) {
    case PrimitiveMode::kPoints:
      return VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
    case PrimitiveMode::kLines:
      return VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
    case PrimitiveMode::kLineStrip:
      return VK_PRIMITIVE_TOPOLOGY_LINE_STRIP;
    case PrimitiveMode::kTriangleStrip:
      return VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
    case PrimitiveMode::kTriangleFan:
      return VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN;
    default:
      return VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  }
}

struct ShaderWords {
  const uint32_t* words;
  size_t bytes;
};
ShaderWords vertexShader(uint32_t layout_bits) {
  switch (layout_bits) {
    case 0:
      return {gpu::spirv::kMeshVert0, sizeof gpu::spirv::kMeshVert0};
    case 8:
      return {gpu::spirv::kMeshVert8, sizeof gpu::spirv::kMeshVert8};
    case 16:
      return {gpu::spirv::kMeshVert16, sizeof gpu::spirv::kMeshVert16};
    case 24:
      return {gpu::spirv::kMeshVert24, sizeof gpu::spirv::kMeshVert24};
    case 40:
      return {gpu::spirv::kMeshVert40, sizeof gpu::spirv::kMeshVert40};
    default:
      return {gpu::spirv::kMeshVert56, sizeof gpu::spirv::kMeshVert56};
  }
}

Status createDescriptorLayouts(VkDevice device, MeshProgram& p) {
  {
    VkDescriptorSetLayoutBinding b[4] = {
        {MSH_BINDING_FRAME, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1,
         VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
        {MSH_BINDING_SHADOW_MAP, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
        {MSH_BINDING_ENVIRONMENT, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr},
        {MSH_BINDING_BRDF_TABLE, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr}};
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = 4;
    info.pBindings = b;
    if (Status s = checkVk(vkCreateDescriptorSetLayout(device, &info, nullptr, &p.frame_layout),
                           "vkCreateDescriptorSetLayout");
        !s)
      return s;
  }
  {
    VkDescriptorSetLayoutBinding b[1 + MAT_TEXTURE_COUNT];
    b[0] = {MSH_BINDING_MATERIAL, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
    for (uint32_t i = 1; i <= MAT_TEXTURE_COUNT; ++i)
      b[i] = {i, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = 1 + MAT_TEXTURE_COUNT;
    info.pBindings = b;
    if (Status s = checkVk(vkCreateDescriptorSetLayout(device, &info, nullptr, &p.material_layout),
                           "vkCreateDescriptorSetLayout");
        !s)
      return s;
  }
  return Ok{};
}

// The per-mesh set layout of a variant: the band-texture design's "bind group layout" rule — entries present only with
// their feature, slots shifting with what is present (render_shared.h states the same slots for GLSL).
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
    b.push_back(
        {next++,
         (layout_bits & MSH_MORPH_ACTIVE_LIST) ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
         1, VK_SHADER_STAGE_VERTEX_BIT, nullptr});
  }
  return b;
}

}  // namespace

Expected<VkPipelineLayout> meshPipelineLayout(VulkanContext& ctx, MeshProgram& p, uint32_t layout_bits) {
  if (auto it = p.pipeline_layouts.find(layout_bits); it != p.pipeline_layouts.end()) return it->second;
  std::vector<VkDescriptorSetLayoutBinding> bindings = meshBindings(layout_bits);
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = uint32_t(bindings.size());
  info.pBindings = bindings.data();
  VkDescriptorSetLayout mesh = VK_NULL_HANDLE;
  if (Status s = checkVk(vkCreateDescriptorSetLayout(ctx.device, &info, nullptr, &mesh), "vkCreateDescriptorSetLayout");
      !s)
    return s.error();
  p.mesh_layouts[layout_bits] = mesh;
  VkDescriptorSetLayout sets[3] = {p.frame_layout, mesh, p.material_layout};
  VkPushConstantRange push{VK_SHADER_STAGE_VERTEX_BIT, 0, 4};
  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout.setLayoutCount = 3;
  layout.pSetLayouts = sets;
  layout.pushConstantRangeCount = 1;
  layout.pPushConstantRanges = &push;
  VkPipelineLayout out = VK_NULL_HANDLE;
  if (Status s = checkVk(vkCreatePipelineLayout(ctx.device, &layout, nullptr, &out), "vkCreatePipelineLayout"); !s)
    return s.error();
  p.pipeline_layouts[layout_bits] = out;
  return out;
}

namespace {

Expected<VkShaderModule> shaderModule(VkDevice device, ShaderWords words) {
  return createShaderModule(device, words.words, words.bytes);
}

}  // namespace

Status createMeshProgram(VulkanContext& ctx, MeshProgram& program) {
  return createDescriptorLayouts(ctx.device, program);
}

Expected<PipelineStages> meshStages(VulkanContext& ctx, MeshProgram& p, uint32_t layout_bits) {
  if (!p.vertex_modules.count(layout_bits)) {
    Expected<VkShaderModule> module = shaderModule(ctx.device, vertexShader(layout_bits));
    if (!module) return module.error();
    p.vertex_modules[layout_bits] = *module;
  }
  if (!p.fragment_module) {
    Expected<VkShaderModule> module = shaderModule(ctx.device, {gpu::spirv::kPbrFrag, sizeof gpu::spirv::kPbrFrag});
    if (!module) return module.error();
    p.fragment_module = *module;
  }
  Expected<VkPipelineLayout> layout = meshPipelineLayout(ctx, p, layout_bits);
  if (!layout) return layout.error();
  return PipelineStages{p.vertex_modules[layout_bits], p.fragment_module, *layout, true};
}

void destroyMeshProgram(VulkanContext& ctx, MeshProgram& p) {
  VkDevice device = ctx.device;
  for (auto& [bits, module] : p.vertex_modules) vkDestroyShaderModule(device, module, nullptr);
  vkDestroyShaderModule(device, p.fragment_module, nullptr);
  for (auto& [bits, layout] : p.pipeline_layouts) vkDestroyPipelineLayout(device, layout, nullptr);
  for (auto& [bits, layout] : p.mesh_layouts) vkDestroyDescriptorSetLayout(device, layout, nullptr);
  vkDestroyDescriptorSetLayout(device, p.frame_layout, nullptr);
  vkDestroyDescriptorSetLayout(device, p.material_layout, nullptr);
  p = MeshProgram{};
}

namespace {

// One slot's frame set: the shared maps and the slot's own uniform block.
Status createFrameSet(Renderer& r, FrameResources& frame) {
  Expected<GpuBuffer> ubo =
      createBuffer(*r.ctx, sizeof(rs::FrameUniforms), MemoryUse::kUpload, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
  if (!ubo) return ubo.error();
  frame.ubo = *ubo;
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = r.pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &r.mesh_program.frame_layout;
  if (Status s =
          checkVk(vkAllocateDescriptorSets(r.ctx->device, &alloc, &frame.set), "vkAllocateDescriptorSets(frame)");
      !s)
    return s;
  VkDescriptorBufferInfo buffer{frame.ubo.buffer, 0, sizeof(rs::FrameUniforms)};
  VkDescriptorImageInfo shadow{r.targets.shadow_sampler, r.targets.shadow.view,
                               VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
  const EnvironmentMaps& env = *r.environment;
  VkDescriptorImageInfo environment = environmentMapInfo(env);
  VkDescriptorImageInfo table = brdfTableInfo(env);
  VkWriteDescriptorSet writes[4] = {
      {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, frame.set, MSH_BINDING_FRAME, 0, 1,
       VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, nullptr, &buffer, nullptr},
      {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, frame.set, MSH_BINDING_SHADOW_MAP, 0, 1,
       VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &shadow, nullptr, nullptr},
      {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, frame.set, MSH_BINDING_ENVIRONMENT, 0, 1,
       VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &environment, nullptr, nullptr},
      {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, frame.set, MSH_BINDING_BRDF_TABLE, 0, 1,
       VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &table, nullptr, nullptr}};
  vkUpdateDescriptorSets(r.ctx->device, 4, writes, 0, nullptr);
  return Ok{};
}

}  // namespace

// One frame set per frame slot (Renderer::frames).
Status createFrameResources(Renderer& r) {
  for (FrameResources& frame : r.frames) {
    if (Status s = createFrameSet(r, frame); !s) return s;
  }
  return Ok{};
}

// ---- Mesh draws: object uniforms + the per-mesh set ----
Status createMeshDraw(Renderer& r, uint32_t layout_bits, std::span<const MeshBinding> bindings, MeshDraw& out) {
  Expected<VkPipelineLayout> layout = meshPipelineLayout(*r.ctx, r.mesh_program, layout_bits);  // makes the set layout
  if (!layout) return layout.error();
  Expected<GpuBuffer> object =
      createBuffer(*r.ctx, sizeof(rs::ObjectUniforms), MemoryUse::kUpload, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
  if (!object) return object.error();
  out.object = *object;
  std::memset(out.object.mapped, 0, sizeof(rs::ObjectUniforms));
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = r.pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &r.mesh_program.mesh_layouts[layout_bits];
  if (Status s = checkVk(vkAllocateDescriptorSets(r.ctx->device, &alloc, &out.set), "vkAllocateDescriptorSets(mesh)");
      !s)
    return s;
  // The seed's "bind group creation": the entries present with the features, in slot order.
  std::vector<VkDescriptorBufferInfo> buffers(bindings.size() + 1);
  std::vector<VkDescriptorImageInfo> images(bindings.size() + 1);
  std::vector<VkWriteDescriptorSet> writes;
  buffers[0] = {out.object.buffer, 0, VK_WHOLE_SIZE};
  writes.push_back({VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, out.set, MSH_BINDING_OBJECT, 0, 1,
                    VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, nullptr, &buffers[0], nullptr});
  for (uint32_t i = 0; i < bindings.size(); ++i) {
    const MeshBinding& b = bindings[i];
    VkWriteDescriptorSet w{
        VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, out.set, i + 1, 0, 1, b.type, nullptr, nullptr, nullptr};
    if (b.type == VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE) {
      images[i + 1] = {VK_NULL_HANDLE, b.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
      w.pImageInfo = &images[i + 1];
    } else {
      buffers[i + 1] = {b.buffer, 0, VK_WHOLE_SIZE};
      w.pBufferInfo = &buffers[i + 1];
    }
    writes.push_back(w);
  }
  vkUpdateDescriptorSets(r.ctx->device, uint32_t(writes.size()), writes.data(), 0, nullptr);
  return Ok{};
}

void destroyMeshDraw(VulkanContext& ctx, MeshDraw& draw) {
  destroyBuffer(ctx, draw.object);  // the set goes with the renderer's pool
  draw = MeshDraw{};
}

void writeObjectUniforms(MeshDraw& draw, const Mat4& model, const Mat4& normal_matrix, uint32_t features,
                         uint32_t skin_sets) {
  rs::ObjectUniforms object{};
  std::memcpy(object.model.m, model.m.data(), sizeof object.model.m);
  std::memcpy(object.normal_matrix.m, normal_matrix.m.data(), sizeof object.normal_matrix.m);
  object.features = features;
  object.skin_sets = skin_sets;
  std::memcpy(draw.object.mapped, &object, sizeof object);
}

void bindMeshDraw(const Renderer& r, VkCommandBuffer cmd, const Draw& d, const MeshDraw& draw, Pass pass) {
  const uint32_t pass_id = uint32_t(pass);
  VkPipelineLayout layout = r.mesh_program.pipeline_layouts.at(d.layout_bits);
  VkDescriptorSet sets[3] = {r.frames[r.data_slot].set, draw.set, r.materials.materials[d.material].set};
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 3, sets, 0, nullptr);
  vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, 4, &pass_id);
}

void bindDeformedDraw(const Renderer& r, VkCommandBuffer cmd, const Draw& d, const MeshDraw& draw, Pass pass,
                      const VkBuffer& vertices, const VkDeviceSize& offset) {
  bindMeshDraw(r, cmd, d, draw, pass);
  vkCmdBindVertexBuffers(cmd, 0, 1, &vertices, &offset);
}

// ---- Pipelines ----
bool drawsInPass(const Renderer& r, const Draw& d, Pass pass) {
  if (pass == Pass::kShadow && !r.options.shadows) return false;
  if (pass == Pass::kDepth && !r.options.depth_prepass) return false;
  return pass == Pass::kColor || r.materials.materials[d.material].alpha == AlphaMode::kOpaque;
}

Expected<VkPipeline> pipelineFor(Renderer& r, const Draw& d, Pass pass) {
  const PrimitiveGpu& prim = r.primitives[d.primitive];
  const MaterialGpu& mat = r.materials.materials[d.material];
  const PrimitiveMode mode = r.prepared.primitives[prim.data].mode;
  const VertexFormat& f = prim.format;
  const uint32_t key_words[] = {
      d.features, uint32_t(pass), uint32_t(mat.alpha), mat.double_sided, d.flip,          uint32_t(mode),
      f.stride,   f.normal,       f.tangent,           f.extra,          f.texcoord_sets, f.color_sets};
  std::string key(reinterpret_cast<const char*>(key_words), sizeof key_words);
  if (auto it = r.pipelines.pipelines.find(key); it != r.pipelines.pipelines.end()) return it->second;

  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].pName = "main";
  const uint32_t features = d.features;
  VkSpecializationMapEntry entry{0, 0, 4};
  VkSpecializationInfo spec{1, &entry, 4, &features};
  Expected<PipelineStages> source = r.path->stages(r, d, pass);
  if (!source) return source.error();
  stages[0].module = source->vertex;
  stages[1].module = source->fragment;
  if (source->specialize) {
    stages[0].pSpecializationInfo = &spec;
    stages[1].pSpecializationInfo = &spec;
  }

  // Absent attributes read POSITION's bytes (the shader ignores them per kFeatures): every input is bound.
  VkVertexInputBindingDescription binding{0, f.stride * 4, VK_VERTEX_INPUT_RATE_VERTEX};
  VkVertexInputAttributeDescription attrs[6] = {
      {0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
      {1, 0, VK_FORMAT_R32G32B32_SFLOAT, f.normal != kLayoutAbsent ? f.normal * 4 : 0},
      {2, 0, f.tangent != kLayoutAbsent ? VK_FORMAT_R32G32B32A32_SFLOAT : VK_FORMAT_R32G32B32_SFLOAT,
       f.tangent != kLayoutAbsent ? f.tangent * 4 : 0},
      {3, 0, VK_FORMAT_R32G32_SFLOAT, f.texcoord_sets >= 1 ? f.extra * 4 : 0},
      {4, 0, VK_FORMAT_R32G32_SFLOAT, f.texcoord_sets >= 2 ? f.extra * 4 + 8 : 0},
      // COLOR_0 after the texcoords (VertexFormat's extras: RGBA floats); only the mesh program reads it.
      {5, 0, f.color_sets >= 1 ? VK_FORMAT_R32G32B32A32_SFLOAT : VK_FORMAT_R32G32B32_SFLOAT,
       f.color_sets >= 1 ? (f.extra + 2 * f.texcoord_sets) * 4 : 0}};
  VkPipelineVertexInputStateCreateInfo input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  input.vertexBindingDescriptionCount = 1;
  input.pVertexBindingDescriptions = &binding;
  input.vertexAttributeDescriptionCount = source->specialize ? 6 : 5;
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
  ms.rasterizationSamples = pass == Pass::kShadow ? VK_SAMPLE_COUNT_1_BIT : r.targets.samples;
  VkPipelineDepthStencilStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  ds.depthTestEnable = VK_TRUE;
  ds.depthWriteEnable = VK_TRUE;
  ds.depthCompareOp = VK_COMPARE_OP_LESS;
  if (pass == Pass::kColor) {
    ds.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
    // With a prepass, opaque depth is final already; blended surfaces never write depth.
    ds.depthWriteEnable = mat.alpha == AlphaMode::kBlend || (r.options.depth_prepass && mat.alpha == AlphaMode::kOpaque)
                              ? VK_FALSE
                              : VK_TRUE;
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
  info.layout = source->layout;
  info.renderPass = renderPassFor(r.targets, pass);
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (Status s = checkVk(vkCreateGraphicsPipelines(r.ctx->device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline),
                         "vkCreateGraphicsPipelines");
      !s) {
    return s.error();
  }
  ++r.ctx->pipelines_created;
  r.pipelines.pipelines[key] = pipeline;
  return pipeline;
}

void destroyPipelineCache(VulkanContext& ctx, PipelineCache& cache) {
  for (auto& [key, pipeline] : cache.pipelines) vkDestroyPipeline(ctx.device, pipeline, nullptr);
  cache = PipelineCache{};
}

}  // namespace morphkit
