// SPDX-License-Identifier: MIT
// libFuzzer main of the check harness (body and contract: harness_check.h).
#include "harness_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return morphkit::fuzz::check(data, size);
}
