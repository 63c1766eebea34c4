// SPDX-License-Identifier: MIT
// layoutCrowd (morphkit/render/render.h): where the copies of a crowd stand and when each plays.
#include <algorithm>
#include <cmath>

#include "morphkit/render/render.h"

namespace morphkit {

std::optional<CrowdOffsets> parseCrowdOffsets(std::string_view text) {
  if (text == "random") return CrowdOffsets::kRandom;
  if (text == "linear") return CrowdOffsets::kLinear;
  return std::nullopt;
}

namespace {

// splitmix64: a fixed sequence on every platform (std::uniform_real_distribution's is the library's own).
double nextUnit(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-53;  // [0, 1)
}

}  // namespace

CrowdLayout layoutCrowd(uint32_t count, float spacing, CrowdOffsets offsets, double duration, const Bounds& one) {
  CrowdLayout layout;
  if (count == 0) return layout;
  const float extent = one.empty() ? 0.0f : std::max(one.max.x - one.min.x, one.max.z - one.min.z);
  layout.spacing = spacing > 0 ? spacing : extent > 0 ? 1.25f * extent : 1.0f;
  const uint32_t columns = uint32_t(std::ceil(std::sqrt(double(count))));
  const uint32_t rows = (count + columns - 1) / columns;
  uint64_t seed = 0x6d6f727068ull;  // "morph"
  for (uint32_t k = 0; k < count; ++k) {
    const float x = (float(k % columns) - 0.5f * float(columns - 1)) * layout.spacing;
    const float z = (float(k / columns) - 0.5f * float(rows - 1)) * layout.spacing;
    layout.offsets.push_back({x, 0.0f, z});
    const double t = offsets == CrowdOffsets::kLinear ? duration * k / count : duration * nextUnit(seed);
    layout.time_offsets.push_back(duration > 0 ? t : 0.0);
  }
  if (!one.empty()) {
    Vec3 low = layout.offsets.front(), high = low;
    for (const Vec3& o : layout.offsets) {
      low = {std::min(low.x, o.x), 0.0f, std::min(low.z, o.z)};
      high = {std::max(high.x, o.x), 0.0f, std::max(high.z, o.z)};
    }
    layout.bounds.min = {one.min.x + low.x, one.min.y, one.min.z + low.z};
    layout.bounds.max = {one.max.x + high.x, one.max.y, one.max.z + high.z};
  }
  return layout;
}

}  // namespace morphkit
