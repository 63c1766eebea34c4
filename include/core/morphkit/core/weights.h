// SPDX-License-Identifier: MIT
// morphkit/core/weights.h — driving morph targets by name: a target-name lookup, weight overrides and weight tracks
// (times + one column of values per target name), applied on top of the animation or rest weights.
//
// Target names are not part of core glTF 2.0: they live in mesh.extras.targetNames, the convention of Blender,
// three.js and Babylon.js (glTF 2.0 §3.7.2.1 leaves names to extras). A face is often several meshes (head,
// teeth, tongue, lashes) that share names; one name drives every (mesh, target) that carries it.
//
// Order of the weights of one node in a frame (every consumer: CPU pose, GPU pose, renderer, through
// evaluateFrame in morphkit/core/pose.h):
//   1. glTF 2.0 §3.7.2.1: animated > node.weights > mesh.weights > 0
//   2. the weight track sampled at the frame time (LINEAR between rows; before the first / after the last row
//      the end rows hold), for every column that names a target of the node's mesh
//   3. the overrides, in order (a later one wins over an earlier one for the same target)
// Weights are not clamped (glTF allows any float weight).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/core/animation.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"

namespace morphkit {

// How a name meets mesh.extras.targetNames. kCaseInsensitive folds ASCII letters only: ARKit names are camelCase
// (`jawOpen`) while capture files write PascalCase (`JawOpen`).
enum class NameMatch : uint8_t { kExact, kCaseInsensitive };

bool namesMatch(std::string_view a, std::string_view b, NameMatch match);

// One morph target of one mesh.
struct TargetRef {
  uint32_t mesh = kNone;
  uint32_t target = kNone;  // index into the mesh's targets (and its weights)
  friend bool operator==(const TargetRef&, const TargetRef&) = default;
};

// Every (mesh, target) whose target name matches `name`, in mesh order then target order. A targetNames entry
// beyond the mesh's target count names nothing. Empty when nothing matches (or `name` is empty).
std::vector<TargetRef> findTargetsByName(const Asset& asset, std::string_view name,
                                         NameMatch match = NameMatch::kExact);

// The asset's distinct target names (exact spelling), in mesh order then target order, each listed once.
std::vector<std::string> targetNameList(const Asset& asset);

// Up to `count` of the asset's target names closest to `name` (edit distance, letters compared case-insensitively),
// best first; ties keep targetNameList order. For "unknown name" messages.
std::vector<std::string> closestTargetNames(const Asset& asset, std::string_view name, size_t count = 3);

// One weight set from outside the file: by name, or by target index.
struct WeightOverride {
  std::string name;         // non-empty: every (mesh, target) carrying this name (per WeightInputs::match)
  uint32_t target = kNone;  // `name` empty: this target index ...
  uint32_t mesh = kNone;    // ... of this mesh, or (kNone) of every mesh that has more than `target` targets
  float value = 0.0f;
};

// The (mesh, target)s an override sets. Fails (kInvalidArgument) with "weights: no target named 'X' (closest:
// a, b, c)" or "weights: target index N is beyond every mesh's targets" / "weights: meshes[M] has K targets".
Expected<std::vector<TargetRef>> resolveOverride(const Asset& asset, const WeightOverride& override_,
                                                 NameMatch match = NameMatch::kExact);

// Times plus one column of values per target name, sampled LINEAR between rows (glTF 2.0 Appendix C, the same
// cursor walk as animation samplers: keys.interpolation is kLinear, keys.components == names.size()).
struct WeightTrack {
  std::vector<std::string> names;  // one per column: the target name it drives
  SamplerData keys;                // times (seconds, from 0, strictly increasing) and rows × columns values
  // Optional, one per column: a column whose entry is set (mesh != kNone) drives that (mesh, target) instead of
  // the targets its name matches; its name is then a label (VRM expressions made into target columns,
  // morphkit/core/expressions.h). Empty: every column drives by name.
  std::vector<TargetRef> column_targets;
};

// A checked track: names non-empty, column_targets empty or one per name, keys LINEAR with components == names.size(),
// at least one time, times finite and strictly increasing, values.size() == times × columns and finite. Fails with
// "weight track: <what>".
Status checkWeightTrack(const WeightTrack& track);
// The last time of the track (0 for one row).
double weightTrackDuration(const WeightTrack& track);

// Weights from outside the file for one frame; everything optional. The track and overrides must outlive the use.
struct WeightInputs {
  const WeightTrack* track = nullptr;         // sampled at the frame's time; columns naming no target are ignored
  std::span<const WeightOverride> overrides;  // applied after the track; an unknown name fails the frame
  NameMatch match = NameMatch::kExact;        // for track column names and override names
  bool empty() const { return !track && overrides.empty(); }
};

// Which targets a track's columns drive, for reports and for baking.
struct TrackMatch {
  std::vector<std::vector<TargetRef>> columns;  // per track column: the targets it drives (empty: unmatched)
  std::vector<std::string> unmatched_targets;   // asset target names no column drives (targetNameList order)
};
TrackMatch matchWeightTrack(const Asset& asset, const WeightTrack& track, NameMatch match);
// The targets column `column` drives: its column_targets entry when set, else the targets its name matches.
std::vector<TargetRef> trackColumnTargets(const Asset& asset, const WeightTrack& track, size_t column, NameMatch match);

// Applies `inputs` at `time` to per-node weights (SceneState::weights: one vector per asset node, target count
// long for nodes with a mesh). `cursor` (optional) caches the track's key interval for sequential playback.
// Fails like resolveOverride, or (kInvalidArgument) when the track does not pass checkWeightTrack.
Status applyWeightInputs(const Asset& asset, const WeightInputs& inputs, double time, SamplerCursor* cursor,
                         std::vector<std::vector<float>>& node_weights);

// Bakes `track` into a new animation of `asset` named `name` (glTF 2.0 §3.11): one shared input accessor (the
// track's times, with min/max), and for every node whose mesh has targets driven by the track one LINEAR sampler
// whose output holds, per key, all of the mesh's target weights (§3.11 "weights": output count = input count ×
// target count): the driven targets take the track's values, the others the node's static weights
// (node.weights > mesh.weights > 0), so the baked animation equals posing with the track. Data is appended to
// buffers[0] (morphkit/model/asset_builder.h). Returns the new animation's index.
// Fails (kInvalidArgument): a bad track, `name` already used by an animation, or no node driven by the track.
Expected<uint32_t> bakeWeightTrack(Asset& asset, const WeightTrack& track, const std::string& name, NameMatch match);

}  // namespace morphkit
