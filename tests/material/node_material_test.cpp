// SPDX-License-Identifier: MIT
// Node materials (src/material): parsing and its errors, the generated GLSL, the fixed binding order, the morph and
// skinning features as opt-in modules, flag-only custom blocks, morph-before-skin, SPIR-V for every example graph,
// and the morph buffer layouts.
#include <gtest/gtest.h>

#include "node_material_support.h"

namespace morphkit {
namespace {

TEST(NodeMaterial, StaticGraphCompilesNoMorphAndReachesNoFeature) {
  const uint64_t morph_before = nodeMorphFeatureRequests(), skin_before = nodeSkinFeatureRequests();
  Expected<NodeMaterial> m = loadNodeMaterial(examplePath("static_pbr.json").string());
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_FALSE(nodeMaterialUsesMorph(*m));
  EXPECT_FALSE(nodeMaterialUsesSkinning(*m));
  EXPECT_TRUE(m->state.features.empty());
  EXPECT_FALSE(m->state.uses_morph_targets);
  EXPECT_EQ(m->textures.size(), 5u);
  ASSERT_EQ(m->uniforms.size(), 6u);
  EXPECT_EQ(m->uniforms[0].offset, 160u);
  EXPECT_EQ(m->uniforms[5].offset, 160u + 5 * 16);
  EXPECT_EQ(m->uv_transform_offset, 160u + 6 * 16);
  EXPECT_EQ(m->uniform_block_bytes, 160u + 6 * 16 + 5 * 32);  // 2 KHR_texture_transform rows per texture
  Expected<NodeMaterialGlsl> glsl = generateNodeMaterialGlsl(*m);
  ASSERT_TRUE(glsl) << glsl.error().message;
  // No morph GLSL anywhere, no morph binding.
  EXPECT_EQ(lower(allText(*glsl)).find("nodemorph"), std::string::npos);
  EXPECT_EQ(lower(allText(*glsl)).find("morph targets"), std::string::npos);
  EXPECT_EQ(lower(allText(*glsl)).find("nodeskin"), std::string::npos);
  EXPECT_EQ(lower(allText(*glsl)).find("joint"), std::string::npos);
  EXPECT_EQ(
      bindingNames(glsl->bindings),
      (std::vector<std::string>{"NodeUniforms", "nodeTexture0", "nodeTexture1", "nodeTexture2", "nodeTexture3",
                                "nodeTexture4", "FrameBlock", "nodeShadowMap", "nodeEnvironmentMap", "nodeBrdfTable"}));
  for (uint32_t i = 0; i < glsl->bindings.size(); ++i) {
    EXPECT_EQ(glsl->bindings[i].binding, i);
    EXPECT_TRUE(glsl->bindings[i].feature.empty());
  }
  // The feature modules were never reached.
  EXPECT_EQ(nodeMorphFeatureRequests(), morph_before);
  EXPECT_EQ(nodeSkinFeatureRequests(), skin_before);
}

TEST(NodeMaterial, BindingOrderIsNodeThenMorphThenSkinThenEnvironment) {
  Expected<NodeMaterial> m = loadNodeMaterial(examplePath("morph_skin_pbr.json").string());
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_TRUE(nodeMaterialUsesMorph(*m));
  EXPECT_TRUE(nodeMaterialUsesSkinning(*m));
  Expected<NodeMaterialGlsl> glsl = generateNodeMaterialGlsl(*m);
  ASSERT_TRUE(glsl) << glsl.error().message;
  EXPECT_EQ(bindingNames(glsl->bindings),
            (std::vector<std::string>{"NodeUniforms", "nodeTexture0", "nodeTexture1", "nodeTexture2", "nodeTexture3",
                                      "nodeTexture4", "NodeMorphDeltas", "NodeMorphWeights", "NodeSkinStream",
                                      "NodeJointMatrices", "FrameBlock", "nodeShadowMap", "nodeEnvironmentMap",
                                      "nodeBrdfTable"}));
  const std::vector<NodeBindingGroup> groups = {
      NodeBindingGroup::kNode,        NodeBindingGroup::kNode,        NodeBindingGroup::kNode,
      NodeBindingGroup::kNode,        NodeBindingGroup::kNode,        NodeBindingGroup::kNode,
      NodeBindingGroup::kFeature,     NodeBindingGroup::kFeature,     NodeBindingGroup::kFeature,
      NodeBindingGroup::kFeature,     NodeBindingGroup::kEnvironment, NodeBindingGroup::kEnvironment,
      NodeBindingGroup::kEnvironment, NodeBindingGroup::kEnvironment};
  ASSERT_EQ(glsl->bindings.size(), groups.size());
  for (uint32_t i = 0; i < groups.size(); ++i) {
    EXPECT_EQ(glsl->bindings[i].binding, i);
    EXPECT_EQ(glsl->bindings[i].set, kNodeMaterialSet);
    EXPECT_EQ(glsl->bindings[i].group, groups[i]) << i;
  }
  EXPECT_EQ(glsl->bindings[6].feature, "morph");
  EXPECT_EQ(glsl->bindings[6].kind, NodeBindingKind::kStorageBuffer);
  EXPECT_EQ(glsl->bindings[6].stages, kNodeStageVertex);
  EXPECT_EQ(glsl->bindings[8].feature, "skin");
  EXPECT_EQ(glsl->bindings[11].kind, NodeBindingKind::kShadowSampler);
  // The environment's two maps (lighting.glsl reads them), fragment stage only.
  for (uint32_t i : {12u, 13u}) {
    EXPECT_EQ(glsl->bindings[i].kind, NodeBindingKind::kSampledTexture);
    EXPECT_EQ(glsl->bindings[i].stages, kNodeStageFragment);
    EXPECT_EQ(glsl->bindings[i].texture, kNone);
  }
  // The GLSL declares the morph buffers at those numbers, in the vertex stage only.
  const std::string& vs = glsl->shaders[size_t(NodePipeline::kColor)].vertex;
  EXPECT_NE(vs.find("binding = 6, std430) restrict readonly buffer NodeMorphDeltas"), std::string::npos) << vs;
  EXPECT_NE(vs.find("binding = 7, std430) restrict readonly buffer NodeMorphWeights"), std::string::npos);
  EXPECT_NE(vs.find("binding = 10, std140) uniform FrameBlock"), std::string::npos);
  EXPECT_EQ(lower(glsl->shaders[size_t(NodePipeline::kColor)].fragment).find("nodemorph"), std::string::npos);
  EXPECT_NE(glsl->shaders[size_t(NodePipeline::kColor)].fragment.find("binding = 11) uniform sampler2DShadow"),
            std::string::npos);
  EXPECT_NE(
      glsl->shaders[size_t(NodePipeline::kColor)].fragment.find("binding = 12) uniform sampler2D nodeEnvironmentMap"),
      std::string::npos);
  EXPECT_NE(glsl->shaders[size_t(NodePipeline::kColor)].fragment.find("#include \"lighting.glsl\""), std::string::npos);
}

TEST(NodeMaterial, FeatureBindingOrderDoesNotDependOnBlockOrder) {
  // Skinning is listed (and so installed) before MorphTargets; the bindings still put morph first.
  const std::string json = R"({"blocks": [
    {"id": "s", "type": "Skinning", "inputs": {"position": "m.position", "normal": "m.normal"}},
    {"id": "m", "type": "MorphTargets"},
    {"id": "v", "type": "VertexOutput", "inputs": {"worldPosition": "s.worldPosition", "worldNormal": "s.worldNormal"}},
    {"id": "out", "type": "PbrOutput"}]})";
  Expected<NodeMaterial> m = parseNodeMaterial(json);
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_EQ(m->state.features.size(), 2u);
  EXPECT_EQ(m->state.features[0]->name, "skin");  // install order
  Expected<NodeMaterialGlsl> glsl = generateNodeMaterialGlsl(*m);
  ASSERT_TRUE(glsl) << glsl.error().message;
  EXPECT_EQ(bindingNames(glsl->bindings),
            (std::vector<std::string>{"NodeUniforms", "NodeMorphDeltas", "NodeMorphWeights", "NodeSkinStream",
                                      "NodeJointMatrices", "FrameBlock", "nodeShadowMap", "nodeEnvironmentMap",
                                      "nodeBrdfTable"}));
}

TEST(NodeMaterial, MorphRunsBeforeSkinningInTheGeneratedVertexShader) {
  Expected<NodeMaterial> m = parseNodeMaterial(morphGraph("MorphTargets", true));
  ASSERT_TRUE(m) << m.error().message;
  Expected<NodeMaterialGlsl> glsl = generateNodeMaterialGlsl(*m);
  ASSERT_TRUE(glsl) << glsl.error().message;
  for (NodePipeline p : {NodePipeline::kDepth, NodePipeline::kShadow, NodePipeline::kColor}) {
    const std::string& vs = glsl->shaders[size_t(p)].vertex;
    // The sums themselves are shaders/morph.glsl and skin.glsl (included): their calls stand in order.
    const size_t morph_loop = vs.find("morphAccumulate(nodeMorphWeights.header.count");
    const size_t skin_blend = vs.find("nodeSkinMatrix = skinBlend(nodeVertexIndex");
    const size_t morph_apply = vs.find("vec3 n1_position = nodePosition + nodeMorphDeltaPosition;");
    const size_t skin_apply = vs.find("vec3 n2_worldPosition = (nodeSkinMatrix * vec4(n1_position, 1.0)).xyz;");
    const size_t output = vs.find("nodeOutWorldPosition = n2_worldPosition;");
    ASSERT_NE(morph_loop, std::string::npos) << vs;
    ASSERT_NE(skin_blend, std::string::npos);
    ASSERT_NE(morph_apply, std::string::npos) << vs;
    ASSERT_NE(skin_apply, std::string::npos) << vs;
    ASSERT_NE(output, std::string::npos);
    EXPECT_LT(morph_loop, skin_blend);
    EXPECT_LT(skin_blend, morph_apply);
    EXPECT_LT(morph_apply, skin_apply);
    EXPECT_LT(skin_apply, output);
    EXPECT_NE(vs.find(p == NodePipeline::kShadow ? "frame.light_view_proj * vec4(nodeOutWorldPosition"
                                                 : "frame.view_proj * vec4(nodeOutWorldPosition"),
              std::string::npos);
  }
}

TEST(NodeMaterial, SkinningBeforeMorphIsRejected) {
  const std::string json = R"({"blocks": [
    {"id": "s", "type": "Skinning"},
    {"id": "n", "type": "Normalize", "inputs": {"a": "s.worldPosition"}},
    {"id": "m", "type": "MorphTargets", "inputs": {"position": "n"}},
    {"id": "v", "type": "VertexOutput", "inputs": {"worldPosition": "m.position"}},
    {"id": "out", "type": "PbrOutput"}]})";
  Expected<NodeMaterial> m = parseNodeMaterial(json);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().message.rfind("blocks[2].inputs.position: MorphTargets reads the output of Skinning 's'", 0), 0u)
      << m.error().message;
  EXPECT_NE(m.error().message.find("§3.7.3.3"), std::string::npos);
}

TEST(NodeMaterial, FlagOnlyCustomBlockGetsTheSameMorphFeature) {
  const ParseNodeMaterialOptions options = testLoader();
  Expected<NodeMaterial> builtin = parseNodeMaterial(morphGraph("MorphTargets"), options);
  Expected<NodeMaterial> legacy = parseNodeMaterial(morphGraph("LegacyMorph"), options);
  ASSERT_TRUE(builtin) << builtin.error().message;
  ASSERT_TRUE(legacy) << legacy.error().message;
  EXPECT_TRUE(legacy->state.uses_morph_targets);
  ASSERT_EQ(legacy->state.features.size(), 1u);
  EXPECT_EQ(legacy->state.features[0], builtin->state.features[0]);  // the very same module object
  Expected<NodeMaterialGlsl> a = generateNodeMaterialGlsl(*builtin);
  Expected<NodeMaterialGlsl> b = generateNodeMaterialGlsl(*legacy);
  ASSERT_TRUE(a && b);
  for (size_t p = 0; p < kNodePipelineCount; ++p) {
    EXPECT_EQ(a->shaders[p].vertex, b->shaders[p].vertex) << nodePipelineName(NodePipeline(p));
    EXPECT_EQ(a->shaders[p].fragment, b->shaders[p].fragment);
  }
  ASSERT_EQ(a->bindings.size(), b->bindings.size());
  for (size_t i = 0; i < a->bindings.size(); ++i) {
    EXPECT_EQ(a->bindings[i].name, b->bindings[i].name);
    EXPECT_EQ(a->bindings[i].binding, b->bindings[i].binding);
    EXPECT_EQ(a->bindings[i].kind, b->bindings[i].kind);
    EXPECT_EQ(a->bindings[i].stages, b->bindings[i].stages);
    EXPECT_EQ(a->bindings[i].feature, b->bindings[i].feature);
  }
  EXPECT_EQ(bindingNames(b->bindings),
            (std::vector<std::string>{"NodeUniforms", "NodeMorphDeltas", "NodeMorphWeights", "FrameBlock",
                                      "nodeShadowMap", "nodeEnvironmentMap", "nodeBrdfTable"}));
  // And the SPIR-V compiles.
  Expected<NodeMaterialPrograms> programs = compileNodeMaterial(*legacy);
  ASSERT_TRUE(programs) << programs.error().message;
}

TEST(NodeMaterial, CustomBlockWithoutTheFlagGetsNoFeatureAndFailsToCompile) {
  // The same emitter without the flag: nothing installs the morph feature, so its names are undefined in GLSL.
  Expected<NodeMaterial> m = parseNodeMaterial(morphGraph("NoFlagMorph"), testLoader());
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_TRUE(m->state.features.empty());
  Expected<NodeMaterialPrograms> programs = compileNodeMaterial(*m);
  ASSERT_FALSE(programs);
  EXPECT_EQ(programs.error().code, Error::kInvalidArgument);
  EXPECT_NE(programs.error().message.find("morph-test (depth, vertex): GLSL does not compile"), std::string::npos)
      << programs.error().message;
  EXPECT_NE(programs.error().message.find("nodeMorphDeltaPosition"), std::string::npos);
}

}  // namespace
}  // namespace morphkit
