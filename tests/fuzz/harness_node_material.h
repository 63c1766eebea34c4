// SPDX-License-Identifier: MIT
// The node-material harness body (contract: harnesses.h), apart because morphkit/material/node_material.h belongs to
// the material layer: only fuzz_node_material and the g++ replay test link it.
#pragma once
#include <cstdint>
#include <string_view>

#include "morphkit/material/node_material.h"

namespace morphkit::fuzz {

// The node-material JSON parser and type checker (docs/NODE_MATERIALS.md), then GLSL generation for every
// pipeline (not shaderc: that is not our code).
inline int nodeMaterial(const uint8_t* data, size_t size) {
  Expected<NodeMaterial> material = parseNodeMaterial(std::string_view(reinterpret_cast<const char*>(data), size));
  if (material) (void)generateNodeMaterialGlsl(*material);
  return 0;
}

}  // namespace morphkit::fuzz
