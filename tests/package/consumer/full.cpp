// SPDX-License-Identifier: MIT
// Every component: loads the demo asset, renders one small frame on the first Vulkan device with a node material
// (node material GLSL -> SPIR-V through shaderc at run time), so the static link of vk, material and render and
// their dependencies is exercised, not only compiled. Without a Vulkan device it skips (exit 0) unless CI=true.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/material/node_material.h"
#include "morphkit/render/render.h"
#include "morphkit/vk/gpu.h"
#include "morphkit/vk/gpu_interop.h"  // the one public header with <vulkan/vulkan.h>: Vulkan::Vulkan comes with morphkit::vk

int main(int argc, char** argv) {
  if (argc != 2) return std::fprintf(stderr, "usage: consumer MATERIAL.json\n"), 2;
  morphkit::DemoOptions options;
  options.vertices = 300;
  options.targets = 4;
  auto asset = morphkit::makeDemoAsset(options);
  if (!asset) return 1;
  auto glb = morphkit::writeGlb(*asset);
  if (!glb) return 1;
  auto loaded = morphkit::loadAssetFromMemory(*glb, ".");
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().message.c_str()), 1;
  auto material = morphkit::loadNodeMaterial(argv[1]);
  if (!material) return std::fprintf(stderr, "%s\n", material.error().message.c_str()), 1;

  auto context = morphkit::createVulkanContext();
  if (!context) {
    const char* ci = std::getenv("CI");
    std::fprintf(stderr, "no Vulkan device: %s\n", context.error().message.c_str());
    return ci && std::strcmp(ci, "true") == 0 ? 1 : 0;
  }
  // The engine-interop door links too: a context on the device this context created (not destroyed by it).
  morphkit::GpuExternalDevice borrowed;
  borrowed.queue_family_index = 99;
  if (morphkit::createVulkanContextFromDevice(borrowed)) return std::fprintf(stderr, "null handles accepted\n"), 1;
  if (morphkit::gpuOutputSync().dst_stage != VK_PIPELINE_STAGE_VERTEX_INPUT_BIT) return 1;
  morphkit::RenderOptions render_options;
  render_options.width = 32;
  render_options.height = 24;
  render_options.shadows = false;
  render_options.node_material = &*material;
  int status = 1;
  auto renderer = morphkit::createRenderer(**context, *loaded, render_options);
  if (!renderer) {
    std::fprintf(stderr, "%s\n", renderer.error().message.c_str());
  } else {
    morphkit::RenderFrameInput input;
    input.animation = 0;
    input.time = 0.25;
    auto image = morphkit::renderFrame(**renderer, input);
    if (!image) {
      std::fprintf(stderr, "%s\n", image.error().message.c_str());
    } else if (image->width == 32 && image->height == 24 && image->rgba.size() == 32u * 24u * 4u) {
      auto png = morphkit::encodePng(image->rgba, image->width, image->height);
      if (png && !png->empty()) status = 0;
      std::printf("full consumer: %ux%u frame on %s\n", image->width, image->height,
                  morphkit::gpuDeviceInfo(**context).name.c_str());
    }
    morphkit::destroyRenderer(*renderer);
  }
  morphkit::destroyVulkanContext(*context);
  return status;
}
