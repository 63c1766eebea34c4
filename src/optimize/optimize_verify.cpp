// SPDX-License-Identifier: MIT
// optimizeAsset's guarantee: the input and the output posed alike on the CPU reference path, in world space, at
// every pose docs/OPTIMIZE.md lists.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "morphkit/core/animation.h"
#include "morphkit/core/pose.h"
#include "optimize_internal.h"

namespace morphkit::optimize_detail {
namespace {

std::vector<WeightOverride> allTargets(const Asset& asset, float value) {
  std::vector<WeightOverride> overrides;
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    for (uint32_t t = 0; t < targetCount(asset.meshes[m]); ++t) overrides.push_back({"", t, m, value});
  }
  return overrides;
}

std::string targetLabel(const Asset& asset, uint32_t mesh, uint32_t target) {
  const Mesh& m = asset.meshes[mesh];
  std::string label = "meshes[" + std::to_string(mesh) + "] target " + std::to_string(target);
  if (target < m.target_names.size()) label += " '" + m.target_names[target] + "'";
  return label + " alone at weight 1";
}

// Key times of every sampler, the midpoint between each pair, and the clip end.
std::vector<double> animationTimes(const AnimationData& animation) {
  std::vector<double> keys;
  for (const SamplerData& sampler : animation.samplers)
    keys.insert(keys.end(), sampler.times.begin(), sampler.times.end());
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<double> times;
  for (size_t i = 0; i < keys.size(); ++i) {
    times.push_back(keys[i]);
    if (i + 1 < keys.size()) times.push_back(0.5 * (keys[i] + keys[i + 1]));
  }
  if (times.empty() || times.back() < animation.duration) times.push_back(animation.duration);
  return times;
}

}  // namespace

std::vector<VerifyPose> verifyPoses(const Asset& asset, const PosePrepared& prepared) {
  std::vector<VerifyPose> poses;
  poses.push_back({"rest", "the rest pose (every weight 0)", kNone, 0.0, allTargets(asset, 0.0f)});
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    for (uint32_t t = 0; t < targetCount(asset.meshes[m]); ++t) {
      VerifyPose pose{"targets", targetLabel(asset, m, t), kNone, 0.0, allTargets(asset, 0.0f)};
      for (WeightOverride& o : pose.overrides) {
        if (o.mesh == m && o.target == t) o.value = 1.0f;
      }
      poses.push_back(std::move(pose));
    }
  }
  poses.push_back({"default weights", "the default weights", kNone, 0.0, {}});
  for (uint32_t a = 0; a < prepared.animations.size(); ++a) {
    const AnimationData& animation = prepared.animations[a];
    for (double time : animationTimes(animation)) {
      std::string label = "animations[" + std::to_string(a) + "]";
      if (!animation.name.empty()) label += " '" + animation.name + "'";
      char when[48];
      std::snprintf(when, sizeof when, " at %.6g s", time);
      poses.push_back({"animations", label + when, a, time, {}});
    }
  }
  return poses;
}

namespace {

double columnScale(const DMat4& m) {
  double largest = 0;
  for (int c = 0; c < 3; ++c) {
    const double x = m.m[size_t(4 * c)], y = m.m[size_t(4 * c + 1)], z = m.m[size_t(4 * c + 2)];
    largest = std::max(largest, std::sqrt(x * x + y * y + z * z));
  }
  return largest;
}

}  // namespace

Expected<PoseScale> measurePoseScale(const Asset& asset) {
  Expected<PosePrepared> prepared = preparePose(asset);
  if (!prepared) return prepared.error();
  PoseScale scale;
  const std::vector<WeightOverride> rest = allTargets(asset, 0.0f);
  FrameRequest request;
  request.weights.overrides = rest;
  FrameState state;
  if (Status s = evaluateFrame(*prepared, request, state); !s) return s.error();
  scale.transform_scale = 0;
  for (const InstanceFrame& instance : state.instances) {
    scale.transform_scale = std::max(scale.transform_scale, columnScale(instance.world));
    for (const DMat4& joint : instance.joint_matrices) {
      scale.transform_scale = std::max(scale.transform_scale, columnScale(joint));
    }
  }
  if (!(scale.transform_scale > 0)) scale.transform_scale = 1;
  PoseOptions options;
  options.weights.overrides = rest;
  options.positions_only = true;
  Expected<PoseResult> pose = evaluatePose(*prepared, options);
  if (!pose) return pose.error();
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (const PosedPrimitive& m : pose->meshes) {
    for (size_t i = 0; i < m.positions.size(); ++i) {
      lo[i % 3] = std::min(lo[i % 3], double(m.positions[i]));
      hi[i % 3] = std::max(hi[i % 3], double(m.positions[i]));
    }
  }
  if (lo[0] <= hi[0]) {
    scale.diagonal = std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                               (hi[2] - lo[2]) * (hi[2] - lo[2]));
  }
  // Σ|w| of the poses the guarantee covers: a target alone (1), the default weights and every weight key.
  auto account = [&scale](auto begin, auto end) {
    double sum = 0, squares = 0;
    for (auto w = begin; w != end; ++w) {
      sum += std::fabs(double(*w));
      squares += double(*w) * double(*w);
    }
    scale.weight_sum = std::max(scale.weight_sum, sum);
    scale.weight_square_sum = std::max(scale.weight_square_sum, squares);
  };
  for (const Mesh& mesh : asset.meshes) account(mesh.weights.begin(), mesh.weights.end());
  for (const Node& node : asset.nodes) account(node.weights.begin(), node.weights.end());
  for (const AnimationData& animation : prepared->animations) {
    for (const ChannelData& channel : animation.channels) {
      if (channel.path != TargetPath::kWeights) continue;
      const SamplerData& sampler = animation.samplers[channel.sampler];
      if (sampler.components == 0 || sampler.times.empty()) continue;
      const size_t per_key = sampler.values.size() / sampler.times.size();
      const size_t offset = sampler.interpolation == Interpolation::kCubicSpline ? sampler.components : 0;
      for (size_t k = 0; k < sampler.times.size(); ++k) {
        const auto first = sampler.values.begin() + std::ptrdiff_t(k * per_key + offset);
        account(first, first + sampler.components);
      }
    }
  }
  return scale;
}

Status comparePoses(const Asset& original, const Asset& optimized, double stop_above, OptimizeReport& report,
                    const OptimizeOptions& options) {
  Expected<PosePrepared> a = preparePose(original);
  if (!a) return a.error();
  Expected<PosePrepared> b = preparePose(optimized);
  if (!b) return b.error();
  const std::vector<VerifyPose> poses = verifyPoses(original, *a);
  report.errors.clear();
  report.max_distance = 0;
  report.worst.clear();
  PoseResult pa, pb;
  for (size_t p = 0; p < poses.size(); ++p) {
    const VerifyPose& pose = poses[p];
    if (options.progress && p % 16 == 0) options.progress("verifying every pose", double(p) / double(poses.size()));
    PoseOptions request;
    request.pool = options.pool;
    request.animation = pose.animation;
    request.time = pose.time;
    request.weights.overrides = pose.overrides;
    if (Status s = evaluatePose(*a, request, pa); !s) return s.error();
    if (Status s = evaluatePose(*b, request, pb); !s) return s.error();
    if (pa.meshes.size() != pb.meshes.size()) {
      return fail(Error::kInvalidArgument, "optimize: the output poses " + std::to_string(pb.meshes.size()) +
                                               " primitives, the input " + std::to_string(pa.meshes.size()));
    }
    if (report.errors.empty() || report.errors.back().category != pose.category) {
      report.errors.push_back({pose.category});
    }
    OptimizeError& row = report.errors.back();
    ++row.poses;
    for (size_t i = 0; i < pa.meshes.size(); ++i) {
      const PosedPrimitive& x = pa.meshes[i];
      const PosedPrimitive& y = pb.meshes[i];
      if (x.positions.size() != y.positions.size()) {
        return fail(Error::kInvalidArgument, "optimize: meshes[" + std::to_string(x.mesh) + "].primitives[" +
                                                 std::to_string(x.primitive) + "] changed its vertex count");
      }
      for (uint32_t v = 0; v < x.vertex_count; ++v) {
        const double dx = double(x.positions[3 * v]) - y.positions[3 * v];
        const double dy = double(x.positions[3 * v + 1]) - y.positions[3 * v + 1];
        const double dz = double(x.positions[3 * v + 2]) - y.positions[3 * v + 2];
        const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
        if (d > row.max_distance) {
          row.max_distance = d;
          row.worst = pose.label + ", nodes[" + std::to_string(x.node) + "] meshes[" + std::to_string(x.mesh) +
                      "].primitives[" + std::to_string(x.primitive) + "] vertex " + std::to_string(v);
        }
        if (!x.normals.empty() && x.normals.size() == y.normals.size()) {
          const double dot = double(x.normals[3 * v]) * y.normals[3 * v] +
                             double(x.normals[3 * v + 1]) * y.normals[3 * v + 1] +
                             double(x.normals[3 * v + 2]) * y.normals[3 * v + 2];
          const double angle = std::acos(std::clamp(dot, -1.0, 1.0)) * 180.0 / 3.14159265358979323846;
          row.max_normal_deg = std::max(row.max_normal_deg, angle);
        }
      }
    }
    if (row.max_distance > report.max_distance) {
      report.max_distance = row.max_distance;
      report.worst = row.worst;
    }
    if (report.max_distance > stop_above) return Ok{};  // this encoding has failed: no need to pose the rest
  }
  return Ok{};
}

}  // namespace morphkit::optimize_detail
