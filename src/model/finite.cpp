// SPDX-License-Identifier: MIT
// NaN / infinity scan over runs of floats (morphkit/model/finite.h).
#include "morphkit/model/finite.h"

#include <algorithm>
#include <cstring>

namespace morphkit {

namespace {
// A float is NaN or infinite exactly when its 8 exponent bits are all ones (IEEE 754 binary32).
constexpr uint32_t kExponentBits = 0x7F800000u;
constexpr size_t kBlock = 4096;  // floats per block between early exits
}  // namespace

// x86-64: an AVX2 build beside the baseline (SSE2) one, picked once at load time, as deform_fast.cpp does: twice
// the floats per instruction for a scan that runs over every float accessor at load and every posed output. GCC
// only (clang 14 does not emit target_clones for this build's fuzz target either).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define MORPHKIT_FINITE_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MORPHKIT_FINITE_CLONES
#endif

MORPHKIT_FINITE_CLONES bool anyNonFinite(const uint8_t* base, size_t stride, size_t count, size_t components) {
  if (stride == 4 * components) {  // tightly packed: one run of floats
    components *= count;
    count = 1;
  }
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* element = base + i * stride;
    for (size_t start = 0; start < components; start += kBlock) {
      const size_t end = std::min(components, start + kBlock);
      uint32_t all_ones = 0;
      for (size_t c = start; c < end; ++c) {
        uint32_t bits;
        std::memcpy(&bits, element + 4 * c, 4);
        all_ones |= uint32_t((bits & kExponentBits) == kExponentBits);
      }
      if (all_ones) return true;
    }
  }
  return false;
}

}  // namespace morphkit
