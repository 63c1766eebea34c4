// SPDX-License-Identifier: MIT
// morphkit/core/track_reduce.h — the fewest LINEAR keys of a weight track (morphkit/core/weights.h) such that, posed
// with the core's own pose on the rest pose, every vertex of every posed mesh at every key time of the full track lies
// within a distance bound of its position under the full track. The bound is in vertex space (world units, metres
// in glTF), not in weight space as gltfpack's and glTF-Transform's key reduction is.
//
// How: posed positions are affine in the track's values (morph targets add Σ wᵢ·Δᵢ, skinning and node transforms
// are linear and the same at every time on the rest pose), so posing the track's zero row and each column set to
// 1 gives the map values → positions. A key interval is admissible when the interpolation error it makes at each
// row inside it, mapped to every vertex, stays within the bound (a per-64-vertex bound skips most vertices);
// the fewest keys follow by a shortest path over admissible intervals (first and last rows always kept). The
// result is then checked by posing both tracks at every row time; a row over the bound (rounding) becomes a key
// and the check runs again, so the reported error is the core's own measure.
#pragma once
#include <cstddef>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/core/weights.h"
#include "morphkit/model/error.h"

namespace morphkit {

struct TrackReduction {
  WeightTrack track;              // the kept keys (rows of the full track, its times and values)
  std::vector<size_t> kept_rows;  // indices into the full track's rows, increasing
  size_t keys_before = 0;
  double max_error = 0.0;       // the largest vertex distance at the full track's row times (world units)
  double max_error_time = 0.0;  // where it occurs
};

// `prepared`: the asset posed on its rest pose (animation kNone); `track`: passes checkWeightTrack, its names
// matched exactly (NameMatch::kExact, as matchCapture gives them). `max_error` (world units) > 0.
// Fails like evaluatePose, or (kInvalidArgument) for a bad track or bound.
Expected<TrackReduction> reduceWeightTrack(const PosePrepared& prepared, const WeightTrack& track, double max_error,
                                           ThreadPool* pool = nullptr);

}  // namespace morphkit
