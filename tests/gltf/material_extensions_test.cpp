// SPDX-License-Identifier: MIT
// The material extensions (src/gltf/material_extensions.cpp, morphkit/model/material_features.h): KHR_materials_unlit,
// emissive_strength, ior, specular, clearcoat and sheen parsed into Material's fields, their defaults, their schema
// ranges (a value outside is one error naming the field), the texture references they hold (checked by the
// validator), the round trip through the GLB writer, the feature list inspect prints, and make-demo's variants.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <string>

#include "gltf_test_util.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/io/inspect.h"
#include "morphkit/model/extensions.h"
#include "morphkit/model/material_features.h"
#include "morphkit/model/primitive.h"

namespace morphkit {
namespace {

// One material with `extensions` (the JSON object's body), two textures (0, 1) on one image, in a document that
// lists `used` in extensionsUsed.
std::string documentWith(std::string_view extensions, std::string_view used) {
  return test::gltfJson(std::string(R"("extensionsUsed":[)") + std::string(used) +
                        R"(],"images":[{"uri":"missing.png"}],"textures":[{"source":0},{"source":0}],)"
                        R"("materials":[{"name":"m","extensions":{)" +
                        std::string(extensions) + "}}]");
}

Expected<Asset> loadMaterial(std::string_view extensions, std::string_view used = R"("KHR_materials_clearcoat")") {
  return test::loadJson(documentWith(extensions, used));
}

TEST(MaterialExtensions, DefaultsWithoutExtensions) {
  Material m;
  EXPECT_FALSE(m.unlit);
  EXPECT_EQ(m.emissive_strength, 1.0f);
  EXPECT_EQ(m.ior, 1.5f);
  EXPECT_EQ(m.specular.factor, 1.0f);
  EXPECT_EQ(m.specular.color_factor[1], 1.0f);
  EXPECT_EQ(m.clearcoat.factor, 0.0f);
  EXPECT_EQ(m.sheen.color_factor[0], 0.0f);
  Expected<Asset> asset = test::loadJson(test::gltfJson(R"("materials":[{"name":"plain"}])"));
  ASSERT_LOADED(asset);
  EXPECT_TRUE(asset->materials[0].extensions.empty());
  EXPECT_TRUE(materialFeatures(*asset).used.empty());
}

TEST(MaterialExtensions, ParsesEveryShadedExtension) {
  Expected<Asset> asset =
      loadMaterial(R"("KHR_materials_unlit":{},"KHR_materials_emissive_strength":{"emissiveStrength":5.5},)"
                   R"("KHR_materials_ior":{"ior":2.4},)"
                   R"("KHR_materials_specular":{"specularFactor":0.25,"specularTexture":{"index":0},)"
                   R"("specularColorFactor":[2,0.5,0],"specularColorTexture":{"index":1,"texCoord":1}},)"
                   R"("KHR_materials_clearcoat":{"clearcoatFactor":0.8,"clearcoatTexture":{"index":0},)"
                   R"("clearcoatRoughnessFactor":0.3,"clearcoatRoughnessTexture":{"index":1},)"
                   R"("clearcoatNormalTexture":{"index":0,"scale":0.5}},)"
                   R"("KHR_materials_sheen":{"sheenColorFactor":[0.9,0.5,0.7],"sheenColorTexture":{"index":1},)"
                   R"("sheenRoughnessFactor":0.4,"sheenRoughnessTexture":{"index":0}},)"
                   R"("KHR_materials_transmission":{"transmissionFactor":1})");
  ASSERT_LOADED(asset);
  const Material& m = asset->materials[0];
  EXPECT_TRUE(m.unlit);
  EXPECT_FLOAT_EQ(m.emissive_strength, 5.5f);
  EXPECT_FLOAT_EQ(m.ior, 2.4f);
  EXPECT_FLOAT_EQ(m.specular.factor, 0.25f);
  EXPECT_EQ(m.specular.texture.texture, 0u);
  EXPECT_FLOAT_EQ(m.specular.color_factor[0], 2.0f);  // specularColorFactor has no maximum
  EXPECT_FLOAT_EQ(m.specular.color_factor[1], 0.5f);
  EXPECT_EQ(m.specular.color_texture.texture, 1u);
  EXPECT_EQ(m.specular.color_texture.texcoord, 1u);
  EXPECT_FLOAT_EQ(m.clearcoat.factor, 0.8f);
  EXPECT_FLOAT_EQ(m.clearcoat.roughness_factor, 0.3f);
  EXPECT_EQ(m.clearcoat.texture.texture, 0u);
  EXPECT_EQ(m.clearcoat.roughness_texture.texture, 1u);
  EXPECT_EQ(m.clearcoat.normal_texture.texture, 0u);
  EXPECT_FLOAT_EQ(m.clearcoat.normal_texture.scale, 0.5f);
  EXPECT_FLOAT_EQ(m.sheen.color_factor[2], 0.7f);
  EXPECT_FLOAT_EQ(m.sheen.roughness_factor, 0.4f);
  EXPECT_EQ(m.sheen.color_texture.texture, 1u);
  EXPECT_EQ(m.sheen.roughness_texture.texture, 0u);
  ASSERT_EQ(m.extensions.size(), 7u);
  EXPECT_EQ(m.extensions[0], "KHR_materials_unlit");
  EXPECT_EQ(m.extensions[6], "KHR_materials_transmission");

  const MaterialFeatures features = materialFeatures(*asset);
  EXPECT_EQ(features.used.size(), 7u);
  ASSERT_EQ(features.unshaded.size(), 1u);
  EXPECT_EQ(features.unshaded[0], "KHR_materials_transmission");
  // The registry's material rows are the shaded ones, the six the parser reads (material_extensions.cpp).
  size_t shaded = 0;
  for (const GltfExtension& e : gltfExtensions()) {
    EXPECT_EQ(isShadedMaterialExtension(e.name), e.kind == ExtensionKind::kMaterial) << e.name;
    shaded += isShadedMaterialExtension(e.name);
  }
  EXPECT_EQ(shaded, 6u);
  EXPECT_FALSE(isShadedMaterialExtension("KHR_materials_volume"));
  EXPECT_FALSE(isShadedMaterialExtension("KHR_texture_transform"));  // shaded, but no material extension
}

TEST(MaterialExtensions, OutOfRangeValuesAreOneErrorNamingTheField) {
  struct Case {
    const char* extension;
    const char* fragment;
  };
  const Case cases[] = {
      {R"("KHR_materials_clearcoat":{"clearcoatFactor":1.5})", "KHR_materials_clearcoat.clearcoatFactor: 1.5 is not"},
      {R"("KHR_materials_clearcoat":{"clearcoatRoughnessFactor":-0.1})", "clearcoatRoughnessFactor: -0.1 is not"},
      {R"("KHR_materials_sheen":{"sheenColorFactor":[0.5,1.2,0]})", "sheenColorFactor: component 1.2"},
      {R"("KHR_materials_sheen":{"sheenRoughnessFactor":2})", "sheenRoughnessFactor: 2 is not within 0..1"},
      {R"("KHR_materials_specular":{"specularFactor":-1})", "specularFactor: -1 is not within 0..1"},
      {R"("KHR_materials_specular":{"specularColorFactor":[1,-0.5,1]})", "specularColorFactor: component -0.5"},
      {R"("KHR_materials_emissive_strength":{"emissiveStrength":-2})", "emissiveStrength: -2 is not at least 0"},
      {R"("KHR_materials_ior":{"ior":0.5})", "ior: 0.5 is neither 0 nor at least 1"},
      {R"("KHR_materials_ior":{"ior":"glass"})", "ior: must be a number"},
      {R"("KHR_materials_sheen":{"sheenColorFactor":[1,1]})", "sheenColorFactor"},
      {R"("KHR_materials_clearcoat":[])", "extensions.KHR_materials_clearcoat: must be an object"},
      {R"("KHR_materials_clearcoat":{"clearcoatTexture":{"index":7}})", "clearcoatTexture.index"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.extension);
    Expected<Asset> asset = loadMaterial(c.extension);
    EXPECT_FAILURE(asset, Error::kInvalidGltf, "materials[0].", c.fragment);
    if (!asset) {
      EXPECT_EQ(asset.error().message.find('\n'), std::string::npos);
    }
  }
  // The schema's limits themselves are valid, and ior 0 is the extension's own special value.
  ASSERT_LOADED(loadMaterial(R"("KHR_materials_clearcoat":{"clearcoatFactor":1,"clearcoatRoughnessFactor":0})"));
  ASSERT_LOADED(loadMaterial(R"("KHR_materials_ior":{"ior":0})"));
  ASSERT_LOADED(loadMaterial(R"("KHR_materials_ior":{"ior":1})"));
}

TEST(MaterialExtensions, RequiredShadedExtensionsLoad) {
  const std::string json =
      test::gltfJson(R"("extensionsUsed":["KHR_materials_sheen"],"extensionsRequired":["KHR_materials_sheen"],)"
                     R"("materials":[{"extensions":{"KHR_materials_sheen":{"sheenColorFactor":[1,0,0]}}}])");
  ASSERT_LOADED(test::loadJson(json));
  const std::string volume = test::gltfJson(
      R"("extensionsUsed":["KHR_materials_volume"],"extensionsRequired":["KHR_materials_volume"],"materials":[{}])");
  EXPECT_FAILURE(test::loadJson(volume), Error::kUnsupportedExtension, "KHR_materials_volume");
}

TEST(MaterialExtensions, GlbWriterKeepsThemAcrossARoundTrip) {
  for (DemoMaterial kind : demoMaterials()) {
    SCOPED_TRACE(demoMaterialName(kind));
    Asset made = test::validated(
        makeDemoAsset({.targets = 2, .vertices = 200, .bones = 2, .material = kind, .texture_size = 32}));
    Expected<std::vector<uint8_t>> glb = writeGlb(made);
    ASSERT_TRUE(glb.ok());
    Expected<Asset> back = loadAssetFromMemory(*glb, ".");
    ASSERT_LOADED(back);
    const Material& a = made.materials[0];
    const Material& b = back->materials[0];
    EXPECT_EQ(a.extensions, b.extensions);
    EXPECT_EQ(a.unlit, b.unlit);
    EXPECT_EQ(a.emissive_strength, b.emissive_strength);
    EXPECT_EQ(a.ior, b.ior);
    EXPECT_EQ(a.specular.factor, b.specular.factor);
    EXPECT_EQ(a.specular.color_factor[1], b.specular.color_factor[1]);
    EXPECT_EQ(a.clearcoat.factor, b.clearcoat.factor);
    EXPECT_EQ(a.clearcoat.roughness_factor, b.clearcoat.roughness_factor);
    EXPECT_EQ(a.sheen.color_factor[0], b.sheen.color_factor[0]);
    EXPECT_EQ(a.sheen.roughness_factor, b.sheen.roughness_factor);
    EXPECT_EQ(a.metallic_factor, b.metallic_factor);
    EXPECT_EQ(a.base_color_texture.texture, b.base_color_texture.texture);
    EXPECT_EQ(made.extensions_used, back->extensions_used);
    EXPECT_EQ(materialFeatures(made).used, materialFeatures(*back).used);
  }
}

TEST(MaterialExtensions, DemoVariantsUseTheirFeature) {
  auto features = [](DemoMaterial kind) {
    return materialFeatures(test::validated(makeDemoAsset({.targets = 0, .vertices = 100, .material = kind}))).used;
  };
  EXPECT_TRUE(features(DemoMaterial::kSkin).empty());
  EXPECT_EQ(features(DemoMaterial::kUnlit), std::vector<std::string>{"KHR_materials_unlit"});
  EXPECT_EQ(features(DemoMaterial::kEmissive), std::vector<std::string>{"KHR_materials_emissive_strength"});
  EXPECT_EQ(features(DemoMaterial::kIor), std::vector<std::string>{"KHR_materials_ior"});
  EXPECT_EQ(features(DemoMaterial::kSpecular), std::vector<std::string>{"KHR_materials_specular"});
  EXPECT_EQ(features(DemoMaterial::kClearcoat), std::vector<std::string>{"KHR_materials_clearcoat"});
  EXPECT_EQ(features(DemoMaterial::kSheen), std::vector<std::string>{"KHR_materials_sheen"});
  EXPECT_EQ(features(DemoMaterial::kVertexColors), std::vector<std::string>{"COLOR_0"});
  Asset metal = test::validated(makeDemoAsset({.targets = 0, .vertices = 100, .material = DemoMaterial::kMetallic}));
  EXPECT_EQ(metal.materials[0].metallic_factor, 1.0f);
  // The textured variant's images (base colour, normal map, occlusion-roughness-metallic in one) are PNGs the loader
  // keeps in bufferViews (render decodes them; render tests draw them); the clearcoat variant's coat has its own
  // normal map.
  Asset textured = test::validated(
      makeDemoAsset({.targets = 0, .vertices = 100, .material = DemoMaterial::kTextured, .texture_size = 32}));
  ASSERT_EQ(textured.images.size(), 3u);
  for (const Image& image : textured.images) EXPECT_EQ(image.mime_type, "image/png");
  EXPECT_EQ(textured.materials[0].base_color_texture.texture, 0u);
  EXPECT_EQ(textured.materials[0].normal_texture.texture, 1u);
  EXPECT_EQ(textured.materials[0].occlusion_texture.texture, 2u);
  EXPECT_EQ(textured.materials[0].metallic_roughness_texture.texture, 2u);
  Asset coated = test::validated(makeDemoAsset({.targets = 0, .vertices = 100, .material = DemoMaterial::kClearcoat}));
  ASSERT_EQ(coated.images.size(), 1u);
  EXPECT_EQ(coated.materials[0].clearcoat.normal_texture.texture, 0u);
  // Vertex colours decode as RGBA in [0, 1] (unsigned bytes, normalized), one per vertex.
  Asset colored =
      test::validated(makeDemoAsset({.targets = 0, .vertices = 100, .material = DemoMaterial::kVertexColors}));
  Expected<PrimitiveData> data = decodePrimitive(colored, 0, 0);
  ASSERT_TRUE(data.ok());
  ASSERT_EQ(data->colors.size(), 1u);
  ASSERT_EQ(data->colors[0].size(), 4u * data->vertex_count);
  float lo = 1, hi = 0;
  for (size_t v = 0; v < data->vertex_count; ++v) {
    lo = std::min(lo, data->colors[0][4 * v]);
    hi = std::max(hi, data->colors[0][4 * v]);
    EXPECT_EQ(data->colors[0][4 * v + 3], 1.0f);
  }
  EXPECT_GE(lo, 0.0f);
  EXPECT_LE(hi, 1.0f);
  EXPECT_GT(hi - lo, 0.3f);  // the colours vary over the head
}

TEST(MaterialExtensions, InspectJsonListsFeatures) {
  Expected<Asset> asset = loadMaterial(R"("KHR_materials_clearcoat":{"clearcoatFactor":1},"KHR_materials_volume":{})",
                                       R"("KHR_materials_clearcoat","KHR_materials_volume")");
  ASSERT_LOADED(asset);
  const std::string json = inspectJson(*asset, "m.gltf");
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(json).get(root), simdjson::SUCCESS);
  simdjson::dom::array used = root["materialFeatures"]["used"].get_array();
  ASSERT_EQ(used.size(), 2u);
  EXPECT_EQ(std::string_view(used.at(0).get_string()), "KHR_materials_clearcoat");
  simdjson::dom::array unshaded = root["materialFeatures"]["unshaded"].get_array();
  ASSERT_EQ(unshaded.size(), 1u);
  EXPECT_EQ(std::string_view(unshaded.at(0).get_string()), "KHR_materials_volume");
  EXPECT_EQ(root["materials"].at(0)["extensions"].get_array().size(), 2u);
  // What morphkit does with each used extension, from the one registry (morphkit/model/extensions.h).
  EXPECT_EQ(std::string_view(root["extensionHandling"]["KHR_materials_clearcoat"].get_string()), "shaded");
  EXPECT_EQ(std::string_view(root["extensionHandling"]["KHR_materials_volume"].get_string()), "not implemented");
}

}  // namespace
}  // namespace morphkit
