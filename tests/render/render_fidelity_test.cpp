// SPDX-License-Identifier: MIT
// The three.js fidelity harness (tools/fidelity/fidelity.mjs, docs/RENDER.md "Fidelity against three.js"): models
// rendered by morphkit (lavapipe) and by three.js r187 (headless Chromium, SwiftShader) with the same camera, the
// built-in studio written as an .hdr file as the only light, Neutral tone mapping, no antialiasing and the same
// background. By default the fast CI subset (three models at 128², each within its bound: a regression fails);
// MORPHKIT_FIDELITY=full the full table (scripts/fidelity). Needs scripts/install-fidelity (CI=true: missing fails).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "morphkit/model/files.h"
#include "morphkit/render/environment.h"
#include "test_support.h"

namespace morphkit {
namespace {

bool harnessInstalled() {
  const std::filesystem::path modules = test::sourceDir() / "tools/fidelity/node_modules";
  return std::filesystem::exists("/usr/bin/chromium") && std::filesystem::exists(modules / "three/package.json") &&
         std::filesystem::exists(modules / "puppeteer-core/package.json") &&
         std::system("command -v node >/dev/null 2>&1") == 0;
}

struct Bound {
  double mean_abs;  // at most, 1/255
  double within16;  // at least
};

// make-demo's head in `material` (docs/DEMO.md), written into `dir`: demo_<material>.glb, no morph targets (the
// materials are the point), 5000 vertices.
std::filesystem::path demoVariant(const std::filesystem::path& dir, const std::string& material) {
  const std::filesystem::path file = dir / ("demo_" + material + ".glb");
  const std::string command = "'" + test::cliPath().string() + "' make-demo '" + file.string() +
                              "' --targets 0 --vertices 5000 --no-capture --material " + material +
                              (material == "textured" ? " --texture-size 512" : "") + " > /dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return file;
}

// Every make-demo material variant: a metallic and a textured one (issue 29's set), and one per shaded material
// feature (KHR_materials_*, COLOR_0).
std::vector<std::filesystem::path> demoVariants(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const char* m :
       {"skin", "metallic", "textured", "unlit", "emissive", "ior", "specular", "clearcoat", "sheen", "vertex-colors"})
    out.push_back(demoVariant(dir, m));
  return out;
}

std::vector<std::filesystem::path> fullSet() {
  const auto a = test::assetsDir();
  const auto field = test::sharedDir() / "field/assets";
  return {a / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
          a / "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
          a / "BlenderIO_01_cs_morph/01_cs_morph.gltf",
          a / "BlenderIO_01_morphed_triangle/01_morphed_triangle.gltf",
          a / "BlenderIO_03_skinned_cylinder/03_skinned_cylinder.gltf",
          a / "Fox/glTF-Binary/Fox.glb",
          a / "InterpolationTest/glTF-Binary/InterpolationTest.glb",
          a / "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb",
          a / "MorphSkinBlob52/MorphSkinBlob52.glb",
          a / "MorphSkinBlob52/MorphSkinBlob52_quantized.glb",
          a / "MorphSkinBlob52/MorphSkinBlob52_sparse.glb",
          a / "RiggedFigure/glTF/RiggedFigure.gltf",
          a / "RiggedSimple/glTF-Binary/RiggedSimple.glb",
          field / "Fox_draco.glb",
          field / "Fox_gltfpack.glb",
          field / "Fox_meshopt.glb",
          field / "Fox_unnormalized.glb"};
}

// The CI subset (default): three models at 128², each within its bound (the measured figure plus a margin).
// MORPHKIT_FIDELITY=full (scripts/fidelity): docs/RENDER.md's full table at 256², checked against issue 29's goals
// (mean |Δ| <= 4/255, >= 95 % within 16/255), the table and images beside the test binary in fidelity/.
TEST(RenderFidelity, StaysCloseToThreeJs) {
  MORPHKIT_REQUIRE_SHARED();
  if (!harnessInstalled()) {
    if (test::runningInCi()) FAIL() << "CI=true but chromium or tools/fidelity/node_modules is missing";
    GTEST_SKIP() << "run scripts/install-fidelity (chromium, puppeteer-core, three)";
  }
  const char* mode = std::getenv("MORPHKIT_FIDELITY");
  const bool full = mode && std::string(mode) == "full";
  const std::filesystem::path dir =
      full ? std::filesystem::read_symlink("/proc/self/exe").parent_path() / "fidelity" : test::scratchDir();
  std::filesystem::create_directories(dir);
  const std::vector<uint8_t> hdr = encodeRadianceHdr(studioEnvironment());
  ASSERT_TRUE(writeFileAtomic(dir / "studio.hdr", std::span<const uint8_t>(hdr)).ok());
  // Measured 2026-12-02 (lavapipe, Chromium 156 SwiftShader, 128²): cube 1.38 / 99.9 %, Fox 1.04 / 98.6 %,
  // cylinder 0.91 / 99.9 % (before the roughest levels were integrated and read as the irradiance: 2.42, 1.81,
  // 2.93, each above its bound now).
  std::map<std::string, Bound> bounds = {
      {"AnimatedMorphCube", {2.0, 0.98}}, {"Fox", {1.75, 0.96}}, {"03_skinned_cylinder", {1.5, 0.98}}};
  std::vector<std::filesystem::path> models = {
      test::assetsDir() / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
      test::assetsDir() / "Fox/glTF-Binary/Fox.glb",
      test::assetsDir() / "BlenderIO_03_skinned_cylinder/03_skinned_cylinder.gltf"};
  if (full) {
    models = fullSet();
    for (const auto& demo : demoVariants(dir)) models.push_back(demo);
  }
  std::string list;
  for (const auto& m : models) list += " '" + m.string() + "'";
  const std::string command = "node '" + (test::sourceDir() / "tools/fidelity/fidelity.mjs").string() +
                              "' --morphkit '" + test::cliPath().string() + "' --environment '" +
                              (dir / "studio.hdr").string() + "' --size " + (full ? "256x256" : "128x128") +
                              " --out '" + (dir / "out").string() + "'" + list + " > '" + (dir / "table.md").string() +
                              "' 2> '" + (dir / "log.txt").string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << test::slurp(dir / "log.txt");
  std::printf("%s", test::slurp(dir / "table.md").c_str());
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.load((dir / "out/fidelity.json").string()).get(root), simdjson::SUCCESS);
  size_t seen = 0;
  for (simdjson::dom::element model : root["models"].get_array()) {
    const std::string name(std::string_view(model["model"].get_string()));
    const Bound bound = full ? Bound{4.0, 0.95} : bounds.at(name);
    EXPECT_GT(double(model["modelPixels"]), 500) << name;
    EXPECT_LE(double(model["meanAbs"]), bound.mean_abs) << name;
    EXPECT_GE(double(model["within16"]), bound.within16) << name;
    // No model is black where three.js is not.
    EXPECT_LE(double(model["darkMorphkit"]), double(model["darkThree"]) + 0.02) << name;
    ++seen;
  }
  EXPECT_EQ(seen, models.size());
}

}  // namespace
}  // namespace morphkit
