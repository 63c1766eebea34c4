// SPDX-License-Identifier: MIT
// morphkit/pack/active_targets.h — part of the pack module (src/pack/, docs/LAYOUTS.md §11): the one active-target rule
// and list that every path uses (CPU fast path, GPU compute, the renderer's vertex path, node materials).
//
// The rule: target t is active when |w_t| > epsilon. epsilon is 0 unless a caller asks for more (`pose --epsilon`,
// GpuMorphJob::epsilon), so by default every non-zero weight counts and the result equals the full sum of
// glTF 2.0 §3.7.2.2 exactly. An inactive weight is treated as 0 everywhere: left out of the lists, written as 0
// where a path reads every weight (the band-texture design's uniform, the node material's weights buffer, the sparse
// layout). A NaN weight is never active (validation rejects NaN animation outputs and mesh weights before this point).
#pragma once
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace morphkit {

// One entry of an active list: 8 bytes, the layout of the GPU lists too (shaders/morph_shared.h
// MorphActiveTarget and shaders/render/render_shared.h MorphActiveEntry are static_asserted against it).
struct ActiveTarget {
  uint32_t target = 0;
  float weight = 0.0f;
};
static_assert(sizeof(ActiveTarget) == 8);

inline bool isActiveWeight(float weight, float epsilon = 0.0f) {
  return std::fabs(weight) > epsilon;
}
// The weight a path that reads every weight uses: `weight` when active, else 0.
inline float activeWeight(float weight, float epsilon = 0.0f) {
  return isActiveWeight(weight, epsilon) ? weight : 0.0f;
}

// The active targets of `weights` in ascending target order, written to `out` (which must hold
// weights.size() entries); returns how many. Allocates nothing, so it runs per frame on any thread.
uint32_t buildActiveTargets(std::span<const float> weights, float epsilon, std::span<ActiveTarget> out);
// The same into a vector (resized to the count; its capacity is reused).
void buildActiveTargets(std::span<const float> weights, float epsilon, std::vector<ActiveTarget>& out);

}  // namespace morphkit
