// SPDX-License-Identifier: MIT
// morphkit check (src/check): every engine rule on a crafted file, against a result computed by hand; rules that
// cannot apply reported as such; the core's EngineRules off is the glTF pose.
#include "morphkit/check/check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/core/pose.h"
#include "morphkit/demo/demo.h"

namespace morphkit {
namespace {

using test::Bytes;

// A file written by hand: one buffer, a bufferView per accessor, the JSON of the rest given by the test.
struct Crafted {
  Bytes bin;
  std::vector<std::string> views, accessors;

  // A float accessor of `type` ("VEC3", ...) holding `values`; POSITION wants min/max.
  uint32_t floats(std::vector<float> values, const std::string& type, bool min_max = false) {
    const size_t offset = bin.size();
    for (float v : values) bin.put<float>(v);
    views.push_back("{\"buffer\":0,\"byteOffset\":" + std::to_string(offset) +
                    ",\"byteLength\":" + std::to_string(4 * values.size()) + "}");
    const size_t per = type == "SCALAR" ? 1 : type == "VEC2" ? 2 : type == "VEC3" ? 3 : 4;
    std::string accessor = "{\"bufferView\":" + std::to_string(views.size() - 1) +
                           ",\"componentType\":5126,\"count\":" + std::to_string(values.size() / per) + ",\"type\":\"" +
                           type + "\"";
    if (min_max) {
      std::string lo, hi;
      for (size_t c = 0; c < per; ++c) {
        float a = INFINITY, b = -INFINITY;
        for (size_t i = c; i < values.size(); i += per) a = std::min(a, values[i]), b = std::max(b, values[i]);
        lo += (c ? "," : "") + std::to_string(a);
        hi += (c ? "," : "") + std::to_string(b);
      }
      accessor += ",\"min\":[" + lo + "],\"max\":[" + hi + "]";
    }
    accessors.push_back(accessor + "}");
    return uint32_t(accessors.size() - 1);
  }
  uint32_t bytes4(std::vector<uint8_t> values) {  // JOINTS_n as unsigned bytes
    const size_t offset = bin.size();
    for (uint8_t v : values) bin.put<uint8_t>(v);
    bin.padTo4();
    views.push_back("{\"buffer\":0,\"byteOffset\":" + std::to_string(offset) +
                    ",\"byteLength\":" + std::to_string(values.size()) + "}");
    accessors.push_back("{\"bufferView\":" + std::to_string(views.size() - 1) + ",\"componentType\":5121,\"count\":" +
                        std::to_string(values.size() / 4) + ",\"type\":\"VEC4\"}");
    return uint32_t(accessors.size() - 1);
  }
  // A VEC3 target accessor of `count` zeros with sparse substitutions (no bufferView).
  uint32_t sparseVec3(uint32_t count, uint32_t index, float x, float y, float z) {
    const size_t offset = bin.size();
    bin.put<uint32_t>(index).put<float>({x, y, z});
    views.push_back("{\"buffer\":0,\"byteOffset\":" + std::to_string(offset) + ",\"byteLength\":4}");
    views.push_back("{\"buffer\":0,\"byteOffset\":" + std::to_string(offset + 4) + ",\"byteLength\":12}");
    accessors.push_back(
        "{\"componentType\":5126,\"count\":" + std::to_string(count) +
        ",\"type\":\"VEC3\",\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":" + std::to_string(views.size() - 2) +
        ",\"componentType\":5125},\"values\":{\"bufferView\":" + std::to_string(views.size() - 1) + "}}}");
    return uint32_t(accessors.size() - 1);
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

// The triangle (0,0,0), (1,0,0), (0,1,0) facing +z.
const std::vector<float> kTriangle = {0, 0, 0, 1, 0, 0, 0, 1, 0};
const std::vector<float> kUp = {0, 0, 1, 0, 0, 1, 0, 0, 1};

const EngineReport& engine(const CheckReport& report, std::string_view name) {
  for (const EngineReport& e : report.engines) {
    if (e.profile->name == name) return e;
  }
  ADD_FAILURE() << "no engine " << name;
  return report.engines.front();
}
const RuleReport& rule(const EngineReport& e, RuleKind kind) {
  for (const RuleReport& r : e.rules) {
    if (r.rule->kind == kind) return r;
  }
  ADD_FAILURE() << "no rule " << ruleId(kind) << " in " << e.profile->name;
  return e.rules.front();
}
const Hazard* hazard(const EngineReport& e, RuleKind kind) {
  for (const Hazard& h : e.hazards) {
    if (h.rule->kind == kind) return &h;
  }
  return nullptr;
}

CheckReport check(const Asset& asset, uint32_t times = 10) {
  CheckOptions options;
  options.times = times;
  Expected<CheckReport> report = checkAsset(asset, options);
  EXPECT_TRUE(report) << report.error().message;
  return report ? *report : CheckReport{};
}

// Target 0 moves POSITION by +z; target 1 moves only NORMAL by +x. Weights 0.5 and 0.25 (the rest pose).
Asset partialTargets() {
  Crafted c;
  const uint32_t pos = c.floats(kTriangle, "VEC3", true), nrm = c.floats(kUp, "VEC3");
  const uint32_t dz = c.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3"), dx = c.floats({1, 0, 0, 1, 0, 0, 1, 0, 0}, "VEC3");
  return c.load("\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":" + std::to_string(pos) +
                ",\"NORMAL\":" + std::to_string(nrm) + "},\"targets\":[{\"POSITION\":" + std::to_string(dz) +
                "},{\"NORMAL\":" + std::to_string(dx) +
                "}]}],\"weights\":[0.5,0.25]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]");
}

constexpr double kDegrees = 180.0 / M_PI;

TEST(Check, ThreeAddsTheBaseForAMissingTargetAttribute) {
  const CheckReport report = check(partialTargets());
  const EngineReport& three = engine(report, "three");
  const RuleReport& base = rule(three, RuleKind::kMissingDeltaIsBase);
  ASSERT_TRUE(base.applies) << base.where;
  ASSERT_TRUE(base.measured);
  // Target 1 adds 0.25 x (1,0,0) to vertex 1: spec (1,0,0.5), three.js (1.25,0,0.5).
  EXPECT_NEAR(base.deviation.position, 0.25, 1e-6);
  EXPECT_EQ(base.deviation.vertex, 1u);
  EXPECT_NEAR(base.deviation.position_percent, 100.0 * 0.25 / std::sqrt(2.0), 1e-4);  // bbox (0,0,.5)..(1,1,.5)
  // Normals: spec (0.25,0,1), three.js (0.25,0,1.5) (target 0 adds 0.5 x the base normal).
  EXPECT_NEAR(base.deviation.normal_degrees, (std::atan(0.25) - std::atan(0.25 / 1.5)) * kDegrees, 1e-4);
  EXPECT_EQ(base.deviation.frames, 1u);
  EXPECT_EQ(base.deviation.frames_differing, 1u);
  EXPECT_TRUE(three.measured);  // the only geometric rule of three that applies: the total is the same
  EXPECT_EQ(three.deviation.position, base.deviation.position);
  EXPECT_FALSE(rule(three, RuleKind::kInfluenceSets).applies);
  EXPECT_FALSE(rule(three, RuleKind::kInfluenceSets).measured);  // not applicable, never a 0
}

TEST(Check, BabylonMorphsNoAttributeThatSomeTargetLacks) {
  const CheckReport report = check(partialTargets());
  const EngineReport& babylon = engine(report, "babylon");
  const RuleReport& partial = rule(babylon, RuleKind::kPartialDeltas);
  ASSERT_TRUE(partial.applies) << partial.where;
  // No position morph at all: vertex 0 stays at z 0 instead of 0.5; normals stay (0,0,1) instead of (0.25,0,1).
  EXPECT_NEAR(partial.deviation.position, 0.5, 1e-6);
  EXPECT_EQ(partial.deviation.vertex, 0u);
  EXPECT_NEAR(partial.deviation.normal_degrees, std::atan(0.25) * kDegrees, 1e-4);
  // Godot's only applicable rule (tiny weights) changes nothing here: measured, and 0.
  EXPECT_TRUE(engine(report, "godot").measured);
  EXPECT_EQ(engine(report, "godot").deviation.frames_differing, 0u);
}

// One triangle skinned to joints 0 and 1 through two influence sets, 0.5 each; joint 1 sits at x = 2.
Asset twoInfluenceSets(float second_weight) {
  Crafted c;
  const uint32_t pos = c.floats(kTriangle, "VEC3", true);
  const uint32_t j0 = c.bytes4({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  const uint32_t w0 = c.floats({0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f, 0, 0, 0}, "VEC4");
  const uint32_t j1 = c.bytes4({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0});
  const uint32_t w1 = c.floats({second_weight, 0, 0, 0, second_weight, 0, 0, 0, second_weight, 0, 0, 0}, "VEC4");
  return c.load("\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":" + std::to_string(pos) +
                ",\"JOINTS_0\":" + std::to_string(j0) + ",\"WEIGHTS_0\":" + std::to_string(w0) +
                ",\"JOINTS_1\":" + std::to_string(j1) + ",\"WEIGHTS_1\":" + std::to_string(w1) +
                "}}]}],\"skins\":[{\"joints\":[1,2]}],\"nodes\":[{\"mesh\":0,\"skin\":0},{},"
                "{\"translation\":[2,0,0]}],\"scenes\":[{\"nodes\":[0,1,2]}]");
}

TEST(Check, OneInfluenceSetMovesEveryVertexToTheFirstJoint) {
  const CheckReport report = check(twoInfluenceSets(0.5f));
  // Spec: p + 0.5 x (2,0,0). One set, rescaled: weight 1 on joint 0 (at the origin): p. 1 unit = 1000 mm.
  for (std::string_view name : {"three", "filament", "bevy"}) {
    SCOPED_TRACE(name);
    const RuleReport& sets = rule(engine(report, name), RuleKind::kInfluenceSets);
    ASSERT_TRUE(sets.applies) << sets.where;
    EXPECT_NEAR(sets.deviation.position, 1.0, 1e-6);
  }
  for (std::string_view name : {"babylon", "godot"}) {  // two sets: what the file says
    SCOPED_TRACE(name);
    EXPECT_FALSE(rule(engine(report, name), RuleKind::kInfluenceSets).applies);
  }
  EXPECT_NEAR(worstDeviationMm(report), 1000.0, 1e-3);
}

// No profile skins with the weights as stored (Babylon.js rescales them in effect: docs/CHECK.md); the rule is data,
// so a profile that has it is made here.
TEST(Check, AProfileSkinningWithTheWeightsAsStored) {
  const EngineProfile raw{
      "raw", "weights as stored", {{RuleKind::kUnnormalizedWeights, 0, 0, {}, "as stored", "test"}}};
  CheckOptions options;
  options.engines = {&raw};
  // Weights 0.5 on joint 0 and 0.25 on joint 1 sum to 0.75: the glTF pose (as three.js) rescales to 2/3 and 1/3.
  Expected<CheckReport> report = checkAsset(twoInfluenceSets(0.25f), options);
  ASSERT_TRUE(report) << report.error().message;
  const RuleReport& as_stored = report->engines.at(0).rules.at(0);
  ASSERT_TRUE(as_stored.applies) << as_stored.where;
  // Vertex 1 (1,0,0): spec (2/3)(1,0,0) + (1/3)(3,0,0) = (5/3,0,0); as stored 0.5 (1,0,0) + 0.25 (3,0,0) = (1.25,0,0).
  EXPECT_NEAR(as_stored.deviation.position, 5.0 / 3.0 - 1.25, 1e-6);
  EXPECT_EQ(as_stored.deviation.vertex, 1u);
}

// Weights animated by a CUBICSPLINE sampler over [0, 2] with out-tangent 1 at the first key.
Asset cubicWeights() {
  Crafted c;
  const uint32_t pos = c.floats(kTriangle, "VEC3", true), dz = c.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");
  const uint32_t times = c.floats({0, 2}, "SCALAR", true), values = c.floats({0, 0, 1, 0, 0, 0}, "SCALAR");
  return c.load("\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":" + std::to_string(pos) +
                "},\"targets\":[{\"POSITION\":" + std::to_string(dz) +
                "}]}]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"animations\":[{\"channels\":[{"
                "\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}],\"samplers\":[{\"input\":" +
                std::to_string(times) + ",\"output\":" + std::to_string(values) +
                ",\"interpolation\":\"CUBICSPLINE\"}]}]");
}

TEST(Check, FilamentScalesCubicTangentsByTheNormalizedTime) {
  const CheckReport report = check(cubicWeights(), 3);  // t = 0, 1, 2
  const RuleReport& cubic = rule(engine(report, "filament"), RuleKind::kCubicTangents);
  ASSERT_TRUE(cubic.applies);
  // t = 1, u = 0.5: h10 = u^3 - 2u^2 + u = 0.125. Spec w = 0.125 x t_d (2) = 0.25; Filament 0.125 x u = 0.0625.
  EXPECT_NEAR(cubic.deviation.position, 0.25 - 0.0625, 1e-6);
  EXPECT_EQ(cubic.deviation.frames, 3u);
  EXPECT_EQ(cubic.deviation.frames_differing, 1u);
  EXPECT_EQ(cubic.deviation.animation, 0u);
  EXPECT_DOUBLE_EQ(cubic.deviation.time, 1.0);
  // The same rule on a file without animation cannot apply: reported so, not as 0.
  const CheckReport still = check(partialTargets());
  const RuleReport& none = rule(engine(still, "filament"), RuleKind::kCubicTangents);
  EXPECT_FALSE(none.applies);
  EXPECT_FALSE(none.measured);
  EXPECT_EQ(none.where, "no CUBICSPLINE animation");
}

TEST(Check, GodotSkipsTinyWeights) {
  Crafted c;
  const uint32_t pos = c.floats(kTriangle, "VEC3", true), dz = c.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");
  const Asset asset = c.load("\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":" + std::to_string(pos) +
                             "},\"targets\":[{\"POSITION\":" + std::to_string(dz) +
                             "}]}],\"weights\":[0.00005]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]");
  const CheckReport report = check(asset);
  const RuleReport& tiny = rule(engine(report, "godot"), RuleKind::kMinWeight);
  ASSERT_TRUE(tiny.applies);
  EXPECT_NEAR(tiny.deviation.position, 0.00005, 1e-9);
}

TEST(Check, FilamentLosesSparseTargets) {
  Crafted c;
  const uint32_t pos = c.floats(kTriangle, "VEC3", true), sparse = c.sparseVec3(3, 2, 0, 0, 2);
  const Asset asset = c.load("\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":" + std::to_string(pos) +
                             "},\"targets\":[{\"POSITION\":" + std::to_string(sparse) +
                             "}]}],\"weights\":[0.5]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]");
  const CheckReport report = check(asset);
  const RuleReport& lost = rule(engine(report, "filament"), RuleKind::kSparseDeltas);
  ASSERT_TRUE(lost.applies) << lost.where;
  EXPECT_NEAR(lost.deviation.position, 1.0, 1e-6);  // vertex 2 moved by 0.5 x (0,0,2)
  EXPECT_EQ(lost.deviation.vertex, 2u);
  EXPECT_FALSE(rule(engine(report, "three"), RuleKind::kMissingDeltaIsBase).applies);
}

// `count` targets, all zero but the last (POSITION +z), weight 0.5 on the last.
Asset manyTargets(uint32_t count) {
  Crafted c;
  const uint32_t pos = c.floats(kTriangle, "VEC3", true), zero = c.floats(std::vector<float>(9, 0.0f), "VEC3");
  const uint32_t dz = c.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");
  std::string targets, weights;
  for (uint32_t t = 0; t < count; ++t) {
    targets += std::string(t ? "," : "") + "{\"POSITION\":" + std::to_string(t + 1 == count ? dz : zero) + "}";
    weights += std::string(t ? "," : "") + (t + 1 == count ? "0.5" : "0");
  }
  return c.load("\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":" + std::to_string(pos) +
                "},\"targets\":[" + targets + "]}],\"weights\":[" + weights +
                "]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]");
}

TEST(Check, TargetCapsDropOrRefuse) {
  const CheckReport report = check(manyTargets(258));
  const EngineReport& filament = engine(report, "filament");
  const RuleReport& cap = rule(filament, RuleKind::kTargetCap);
  ASSERT_TRUE(cap.applies) << cap.where;
  EXPECT_NEAR(cap.deviation.position, 0.5, 1e-6);              // target 257 (weight 0.5, +z) is past 256
  ASSERT_NE(hazard(filament, RuleKind::kTargetCap), nullptr);  // the dropped targets, listed apart
  EXPECT_TRUE(filament.loads);
  const EngineReport& bevy = engine(report, "bevy");
  const Hazard* refused = hazard(bevy, RuleKind::kTargetCapRefused);
  ASSERT_NE(refused, nullptr);
  EXPECT_TRUE(refused->refuses_load);
  EXPECT_FALSE(bevy.loads);
  ASSERT_TRUE(refused->measured);
  EXPECT_NEAR(refused->deviation.position, 0.5, 1e-6);  // had targets 64.. been dropped
  // 64 targets: within both caps.
  const CheckReport within = check(manyTargets(64));
  EXPECT_TRUE(engine(within, "bevy").loads);
  EXPECT_FALSE(rule(engine(within, "filament"), RuleKind::kTargetCap).applies);
}

TEST(Check, TangentAndColorTargetsAreIgnoredWhereTheEngineSaysSo) {
  Crafted c;
  const uint32_t pos = c.floats(kTriangle, "VEC3", true), nrm = c.floats(kUp, "VEC3");
  const uint32_t tan = c.floats({1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}, "VEC4");
  const uint32_t color = c.floats({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, "VEC4");
  const uint32_t dt = c.floats({0, 1, 0, 0, 1, 0, 0, 1, 0}, "VEC3");
  const uint32_t dc = c.floats({-0.5f, 0, 0, 0, -0.5f, 0, 0, 0, -0.5f, 0, 0, 0}, "VEC4");
  const Asset asset =
      c.load("\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":" + std::to_string(pos) + ",\"NORMAL\":" +
             std::to_string(nrm) + ",\"TANGENT\":" + std::to_string(tan) + ",\"COLOR_0\":" + std::to_string(color) +
             "},\"targets\":[{\"TANGENT\":" + std::to_string(dt) + ",\"COLOR_0\":" + std::to_string(dc) +
             "}]}],\"weights\":[1]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]");
  const CheckReport report = check(asset);
  // three.js: tangent (1,0,0) stays instead of (1,1,0)/sqrt2: 45 degrees; COLOR_0 is morphed.
  const RuleReport& three = rule(engine(report, "three"), RuleKind::kIgnoredDeltas);
  ASSERT_TRUE(three.applies);
  EXPECT_NEAR(three.deviation.tangent_degrees, 45.0, 1e-4);
  EXPECT_EQ(three.deviation.attribute, 0.0);
  EXPECT_EQ(three.deviation.position, 0.0);
  // Godot and Bevy: colors are not morphed (red stays 1 instead of 0.5); tangents are.
  for (std::string_view name : {"godot", "bevy"}) {
    SCOPED_TRACE(name);
    const RuleReport& r = rule(engine(report, name), RuleKind::kIgnoredDeltas);
    ASSERT_TRUE(r.applies);
    EXPECT_NEAR(r.deviation.attribute, 0.5, 1e-6);
    EXPECT_EQ(r.deviation.tangent_degrees, 0.0);
  }
  // Filament refuses a primitive with COLOR targets.
  const Hazard* refused = hazard(engine(report, "filament"), RuleKind::kTargetAttrsRefused);
  ASSERT_NE(refused, nullptr);
  EXPECT_TRUE(refused->refuses_load);
  EXPECT_FALSE(engine(report, "filament").loads);
}

TEST(Check, EveryRuleOffIsTheGltfPose) {
  EXPECT_FALSE(EngineRules{}.any());
  DemoOptions demo;
  demo.vertices = 500;
  demo.targets = 12;
  const Asset asset = test::validated(makeDemoAsset(demo));
  Expected<PosePrepared> prepared = preparePose(asset);
  ASSERT_TRUE(prepared);
  PoseOptions plain;
  plain.animation = prepared->animations.empty() ? kNone : 0;
  plain.time = 0.4;
  PoseOptions ruled = plain;
  ruled.rules.min_weight = 0.0f;  // still off: the same pose, bit for bit
  Expected<PoseResult> a = evaluatePose(*prepared, plain), b = evaluatePose(*prepared, ruled);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->meshes.at(0).positions, b->meshes.at(0).positions);
  EXPECT_EQ(a->meshes.at(0).normals, b->meshes.at(0).normals);
}

TEST(Check, ReportJsonSaysNullForWhatWasNotMeasured) {
  const CheckReport report = check(partialTargets());
  const std::string json = checkReportJson(report);
  EXPECT_NE(json.find("\"name\": \"three\""), std::string::npos);
  EXPECT_NE(json.find("\"position_mm\": 250"), std::string::npos) << json.substr(0, 2000);
  EXPECT_NE(json.find("\"deviation\": null"), std::string::npos);  // a rule that does not apply
}

}  // namespace
}  // namespace morphkit

namespace morphkit {
namespace {

// On every shared model: a rule that does not apply is never measured, an engine none of whose geometric rules
// apply has no deviation, and whatever differs comes from a rule that applies.
TEST(Check, SharedModelsReportDeviationsOnlyWhereARuleApplies) {
  MORPHKIT_REQUIRE_SHARED();
  size_t differing = 0;
  for (const std::filesystem::path& file : test::sharedModelFiles()) {
    SCOPED_TRACE(file.string());
    Expected<Asset> asset = loadAsset(file);
    ASSERT_TRUE(asset) << asset.error().message;
    const CheckReport report = check(*asset, 3);
    EXPECT_GE(report.frames, 1u);
    for (const EngineReport& e : report.engines) {
      bool geometric = false;
      for (const RuleReport& r : e.rules) {
        EXPECT_TRUE(r.applies || !r.measured) << ruleId(r.rule->kind);
        geometric = geometric || (r.applies && isGeometricRule(r.rule->kind));
        if (r.measured && r.deviation.frames_differing > 0) ++differing;
      }
      EXPECT_EQ(e.measured, geometric) << e.profile->name;
    }
  }
  EXPECT_GT(differing, 0u);  // SkinMorphEdgeCases has targets without POSITION/NORMAL, among others
}

// gltfpack -cc's output requires EXT_meshopt_compression and KHR_mesh_quantization: an engine whose decoder table
// (morphkit/model/runtimes.h) says it cannot decode one has a hazard that refuses the load and says what shows;
// three.js and Filament decode both, so they have none.
TEST(Check, AnExtensionAnEngineCannotDecodeIsAHazard) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> asset = loadAsset(test::sharedDir() / "field/assets/MorphSkinBlob52_meshopt.glb");
  ASSERT_TRUE(asset) << asset.error().message;
  ASSERT_TRUE(std::ranges::count(asset->extensions_required, "EXT_meshopt_compression"));
  const CheckReport report = check(*asset, 2);
  auto meshopt = [&](std::string_view name) -> const Hazard* {
    for (const Hazard& h : engine(report, name).hazards) {
      if (h.rule->kind == RuleKind::kUnsupportedExtension && h.rule->extension == "EXT_meshopt_compression") return &h;
    }
    return nullptr;
  };
  for (std::string_view name : {"playcanvas", "univrm", "godot"}) {
    SCOPED_TRACE(name);
    const Hazard* h = meshopt(name);
    ASSERT_NE(h, nullptr);
    EXPECT_TRUE(h->refuses_load);
    EXPECT_FALSE(engine(report, name).loads);
    EXPECT_EQ(h->message.rfind("EXT_meshopt_compression is required and ", 0), 0u) << h->message;
  }
  EXPECT_NE(meshopt("playcanvas")->message.find("broken geometry or a failed load"), std::string::npos);
  for (std::string_view name : {"three", "babylon", "filament"}) {
    EXPECT_EQ(meshopt(name), nullptr) << name;
    EXPECT_TRUE(engine(report, name).loads) << name;
  }
  EXPECT_NE(checkReportJson(report).find("\"id\": \"unsupported-extension\""), std::string::npos);
  // The same file decoded and written plain (no extension) has no such hazard anywhere.
  Asset plain = *asset;
  plain.extensions_used.clear();
  plain.extensions_required.clear();
  for (const EngineReport& e : check(plain, 2).engines) EXPECT_EQ(hazard(e, RuleKind::kUnsupportedExtension), nullptr);
}

}  // namespace
}  // namespace morphkit
