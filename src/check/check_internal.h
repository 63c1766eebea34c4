// SPDX-License-Identifier: MIT
// check_internal.h — the steps of checkAsset (check.cpp): whether a rule applies (check_rules.cpp), and the pose
// comparison (check_compare.cpp).
#pragma once
#include <string>

#include "morphkit/check/check.h"
#include "morphkit/core/pose.h"

namespace morphkit::check_detail {

struct Applicability {
  bool applies = false;
  std::string where;  // what in the file the rule concerns, or why it does not apply
  bool refuses_load = false;
};
Applicability applicability(const Asset& asset, const PosePrepared& prepared, const EngineProfile& profile,
                            const ProfileRule& rule);
std::string notApplicableReason(RuleKind kind);

// Folds one frame's difference between the reference pose and an engine's into `deviation`.
void accumulateDeviation(const PoseResult& reference, const PoseResult& engine, Deviation& deviation);

}  // namespace morphkit::check_detail
