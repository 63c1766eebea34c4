// SPDX-License-Identifier: MIT
// morphkit/check/engine_profile.h — how each engine deviates from the glTF rules, as data (docs/CHECK.md).
//
// A profile is one engine version's table of rules. Each rule is one documented deviation with the source it was
// read from (repository, path and version, or the issue); `verified` says whether that source was read at the
// stated version (docs/CHECK.md lists the unverified ones). Geometric rules become switches of the core's
// EngineRules (morphkit/core/pose.h), so the engine's pose is the reference pose with those switches on; the rest are
// hazards: the file loads differently, or not at all, without a vertex to measure.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/model/error.h"

namespace morphkit {

enum class RuleKind : uint8_t {
  // Geometric: applied through EngineRules, measured on the vertices.
  kTargetCap,            // targets from `value` on are dropped at load (EngineRules::max_targets)
  kIgnoredDeltas,        // target deltas of `value`'s delta bits are not morphed (EngineRules::ignored_deltas)
  kPartialDeltas,        // an attribute some target lacks is morphed by none (EngineRules::partial_deltas_ignored)
  kMissingDeltaIsBase,   // a target lacking an attribute adds w · base (EngineRules::missing_delta_is_base)
  kSparseDeltas,         // sparse target accessors read without their substitutions (sparse_deltas_ignored)
  kInfluenceSets,        // only the first `value` JOINTS_n/WEIGHTS_n sets skin (EngineRules::influence_sets)
  kUnnormalizedWeights,  // skin weights used as stored, not rescaled to sum 1 (LoadOptions::keep_skin_weights)
  kMinWeight,            // targets with |w| <= `weight` skipped (EngineRules::min_weight)
  kCubicTangents,        // CUBICSPLINE tangents scaled by u instead of t_d (EngineRules::cubic_tangents)
  // Hazards: reported apart, no vertex deviation.
  kTargetCapRefused,      // a mesh with more than `value` targets is refused at load
  kTargetAttrsRefused,    // a primitive with target attributes outside `value`'s delta bits is refused at load
  kTargetTextureCap,      // vertices × 9 floats of a morphed primitive above `value` are refused at load
  kUnsupportedExtension,  // `extension` is not decoded (a required one: the file is refused); made from the decoder
                          // table (morphkit/model/runtimes.h), not written in a profile
};

struct ProfileRule {
  RuleKind kind;
  uint32_t value = 0;               // the cap, delta bits or set count the kind names
  float weight = 0.0f;              // kMinWeight
  std::string_view extension = {};  // kUnsupportedExtension
  std::string_view what;            // one line: what the engine does
  std::string_view source;          // where it was read: repository path @version, or the issue
  bool verified = true;             // false: not confirmed at the stated version (docs/CHECK.md says why)
};

struct EngineProfile {
  std::string_view name;    // the --engines spelling: three, babylon, filament, godot, bevy, playcanvas, univrm
  std::string_view engine;  // the engine and version the table describes
  std::vector<ProfileRule> rules;
};

// Every profile, in --engines order (three, babylon, filament, godot, bevy, playcanvas, univrm). PlayCanvas and
// UniVRM have only the decoder table's hazards.
std::span<const EngineProfile> engineProfiles();
// nullptr when no profile has that name.
const EngineProfile* findEngineProfile(std::string_view name);
// "three, babylon, filament, godot, bevy, playcanvas, univrm": the known names, for usage errors.
std::string_view engineProfileNames();
// The profiles `names` spell ("all": every one; empty: every one), in the order given, duplicates once. An unknown
// name fails (kInvalidArgument) with "<option> 'NAME': unknown engine (known: three, ..., or all)".
Expected<std::vector<const EngineProfile*>> engineProfilesNamed(const std::vector<std::string>& names,
                                                                std::string_view option);

// True for the geometric kinds (applied through EngineRules); false for hazards.
bool isGeometricRule(RuleKind kind);
// Turns the rule's switch on in `rules` (hazards and kUnnormalizedWeights change nothing there).
void applyRule(const ProfileRule& rule, EngineRules& rules);
// Every geometric rule of `profile` at once: the switches its pose uses whatever the file (a rule about something
// the file lacks changes nothing). `weights_as_stored`: the profile skins with the weights as the file stores them
// (kUnnormalizedWeights), so its pose wants the file loaded with LoadOptions::keep_skin_weights.
EngineRules engineRules(const EngineProfile& profile, bool* weights_as_stored = nullptr);
// Stable id of a kind for reports ("target-cap", "ignored-deltas", ...).
std::string_view ruleId(RuleKind kind);

}  // namespace morphkit
