// SPDX-License-Identifier: MIT
// What the user sees (docs/OPTIMIZE.md): which verified poses the render check draws, and its JSON. The rendering
// itself is the render layer's (morphkit/render/render_compare.h), above this one; the CLI and Python join the two.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "morphkit/io/json_writer.h"
#include "optimize_internal.h"

namespace morphkit {
namespace {

// The longest POSITION delta of each (mesh, target), over every primitive of the mesh the scene draws.
struct TargetReach {
  uint32_t mesh = 0, target = 0;
  double reach = 0;
};

std::vector<TargetReach> targetReaches(const PosePrepared& prepared) {
  std::vector<TargetReach> reaches;
  for (const PosePrepared::Instance& instance : prepared.instances) {
    const PrimitiveData& data = prepared.primitives[instance.data];
    for (uint32_t t = 0; t < data.targets.size(); ++t) {
      const std::vector<float>& d = data.targets[t].position;
      double longest = 0;
      for (size_t i = 0; i + 2 < d.size(); i += 3) {
        longest = std::max(longest,
                           std::sqrt(double(d[i]) * d[i] + double(d[i + 1]) * d[i + 1] + double(d[i + 2]) * d[i + 2]));
      }
      auto same = [&](const TargetReach& r) { return r.mesh == instance.mesh && r.target == t; };
      auto found = std::find_if(reaches.begin(), reaches.end(), same);
      if (found == reaches.end()) {
        reaches.push_back({instance.mesh, t, longest});
      } else {
        found->reach = std::max(found->reach, longest);
      }
    }
  }
  // Furthest first; ties in (mesh, target) order, so the choice never depends on instance order.
  std::stable_sort(reaches.begin(), reaches.end(), [](const TargetReach& a, const TargetReach& b) {
    return a.reach != b.reach ? a.reach > b.reach : (a.mesh != b.mesh ? a.mesh < b.mesh : a.target < b.target);
  });
  return reaches;
}

LabelledPose fromVerified(const optimize_detail::VerifyPose& pose) {
  return {pose.label, pose.animation, pose.time, pose.overrides};
}

}  // namespace

Expected<std::vector<LabelledPose>> renderCheckPoses(const Asset& asset) {
  Expected<PosePrepared> prepared = preparePose(asset);
  if (!prepared) return prepared.error();
  // Chosen from the verified list itself, so every pose drawn is one the geometry's bound already holds at.
  const std::vector<optimize_detail::VerifyPose> verified = optimize_detail::verifyPoses(asset, *prepared);
  std::vector<LabelledPose> poses;
  poses.push_back(fromVerified(verified.front()));  // the rest pose
  const std::vector<TargetReach> reaches = targetReaches(*prepared);
  std::vector<const optimize_detail::VerifyPose*> animation_poses;
  for (const optimize_detail::VerifyPose& pose : verified) {
    if (pose.category == "animations" && pose.animation == 0) animation_poses.push_back(&pose);
  }
  auto targetPose = [&](const TargetReach& reach) -> const optimize_detail::VerifyPose* {
    for (const optimize_detail::VerifyPose& pose : verified) {
      if (pose.category != "targets") continue;
      for (const WeightOverride& o : pose.overrides) {
        if (o.mesh == reach.mesh && o.target == reach.target && o.value == 1.0f) return &pose;
      }
    }
    return nullptr;
  };
  const size_t target_count = animation_poses.empty() ? 3 : 1;
  for (size_t i = 0; i < reaches.size() && i < target_count && reaches[i].reach > 0; ++i) {
    if (const optimize_detail::VerifyPose* pose = targetPose(reaches[i])) poses.push_back(fromVerified(*pose));
  }
  if (!animation_poses.empty()) {
    const double duration = animation_poses.back()->time;  // verifyPoses ends each clip at its end
    const optimize_detail::VerifyPose* last = nullptr;
    for (double fraction : {1.0 / 3.0, 2.0 / 3.0}) {
      const double wanted = fraction * duration;
      const optimize_detail::VerifyPose* nearest = *std::min_element(
          animation_poses.begin(), animation_poses.end(),
          [wanted](const auto* a, const auto* b) { return std::fabs(a->time - wanted) < std::fabs(b->time - wanted); });
      if (nearest != last) poses.push_back(fromVerified(*nearest));
      last = nearest;
    }
  }
  return poses;
}

bool renderCheckByDefault(const OptimizeOptions& options) {
  // WebP only: morphkit draws WebP but has no Basis Universal transcoder, so a KTX2 output renders with its factors
  // alone and the difference would measure that (RenderDifference::warnings says so when asked anyway).
  return options.textures == TextureFormat::kWebp;
}

namespace optimize_detail {

void renderDiffJson(JsonWriter& json, const RenderDifference& diff) {
  json.key("renderDiff").beginObject();
  json.field("width", diff.width).field("height", diff.height);
  json.key("poses").beginArray();
  for (const LabelledDifference& frame : diff.frames) {
    json.beginObject();
    json.field("pose", std::string_view(frame.label)).field("meanAbs", frame.difference.mean_abs);
    json.field("p99", frame.difference.p99).field("max", frame.difference.max);
    json.endObject();
  }
  json.endArray();
  json.field("worstMean", diff.worst_mean).field("worstP99", diff.worst_p99).field("worstMax", diff.worst_max);
  json.key("warnings").array(std::span<const std::string>(diff.warnings));
  json.endObject();
}

}  // namespace optimize_detail
}  // namespace morphkit
