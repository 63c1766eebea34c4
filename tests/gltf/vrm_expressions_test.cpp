// SPDX-License-Identifier: MIT
// VRM avatars' expressions: VRMC_vrm 1.0 and VRM 0.x read and written (src/gltf/vrm_expressions.cpp), driven by
// value (src/core/expressions.cpp: isBinary and the override rules) from --weights and from captures mapped with
// arkit-to-vrm, listed by inspect; bad binds refused. Expected weights are computed here by hand from the demo's
// expression table (docs/FACE_CAPTURE.md), not through the code under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "bad_input_support.h"
#include "morphkit/core/expressions.h"
#include "morphkit/core/pose.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/io/capture.h"

namespace morphkit {
namespace {

Asset demoAvatar(bool vrm0) {
  Asset demo = test::validated(makeDemoAsset({.targets = 52, .vertices = 300, .bones = 3}));
  addDemoExpressions(demo, vrm0);
  Expected<std::vector<uint8_t>> glb = writeGlb(test::validated(std::move(demo)));
  EXPECT_TRUE(glb) << glb.error().message;
  Expected<Asset> loaded = loadAssetFromMemory(*glb, ".");
  EXPECT_TRUE(loaded) << loaded.error().message;
  return loaded ? std::move(*loaded) : Asset{};
}

// The pose's weights of the head (mesh 0) by target name, with `inputs` applied at rest.
std::map<std::string, float> posedWeights(const Asset& asset, const WeightInputs& inputs, double time = 0.0) {
  PoseOptions options;
  options.weights = inputs;
  options.time = time;
  Expected<PoseResult> pose = poseAsset(asset, kNone, options);
  EXPECT_TRUE(pose) << pose.error().message;
  std::map<std::string, float> out;
  if (!pose) return out;
  const Mesh& mesh = asset.meshes[0];
  for (size_t t = 0; t < pose->meshes[0].weights.size(); ++t) out[mesh.target_names[t]] = pose->meshes[0].weights[t];
  return out;
}

std::map<std::string, float> withExpressions(const Asset& asset, std::map<std::string, float> values) {
  std::vector<ExpressionValue> given;
  for (const auto& [name, value] : values) {
    const uint32_t e = findExpression(asset, name);
    EXPECT_NE(e, kNone) << name;
    if (e != kNone) given.push_back({e, value});
  }
  Expected<std::vector<WeightOverride>> weights = expressionWeights(asset, given);
  EXPECT_TRUE(weights) << weights.error().message;
  if (!weights) return {};
  WeightInputs inputs;
  inputs.overrides = *weights;
  return posedWeights(asset, inputs);
}

float nonZeroCount(const std::map<std::string, float>& weights) {
  return float(std::count_if(weights.begin(), weights.end(), [](const auto& w) { return w.second != 0.0f; }));
}

TEST(VrmExpressions, ReadAndWrittenBackInBothVersions) {
  for (bool vrm0 : {false, true}) {
    Asset avatar = demoAvatar(vrm0);
    EXPECT_EQ(avatar.vrm.version, vrm0 ? "0.x" : "1.0");
    ASSERT_EQ(avatar.vrm.expressions.size(), 19u);
    const Expression& happy = avatar.vrm.expressions[findExpression(avatar, "happy")];
    EXPECT_TRUE(happy.preset);
    ASSERT_EQ(happy.binds.size(), 4u);
    EXPECT_EQ(happy.binds[2].weight, 0.5f);  // 0.x: 50 of 100
    EXPECT_EQ(avatar.meshes[0].target_names[happy.binds[0].index], "mouthSmileLeft");
    EXPECT_EQ(vrm0 ? happy.binds[0].mesh : happy.binds[0].node, 0u);
    EXPECT_EQ(happy.override_blink, vrm0 ? ExpressionOverride::kNoOverride : ExpressionOverride::kBlend);
    const Expression& surprised = avatar.vrm.expressions[findExpression(avatar, "surprised")];
    EXPECT_TRUE(surprised.is_binary);
    EXPECT_EQ(surprised.preset, !vrm0);  // no 0.x preset: a custom group there
    EXPECT_FALSE(avatar.vrm.expressions[findExpression(avatar, "smirk")].preset);
  }
}

// --weights by expression name, against the demo's table: happy = smiles 1 + cheek squints 0.5; aa = jawOpen.
TEST(VrmExpressions, WeightsByNameAreTheBindWeights) {
  for (bool vrm0 : {false, true}) {
    Asset avatar = demoAvatar(vrm0);
    std::map<std::string, float> w = withExpressions(avatar, {{"happy", 1.0f}, {"aa", 0.6f}});
    EXPECT_EQ(w["mouthSmileLeft"], 1.0f);
    EXPECT_EQ(w["mouthSmileRight"], 1.0f);
    EXPECT_EQ(w["cheekSquintLeft"], 0.5f);
    EXPECT_EQ(w["jawOpen"], 0.6f);
    EXPECT_EQ(nonZeroCount(w), 5.0f);
    // Binds add: happy 0.5 and relaxed 1 both bind mouthSmileLeft (1 and 0.3): 0.5 + 0.3.
    w = withExpressions(avatar, {{"happy", 0.5f}, {"relaxed", 1.0f}});
    EXPECT_FLOAT_EQ(w["mouthSmileLeft"], 0.8f);
    EXPECT_FLOAT_EQ(w["eyeSquintLeft"], 0.6f);
    // Values are clamped to [0, 1].
    EXPECT_EQ(withExpressions(avatar, {{"aa", 3.0f}})["jawOpen"], 1.0f);
    EXPECT_EQ(withExpressions(avatar, {{"aa", -1.0f}})["jawOpen"], 0.0f);
  }
}

// The VRM 1.0 override rules (the demo: happy overrideBlink blend, angry isBinary with overrideBlink block,
// surprised isBinary with overrideMouth block). VRM 0.x has no overrides: blink plays whatever else is on.
TEST(VrmExpressions, OverridesAndIsBinaryFollowTheSpecification) {
  Asset avatar = demoAvatar(false);
  EXPECT_EQ(withExpressions(avatar, {{"blink", 1.0f}, {"happy", 1.0f}})["eyeBlinkLeft"], 0.0f);        // blend 1
  EXPECT_FLOAT_EQ(withExpressions(avatar, {{"blink", 1.0f}, {"happy", 0.4f}})["eyeBlinkLeft"], 0.6f);  // 1 - 0.4
  EXPECT_EQ(withExpressions(avatar, {{"blink", 1.0f}, {"angry", 0.6f}})["eyeBlinkLeft"], 0.0f);  // binary 1: block
  EXPECT_EQ(withExpressions(avatar, {{"blink", 1.0f}, {"angry", 0.4f}})["eyeBlinkLeft"], 1.0f);  // binary 0: none
  // happy 0.7 blend + angry block: the effect saturates at 1.
  EXPECT_EQ(withExpressions(avatar, {{"blinkLeft", 0.8f}, {"happy", 0.7f}, {"angry", 0.9f}})["eyeBlinkLeft"], 0.0f);
  // surprised 0.6 is binary 1: its binds at full weight, lip sync (aa) blocked; at 0.4 it is 0 and blocks nothing.
  std::map<std::string, float> w = withExpressions(avatar, {{"surprised", 0.6f}, {"aa", 1.0f}});
  EXPECT_EQ(w["eyeWideLeft"], 1.0f);
  EXPECT_FLOAT_EQ(w["jawOpen"], 0.4f);
  w = withExpressions(avatar, {{"surprised", 0.4f}, {"aa", 1.0f}});
  EXPECT_EQ(w["eyeWideLeft"], 0.0f);
  EXPECT_EQ(w["jawOpen"], 1.0f);
  // A custom expression overrides like a preset: smirk (overrideMouth blend) attenuates aa.
  EXPECT_FLOAT_EQ(withExpressions(avatar, {{"smirk", 0.25f}, {"aa", 1.0f}})["jawOpen"], 0.75f);
  // An override of the expression's own group is ignored: blinkLeft made to block blinks leaves blink alone.
  avatar.vrm.expressions[findExpression(avatar, "blinkLeft")].override_blink = ExpressionOverride::kBlock;
  EXPECT_EQ(withExpressions(avatar, {{"blink", 1.0f}, {"blinkLeft", 1.0f}})["eyeBlinkRight"], 1.0f);
  // An overridden isBinary expression is suppressed by any effect: blink made binary, happy 0.3 blends it.
  avatar.vrm.expressions[findExpression(avatar, "blink")].is_binary = true;
  EXPECT_EQ(withExpressions(avatar, {{"blink", 1.0f}, {"happy", 0.3f}})["eyeBlinkLeft"], 0.0f);
  EXPECT_EQ(withExpressions(avatar, {{"blink", 0.7f}})["eyeBlinkLeft"], 1.0f);
  Asset old = demoAvatar(true);
  EXPECT_EQ(withExpressions(old, {{"blink", 1.0f}, {"happy", 1.0f}})["eyeBlinkLeft"], 1.0f);
}

// A capture through --map arkit-to-vrm drives the expressions row by row; checked at row times against the
// table by hand: blinkLeft = eyeBlinkLeft x (1 - saturate(happy + (angry > 0.5))), happy = 0.5 smiles.
TEST(VrmExpressions, CaptureMappedIntoExpressions) {
  Asset avatar = demoAvatar(false);
  Expected<std::string> text = makeDemoCapture({.seconds = 4.0});
  ASSERT_TRUE(text);
  Expected<Capture> capture = parseCaptureCsv(*text);
  ASSERT_TRUE(capture) << capture.error().message;
  const CaptureMatch match = matchCapture(avatar, *capture, builtinCaptureMap("arkit-to-vrm"));
  ASSERT_FALSE(match.track.names.empty());
  EXPECT_FALSE(match.track.column_targets.empty());
  auto column = [&](const char* name) {
    const auto it = std::find(capture->columns.begin(), capture->columns.end(), name);
    EXPECT_NE(it, capture->columns.end()) << name;
    return size_t(it - capture->columns.begin());
  };
  const size_t columns = capture->columns.size();
  size_t blinks_seen = 0, attenuated = 0;
  for (size_t row = 0; row < capture->rows(); ++row) {
    auto value = [&](const char* name) { return capture->values[row * columns + column(name)]; };
    auto sat = [](float v) { return std::clamp(v, 0.0f, 1.0f); };
    const float happy = sat(0.5f * value("MouthSmileLeft") + 0.5f * value("MouthSmileRight"));
    const float angry = sat(0.5f * value("BrowDownLeft") + 0.5f * value("BrowDownRight"));
    const float blink_left = sat(value("EyeBlinkLeft")) * (1.0f - sat(happy + (angry > 0.5f ? 1.0f : 0.0f)));
    const bool surprised = sat(value("BrowInnerUp")) > 0.5f;
    const float aa = surprised ? 0.0f : sat(value("JawOpen"));
    const float oh = surprised ? 0.0f : sat(value("MouthFunnel"));
    WeightInputs inputs;
    inputs.track = &match.track;
    std::map<std::string, float> w = posedWeights(avatar, inputs, capture->times[row]);
    EXPECT_NEAR(w["eyeBlinkLeft"], blink_left, 1e-6f) << "row " << row;
    EXPECT_NEAR(w["mouthSmileLeft"], happy, 1e-6f) << "row " << row;
    EXPECT_NEAR(w["jawOpen"], aa + (surprised ? 0.4f : 0.0f) + 0.3f * oh, 1e-6f) << "row " << row;
    blinks_seen += blink_left > 0.2f;
    attenuated += value("EyeBlinkLeft") > 0.2f && blink_left < sat(value("EyeBlinkLeft")) - 0.01f;
  }
  // The rows exercise the rule: the eye closes, and a smile or frown attenuates or blocks a blink somewhere.
  EXPECT_GT(blinks_seen, 0u);
  EXPECT_GT(attenuated, 0u);
}

const std::string kHappyBind = "{\"node\":0,\"index\":0,\"weight\":1}";

std::string withVrm(const std::string& bind, bool vrm0 = false) {
  const std::string ext =
      vrm0 ? "\"VRM\":{\"blendShapeMaster\":{\"blendShapeGroups\":[{\"name\":\"Joy\",\"presetName\":\"joy\","
             "\"binds\":[" +
                 bind + "]}]}}"
           : "\"VRMC_vrm\":{\"specVersion\":\"1.0\",\"expressions\":{\"preset\":{\"happy\":{\"morphTargetBinds\":[" +
                 bind + "]}}}}";
  return mutateBase("\"scene\":0,", "\"scene\":0,\"extensions\":{" + ext + "},");
}

TEST(VrmExpressions, BadBindsAreRefused) {
  ASSERT_LOADED(test::loadJson(withVrm(kHappyBind)));
  ASSERT_LOADED(test::loadJson(withVrm("{\"mesh\":0,\"index\":0,\"weight\":100}", true)));
  // Named strings: EXPECT_FAILURE keeps const char* fragments past the full expression that made them.
  const std::string v1 = "extensions.VRMC_vrm.expressions.preset.happy.morphTargetBinds[0]";
  const std::string v1_node = v1 + ".node", v1_index = v1 + ".index";
  EXPECT_FAILURE(test::loadJson(withVrm("{\"node\":5,\"index\":0}")), Error::kInvalidGltf, v1_node.c_str(),
                 "node 5 is out of range (2 exist");
  EXPECT_FAILURE(test::loadJson(withVrm("{\"node\":1,\"index\":0}")), Error::kInvalidGltf, "node 1 has no mesh");
  EXPECT_FAILURE(test::loadJson(withVrm("{\"node\":0,\"index\":3}")), Error::kInvalidGltf, v1_index.c_str(),
                 "morph target 3 is out of range (mesh 0 has 1)");
  EXPECT_FAILURE(test::loadJson(withVrm("{\"node\":0,\"index\":0,\"weight\":1.5}")), Error::kInvalidGltf,
                 "weight: must be in [0, 1]");
  const std::string v0 = "extensions.VRM.blendShapeMaster.blendShapeGroups[0].binds[0]";
  const std::string v0_mesh = v0 + ".mesh", v0_index = v0 + ".index";
  EXPECT_FAILURE(test::loadJson(withVrm("{\"mesh\":2,\"index\":0}", true)), Error::kInvalidGltf, v0_mesh.c_str(),
                 "mesh 2 is out of range");
  EXPECT_FAILURE(test::loadJson(withVrm("{\"mesh\":0,\"index\":9}", true)), Error::kInvalidGltf, v0_index.c_str(),
                 "morph target 9");
  EXPECT_FAILURE(test::loadJson(withVrm("{\"mesh\":0,\"index\":0,\"weight\":101}", true)), Error::kInvalidGltf,
                 "must be in [0, 100]");
  EXPECT_FAILURE(test::loadJson(mutate(withVrm(kHappyBind), "\"preset\":{\"happy\"", "\"preset\":{\"grin\"")),
                 Error::kInvalidGltf, "preset.grin: is not a VRM 1.0 preset");
  EXPECT_FAILURE(test::loadJson(mutate(withVrm(kHappyBind), "\"preset\":{\"happy\"", "\"custom\":{\"happy\"")),
                 Error::kInvalidGltf, "MUST NOT take a preset's name");
  EXPECT_FAILURE(test::loadJson(mutate(withVrm(kHappyBind), "\"weight\":1}",
                                       "\"weight\":1}],\"overrideBlink\":"
                                       "\"soft\",\"x\":[")),
                 Error::kInvalidGltf, "'soft' is not none, block or blend");
}

// The CLI: make-demo --vrm / --vrm0, inspect's list, pose --weights by expression name, and a bad bind as one line.
TEST(VrmExpressions, Cli) {
  const std::filesystem::path dir = test::scratchDir();
  test::CliRun run = test::runMorphkit(dir, "make-demo face.vrm --vrm --vertices 300 --no-capture");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(test::runMorphkit(dir, "make-demo old.vrm --vrm0 --vertices 300 --no-capture").exit_code, 0);
  EXPECT_EQ(test::runMorphkit(dir, "make-demo x.vrm --vrm --vrm0").exit_code, 2);
  EXPECT_EQ(test::runMorphkit(dir, "make-demo x.vrm").exit_code, 2);  // .vrm only with VRM expressions
  run = test::runMorphkit(dir, "inspect face.vrm");
  EXPECT_NE(run.out.find("VRM 1.0 expressions:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("happy        preset  blink:blend  4 binds (node 0 target "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("surprised    preset  binary  mouth:block"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("VRMC_vrm (read)"), std::string::npos)
      << run.out;  // the registry's row, not "not implemented"
  run = test::runMorphkit(dir, "inspect --json old.vrm");
  EXPECT_NE(run.out.find("\"version\": \"0.x\""), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\"mesh\": 0"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\"VRM\": \"read\""), std::string::npos) << run.out;
  for (const char* file : {"face.vrm", "old.vrm"}) {
    run = test::runMorphkit(
        dir, std::string("pose ") + file + " --anim rest --weights happy=1,aa=0.6 --out - --format json");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    run = test::runMorphkit(dir, std::string("pose ") + file + " --anim rest --weights happy=1,aa=0.6");
    EXPECT_NE(run.out.find("mouthSmileLeft=1"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("jawOpen=0.6"), std::string::npos) << run.out;
  }
  test::writeText(dir / "bad.gltf", withVrm("{\"node\":0,\"index\":4}"));
  run = test::runMorphkit(dir, "pose bad.gltf");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "morphkit: error: bad.gltf: extensions.VRMC_vrm.expressions.preset.happy.morphTargetBinds[0]"
            ".index: morph target 4 is out of range (mesh 0 has 1)\n");
}

}  // namespace
}  // namespace morphkit
