// SPDX-License-Identifier: MIT
// libFuzzer main of the timed CSV capture harness (body and contract: harnesses.h).
#include "harnesses.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return morphkit::fuzz::timedCsv(data, size);
}
