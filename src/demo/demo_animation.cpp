// SPDX-License-Identifier: MIT
// The demo asset's clips (demo_internal.h): "talk", "blink" and "express", one interpolation each.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <span>
#include <vector>

#include "demo_internal.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/math.h"

namespace morphkit::demo_detail {

namespace {

Quat axisAngle(Vec3 axis, float angle) {
  float s = std::sin(angle / 2);
  return {axis.x * s, axis.y * s, axis.z * s, std::cos(angle / 2)};
}

// Catmull-Rom style derivatives (per second) for CUBICSPLINE tangents; zero at both ends so loops rest.
std::vector<float> keyDerivatives(const std::vector<float>& times, const std::vector<float>& values, size_t stride) {
  size_t keys = times.size();
  std::vector<float> d(values.size(), 0.0f);
  for (size_t k = 1; k + 1 < keys; ++k) {
    float dt = times[k + 1] - times[k - 1];
    for (size_t c = 0; c < stride; ++c)
      d[k * stride + c] = (values[(k + 1) * stride + c] - values[(k - 1) * stride + c]) / dt;
  }
  return d;
}

// glTF 2.0 §3.11 + Appendix C (CUBICSPLINE): per key, in-tangents, then values, then out-tangents.
std::vector<float> cubicOutput(const std::vector<float>& times, const std::vector<float>& values, size_t stride) {
  std::vector<float> d = keyDerivatives(times, values, stride);
  std::vector<float> out;
  out.reserve(values.size() * 3);
  for (size_t k = 0; k < times.size(); ++k) {
    for (size_t c = 0; c < stride; ++c) out.push_back(d[k * stride + c]);
    for (size_t c = 0; c < stride; ++c) out.push_back(values[k * stride + c]);
    for (size_t c = 0; c < stride; ++c) out.push_back(d[k * stride + c]);
  }
  return out;
}

}  // namespace

// glTF allows one weights channel per node per animation, so the three interpolations live in three animations:
// "talk" (weights CUBICSPLINE + jaw rotation LINEAR), "blink" (weights STEP), "express" (weights LINEAR + head
// rotation CUBICSPLINE).
void addDemoAnimations(Asset& asset, uint32_t targets, const std::vector<Region>& target_region, uint32_t bones,
                       Rng& rng) {
  const AccessorType kScalar = AccessorType::kScalar;
  auto pick = [&](std::initializer_list<Region> regions) {
    std::vector<uint32_t> chosen;
    for (uint32_t t = 0; t < targets; ++t)
      if (std::find(regions.begin(), regions.end(), target_region[t]) != regions.end()) chosen.push_back(t);
    if (chosen.empty())
      for (uint32_t t = 0; t < targets; ++t) chosen.push_back(t);
    return chosen;
  };
  auto times = [](uint32_t keys, float step) {
    std::vector<float> out(keys);
    for (uint32_t k = 0; k < keys; ++k) out[k] = float(k) * step;
    return out;
  };
  auto addSampler = [&](Animation& animation, const std::vector<float>& input, const std::vector<float>& output,
                        AccessorType type, Interpolation interpolation, uint32_t node, TargetPath path) {
    AnimationSampler sampler;
    // §3.11: sampler inputs must have min and max.
    sampler.input = appendAccessor(asset, std::span<const float>(input), kScalar, {.min_max = true});
    sampler.output = appendAccessor(asset, std::span<const float>(output), type);
    sampler.interpolation = interpolation;
    animation.samplers.push_back(sampler);
    animation.channels.push_back({uint32_t(animation.samplers.size() - 1), node, path});
  };
  auto rotationKeys = [&](const std::vector<float>& angles, Vec3 axis) {
    std::vector<float> out;
    for (float a : angles) {
      Quat q = axisAngle(axis, a);
      out.insert(out.end(), {q.x, q.y, q.z, q.w});
    }
    return out;
  };
  const uint32_t jaw_node = 1 + (bones > 3 ? 3 : bones - 1);
  const uint32_t head_node = 1 + (bones > 2 ? 2 : bones - 1);

  {  // talk: 3 s, 13 keys
    Animation talk;
    talk.name = "talk";
    std::vector<float> input = times(13, 0.25f);
    std::vector<float> jaw_angles(input.size());
    for (size_t k = 0; k < input.size(); ++k) {
      float s = std::sin(kPi * input[k] / 0.75f);
      jaw_angles[k] = 0.18f * s * s;
    }
    if (targets > 0) {
      std::vector<float> values(input.size() * targets, 0.0f);
      for (uint32_t t : pick({Region::kMouth, Region::kJaw})) {
        float frequency = rng.range(0.5f, 1.5f), phase = rng.uniform();
        for (size_t k = 1; k + 1 < input.size(); ++k)
          values[k * targets + t] = 0.5f + 0.5f * std::sin(2 * kPi * (frequency * input[k] + phase));
      }
      addSampler(talk, input, cubicOutput(input, values, targets), kScalar, Interpolation::kCubicSpline, 0,
                 TargetPath::kWeights);
    }
    addSampler(talk, input, rotationKeys(jaw_angles, {1, 0, 0}), AccessorType::kVec4, Interpolation::kLinear, jaw_node,
               TargetPath::kRotation);
    asset.animations.push_back(std::move(talk));
  }
  if (targets > 0) {  // blink: 2 s, STEP
    Animation blink;
    blink.name = "blink";
    std::vector<float> input = {0.0f, 0.5f, 0.62f, 1.4f, 1.52f, 2.0f};
    const float closed[] = {0, 1, 0, 1, 0, 0};
    std::vector<float> values(input.size() * targets, 0.0f);
    std::vector<uint32_t> eyes = pick({Region::kBlink});
    for (uint32_t t : eyes)
      for (size_t k = 0; k < input.size(); ++k) values[k * targets + t] = closed[k];
    addSampler(blink, input, values, kScalar, Interpolation::kStep, 0, TargetPath::kWeights);
    asset.animations.push_back(std::move(blink));
  }
  {  // express: 4 s, 9 keys
    Animation express;
    express.name = "express";
    std::vector<float> input = times(9, 0.5f);
    if (targets > 0) {
      std::vector<float> values(input.size() * targets, 0.0f);
      for (uint32_t t : pick({Region::kBrow, Region::kCheek, Region::kNose, Region::kEye, Region::kExtra})) {
        for (size_t k = 1; k + 1 < input.size(); ++k)
          values[k * targets + t] = rng.uniform() < 0.5f ? rng.uniform() : 0.0f;
      }
      addSampler(express, input, values, kScalar, Interpolation::kLinear, 0, TargetPath::kWeights);
    }
    const std::vector<float> yaw = {0, 0.25f, 0.1f, -0.2f, -0.3f, 0, 0.15f, 0.05f, 0};
    addSampler(express, input, cubicOutput(input, rotationKeys(yaw, {0, 1, 0}), 4), AccessorType::kVec4,
               Interpolation::kCubicSpline, head_node, TargetPath::kRotation);
    asset.animations.push_back(std::move(express));
  }
}

}  // namespace morphkit::demo_detail
