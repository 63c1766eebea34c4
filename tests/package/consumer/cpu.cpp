// SPDX-License-Identifier: MIT
// CPU-only consumer: builds the demo asset, writes and reloads it as GLB, poses it on the CPU.
#include <cstdio>
#include <cstring>

#include "morphkit/core/pose.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/version.h"

#if __has_include("morphkit/vk/gpu.h") || __has_include("morphkit/render/render.h") || \
                                                        __has_include("morphkit/material/node_material.h")
#error "a core + gltf install must not carry the GPU layers' headers"
#endif

int main() {
  if (std::strcmp(MORPHKIT_VERSION_STRING, EXPECTED_VERSION) != 0) {
    std::fprintf(stderr, "version.h says %s, the package %s\n", MORPHKIT_VERSION_STRING, EXPECTED_VERSION);
    return 1;
  }
  morphkit::DemoOptions options;
  options.vertices = 300;
  options.targets = 4;
  auto asset = morphkit::makeDemoAsset(options);
  if (!asset) return std::fprintf(stderr, "%s\n", asset.error().message.c_str()), 1;
  auto glb = morphkit::writeGlb(*asset);
  if (!glb) return std::fprintf(stderr, "%s\n", glb.error().message.c_str()), 1;
  auto loaded = morphkit::loadAssetFromMemory(*glb, ".");
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().message.c_str()), 1;
  morphkit::PoseOptions pose_options;
  pose_options.animation = 0;
  pose_options.time = 0.5;
  auto pose = morphkit::poseAsset(*loaded, morphkit::kNone, pose_options);
  if (!pose || pose->meshes.empty()) return std::fprintf(stderr, "pose failed\n"), 1;
  const auto& mesh = pose->meshes[0];
  if (mesh.vertex_count == 0 || mesh.positions.size() != 3 * size_t(mesh.vertex_count)) return 1;
  std::printf("morphkit %s cpu consumer: %u vertices posed\n", MORPHKIT_VERSION_STRING, mesh.vertex_count);
  return 0;
}
