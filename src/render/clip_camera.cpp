// SPDX-License-Identifier: MIT
// clipBounds: the one auto-framing rule of clip renders (CLI render, Python Renderer.render, batch tasks).
#include <algorithm>

#include "morphkit/core/animation.h"
#include "morphkit/render/render.h"

namespace morphkit {

Expected<Bounds> clipBounds(const Asset& asset, uint32_t scene, uint32_t animation, const WeightInputs& weights) {
  // The whole clip, never the frames being rendered: a range rendered alone must get the camera (and shadow
  // frustum) of the same frames in a full render, so split jobs reproduce one job byte for byte.
  // A face capture (weights.track) lasts as long as its rows; the clip is the longer of the two.
  const double clip = animation == kNone ? 0.0 : animationDuration(asset, animation);
  const double track = weights.track ? weightTrackDuration(*weights.track) : 0.0;
  return posedBounds(asset, scene, animation, 0.0, std::max(clip, track), 24, weights);
}

}  // namespace morphkit
