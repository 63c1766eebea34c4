// SPDX-License-Identifier: MIT
// morphkit/core/animation.h — exact keyframe sampling (glTF 2.0 §3.11 "Animations", Appendix C "Interpolation").
//
// Sampler data is decoded once (decodeAnimation) into plain float arrays, so sampling never touches accessors.
// Sampling walks sorted key times with a cursor cached between calls: sequential playback costs O(1) per
// channel, random access costs one binary search (std::upper_bound). No std::map anywhere.
//
// Rules implemented (glTF 2.0 §3.11 and Appendix C):
//   STEP         the value of the last key whose time <= t.
//   LINEAR       lerp between the two keys around t; rotations slerp on the shortest arc (double-cover flip).
//   CUBICSPLINE  cubic Hermite from (in-tangent a, value v, out-tangent b) triplets; tangents are multiplied by
//                the key interval t_d = t_{k+1} - t_k; rotations are normalized afterwards.
//   t before the first key / after the last key: the first / last key's value (no extrapolation, no looping).
//   A one-key sampler is constant. Weights are never clamped (negative and > 1 are kept).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"
#include "morphkit/model/math.h"

namespace morphkit {

// One sampler decoded to floats.
struct SamplerData {
  Interpolation interpolation = Interpolation::kLinear;
  uint32_t components = 0;   // floats per value: 3 translation/scale, 4 rotation (x,y,z,w), T for weights
  std::vector<float> times;  // key_count strictly increasing key times (seconds)
  // LINEAR/STEP: key_count × components values.
  // CUBICSPLINE: per key [in-tangent × components, value × components, out-tangent × components]
  //              (for weights that is [a × T, v × T, b × T], §3.11 "Animation sampler outputs").
  std::vector<float> values;
  bool is_rotation = false;  // slerp / normalize as a quaternion
};

struct ChannelData {
  uint32_t sampler = 0;   // into AnimationData::samplers
  uint32_t node = kNone;  // target node; channels without a node are dropped at decode time
  TargetPath path = TargetPath::kTranslation;
  // kWeights from a "/nodes/{n}/weights/{i}" pointer (KHR_animation_pointer): the one weight the (1-component)
  // sampler drives, of weight_count; kNone: the sampler drives the whole array.
  uint32_t element = kNone;
  uint32_t weight_count = 0;
};

struct AnimationData {
  std::string name;
  std::vector<SamplerData> samplers;
  std::vector<ChannelData> channels;
  double duration = 0.0;  // max over samplers of their last key time
};

// Decodes animations[animation] of a validated asset. KHR_animation_pointer's morph-weight channels become weight
// channels: "/nodes/{n}/weights" one on node n, "/nodes/{n}/weights/{i}" one with element i, "/meshes/{m}/weights"
// one on every node that instantiates mesh m without weights of its own (§3.7.2.1: node.weights override the
// mesh's). Mesh channels come first, so a node's own channel, played later, wins over its mesh's. Fails (kInvalidGltf,
// "animations[i].samplers[j]: ...") when an output count does not match its input count × components (× 3 for
// CUBICSPLINE). Samplers no kept channel uses (none at all, or only channels without a node, e.g.
// KHR_animation_pointer) stay empty: components 0, no times, no values; so do duplicates of an earlier sampler (same
// input, output, interpolation and path), whose channels point at that earlier one.
Expected<AnimationData> decodeAnimation(const Asset& asset, uint32_t animation);

// The clip's duration: the max of the input maxima of the samplers its channels use (channels with a node only;
// 0 when there are none).
double animationDuration(const Asset& asset, uint32_t animation);

// How CUBICSPLINE tangents are scaled (Appendix C multiplies them by the key interval t_d). kNormalizedTime is
// Filament gltfio's deviation (libs/gltfio/src/math.h cubicSpline: the tangent terms times the interval's u in
// [0, 1) instead of t_d), for `morphkit check`'s profiles; every core path samples with kKeyInterval.
enum class CubicTangentScale : uint8_t { kKeyInterval, kNormalizedTime };

// Cursor cached between samples of one sampler: the index of the key interval used last time.
struct SamplerCursor {
  uint32_t key = 0;
};

// Samples `sampler` at `time` into `out` (exactly sampler.components floats). `cursor` is optional.
// Returns false (writing nothing) when `out` has the wrong size or the sampler has no keys.
bool sampleSampler(const SamplerData& sampler, double time, std::span<float> out, SamplerCursor* cursor = nullptr,
                   CubicTangentScale cubic = CubicTangentScale::kKeyInterval);

// Animated values for one node. `has_*` false: the node's own (static) value applies.
struct NodePose {
  bool has_translation = false, has_rotation = false, has_scale = false, has_weights = false;
  Vec3 translation;
  Quat rotation;
  Vec3 scale{1, 1, 1};
  std::vector<float> weights;
  // Empty: `weights` replaces the node's weights. Otherwise one flag per weight: only the flagged ones replace the
  // node's (or mesh's) static weights ("/nodes/{n}/weights/{i}" pointer channels animate single weights).
  std::vector<uint8_t> weight_mask;
};

// Cursors of one animation, one per sampler; reuse it across frames for O(1) sequential playback.
struct SamplingContext {
  std::vector<SamplerCursor> cursors;
  SamplerCursor weight_track;  // the cursor of a weight track (morphkit/core/weights.h) played alongside
};

// Job (ozz style): samples every channel of `animation` at `time` into `output`, one NodePose per asset node.
// Nodes not targeted keep has_* = false (the job resets all flags first). When two channels target the same
// node and path, the later channel wins.
struct AnimationSamplingJob {
  const AnimationData* animation = nullptr;  // required
  double time = 0.0;                         // seconds; NaN samples as the first key
  SamplingContext* context = nullptr;        // optional; resized to the sampler count when needed
  std::span<NodePose> output;                // required: size > every channel's node index
  CubicTangentScale cubic_tangents = CubicTangentScale::kKeyInterval;  // an engine profile's deviation (check)

  bool validate() const;
  bool run() const;  // validates first; false when invalid
};

}  // namespace morphkit
