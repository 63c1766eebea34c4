// SPDX-License-Identifier: MIT
// node_material_vk.h — internal: the Vulkan side of node materials, for the renderer (src/render) and tests.
// The public handles of morphkit/material/node_material.h (NodeMaterialDevice, NodeDrawResources) are these structs.
#pragma once
#include <vulkan/vulkan.h>

#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "morphkit/material/node_material.h"
#include "vk_context.h"

namespace morphkit {

struct NodeMaterialDevice {
  struct Fallback {
    std::string feature;
    GpuBuffer buffer;
    uint32_t allocations = 0;  // 0 or 1: allocated on first use, kept until the device is destroyed
    uint32_t users = 0;        // NodeDrawResources currently bound to it
  };
  VulkanContext* context = nullptr;
  mutable std::mutex mutex;
  std::deque<Fallback> fallbacks;  // deque: acquireNodeFallback hands out stable pointers
};

// One buffer descriptor of a draw's feature binding (NodeBinding::name, e.g. "NodeMorphDeltas").
struct NodeDrawBuffer {
  std::string binding;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize range = VK_WHOLE_SIZE;
};

struct NodeDrawResources {
  NodeDrawInfo info;
  std::vector<NodeDrawBuffer> buffers;         // feature bindings this object provides, in binding order
  GpuBuffer morph_deltas, morph_weights;       // owned (primitives with targets)
  std::vector<std::string> fallback_features;  // fallbacks this draw holds a use of
};

// The descriptor type of a binding kind: uniform/storage buffer, or a combined image sampler (textures and the
// shadow map, whose sampler has compareEnable).
VkDescriptorType nodeDescriptorType(NodeBindingKind kind);
VkShaderStageFlags nodeShaderStages(uint32_t stages);
// VkDescriptorSetLayoutBinding per NodeBinding, same order and numbers (all bindings are in kNodeMaterialSet).
std::vector<VkDescriptorSetLayoutBinding> nodeDescriptorSetLayoutBindings(std::span<const NodeBinding> bindings);

// A node material's Vulkan program objects: its one descriptor set layout (the binding list), a pipeline layout with
// only that set (no push constants), and the shader modules of the three pipelines (the color fragment module).
// The renderer builds its VkPipelines from these with its own fixed-function state and render passes.
struct NodeVkProgram {
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkShaderModule vertex[kNodePipelineCount] = {};  // index by NodePipeline
  VkShaderModule fragment = VK_NULL_HANDLE;        // NodePipeline::kColor
};
Expected<NodeVkProgram> createNodeVkProgram(VulkanContext& context, const NodeMaterialPrograms& programs);
void destroyNodeVkProgram(VulkanContext& context, NodeVkProgram& program);  // resets it; an empty one is fine

// The shared fallback buffer of `feature` on this device: allocated on the first call (feature.allocate_fallback),
// then returned again with `users` incremented. releaseNodeFallback decrements `users`; the buffer stays until
// destroyNodeMaterialDevice.
struct NodeFeature;
Expected<const GpuBuffer*> acquireNodeFallback(NodeMaterialDevice& device, const NodeFeature& feature);
void releaseNodeFallback(NodeMaterialDevice& device, const std::string& feature);

}  // namespace morphkit
