// SPDX-License-Identifier: MIT
// runRenderCheck (optimize_render_check.h): optimize's poses, render's comparison, the report's renderDiff.
#include "optimize_render_check.h"

#include <fmt/core.h>

#include <memory>
#include <vector>

#include "command.h"
#if HAVE_morphkit_render
#include "morphkit/render/render_compare.h"
#include "morphkit/vk/gpu.h"
#endif

namespace morphkit::cli {
namespace {

#if HAVE_morphkit_render
Expected<RenderDifference> compareFiles(const Asset& input, const std::string& out, const LoadOptions& load) {
  Expected<Asset> output = loadAsset(out, load);
  if (!output) return output.error();
  Expected<std::vector<LabelledPose>> poses = renderCheckPoses(input);
  if (!poses) return poses.error();
  Expected<VulkanContext*> context = createVulkanContext();
  if (!context) return context.error();
  std::unique_ptr<VulkanContext, void (*)(VulkanContext*)> owner(*context,
                                                                 [](VulkanContext* c) { destroyVulkanContext(c); });
  RenderOptions options;
  options.width = options.height = kRenderCheckSize;
  return compareRenders(**context, input, *output, *poses, options);
}
#else
Expected<RenderDifference> compareFiles(const Asset&, const std::string&, const LoadOptions&) {
  return fail(Error::kNoDevice, "this morphkit was built without the renderer");
}
#endif

}  // namespace

int runRenderCheck(std::optional<bool> requested, const OptimizeOptions& options, const Asset& input,
                   const std::string& out, const LoadOptions& load, OptimizeReport& report) {
  if (!requested.value_or(renderCheckByDefault(options))) return 0;
  Expected<RenderDifference> diff = compareFiles(input, out, load);
  if (diff) {
    report.render_diff = std::move(*diff);
    return 0;
  }
  // Only a missing device is forgiven, and only when nobody asked: a failing renderer is a failure either way.
  if (requested || diff.error().code != Error::kNoDevice) return reportFailure("--render-check", diff.error());
  report.notes.push_back("render check skipped: " + diff.error().message +
                         " (--no-render-check leaves it out; docs/OPTIMIZE.md)");
  return 0;
}

void printRenderDiff(const OptimizeReport& report) {
  if (!report.render_diff) return;
  const RenderDifference& d = *report.render_diff;
  fmt::print("  render check {}x{} (per pixel: its largest RGB difference, 0-255)  {:>8} {:>4} {:>4}\n", d.width,
             d.height, "mean", "p99", "max");
  for (const LabelledDifference& frame : d.frames) {
    fmt::print("    {:<62} {:>8.3f} {:>4} {:>4}\n", shown(frame.label, 62), frame.difference.mean_abs,
               frame.difference.p99, frame.difference.max);
  }
  fmt::print("    {:<62} {:>8.3f} {:>4} {:>4}\n", "worst", d.worst_mean, d.worst_p99, d.worst_max);
  for (const std::string& warning : d.warnings) fmt::print("    OUT only: {}\n", shown(warning));
}

}  // namespace morphkit::cli
