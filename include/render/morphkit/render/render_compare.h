// SPDX-License-Identifier: MIT
// morphkit/render/render_compare.h — two assets rendered alike and compared frame by frame: what a change to a file
// (morphkit optimize's re-encoded textures, quantized or simplified geometry) costs on screen (docs/OPTIMIZE.md,
// "What the user sees"). The pixel math is the image layer's (measurePixelDifference, morphkit/image/image.h).
#pragma once
#include <span>
#include <string>

#include "morphkit/core/pose.h"
#include "morphkit/image/image.h"
#include "morphkit/render/render.h"

namespace morphkit {

// Renders `reference` and `candidate` at every pose (morphkit/core/pose.h LabelledPose; an override naming no target
// fails) with the same `options` (size, look, morph path; a scene index valid in both) from the same camera —
// frameBounds over `reference`'s posed bounds at every pose, which also bound the shadow — and measures every pair
// (measurePixelDifference), reported under the pose's label. The built-in studio environment, when `options` asks for
// it and brings no maps, is made once and shared by both renderers. The candidate renderer's warnings the reference's
// did not give go into RenderDifference::warnings. Fails with the first error (kNoDevice from
// createRenderer when the context cannot draw); `context` must outlive the call only.
Expected<RenderDifference> compareRenders(VulkanContext& context, const Asset& reference, const Asset& candidate,
                                          std::span<const LabelledPose> poses, const RenderOptions& options);

}  // namespace morphkit
