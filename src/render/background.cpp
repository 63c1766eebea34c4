// SPDX-License-Identifier: MIT
// --background environment: one full-screen triangle at the far plane drawn first in the color pass
// (background.vert + background.frag, set 0 of the mesh program: the frame block and the environment). Depth test
// LESS_OR_EQUAL without writes, so the prepass's (or the later draws') depths keep the model in front.
#include "morphkit_render_spirv/background_frag.h"
#include "morphkit_render_spirv/background_vert.h"
#include "renderer_state.h"

namespace morphkit {

Status createBackground(Renderer& r) {
  if (!r.options.background_environment) return Ok{};
  BackgroundPipeline& b = r.background;
  VkDevice device = r.ctx->device;
  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &r.mesh_program.frame_layout;
  if (Status s = checkVk(vkCreatePipelineLayout(device, &layout, nullptr, &b.layout), "vkCreatePipelineLayout(bg)"); !s)
    return s;
  Expected<VkShaderModule> vert =
      createShaderModule(device, gpu::spirv::kBackgroundVert, sizeof gpu::spirv::kBackgroundVert);
  if (!vert) return vert.error();
  Expected<VkShaderModule> frag =
      createShaderModule(device, gpu::spirv::kBackgroundFrag, sizeof gpu::spirv::kBackgroundFrag);
  if (!frag) {
    vkDestroyShaderModule(device, *vert, nullptr);
    return frag.error();
  }
  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = *vert;
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = *frag;
  stages[1].pName = "main";
  VkPipelineVertexInputStateCreateInfo input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport.viewportCount = viewport.scissorCount = 1;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = r.targets.samples;
  VkPipelineDepthStencilStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  ds.depthTestEnable = VK_TRUE;
  ds.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = 0xF;
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = 1;
  cb.pAttachments = &blend;
  VkDynamicState dynamic_states[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dyn{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dyn.dynamicStateCount = 2;
  dyn.pDynamicStates = dynamic_states;
  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.stageCount = 2;
  info.pStages = stages;
  info.pVertexInputState = &input;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewport;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &ms;
  info.pDepthStencilState = &ds;
  info.pColorBlendState = &cb;
  info.pDynamicState = &dyn;
  info.layout = b.layout;
  info.renderPass = r.targets.color_pass;
  Status s = checkVk(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, &b.pipeline),
                     "vkCreateGraphicsPipelines(background)");
  vkDestroyShaderModule(device, *vert, nullptr);
  vkDestroyShaderModule(device, *frag, nullptr);
  return s;
}

void recordBackground(const Renderer& r, VkCommandBuffer cmd) {
  if (!r.background.pipeline) return;
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.background.pipeline);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r.background.layout, 0, 1, &r.frames[r.data_slot].set,
                          0, nullptr);
  vkCmdDraw(cmd, 3, 1, 0, 0);
}

void destroyBackground(VulkanContext& ctx, BackgroundPipeline& b) {
  vkDestroyPipeline(ctx.device, b.pipeline, nullptr);
  vkDestroyPipelineLayout(ctx.device, b.layout, nullptr);
  b = BackgroundPipeline{};
}

}  // namespace morphkit
