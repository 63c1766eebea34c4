// SPDX-License-Identifier: MIT
// Node materials on Vulkan: the morph feature's shared zero-target fallback (one allocation per device, however
// many meshes), per-mesh morph buffers, pipelines built from the generated SPIR-V and binding list with the
// validation layer on, and draws that check numerically that morph runs before skinning and that the fallback
// reads no delta.
#include <gtest/gtest.h>

#include "node_material_vk_support.h"

namespace morphkit {
namespace {

TEST_F(VulkanTest, NodeMorphFallbackIsOneAllocationPerDeviceAcrossManyMeshes) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<NodeMaterial> material = parseNodeMaterial(graph(false));
  ASSERT_TRUE(material) << material.error().message;
  const uint64_t total_before = nodeFallbackAllocationsTotal();
  const PrimitiveData plain = quad(false, false);

  Expected<NodeMaterialDevice*> device_a = createNodeMaterialDevice(*context_);
  ASSERT_TRUE(device_a);
  EXPECT_EQ(nodeFallbackStats(**device_a, "morph").allocations, 0u);  // nothing until a draw needs it
  std::vector<NodeDrawResources*> draws_a;
  for (int i = 0; i < 64; ++i) {
    Expected<NodeDrawResources*> r = createNodeDrawResources(**device_a, *material, plain, {});
    ASSERT_TRUE(r) << r.error().message;
    draws_a.push_back(*r);
    const NodeDrawInfo info = nodeDrawInfo(**r);
    EXPECT_TRUE(info.morph);
    EXPECT_TRUE(info.morph_fallback);
    EXPECT_EQ(info.buffers_owned, 0u);
    ASSERT_EQ((*r)->buffers.size(), 2u);
    EXPECT_EQ((*r)->buffers[0].binding, "NodeMorphDeltas");
    EXPECT_EQ((*r)->buffers[1].binding, "NodeMorphWeights");
    EXPECT_EQ((*r)->buffers[0].buffer, (*r)->buffers[1].buffer);        // one buffer for both bindings
    EXPECT_EQ((*r)->buffers[0].buffer, draws_a[0]->buffers[0].buffer);  // and for every mesh
    EXPECT_EQ((*r)->buffers[0].range, 24u);
  }
  NodeFallbackStats a = nodeFallbackStats(**device_a, "morph");
  EXPECT_EQ(a.allocations, 1u);
  EXPECT_EQ(a.users, 64u);
  EXPECT_EQ(a.bytes, 24u);
  EXPECT_EQ(nodeFallbackStats(**device_a, "skin").allocations, 0u);
  // Its bytes on the device: count 0, vertexCount 1, rest 0.
  uint8_t bytes[24];
  std::memset(bytes, 0xCD, sizeof bytes);
  ASSERT_TRUE(downloadFromBuffer(*context_, (*device_a)->fallbacks.front().buffer, 0, bytes, sizeof bytes));
  const std::array<uint8_t, 24> expected = nodeMorphFallbackBytes();
  EXPECT_EQ(std::memcmp(bytes, expected.data(), 24), 0);

  // A second device (its own VulkanContext) gets its own single allocation.
  GpuContextOptions options;
  options.validation = true;
  Expected<VulkanContext*> second = createVulkanContext(options);
  ASSERT_TRUE(second) << second.error().message;
  Expected<NodeMaterialDevice*> device_b = createNodeMaterialDevice(**second);
  ASSERT_TRUE(device_b);
  std::vector<NodeDrawResources*> draws_b;
  for (int i = 0; i < 16; ++i) {
    Expected<NodeDrawResources*> r = createNodeDrawResources(**device_b, *material, plain, {});
    ASSERT_TRUE(r) << r.error().message;
    draws_b.push_back(*r);
  }
  EXPECT_EQ(nodeFallbackStats(**device_b, "morph").allocations, 1u);
  EXPECT_EQ(nodeFallbackStats(**device_b, "morph").users, 16u);
  EXPECT_EQ(nodeFallbackStats(**device_a, "morph").allocations, 1u);
  EXPECT_EQ(nodeFallbackAllocationsTotal(), total_before + 2);

  // Releasing every user keeps the one buffer until the device goes.
  for (NodeDrawResources* r : draws_a) destroyNodeDrawResources(**device_a, r);
  a = nodeFallbackStats(**device_a, "morph");
  EXPECT_EQ(a.users, 0u);
  EXPECT_EQ(a.allocations, 1u);
  Expected<NodeDrawResources*> again = createNodeDrawResources(**device_a, *material, plain, {});
  ASSERT_TRUE(again);
  EXPECT_EQ(nodeFallbackAllocationsTotal(), total_before + 2);
  destroyNodeDrawResources(**device_a, *again);

  for (NodeDrawResources* r : draws_b) destroyNodeDrawResources(**device_b, r);
  destroyNodeMaterialDevice(*device_b);
  std::vector<std::string> messages;
  destroyVulkanContext(*second, &messages);
  EXPECT_TRUE(messages.empty()) << test::joinLines(messages);
  destroyNodeMaterialDevice(*device_a);
}

TEST_F(VulkanTest, NodeStaticGraphAllocatesNothingForMorph) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<NodeMaterial> material = loadNodeMaterial((sourceDir() / "examples" / "static_pbr.json").string());
  ASSERT_TRUE(material) << material.error().message;
  const uint64_t total_before = nodeFallbackAllocationsTotal();
  Expected<NodeMaterialDevice*> device = createNodeMaterialDevice(*context_);
  ASSERT_TRUE(device);
  for (bool target : {false, true}) {
    Expected<NodeDrawResources*> r = createNodeDrawResources(**device, *material, quad(target, false), {});
    ASSERT_TRUE(r);
    const NodeDrawInfo info = nodeDrawInfo(**r);
    EXPECT_FALSE(info.morph);
    EXPECT_FALSE(info.morph_fallback);
    EXPECT_EQ(info.buffers_owned, 0u);
    EXPECT_TRUE((*r)->buffers.empty());
    destroyNodeDrawResources(**device, *r);
  }
  EXPECT_EQ(nodeFallbackStats(**device, "morph").allocations, 0u);
  EXPECT_EQ(nodeFallbackAllocationsTotal(), total_before);
  destroyNodeMaterialDevice(*device);
}

TEST_F(VulkanTest, NodeMeshWithTargetsOwnsItsMorphBuffers) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<NodeMaterial> material = parseNodeMaterial(graph(false));
  ASSERT_TRUE(material);
  Expected<NodeMaterialDevice*> device = createNodeMaterialDevice(*context_);
  ASSERT_TRUE(device);
  const PrimitiveData p = quad(true, false);
  const float w[] = {0.75f};
  Expected<NodeDrawResources*> r = createNodeDrawResources(**device, *material, p, w);
  ASSERT_TRUE(r) << r.error().message;
  const NodeDrawInfo info = nodeDrawInfo(**r);
  EXPECT_TRUE(info.morph);
  EXPECT_FALSE(info.morph_fallback);
  EXPECT_EQ(info.morph_targets, 1u);
  EXPECT_EQ(info.buffers_owned, 2u);
  EXPECT_EQ(nodeFallbackStats(**device, "morph").allocations, 0u);
  const std::vector<uint8_t> expected = packNodeMorphDeltas(p);
  std::vector<uint8_t> back(expected.size(), 0xCD);
  ASSERT_TRUE(downloadFromBuffer(*context_, (*r)->morph_deltas, 0, back.data(), back.size()));
  EXPECT_EQ(back, expected);
  const float w2[] = {-0.5f};
  ASSERT_TRUE(updateNodeDrawWeights(**r, w2));
  float stored = 0;
  std::memcpy(&stored, static_cast<uint8_t*>((*r)->morph_weights.mapped) + 24, 4);
  EXPECT_EQ(stored, -0.5f);
  destroyNodeDrawResources(**device, *r);
  destroyNodeMaterialDevice(*device);
}

TEST_F(VulkanTest, NodePipelinesBuildForEveryExampleWithValidationClean) {
  MORPHKIT_REQUIRE_GPU(context_);
  if (!context_->queue_has_graphics) {
    if (test::runningInCi()) FAIL() << "the device's queue cannot do graphics";
    GTEST_SKIP() << "no graphics queue (CI=true fails above)";
  }
  Harness h(*context_);
  ASSERT_TRUE(h.init());
  ParseNodeMaterialOptions options;
  // examples/custom_rim.json's blocks, minimal versions (tests/material/node_material_test.cpp has the full ones).
  struct Legacy final : NodeBlockEmitter {
    std::vector<NodePortDecl> inputs() const override {
      return {{"position", NodeValueType::kVec3, true, {}, "nodePosition"},
              {"normal", NodeValueType::kVec3, true, {}, "nodeNormal"}};
    }
    std::vector<NodePortDecl> outputs() const override {
      return {{"position", NodeValueType::kVec3}, {"normal", NodeValueType::kVec3}};
    }
    Status declare(NodeBuildState& state, const NodeBlock&) const override {
      state.uses_morph_targets = true;
      return Ok{};
    }
    Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string&) const override {
      return std::vector<std::string>{c.inputs[0] + " + nodeMorphDeltaPosition",
                                      c.inputs[1] + " + nodeMorphDeltaNormal"};
    }
  };
  struct Rim final : NodeBlockEmitter {
    std::vector<NodePortDecl> inputs() const override {
      return {{"normal", NodeValueType::kVec3}, {"view", NodeValueType::kVec3}, {"power", NodeValueType::kFloat}};
    }
    std::vector<NodePortDecl> outputs() const override { return {{"value", NodeValueType::kFloat}}; }
    Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string&) const override {
      return std::vector<std::string>{"pow(1.0 - abs(dot(" + c.inputs[0] + ", " + c.inputs[1] + ")), " + c.inputs[2] +
                                      ")"};
    }
  };
  options.block_loader = [](std::string_view type) -> std::shared_ptr<const NodeBlockEmitter> {
    if (type == "LegacyMorph") return std::make_shared<Legacy>();
    if (type == "Rim") return std::make_shared<Rim>();
    return nullptr;
  };
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(sourceDir() / "examples")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    ++count;
    Expected<NodeMaterial> m = loadNodeMaterial(entry.path().string(), options);
    ASSERT_TRUE(m) << m.error().message;
    Expected<NodeMaterialPrograms> programs = compileNodeMaterial(*m);
    ASSERT_TRUE(programs) << programs.error().message;
    NodePipelines pipelines(*context_);
    EXPECT_TRUE(pipelines.build(*programs, h));
    const std::vector<std::string> messages = gpuValidationMessages(*context_);
    EXPECT_TRUE(messages.empty()) << test::joinLines(messages);
  }
  EXPECT_GE(count, 3);
}

}  // namespace
}  // namespace morphkit
