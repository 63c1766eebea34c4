// SPDX-License-Identifier: MIT
// The consumer's target asks for C++17 only; morphkit::core's INTERFACE_COMPILE_FEATURES (cxx_std_20) must raise
// it, since morphkit's headers use std::span.
#if __cplusplus < 202002L
#error "morphkit's targets did not carry cxx_std_20 to this consumer"
#endif
#include <cstdio>
#include <span>

#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"

int main() {
  morphkit::DemoOptions options;
  options.vertices = 100;
  options.targets = 2;
  auto asset = morphkit::makeDemoAsset(options);
  if (!asset) return 1;
  auto glb = morphkit::writeGlb(*asset);
  if (!glb) return 1;
  std::span<const uint8_t> bytes(*glb);
  auto loaded = morphkit::loadAssetFromMemory(bytes, ".");
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().message.c_str()), 1;
  std::printf("C++%ld consumer: %zu bytes of GLB, %zu meshes\n", long(__cplusplus), bytes.size(),
              loaded->meshes.size());
  return 0;
}
