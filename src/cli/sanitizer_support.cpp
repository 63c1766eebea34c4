// Only in sanitizer builds (scripts/test): keep LeakSanitizer's report about morphkit's own memory.
// The Vulkan loader unloads the ICD and layers at vkDestroyInstance; their process-lifetime allocations then
// show as "<unknown module>", which no suppression can name. Pinning them (RTLD_NODELETE) keeps the frames
// symbolized so the suppressions below — third-party drivers only, as in tests/lsan.supp — apply.
#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>

#include <initializer_list>

namespace {
const bool kDriversPinned = [] {
  for (const char* lib : {"libvulkan_lvp.so", "libVkLayer_khronos_validation.so"}) dlopen(lib, RTLD_NOW | RTLD_NODELETE);
  return true;
}();
}  // namespace

extern "C" __attribute__((used, visibility("default"))) const char* __lsan_default_suppressions() {
  return "leak:libvulkan_lvp.so\nleak:libLLVM\nleak:libVkLayer_khronos_validation.so\n";
}
#endif
