// SPDX-License-Identifier: MIT
// libFuzzer main of the node-material harness (body: harness_node_material.h; contract: harnesses.h).
#include "harness_node_material.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return morphkit::fuzz::nodeMaterial(data, size);
}
