// SPDX-License-Identifier: MIT
// Placed first on the CPU-only consumer's include path: reaching it means a core/gltf header pulled in Vulkan.
#error "a morphkit core/gltf header included <vulkan/vulkan.h>"
