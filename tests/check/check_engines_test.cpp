// SPDX-License-Identifier: MIT
// check_engines_test.cpp — `morphkit check`'s three.js and Babylon.js profiles against the engines themselves
// (tools/engines/engine_pose.mjs, scripts/install-engines): crafted files that trigger each of their rules, and every
// shared model, posed in the engine and by morphkit with the engine's profile, within 1e-5 of the bounding box.
//
// The engines' CPU paths (three.js getVertexPosition, Babylon.js getPositionData) give positions (and Babylon
// normals). What only their shaders do is proven from what the loader built: Babylon's MorphTargetManager morphs an
// attribute only when every target has it (supportsPositions/Normals, the partial-deltas rule), while its CPU path
// adds each target's data regardless; so Babylon positions are compared with the profile minus that rule, and the
// rule against supportsPositions/Normals.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "engine_pose_support.h"
#include "gltf_test_util.h"
#include "morphkit/check/check.h"
#include "morphkit/core/pose.h"
#include "morphkit/gltf/glb_writer.h"

namespace morphkit {
namespace {

std::filesystem::path engineScript() {
  return test::sourceDir() / "tools/engines/engine_pose.mjs";
}

bool enginesInstalled() {
  return std::system("command -v node >/dev/null 2>&1") == 0 &&
         std::filesystem::exists(test::sourceDir() / "tools/engines/node_modules/three/package.json") &&
         std::filesystem::exists(test::sourceDir() / "tools/engines/node_modules/@babylonjs/loaders/package.json");
}

#define REQUIRE_ENGINES()                                                                        \
  do {                                                                                           \
    if (!enginesInstalled()) {                                                                   \
      if (test::runningInCi()) FAIL() << "CI=true but scripts/install-engines has not been run"; \
      GTEST_SKIP() << "three.js / Babylon.js not installed (scripts/install-engines)";           \
    }                                                                                            \
  } while (0)

struct EngineMesh {
  std::vector<double> positions, normals;
  bool supports_positions = true, supports_normals = true;  // Babylon's MorphTargetManager
  bool tangent_morphs = false, color_morphs = false;        // three.js's morphAttributes
};

struct Frame {
  uint32_t animation = kNone;  // kNone: the rest pose
  double time = 0.0;
};

// The engine's poses of `glb` (a .glb file) at `frames`, one process; fails the test on a script error.
std::vector<std::vector<EngineMesh>> enginePoses(const std::string& engine, const std::filesystem::path& glb,
                                                 const std::vector<Frame>& frames) {
  std::string list;
  for (const Frame& f : frames) {
    list += (list.empty() ? "" : ",") +
            (f.animation == kNone ? std::string("rest") : std::to_string(f.animation) + ":" + std::to_string(f.time));
  }
  const std::string command =
      "node '" + engineScript().string() + "' " + engine + " '" + glb.string() + "' --frames " + list + " 2>/dev/null";
  const std::string out = test::commandOutput(command);
  std::vector<std::vector<EngineMesh>> posed;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(out).get(doc) != simdjson::SUCCESS) {
    ADD_FAILURE() << command << ": no JSON";
    return posed;
  }
  for (simdjson::dom::element frame : doc["frames"].get_array()) {
    std::vector<EngineMesh>& meshes = posed.emplace_back();
    for (simdjson::dom::element m : frame["meshes"].get_array()) {
      EngineMesh mesh;
      for (double v : m["positions"].get_array()) mesh.positions.push_back(v);
      if (m["normals"].is_array()) {
        for (double v : m["normals"].get_array()) mesh.normals.push_back(v);
      }
      simdjson::dom::element facts = m["facts"];
      if (simdjson::dom::element morph; facts["morph"].get(morph) == simdjson::SUCCESS && morph.is_object()) {
        mesh.supports_positions = bool(morph["supportsPositions"].get_bool());
        mesh.supports_normals = bool(morph["supportsNormals"].get_bool());
      }
      if (simdjson::dom::array kinds; facts["morphAttributes"].get(kinds) == simdjson::SUCCESS) {
        for (std::string_view k : kinds) {
          mesh.tangent_morphs = mesh.tangent_morphs || k == "tangent";
          mesh.color_morphs = mesh.color_morphs || k == "color";
        }
      }
      meshes.push_back(std::move(mesh));
    }
  }
  EXPECT_EQ(posed.size(), frames.size()) << command;
  return posed;
}

// morphkit's pose under `rules` (skin weights as stored when `raw`).
PoseResult profilePose(const Asset& asset, const EngineRules& rules, bool raw, uint32_t animation, double time) {
  Asset copy = asset;
  copy.keep_skin_weights = raw;
  Expected<PosePrepared> prepared = preparePose(copy);
  EXPECT_TRUE(prepared) << prepared.error().message;
  PoseOptions options;
  options.animation = animation;
  options.time = time;
  options.rules = rules;
  Expected<PoseResult> pose = evaluatePose(*prepared, options);
  EXPECT_TRUE(pose) << pose.error().message;
  return pose ? *pose : PoseResult{};
}

// The posed primitive an engine mesh is (same vertex count, closest positions): engines order meshes their way.
const PosedPrimitive* match(const PoseResult& pose, const EngineMesh& mesh) {
  const PosedPrimitive* best = nullptr;
  double best_difference = INFINITY;
  for (const PosedPrimitive& m : pose.meshes) {
    if (m.positions.size() != mesh.positions.size()) continue;
    const double d = test::maxDifference(m.positions, mesh.positions);
    if (d < best_difference) best = &m, best_difference = d;
  }
  return best;
}

struct Comparison {
  double worst_relative = 0;  // max over meshes of (position difference / bbox diagonal)
  size_t meshes = 0;
};

// The engine's poses against morphkit's poses of the profile; Babylon's partial-deltas rule checked on its facts.
Comparison compareEngine(const std::string& engine, const Asset& asset, const std::filesystem::path& glb,
                         const std::vector<Frame>& frames) {
  const EngineProfile* profile = findEngineProfile(engine);
  bool raw = false;
  EngineRules rules = engineRules(*profile, &raw);
  const bool partial = rules.partial_deltas_ignored;
  rules.partial_deltas_ignored = false;  // the CPU path adds every target's data (file comment)
  const std::vector<std::vector<EngineMesh>> posed = enginePoses(engine, glb, frames);
  Comparison out;
  for (size_t f = 0; f < posed.size() && f < frames.size(); ++f) {
    SCOPED_TRACE("animation " + std::to_string(int(frames[f].animation)) + " t=" + std::to_string(frames[f].time));
    const PoseResult pose = profilePose(asset, rules, raw, frames[f].animation, frames[f].time);
    for (const EngineMesh& mesh : posed[f]) {
      const PosedPrimitive* m = match(pose, mesh);
      if (!m) {
        ADD_FAILURE() << engine << ": an engine mesh of " << mesh.positions.size() / 3 << " vertices matches nothing";
        continue;
      }
      const double diag = std::max(test::diagonal(m->positions), 1e-12);
      const double relative = test::maxDifference(m->positions, mesh.positions) / diag;
      EXPECT_LE(relative, 1.0) << "meshes[" << m->mesh << "].primitives[" << m->primitive << "]";
      out.worst_relative = std::max(out.worst_relative, relative);
      ++out.meshes;
      if (!partial) continue;
      // Babylon morphs POSITION/NORMAL on the GPU exactly when no target of the primitive lacks it.
      const Primitive& primitive = asset.meshes[m->mesh].primitives[m->primitive];
      if (primitive.targets.empty()) continue;
      bool every_position = true, every_normal = true;
      for (const MorphTarget& t : primitive.targets) {
        every_position = every_position && findAttribute(t.attributes, "POSITION") != kNone;
        every_normal = every_normal && findAttribute(t.attributes, "NORMAL") != kNone;
      }
      EXPECT_EQ(mesh.supports_positions, every_position) << "meshes[" << m->mesh << "]";
      if (!m->normals.empty()) {
        EXPECT_EQ(mesh.supports_normals, every_normal) << "meshes[" << m->mesh << "]";
      }
    }
  }
  return out;
}

// The geometry, skins and animations of `asset` as a .glb: no images, textures or materials (three.js's loader
// needs a DOM for images in Node, and no vertex depends on them).
std::filesystem::path writeGlbFile(Asset asset, const std::filesystem::path& path) {
  asset.images.clear();
  asset.textures.clear();
  asset.samplers.clear();
  asset.materials.clear();
  for (Mesh& mesh : asset.meshes) {
    for (Primitive& p : mesh.primitives) p.material = kNone;
  }
  // Texture extensions go with the textures; compression with the compressed bytes (the loader decoded them, and
  // the writer writes plain buffers).
  auto texture_extension = [](const std::string& name) {
    return name == "KHR_texture_transform" || name == "KHR_texture_basisu" || name.starts_with("KHR_materials_") ||
           name == "EXT_meshopt_compression" || name == "KHR_meshopt_compression" ||
           name == "KHR_draco_mesh_compression";
  };
  std::erase_if(asset.extensions_used, texture_extension);
  std::erase_if(asset.extensions_required, texture_extension);
  Expected<std::vector<uint8_t>> glb = writeGlb(asset);
  EXPECT_TRUE(glb) << glb.error().message;
  if (glb) test::writeBytes(path, *glb);
  return path;
}

// --- crafted files (the same builders as check_test.cpp, written as GLB) ----------------------------------------

struct Crafted {
  test::Bytes bin;
  std::vector<std::string> views, accessors;
  uint32_t add(const std::string& type, uint32_t component, size_t count, size_t bytes, const std::string& extra = "") {
    views.push_back("{\"buffer\":0,\"byteOffset\":" + std::to_string(bin.size() - bytes) +
                    ",\"byteLength\":" + std::to_string(bytes) + "}");
    accessors.push_back("{\"bufferView\":" + std::to_string(views.size() - 1) +
                        ",\"componentType\":" + std::to_string(component) + ",\"count\":" + std::to_string(count) +
                        ",\"type\":\"" + type + "\"" + extra + "}");
    bin.padTo4();
    return uint32_t(accessors.size() - 1);
  }
  uint32_t floats(const std::vector<float>& values, const std::string& type, size_t per,
                  const std::string& extra = "") {
    for (float v : values) bin.put<float>(v);
    return add(type, 5126, values.size() / per, 4 * values.size(), extra);
  }
  uint32_t joints(const std::vector<uint8_t>& values) {
    for (uint8_t v : values) bin.put<uint8_t>(v);
    const size_t bytes = values.size();
    const uint32_t a = add("VEC4", 5121, values.size() / 4, bytes);
    return a;
  }
  Asset load(const std::string& rest) {
    auto join = [](const std::vector<std::string>& items) {
      std::string out;
      for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
      return out;
    };
    const std::string json = test::gltfJson("\"buffers\":[" + test::bufferJson(bin.data) + "],\"bufferViews\":[" +
                                            join(views) + "],\"accessors\":[" + join(accessors) + "]," + rest);
    return test::validated(test::loadJson(json));
  }
};

const std::string kTriangleMinMax = ",\"min\":[0,0,0],\"max\":[1,1,0]";

// Skinned to joints 0 and 1 through two influence sets; joint 1 at x = 2. `second` is WEIGHTS_1's first weight.
Asset eightInfluences(float second) {
  Crafted c;
  const uint32_t pos = c.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", 3, kTriangleMinMax);
  const uint32_t j0 = c.joints({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  const uint32_t w0 = c.floats({0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f, 0, 0, 0}, "VEC4", 4);
  const uint32_t j1 = c.joints({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0});
  const uint32_t w1 = c.floats({second, 0, 0, 0, second, 0, 0, 0, second, 0, 0, 0}, "VEC4", 4);
  return c.load("\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":" + std::to_string(pos) +
                ",\"JOINTS_0\":" + std::to_string(j0) + ",\"WEIGHTS_0\":" + std::to_string(w0) +
                ",\"JOINTS_1\":" + std::to_string(j1) + ",\"WEIGHTS_1\":" + std::to_string(w1) +
                "}}]}],\"skins\":[{\"joints\":[1,2]}],\"nodes\":[{\"mesh\":0,\"skin\":0},{},"
                "{\"translation\":[2,0,0]}],\"scenes\":[{\"nodes\":[0,1,2]}]");
}

// Target 0 moves POSITION, target 1 NORMAL only; TANGENT and COLOR_0 targets on a second primitive.
Asset partialAndAttributeTargets() {
  Crafted c;
  const uint32_t pos = c.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", 3, kTriangleMinMax);
  const uint32_t nrm = c.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3", 3);
  const uint32_t tan = c.floats({1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}, "VEC4", 4);
  const uint32_t color = c.floats({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, "VEC4", 4);
  const uint32_t dz = c.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3", 3);
  const uint32_t dx = c.floats({1, 0, 0, 1, 0, 0, 1, 0, 0}, "VEC3", 3);
  const uint32_t dt = c.floats({0, 1, 0, 0, 1, 0, 0, 1, 0}, "VEC3", 3);
  const uint32_t dc = c.floats({-0.5f, 0, 0, 0, -0.5f, 0, 0, 0, -0.5f, 0, 0, 0}, "VEC4", 4);
  const std::string p = std::to_string(pos), n = std::to_string(nrm);
  return c.load("\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":" + p + ",\"NORMAL\":" + n +
                "},\"targets\":[{\"POSITION\":" + std::to_string(dz) + "},{\"NORMAL\":" + std::to_string(dx) +
                "}]}],\"weights\":[0.5,0.25]},{\"primitives\":[{\"attributes\":{\"POSITION\":" + p +
                ",\"NORMAL\":" + n + ",\"TANGENT\":" + std::to_string(tan) + ",\"COLOR_0\":" + std::to_string(color) +
                "},\"targets\":[{\"POSITION\":" + std::to_string(dz) + ",\"TANGENT\":" + std::to_string(dt) +
                ",\"COLOR_0\":" + std::to_string(dc) +
                "}]}],\"weights\":[0.5]}],\"nodes\":[{\"mesh\":0},"
                "{\"mesh\":1,\"translation\":[3,0,0]}],\"scenes\":[{\"nodes\":[0,1]}]");
}

TEST(CheckEngines, CraftedFilesTriggeringEachRuleMatchTheEngines) {
  REQUIRE_ENGINES();
  const auto dir = test::scratchDir();
  struct Case {
    const char* name;
    Asset asset;
  };
  std::vector<Case> cases;
  cases.push_back({"eight_influences", eightInfluences(0.5f)});
  cases.push_back({"unnormalized", eightInfluences(0.25f)});
  cases.push_back({"partial_tangent_color", partialAndAttributeTargets()});
  for (const Case& c : cases) {
    const auto glb = writeGlbFile(c.asset, dir / (std::string(c.name) + ".glb"));
    for (const char* engine : {"three", "babylon"}) {
      SCOPED_TRACE(std::string(c.name) + " in " + engine);
      const Comparison cmp = compareEngine(engine, c.asset, glb, {Frame{}});
      EXPECT_EQ(cmp.meshes, c.asset.meshes.size());
      EXPECT_LE(cmp.worst_relative, 1e-5);
    }
  }
  // What the loaders made of the tangent/colour targets: three.js morphs COLOR_0 and no TANGENT.
  const auto glb = dir / "partial_tangent_color.glb";
  bool colors = false;
  const std::vector<std::vector<EngineMesh>> three = enginePoses("three", glb, {Frame{}});
  ASSERT_EQ(three.size(), 1u);
  for (const EngineMesh& m : three[0]) {
    EXPECT_FALSE(m.tangent_morphs);
    colors = colors || m.color_morphs;
  }
  EXPECT_TRUE(colors);
}

TEST(CheckEngines, ThreeEightInfluenceDeviationIsTheRealOne) {
  REQUIRE_ENGINES();
  const auto dir = test::scratchDir();
  const Asset asset = eightInfluences(0.5f);
  const auto glb = writeGlbFile(asset, dir / "eight.glb");
  const PoseResult spec = profilePose(asset, {}, false, kNone, 0.0);
  double real = 0;
  const std::vector<std::vector<EngineMesh>> three = enginePoses("three", glb, {Frame{}});
  ASSERT_EQ(three.size(), 1u);
  for (const EngineMesh& m : three[0]) {
    const PosedPrimitive* p = match(spec, m);
    ASSERT_NE(p, nullptr);
    real = std::max(real, test::maxDifference(p->positions, m.positions));
  }
  CheckOptions options;
  options.engines = {findEngineProfile("three")};
  Expected<CheckReport> report = checkAsset(asset, options);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_TRUE(report->engines.at(0).measured);
  EXPECT_GT(real, 0.5);
  EXPECT_NEAR(report->engines[0].deviation.position, real, 1e-6 * real);
}

TEST(CheckEngines, EverySharedModelMatchesTheEngines) {
  MORPHKIT_REQUIRE_SHARED();
  REQUIRE_ENGINES();
  const auto dir = test::scratchDir();
  size_t compared = 0;
  for (const std::filesystem::path& file : test::sharedModelFiles()) {
    Expected<Asset> asset = loadAsset(file);
    ASSERT_TRUE(asset) << file << ": " << asset.error().message;
    const auto glb = writeGlbFile(*asset, dir / (file.stem().string() + std::to_string(compared) + ".glb"));
    // SimpleSkin's keyframe quaternions are not unit length: the engines' slerps differ by 2.3e-4 of the bbox there
    // (../shared/reference/README.md, "Tolerances that hold").
    const double tolerance = file.string().find("SimpleSkin") != std::string::npos ? 2.5e-4 : 1e-5;
    std::vector<Frame> frames = {Frame{}};
    for (uint32_t a = 0; a < asset->animations.size(); ++a) frames.push_back({a, 0.37 * animationDuration(*asset, a)});
    for (const char* engine : {"three", "babylon"}) {
      SCOPED_TRACE(file.string() + " in " + engine);
      const Comparison cmp = compareEngine(engine, *asset, glb, frames);
      EXPECT_GT(cmp.meshes, 0u);
      EXPECT_LE(cmp.worst_relative, tolerance);
    }
    ++compared;
  }
  EXPECT_GT(compared, 10u);
}

// Poses `file`'s rest pose and 0.37 of each clip in both engines against the profiles.
void compareFile(const std::filesystem::path& file, const std::filesystem::path& dir, double tolerance) {
  Expected<Asset> asset = loadAsset(file);
  ASSERT_TRUE(asset) << file << ": " << asset.error().message;
  const auto glb = writeGlbFile(*asset, dir / (file.stem().string() + "_plain.glb"));
  std::vector<Frame> frames = {Frame{}};
  for (uint32_t a = 0; a < asset->animations.size(); ++a) frames.push_back({a, 0.37 * animationDuration(*asset, a)});
  for (const char* engine : {"three", "babylon"}) {
    SCOPED_TRACE(file.string() + " in " + engine);
    const Comparison cmp = compareEngine(engine, *asset, glb, frames);
    EXPECT_GT(cmp.meshes, 0u);
    EXPECT_LE(cmp.worst_relative, tolerance);
  }
}

// ../shared/field: quantized, meshopt- and Draco-compressed, unnormalized-weight files (decoded by morphkit and
// written plain for the engines); tolerances as ../shared/field/README.md states them.
TEST(CheckEngines, EveryFieldFileMatchesTheEngines) {
  MORPHKIT_REQUIRE_SHARED();
  REQUIRE_ENGINES();
  const auto dir = test::scratchDir();
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::sharedDir() / "field" / "assets")) {
    if (entry.path().extension() != ".glb") continue;
    const std::string name = entry.path().filename().string();
    compareFile(entry.path(), dir, name.starts_with("Fox_gltfpack") || name.starts_with("Fox_meshopt") ? 3e-5 : 1e-5);
    ++files;
  }
  EXPECT_GE(files, 7u);
}

// make-demo assets: CUBICSPLINE/STEP/LINEAR weight clips, skinned bone rotations, many targets.
TEST(CheckEngines, MakeDemoVariantsMatchTheEngines) {
  REQUIRE_ENGINES();
  const auto dir = test::scratchDir();
  for (const char* variant : {"--vertices 1500 --targets 12", "--vertices 3000 --targets 80 --bones 8"}) {
    SCOPED_TRACE(variant);
    const test::CliRun made = test::runMorphkit(dir, std::string("make-demo demo.glb --no-capture ") + variant);
    ASSERT_EQ(made.exit_code, 0) << made.err;
    compareFile(dir / "demo.glb", dir, 1e-5);
  }
}

}  // namespace
}  // namespace morphkit
