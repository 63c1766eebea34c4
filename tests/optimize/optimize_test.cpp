// SPDX-License-Identifier: MIT
// morphkit/optimize/optimize.h and `morphkit optimize`: the bound holds at poses the guarantee did not pick, animations
// survive exactly (weights outside [0, 1], CUBICSPLINE, STEP at the clip end), pre-quantized and sparse inputs
// optimize, names and extras stay, the output passes the Khronos validator, and bad input or options leave no file.
#include "morphkit/optimize/optimize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "engine_pose_support.h"
#include "gltf_test_util.h"
#include "morphkit/core/pose.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/accessor.h"
#include "morphkit/model/asset_builder.h"
#include "optimize_support.h"
#include "test_support.h"

namespace morphkit {
namespace {

std::filesystem::path blob(const char* name = "MorphSkinBlob52.glb") {
  return test::assetsDir() / "MorphSkinBlob52" / name;
}

using test::Optimized;
using test::optimizeOrDie;
using test::poseDistance;

// Every sampler of every animation: the same interpolation, the same key times and the same values, bit for bit.
void expectSameAnimations(const Asset& a, const Asset& b) {
  ASSERT_EQ(a.animations.size(), b.animations.size());
  for (size_t i = 0; i < a.animations.size(); ++i) {
    EXPECT_EQ(a.animations[i].name, b.animations[i].name);
    ASSERT_EQ(a.animations[i].samplers.size(), b.animations[i].samplers.size());
    for (size_t s = 0; s < a.animations[i].samplers.size(); ++s) {
      const AnimationSampler& x = a.animations[i].samplers[s];
      const AnimationSampler& y = b.animations[i].samplers[s];
      EXPECT_EQ(x.interpolation, y.interpolation) << "animations[" << i << "].samplers[" << s << "]";
      EXPECT_EQ(readAccessorFloats(a, x.input), readAccessorFloats(b, y.input));
      EXPECT_EQ(readAccessorFloats(a, x.output), readAccessorFloats(b, y.output));
    }
  }
}

TEST(Optimize, BoundHoldsAtPosesTheGuaranteeDidNotPick) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> input = loadAsset(blob());
  ASSERT_TRUE(input.ok()) << input.error().message;
  Optimized out = optimizeOrDie(*input);
  ASSERT_FALSE(out.glb.empty());
  const OptimizeReport& r = out.report;
  EXPECT_NEAR(r.bound, kDefaultMaxErrorRel * r.diagonal, 1e-12);
  EXPECT_LE(r.max_distance, r.bound);
  EXPECT_GT(r.max_distance, 0.0) << "quantized: some vertex must move a little";
  ASSERT_EQ(r.errors.size(), 4u);
  EXPECT_EQ(r.errors[1].poses, 52u);  // every target alone
  EXPECT_LT(out.glb.size(), std::filesystem::file_size(blob()) / 4);
  EXPECT_LT(r.after.targets, r.before.targets / 4);
  // Times between the verified ones, and several targets at once inside the weight sums the clips reach.
  for (uint32_t animation = 0; animation < input->animations.size(); ++animation) {
    for (double time : {0.013, 0.377, 0.91, 1.5}) {
      PoseOptions options;
      options.animation = animation;
      options.time = time;
      EXPECT_LE(poseDistance(*input, out.asset, options, r.vertex_remap), r.bound) << animation << " at " << time;
    }
  }
  std::vector<WeightOverride> mixed;
  for (uint32_t t = 0; t < 52; t += 7) mixed.push_back({"", t, 0, 0.3f});
  PoseOptions options;
  options.weights.overrides = mixed;
  EXPECT_LE(poseDistance(*input, out.asset, options, r.vertex_remap), r.bound);
}

// A skinned primitive's positions and deltas are integers on one grid (its scale folded into the inverse bind
// matrices), and each vertex's skin weights keep their sum exactly: 16-bit on MorphSkinBlob52, whose 8-bit weights
// alone take most of the bound, 8-bit on RiggedSimple.
TEST(Optimize, SkinnedPositionsShareOneIntegerGridAndWeightsKeepTheirSums) {
  MORPHKIT_REQUIRE_SHARED();
  const std::pair<std::filesystem::path, ComponentType> cases[] = {
      {blob(), ComponentType::kUnsignedShort},
      {test::assetsDir() / "RiggedSimple/glTF-Binary/RiggedSimple.glb", ComponentType::kUnsignedByte}};
  for (const auto& [file, weight_type] : cases) {
    SCOPED_TRACE(file.string());
    Expected<Asset> input = loadAsset(file);
    ASSERT_TRUE(input.ok()) << input.error().message;
    Optimized out = optimizeOrDie(*input);
    ASSERT_FALSE(out.glb.empty());
    EXPECT_LE(out.report.max_distance, out.report.bound);
    for (size_t m = 0; m < out.asset.meshes.size(); ++m) {
      for (size_t p = 0; p < out.asset.meshes[m].primitives.size(); ++p) {
        const Primitive& primitive = out.asset.meshes[m].primitives[p];
        const uint32_t weights = findAttribute(primitive.attributes, "WEIGHTS_0");
        if (weights == kNone) continue;
        const Accessor& position = out.asset.accessors[findAttribute(primitive.attributes, "POSITION")];
        EXPECT_EQ(position.component_type, ComponentType::kShort);
        EXPECT_FALSE(position.normalized);
        for (const MorphTarget& target : primitive.targets) {
          const uint32_t delta = findAttribute(target.attributes, "POSITION");
          if (delta != kNone) {
            EXPECT_FALSE(out.asset.accessors[delta].normalized);
          }
        }
        ASSERT_EQ(out.asset.accessors[weights].component_type, weight_type);
        const double scale = weight_type == ComponentType::kUnsignedByte ? 255.0 : 65535.0;
        const std::vector<float> stored = readAccessorFloats(out.asset, weights);
        const std::vector<float> original =
            readAccessorFloats(*input, findAttribute(input->meshes[m].primitives[p].attributes, "WEIGHTS_0"));
        // Input vertex v is output vertex remap[v] where the weld pass merged vertices.
        const std::vector<uint32_t>& remap = out.report.vertex_remap[m][p];
        ASSERT_EQ(remap.empty() ? stored.size() : 4 * remap.size(), original.size());
        for (size_t v = 0; v < original.size(); v += 4) {
          const size_t w = remap.empty() ? v : 4 * size_t(remap[v / 4]);
          double sum = 0, before = 0;
          for (size_t i = 0; i < 4; ++i) {
            sum += std::round(double(stored[w + i]) * scale);
            before += double(original[v + i]);
            EXPECT_LE(std::fabs(double(stored[w + i]) - double(original[v + i])), 1.0 / scale) << "vertex " << v / 4;
          }
          if (std::fabs(before - 1.0) < 1e-5) {
            EXPECT_EQ(sum, scale) << "vertex " << v / 4;
          }
        }
      }
    }
  }
}

TEST(Optimize, AnimationsNamesAndExtrasSurviveExactly) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> input = loadAsset(blob());
  ASSERT_TRUE(input.ok()) << input.error().message;
  Optimized out = optimizeOrDie(*input);
  expectSameAnimations(*input, out.asset);  // CUBICSPLINE Talk, STEP Blink (its last key is the clip end), LINEAR
  ASSERT_EQ(out.asset.nodes.size(), input->nodes.size());
  for (size_t i = 0; i < input->nodes.size(); ++i) EXPECT_EQ(out.asset.nodes[i].name, input->nodes[i].name);
  EXPECT_EQ(out.asset.meshes[0].target_names, input->meshes[0].target_names);
  EXPECT_EQ(out.asset.skins.size(), input->skins.size());
  const std::string written(out.glb.begin(), out.glb.end());
  EXPECT_NE(written.find(R"("extensionsRequired":["KHR_mesh_quantization","EXT_meshopt_compression"])"),
            std::string::npos);
}

// glTF puts no range on morph weights: a clip that runs from -0.3 to 1.3 keeps every value.
TEST(Optimize, WeightsOutsideZeroToOneAreNotClamped) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> input = loadAsset(test::assetsDir() / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf");
  ASSERT_TRUE(input.ok()) << input.error().message;
  AnimationSampler& sampler = input->animations[0].samplers[0];
  std::vector<float> values = readAccessorFloats(*input, sampler.output);
  for (size_t i = 0; i < values.size(); ++i) values[i] = -0.3f + 1.6f * float(i % 5) / 4.0f;
  sampler.output = appendAccessor(*input, std::span<const float>(values), AccessorType::kScalar);
  Asset edited = test::validated(std::move(input).value());
  Optimized out = optimizeOrDie(edited);
  expectSameAnimations(edited, out.asset);
  const std::vector<float> kept = readAccessorFloats(out.asset, out.asset.animations[0].samplers[0].output);
  EXPECT_EQ(*std::min_element(kept.begin(), kept.end()), -0.3f);
  EXPECT_EQ(*std::max_element(kept.begin(), kept.end()), 1.3f);
  EXPECT_LE(out.report.max_distance, out.report.bound);
}

// Weight keys an earlier compressor stored as normalized integers (§3.11) stay those integers: exact, and a quarter of
// the bytes floats would take (gltfpack's 8-bit weights doubled in size before).
TEST(Optimize, IntegerAnimationKeysStayIntegers) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> input = loadAsset(test::assetsDir() / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf");
  ASSERT_TRUE(input.ok()) << input.error().message;
  AnimationSampler& sampler = input->animations[0].samplers[0];
  const std::vector<float> values = readAccessorFloats(*input, sampler.output);
  std::vector<uint8_t> bytes(values.size());
  for (size_t i = 0; i < values.size(); ++i) bytes[i] = uint8_t(std::lround(std::clamp(values[i], 0.0f, 1.0f) * 255));
  sampler.output = appendAccessor(*input, std::span<const uint8_t>(bytes), AccessorType::kScalar, {.normalized = true});
  Asset edited = test::validated(std::move(input).value());
  Optimized out = optimizeOrDie(edited);
  expectSameAnimations(edited, out.asset);
  const Accessor& kept = out.asset.accessors[out.asset.animations[0].samplers[0].output];
  EXPECT_EQ(kept.component_type, ComponentType::kUnsignedByte);
  EXPECT_TRUE(kept.normalized);
  EXPECT_LE(out.report.max_distance, out.report.bound);
}

TEST(Optimize, QuantizedSparseAndPlainInputsAllOptimize) {
  MORPHKIT_REQUIRE_SHARED();
  for (const std::filesystem::path& file :
       {blob("MorphSkinBlob52_quantized.glb"), blob("MorphSkinBlob52_sparse.glb"),
        test::assetsDir() / "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
        test::assetsDir() / "BlenderIO_01_cs_morph/01_cs_morph.gltf",
        test::assetsDir() / "SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf",
        test::assetsDir() / "Fox/glTF-Binary/Fox.glb"}) {
    SCOPED_TRACE(file.string());
    Expected<Asset> input = loadAsset(file);
    ASSERT_TRUE(input.ok()) << input.error().message;
    Optimized out = optimizeOrDie(*input);
    ASSERT_FALSE(out.glb.empty());
    EXPECT_LE(out.report.max_distance, out.report.bound);
    expectSameAnimations(*input, out.asset);
  }
}

TEST(Optimize, NoMeshoptWritesQuantizationAlone) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> input = loadAsset(blob("MorphSkinBlob52_sparse.glb"));
  ASSERT_TRUE(input.ok()) << input.error().message;
  Optimized out = optimizeOrDie(*input, {.meshopt = false});
  const std::string json = writeGltfJson(out.asset).value();
  EXPECT_EQ(std::string(out.glb.begin(), out.glb.end()).find("EXT_meshopt_compression"), std::string::npos);
  EXPECT_NE(json.find("KHR_mesh_quantization"), std::string::npos);
  bool sparse_target = false;
  for (const MorphTarget& target : out.asset.meshes[0].primitives[0].targets) {
    for (const Attribute& a : target.attributes) sparse_target |= out.asset.accessors[a.accessor].has_sparse;
  }
  EXPECT_TRUE(sparse_target) << "without meshopt, small targets are smaller sparse";
}

TEST(Optimize, ABoundNoEncodingMeetsFailsNamingThePoseAndVertex) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> input = loadAsset(blob());
  ASSERT_TRUE(input.ok()) << input.error().message;
  OptimizeReport report;
  // Skin weights are stored as 16-bit integers even on the finest attempt: a bound of a nanometre fails.
  Expected<std::vector<uint8_t>> glb = optimizeAsset(*input, {.max_error_mm = 1e-6}, report);
  ASSERT_FALSE(glb.ok());
  EXPECT_NE(glb.error().message.find("vertex"), std::string::npos) << glb.error().message;
  EXPECT_NE(glb.error().message.find("nothing written"), std::string::npos) << glb.error().message;
  EXPECT_EQ(report.attempts, 5u);
  for (double bad : {-1.0, std::nan("")}) {
    EXPECT_FALSE(optimizeAsset(*input, {.max_error_mm = bad}, report).ok());
    EXPECT_FALSE(optimizeAsset(*input, {.max_error_rel = bad}, report).ok());
  }
}

// An extension whose objects point at accessors optimize renumbers is refused, not written broken.
TEST(Optimize, RefusesExtensionsThatPointIntoItsBuffers) {
  std::vector<uint8_t> bin(36, 0);
  const float triangle[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  std::memcpy(bin.data(), triangle, sizeof triangle);
  Expected<Asset> input = test::loadJson(test::gltfJson(
      R"("extensionsUsed":["EXT_mesh_gpu_instancing"],"buffers":[)" + test::bufferJson(bin) +
      R"(],"bufferViews":[{"buffer":0,"byteLength":36}],)"
      R"("accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],)"
      R"("meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}])"));
  ASSERT_TRUE(input.ok()) << input.error().message;
  OptimizeReport report;
  Expected<std::vector<uint8_t>> glb = optimizeAsset(*input, {}, report);
  ASSERT_FALSE(glb.ok());
  EXPECT_EQ(glb.error().code, Error::kInvalidGltf);
  EXPECT_NE(glb.error().message.find("extensionsUsed 'EXT_mesh_gpu_instancing'"), std::string::npos)
      << glb.error().message;
}

TEST(OptimizeCommand, WritesAValidFileAndRefusesBadOptions) {
  MORPHKIT_REQUIRE_SHARED();
  const auto dir = test::scratchDir();
  const std::string in = "'" + blob().string() + "'";
  test::CliRun run = test::runMorphkit(dir, "optimize " + in + " --out small.glb --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"maxDistanceMm\""), std::string::npos) << run.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "small.glb"));
  // An existing OUT is replaced (the overwrite rule, docs/CLI.md); OUT equal to IN, a bound <= 0 or NaN, a
  // non-.glb OUT: usage errors.
  EXPECT_EQ(test::runMorphkit(dir, "optimize small.glb --out small.glb").exit_code, 2);
  for (const char* bad : {"--max-error 0", "--max-error -1", "--max-error nan", "--max-error-rel 0",
                          "--max-error 1 --max-error-rel 0.001"}) {
    test::CliRun refused = test::runMorphkit(dir, "optimize " + in + " --out other.glb " + bad);
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.err;
  }
  test::CliRun failed = test::runMorphkit(dir, "optimize " + in + " --out other.glb --max-error 1e-9");
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  test::writeText(dir / "broken.gltf", "{\"asset\":{\"version\":\"2.0\"},\"meshes\":[{}]}");
  test::CliRun broken = test::runMorphkit(dir, "optimize broken.gltf --out other.glb");
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_NE(broken.err.find("broken.gltf"), std::string::npos) << broken.err;
  EXPECT_EQ(std::count(broken.err.begin(), broken.err.end(), '\n'), 1) << broken.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "other.glb")) << "a refused or failed run leaves no file";
  // An already-packed file at a far finer bound than it was packed at grows (finer grids, or floats); said.
  const uint64_t small_bytes = std::filesystem::file_size(dir / "small.glb");
  test::CliRun grown = test::runMorphkit(dir, "optimize small.glb --out grown.glb --max-error-rel 1e-7");
  EXPECT_EQ(grown.exit_code, 0) << grown.err;
  EXPECT_GT(std::filesystem::file_size(dir / "grown.glb"), small_bytes);
  EXPECT_NE(grown.err.find("more than IN's " + std::to_string(small_bytes)), std::string::npos) << grown.err;
  if (test::validatorAvailable()) {
    const std::string validate =
        "'" + (test::sourceDir() / "scripts/validate-gltf").string() + "' '" + (dir / "small.glb").string() + "'";
    EXPECT_EQ(std::system((validate + " >/dev/null").c_str()), 0) << "the validator reports errors";
  } else {
    EXPECT_FALSE(test::runningInCi()) << "the Khronos validator must run in CI (scripts/install-validator)";
  }
}

// three.js's world positions per frame and mesh (its traversal order) from tools/engines/engine_pose.mjs.
test::EnginePositions threePoses(const std::filesystem::path& glb, const std::string& frames) {
  const std::string command = "node '" + (test::sourceDir() / "tools/engines/engine_pose.mjs").string() + "' three '" +
                              glb.string() + "' --frames " + frames + " 2>/dev/null";
  test::EnginePositions posed = test::parseEnginePositions(test::commandOutput(command));
  EXPECT_FALSE(posed.empty()) << command << ": no JSON";
  return posed;
}

// The guarantee checked by another engine: three.js (its own meshopt decoder and dequantization) poses the input
// and the optimized file at the rest pose and across every animation; no vertex is further apart than the bound
// (plus float32 rounding of world positions). Every output passes the Khronos validator.
TEST(OptimizeEngines, ThreeJsPosesTheOutputWithinTheBound) {
  MORPHKIT_REQUIRE_SHARED();
  if (std::system("command -v node >/dev/null 2>&1") != 0 ||
      !std::filesystem::exists(test::sourceDir() / "tools/engines/node_modules/three/package.json")) {
    if (test::runningInCi()) FAIL() << "CI=true but scripts/install-engines has not been run";
    GTEST_SKIP() << "three.js not installed (scripts/install-engines)";
  }
  const auto dir = test::scratchDir();
  for (const char* relative :
       {"MorphSkinBlob52/MorphSkinBlob52.glb", "MorphSkinBlob52/MorphSkinBlob52_sparse.glb",
        "MorphSkinBlob52/MorphSkinBlob52_quantized.glb", "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
        "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf", "BlenderIO_01_cs_morph/01_cs_morph.gltf",
        "BlenderIO_01_morphed_triangle/01_morphed_triangle.gltf", "SimpleMorph/glTF/SimpleMorph.gltf",
        "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb", "SkinMorphEdgeCases/skin_morph.gltf"}) {
    SCOPED_TRACE(relative);
    const std::filesystem::path file = test::assetsDir() / relative;
    Expected<Asset> input = loadAsset(file);
    ASSERT_TRUE(input.ok()) << input.error().message;
    if (!input->images.empty()) {  // engine_pose.mjs reads geometry only (Node has no image decoder)
      input->images.clear();
      input->textures.clear();
      input->samplers.clear();
      input->materials.clear();
      input->source_json.clear();
      for (Mesh& mesh : input->meshes) {
        for (Primitive& primitive : mesh.primitives) primitive.material = kNone;
      }
    }
    const std::string stem = file.stem().string() + std::to_string(std::hash<std::string>{}(relative) % 1000);
    const std::filesystem::path in = dir / (stem + "_in.glb"), out = dir / (stem + "_out.glb");
    test::writeBytes(in, writeGlb(*input).value());  // a .glb three.js reads without the .bin beside it
    Optimized optimized = optimizeOrDie(*input);
    ASSERT_FALSE(optimized.glb.empty());
    test::writeBytes(out, optimized.glb);
    if (test::validatorAvailable()) {
      const std::string validate =
          "'" + (test::sourceDir() / "scripts/validate-gltf").string() + "' '" + out.string() + "' >/dev/null";
      EXPECT_EQ(std::system(validate.c_str()), 0) << "the Khronos validator reports errors on " << out;
    } else {
      EXPECT_FALSE(test::runningInCi()) << "the Khronos validator must run in CI (scripts/install-validator)";
    }
    std::string frames = "rest";
    for (size_t a = 0; a < input->animations.size(); ++a) {
      const double end = readAccessorFloats(*input, input->animations[a].samplers[0].input).back();
      for (double f : {0.0, 0.31, 0.5, 0.77, 1.0}) frames += "," + std::to_string(a) + ":" + std::to_string(f * end);
    }
    const auto a = threePoses(in, frames);
    const auto b = threePoses(out, frames);
    ASSERT_EQ(a.size(), b.size());
    // Which (mesh, primitive) each posed primitive is, in the order three.js lists them (morphkit's, which
    // CheckEngines holds equal): where the weld pass merged vertices, input vertex v is output vertex remap[v].
    Expected<PoseResult> order = poseAsset(*input, kNone, PoseOptions{});
    ASSERT_TRUE(order.ok()) << order.error().message;
    double worst = 0;
    for (size_t f = 0; f < a.size(); ++f) {
      ASSERT_EQ(a[f].size(), b[f].size());
      ASSERT_EQ(a[f].size(), order->meshes.size());
      for (size_t m = 0; m < a[f].size(); ++m) {
        const auto& remaps = optimized.report.vertex_remap;
        const uint32_t mesh = order->meshes[m].mesh, primitive = order->meshes[m].primitive;
        const std::vector<uint32_t>* remap =
            mesh < remaps.size() && primitive < remaps[mesh].size() && !remaps[mesh][primitive].empty()
                ? &remaps[mesh][primitive]
                : nullptr;
        if (!remap) {
          ASSERT_EQ(a[f][m].size(), b[f][m].size());
          worst = std::max(worst, test::maxDifference(a[f][m], b[f][m]));
          continue;
        }
        ASSERT_EQ(a[f][m].size(), 3 * remap->size());
        std::decay_t<decltype(b[f][m])> mapped(a[f][m].size());
        for (size_t v = 0; v < remap->size(); ++v) {
          ASSERT_LT(3 * size_t((*remap)[v]) + 2, b[f][m].size());
          std::copy_n(&b[f][m][3 * size_t((*remap)[v])], 3, &mapped[3 * v]);
        }
        worst = std::max(worst, test::maxDifference(a[f][m], mapped));
      }
    }
    EXPECT_LE(worst, optimized.report.bound + 2e-7 * optimized.report.diagonal)
        << "three.js: " << worst * 1000 << " mm, bound " << optimized.report.bound * 1000 << " mm";
  }
}

}  // namespace
}  // namespace morphkit
