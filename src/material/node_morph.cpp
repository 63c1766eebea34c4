// SPDX-License-Identifier: MIT
// node_morph.cpp — the morph feature module of node materials (band-texture path "NodeMaterial Opt-In Path"). Reached
// only through nodeMorphFeature(), which the MorphTargets block's emitter (or parseNodeMaterial, for flag-only
// custom blocks) calls; static graphs never reach it.
//
// Data: two storage buffers that both start with NodeMorphHeader (GLSL: shaders/render/render_shared.h; C++:
// morphkit/material/node_material.h). The sum itself is shaders/morph.glsl, the renderer's own. The fallback for a
// mesh without morph data is one 24-byte header {count 0, vertexCount 1, rest 0} bound to both bindings: the
// loop below runs `count` times, so no delta is ever read, and vertexCount 1 keeps every index expression finite.
#include <atomic>
#include <cstring>

#include "node_feature.h"
#include "vk_context.h"

namespace morphkit {
namespace {

std::atomic<uint64_t> g_requests{0};

constexpr const char* kDeltas =
    "layout(set = @SET@, binding = @BINDING@, std430) restrict readonly buffer NodeMorphDeltas {\n"
    "  NodeMorphHeader header;\n"
    "  float deltas[];\n"
    "} nodeMorphDeltas;\n";
constexpr const char* kWeights =
    "layout(set = @SET@, binding = @BINDING@, std430) restrict readonly buffer NodeMorphWeights {\n"
    "  NodeMorphHeader header;\n"
    "  float weights[];\n"
    "} nodeMorphWeights;\n";

// The hooks of shaders/morph.glsl (the one morph sum, shared with the renderer's mesh.vert): targets in order, the
// weights buffer's weights (every target, zeros included: morphAccumulate skips those), deltas at
// ((band · vertex_count) + v) · 3 (NodeMorphHeader in render_shared.h).
constexpr const char* kFunctions =
    R"(#include "morph.glsl"
uint morphListTarget(uint k) { return k; }
float morphListWeight(uint k) { return nodeMorphWeights.weights[k]; }
vec3 morphBandDelta(uint band, uint vertex) {
  uint p = (band * nodeMorphWeights.header.vertex_count + vertex) * 3u;
  return vec3(nodeMorphDeltas.deltas[p], nodeMorphDeltas.deltas[p + 1u], nodeMorphDeltas.deltas[p + 2u]);
}
)";

// Band-texture path "Vertex Shader Morph Blending", applied before skeletal deformation (glTF 2.0 §3.7.2.2: the morphed
// attribute is the base plus the weighted sum of the target deltas).
constexpr const char* kPrologue =
    R"(  // Morph targets (glTF 2.0 §3.7.2.2), before skinning. count 0 (the shared fallback) reads no delta.
  vec3 nodeMorphDeltaPosition = vec3(0.0);
  vec3 nodeMorphDeltaNormal = vec3(0.0);
  vec3 nodeMorphDeltaTangent = vec3(0.0);
  morphAccumulate(nodeMorphWeights.header.count, nodeMorphWeights.header.bands_per_target, nodeVertexIndex, true,
                  nodeMorphDeltaPosition, nodeMorphDeltaNormal, nodeMorphDeltaTangent);
)";

Expected<GpuBuffer> allocateMorphFallback(VulkanContext& context) {
  Expected<GpuBuffer> buffer = createBuffer(context, kNodeMorphFallbackBytes, MemoryUse::kDevice);
  if (!buffer) return fail(buffer.error().code, "morph fallback: " + buffer.error().message);
  const std::array<uint8_t, kNodeMorphFallbackBytes> bytes = nodeMorphFallbackBytes();
  if (Status s = uploadToBuffer(context, *buffer, 0, bytes.data(), bytes.size()); !s) {
    destroyBuffer(context, *buffer);
    return fail(s.error().code, "morph fallback: " + s.error().message);
  }
  return buffer;
}

}  // namespace

std::shared_ptr<const NodeFeature> nodeMorphFeature() {
  ++g_requests;
  static const std::shared_ptr<const NodeFeature> feature = [] {
    auto f = std::make_shared<NodeFeature>();
    f->name = "morph";
    f->order = 0;
    f->bindings.push_back({"NodeMorphDeltas", NodeBindingKind::kStorageBuffer, kNodeStageVertex, kDeltas});
    f->bindings.push_back({"NodeMorphWeights", NodeBindingKind::kStorageBuffer, kNodeStageVertex, kWeights});
    f->vertex_functions = kFunctions;
    f->vertex_prologue = kPrologue;
    f->allocate_fallback = &allocateMorphFallback;
    return std::shared_ptr<const NodeFeature>(std::move(f));
  }();
  return feature;
}

uint64_t nodeMorphFeatureRequests() {
  return g_requests.load();
}

}  // namespace morphkit
