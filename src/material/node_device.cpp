// SPDX-License-Identifier: MIT
// node_device.cpp — per-device fallbacks and per-draw feature resources of node materials.
#include <atomic>
#include <cstring>

#include "morphkit/model/text.h"
#include "node_feature.h"
#include "node_material_vk.h"

namespace morphkit {
namespace {
std::atomic<uint64_t> g_fallback_allocations{0};
}  // namespace

VkDescriptorType nodeDescriptorType(NodeBindingKind kind) {
  switch (kind) {
    case NodeBindingKind::kUniformBuffer:
      return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case NodeBindingKind::kStorageBuffer:
      return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    case NodeBindingKind::kSampledTexture:
    case NodeBindingKind::kShadowSampler:
      return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  }
  return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
}

VkShaderStageFlags nodeShaderStages(uint32_t stages) {
  VkShaderStageFlags flags = 0;
  if (stages & kNodeStageVertex) flags |= VK_SHADER_STAGE_VERTEX_BIT;
  if (stages & kNodeStageFragment) flags |= VK_SHADER_STAGE_FRAGMENT_BIT;
  return flags;
}

std::vector<VkDescriptorSetLayoutBinding> nodeDescriptorSetLayoutBindings(std::span<const NodeBinding> bindings) {
  std::vector<VkDescriptorSetLayoutBinding> out;
  for (const NodeBinding& b : bindings) {
    out.push_back({b.binding, nodeDescriptorType(b.kind), 1, nodeShaderStages(b.stages), nullptr});
  }
  return out;
}

Expected<NodeMaterialDevice*> createNodeMaterialDevice(VulkanContext& context) {
  auto* device = new NodeMaterialDevice();
  device->context = &context;
  return device;
}

void destroyNodeMaterialDevice(NodeMaterialDevice* device) {
  if (!device) return;
  for (NodeMaterialDevice::Fallback& f : device->fallbacks) destroyBuffer(*device->context, f.buffer);
  delete device;
}

Expected<const GpuBuffer*> acquireNodeFallback(NodeMaterialDevice& device, const NodeFeature& feature) {
  std::lock_guard<std::mutex> lock(device.mutex);
  for (NodeMaterialDevice::Fallback& f : device.fallbacks) {
    if (f.feature == feature.name) {
      ++f.users;
      return &f.buffer;
    }
  }
  if (!feature.allocate_fallback)
    return fail(Error::kInvalidArgument, "node feature " + quote(feature.name) + ": no fallback");
  Expected<GpuBuffer> buffer = feature.allocate_fallback(*device.context);
  if (!buffer) return buffer.error();
  ++g_fallback_allocations;
  NodeMaterialDevice::Fallback f;
  f.feature = feature.name;
  f.buffer = *buffer;
  f.allocations = 1;
  f.users = 1;
  device.fallbacks.push_back(f);
  return &device.fallbacks.back().buffer;  // stable: see releaseNodeFallback (never erased before destroy)
}

void releaseNodeFallback(NodeMaterialDevice& device, const std::string& feature) {
  std::lock_guard<std::mutex> lock(device.mutex);
  for (NodeMaterialDevice::Fallback& f : device.fallbacks) {
    if (f.feature == feature && f.users > 0) --f.users;
  }
}

NodeFallbackStats nodeFallbackStats(const NodeMaterialDevice& device, std::string_view feature) {
  std::lock_guard<std::mutex> lock(device.mutex);
  NodeFallbackStats stats;
  for (const NodeMaterialDevice::Fallback& f : device.fallbacks) {
    if (f.feature == feature) {
      stats.allocations = f.allocations;
      stats.users = f.users;
      stats.bytes = f.buffer.size;
    }
  }
  return stats;
}

uint64_t nodeFallbackAllocationsTotal() {
  return g_fallback_allocations.load();
}

Expected<NodeDrawResources*> createNodeDrawResources(NodeMaterialDevice& device, const NodeMaterial& material,
                                                     const PrimitiveData& primitive, std::span<const float> weights) {
  auto* r = new NodeDrawResources();
  auto failWith = [&](const Failure& f) -> Expected<NodeDrawResources*> {
    destroyNodeDrawResources(device, r);
    return f;
  };
  VulkanContext& ctx = *device.context;
  const std::string where =
      "meshes[" + (primitive.mesh == kNone ? std::string("?") : std::to_string(primitive.mesh)) + "].primitives[" +
      (primitive.primitive == kNone ? std::string("?") : std::to_string(primitive.primitive)) + "]";
  for (const auto& feature : orderedNodeFeatures(material.state)) {
    if (feature->name == "morph") {
      r->info.morph = true;
      if (primitive.targets.empty()) {
        // Band-texture path: one shared read-only 24-byte buffer (count 0, vertexCount 1) serves both morph bindings.
        Expected<const GpuBuffer*> fallback = acquireNodeFallback(device, *feature);
        if (!fallback) return failWith(fallback.error());
        r->fallback_features.push_back(feature->name);
        r->info.morph_fallback = true;
        r->buffers.push_back({"NodeMorphDeltas", (*fallback)->buffer, 0, kNodeMorphFallbackBytes});
        r->buffers.push_back({"NodeMorphWeights", (*fallback)->buffer, 0, kNodeMorphFallbackBytes});
        continue;
      }
      const std::vector<uint8_t> deltas = packNodeMorphDeltas(primitive);
      const std::vector<uint8_t> w = packNodeMorphWeights(primitive, weights);
      Expected<GpuBuffer> d = createBuffer(ctx, deltas.size(), MemoryUse::kDevice);
      if (!d) return failWith(fail(d.error().code, where + ": morph deltas: " + d.error().message));
      r->morph_deltas = *d;
      ++r->info.buffers_owned;
      if (Status s = uploadToBuffer(ctx, r->morph_deltas, 0, deltas.data(), deltas.size()); !s)
        return failWith(s.error());
      Expected<GpuBuffer> wb = createBuffer(ctx, w.size(), MemoryUse::kUpload);
      if (!wb) return failWith(fail(wb.error().code, where + ": morph weights: " + wb.error().message));
      r->morph_weights = *wb;
      ++r->info.buffers_owned;
      std::memcpy(r->morph_weights.mapped, w.data(), w.size());
      r->info.morph_targets = uint32_t(primitive.targets.size());
      r->buffers.push_back({"NodeMorphDeltas", r->morph_deltas.buffer, 0, VK_WHOLE_SIZE});
      r->buffers.push_back({"NodeMorphWeights", r->morph_weights.buffer, 0, VK_WHOLE_SIZE});
    } else if (feature->name == "skin") {
      r->info.skin = true;
      if (primitive.influences == 0) {
        Expected<const GpuBuffer*> fallback = acquireNodeFallback(device, *feature);
        if (!fallback) return failWith(fallback.error());
        r->fallback_features.push_back(feature->name);
        r->info.skin_fallback = true;
        r->buffers.push_back({"NodeSkinStream", (*fallback)->buffer, 0, VK_WHOLE_SIZE});
        r->buffers.push_back({"NodeJointMatrices", (*fallback)->buffer, 0, VK_WHOLE_SIZE});
      }
    }
  }
  return r;
}

Status updateNodeDrawWeights(NodeDrawResources& resources, std::span<const float> weights) {
  if (!resources.morph_weights.mapped) return Ok{};
  auto* bytes = static_cast<uint8_t*>(resources.morph_weights.mapped);
  if (!writeNodeMorphWeights(std::span<uint8_t>(bytes, resources.morph_weights.size), weights)) {
    return fail(Error::kInvalidArgument, "updateNodeDrawWeights: weights buffer too small");
  }
  return Ok{};
}

void destroyNodeDrawResources(NodeMaterialDevice& device, NodeDrawResources* resources) {
  if (!resources) return;
  destroyBuffer(*device.context, resources->morph_deltas);
  destroyBuffer(*device.context, resources->morph_weights);
  for (const std::string& f : resources->fallback_features) releaseNodeFallback(device, f);
  delete resources;
}

NodeDrawInfo nodeDrawInfo(const NodeDrawResources& resources) {
  return resources.info;
}

}  // namespace morphkit

namespace morphkit {

Expected<NodeVkProgram> createNodeVkProgram(VulkanContext& context, const NodeMaterialPrograms& programs) {
  NodeVkProgram p;
  auto failWith = [&](const char* where, VkResult r) -> Expected<NodeVkProgram> {
    destroyNodeVkProgram(context, p);
    return vulkanFailure(where, r);
  };
  const std::vector<VkDescriptorSetLayoutBinding> bindings = nodeDescriptorSetLayoutBindings(programs.glsl.bindings);
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.bindingCount = uint32_t(bindings.size());
  info.pBindings = bindings.data();
  if (VkResult r = vkCreateDescriptorSetLayout(context.device, &info, nullptr, &p.set_layout); r != VK_SUCCESS) {
    return failWith("vkCreateDescriptorSetLayout(node material)", r);
  }
  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &p.set_layout;
  if (VkResult r = vkCreatePipelineLayout(context.device, &layout, nullptr, &p.layout); r != VK_SUCCESS) {
    return failWith("vkCreatePipelineLayout(node material)", r);
  }
  auto module = [&](const std::vector<uint32_t>& words, VkShaderModule& out) -> Status {
    Expected<VkShaderModule> created = createShaderModule(context.device, words.data(), words.size() * 4);
    if (!created) return created.error();
    out = *created;
    return Ok{};
  };
  for (uint32_t i = 0; i < kNodePipelineCount; ++i) {
    if (programs.spirv[i].vertex.empty()) {
      destroyNodeVkProgram(context, p);
      return fail(Error::kInvalidArgument, "createNodeVkProgram: no vertex SPIR-V");
    }
    if (Status s = module(programs.spirv[i].vertex, p.vertex[i]); !s) {
      destroyNodeVkProgram(context, p);
      return s.error();
    }
  }
  const std::vector<uint32_t>& fs = programs.spirv[size_t(NodePipeline::kColor)].fragment;
  if (fs.empty()) {
    destroyNodeVkProgram(context, p);
    return fail(Error::kInvalidArgument, "createNodeVkProgram: no fragment SPIR-V");
  }
  if (Status s = module(fs, p.fragment); !s) {
    destroyNodeVkProgram(context, p);
    return s.error();
  }
  return p;
}

void destroyNodeVkProgram(VulkanContext& context, NodeVkProgram& program) {
  for (VkShaderModule& m : program.vertex) vkDestroyShaderModule(context.device, m, nullptr);
  vkDestroyShaderModule(context.device, program.fragment, nullptr);
  vkDestroyPipelineLayout(context.device, program.layout, nullptr);
  vkDestroyDescriptorSetLayout(context.device, program.set_layout, nullptr);
  program = NodeVkProgram{};
}

}  // namespace morphkit
