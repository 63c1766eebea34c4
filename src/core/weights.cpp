// SPDX-License-Identifier: MIT
// weights.cpp — target names → (mesh, target), overrides and weight tracks on top of the file's weights, and
// baking a track into a glTF animation.
#include "morphkit/core/weights.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "morphkit/model/asset_builder.h"
#include "morphkit/model/names.h"
#include "morphkit/model/text.h"

namespace morphkit {

namespace {

char foldAscii(char c) {
  return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + printable(n);
  return out;
}

// The weights a node shows without animation (glTF 2.0 §3.7.2.1): node.weights > mesh.weights > 0.
std::vector<float> staticWeights(const Asset& asset, const Node& node) {
  const Mesh& mesh = asset.meshes[node.mesh];
  const std::vector<float>& source = !node.weights.empty() ? node.weights : mesh.weights;
  std::vector<float> out(targetCount(mesh), 0.0f);
  std::copy_n(source.begin(), std::min(source.size(), out.size()), out.begin());
  return out;
}

}  // namespace

bool namesMatch(std::string_view a, std::string_view b, NameMatch match) {
  if (a.size() != b.size()) return false;
  if (match == NameMatch::kExact) return a == b;
  for (size_t i = 0; i < a.size(); ++i) {
    if (foldAscii(a[i]) != foldAscii(b[i])) return false;
  }
  return true;
}

std::vector<TargetRef> findTargetsByName(const Asset& asset, std::string_view name, NameMatch match) {
  std::vector<TargetRef> refs;
  if (name.empty()) return refs;
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    const Mesh& mesh = asset.meshes[m];
    const size_t count = std::min<size_t>(mesh.target_names.size(), targetCount(mesh));
    for (uint32_t t = 0; t < count; ++t) {
      if (namesMatch(mesh.target_names[t], name, match)) refs.push_back({m, t});
    }
  }
  return refs;
}

std::vector<std::string> targetNameList(const Asset& asset) {
  std::vector<std::string> names;
  for (const Mesh& mesh : asset.meshes) {
    const size_t count = std::min<size_t>(mesh.target_names.size(), targetCount(mesh));
    for (size_t t = 0; t < count; ++t) {
      const std::string& name = mesh.target_names[t];
      if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

std::vector<std::string> closestTargetNames(const Asset& asset, std::string_view name, size_t count) {
  return closestNames(name, targetNameList(asset), count);
}

Expected<std::vector<TargetRef>> resolveOverride(const Asset& asset, const WeightOverride& o, NameMatch match) {
  if (!o.name.empty()) {
    std::vector<TargetRef> refs = findTargetsByName(asset, o.name, match);
    if (refs.empty()) {
      const std::vector<std::string> closest = closestTargetNames(asset, o.name);
      return fail(Error::kInvalidArgument, "weights: no target named '" + printable(o.name) + "'" +
                                               (closest.empty() ? std::string(" (the file has no target names)")
                                                                : " (closest: " + joinNames(closest) + ")"));
    }
    return refs;
  }
  if (o.target == kNone) return fail(Error::kInvalidArgument, "weights: an override needs a name or a target index");
  if (o.mesh != kNone) {
    if (o.mesh >= asset.meshes.size()) {
      return fail(Error::kInvalidArgument, "weights: meshes[" + std::to_string(o.mesh) +
                                               "]: no such mesh (the file has " + std::to_string(asset.meshes.size()) +
                                               ")");
    }
    const uint32_t targets = targetCount(asset.meshes[o.mesh]);
    if (o.target >= targets) {
      return fail(Error::kInvalidArgument, "weights: meshes[" + std::to_string(o.mesh) + "] has " +
                                               std::to_string(targets) + " targets, no target " +
                                               std::to_string(o.target));
    }
    return std::vector<TargetRef>{{o.mesh, o.target}};
  }
  std::vector<TargetRef> refs;
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    if (o.target < targetCount(asset.meshes[m])) refs.push_back({m, o.target});
  }
  if (refs.empty()) {
    return fail(Error::kInvalidArgument,
                "weights: target index " + std::to_string(o.target) + " is beyond every mesh's targets");
  }
  return refs;
}

Status checkWeightTrack(const WeightTrack& track) {
  const SamplerData& keys = track.keys;
  if (track.names.empty()) return fail(Error::kInvalidArgument, "weight track: no columns");
  if (!track.column_targets.empty() && track.column_targets.size() != track.names.size())
    return fail(Error::kInvalidArgument, "weight track: column_targets must be empty or one per column");
  if (keys.interpolation != Interpolation::kLinear || keys.is_rotation) {
    return fail(Error::kInvalidArgument, "weight track: keys must be LINEAR weights");
  }
  if (keys.components != track.names.size()) {
    return fail(Error::kInvalidArgument, "weight track: " + std::to_string(keys.components) + " components for " +
                                             std::to_string(track.names.size()) + " names");
  }
  if (keys.times.empty()) return fail(Error::kInvalidArgument, "weight track: no rows");
  if (keys.values.size() != keys.times.size() * track.names.size()) {
    return fail(Error::kInvalidArgument, "weight track: values must be rows × columns");
  }
  for (size_t k = 0; k < keys.times.size(); ++k) {
    // glTF 2.0 §3.11: sampler inputs strictly increase; the baked animation must obey it too.
    if (!std::isfinite(keys.times[k]) || (k > 0 && !(keys.times[k] > keys.times[k - 1]))) {
      return fail(Error::kInvalidArgument,
                  "weight track: times[" + std::to_string(k) + "] is not finite and after the previous time");
    }
  }
  for (float v : keys.values) {
    if (!std::isfinite(v)) return fail(Error::kInvalidArgument, "weight track: a value is not finite");
  }
  return Ok{};
}

double weightTrackDuration(const WeightTrack& track) {
  return track.keys.times.empty() ? 0.0 : track.keys.times.back();
}

TrackMatch matchWeightTrack(const Asset& asset, const WeightTrack& track, NameMatch match) {
  TrackMatch result;
  result.columns.reserve(track.names.size());
  for (size_t c = 0; c < track.names.size(); ++c) result.columns.push_back(trackColumnTargets(asset, track, c, match));
  for (const std::string& name : targetNameList(asset)) {
    const std::vector<TargetRef> carriers = findTargetsByName(asset, name, NameMatch::kExact);
    const bool driven = std::any_of(result.columns.begin(), result.columns.end(), [&](const std::vector<TargetRef>& c) {
      return std::any_of(c.begin(), c.end(), [&](TargetRef ref) {
        return std::find(carriers.begin(), carriers.end(), ref) != carriers.end();
      });
    });
    if (!driven) result.unmatched_targets.push_back(name);
  }
  return result;
}

std::vector<TargetRef> trackColumnTargets(const Asset& asset, const WeightTrack& track, size_t column,
                                          NameMatch match) {
  if (column < track.column_targets.size() && track.column_targets[column].mesh != kNone) {
    const TargetRef ref = track.column_targets[column];
    if (ref.mesh < asset.meshes.size() && ref.target < targetCount(asset.meshes[ref.mesh])) return {ref};
    return {};
  }
  return column < track.names.size() ? findTargetsByName(asset, track.names[column], match) : std::vector<TargetRef>{};
}

Status applyWeightInputs(const Asset& asset, const WeightInputs& inputs, double time, SamplerCursor* cursor,
                         std::vector<std::vector<float>>& node_weights) {
  if (inputs.empty()) return Ok{};
  // Per mesh: (target, value) in application order; the track first, then the overrides (later ones win).
  std::vector<std::vector<std::pair<uint32_t, float>>> sets(asset.meshes.size());
  if (inputs.track) {
    if (Status s = checkWeightTrack(*inputs.track); !s) return s;
    std::vector<float> row(inputs.track->names.size());
    sampleSampler(inputs.track->keys, time, row, cursor);
    for (size_t c = 0; c < row.size(); ++c) {
      for (TargetRef ref : trackColumnTargets(asset, *inputs.track, c, inputs.match)) {
        sets[ref.mesh].push_back({ref.target, row[c]});
      }
    }
  }
  for (const WeightOverride& o : inputs.overrides) {
    Expected<std::vector<TargetRef>> refs = resolveOverride(asset, o, inputs.match);
    if (!refs) return refs.error();
    for (TargetRef ref : *refs) sets[ref.mesh].push_back({ref.target, o.value});
  }
  for (size_t n = 0; n < asset.nodes.size() && n < node_weights.size(); ++n) {
    const uint32_t mesh = asset.nodes[n].mesh;
    if (mesh == kNone || mesh >= sets.size()) continue;
    std::vector<float>& weights = node_weights[n];
    for (auto [target, value] : sets[mesh]) {
      if (target < weights.size()) weights[target] = value;
    }
  }
  return Ok{};
}

Expected<uint32_t> bakeWeightTrack(Asset& asset, const WeightTrack& track, const std::string& name, NameMatch match) {
  if (Status s = checkWeightTrack(track); !s) return s.error();
  for (const Animation& a : asset.animations) {
    if (a.name == name)
      return fail(Error::kInvalidArgument, "animations: one is already named '" + printable(name) + "'");
  }
  const TrackMatch matched = matchWeightTrack(asset, track, match);
  // Per mesh: for each target, the track column driving it (the last one wins, as in applyWeightInputs).
  std::vector<std::vector<uint32_t>> column_of(asset.meshes.size());
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) column_of[m].assign(targetCount(asset.meshes[m]), kNone);
  for (uint32_t c = 0; c < matched.columns.size(); ++c) {
    for (TargetRef ref : matched.columns[c]) column_of[ref.mesh][ref.target] = c;
  }
  auto driven = [&](uint32_t mesh) {
    return std::any_of(column_of[mesh].begin(), column_of[mesh].end(), [](uint32_t c) { return c != kNone; });
  };

  const size_t keys = track.keys.times.size();
  const size_t columns = track.names.size();
  Animation animation;
  animation.name = name;
  uint32_t input = kNone;
  for (uint32_t n = 0; n < asset.nodes.size(); ++n) {
    const Node& node = asset.nodes[n];
    if (node.mesh == kNone || node.mesh >= asset.meshes.size() || !driven(node.mesh)) continue;
    if (input == kNone) {
      AppendAccessorOptions time_options;
      time_options.min_max = true;  // §3.11: animation sampler inputs must have min and max
      time_options.name = name + " times";
      input = appendAccessor(asset, std::span<const float>(track.keys.times), AccessorType::kScalar, time_options);
    }
    const std::vector<float> rest = staticWeights(asset, node);
    const std::vector<uint32_t>& column = column_of[node.mesh];
    std::vector<float> output(keys * rest.size());
    for (size_t k = 0; k < keys; ++k) {
      for (size_t t = 0; t < rest.size(); ++t) {
        output[k * rest.size() + t] = column[t] == kNone ? rest[t] : track.keys.values[k * columns + column[t]];
      }
    }
    AppendAccessorOptions value_options;
    value_options.name = name + " " + (node.name.empty() ? "nodes[" + std::to_string(n) + "]" : node.name) + " weights";
    const uint32_t out = appendAccessor(asset, std::span<const float>(output), AccessorType::kScalar, value_options);
    animation.channels.push_back({uint32_t(animation.samplers.size()), n, TargetPath::kWeights});
    animation.samplers.push_back({input, out, Interpolation::kLinear});
  }
  if (animation.channels.empty()) {
    return fail(Error::kInvalidArgument, "weight track: no column names a target of a mesh used by a node");
  }
  asset.animations.push_back(std::move(animation));
  return uint32_t(asset.animations.size() - 1);
}

}  // namespace morphkit
