// SPDX-License-Identifier: MIT
// Helpers for the engine-interop tests (tests/vk_interop_*_test.cpp): the suite's validated context lent out as
// the "caller's" device, and the caller's own command pool and buffer.
#pragma once
#include <gtest/gtest.h>

#include "gltf_test_util.h"
#include "morphkit/demo/demo.h"
#include "morphkit/vk/gpu_interop.h"
#include "vk_context.h"

namespace morphkit::test {

inline GpuExternalDevice borrow(const VulkanContext& owner) {
  GpuExternalDevice d;
  d.instance = owner.instance;
  d.physical_device = owner.physical;
  d.device = owner.device;
  d.queue = owner.queue;
  d.queue_family_index = owner.queue_family;
  d.api_version = VK_API_VERSION_1_2;
  d.buffer_device_address = true;
  d.shader_int64 = true;
  d.storage_buffer_16bit_access = owner.info.storage_16bit;
  return d;
}

// The caller's side of a frame: its own pool and command buffer on the owner's queue family.
struct CallerFrame {
  VkDevice device = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  explicit CallerFrame(const VulkanContext& owner) : device(owner.device) {
    VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pool_info.queueFamilyIndex = owner.queue_family;
    pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    EXPECT_EQ(vkCreateCommandPool(device, &pool_info, nullptr, &pool), VK_SUCCESS);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, pool,
                                      VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    EXPECT_EQ(vkAllocateCommandBuffers(device, &alloc, &cmd), VK_SUCCESS);
  }
  ~CallerFrame() { vkDestroyCommandPool(device, pool, nullptr); }
};

inline Expected<Asset> smallDemo() {
  Expected<Asset> demo = makeDemoAsset({.targets = 8, .vertices = 300, .bones = 3});
  if (!demo) return demo;
  return validated(std::move(demo).value());
}

}  // namespace morphkit::test
