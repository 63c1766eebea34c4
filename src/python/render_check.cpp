// SPDX-License-Identifier: MIT
// renderCheck (render_check.h): optimize's poses, render's comparison, the report's renderDiff.
#include "render_check.h"

#include <memory>

#include "morphkit/render/render_compare.h"
#include "morphkit/vk/gpu.h"

namespace morphkit::python {

Status renderCheck(std::optional<bool> requested, const OptimizeOptions& options, const Asset& input,
                   const std::string& out, const LoadOptions& load, OptimizeReport& report) {
  if (!requested.value_or(renderCheckByDefault(options))) return Ok{};
  Expected<Asset> output = loadAsset(out, load);
  if (!output) return output.error();
  Expected<std::vector<LabelledPose>> poses = renderCheckPoses(input);
  if (!poses) return poses.error();
  Expected<VulkanContext*> context = createVulkanContext();  // MORPHKIT_VALIDATION=1 turns the layer on
  if (!context) {
    if (requested || context.error().code != Error::kNoDevice) return context.error();
    report.notes.push_back("render check skipped: " + context.error().message +
                           " (render_check=False leaves it out; docs/OPTIMIZE.md)");
    return Ok{};
  }
  std::unique_ptr<VulkanContext, void (*)(VulkanContext*)> owner(*context,
                                                                 [](VulkanContext* c) { destroyVulkanContext(c); });
  RenderOptions render;
  render.width = render.height = kRenderCheckSize;
  Expected<RenderDifference> diff = compareRenders(**context, input, *output, *poses, render);
  if (!diff) return diff.error();
  report.render_diff = std::move(*diff);
  return Ok{};
}

}  // namespace morphkit::python
