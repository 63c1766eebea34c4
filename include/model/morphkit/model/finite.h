// SPDX-License-Identifier: MIT
// morphkit/model/finite.h — the one test for NaN and infinities over runs of floats, shared by the loader's §3.6.2.2
// check (src/gltf/validate_accessors.cpp) and the pose output check (checkPoseFinite).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

namespace morphkit {

// True when any of the first `components` floats of `count` elements (`stride` bytes apart, from `base`) is NaN or
// infinite. Branch-free over blocks of 4096 floats, so the compiler vectorizes it; a per-value std::isfinite with an
// early exit ran at a fifth of memory speed (docs/PERFORMANCE.md, Loading). Finding which value is bad is the
// caller's (rare) second pass.
bool anyNonFinite(const uint8_t* base, size_t stride, size_t count, size_t components);
inline bool anyNonFinite(std::span<const float> values) {
  return anyNonFinite(reinterpret_cast<const uint8_t*>(values.data()), 4 * values.size(), 1, values.size());
}

}  // namespace morphkit
