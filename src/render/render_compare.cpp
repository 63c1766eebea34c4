// SPDX-License-Identifier: MIT
// compareRenders (morphkit/render/render_compare.h): one camera, two renderers, a frame of each at every pose.
#include "morphkit/render/render_compare.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "morphkit/render/environment.h"

namespace morphkit {
namespace {

using RendererPtr = std::unique_ptr<Renderer, void (*)(Renderer*)>;

RenderFrameInput frameInput(const LabelledPose& pose) {
  RenderFrameInput input;
  input.animation = pose.animation;
  input.time = pose.time;
  input.weights.overrides = pose.overrides;
  return input;
}

// The box holding `asset`'s posed vertices at every pose (each pose's own bounds, one sample).
Expected<Bounds> posesBounds(const Asset& asset, uint32_t scene, std::span<const LabelledPose> poses) {
  Bounds all;
  for (const LabelledPose& pose : poses) {
    const RenderFrameInput in = frameInput(pose);
    Expected<Bounds> one = posedBounds(asset, scene, in.animation, in.time, in.time, 1, in.weights);
    if (!one) return one.error();
    if (one->empty()) continue;
    all.min = {std::min(all.min.x, one->min.x), std::min(all.min.y, one->min.y), std::min(all.min.z, one->min.z)};
    all.max = {std::max(all.max.x, one->max.x), std::max(all.max.y, one->max.y), std::max(all.max.z, one->max.z)};
  }
  return all;  // sphere_radius < 0: frameBounds uses the box's sphere
}

}  // namespace

Expected<RenderDifference> compareRenders(VulkanContext& context, const Asset& reference, const Asset& candidate,
                                          std::span<const LabelledPose> poses, const RenderOptions& options) {
  Expected<Bounds> bounds = posesBounds(reference, options.scene, poses);
  if (!bounds) return bounds.error();
  RenderOptions shared = options;
  std::unique_ptr<EnvironmentMaps, void (*)(EnvironmentMaps*)> maps(nullptr, destroyEnvironmentMaps);
  if (shared.environment == EnvironmentKind::kStudio && !shared.environment_maps) {
    const HdrImage studio = studioEnvironment();
    Expected<EnvironmentMaps*> made = createEnvironmentMaps(context, &studio);
    if (!made) return made.error();
    maps.reset(*made);
    shared.environment_maps = maps.get();
  }
  const RenderCamera camera = frameBounds(*bounds, float(shared.width) / float(shared.height));
  // One renderer at a time: the two never hold GPU memory together (the input may be large).
  std::vector<RenderedImage> images;
  images.reserve(poses.size());
  RenderDifference result;
  std::vector<std::string> reference_warnings;
  result.width = shared.width;
  result.height = shared.height;
  for (const bool is_reference : {true, false}) {
    Expected<Renderer*> created = createRenderer(context, is_reference ? reference : candidate, shared);
    if (!created) return created.error();
    RendererPtr renderer(*created, destroyRenderer);
    setRendererCamera(*renderer, camera, *bounds);
    // Frames in flight: a frame's readback and measurement overlap the next one's GPU work.
    Status rendered = renderFrameSequence(
        *renderer, uint32_t(poses.size()), [&](uint32_t f) { return frameInput(poses[f]); },
        [&](uint32_t f, RenderedImage&& image, const RenderStats&) -> Status {
          if (is_reference) {
            images.push_back(std::move(image));
            return Ok{};
          }
          Expected<PixelDifference> difference =
              measurePixelDifference(images[f].rgba, image.rgba, result.width, result.height);
          if (!difference) return difference.error();
          addFrameDifference(result, poses[f].label, *difference);
          return Ok{};
        });
    if (!rendered) return rendered.error();
    if (is_reference) {
      reference_warnings = rendererInfo(*renderer).warnings;
    } else {
      for (const std::string& warning : rendererInfo(*renderer).warnings) {
        if (std::find(reference_warnings.begin(), reference_warnings.end(), warning) == reference_warnings.end())
          result.warnings.push_back(warning);
      }
    }
  }
  return result;
}

}  // namespace morphkit
