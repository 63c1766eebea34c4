// SPDX-License-Identifier: MIT
// libFuzzer main of the Radiance .hdr harness (body and contract: harness_images.h).
#include "harness_images.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return morphkit::fuzz::radianceHdr(data, size);
}
