// SPDX-License-Identifier: MIT
// engine_profiles.cpp — the engine tables (docs/CHECK.md lists every rule with its source). Each entry was read in
// the engine's source at the version named; `verified = false` marks what could not be confirmed there.
#include <algorithm>
#include <array>

#include "morphkit/check/engine_profile.h"
#include "morphkit/model/runtimes.h"
#include "morphkit/model/text.h"

namespace morphkit {

namespace {

constexpr uint32_t kAllTexcoords = 0xffu << 3;  // texcoordDelta(0..7)
constexpr uint32_t kAllColors = 0xffu << 11;    // colorDelta(0..7)
constexpr uint32_t texcoordsFrom(uint32_t set) {
  return kAllTexcoords & ~(texcoordDelta(set) - 1);
}
constexpr uint32_t colorsFrom(uint32_t set) {
  return kAllColors & ~(colorDelta(set) - 1);
}

constexpr std::string_view kThreeLoader =
    "mrdoob/three.js examples/jsm/loaders/GLTFLoader.js @r187 (npm three 0.187.0)";
constexpr std::string_view kBabylonLoader =
    "BabylonJS/Babylon.js loaders glTF/2.0/glTFLoader.ts @9.28.0 (npm @babylonjs/loaders 9.28.0)";
constexpr std::string_view kFilamentLoader = "google/filament libs/gltfio/src/AssetLoader.cpp @68ff9dd";
constexpr std::string_view kGodotSkeleton =
    "godotengine/godot servers/rendering/renderer_rd/shaders/skeleton.glsl @b2ec224";
constexpr std::string_view kBevyMorph = "bevyengine/bevy crates/bevy_mesh/src/morph.rs @00401eb";

EngineProfile threeProfile() {
  return {"three",
          "three.js r187",
          {
              {RuleKind::kIgnoredDeltas,
               kTangentDelta | kAllTexcoords | colorsFrom(1),
               0,
               {},
               "morphs POSITION, NORMAL and COLOR_0 only: TANGENT, TEXCOORD_n and COLOR_1+ targets are ignored",
               kThreeLoader},
              {RuleKind::kMissingDeltaIsBase,
               0,
               0,
               {},
               "a target without POSITION, NORMAL or COLOR_0 while another target has it gets the base "
               "attribute as its delta (relative morph targets), so it adds weight x base",
               kThreeLoader},
              {RuleKind::kInfluenceSets,
               1,
               0,
               {},
               "skins with JOINTS_0/WEIGHTS_0 only (skinIndex/skinWeight are vec4), rescaled to sum 1 by "
               "SkinnedMesh.normalizeSkinWeights",
               kThreeLoader},
          }};
}

EngineProfile babylonProfile() {
  return {
      "babylon",
      "Babylon.js 9.28",
      {
          {RuleKind::kIgnoredDeltas,
           texcoordsFrom(2) | colorsFrom(1),
           0,
           {},
           "morphs POSITION, NORMAL, TANGENT, TEXCOORD_0, TEXCOORD_1 and COLOR_0 only "
           "(_loadMorphTargetVertexDataAsync)",
           kBabylonLoader},
          {RuleKind::kPartialDeltas,
           0,
           0,
           {},
           "an attribute is morphed only when every target of the mesh has it "
           "(MorphTargetManager.synchronize: _supportsPositions &&= target.hasPositions)",
           "BabylonJS/Babylon.js packages/dev/core/src/Morph/morphTargetManager.ts @9.28.0"},
          // Weights that do not sum to 1 are not rescaled, but the blended matrix's w (their sum) divides them out
          // (Vector3.TransformCoordinates; on the GPU the projective divide): the glTF pose, so no rule for it.
          {RuleKind::kInfluenceSets, 2, 0, {}, "skins with JOINTS_0/1 and WEIGHTS_0/1 (8 influences)", kBabylonLoader},
      }};
}

EngineProfile filamentProfile() {
  return {"filament",
          "Filament gltfio (main @68ff9dd)",
          {
              {RuleKind::kTargetCap,
               256,
               0,
               {},
               "targets past MAX_MORPH_TARGETS are dropped with a warning (createPrimitive); 256 is the "
               "engine's CONFIG_MAX_MORPH_TARGET_COUNT (filament/include/filament/EngineEnums.h)",
               kFilamentLoader,
               false},
              {RuleKind::kIgnoredDeltas,
               kTangentDelta,
               0,
               {},
               "TANGENT targets are skipped; tangent frames are recomputed from the morphed normals",
               "google/filament libs/gltfio/src/MorphHelper.cpp @00f315d",
               true},
              {RuleKind::kTargetAttrsRefused,
               kPositionDelta | kNormalDelta | kTangentDelta,
               0,
               {},
               "a primitive with TEXCOORD or COLOR targets fails to load (\"Only positions, normals, and "
               "tangents can be morphed.\")",
               kFilamentLoader},
              {RuleKind::kSparseDeltas,
               0,
               0,
               {},
               "target POSITION data is copied from the accessor's bufferView bytes: sparse substitutions "
               "(and sparse-only targets) are lost",
               "google/filament libs/gltfio/src/MorphHelper.cpp @00f315d",
               false},
              {RuleKind::kInfluenceSets,
               1,
               0,
               {},
               "JOINTS_1/WEIGHTS_1 are skipped (\"Too many bone weights\"); the kept set is rescaled "
               "(ResourceConfiguration::normalizeSkinningWeights)",
               kFilamentLoader},
              {RuleKind::kCubicTangents,
               0,
               0,
               {},
               "CUBICSPLINE tangents are multiplied by the interval's normalized time u instead of t_d",
               "google/filament libs/gltfio/src/math.h cubicSpline @16d8781"},
          }};
}

EngineProfile godotProfile() {
  return {"godot",
          "Godot 4 (master @b2ec224)",
          {
              {RuleKind::kIgnoredDeltas,
               kAllTexcoords | kAllColors,
               0,
               {},
               "blend shapes carry position, normal and tangent only",
               kGodotSkeleton},
              {RuleKind::kMinWeight, 0, 1e-4f, {}, "blend shapes with |weight| <= 0.0001 are skipped", kGodotSkeleton},
              {RuleKind::kInfluenceSets,
               2,
               0,
               {},
               "at most 8 bone influences (ARRAY_FLAG_USE_8_BONE_WEIGHTS); weights stored as unorm16",
               "godotengine/godot servers/rendering/rendering_server.cpp"},
          }};
}

EngineProfile bevyProfile() {
  return {"bevy",
          "Bevy (main @00401eb, MAX_MORPH_WEIGHTS = 64)",
          {
              {RuleKind::kTargetCapRefused,
               64,
               0,
               {},
               "more than MAX_MORPH_WEIGHTS = 64 targets: MorphBuildError::TooManyTargets, the mesh is not "
               "built (\"Bevy only supports up to 64 morph targets\"; PR #15972)",
               kBevyMorph},
              {RuleKind::kTargetTextureCap,
               2048u * 2048u,
               0,
               {},
               "vertices x 9 morph components above 2048 x 2048: MorphBuildError::TooManyAttributes",
               kBevyMorph},
              {RuleKind::kIgnoredDeltas,
               kAllTexcoords | kAllColors,
               0,
               {},
               "MorphAttributes hold position, normal and tangent only",
               kBevyMorph},
              {RuleKind::kInfluenceSets,
               1,
               0,
               {},
               "one set of four joint influences (ATTRIBUTE_JOINT_INDEX/WEIGHT); 8-12 influences collapse "
               "(issue #22235)",
               "bevyengine/bevy issue #22235",
               false},
          }};
}

// PlayCanvas and UniVRM: only their decoders are in the tables (morphkit/model/runtimes.h); their morphing and
// skinning were not read, so no geometric rule is claimed for them.
EngineProfile decodersOnlyProfile(std::string_view name) {
  const Runtime* runtime = findRuntime(name);
  return {name, runtime ? runtime->engine : name, {}};
}

// Every extension the runtime of the same name cannot decode (the decoder table) is one kUnsupportedExtension rule.
void addDecoderRules(EngineProfile& profile) {
  const Runtime* runtime = findRuntime(profile.name);
  if (!runtime) return;
  for (const RuntimeDecoder& row : runtime->decoders) {
    if (row.decodes != Decodes::kNo) continue;
    profile.rules.push_back({RuleKind::kUnsupportedExtension, 0, 0, row.extension, row.how, row.source, row.verified});
  }
}

std::vector<EngineProfile> makeProfiles() {
  std::vector<EngineProfile> profiles = {threeProfile(),
                                         babylonProfile(),
                                         filamentProfile(),
                                         godotProfile(),
                                         bevyProfile(),
                                         decodersOnlyProfile("playcanvas"),
                                         decodersOnlyProfile("univrm")};
  for (EngineProfile& profile : profiles) addDecoderRules(profile);
  return profiles;
}

}  // namespace

std::span<const EngineProfile> engineProfiles() {
  static const std::vector<EngineProfile> profiles = makeProfiles();
  return profiles;
}

const EngineProfile* findEngineProfile(std::string_view name) {
  for (const EngineProfile& p : engineProfiles()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string_view engineProfileNames() {
  return "three, babylon, filament, godot, bevy, playcanvas, univrm";
}

Expected<std::vector<const EngineProfile*>> engineProfilesNamed(const std::vector<std::string>& names,
                                                                std::string_view option) {
  std::vector<const EngineProfile*> out;
  for (const std::string& name : names) {
    if (name == "all") {
      out.clear();
      for (const EngineProfile& p : engineProfiles()) out.push_back(&p);
      return out;
    }
    const EngineProfile* profile = findEngineProfile(name);
    if (!profile) {
      return fail(Error::kInvalidArgument, std::string(option) + " " + quote(name) + ": unknown engine (known: " +
                                               std::string(engineProfileNames()) + ", or all)");
    }
    if (std::find(out.begin(), out.end(), profile) == out.end()) out.push_back(profile);
  }
  if (out.empty()) {
    for (const EngineProfile& p : engineProfiles()) out.push_back(&p);
  }
  return out;
}

bool isGeometricRule(RuleKind kind) {
  return kind <= RuleKind::kCubicTangents;
}

void applyRule(const ProfileRule& rule, EngineRules& rules) {
  switch (rule.kind) {
    case RuleKind::kTargetCap:
      rules.max_targets = std::min(rules.max_targets, rule.value);
      break;
    case RuleKind::kIgnoredDeltas:
      rules.ignored_deltas |= rule.value;
      break;
    case RuleKind::kPartialDeltas:
      rules.partial_deltas_ignored = true;
      break;
    case RuleKind::kMissingDeltaIsBase:
      rules.missing_delta_is_base = true;
      break;
    case RuleKind::kSparseDeltas:
      rules.sparse_deltas_ignored = true;
      break;
    case RuleKind::kInfluenceSets:
      rules.influence_sets = std::min(rules.influence_sets, rule.value);
      break;
    case RuleKind::kMinWeight:
      rules.min_weight = std::max(rules.min_weight, rule.weight);
      break;
    case RuleKind::kCubicTangents:
      rules.cubic_tangents = CubicTangentScale::kNormalizedTime;
      break;
    case RuleKind::kUnnormalizedWeights:  // the weights themselves come from a keep_skin_weights load
      rules.kept_weights_as_stored = true;
      break;
    default:  // hazards change no vertex
      break;
  }
}

EngineRules engineRules(const EngineProfile& profile, bool* weights_as_stored) {
  EngineRules rules;
  bool raw = false;
  for (const ProfileRule& rule : profile.rules) {
    if (isGeometricRule(rule.kind)) applyRule(rule, rules);
    raw = raw || rule.kind == RuleKind::kUnnormalizedWeights;
  }
  if (weights_as_stored) *weights_as_stored = raw;
  return rules;
}

std::string_view ruleId(RuleKind kind) {
  static constexpr std::array<std::string_view, 13> kIds = {"target-cap",
                                                            "ignored-deltas",
                                                            "partial-deltas",
                                                            "missing-delta-is-base",
                                                            "sparse-deltas",
                                                            "influence-sets",
                                                            "unnormalized-weights",
                                                            "min-weight",
                                                            "cubic-tangents",
                                                            "target-cap-refused",
                                                            "target-attributes-refused",
                                                            "target-texture-cap",
                                                            "unsupported-extension"};
  return kIds[size_t(kind)];
}

}  // namespace morphkit
