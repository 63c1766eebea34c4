// SPDX-License-Identifier: MIT
// morphkit/check/check.h — `morphkit check`: how each engine will show a file, measured against the glTF pose.
//
// For every sample time of every animation (the rest pose when there is none) the file is posed as the glTF rules
// say (the reference pose, what `morphkit pose` prints) and again with each engine profile's geometric rules
// switched on (morphkit/check/engine_profile.h → EngineRules); the largest vertex difference is reported in file units
// (metres for glTF: ×1000 is millimetres), in % of the posed primitive's bounding-box diagonal, and for normals in
// degrees, with where it happens. Rules that cannot apply to the file are reported as not applicable; the
// non-geometric ones (load refusals, extensions) as hazards.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "morphkit/check/engine_profile.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"
#include "morphkit/model/thread_pool.h"

namespace morphkit {

struct CheckOptions {
  std::vector<const EngineProfile*> engines;  // empty: every profile
  uint32_t times = 10;                        // sample times per animation: t = d·i/(times-1); 1: t = 0
  uint32_t scene = kNone;                     // kNone: the file's scene
  ThreadPool* pool = nullptr;                 // optional, owned by the caller
};

// The largest difference from the reference pose over every compared frame.
struct Deviation {
  uint32_t frames = 0;            // frames compared
  uint32_t frames_differing = 0;  // frames where some posed attribute differs
  double position = 0.0;          // largest position difference, file units
  double position_percent = 0.0;  // largest of (difference / the posed primitive's bbox diagonal) × 100
  double normal_degrees = 0.0;    // largest angle between normals
  double tangent_degrees = 0.0;   // largest angle between tangents (xyz)
  double attribute = 0.0;         // largest difference of a texture coordinate or color component
  // Where `position` happens (kNone when nothing differs).
  uint32_t node = kNone, mesh = kNone, primitive = kNone, vertex = kNone;
  uint32_t animation = kNone;  // kNone: the rest pose
  double time = 0.0;
  double first_time = 0.0;  // the first differing frame's time (and animation below)
  uint32_t first_animation = kNone;
};

struct RuleReport {
  const ProfileRule* rule = nullptr;
  bool applies = false;   // the file has what the rule is about (else: not applicable, never a 0)
  std::string where;      // what in the file it concerns, or why it does not apply
  bool measured = false;  // geometric and applies: `deviation` is this rule's alone
  Deviation deviation;
};

struct Hazard {
  const ProfileRule* rule = nullptr;
  std::string message;  // one line: what happens to this file
  bool refuses_load = false;
  bool measured = false;  // a refused target cap: the deviation had the targets past it been dropped instead
  Deviation deviation;
};

struct EngineReport {
  const EngineProfile* profile = nullptr;
  std::vector<RuleReport> rules;  // in the profile's order
  std::vector<Hazard> hazards;
  bool measured = false;  // some geometric rule applies; `deviation` is all of them together
  Deviation deviation;
  bool loads = true;  // no hazard refuses the file
};

struct CheckReport {
  std::string file;
  uint32_t scene = kNone;
  uint32_t frames = 0;  // reference frames posed
  std::vector<EngineReport> engines;
};

// Fails (one "<where>: <what>" line) when the scene or a pose fails; `asset` is validated (loadAsset's).
Expected<CheckReport> checkAsset(const Asset& asset, const CheckOptions& options);

// The report as JSON (`morphkit check --json`, Python's morphkit.check): docs/CHECK.md describes the fields.
// Lengths are in file units and millimetres (file units × 1000: glTF's unit is the metre); a deviation that was
// not measured (no geometric rule applies) is null, never 0.
std::string checkReportJson(const CheckReport& report);
// The largest engine deviation in millimetres (0 when nothing was measured), for --fail-above.
double worstDeviationMm(const CheckReport& report);

}  // namespace morphkit
