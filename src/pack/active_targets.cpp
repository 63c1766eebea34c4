// SPDX-License-Identifier: MIT
// The one active-target list builder (docs/LAYOUTS.md §11).
#include "morphkit/pack/active_targets.h"

namespace morphkit {

uint32_t buildActiveTargets(std::span<const float> weights, float epsilon, std::span<ActiveTarget> out) {
  uint32_t count = 0;
  for (uint32_t t = 0; t < weights.size() && count < out.size(); ++t) {
    if (isActiveWeight(weights[t], epsilon)) out[count++] = {t, weights[t]};
  }
  return count;
}

void buildActiveTargets(std::span<const float> weights, float epsilon, std::vector<ActiveTarget>& out) {
  out.resize(weights.size());
  out.resize(buildActiveTargets(weights, epsilon, std::span<ActiveTarget>(out)));
}

}  // namespace morphkit
