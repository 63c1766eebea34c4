// SPDX-License-Identifier: MIT
// node_feature.h — internal: the typed compiler/binding seam of node materials (band-texture path "NodeMaterial Opt-In
// Path"). A feature module (morph: node_morph.cpp, skinning: node_skin.cpp) contributes GLSL snippets, binding
// declarations and a per-device fallback allocation. It is reached only through its install function, which the
// built-in block's emitter calls (or parseNodeMaterial for flag-only custom blocks): a graph that never asks for
// a feature never builds it, compiles none of its GLSL, declares none of its bindings and allocates nothing.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "morphkit/material/node_material.h"
#include "morphkit/model/error.h"

namespace morphkit {

struct GpuBuffer;  // vk_context.h

// One binding a feature declares. The compiler assigns the number; `declaration` is GLSL with "@SET@" and
// "@BINDING@" placeholders, emitted in the stages named by `stages`.
struct NodeFeatureBinding {
  std::string name;
  NodeBindingKind kind = NodeBindingKind::kStorageBuffer;
  uint32_t stages = kNodeStageVertex;
  std::string declaration;
};

struct NodeFeature {
  std::string name;    // "morph", "skin"
  uint32_t order = 0;  // binding and prologue order among features: morph 0, then skin 1 (glTF 2.0 §3.7.3.3)
  std::string vertex_declarations;           // structs and helpers, before the bindings
  std::vector<NodeFeatureBinding> bindings;  // in order
  // Functions after the bindings (they may read them): the shared math's #include (shaders/morph.glsl,
  // skin.glsl; resolved by compileNodeGlsl's include callback) and the hooks it calls.
  std::string vertex_functions;
  std::string vertex_prologue;  // at the start of main(), after the attribute reads, in feature order
  // The per-device shared fallback bound when a draw has no data for this feature (null: none). Called at most
  // once per NodeMaterialDevice; the device destroys the buffer.
  Expected<GpuBuffer> (*allocate_fallback)(VulkanContext& context) = nullptr;
};

// Installs `feature` into `state` unless one of that name is there (idempotent).
void installNodeFeature(NodeBuildState& state, std::shared_ptr<const NodeFeature> feature);
// The feature modules. Each builds its NodeFeature on first call.
std::shared_ptr<const NodeFeature> nodeMorphFeature();  // node_morph.cpp
std::shared_ptr<const NodeFeature> nodeSkinFeature();   // node_skin.cpp
// How many times each module was reached (built or returned) in this process (tests: static graphs reach none).
uint64_t nodeMorphFeatureRequests();
uint64_t nodeSkinFeatureRequests();

// The installed features sorted by `order` (binding order).
std::vector<std::shared_ptr<const NodeFeature>> orderedNodeFeatures(const NodeBuildState& state);

}  // namespace morphkit
