// SPDX-License-Identifier: MIT
// libFuzzer main of the Radiance .hdr harness (body and contract: harness_render_inputs.h).
#include "harness_render_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return morphkit::fuzz::radianceHdr(data, size);
}
