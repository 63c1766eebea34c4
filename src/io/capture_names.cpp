// SPDX-License-Identifier: MIT
// capture_names.cpp — the one name normalizer, the built-in maps and matchCapture: a capture's channels → one
// asset's target names.
#include <algorithm>
#include <array>

#include "morphkit/core/expressions.h"
#include "morphkit/io/capture.h"

namespace morphkit {

namespace {

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}
bool isSeparator(char c) {
  return c == '_' || c == '-' || c == '.' || c == ' ';
}

// Lower case, separators dropped: the comparison form before the prefix and suffix rules.
std::string folded(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (!isSeparator(c)) out.push_back(lower(c));
  }
  return out;
}

struct MapRow {
  std::string_view column, target;
  float scale;
};

// ARKit's 52 names (camelCase, as MediaPipe, ARKit and most rigs spell them).
std::array<MapRow, 52> arkitIdentity() {
  std::array<MapRow, 52> rows{};
  for (size_t i = 0; i < kLiveLinkBlendShapes.size(); ++i)
    rows[i] = {kLiveLinkBlendShapes[i], kLiveLinkBlendShapes[i], 1};
  return rows;
}

// ARKit → VRM 1.0 expression presets (VRMC_vrm expressions.preset). Pairs of sides add at 0.5 each, so both sides
// fully on give 1. No ARKit shape makes "ee", "relaxed" or "neutral"; they stay undriven.
constexpr MapRow kArkitToVrm[] = {
    {"eyeBlinkLeft", "blinkLeft", 1},
    {"eyeBlinkRight", "blinkRight", 1},  // the eyelids
    {"jawOpen", "aa", 1},                // "a": the open jaw
    {"mouthStretchLeft", "ih", 0.5f},
    {"mouthStretchRight", "ih", 0.5f},  // "i": lips spread wide
    {"mouthPucker", "ou", 1},           // "u": lips pushed forward
    {"mouthFunnel", "oh", 1},           // "o": lips rounded open
    {"mouthSmileLeft", "happy", 0.5f},
    {"mouthSmileRight", "happy", 0.5f},  // the smile
    {"mouthFrownLeft", "sad", 0.5f},
    {"mouthFrownRight", "sad", 0.5f},  // mouth corners down
    {"browDownLeft", "angry", 0.5f},
    {"browDownRight", "angry", 0.5f},  // the brows drawn down
    {"browInnerUp", "surprised", 1},   // the brows raised
    {"eyeLookUpLeft", "lookUp", 0.5f},
    {"eyeLookUpRight", "lookUp", 0.5f},
    {"eyeLookDownLeft", "lookDown", 0.5f},
    {"eyeLookDownRight", "lookDown", 0.5f},
    {"eyeLookOutLeft", "lookLeft", 0.5f},
    {"eyeLookInRight", "lookLeft", 0.5f},  // both eyes to the left
    {"eyeLookOutRight", "lookRight", 0.5f},
    {"eyeLookInLeft", "lookRight", 0.5f},  // both eyes to the right
};

// ARKit → Oculus (Meta) Lipsync visemes, where an ARKit shape forms the viseme; sil, TH's tongue aside, DD, kk,
// CH, SS, nn, RR and E have no ARKit shape of their own (they are tongue or teeth positions).
constexpr MapRow kArkitToOculus[] = {
    {"jawOpen", "viseme_aa", 1},     // "aa": the open jaw
    {"mouthFunnel", "viseme_O", 1},  // "O": rounded open lips
    {"mouthPucker", "viseme_U", 1},  // "U": pushed-forward lips
    {"mouthPressLeft", "viseme_PP", 0.5f},
    {"mouthPressRight", "viseme_PP", 0.5f},  // "PP": lips pressed (p b m)
    {"mouthRollLower", "viseme_FF", 1},      // "FF": lower lip drawn in under the upper teeth (f v)
    {"mouthStretchLeft", "viseme_I", 0.5f},
    {"mouthStretchRight", "viseme_I", 0.5f},  // "I": lips spread
    {"tongueOut", "viseme_TH", 1},            // "TH": the tongue between the teeth
};

CaptureMap makeMap(std::span<const MapRow> rows) {
  CaptureMap map;
  for (const MapRow& row : rows) {
    map.entries.push_back({std::string(row.column), std::string(row.target), row.scale, true});
  }
  return map;
}

constexpr std::array<std::string_view, 3> kBuiltinNames = {"arkit", "arkit-to-vrm", "arkit-to-oculus-visemes"};

bool isRotationColumn(std::string_view normalized) {
  return std::any_of(kLiveLinkRotations.begin(), kLiveLinkRotations.end(),
                     [&](std::string_view r) { return normalizeCaptureName(r) == normalized; });
}

// Columns naming expressions become the columns of the targets they bind (expressionTrack, row by row); the
// targets they drive leave unmatched_targets.
void driveExpressions(const Asset& asset, CaptureMatch& match) {
  if (asset.vrm.expressions.empty()) return;
  Expected<WeightTrack> track = expressionTrack(asset, match.track, NameMatch::kExact);
  if (!track) return;  // matchCapture's own track always passes checkWeightTrack
  match.track = std::move(*track);
  const TrackMatch driven = matchWeightTrack(asset, match.track, NameMatch::kExact);
  match.unmatched_targets = driven.unmatched_targets;
}

}  // namespace

std::string normalizeCaptureName(std::string_view name, std::span<const std::string> prefixes) {
  if (const size_t dot = name.rfind('.'); dot != std::string_view::npos && dot + 1 < name.size()) {
    name.remove_prefix(dot + 1);  // "blendShape1.jawOpen", "Face.jawOpen"
  }
  for (const std::string& prefix : prefixes) {
    // "Head_jawOpen" on a mesh named "Head": the prefix, compared folded, then a separator.
    const std::string want = folded(prefix);
    if (want.empty()) continue;
    std::string seen;
    size_t i = 0;
    while (i < name.size() && seen.size() < want.size()) {
      if (!isSeparator(name[i])) seen.push_back(lower(name[i]));
      ++i;
    }
    if (seen == want && i < name.size() && isSeparator(name[i]) && i + 1 < name.size()) {
      name.remove_prefix(i + 1);
      break;
    }
  }
  std::string out = folded(name);
  // Left/Right = L/R = _L/_R at the end: "eyeblinkleft" and "eyeblink_l" both end in "l".
  if (out.size() > 4 && out.ends_with("left")) {
    out.resize(out.size() - 3);
  } else if (out.size() > 5 && out.ends_with("right")) {
    out.resize(out.size() - 4);
  }
  return out;
}

const CaptureMap* builtinCaptureMap(std::string_view name) {
  static const CaptureMap arkit = [] {
    const std::array<MapRow, 52> rows = arkitIdentity();
    return makeMap(rows);
  }();
  static const CaptureMap vrm = makeMap(kArkitToVrm);
  static const CaptureMap oculus = makeMap(kArkitToOculus);
  if (name == kBuiltinNames[0]) return &arkit;
  if (name == kBuiltinNames[1]) return &vrm;
  if (name == kBuiltinNames[2]) return &oculus;
  return nullptr;
}

std::span<const std::string_view> builtinCaptureMapNames() {
  return kBuiltinNames;
}

CaptureMatch matchCapture(const Asset& asset, const Capture& capture, const CaptureMap* map) {
  CaptureMatch match;
  // A VRM avatar's expressions are names a channel may drive too (a target of the same name comes first).
  std::vector<std::string> names = targetNameList(asset);
  const size_t target_names = names.size();
  for (const std::string& e : expressionNames(asset)) {
    if (std::find(names.begin(), names.end(), e) == names.end()) names.push_back(e);
  }
  std::vector<std::string> prefixes;
  for (const Mesh& mesh : asset.meshes) {
    if (!mesh.name.empty()) prefixes.push_back(mesh.name);
  }
  std::vector<std::string> normal_names;
  for (const std::string& n : names) normal_names.push_back(normalizeCaptureName(n, prefixes));
  std::vector<std::string> normal_columns;
  for (const std::string& c : capture.columns) normal_columns.push_back(normalizeCaptureName(c));
  std::vector<std::string> normal_keys;
  if (map) {
    for (const CaptureMapEntry& e : map->entries) normal_keys.push_back(normalizeCaptureName(e.column));
  }
  const size_t columns = capture.columns.size();
  // Per asset name: (capture column, scale) pairs driving it.
  std::vector<std::vector<std::pair<size_t, float>>> drivers(names.size());
  auto drive = [&](std::string_view target, size_t column, float scale) {
    const std::string want = normalizeCaptureName(target);
    bool any = false;
    for (size_t n = 0; n < names.size(); ++n) {
      if (normal_names[n] == want) {
        drivers[n].push_back({column, scale});
        any = true;
      }
    }
    return any;
  };
  for (size_t c = 0; c < columns; ++c) {
    const std::string& column = capture.columns[c];
    const CaptureMapEntry* entry = nullptr;
    if (map) {
      for (size_t e = 0; e < map->entries.size(); ++e) {
        if (normal_keys[e] == normal_columns[c]) entry = &map->entries[e];  // the last entry wins
      }
    }
    if (entry && entry->target.empty()) {
      match.ignored_columns.push_back(column);
    } else if (entry) {
      if (drive(entry->target, c, entry->scale)) {
        match.matched_columns.push_back(column);
      } else if (entry->builtin) {
        match.unmatched_columns.push_back(column);  // a built-in map names targets a rig may lack
      } else {
        match.unknown_map_targets.push_back(column + " -> " + entry->target);
      }
    } else if (isRotationColumn(normal_columns[c])) {
      match.unused_rotation_columns.push_back(column);  // rotations drive targets only when mapped
    } else if (drive(column, c, 1.0f)) {
      match.matched_columns.push_back(column);
    } else {
      match.unmatched_columns.push_back(column);
    }
  }
  if (map) {
    for (size_t e = 0; e < map->entries.size(); ++e) {
      if (map->entries[e].builtin) continue;
      if (std::find(normal_columns.begin(), normal_columns.end(), normal_keys[e]) == normal_columns.end())
        match.unused_map_columns.push_back(map->entries[e].column);
    }
  }
  std::vector<size_t> driven;
  for (size_t n = 0; n < names.size(); ++n) {
    if (drivers[n].empty()) {
      if (n < target_names) match.unmatched_targets.push_back(names[n]);
    } else {
      driven.push_back(n);
    }
  }
  if (driven.empty()) return match;
  WeightTrack& track = match.track;
  const size_t rows = capture.rows();
  track.keys.interpolation = Interpolation::kLinear;
  track.keys.components = uint32_t(driven.size());
  track.keys.times = capture.times;
  track.keys.values.assign(rows * driven.size(), 0.0f);
  for (size_t d = 0; d < driven.size(); ++d) {
    track.names.push_back(names[driven[d]]);
    for (size_t r = 0; r < rows; ++r) {
      double sum = 0.0;
      for (auto [column, scale] : drivers[driven[d]]) sum += double(scale) * capture.values[r * columns + column];
      track.keys.values[r * driven.size() + d] = float(sum);
    }
  }
  driveExpressions(asset, match);
  return match;
}

}  // namespace morphkit
