// SPDX-License-Identifier: MIT
// optimize --for ENGINE (OptimizeOptions::for_engine, docs/OPTIMIZE.md "For a runtime"): the output holds only the
// extensions the runtime's decoder rows (morphkit/model/runtimes.h) say it decodes, it loads, poses within the bound
// and passes the Khronos validator; a --textures the runtime cannot decode is a usage error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "gltf_test_util.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/optimize/optimize.h"
#include "optimize_support.h"
#include "test_support.h"

namespace morphkit {
namespace {

std::filesystem::path blob() {
  return test::assetsDir() / "MorphSkinBlob52" / "MorphSkinBlob52.glb";
}

bool holds(const Asset& asset, std::string_view extension) {
  return std::ranges::count(asset.extensions_used, extension) > 0;
}

// The output is posed as the input, independently of optimize's own verification: rest, every fourth target alone,
// and each animation at a third of its length.
void expectWithinBound(const Asset& input, const test::Optimized& out) {
  const std::vector<std::vector<std::vector<uint32_t>>>& remap = out.report.vertex_remap;
  EXPECT_LE(test::poseDistance(input, out.asset, {}, remap), out.report.bound);
  const uint32_t targets = uint32_t(input.meshes[0].primitives[0].targets.size());
  for (uint32_t t = 0; t < targets; t += 4) {
    const WeightOverride alone[] = {{.target = t, .mesh = 0, .value = 1.0f}};
    PoseOptions one;
    one.weights.overrides = alone;
    EXPECT_LE(test::poseDistance(input, out.asset, one, remap), out.report.bound) << "target " << t;
  }
  for (uint32_t a = 0; a < input.animations.size(); ++a) {
    PoseOptions clip;
    clip.animation = a;
    clip.time = 0.33;
    EXPECT_LE(test::poseDistance(input, out.asset, clip, remap), out.report.bound) << "animation " << a;
  }
}

void expectValid(const test::Optimized& out, const std::string& name) {
  MORPHKIT_REQUIRE_VALIDATOR();
  const auto file = test::scratchDir() / (name + ".glb");
  test::writeBytes(file, out.glb);
  const std::string validate =
      "'" + (test::sourceDir() / "scripts/validate-gltf").string() + "' '" + file.string() + "' >/dev/null";
  EXPECT_EQ(std::system(validate.c_str()), 0) << "the Khronos validator reports errors on " << file;
}

// PlayCanvas has no meshopt decoder but dequantizes: quantized plain bufferViews.
TEST(OptimizeForEngine, PlayCanvasGetsQuantizationWithoutMeshopt) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> input = loadAsset(blob());
  ASSERT_TRUE(input.ok()) << input.error().message;
  const test::Optimized out = test::optimizeOrDie(*input, {.for_engine = "playcanvas"});
  ASSERT_FALSE(out.glb.empty());
  EXPECT_EQ(std::string(out.glb.begin(), out.glb.end()).find("EXT_meshopt_compression"), std::string::npos);
  EXPECT_TRUE(holds(out.asset, "KHR_mesh_quantization"));
  EXPECT_EQ(out.report.runtime.name, "playcanvas");
  ASSERT_EQ(out.report.runtime.changes.size(), 1u);
  EXPECT_EQ(out.report.runtime.changes[0].rfind("EXT_meshopt_compression: not written", 0), 0u);
  EXPECT_TRUE(out.report.runtime.undecoded.empty());
  EXPECT_LE(out.report.max_distance + 2 * out.report.fast_gap, out.report.bound);
  expectWithinBound(*input, out);
  const std::string json = optimizeReportJson(out.report, "in", "out");
  EXPECT_NE(json.find("\"forEngine\":{\"name\":\"playcanvas\""), std::string::npos) << json.substr(json.size() - 600);
  expectValid(out, "playcanvas");
}

// UniVRM decodes neither: every position, direction and delta a float, and still within the bound.
TEST(OptimizeForEngine, UniVrmGetsFloatsWithoutEitherExtension) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> input = loadAsset(blob());
  ASSERT_TRUE(input.ok()) << input.error().message;
  const test::Optimized out = test::optimizeOrDie(*input, {.for_engine = "univrm"});
  ASSERT_FALSE(out.glb.empty());
  EXPECT_TRUE(out.asset.extensions_used.empty()) << writeGltfJson(out.asset).value().substr(0, 400);
  for (const Primitive& p : out.asset.meshes[0].primitives) {
    for (const Attribute& a : p.attributes) {
      if (a.name == "POSITION" || a.name == "NORMAL" || a.name == "TANGENT") {
        EXPECT_EQ(out.asset.accessors[a.accessor].component_type, ComponentType::kFloat) << a.name;
      }
    }
    for (const MorphTarget& t : p.targets) {
      for (const Attribute& a : t.attributes) {
        EXPECT_EQ(out.asset.accessors[a.accessor].component_type, ComponentType::kFloat) << a.name;
      }
    }
  }
  EXPECT_EQ(out.report.runtime.changes.size(), 2u);
  expectWithinBound(*input, out);
  expectValid(out, "univrm");
}

// Filament gltfio decodes both (Utility.cpp decodeMeshoptCompression): --for filament changes nothing.
TEST(OptimizeForEngine, FilamentKeepsWhatItDecodes) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> input = loadAsset(blob());
  ASSERT_TRUE(input.ok()) << input.error().message;
  const test::Optimized out = test::optimizeOrDie(*input, {.for_engine = "filament"});
  EXPECT_TRUE(holds(out.asset, "EXT_meshopt_compression"));
  EXPECT_TRUE(holds(out.asset, "KHR_mesh_quantization"));
  EXPECT_TRUE(out.report.runtime.changes.empty());
  EXPECT_EQ(out.report.runtime.engine, "Filament gltfio (main @68ff9dd)");
}

TEST(OptimizeForEngine, TexturesTheRuntimeCannotDecodeAreRefused) {
  OptimizeOptions webp{.textures = TextureFormat::kWebp, .for_engine = "filament"};
  Expected<const Runtime*> refused = optimizeRuntime(webp);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Error::kInvalidArgument);
  EXPECT_NE(refused.error().message.find("does not decode EXT_texture_webp"), std::string::npos);
  EXPECT_NE(refused.error().message.find("use --textures keep or ktx2"), std::string::npos) << refused.error().message;
  OptimizeReport report;
  EXPECT_FALSE(optimizeAsset(Asset{}, webp, report).ok());
  EXPECT_TRUE(optimizeRuntime({.textures = TextureFormat::kWebp, .for_engine = "three"}).ok());
  EXPECT_FALSE(optimizeRuntime({.for_engine = "unity"}).ok());
  EXPECT_EQ(*optimizeRuntime({}), nullptr);
}

TEST(OptimizeCommand, ForEngineUsageErrorsAreOneLine) {
  MORPHKIT_REQUIRE_SHARED();
  const auto dir = test::scratchDir();
  const std::string in = "'" + blob().string() + "'";
  for (const char* bad : {"--for filament --textures webp", "--for unity"}) {
    const test::CliRun run = test::runMorphkit(dir, "optimize " + in + " --out o.glb " + bad);
    EXPECT_EQ(run.exit_code, 2) << bad << ": " << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_NE(run.err.find("--for"), std::string::npos) << run.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "o.glb"));
  const test::CliRun run = test::runMorphkit(dir, "optimize " + in + " --out o.glb --for playcanvas");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("for playcanvas (PlayCanvas engine 2.22)"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace morphkit
