// SPDX-License-Identifier: MIT
// animation.cpp — keyframe decoding and sampling (glTF 2.0 §3.11, Appendix C).
#include "morphkit/core/animation.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "morphkit/model/accessor.h"
#include "morphkit/model/contract.h"

namespace morphkit {

namespace {

uint32_t pathComponents(TargetPath path) {
  switch (path) {
    case TargetPath::kTranslation:
    case TargetPath::kScale:
      return 3;
    case TargetPath::kRotation:
      return 4;
    case TargetPath::kWeights:
      return 0;  // decided by the output count
  }
  return 0;
}

// Finds k with times[k] <= t < times[k+1] (0 <= k <= n-2), given n >= 2 and times[0] <= t < times[n-1].
// Sequential playback moves the cached key by at most one interval: O(1). Anything else: upper_bound.
uint32_t findInterval(const std::vector<float>& times, double t, SamplerCursor* cursor) {
  const uint32_t n = uint32_t(times.size());
  if (cursor) {
    uint32_t k = cursor->key;
    if (k + 1 < n && times[k] <= t) {
      if (t < times[k + 1]) return k;
      if (k + 2 < n && t < times[k + 2]) return cursor->key = k + 1;
    }
  }
  // First key strictly greater than t, minus one: the last key <= t.
  auto it = std::upper_bound(times.begin(), times.end(), t, [](double value, float key) { return value < key; });
  uint32_t k = uint32_t(it - times.begin()) - 1;
  if (k > n - 2) k = n - 2;
  if (cursor) cursor->key = k;
  return k;
}

void normalizeQuat(std::span<float> q) {
  double len = std::sqrt(double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3]);
  if (len > 0.0) {
    for (int i = 0; i < 4; ++i) q[size_t(i)] = float(q[size_t(i)] / len);
  }
}

// The channels a frame plays, in the order decodeAnimation's contract states (mesh-weight pointers first).
std::vector<ChannelData> playedChannels(const Asset& asset, const Animation& anim,
                                        const std::vector<uint32_t>& canonical) {
  std::vector<ChannelData> channels;
  for (const AnimationChannel& ch : anim.channels) {
    if (ch.pointer.target != PointerTarget::kMeshWeights) continue;
    MORPHKIT_EXPECTS(ch.sampler < canonical.size() && ch.pointer.index < asset.meshes.size());
    for (uint32_t n = 0; n < asset.nodes.size(); ++n) {
      if (asset.nodes[n].mesh == ch.pointer.index && asset.nodes[n].weights.empty())
        channels.push_back(ChannelData{canonical[ch.sampler], n, TargetPath::kWeights});
    }
  }
  for (const AnimationChannel& ch : anim.channels) {
    const PointerTarget pointer = ch.pointer.target;
    if (ch.node == kNone && pointer != PointerTarget::kNodeWeights && pointer != PointerTarget::kNodeWeight)
      continue;  // §3.11: a channel without target.node is ignored (so are pointers morphkit does not play)
    ChannelData data{canonical[ch.sampler], ch.node, ch.path};
    if (ch.node == kNone) data.node = ch.pointer.index;
    MORPHKIT_EXPECTS(ch.sampler < canonical.size() && data.node < asset.nodes.size());
    if (pointer == PointerTarget::kNodeWeight) {
      MORPHKIT_EXPECTS(asset.nodes[data.node].mesh < asset.meshes.size());
      data.element = ch.pointer.element;
      data.weight_count = targetCount(asset.meshes[asset.nodes[data.node].mesh]);
    }
    channels.push_back(data);
  }
  return channels;
}

}  // namespace

bool sampleSampler(const SamplerData& s, double time, std::span<float> out, SamplerCursor* cursor,
                   CubicTangentScale tangent_scale) {
  const uint32_t c = s.components;
  const uint32_t n = uint32_t(s.times.size());
  if (n == 0 || c == 0 || out.size() != c) return false;
  const bool cubic = s.interpolation == Interpolation::kCubicSpline;
  const size_t stride = cubic ? size_t(3) * c : c;  // floats per key
  const size_t value_offset = cubic ? c : 0;        // where the value sits inside a key
  if (s.values.size() != stride * n) return false;
  auto keyValue = [&](uint32_t k) { return s.values.data() + size_t(k) * stride + value_offset; };

  // Outside the key range (and NaN): hold the end values (§3.11: no extrapolation).
  if (n == 1 || !(time > s.times[0])) {
    std::copy_n(keyValue(0), c, out.begin());
    return true;
  }
  if (time >= s.times[n - 1]) {
    std::copy_n(keyValue(n - 1), c, out.begin());
    if (cursor) cursor->key = n - 2;
    return true;
  }

  const uint32_t k = findInterval(s.times, time, cursor);
  const double t0 = s.times[k], t1 = s.times[k + 1];
  const double td = t1 - t0;
  const double u = (time - t0) / td;  // in [0, 1)
  const float* v0 = keyValue(k);
  const float* v1 = keyValue(k + 1);

  switch (s.interpolation) {
    case Interpolation::kStep:
      std::copy_n(v0, c, out.begin());
      return true;
    case Interpolation::kLinear:
      if (s.is_rotation && c == 4) {
        Quat q = slerp(Quat{v0[0], v0[1], v0[2], v0[3]}, Quat{v1[0], v1[1], v1[2], v1[3]}, float(u));
        out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
      } else {
        for (uint32_t i = 0; i < c; ++i) out[i] = float(double(v0[i]) + (double(v1[i]) - double(v0[i])) * u);
      }
      return true;
    case Interpolation::kCubicSpline: {
      // Appendix C: p(u) = (2u³-3u²+1)·v_k + t_d(u³-2u²+u)·b_k + (-2u³+3u²)·v_{k+1} + t_d(u³-u²)·a_{k+1},
      // b_k = out-tangent of key k, a_{k+1} = in-tangent of key k+1.
      const float* b0 = v0 + c;  // out-tangent follows the value
      const float* a1 = v1 - c;  // in-tangent precedes the value
      const double u2 = u * u, u3 = u2 * u;
      const double scale =
          tangent_scale == CubicTangentScale::kKeyInterval ? td : u;  // Filament: u (CubicTangentScale)
      const double h00 = 2 * u3 - 3 * u2 + 1, h10 = (u3 - 2 * u2 + u) * scale;
      const double h01 = -2 * u3 + 3 * u2, h11 = (u3 - u2) * scale;
      for (uint32_t i = 0; i < c; ++i) {
        out[i] = float(h00 * v0[i] + h10 * b0[i] + h01 * v1[i] + h11 * a1[i]);
      }
      if (s.is_rotation && c == 4) normalizeQuat(out);
      return true;
    }
  }
  return false;
}

Expected<AnimationData> decodeAnimation(const Asset& asset, uint32_t animation) {
  if (animation >= asset.animations.size()) {
    return fail(Error::kInvalidArgument, "animations[" + std::to_string(animation) + "]: no such animation");
  }
  const Animation& anim = asset.animations[animation];
  const std::string where = "animations[" + std::to_string(animation) + "]";
  AnimationData data;
  data.name = anim.name;
  data.samplers.resize(anim.samplers.size());

  // A sampler's component count comes from its channel's path; weights' from the output/input ratio. Only
  // channels morphkit animates count: a sampler used by no channel, or only by channels without a node (such as
  // KHR_animation_pointer's), has no path to check against and is left undecoded (components 0).
  std::vector<int> sampler_path(anim.samplers.size(), -1);
  for (const AnimationChannel& ch : anim.channels) {
    if (ch.sampler < anim.samplers.size() && channelPlays(ch)) sampler_path[ch.sampler] = int(ch.path);
  }
  // Samplers that read the same accessors the same way are decoded once; their channels share the first one.
  std::vector<uint32_t> canonical(anim.samplers.size());
  std::unordered_map<std::string, uint32_t> first_with;
  for (size_t i = 0; i < anim.samplers.size(); ++i) {
    const AnimationSampler& src = anim.samplers[i];
    SamplerData& dst = data.samplers[i];
    const std::string swhere = where + ".samplers[" + std::to_string(i) + "]";
    canonical[i] = uint32_t(i);
    if (sampler_path[i] < 0) continue;
    MORPHKIT_EXPECTS(src.input < asset.accessors.size() && src.output < asset.accessors.size());
    const std::string key = std::to_string(src.input) + "/" + std::to_string(src.output) + "/" +
                            std::to_string(int(src.interpolation)) + "/" + std::to_string(sampler_path[i]);
    if (auto [it, inserted] = first_with.try_emplace(key, uint32_t(i)); !inserted) {
      canonical[i] = it->second;
      continue;
    }
    dst.interpolation = src.interpolation;
    dst.times = readAccessorFloats(asset, src.input);
    dst.values = readAccessorFloats(asset, src.output);
    // Validation (validate.cpp, §3.11) guarantees keys, strictly increasing times and the output count.
    const size_t keys = dst.times.size();
    const size_t per_key = dst.interpolation == Interpolation::kCubicSpline ? 3 : 1;
    MORPHKIT_EXPECTS(keys > 0);
    const TargetPath path = TargetPath(sampler_path[i]);
    uint32_t components = pathComponents(path);
    // §3.11: for weights, output count = input count × targets (× 3 for CUBICSPLINE), scalar floats.
    if (path == TargetPath::kWeights) components = uint32_t(dst.values.size() / (keys * per_key));
    MORPHKIT_EXPECTS(components > 0 && dst.values.size() == keys * per_key * components);
    dst.components = components;
    dst.is_rotation = path == TargetPath::kRotation;
    data.duration = std::max(data.duration, double(dst.times.back()));
  }
  data.channels = playedChannels(asset, anim, canonical);
  return data;
}

double animationDuration(const Asset& asset, uint32_t animation) {
  if (animation >= asset.animations.size()) return 0.0;
  const Animation& anim = asset.animations[animation];
  double duration = 0.0;
  std::unordered_set<uint32_t> seen;                  // input accessors, each read once however many samplers share it
  for (const AnimationChannel& ch : anim.channels) {  // the samplers decodeAnimation keeps
    if (!channelPlays(ch)) continue;
    MORPHKIT_EXPECTS(ch.sampler < anim.samplers.size());
    const AnimationSampler& s = anim.samplers[ch.sampler];
    MORPHKIT_EXPECTS(s.input < asset.accessors.size());
    if (!seen.insert(s.input).second) continue;
    std::vector<float> times = readAccessorFloats(asset, s.input);
    for (float t : times) duration = std::max(duration, double(t));
  }
  return duration;
}

bool AnimationSamplingJob::validate() const {
  if (!animation) return false;
  for (const ChannelData& ch : animation->channels) {
    if (ch.node >= output.size() || ch.sampler >= animation->samplers.size()) return false;
    const SamplerData& s = animation->samplers[ch.sampler];
    if (s.components == 0 || s.times.empty()) return false;
    if (ch.path != TargetPath::kWeights && s.components != pathComponents(ch.path)) return false;
    if (ch.element != kNone && (ch.path != TargetPath::kWeights || s.components != 1 || ch.element >= ch.weight_count))
      return false;
  }
  return true;
}

bool AnimationSamplingJob::run() const {
  if (!validate()) return false;
  for (NodePose& pose : output) {
    pose.has_translation = pose.has_rotation = pose.has_scale = pose.has_weights = false;
  }
  if (context && context->cursors.size() != animation->samplers.size()) {
    context->cursors.assign(animation->samplers.size(), SamplerCursor{});
  }
  float tmp[4];
  for (const ChannelData& ch : animation->channels) {
    const SamplerData& s = animation->samplers[ch.sampler];
    SamplerCursor* cursor = context ? &context->cursors[ch.sampler] : nullptr;
    NodePose& pose = output[ch.node];
    switch (ch.path) {
      case TargetPath::kTranslation:
        sampleSampler(s, time, std::span<float>(tmp, 3), cursor, cubic_tangents);
        pose.translation = {tmp[0], tmp[1], tmp[2]};
        pose.has_translation = true;
        break;
      case TargetPath::kScale:
        sampleSampler(s, time, std::span<float>(tmp, 3), cursor, cubic_tangents);
        pose.scale = {tmp[0], tmp[1], tmp[2]};
        pose.has_scale = true;
        break;
      case TargetPath::kRotation:
        sampleSampler(s, time, std::span<float>(tmp, 4), cursor, cubic_tangents);
        pose.rotation = {tmp[0], tmp[1], tmp[2], tmp[3]};
        pose.has_rotation = true;
        break;
      case TargetPath::kWeights:
        if (ch.element == kNone) {
          pose.weights.resize(s.components);
          sampleSampler(s, time, pose.weights, cursor, cubic_tangents);
          pose.weight_mask.clear();
        } else {
          if (!pose.has_weights) {  // the first single weight of this frame: the others stay static
            pose.weights.assign(ch.weight_count, 0.0f);
            pose.weight_mask.assign(ch.weight_count, 0);
          }
          sampleSampler(s, time, std::span<float>(tmp, 1), cursor, cubic_tangents);
          if (ch.element < pose.weights.size()) pose.weights[ch.element] = tmp[0];
          if (ch.element < pose.weight_mask.size()) pose.weight_mask[ch.element] = 1;
        }
        pose.has_weights = true;
        break;
    }
  }
  return true;
}

}  // namespace morphkit
