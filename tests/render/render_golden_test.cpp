// SPDX-License-Identifier: MIT
// Golden images of the headless renderer (morphkit/render/render.h) on lavapipe or any Vulkan device, validation on:
//   goldens    tests/golden/<case>.png; metric: mean |Δ| ≤ 1/255 over all channels AND ≤ 0.5 % of pixels with a
//              channel off by > 16/255. On failure <case>_actual.png and <case>_diff.png are written beside the
//              test binary. MORPHKIT_BLESS=1 (scripts/bless-goldens) rewrites the goldens instead of comparing.
//   paths      the vertex path (band-texture path texture) and the compute path (GpuMorphGroup output as vertex buffer)
//   give
//              the same image: mean |Δ| ≤ 0.5/255 per channel and ≤ 0.1 % of pixels off by > 8/255.
//   seed       the band-texture design's 32-byte uniform variant and the storage-buffer active-list variant give the
//   same image. zero       all-zero weights render the same as no morph data at all (same metric as the paths). in
//   flight  frames through submitFrame / collectFrame equal renderFrame's, bit for bit. any message from the validation
//   layer fails the test (VulkanTest's TearDown).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "gltf_test_util.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/image/image.h"
#include "morphkit/model/files.h"
#include "morphkit/render/render.h"
#include "texture_support.h"
#include "vk_context.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

constexpr uint32_t kSize = 128;

std::filesystem::path goldenDir() {
  return test::sourceDir() / "tests" / "golden";
}
std::filesystem::path binaryDir() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path();
}
bool blessing() {
  const char* bless = std::getenv("MORPHKIT_BLESS");
  return bless && std::string(bless) == "1";
}

DecodedImage asDecoded(const RenderedImage& image) {
  return DecodedImage{image.width, image.height, image.rgba};
}

void writePng(const std::filesystem::path& path, const DecodedImage& image) {
  auto png = encodePng(image.rgba, image.width, image.height);
  ASSERT_TRUE(png.ok()) << png.error().message;
  ASSERT_TRUE(writeFileAtomic(path, std::span<const uint8_t>(*png)).ok()) << path;
}

struct Shot {
  uint32_t animation = kNone;
  double time = 0.0;
  std::optional<std::vector<float>> weights;  // override
};

class RenderTest : public test::VulkanTest {
 protected:
  // Renders `shot` of `asset` with `options` (size and shadow map forced small, camera auto-framed on the shot).
  RenderedImage render(const Asset& asset, RenderOptions options, const Shot& shot) {
    options.width = options.height = kSize;
    options.shadow_size = 256;
    auto renderer = createRenderer(*context_, asset, options);
    EXPECT_TRUE(renderer.ok()) << renderer.error().message;
    if (!renderer) return {};
    // Framing on the posed vertices of this one time keeps the shot independent of the clip length.
    auto bounds = posedBounds(asset, kNone, shot.animation, shot.time, shot.time, 1);
    EXPECT_TRUE(bounds.ok());
    if (bounds) setRendererCamera(**renderer, frameBounds(*bounds, 1.0f), *bounds);
    RenderFrameInput input;
    input.animation = shot.animation;
    input.time = shot.time;
    input.override_weights = shot.weights;
    auto image = renderFrame(**renderer, input);
    EXPECT_TRUE(image.ok()) << image.error().message;
    info_ = rendererInfo(**renderer);
    destroyRenderer(*renderer);
    return image ? *image : RenderedImage{};
  }

  // Golden comparison (or blessing).
  void expectGolden(const std::string& name, const RenderedImage& image) {
    ASSERT_EQ(image.rgba.size(), size_t(kSize) * kSize * 4);
    const std::filesystem::path golden = goldenDir() / (name + ".png");
    if (blessing()) {
      std::filesystem::create_directories(goldenDir());
      writePng(golden, asDecoded(image));
      return;
    }
    auto bytes = readFile(golden);
    ASSERT_TRUE(bytes.ok()) << golden << " is missing: run scripts/bless-goldens";
    auto expected = decodePng(*bytes);
    ASSERT_TRUE(expected.ok()) << expected.error().message;
    auto diff = diffImages(*expected, asDecoded(image), 16);
    ASSERT_TRUE(diff.ok()) << diff.error().message;
    const bool pass = diff->mean_abs <= 1.0 && diff->fraction_over <= 0.005;
    if (!pass) {
      writePng(binaryDir() / (name + "_actual.png"), asDecoded(image));
      writePng(binaryDir() / (name + "_diff.png"), diff->diff);
    }
    EXPECT_TRUE(pass) << name << ": mean |Δ| " << diff->mean_abs << "/255 (limit 1), " << diff->fraction_over * 100
                      << " % of pixels off by > 16/255 (limit 0.5 %), max " << diff->max_abs << "; wrote "
                      << (binaryDir() / (name + "_actual.png")) << " and _diff.png";
  }

  // Two renders agree within the path tolerance.
  static void expectSame(const RenderedImage& a, const RenderedImage& b, const std::string& what) {
    auto diff = diffImages(asDecoded(a), asDecoded(b), 8);
    ASSERT_TRUE(diff.ok()) << diff.error().message;
    EXPECT_LE(diff->mean_abs, 0.5) << what;
    EXPECT_LE(diff->fraction_over, 0.001) << what << ": max " << diff->max_abs;
  }

  static Expected<Asset> sharedAsset(const std::string& relative) { return loadAsset(test::assetsDir() / relative); }

  static Asset demoAsset(uint32_t targets = 52) {
    DemoOptions options;
    options.vertices = 3000;
    options.targets = targets;
    return test::validated(makeDemoAsset(options));
  }

  RendererInfo info_;
};

// A triangle textured by a KTX2 image (KHR_texture_basisu), optionally with a red 1×1 PNG fallback `source`.
std::string ktx2Triangle(bool fallback) {
  const float data[15] = {-1, -1, 0, 1, -1, 0, 0, 1, 0, 0, 0, 1, 0, 0.5f, 1};
  std::vector<uint8_t> bytes(sizeof data);
  std::memcpy(bytes.data(), data, sizeof data);
  const std::vector<uint8_t> ktx2 = {0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, 0x0D, 0x0A, 0x1A, 0x0A};
  const uint8_t red[4] = {255, 0, 0, 255};
  Expected<std::vector<uint8_t>> png = encodePng(red, 1, 1);
  std::string images = "{\"uri\":\"data:image/ktx2;base64," + test::base64(ktx2) + "\",\"mimeType\":\"image/ktx2\"}";
  if (fallback) images += ",{\"uri\":\"data:image/png;base64," + test::base64(*png) + "\"}";
  const std::string texture = fallback ? "{\"source\":1,\"extensions\":{\"KHR_texture_basisu\":{\"source\":0}}}"
                                       : "{\"extensions\":{\"KHR_texture_basisu\":{\"source\":0}}}";
  return test::gltfJson(
      "\"extensionsUsed\":[\"KHR_texture_basisu\"],\"extensionsRequired\":[\"KHR_texture_basisu\"],"
      "\"buffers\":[" +
      test::bufferJson(bytes) +
      "],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[-1,-1,0],\"max\":"
      "[1,1,0]},"
      "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}],"
      "\"images\":[" +
      images + "],\"textures\":[" + texture +
      "],"
      "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}},\"emissiveTexture\":{\"index\":0},"
      "\"emissiveFactor\":[0.5,0.5,0.5],\"doubleSided\":true}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1},\"material\":0}]}],"
      "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]");
}

RenderOptions vertexPath() {
  RenderOptions o;
  o.morph_path = MorphPath::kVertex;
  return o;
}
RenderOptions computePath() {
  RenderOptions o;
  o.morph_path = MorphPath::kCompute;
  return o;
}

// ---- Goldens (vertex path) ----
TEST_F(RenderTest, GoldenAnimatedMorphCube) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto asset = sharedAsset("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  RenderedImage image = render(*asset, vertexPath(), {0, 1.0});
  EXPECT_EQ(info_.morph_draws_seed, 1u) << "2 targets, no normal texture: the band-texture design's uniform variant";
  expectGolden("AnimatedMorphCube", image);
}

TEST_F(RenderTest, GoldenMorphPrimitivesTest) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto asset = sharedAsset("MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  RenderedImage image = render(*asset, vertexPath(), {});
  EXPECT_TRUE(info_.warnings.empty()) << info_.warnings[0];  // the embedded JPEG decodes (libjpeg-turbo)
  expectGolden("MorphPrimitivesTest", image);
}

TEST_F(RenderTest, GoldenFox) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto asset = sharedAsset("Fox/glTF-Binary/Fox.glb");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  RenderedImage image = render(*asset, vertexPath(), {0, 0.5});
  EXPECT_TRUE(info_.warnings.empty());
  expectGolden("Fox", image);
}

TEST_F(RenderTest, GoldenRiggedFigure) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto asset = sharedAsset("RiggedFigure/glTF/RiggedFigure.gltf");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  expectGolden("RiggedFigure", render(*asset, vertexPath(), {0, 0.5}));
}

TEST_F(RenderTest, GoldenDemo) {
  MORPHKIT_REQUIRE_GPU(context_);
  Asset asset = demoAsset();
  RenderedImage image = render(asset, vertexPath(), {0, 0.4});
  EXPECT_EQ(info_.morph_draws_active_list, 1u)
      << "52 targets: beyond the band-texture design, the storage-buffer variant";
  expectGolden("Demo", image);
}

// ---- The morph data matters (guards against both paths ignoring it) ----
TEST_F(RenderTest, WeightsChangeTheImage) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto asset = sharedAsset("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf");
  ASSERT_TRUE(asset.ok());
  Shot rest{kNone, 0, std::vector<float>{0.0f, 0.0f}};
  Shot morphed{kNone, 0, std::vector<float>{1.0f, 1.0f}};
  RenderOptions o = vertexPath();
  RenderedImage a = render(*asset, o, rest);
  RenderedImage b = render(*asset, o, morphed);
  auto diff = diffImages(asDecoded(a), asDecoded(b), 16);
  ASSERT_TRUE(diff.ok());
  EXPECT_GT(diff->fraction_over, 0.02) << "weights 0 and 1 should look clearly different";
}

// ---- Material features are shaded, unshaded ones warn once (docs/RENDER.md "Materials") ----
// Each make-demo variant against the same head with the feature taken away (its extension's fields back at their
// defaults, or COLOR_0 removed): the images must differ, so a feature the renderer ignored would fail here.
TEST_F(RenderTest, MaterialFeaturesChangeTheImageAndUnshadedOnesWarnOnce) {
  MORPHKIT_REQUIRE_GPU(context_);
  for (DemoMaterial kind : {DemoMaterial::kUnlit, DemoMaterial::kEmissive, DemoMaterial::kIor, DemoMaterial::kSpecular,
                            DemoMaterial::kClearcoat, DemoMaterial::kSheen, DemoMaterial::kVertexColors}) {
    SCOPED_TRACE(demoMaterialName(kind));
    Expected<Asset> with = makeDemoAsset({.targets = 0, .vertices = 2000, .material = kind});
    ASSERT_TRUE(with.ok());
    Asset without = *with;
    Material& m = without.materials[0];
    const Material defaults;
    m.unlit = defaults.unlit;
    m.emissive_strength = defaults.emissive_strength;
    m.ior = defaults.ior;
    m.specular = defaults.specular;
    m.clearcoat = defaults.clearcoat;
    m.sheen = defaults.sheen;
    m.extensions.clear();
    std::erase_if(without.meshes[0].primitives[0].attributes, [](const Attribute& a) { return a.name == "COLOR_0"; });
    RenderedImage a = render(*with, computePath(), {kNone, 0});
    RenderedImage b = render(without, computePath(), {kNone, 0});
    auto diff = diffImages(asDecoded(a), asDecoded(b), 8);
    ASSERT_TRUE(diff.ok());
    // Measured: specular (F0 tint and 0.7 strength on a 0.04 lobe) is the subtlest, 2.4 % of pixels off by > 8/255;
    // the same asset renders identically, so 1 % is far above noise.
    EXPECT_GT(diff->fraction_over, 0.01) << "the feature should change the head's shading";
  }
  Expected<Asset> asset = makeDemoAsset({.targets = 0, .vertices = 500});
  ASSERT_TRUE(asset.ok());
  asset->materials[0].extensions.push_back("KHR_materials_transmission");
  asset->materials.push_back(asset->materials[0]);  // a second material with it: still one warning
  Expected<Renderer*> renderer = createRenderer(*context_, *asset, computePath());
  ASSERT_TRUE(renderer.ok()) << renderer.error().message;
  const std::vector<std::string>& warnings = rendererInfo(**renderer).warnings;
  EXPECT_EQ(std::count_if(warnings.begin(), warnings.end(),
                          [](const std::string& w) { return w.starts_with("KHR_materials_transmission: not shaded"); }),
            1);
  destroyRenderer(*renderer);
}

// KHR_materials_clearcoat's clearcoatNormalTexture (make-demo's clearcoat head carries ripples): the coat follows
// the map, its scale bends it (scale 0 draws the coat on the geometric normal, as without the map), no warning.
TEST_F(RenderTest, ClearcoatNormalTextureBendsTheCoat) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<Asset> with = makeDemoAsset({.targets = 0, .vertices = 2000, .material = DemoMaterial::kClearcoat});
  ASSERT_TRUE(with.ok());
  ASSERT_NE(with->materials[0].clearcoat.normal_texture.texture, kNone);
  Asset without = *with, flat = *with;
  without.materials[0].clearcoat.normal_texture.texture = kNone;
  flat.materials[0].clearcoat.normal_texture.scale = 0.0f;
  RenderedImage a = render(*with, computePath(), {kNone, 0});
  for (const std::string& w : info_.warnings) EXPECT_EQ(w.find("clearcoatNormalTexture"), std::string::npos) << w;
  RenderedImage b = render(without, computePath(), {kNone, 0});
  RenderedImage c = render(flat, computePath(), {kNone, 0});
  auto rippled = diffImages(asDecoded(a), asDecoded(b), 8);
  ASSERT_TRUE(rippled.ok());
  EXPECT_GT(rippled->fraction_over, 0.01) << "the ripples should move the coat's highlights";
  auto unbent = diffImages(asDecoded(c), asDecoded(b), 1);
  ASSERT_TRUE(unbent.ok());
  EXPECT_EQ(unbent->fraction_over, 0.0) << "scale 0 leaves the geometric normal";
}

// ---- Vertex path == compute path ----
TEST_F(RenderTest, VertexAndComputePathsAgreeCube) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto asset = sharedAsset("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf");
  ASSERT_TRUE(asset.ok());
  Shot shot{0, 1.0};
  RenderedImage v = render(*asset, vertexPath(), shot);
  RenderedImage c = render(*asset, computePath(), shot);
  EXPECT_EQ(info_.path, MorphPath::kCompute);
  expectSame(v, c, "AnimatedMorphCube vertex vs compute");
}

TEST_F(RenderTest, VertexAndComputePathsAgreeDemo) {
  MORPHKIT_REQUIRE_GPU(context_);
  Asset asset = demoAsset();
  Shot shot{0, 0.4};
  expectSame(render(asset, vertexPath(), shot), render(asset, computePath(), shot), "demo vertex vs compute");
}

TEST_F(RenderTest, VertexAndComputePathsAgreeRiggedFigure) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  auto asset = sharedAsset("RiggedFigure/glTF/RiggedFigure.gltf");
  ASSERT_TRUE(asset.ok());
  Shot shot{0, 0.5};
  expectSame(render(*asset, vertexPath(), shot), render(*asset, computePath(), shot), "RiggedFigure vertex vs compute");
}

// ---- Files from the field (../shared/field): the same pixels as the shared models they were made from ----
// The Fox re-encodings pose like Fox.glb (their references say so), so both render paths must match its golden:
// rescaled skin weights and decoded Draco data reach the vertex path exactly as they reach the compute path.
TEST_F(RenderTest, FieldFoxFilesMatchTheFoxGolden) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  for (const char* file : {"Fox_unnormalized.glb", "Fox_draco.glb", "Fox_gltfpack.glb", "Fox_meshopt.glb"}) {
    SCOPED_TRACE(file);
    auto asset = loadAsset(test::sharedDir() / "field" / "assets" / file);
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    RenderedImage vertex = render(*asset, vertexPath(), {0, 0.5});
    EXPECT_TRUE(info_.warnings.empty()) << info_.warnings[0];
    expectGolden("Fox", vertex);
    expectGolden("Fox", render(*asset, computePath(), {0, 0.5}));
  }
}

// Compressed morph + skin files: the vertex path (morph texture) and the compute path agree.
TEST_F(RenderTest, FieldMorphSkinFilesVertexAndComputeAgree) {
  MORPHKIT_REQUIRE_GPU(context_);
  MORPHKIT_REQUIRE_SHARED();
  for (const char* file : {"MorphSkinBlob52_meshopt.glb", "MorphSkinBlob52_draco.glb"}) {
    auto asset = loadAsset(test::sharedDir() / "field" / "assets" / file);
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    Shot shot{0, 0.4};
    expectSame(render(*asset, vertexPath(), shot), render(*asset, computePath(), shot),
               std::string(file) + " vertex vs compute");
  }
}

// KHR_texture_basisu without a fallback: drawn with the material's factors, one warning per texture (the texture
// feeds two slots of the material here); with a PNG fallback: the fallback, no warning, another image.
TEST_F(RenderTest, Ktx2TexturesWarnOnceAndUseTheFallback) {
  MORPHKIT_REQUIRE_GPU(context_);
  const std::filesystem::path dir = test::scratchDir();
  std::vector<RenderedImage> images;
  for (bool fallback : {false, true}) {
    test::writeText(dir / "ktx2.gltf", ktx2Triangle(fallback));
    auto asset = loadAsset(dir / "ktx2.gltf");
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    images.push_back(render(*asset, vertexPath(), {}));
    if (fallback) {
      EXPECT_TRUE(info_.warnings.empty()) << info_.warnings[0];
    } else {
      ASSERT_EQ(info_.warnings.size(), 1u);
      EXPECT_NE(info_.warnings[0].find("textures[0]: images[0] is KTX2 (KHR_texture_basisu)"), std::string::npos)
          << info_.warnings[0];
    }
  }
  auto diff = diffImages(asDecoded(images[0]), asDecoded(images[1]), 16);
  ASSERT_TRUE(diff.ok());
  EXPECT_GT(diff->fraction_over, 0.01) << "the red fallback texture should show";
}

// EXT_texture_webp: the WebP image is decoded (libwebp) and drawn. A lossless WebP of a 4×4 pattern draws exactly
// what the same pattern as a plain PNG `source` draws, with no warning, alone (the extension required) and beside a
// green PNG fallback `source` (which render must not use).
TEST_F(RenderTest, WebpTexturesAreDrawn) {
  MORPHKIT_REQUIRE_GPU(context_);
  std::vector<uint8_t> pattern(4 * 4 * 4);
  for (size_t i = 0; i < 16; ++i) {
    const uint8_t rgba[4] = {uint8_t(60 * (i % 4)), uint8_t(200 - 12 * i), uint8_t(i % 2 ? 255 : 30), 255};
    std::memcpy(&pattern[i * 4], rgba, 4);
  }
  auto png = encodePng(pattern, 4, 4);
  auto webp = encodeWebp(pattern, 4, 4, {.lossless = true, .quality = 50});
  const std::vector<uint8_t> green_pixels = {0, 255, 0, 255};
  auto green = encodePng(green_pixels, 1, 1);
  ASSERT_TRUE(png.ok() && webp.ok() && green.ok());
  const std::filesystem::path dir = test::scratchDir();
  auto draw = [&](const std::string& json) {
    test::writeText(dir / "textured.gltf", json);
    auto asset = loadAsset(dir / "textured.gltf");
    EXPECT_TRUE(asset.ok()) << asset.error().message;
    if (!asset.ok()) return RenderedImage{};
    RenderedImage image = render(*asset, vertexPath(), {});
    EXPECT_TRUE(info_.warnings.empty()) << info_.warnings[0];
    return image;
  };
  const RenderedImage reference = draw(test::texturedTriangle(test::imageJson(*png, "image/png"), "{\"source\":0}"));
  const RenderedImage alone = draw(test::webpTriangle(*webp));
  const RenderedImage beside_fallback = draw(test::webpTriangle(*webp, *green));
  ASSERT_FALSE(reference.rgba.empty() || alone.rgba.empty() || beside_fallback.rgba.empty());
  EXPECT_EQ(alone.rgba, reference.rgba);
  EXPECT_EQ(beside_fallback.rgba, reference.rgba);
  const RenderedImage fallback_only =
      draw(test::texturedTriangle(test::imageJson(*green, "image/png"), "{\"source\":0}"));
  auto diff = diffImages(asDecoded(fallback_only), asDecoded(reference), 16);
  ASSERT_TRUE(diff.ok());
  EXPECT_GT(diff->fraction_over, 0.01) << "the green fallback differs from the pattern where the triangle is";
}

// ---- Seed uniform variant == active-list variant ----
TEST_F(RenderTest, SeedAndActiveListVariantsAgree) {
  MORPHKIT_REQUIRE_GPU(context_);
  Asset asset = demoAsset(4);  // 4 targets: the band-texture design's limit
  Shot shot{kNone, 0, std::vector<float>{0.9f, -0.4f, 0.7f, 1.0f}};
  RenderedImage seed = render(asset, vertexPath(), shot);
  EXPECT_EQ(info_.morph_draws_seed, 1u);
  RenderOptions list = vertexPath();
  list.force_active_list = true;
  RenderedImage active = render(asset, list, shot);
  EXPECT_EQ(info_.morph_draws_active_list, 1u);
  expectSame(seed, active, "seed uniform vs active list");
}

// ---- A renderer that fails half-way frees what it made ----
// Two meshes: the first one's morph texture is made, the second has one target too many for a texture of
// maxImageDimension2D rows (2 bands per target, 1 row per band), so the vertex path fails in its per-primitive step
// after the targets, materials, first primitive and its texture exist. Every path's destroy must free them: a
// Vulkan object left alive fails the suite at vkDestroyDevice (VulkanTest), a host allocation fails LeakSanitizer.
// The compute path takes the same asset (its buffers hold any number of targets) and renders.
TEST_F(RenderTest, FailureHalfWayFreesEverything) {
  MORPHKIT_REQUIRE_GPU(context_);
  const uint32_t too_many = context_->properties.limits.maxImageDimension2D / 2 + 1;
  test::Bytes positions;
  positions.put<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});
  std::string targets;
  for (uint32_t t = 0; t < too_many; ++t) targets += t ? ",{\"POSITION\":0}" : "{\"POSITION\":0}";
  const std::string json = test::gltfJson(
      "\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],\"nodes\":[{\"mesh\":0},{\"mesh\":1}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[{\"POSITION\":0}]}]},"
      "{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[" +
      targets +
      "]}]}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
      "\"min\":[0,0,0],\"max\":[1,1,0]}],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],\"buffers\":[" +
      test::bufferJson(positions.data) + "]");
  Expected<Asset> asset = test::loadJson(json);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  RenderOptions options;
  options.width = options.height = 16;
  options.shadow_size = 16;
  options.morph_path = MorphPath::kVertex;
  Expected<Renderer*> vertex = createRenderer(*context_, *asset, options);
  ASSERT_FALSE(vertex.ok());
  EXPECT_EQ(vertex.error().code, Error::kTooLarge) << vertex.error().message;
  EXPECT_NE(vertex.error().message.find("meshes[1].primitives[0]"), std::string::npos) << vertex.error().message;
  options.morph_path = MorphPath::kCompute;
  Expected<Renderer*> compute = createRenderer(*context_, *asset, options);
  ASSERT_TRUE(compute.ok()) << compute.error().message;
  EXPECT_TRUE(renderFrame(**compute, RenderFrameInput{}).ok());
  destroyRenderer(*compute);
}

// ---- All-zero weights == no morph data ----
TEST_F(RenderTest, ZeroWeightsEqualNoMorphData) {
  MORPHKIT_REQUIRE_GPU(context_);
  Asset asset = demoAsset();
  for (MorphPath path : {MorphPath::kVertex, MorphPath::kCompute}) {
    RenderOptions with = path == MorphPath::kVertex ? vertexPath() : computePath();
    RenderOptions without = with;
    without.ignore_morph_targets = true;
    Shot zero{kNone, 0, std::vector<float>(52, 0.0f)};
    RenderedImage a = render(asset, with, zero);
    RenderedImage b = render(asset, without, zero);
    EXPECT_EQ(info_.max_targets, 0u);
    expectSame(a, b, std::string("zero weights vs no morph data, ") + morphPathName(path));
  }
}

// ---- Frames in flight (submitFrame / collectFrame) == one frame at a time, bit for bit ----
// Each path (vertex, compute, a crowd of 4) renders five animated frames one at a time with renderFrame, then the
// same frames through renderFrameSequence and through submitFrame / collectFrame by hand: the same bytes in the
// same order. A third frame in flight, renderFrame while frames are in flight and a collect with none are refused; a
// sink's failure stops the sequence with nothing left in flight.
TEST_F(RenderTest, FramesInFlightEqualOneFrameAtATime) {
  MORPHKIT_REQUIRE_GPU(context_);
  Asset asset = demoAsset();
  constexpr uint32_t kFrames = 5;
  RenderOptions crowd = computePath();
  crowd.crowd = true;
  crowd.instances = 4;
  crowd.instance_time_offsets = {0.0, 0.1, 0.2, 0.3};
  crowd.instance_offsets = {{-0.5f, 0, 0}, {0.5f, 0, 0}, {0, 0, -0.5f}, {0, 0, 0.5f}};
  for (const RenderOptions& base : {vertexPath(), computePath(), crowd}) {
    RenderOptions options = base;
    options.width = options.height = 64;
    options.shadow_size = 128;
    Expected<Renderer*> made = createRenderer(*context_, asset, options);
    ASSERT_TRUE(made.ok()) << made.error().message;
    std::unique_ptr<Renderer, void (*)(Renderer*)> renderer(*made, destroyRenderer);
    const std::string what = std::string(morphPathName(rendererInfo(*renderer).path)) + (options.crowd ? " crowd" : "");
    // The compute path's frames overlap on the GPU (a copy of the frame data per slot), the others' do not.
    const bool copies = rendererInfo(*renderer).path == MorphPath::kCompute && !options.crowd;
    EXPECT_EQ(rendererInfo(*renderer).frame_copies, copies ? kRenderFramesInFlight : 1u) << what;
    // Every frame its own pose and camera: a frame drawn with another slot's uniforms or vertices differs.
    auto input = [](uint32_t i) {
      RenderFrameInput in;
      in.animation = 0;
      in.time = 0.13 * i;
      in.camera = RenderCamera{};
      in.camera->eye = {0.1f * float(i), 0.05f * float(i), 3.0f};
      return in;
    };
    std::vector<std::vector<uint8_t>> one_by_one;
    for (uint32_t i = 0; i < kFrames; ++i) {
      RenderStats stats;
      Expected<RenderedImage> image = renderFrame(*renderer, input(i), &stats);
      ASSERT_TRUE(image.ok()) << image.error().message;
      one_by_one.push_back(image->rgba);
      EXPECT_EQ(stats.morph_gpu_ms == 0.0, rendererInfo(*renderer).path == MorphPath::kVertex) << what;
    }
    EXPECT_NE(one_by_one[0], one_by_one[2]) << what << ": the frames differ (the test can fail)";

    std::vector<uint32_t> order;
    Status sequence = renderFrameSequence(*renderer, kFrames, input,
                                          [&](uint32_t i, RenderedImage&& image, const RenderStats&) -> Status {
                                            order.push_back(i);
                                            EXPECT_EQ(image.rgba, one_by_one[i]) << what << " frame " << i;
                                            return Ok{};
                                          });
    ASSERT_TRUE(sequence.ok()) << sequence.error().message;
    EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 2, 3, 4}));

    ASSERT_TRUE(submitFrame(*renderer, input(3)).ok());
    ASSERT_TRUE(submitFrame(*renderer, input(4)).ok());
    EXPECT_EQ(framesInFlight(*renderer), kRenderFramesInFlight);
    Status third = submitFrame(*renderer, input(0));
    ASSERT_FALSE(third.ok()) << what;
    EXPECT_EQ(third.error().code, Error::kInvalidArgument) << what;
    EXPECT_FALSE(renderFrame(*renderer, input(0)).ok()) << what;
    for (uint32_t i : {3u, 4u}) {
      Expected<RenderedImage> image = collectFrame(*renderer);
      ASSERT_TRUE(image.ok()) << image.error().message;
      EXPECT_EQ(image->rgba, one_by_one[i]) << what << " frame " << i << " by hand";
    }
    EXPECT_FALSE(collectFrame(*renderer).ok()) << what << ": nothing in flight";

    uint32_t taken = 0;
    Status stopped =
        renderFrameSequence(*renderer, kFrames, input, [&](uint32_t, RenderedImage&&, const RenderStats&) -> Status {
          return ++taken == 2 ? Status(fail(Error::kIo, "sink full")) : Ok{};
        });
    ASSERT_FALSE(stopped.ok());
    EXPECT_EQ(stopped.error().message, "sink full");
    EXPECT_EQ(taken, 2u);
    EXPECT_EQ(framesInFlight(*renderer), 0u) << what;
    Expected<RenderedImage> after = renderFrame(*renderer, input(1));
    ASSERT_TRUE(after.ok()) << after.error().message;
    EXPECT_EQ(after->rgba, one_by_one[1]) << what << " after a stopped sequence";
  }
}

}  // namespace
}  // namespace morphkit
