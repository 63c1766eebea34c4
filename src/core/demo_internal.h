// SPDX-License-Identifier: MIT
// What the demo asset's two files share (demo.cpp: geometry, targets, skin; demo_animation.cpp: the clips).
#pragma once
#include <cstdint>
#include <numbers>
#include <vector>

#include "morphkit/asset.h"

namespace morphkit::demo_detail {

constexpr float kPi = std::numbers::pi_v<float>;

// splitmix64: tiny, well-mixed and fully specified (std distributions are not portable bit-for-bit).
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
  float range(float lo, float hi) { return lo + (hi - lo) * uniform(); }
};

enum class Region : uint8_t { kBlink, kEye, kBrow, kMouth, kJaw, kCheek, kNose, kExtra };

// The three clips, appended to `asset` (its mesh is node 0, joint b is node 1 + b). `target_region` gives each
// morph target's region; `rng` continues the asset's stream, so the bytes depend only on the options.
void addDemoAnimations(Asset& asset, uint32_t targets, const std::vector<Region>& target_region, uint32_t bones,
                       Rng& rng);

}  // namespace morphkit::demo_detail
