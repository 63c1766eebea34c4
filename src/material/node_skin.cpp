// SPDX-License-Identifier: MIT
// node_skin.cpp — the skinning feature module of node materials. Same seam as the morph feature: reached only
// through the Skinning block (or a flag-only custom block setting uses_skinning). Its prologue runs after the morph
// feature's (order 1 > 0): morph, then skin (glTF 2.0 §3.7.3.3; docs/NODE_MATERIALS.md).
//
// Data and math as the renderer's vertex path (shaders/render/mesh.vert; the blend is shaders/skin.glsl): per vertex
// 4·sets u32 joints then 4·sets f32 weights, and the mat4 joint palette (world(joint) · inverseBindMatrix). Unskinned
// draws (skin_sets 0) bind the shared 64-byte fallback (one identity matrix) to both bindings and never read it.
#include <atomic>

#include "node_feature.h"
#include "vk_context.h"

namespace morphkit {
namespace {

std::atomic<uint64_t> g_requests{0};

constexpr const char* kStream =
    "layout(set = @SET@, binding = @BINDING@, std430) restrict readonly buffer NodeSkinStream { uint nodeSkinWords[]; "
    "};\n";
constexpr const char* kJoints =
    "layout(set = @SET@, binding = @BINDING@, std430) restrict readonly buffer NodeJointMatrices { mat4 "
    "nodeJointMatrices[]; };\n";

// The hooks of shaders/skin.glsl (the one blended joint matrix, shared with mesh.vert and morph.comp).
constexpr const char* kFunctions =
    R"(#include "skin.glsl"
uint skinStreamWord(uint index) { return nodeSkinWords[index]; }
mat4 skinJointMatrix(uint joint) { return nodeJointMatrices[joint]; }
)";

// glTF 2.0 §3.7.3.3: linear blend skinning over every JOINTS_n/WEIGHTS_n set; the skinned mesh ignores the node's
// own transform. Normals use the blended matrix's 3×3 and are renormalized by the fragment shader.
constexpr const char* kPrologue =
    R"(  // Skinning (glTF 2.0 §3.7.3.3), after morphing: the blended joint matrix, or the node's model when unskinned.
  mat4 nodeSkinMatrix = node.model;
  mat3 nodeSkinNormalMatrix = mat3(node.normal_matrix);
  if (node.skin_sets > 0u) {
    float nodeSkinWeightSum = 0.0;  // not needed here
    nodeSkinMatrix = skinBlend(nodeVertexIndex, node.skin_sets, nodeSkinWeightSum);
    nodeSkinNormalMatrix = mat3(nodeSkinMatrix);
  }
)";

Expected<GpuBuffer> allocateSkinFallback(VulkanContext& context) {
  Expected<GpuBuffer> buffer = createBuffer(context, 64, MemoryUse::kDevice);
  if (!buffer) return fail(buffer.error().code, "skin fallback: " + buffer.error().message);
  const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  if (Status s = uploadToBuffer(context, *buffer, 0, identity, sizeof identity); !s) {
    destroyBuffer(context, *buffer);
    return fail(s.error().code, "skin fallback: " + s.error().message);
  }
  return buffer;
}

}  // namespace

std::shared_ptr<const NodeFeature> nodeSkinFeature() {
  ++g_requests;
  static const std::shared_ptr<const NodeFeature> feature = [] {
    auto f = std::make_shared<NodeFeature>();
    f->name = "skin";
    f->order = 1;
    f->bindings.push_back({"NodeSkinStream", NodeBindingKind::kStorageBuffer, kNodeStageVertex, kStream});
    f->bindings.push_back({"NodeJointMatrices", NodeBindingKind::kStorageBuffer, kNodeStageVertex, kJoints});
    f->vertex_functions = kFunctions;
    f->vertex_prologue = kPrologue;
    f->allocate_fallback = &allocateSkinFallback;
    return std::shared_ptr<const NodeFeature>(std::move(f));
  }();
  return feature;
}

uint64_t nodeSkinFeatureRequests() {
  return g_requests.load();
}

}  // namespace morphkit
