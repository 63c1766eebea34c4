// SPDX-License-Identifier: MIT
// Tests for morphkit/core/weights.h: the target-name lookup, weight overrides and weight tracks in PoseOptions
// (CPU reference and fast paths), and baking a track into a glTF animation. The GPU path and the renderer are
// checked against these CPU results in tests/vk/vk_capture_test.cpp.
#include "morphkit/core/weights.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/core/pose.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/gltf.h"

namespace morphkit {
namespace {

// The demo head (4 targets: eyeBlinkLeft, eyeLookDownLeft, eyeLookInLeft, eyeLookOutLeft) plus two more meshes
// on their own rigid nodes: "Teeth" shares the head's geometry with the same names in reverse order (so one
// name means a different index there), "Plain" has targets but no names.
Asset multiMeshAsset() {
  Expected<Asset> demo = makeDemoAsset({.targets = 4, .vertices = 200, .bones = 2});
  EXPECT_TRUE(demo.ok()) << demo.error().message;
  Asset asset = std::move(*demo);
  Mesh teeth = asset.meshes[0];
  teeth.name = "Teeth";
  std::reverse(teeth.target_names.begin(), teeth.target_names.end());
  Mesh plain = asset.meshes[0];
  plain.name = "Plain";
  plain.target_names.clear();
  for (Mesh* mesh : {&teeth, &plain}) {
    Node node;
    node.name = mesh->name;
    node.mesh = uint32_t(asset.meshes.size());
    node.translation = {0.5f * float(asset.meshes.size()), 0, 0};
    asset.meshes.push_back(std::move(*mesh));
    asset.scenes[0].nodes.push_back(uint32_t(asset.nodes.size()));
    asset.nodes.push_back(std::move(node));
  }
  return test::validated(std::move(asset));
}

uint32_t nodeOfMesh(const Asset& asset, uint32_t mesh) {
  for (uint32_t n = 0; n < asset.nodes.size(); ++n) {
    if (asset.nodes[n].mesh == mesh) return n;
  }
  return kNone;
}

PoseResult poseOrDie(const Asset& asset, const PoseOptions& options) {
  Expected<PoseResult> pose = poseAsset(asset, kNone, options);
  EXPECT_TRUE(pose.ok()) << pose.error().message;
  return pose ? std::move(*pose) : PoseResult{};
}

const PosedPrimitive* posedMesh(const PoseResult& pose, uint32_t mesh) {
  for (const PosedPrimitive& m : pose.meshes) {
    if (m.mesh == mesh) return &m;
  }
  return nullptr;
}

void expectSamePose(const PoseResult& a, const PoseResult& b, const std::string& what) {
  ASSERT_EQ(a.meshes.size(), b.meshes.size()) << what;
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    EXPECT_EQ(a.meshes[m].weights, b.meshes[m].weights) << what << " mesh entry " << m;
    EXPECT_EQ(a.meshes[m].positions, b.meshes[m].positions) << what << " mesh entry " << m;
    EXPECT_EQ(a.meshes[m].normals, b.meshes[m].normals) << what << " mesh entry " << m;
  }
}

WeightTrack twoRowTrack() {
  WeightTrack track;
  track.names = {"eyeBlinkLeft", "eyeLookInLeft"};
  track.keys.interpolation = Interpolation::kLinear;
  track.keys.components = 2;
  track.keys.times = {0.0f, 1.0f, 3.0f};
  track.keys.values = {0.0f, 1.0f,    // t = 0
                       1.0f, 0.5f,    // t = 1
                       0.5f, -0.5f};  // t = 3
  return track;
}

TEST(TargetNames, OneNameFindsEveryMeshCarryingIt) {
  const Asset asset = multiMeshAsset();
  EXPECT_EQ(findTargetsByName(asset, "eyeBlinkLeft"), (std::vector<TargetRef>{{0, 0}, {1, 3}}));
  EXPECT_EQ(findTargetsByName(asset, "eyeLookInLeft"), (std::vector<TargetRef>{{0, 2}, {1, 1}}));
  EXPECT_TRUE(findTargetsByName(asset, "jawOpen").empty());  // a name of the 52 that this 4-target head lacks
  EXPECT_TRUE(findTargetsByName(asset, "").empty());
}

TEST(TargetNames, ExactByDefaultCaseInsensitiveOnRequest) {
  const Asset asset = multiMeshAsset();
  EXPECT_TRUE(findTargetsByName(asset, "EyeBlinkLeft").empty());
  EXPECT_TRUE(findTargetsByName(asset, "eyeblinkleft", NameMatch::kExact).empty());
  EXPECT_EQ(findTargetsByName(asset, "EyeBlinkLeft", NameMatch::kCaseInsensitive),
            (std::vector<TargetRef>{{0, 0}, {1, 3}}));
  EXPECT_EQ(findTargetsByName(asset, "EYEBLINKLEFT", NameMatch::kCaseInsensitive).size(), 2u);
  EXPECT_TRUE(findTargetsByName(asset, "EyeBlinkLef", NameMatch::kCaseInsensitive).empty());
  EXPECT_TRUE(namesMatch("JawOpen", "jawOpen", NameMatch::kCaseInsensitive));
  EXPECT_FALSE(namesMatch("JawOpen", "jawOpen", NameMatch::kExact));
}

TEST(TargetNames, NamesBeyondTheTargetCountNameNothing) {
  Asset asset = multiMeshAsset();
  asset.meshes[0].target_names.push_back("ghost");  // 5 names for 4 targets: extras are not validated
  asset = test::validated(std::move(asset));
  EXPECT_TRUE(findTargetsByName(asset, "ghost").empty());
  const std::vector<std::string> names = targetNameList(asset);
  EXPECT_EQ(names, (std::vector<std::string>{"eyeBlinkLeft", "eyeLookDownLeft", "eyeLookInLeft", "eyeLookOutLeft"}));
}

TEST(TargetNames, ClosestNamesForMessages) {
  const Asset asset = multiMeshAsset();
  EXPECT_EQ(closestTargetNames(asset, "eyeBlinkLft", 1), (std::vector<std::string>{"eyeBlinkLeft"}));
  EXPECT_EQ(closestTargetNames(asset, "EYELOOKINLEFT", 1), (std::vector<std::string>{"eyeLookInLeft"}));
  EXPECT_EQ(closestTargetNames(asset, "x", 10).size(), 4u);
}

TEST(WeightOverrides, ByNameDrivesEveryMeshCarryingIt) {
  const Asset asset = multiMeshAsset();
  const std::vector<WeightOverride> overrides = {{.name = "eyeBlinkLeft", .value = 0.75f},
                                                 {.name = "eyeLookOutLeft", .value = -0.5f}};
  PoseOptions options;
  options.weights.overrides = overrides;
  const PoseResult driven = poseOrDie(asset, options);

  // The same weights set by hand on the nodes (the way a user had to do it before): identical vertices.
  Asset by_hand = asset;
  by_hand.nodes[nodeOfMesh(asset, 0)].weights = {0.75f, 0, 0, -0.5f};
  by_hand.nodes[nodeOfMesh(asset, 1)].weights = {-0.5f, 0, 0, 0.75f};  // names reversed on "Teeth"
  by_hand = test::validated(std::move(by_hand));
  const PoseResult expected = poseOrDie(by_hand, {});
  expectSamePose(driven, expected, "overrides vs node.weights");
  EXPECT_EQ(posedMesh(driven, 2)->weights, (std::vector<float>{0, 0, 0, 0}));  // "Plain" has no names
  // And something moved: the rest pose differs.
  EXPECT_NE(posedMesh(driven, 0)->positions, posedMesh(poseOrDie(asset, {}), 0)->positions);
}

TEST(WeightOverrides, ByIndexInEveryMeshOrInOne) {
  const Asset asset = multiMeshAsset();
  std::vector<WeightOverride> overrides = {{.target = 1, .value = 0.5f}, {.target = 2, .mesh = 2, .value = 0.25f}};
  PoseOptions options;
  options.weights.overrides = overrides;
  const PoseResult pose = poseOrDie(asset, options);
  EXPECT_EQ(posedMesh(pose, 0)->weights, (std::vector<float>{0, 0.5f, 0, 0}));
  EXPECT_EQ(posedMesh(pose, 1)->weights, (std::vector<float>{0, 0.5f, 0, 0}));
  EXPECT_EQ(posedMesh(pose, 2)->weights, (std::vector<float>{0, 0.5f, 0.25f, 0}));

  EXPECT_FALSE(resolveOverride(asset, {.target = 4}).ok());
  EXPECT_FALSE(resolveOverride(asset, {.target = 0, .mesh = 3}).ok());
  EXPECT_FALSE(resolveOverride(asset, {.target = 7, .mesh = 0}).ok());
  EXPECT_FALSE(resolveOverride(asset, {}).ok());
}

TEST(WeightOverrides, UnknownNameFailsWithTheClosestNames) {
  const Asset asset = multiMeshAsset();
  const std::vector<WeightOverride> overrides = {{.name = "eyeBlinkLft", .value = 1}};
  PoseOptions options;
  options.weights.overrides = overrides;
  Expected<PoseResult> pose = poseAsset(asset, kNone, options);
  ASSERT_FALSE(pose.ok());
  EXPECT_EQ(pose.error().code, Error::kInvalidArgument);
  EXPECT_NE(pose.error().message.find("no target named 'eyeBlinkLft' (closest: eyeBlinkLeft"), std::string::npos)
      << pose.error().message;
}

TEST(WeightOverrides, ApplyOnTopOfTheAnimationAndLaterOnesWin) {
  const Asset asset = multiMeshAsset();
  Expected<PosePrepared> prepared = preparePose(asset);
  ASSERT_TRUE(prepared.ok());
  for (uint32_t a = 0; a < asset.animations.size(); ++a) {
    PoseOptions options;
    options.animation = a;
    options.time = 0.6;
    Expected<PoseResult> animated = evaluatePose(*prepared, options);
    ASSERT_TRUE(animated.ok());
    const std::vector<WeightOverride> overrides = {{.name = "eyeLookDownLeft", .value = 0.25f},
                                                   {.name = "eyeLookDownLeft", .value = 0.9f}};
    options.weights.overrides = overrides;
    Expected<PoseResult> driven = evaluatePose(*prepared, options);
    ASSERT_TRUE(driven.ok());
    std::vector<float> expected = posedMesh(*animated, 0)->weights;
    expected[1] = 0.9f;
    EXPECT_EQ(posedMesh(*driven, 0)->weights, expected) << asset.animations[a].name;
  }
}

TEST(WeightTrack, SamplesLinearBetweenRowsAndHoldsTheEnds) {
  const Asset asset = multiMeshAsset();
  const WeightTrack track = twoRowTrack();
  ASSERT_TRUE(checkWeightTrack(track).ok());
  EXPECT_EQ(weightTrackDuration(track), 3.0);
  struct Case {
    double time;
    float blink, look_in;
  };
  for (const Case& c : {Case{-1.0, 0.0f, 1.0f}, Case{0.0, 0.0f, 1.0f}, Case{0.25, 0.25f, 0.875f}, Case{1.0, 1.0f, 0.5f},
                        Case{2.0, 0.75f, 0.0f}, Case{3.0, 0.5f, -0.5f}, Case{9.0, 0.5f, -0.5f}}) {
    PoseOptions options;
    options.time = c.time;
    options.weights.track = &track;
    const PoseResult pose = poseOrDie(asset, options);
    EXPECT_EQ(posedMesh(pose, 0)->weights, (std::vector<float>{c.blink, 0, c.look_in, 0})) << "t=" << c.time;
    EXPECT_EQ(posedMesh(pose, 1)->weights, (std::vector<float>{0, c.look_in, 0, c.blink})) << "t=" << c.time;
  }
}

TEST(WeightTrack, SequentialPlaybackWithACursorEqualsRandomAccess) {
  const Asset asset = multiMeshAsset();
  const WeightTrack track = twoRowTrack();
  Expected<PosePrepared> prepared = preparePose(asset);
  ASSERT_TRUE(prepared.ok());
  SamplingContext sampling;
  for (double t = 0.0; t < 3.5; t += 0.1) {
    PoseOptions options;
    options.time = t;
    options.weights.track = &track;
    Expected<PoseResult> random = evaluatePose(*prepared, options);
    options.sampling = &sampling;
    Expected<PoseResult> sequential = evaluatePose(*prepared, options);
    ASSERT_TRUE(random.ok() && sequential.ok());
    EXPECT_EQ(random->meshes[0].weights, sequential->meshes[0].weights) << t;
  }
}

TEST(WeightTrack, OverridesWinOverTheTrackAndUnknownColumnsAreIgnored) {
  const Asset asset = multiMeshAsset();
  WeightTrack track = twoRowTrack();
  track.names[1] = "notATarget";
  const std::vector<WeightOverride> overrides = {{.name = "eyeBlinkLeft", .value = 0.125f}};
  PoseOptions options;
  options.time = 1.0;
  options.weights.track = &track;
  options.weights.overrides = overrides;
  EXPECT_EQ(posedMesh(poseOrDie(asset, options), 0)->weights, (std::vector<float>{0.125f, 0, 0, 0}));
}

TEST(WeightTrack, CheckRefusesEachBrokenInput) {
  ASSERT_TRUE(checkWeightTrack(twoRowTrack()).ok());
  auto broken = [](auto edit) {
    WeightTrack track = twoRowTrack();
    edit(track);
    return !checkWeightTrack(track).ok();
  };
  EXPECT_TRUE(broken([](WeightTrack& t) { t.names.clear(); }));
  EXPECT_TRUE(broken([](WeightTrack& t) { t.keys.interpolation = Interpolation::kStep; }));
  EXPECT_TRUE(broken([](WeightTrack& t) { t.keys.components = 3; }));
  EXPECT_TRUE(broken([](WeightTrack& t) { t.keys.times.clear(); }));
  EXPECT_TRUE(broken([](WeightTrack& t) { t.keys.values.pop_back(); }));
  EXPECT_TRUE(broken([](WeightTrack& t) { t.keys.times[2] = 1.0f; }));  // not strictly increasing
  EXPECT_TRUE(broken([](WeightTrack& t) { t.keys.times[1] = NAN; }));
  EXPECT_TRUE(broken([](WeightTrack& t) { t.keys.values[3] = INFINITY; }));
  // A pose with a broken track fails instead of reading out of bounds.
  const Asset asset = multiMeshAsset();
  WeightTrack track = twoRowTrack();
  track.keys.values.pop_back();
  PoseOptions options;
  options.weights.track = &track;
  EXPECT_FALSE(poseAsset(asset, kNone, options).ok());
}

TEST(WeightTrack, FastPathEqualsReference) {
  const Asset asset = multiMeshAsset();
  const WeightTrack track = twoRowTrack();
  for (double t : {0.3, 1.7}) {
    PoseOptions options;
    options.time = t;
    options.weights.track = &track;
    const PoseResult reference = poseOrDie(asset, options);
    options.path = CpuPath::kFast;
    const PoseResult fast = poseOrDie(asset, options);
    ASSERT_EQ(reference.meshes.size(), fast.meshes.size());
    for (size_t m = 0; m < fast.meshes.size(); ++m) {
      EXPECT_EQ(reference.meshes[m].weights, fast.meshes[m].weights);
      for (size_t i = 0; i < fast.meshes[m].positions.size(); ++i) {
        ASSERT_NEAR(reference.meshes[m].positions[i], fast.meshes[m].positions[i], 1e-5f)
            << "t=" << t << " value " << i;
      }
    }
  }
}

TEST(WeightTrack, MatchReportsColumnsAndUndrivenTargets) {
  const Asset asset = multiMeshAsset();
  WeightTrack track = twoRowTrack();
  track.names[1] = "unknownShape";
  const TrackMatch match = matchWeightTrack(asset, track, NameMatch::kExact);
  ASSERT_EQ(match.columns.size(), 2u);
  EXPECT_EQ(match.columns[0], (std::vector<TargetRef>{{0, 0}, {1, 3}}));
  EXPECT_TRUE(match.columns[1].empty());
  EXPECT_EQ(match.unmatched_targets, (std::vector<std::string>{"eyeLookDownLeft", "eyeLookInLeft", "eyeLookOutLeft"}));
}

TEST(BakeWeightTrack, TheBakedAnimationPosesLikeTheTrack) {
  Asset asset = multiMeshAsset();
  asset.nodes[nodeOfMesh(asset, 1)].weights = {0.1f, 0.2f, 0.3f, 0.4f};  // static weights of undriven targets stay
  asset = test::validated(std::move(asset));
  const WeightTrack track = twoRowTrack();
  const size_t animations = asset.animations.size();
  Asset baked = asset;
  Expected<uint32_t> index = bakeWeightTrack(baked, track, "capture", NameMatch::kExact);
  ASSERT_TRUE(index.ok()) << index.error().message;
  EXPECT_EQ(*index, animations);
  ASSERT_EQ(baked.animations.size(), animations + 1);
  for (size_t a = 0; a < animations; ++a) EXPECT_EQ(baked.animations[a].name, asset.animations[a].name);
  const Animation& animation = baked.animations[*index];
  EXPECT_EQ(animation.name, "capture");
  ASSERT_EQ(animation.channels.size(), 2u);  // head and teeth; "Plain" carries no driven name
  for (const AnimationChannel& channel : animation.channels) {
    EXPECT_EQ(channel.path, TargetPath::kWeights);
    EXPECT_EQ(animation.samplers[channel.sampler].interpolation, Interpolation::kLinear);
  }
  ASSERT_TRUE(validateAsset(baked).ok()) << validateAsset(baked).error().message;

  for (double t : {0.0, 0.4, 1.0, 2.2, 3.0, 4.0}) {
    PoseOptions with_track;
    with_track.time = t;
    with_track.weights.track = &track;
    PoseOptions with_animation;
    with_animation.time = t;
    with_animation.animation = *index;
    expectSamePose(poseOrDie(baked, with_animation), poseOrDie(asset, with_track), "t=" + std::to_string(t));
  }
  PoseOptions at_one;
  at_one.time = 1.0;
  at_one.animation = *index;
  EXPECT_EQ(posedMesh(poseOrDie(baked, at_one), 1)->weights, (std::vector<float>{0.1f, 0.5f, 0.3f, 1.0f}));
}

TEST(BakeWeightTrack, RefusesATakenNameABadTrackAndATrackDrivingNothing) {
  Asset asset = multiMeshAsset();
  const WeightTrack track = twoRowTrack();
  EXPECT_FALSE(bakeWeightTrack(asset, track, asset.animations[0].name, NameMatch::kExact).ok());
  WeightTrack nothing = track;
  nothing.names = {"a", "b"};
  EXPECT_FALSE(bakeWeightTrack(asset, nothing, "capture", NameMatch::kExact).ok());
  WeightTrack bad = track;
  bad.keys.times[1] = 0.0f;
  EXPECT_FALSE(bakeWeightTrack(asset, bad, "capture", NameMatch::kExact).ok());
  const Asset untouched = multiMeshAsset();
  EXPECT_EQ(asset.animations.size(), untouched.animations.size());  // nothing half-added
  EXPECT_EQ(asset.accessors.size(), untouched.accessors.size());
  EXPECT_EQ(asset.buffers[0].data.size(), untouched.buffers[0].data.size());
}

}  // namespace
}  // namespace morphkit
