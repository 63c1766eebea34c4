// SPDX-License-Identifier: MIT
// check.cpp — checkAsset: the reference pose and each engine's, frame by frame (docs/CHECK.md).
//
// Cost: one reference pose per frame, plus one pose per distinct set of switches: an engine whose applicable rules
// are all of one kind, or none geometric, costs one pose or nothing, and a rule is posed alone only when several
// of its engine's rules apply (so that each reports its own deviation).
#include "morphkit/check/check.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "check_internal.h"
#include "morphkit/core/animation.h"

namespace morphkit {

namespace {

using check_detail::accumulateDeviation;
using check_detail::applicability;

struct Frame {
  uint32_t animation = kNone;
  double time = 0.0;
};

// Every animation sampled `times` times over its duration; the rest pose when there is none.
std::vector<Frame> sampleFrames(const PosePrepared& prepared, uint32_t times) {
  std::vector<Frame> frames;
  for (uint32_t a = 0; a < prepared.animations.size(); ++a) {
    const double d = prepared.animations[a].duration;
    const uint32_t n = d > 0 ? std::max(times, 1u) : 1;
    for (uint32_t i = 0; i < n; ++i) frames.push_back({a, n == 1 ? 0.0 : d * double(i) / double(n - 1)});
  }
  if (frames.empty()) frames.push_back({kNone, 0.0});
  return frames;
}

// One set of switches to pose with, and the deviations (an engine's total, a rule's alone) it feeds.
struct Variant {
  EngineRules rules;
  bool raw_weights = false;  // skin weights as stored (kUnnormalizedWeights)
  std::vector<Deviation*> outputs;
};

bool sameRules(const EngineRules& a, const EngineRules& b) {
  return a.max_targets == b.max_targets && a.min_weight == b.min_weight && a.ignored_deltas == b.ignored_deltas &&
         a.partial_deltas_ignored == b.partial_deltas_ignored && a.missing_delta_is_base == b.missing_delta_is_base &&
         a.sparse_deltas_ignored == b.sparse_deltas_ignored && a.influence_sets == b.influence_sets &&
         a.kept_weights_as_stored == b.kept_weights_as_stored && a.cubic_tangents == b.cubic_tangents;
}

void addVariant(std::vector<Variant>& variants, const EngineRules& rules, bool raw, Deviation* output) {
  for (Variant& v : variants) {
    if (v.raw_weights == raw && sameRules(v.rules, rules)) {
      v.outputs.push_back(output);
      return;
    }
  }
  variants.push_back({rules, raw, {output}});
}

// The rule reports and hazards of one engine, and the variants that measure them.
void planEngine(const Asset& asset, const PosePrepared& prepared, const EngineProfile& profile, EngineReport& report,
                std::vector<Variant>& variants) {
  report.profile = &profile;
  report.rules.resize(profile.rules.size());
  EngineRules all;
  bool raw = false;
  std::vector<size_t> geometric;
  for (size_t r = 0; r < profile.rules.size(); ++r) {
    const ProfileRule& rule = profile.rules[r];
    const check_detail::Applicability a = applicability(asset, prepared, profile, rule);
    RuleReport& out = report.rules[r];
    out.rule = &rule;
    out.applies = a.applies;
    out.where = a.where;
    if (!a.applies) continue;
    if (isGeometricRule(rule.kind)) {
      geometric.push_back(r);
      applyRule(rule, all);
      raw = raw || rule.kind == RuleKind::kUnnormalizedWeights;
      if (rule.kind == RuleKind::kTargetCap) {
        report.hazards.push_back({&rule, "drops targets: " + a.where, false, false, {}});
      }
      continue;
    }
    // An extension's `where` is its whole sentence (what the engine does and what the user sees).
    const bool sentence = rule.kind == RuleKind::kUnsupportedExtension;
    Hazard hazard{&rule, sentence ? a.where : std::string(rule.what) + ": " + a.where, a.refuses_load, false, {}};
    report.loads = report.loads && !a.refuses_load;
    report.hazards.push_back(std::move(hazard));
  }
  // A refused target cap: also what the engine would show had it dropped the targets past the cap.
  for (Hazard& h : report.hazards) {
    if (h.rule->kind != RuleKind::kTargetCapRefused) continue;
    h.measured = true;
    EngineRules dropped;
    dropped.max_targets = h.rule->value;
    addVariant(variants, dropped, false, &h.deviation);
  }
  if (geometric.empty()) return;
  report.measured = true;
  addVariant(variants, all, raw, &report.deviation);
  for (size_t r : geometric) {
    RuleReport& out = report.rules[r];
    out.measured = true;
    if (geometric.size() == 1) {  // the total is this rule's alone: the same variant feeds both
      addVariant(variants, all, raw, &out.deviation);
      continue;
    }
    EngineRules alone;
    applyRule(*out.rule, alone);
    addVariant(variants, alone, out.rule->kind == RuleKind::kUnnormalizedWeights, &out.deviation);
  }
}

Status poseFrame(const PosePrepared& prepared, const Frame& frame, const EngineRules& rules, ThreadPool* pool,
                 SamplingContext& sampling, PoseResult& out) {
  PoseOptions options;
  options.animation = frame.animation;
  options.time = frame.time;
  options.pool = pool;
  options.sampling = &sampling;
  options.rules = rules;
  return evaluatePose(prepared, options, out);
}

}  // namespace

Expected<CheckReport> checkAsset(const Asset& asset, const CheckOptions& options) {
  Expected<PosePrepared> prepared = preparePose(asset, options.scene);
  if (!prepared) return prepared.error();
  CheckReport report;
  report.file = asset.path.string();
  report.scene = prepared->scene;
  std::vector<const EngineProfile*> engines = options.engines;
  if (engines.empty()) {
    for (const EngineProfile& p : engineProfiles()) engines.push_back(&p);
  }
  report.engines.resize(engines.size());
  std::vector<Variant> variants;
  for (size_t e = 0; e < engines.size(); ++e) planEngine(asset, *prepared, *engines[e], report.engines[e], variants);

  // Skin weights as stored: a second preparation of the file loaded that way, only when some variant needs it.
  std::unique_ptr<Asset> raw_asset;
  std::optional<PosePrepared> raw;
  if (std::any_of(variants.begin(), variants.end(), [](const Variant& v) { return v.raw_weights; })) {
    raw_asset = std::make_unique<Asset>(asset);
    raw_asset->keep_skin_weights = true;
    Expected<PosePrepared> prepared_raw = preparePose(*raw_asset, options.scene);
    if (!prepared_raw) return prepared_raw.error();
    raw = std::move(*prepared_raw);
  }

  const std::vector<Frame> frames = sampleFrames(*prepared, options.times);
  std::vector<SamplingContext> sampling(variants.size() + 1);
  PoseResult reference, engine;
  for (const Frame& frame : frames) {
    if (Status s = poseFrame(*prepared, frame, {}, options.pool, sampling.back(), reference); !s) return s.error();
    for (size_t v = 0; v < variants.size(); ++v) {
      const PosePrepared& source = variants[v].raw_weights ? *raw : *prepared;
      if (Status s = poseFrame(source, frame, variants[v].rules, options.pool, sampling[v], engine); !s) {
        return s.error();
      }
      for (Deviation* out : variants[v].outputs) accumulateDeviation(reference, engine, *out);
    }
  }
  report.frames = uint32_t(frames.size());
  return report;
}

}  // namespace morphkit
