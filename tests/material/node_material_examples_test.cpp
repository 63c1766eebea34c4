// SPDX-License-Identifier: MIT
// Node materials, the examples and the messages: every example compiles to SPIR-V, the custom one needs its loader,
// errors name the block, types convert and literals round-trip. The graph rules: node_material_test.cpp.
#include <gtest/gtest.h>

#include "node_material_support.h"

namespace morphkit {
namespace {

TEST(NodeMaterial, EveryExampleCompilesToSpirv) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(sourceDir() / "examples")) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    SCOPED_TRACE(entry.path().filename().string());
    Expected<NodeMaterial> m = loadNodeMaterial(entry.path().string(), testLoader());
    ASSERT_TRUE(m) << m.error().message;
    Expected<NodeMaterialPrograms> programs = compileNodeMaterial(*m);
    ASSERT_TRUE(programs) << programs.error().message;
    for (size_t p = 0; p < kNodePipelineCount; ++p) {
      const NodeSpirv& spirv = programs->spirv[p];
      ASSERT_GT(spirv.vertex.size(), 5u);
      EXPECT_EQ(spirv.vertex[0], 0x07230203u);  // SPIR-V magic
      if (NodePipeline(p) == NodePipeline::kColor) {
        ASSERT_GT(spirv.fragment.size(), 5u);
        EXPECT_EQ(spirv.fragment[0], 0x07230203u);
      } else {
        EXPECT_TRUE(spirv.fragment.empty());
      }
    }
  }
  EXPECT_GE(count, 3);
}

TEST(NodeMaterial, CustomExampleNeedsItsLoader) {
  Expected<NodeMaterial> m = loadNodeMaterial(examplePath("custom_rim.json").string());
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("custom_rim.json: blocks[2].type: unknown block type 'LegacyMorph'"),
            std::string::npos)
      << m.error().message;
  Expected<NodeMaterial> ok = loadNodeMaterial(examplePath("custom_rim.json").string(), testLoader());
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_TRUE(nodeMaterialUsesMorph(*ok));
  EXPECT_FALSE(nodeMaterialUsesSkinning(*ok));
}

TEST(NodeMaterial, ErrorsNameTheBlock) {
  const BadGraph cases[] = {
      {R"({"blocks": [{"id": "c", "type": "Constant", "value": 1}, {"id": "x", "type": "Add", "inputs": {"a": "c", "b": 2}},
          {"id": "y", "type": "Multiply", "inputs": {"a": "x", "b": "c"}}, {"id": "z", "type": "Add", "inputs": {"a": "foo", "b": 1}},
          {"id": "out", "type": "PbrOutput"}]})",
       "blocks[3].inputs.a: unknown block 'foo'"},
      {R"({"blocks": [{"id": "a", "type": "Frobnicate"}, {"id": "out", "type": "PbrOutput"}]})",
       "blocks[0].type: unknown block type 'Frobnicate'"},
      {R"({"blocks": [{"id": "a", "type": "Add", "inputs": {"a": 1, "c": 2}}, {"id": "out", "type": "PbrOutput"}]})",
       "blocks[0].inputs.c: Add has no input 'c'"},
      {R"({"blocks": [{"id": "a", "type": "Add", "inputs": {"a": 1}}, {"id": "out", "type": "PbrOutput"}]})",
       "blocks[0].inputs.b: required input not connected"},
      {R"({"blocks": [{"id": "t", "type": "Texture", "slot": "baseColor"},
          {"id": "out", "type": "PbrOutput", "inputs": {"baseColor": "t.q"}}]})",
       "blocks[1].inputs.baseColor: block 't' (Texture) has no output 'q'"},
      {R"({"blocks": [{"id": "a", "type": "Add", "inputs": {"a": "b", "b": 1}}, {"id": "b", "type": "Add", "inputs": {"a": "a", "b": 1}},
          {"id": "out", "type": "PbrOutput"}]})",
       "blocks[1].inputs.a: cycle through 'a'"},
      {R"({"blocks": [{"id": "c", "type": "Constant", "value": 1}]})", "blocks: a graph needs a PbrOutput block"},
      {R"({"blocks": [{"id": "c", "type": "Constant", "value": [1, 2]},
          {"id": "out", "type": "PbrOutput", "inputs": {"baseColor": "c"}}]})",
       "blocks[1].inputs.baseColor: cannot convert vec2 to vec4"},
      {R"({"blocks": [{"id": "t", "type": "Texture", "slot": "baseColor"},
          {"id": "v", "type": "VertexOutput", "inputs": {"position": "t.rgb"}}, {"id": "out", "type": "PbrOutput"}]})",
       "blocks[1].inputs.position: 't' (Texture) is not available in the vertex stage"},
      {R"({"blocks": [{"id": "m", "type": "MorphTargets"},
          {"id": "out", "type": "PbrOutput", "inputs": {"emissive": "m.position"}}]})",
       "blocks[1].inputs.emissive: 'm' (MorphTargets) is not available in the fragment stage"},
      {R"({"blocks": [{"id": "a", "type": "Constant", "value": 1}, {"id": "a", "type": "PbrOutput"}]})",
       "blocks[1].id: duplicate id 'a'"},
      {R"({"blocks": [{"id": "a", "type": "Constant", "value": [1, 2, 3, 4, 5]}, {"id": "out", "type": "PbrOutput"}]})",
       "blocks[0].value: must have at most 4 components"},
      {R"({"blocks": [{"id": "u", "type": "Uniform", "name": "1bad", "value": 1}, {"id": "out", "type": "PbrOutput"}]})",
       "blocks[0].name: '1bad' is not an identifier"},
      {R"({"blocks": [{"id": "t", "type": "Texture", "slot": "diffuse"}, {"id": "out", "type": "PbrOutput"}]})",
       "blocks[0].slot: unknown slot 'diffuse'"},
      {R"({"blocks": [{"id": "s", "type": "Swizzle", "components": "xyz", "inputs": {"value": [1, 2]}}, {"id": "out", "type": "PbrOutput"}]})",
       "blocks[0].components: 'xyz' reads beyond a vec2"},
      {R"({"blocks": [{"id": "c", "type": "Constant", "value": 1, "colour": 2}, {"id": "out", "type": "PbrOutput"}]})",
       "blocks[0].colour: unknown field for Constant"},
      {R"({"blocks": [{"id": "o1", "type": "PbrOutput"}, {"id": "o2", "type": "PbrOutput"}]})",
       "blocks[1]: a graph has exactly one PbrOutput"},
      {R"({"blocks": 3})", "blocks: required array"},
      {R"({"blocks": [)", "node material: "},
  };
  for (const BadGraph& c : cases) {
    Expected<NodeMaterial> m = parseNodeMaterial(c.json);
    ASSERT_FALSE(m) << c.message;
    EXPECT_EQ(m.error().message.rfind(c.message, 0), 0u) << "got: " << m.error().message << "\nwanted: " << c.message;
  }
}

TEST(NodeMaterial, TypesConvertAndLiteralsRoundTrip) {
  const std::string json = R"({"name": "types", "blocks": [
    {"id": "c3", "type": "Constant", "value": [0.1, 0.2, 0.3]},
    {"id": "s", "type": "Constant", "value": 0.5, "valueType": "vec3"},
    {"id": "mix", "type": "Mix", "inputs": {"a": "c3", "b": "s", "t": 0.25}},
    {"id": "d", "type": "Dot", "inputs": {"a": "mix", "b": [0, 1, 0]}},
    {"id": "sw", "type": "Swizzle", "components": "zx", "inputs": {"value": "mix"}},
    {"id": "r", "type": "Swizzle", "components": "y", "inputs": {"value": "sw"}},
    {"id": "out", "type": "PbrOutput", "inputs": {"baseColor": "mix", "metallic": "d", "roughness": "r"}}]})";
  Expected<NodeMaterial> m = parseNodeMaterial(json);
  ASSERT_TRUE(m) << m.error().message;
  Expected<NodeMaterialGlsl> glsl = generateNodeMaterialGlsl(*m);
  ASSERT_TRUE(glsl) << glsl.error().message;
  const std::string& fs = glsl->shaders[size_t(NodePipeline::kColor)].fragment;
  EXPECT_NE(fs.find("vec3 n2 = mix(vec3(0.1, 0.2, 0.3), vec3(0.5, 0.5, 0.5), vec3(0.25));"), std::string::npos) << fs;
  EXPECT_NE(fs.find("float n3 = dot(n2, vec3(0.0, 1.0, 0.0));"), std::string::npos);
  EXPECT_NE(fs.find("vec2 n4 = (n2).zx;"), std::string::npos);
  EXPECT_NE(fs.find("nodePbrBaseColor = vec4(n2, 1.0);"), std::string::npos);  // vec3 → vec4 appends 1
  EXPECT_NE(fs.find("float n5 = (n4).y;"), std::string::npos);
  EXPECT_NE(fs.find("nodePbrRoughness = n5;"), std::string::npos) << fs;
  ASSERT_TRUE(compileNodeMaterial(*m));
}

TEST(NodeMaterial, GeneratedCodeIncludesTheRendererContractAndRestatesNoStruct) {
  // FrameUniforms, the NodeUniforms head, NodeMorphHeader and the MSH_* flags come from render_shared.h through
  // shaderc's include callback; the morph and skin math from morph.glsl / skin.glsl.
  Expected<NodeMaterial> m = parseNodeMaterial(morphGraph("MorphTargets", true));
  ASSERT_TRUE(m) << m.error().message;
  Expected<NodeMaterialGlsl> glsl = generateNodeMaterialGlsl(*m);
  ASSERT_TRUE(glsl) << glsl.error().message;
  for (NodePipeline p : {NodePipeline::kDepth, NodePipeline::kShadow, NodePipeline::kColor}) {
    for (const std::string* text : {&glsl->shaders[size_t(p)].vertex, &glsl->shaders[size_t(p)].fragment}) {
      if (text->empty()) continue;
      EXPECT_NE(text->find("#include \"render_shared.h\""), std::string::npos) << *text;
      EXPECT_NE(text->find("MSH_NODE_OBJECT_MEMBERS"), std::string::npos);
      EXPECT_EQ(text->find("struct "), std::string::npos) << *text;  // no struct restated
      EXPECT_EQ(text->find("mat4 view_proj"), std::string::npos);
    }
    const std::string& vs = glsl->shaders[size_t(p)].vertex;
    EXPECT_NE(vs.find("#include \"morph.glsl\""), std::string::npos) << vs;
    EXPECT_NE(vs.find("#include \"skin.glsl\""), std::string::npos);
  }
  ASSERT_TRUE(compileNodeMaterial(*m));
}

TEST(NodeMaterial, AnUnknownIncludeIsACompileErrorNamingIt) {
  const std::string glsl =
      "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
      "#include \"missing.glsl\"\nvoid main() {}\n";
  Expected<std::vector<uint32_t>> words = compileNodeGlsl(glsl, kNodeStageVertex, "include-test");
  ASSERT_FALSE(words);
  EXPECT_EQ(words.error().code, Error::kInvalidArgument);
  EXPECT_NE(words.error().message.find("include-test: GLSL does not compile"), std::string::npos)
      << words.error().message;
  EXPECT_NE(words.error().message.find("missing.glsl"), std::string::npos) << words.error().message;
}

TEST(NodeMaterial, UniformBytesAndTextureSourcesFollowTheGltfMaterial) {
  Expected<NodeMaterial> m = loadNodeMaterial(examplePath("static_pbr.json").string());
  ASSERT_TRUE(m) << m.error().message;
  Asset built;
  built.images.resize(2);
  built.images[0].uri = "normal.png";  // an image names its bytes (§5.18); nothing here reads them
  built.images[1].uri = "base.png";
  built.samplers.resize(1);
  built.textures.push_back(Texture{0, 1});      // texture 0: sampler 0, image 1
  built.textures.push_back(Texture{kNone, 0});  // texture 1: default sampler, image 0
  Material mat;
  mat.base_color_factor[0] = 0.5f;
  mat.base_color_factor[3] = 0.25f;
  mat.metallic_factor = 0.125f;
  mat.roughness_factor = 0.75f;
  mat.emissive_factor[1] = 2.0f;
  mat.base_color_texture = {0, 1, 1.0f};     // TEXCOORD_1
  mat.normal_texture = {1, 0, 0.5f};         // scale 0.5
  mat.occlusion_texture = {kNone, 0, 1.0f};  // absent: unbound (an out-of-range index never passes validation)
  mat.alpha_mode = AlphaMode::kMask;
  mat.alpha_cutoff = 0.3f;
  built.materials.push_back(mat);  // validated with the asset: its texture indices are in range
  const Asset asset = test::validated(std::move(built));
  // Declared textures, in order: baseColor, metallicRoughness, normal, occlusion, emissive.
  const NodeTextureSource base = nodeTextureSource(*m, 0, asset, &mat);
  EXPECT_TRUE(base.bound);
  EXPECT_EQ(base.image, 1u);
  EXPECT_EQ(base.sampler, 0u);
  EXPECT_EQ(base.texcoord, 1u);
  EXPECT_TRUE(base.srgb);
  EXPECT_FALSE(nodeTextureSource(*m, 1, asset, &mat).bound);
  EXPECT_EQ(nodeTextureSource(*m, 2, asset, &mat).image, 0u);
  EXPECT_EQ(nodeTextureSource(*m, 2, asset, &mat).sampler, kNone);
  EXPECT_FALSE(nodeTextureSource(*m, 2, asset, &mat).srgb);
  EXPECT_FALSE(nodeTextureSource(*m, 3, asset, &mat).bound);
  EXPECT_FALSE(nodeTextureSource(*m, 0, asset, nullptr).bound);  // the default material has no textures

  NodeObjectHeader header{};
  header.features = 5;
  header.skin_sets = 2;
  const std::vector<uint8_t> bytes = nodeUniformBytes(*m, asset, &mat, header);
  ASSERT_EQ(bytes.size(), m->uniform_block_bytes);
  NodeObjectHeader back;
  std::memcpy(&back, bytes.data(), sizeof back);
  EXPECT_EQ(back.features, 5u);
  EXPECT_EQ(back.skin_sets, 2u);
  EXPECT_EQ(back.texture_mask, 0b00101u);   // baseColor and normal bound
  EXPECT_EQ(back.texcoord_sets, 0b00001u);  // baseColor on TEXCOORD_1
  EXPECT_EQ(back.alpha_mode, 1u);
  EXPECT_EQ(back.alpha_cutoff, 0.3f);
  auto slot = [&](const char* name) {
    std::array<float, 4> v{};
    for (const NodeUniformInfo& u : m->uniforms) {
      if (u.name == name) std::memcpy(v.data(), bytes.data() + u.offset, 16);
    }
    return v;
  };
  EXPECT_EQ(slot("baseColorFactor"), (std::array<float, 4>{0.5f, 1, 1, 0.25f}));
  EXPECT_EQ(slot("metallicFactor")[0], 0.125f);
  EXPECT_EQ(slot("roughnessFactor")[0], 0.75f);
  EXPECT_EQ(slot("emissiveFactor"), (std::array<float, 4>{0, 2, 0, 0}));
  EXPECT_EQ(slot("normalScale")[0], 0.5f);
  EXPECT_EQ(slot("occlusionStrength")[0], 1.0f);
  // No material: the glTF defaults (§3.9.6).
  const std::vector<uint8_t> defaults = nodeUniformBytes(*m, asset, nullptr, header);
  std::array<float, 4> v;
  std::memcpy(v.data(), defaults.data() + m->uniforms[0].offset, 16);
  EXPECT_EQ(v, (std::array<float, 4>{1, 1, 1, 1}));
}

TEST(NodeMaterial, FlagOnlySkinningBlockGetsTheSkinFeature) {
  // A custom skinning block on the flag-only contract: it sets uses_skinning and reads nodeSkinMatrix.
  struct LegacySkin final : NodeBlockEmitter {
    std::vector<NodePortDecl> inputs() const override {
      return {{"position", NodeValueType::kVec3, true, {}, "nodePosition"}};
    }
    std::vector<NodePortDecl> outputs() const override { return {{"worldPosition", NodeValueType::kVec3}}; }
    uint32_t stages() const override { return kNodeStageVertex; }
    Status declare(NodeBuildState& state, const NodeBlock&) const override {
      state.uses_skinning = true;
      return Ok{};
    }
    Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string&) const override {
      return std::vector<std::string>{"(nodeSkinMatrix * vec4(" + c.inputs[0] + ", 1.0)).xyz"};
    }
  };
  ParseNodeMaterialOptions options;
  options.block_loader = [](std::string_view type) -> std::shared_ptr<const NodeBlockEmitter> {
    return type == "LegacySkin" ? std::make_shared<LegacySkin>() : nullptr;
  };
  Expected<NodeMaterial> m = parseNodeMaterial(R"({"blocks": [
    {"id": "m", "type": "MorphTargets"}, {"id": "s", "type": "LegacySkin", "inputs": {"position": "m.position"}},
    {"id": "v", "type": "VertexOutput", "inputs": {"worldPosition": "s"}}, {"id": "out", "type": "PbrOutput"}]})",
                                               options);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_TRUE(nodeMaterialUsesMorph(*m));
  EXPECT_TRUE(nodeMaterialUsesSkinning(*m));
  Expected<NodeMaterialPrograms> programs = compileNodeMaterial(*m);
  ASSERT_TRUE(programs) << programs.error().message;
  EXPECT_EQ(bindingNames(programs->glsl.bindings),
            (std::vector<std::string>{"NodeUniforms", "NodeMorphDeltas", "NodeMorphWeights", "NodeSkinStream",
                                      "NodeJointMatrices", "FrameBlock", "nodeShadowMap", "nodeEnvironmentMap",
                                      "nodeBrdfTable"}));
}

TEST(NodeMaterialCli, MaterialCommandListsBindingsAndWritesShaders) {
  const std::filesystem::path dir = test::scratchDir();
  const std::filesystem::path log = dir / "out.txt";
  ASSERT_EQ(
      runCli("material " + examplePath("morph_skin_pbr.json").string() + " --out " + (dir / "shaders").string(), log),
      0)
      << readText(log);
  const std::string text = readText(log);
  EXPECT_NE(text.find("features: morph, skin"), std::string::npos) << text;
  EXPECT_NE(text.find(" 6  NodeMorphDeltas    storage_buffer   V  (morph)"), std::string::npos) << text;
  EXPECT_NE(text.find("11  nodeShadowMap"), std::string::npos);
  for (const char* f : {"depth.vert", "depth.vert.spv", "shadow.vert", "shadow.vert.spv", "color.vert", "color.frag",
                        "color.frag.spv"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / "shaders" / f)) << f;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "shaders" / "depth.frag"));
  EXPECT_NE(readText(dir / "shaders" / "color.vert").find("NodeMorphWeights"), std::string::npos);
  // The files the shaders #include are written beside them, as embedded.
  for (const NodeShaderInclude& file : nodeShaderIncludes()) {
    EXPECT_EQ(readText(dir / "shaders" / file.name), std::string(file.text)) << file.name;
  }
  EXPECT_NE(readText(dir / "shaders" / "render_shared.h").find("struct FrameUniforms {"), std::string::npos);

  ASSERT_EQ(runCli("material " + examplePath("static_pbr.json").string(), log), 0);
  EXPECT_NE(readText(log).find("features: none"), std::string::npos);
  // A bad graph: exit 1 and one line naming the file and the block.
  const std::filesystem::path bad = dir / "bad.json";
  std::ofstream(bad)
      << R"({"blocks": [{"id": "a", "type": "Add", "inputs": {"a": "nope", "b": 1}}, {"id": "o", "type": "PbrOutput"}]})";
  ASSERT_EQ(runCli("material " + bad.string(), log), 1);
  EXPECT_NE(readText(log).find("bad.json: blocks[0].inputs.a: unknown block 'nope'"), std::string::npos)
      << readText(log);
}

}  // namespace
}  // namespace morphkit
