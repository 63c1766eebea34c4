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

namespace {

// Every this-many poses (and the first of each category, and the worst one found) is posed on the reference path too,
// and no more than kReferenceSamples of them spread over a long animation: a reference pose costs about 13 fast ones
// (the demo's captured face, 586 poses: 28 % of optimize's time at every 16th; docs/OPTIMIZE.md, "Speed").
constexpr size_t kReferenceEvery = 16;
constexpr size_t kReferenceSamples = 16;

// The largest distance between two posed vertex sets of the same structure: fills `row` where it grows.
struct PoseGap {
  double distance = 0.0;
  double normal_deg = 0.0;
  std::string where;
};

using VertexRemap = std::vector<std::vector<std::vector<uint32_t>>>;

Expected<PoseGap> poseGap(const PoseResult& pa, const PoseResult& pb, const std::string& label,
                          const VertexRemap& remaps) {
  if (pa.meshes.size() != pb.meshes.size()) {
    return fail(Error::kInvalidArgument, "optimize: the output poses " + std::to_string(pb.meshes.size()) +
                                             " primitives, the input " + std::to_string(pa.meshes.size()));
  }
  PoseGap gap;
  double smallest_dot = 1.0;
  for (size_t i = 0; i < pa.meshes.size(); ++i) {
    const PosedPrimitive& x = pa.meshes[i];
    const PosedPrimitive& y = pb.meshes[i];
    const std::vector<uint32_t>* remap =
        x.mesh < remaps.size() && x.primitive < remaps[x.mesh].size() && !remaps[x.mesh][x.primitive].empty()
            ? &remaps[x.mesh][x.primitive]
            : nullptr;
    const bool counts_agree = remap ? remap->size() == x.vertex_count : x.vertex_count == y.vertex_count;
    if (!counts_agree) {
      return fail(Error::kInvalidArgument, "optimize: meshes[" + std::to_string(x.mesh) + "].primitives[" +
                                               std::to_string(x.primitive) + "] changed its vertex count");
    }
    for (uint32_t v = 0; v < x.vertex_count; ++v) {
      const size_t w = remap ? (*remap)[v] : v;  // the output vertex that stands for input vertex v
      if (w >= y.vertex_count) return fail(Error::kInvalidArgument, "optimize: a welded vertex is out of range");
      const double dx = double(x.positions[3 * v]) - y.positions[3 * w];
      const double dy = double(x.positions[3 * v + 1]) - y.positions[3 * w + 1];
      const double dz = double(x.positions[3 * v + 2]) - y.positions[3 * w + 2];
      const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
      if (d > gap.distance) {
        gap.distance = d;
        gap.where = label + ", nodes[" + std::to_string(x.node) + "] meshes[" + std::to_string(x.mesh) +
                    "].primitives[" + std::to_string(x.primitive) + "] vertex " + std::to_string(v);
      }
      if (!x.normals.empty() && y.normals.size() == 3 * size_t(y.vertex_count)) {
        const double dot = double(x.normals[3 * v]) * y.normals[3 * w] +
                           double(x.normals[3 * v + 1]) * y.normals[3 * w + 1] +
                           double(x.normals[3 * v + 2]) * y.normals[3 * w + 2];
        smallest_dot = std::min(smallest_dot, dot);
      }
    }
  }
  // The largest angle is the smallest cosine: one acos per pose rather than one per vertex.
  gap.normal_deg = std::acos(std::clamp(smallest_dot, -1.0, 1.0)) * 180.0 / 3.14159265358979323846;
  return gap;
}

// The largest distance between one asset's pose on the fast path and on the reference path (same asset, same order).
double pathGap(const PoseResult& fast, const PoseResult& reference) {
  double largest = 0.0;
  for (size_t i = 0; i < fast.meshes.size() && i < reference.meshes.size(); ++i) {
    const std::vector<float>& x = fast.meshes[i].positions;
    const std::vector<float>& y = reference.meshes[i].positions;
    for (size_t k = 0; k + 2 < x.size() && k + 2 < y.size(); k += 3) {
      const double dx = double(x[k]) - y[k], dy = double(x[k + 1]) - y[k + 1], dz = double(x[k + 2]) - y[k + 2];
      largest = std::max(largest, std::sqrt(dx * dx + dy * dy + dz * dz));
    }
  }
  return largest;
}

}  // namespace

// Every pose on the fast multi-threaded path; a sample (the first of each category, every reference_every-th pose and
// the worst) on the reference path as well, which measures how far the fast path strays from it (`fast_gap`, both
// assets). A fast pose counts as within the bound only when its distance plus twice that gap is (docs/OPTIMIZE.md).
Status comparePoses(const Asset& original, const Asset& optimized, double stop_above, OptimizeReport& report,
                    const OptimizeOptions& options, const VertexRemap& vertex_remap) {
  Expected<PosePrepared> a = preparePose(original);
  if (!a) return a.error();
  Expected<PosePrepared> b = preparePose(optimized);
  if (!b) return b.error();
  const std::vector<VerifyPose> poses = verifyPoses(original, *a);
  const size_t reference_every = std::max(kReferenceEvery, (poses.size() + kReferenceSamples - 1) / kReferenceSamples);
  PoseResult pa, pb, ra, rb;
  auto pose = [&](const VerifyPose& p, CpuPath path, PoseResult& x, PoseResult& y) -> Status {
    PoseOptions request;
    request.pool = options.pool;
    request.path = path;
    request.animation = p.animation;
    request.time = p.time;
    request.weights.overrides = p.overrides;
    if (Status s = evaluatePose(*a, request, x); !s) return s;
    return evaluatePose(*b, request, y);
  };
  // One pass over the poses; with `fast` false every pose is on the reference path alone. Returns whether the fast
  // path strayed too far for this bound (more than a quarter of it), so that the poses must be verified again on the
  // reference path.
  auto verifyAll = [&](bool fast) -> Expected<bool> {
    report.errors.clear();
    report.max_distance = 0;
    report.worst.clear();
    report.fast_gap = 0;
    struct Worst {
      size_t pose = SIZE_MAX;
      double distance = -1.0;
      bool on_reference = false;
    } worst;
    for (size_t p = 0; p < poses.size(); ++p) {
      const VerifyPose& verify = poses[p];
      if (options.progress && p % 16 == 0) options.progress("verifying every pose", double(p) / double(poses.size()));
      const bool first_of_category = report.errors.empty() || report.errors.back().category != verify.category;
      if (first_of_category) report.errors.push_back({verify.category});
      OptimizeError& row = report.errors.back();
      ++row.poses;
      Expected<PoseGap> gap = PoseGap{};
      if (fast) {
        if (Status s = pose(verify, CpuPath::kFast, pa, pb); !s) return s.error();
        gap = poseGap(pa, pb, verify.label, vertex_remap);
        if (!gap) return gap.error();
      }
      bool on_reference = false;
      if (!fast || first_of_category || p % reference_every == 0) {
        if (Status s = pose(verify, CpuPath::kReference, ra, rb); !s) return s.error();
        if (fast) report.fast_gap = std::max({report.fast_gap, pathGap(pa, ra), pathGap(pb, rb)});
        if (fast && 4.0 * report.fast_gap > stop_above) return true;
        gap = poseGap(ra, rb, verify.label, vertex_remap);
        if (!gap) return gap.error();
        on_reference = true;
      }
      row.max_normal_deg = std::max(row.max_normal_deg, gap->normal_deg);
      if (gap->distance > row.max_distance) {
        row.max_distance = gap->distance;
        row.worst = gap->where;
      }
      if (gap->distance > worst.distance) worst = {p, gap->distance, on_reference};
      if (row.max_distance > report.max_distance) {
        report.max_distance = row.max_distance;
        report.worst = row.worst;
      }
      if (report.max_distance + 2.0 * report.fast_gap > stop_above) return false;  // this encoding has failed
    }
    // The worst pose, if the fast path found it, on the reference path too: the number the report states.
    if (worst.pose != SIZE_MAX && !worst.on_reference) {
      const VerifyPose& verify = poses[worst.pose];
      if (Status s = pose(verify, CpuPath::kFast, pa, pb); !s) return s.error();
      if (Status s = pose(verify, CpuPath::kReference, ra, rb); !s) return s.error();
      report.fast_gap = std::max({report.fast_gap, pathGap(pa, ra), pathGap(pb, rb)});
      Expected<PoseGap> gap = poseGap(ra, rb, verify.label, vertex_remap);
      if (!gap) return gap.error();
      for (OptimizeError& row : report.errors) {
        if (row.category == verify.category && row.max_distance == worst.distance) {
          row.max_distance = gap->distance;
          row.worst = gap->where;
        }
      }
      report.max_distance = 0;
      for (const OptimizeError& row : report.errors) {
        if (row.max_distance > report.max_distance) {
          report.max_distance = row.max_distance;
          report.worst = row.worst;
        }
      }
    }
    return false;
  };
  Expected<bool> too_far = verifyAll(true);
  if (!too_far) return too_far.error();
  if (*too_far) {
    too_far = verifyAll(false);
    if (!too_far) return too_far.error();
  }
  return Ok{};
}

}  // namespace morphkit::optimize_detail
