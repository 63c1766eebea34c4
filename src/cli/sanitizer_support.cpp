// SPDX-License-Identifier: MIT
// Only in sanitizer builds (scripts/test): LeakSanitizer suppressions for third-party Vulkan drivers and layers
// (as tests/lsan.supp), built in so the CLI run by hand reports only morphkit's own leaks. The driver libraries
// stay loaded for symbolization because createVulkanContext pins them (src/vk/vk_context.cpp).
#if defined(__SANITIZE_ADDRESS__)
extern "C" __attribute__((used, visibility("default"))) const char* __lsan_default_suppressions() {
  return "leak:libvulkan_lvp.so\nleak:libLLVM\nleak:libVkLayer_khronos_validation.so\n";
}
#endif
