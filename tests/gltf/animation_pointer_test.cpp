// SPDX-License-Identifier: MIT
// KHR_animation_pointer (src/gltf/animation_pointer.cpp, core decodeAnimation): morph-weight pointers pose like
// "weights" channels, their outputs convert as the extension says, bad pointers are one error, other pointers are
// listed and ignored with one warning.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "animation_pointer_support.h"
#include "bad_input_support.h"
#include "morphkit/core/animation.h"
#include "morphkit/core/pose.h"

namespace morphkit {
namespace {

const std::string kWeightsTarget = "{\"node\":0,\"path\":\"weights\"}";
const std::string kTranslationTarget = "{\"node\":1,\"path\":\"translation\"}";

std::string pointerTarget(const std::string& pointer) {
  return "{\"path\":\"pointer\",\"extensions\":{\"KHR_animation_pointer\":{\"pointer\":\"" + pointer + "\"}}}";
}

// The base asset (bad_input_support.h: one target, mesh weights [0.5], a weights channel 0 → 1 over 1 s) with
// its weights channel aimed by `pointer` instead.
std::string withPointer(const std::string& pointer) {
  return mutateBase(kWeightsTarget, pointerTarget(pointer));
}

float weightAt(const Asset& asset, double time) {
  PoseOptions options;
  options.animation = 0;
  options.time = time;
  Expected<PoseResult> pose = poseAsset(asset, kNone, options);
  EXPECT_TRUE(pose) << pose.error().message;
  if (!pose || pose->meshes.empty() || pose->meshes[0].weights.empty()) return -1.0f;
  return pose->meshes[0].weights[0];
}

size_t channelsWith(const Asset& asset, PointerTarget target) {
  size_t n = 0;
  for (const Animation& a : asset.animations)
    n += size_t(std::count_if(a.channels.begin(), a.channels.end(),
                              [&](const AnimationChannel& c) { return c.pointer.target == target; }));
  return n;
}

// The goal: the demo written with pointer channels (each of the three forms) poses like the demo written with
// "weights" channels, bit for bit, on both CPU paths, at times inside every clip. A loader that ignored the
// pointers would pose the pointer file's rest weights, which the plain file's clips leave (checked below).
TEST(AnimationPointer, PosesLikeWeightChannels) {
  test::PointerPair pair = test::pointerPair();
  ASSERT_EQ(pair.plain.animations.size(), 3u);
  ASSERT_EQ(pair.pointer.animations.size(), 3u);
  EXPECT_EQ(channelsWith(pair.pointer, PointerTarget::kNodeWeights), 1u);
  EXPECT_EQ(channelsWith(pair.pointer, PointerTarget::kMeshWeights), 1u);
  EXPECT_EQ(channelsWith(pair.pointer, PointerTarget::kNodeWeight), 12u);
  for (const Animation& a : pair.pointer.animations) {
    for (const AnimationChannel& c : a.channels) EXPECT_FALSE(c.node != kNone && c.path == TargetPath::kWeights);
  }
  for (uint32_t animation = 0; animation < 3; ++animation) {
    bool moved = false;
    for (double time : test::pointerPoseTimes()) {
      for (CpuPath path : {CpuPath::kReference, CpuPath::kFast}) {
        PoseOptions options;
        options.animation = animation;
        options.time = time;
        options.path = path;
        Expected<PoseResult> plain = poseAsset(pair.plain, kNone, options);
        Expected<PoseResult> pointer = poseAsset(pair.pointer, kNone, options);
        ASSERT_TRUE(plain) << plain.error().message;
        ASSERT_TRUE(pointer) << pointer.error().message;
        test::expectSamePositions(*plain, *pointer,
                                  "animation " + std::to_string(animation) + " t=" + std::to_string(time));
        for (float w : plain->meshes[0].weights) moved |= w != 0.0f;
      }
    }
    EXPECT_TRUE(moved) << "animation " << animation << " never leaves the rest weights: the test could not fail";
  }
}

// The extension's output rules: float as is, normalized integers by glTF 2.0 §3.11 (c / 65535 for UNSIGNED_SHORT),
// non-normalized integers as their value (1 → 1.0), which a core "weights" channel may not use.
TEST(AnimationPointer, IntegerOutputsConvertAsTheExtensionSays) {
  const std::string u16_output = "{\"bufferView\":1,\"componentType\":5123,\"count\":2,\"type\":\"SCALAR\"}";
  auto withOutput = [&](const std::string& accessor, const std::string& target) {
    std::string json =
        mutateBase("{\"bufferView\":8,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}]",
                   "{\"bufferView\":8,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}," + accessor + "]");
    json = mutate(json, "{\"input\":3,\"output\":4}", "{\"input\":3,\"output\":9}");
    return mutate(json, kWeightsTarget, target);
  };
  Expected<Asset> integer = test::loadJson(withOutput(u16_output, pointerTarget("/nodes/0/weights")));
  ASSERT_LOADED(integer);
  EXPECT_EQ(weightAt(*integer, 1.0), 1.0f);
  EXPECT_EQ(weightAt(*integer, 0.5), 0.5f);
  const std::string normalized =
      "{\"bufferView\":1,\"componentType\":5123,\"normalized\":true,\"count\":2,"
      "\"type\":\"SCALAR\"}";
  Expected<Asset> unorm = test::loadJson(withOutput(normalized, pointerTarget("/nodes/0/weights/0")));
  ASSERT_LOADED(unorm);
  EXPECT_EQ(weightAt(*unorm, 1.0), 1.0f / 65535.0f);
  EXPECT_FAILURE(test::loadJson(withOutput(u16_output, kWeightsTarget)), Error::kInvalidGltf, "channels[0]",
                 "sampler output is u16, not a component type this path allows");
}

// "/meshes/{m}/weights" replaces the mesh's weights, so it moves nodes without weights of their own; a node's
// weights still override the mesh's (§3.7.2.1). A weight pointer's channel plays like the core channel.
TEST(AnimationPointer, MeshAndElementPointers) {
  Expected<Asset> core = test::loadJson(baseGltf());
  Expected<Asset> mesh = test::loadJson(withPointer("/meshes/0/weights"));
  Expected<Asset> element = test::loadJson(withPointer("/nodes/0/weights/0"));
  Expected<Asset> own = test::loadJson(mutate(withPointer("/meshes/0/weights"), "{\"mesh\":0,\"skin\":0}",
                                              "{\"mesh\":0,\"skin\":0,\"weights\":[0.25]}"));
  ASSERT_LOADED(core);
  ASSERT_LOADED(mesh);
  ASSERT_LOADED(element);
  ASSERT_LOADED(own);
  for (double t : {0.0, 0.3, 1.0}) {
    EXPECT_EQ(weightAt(*mesh, t), weightAt(*core, t)) << t;
    EXPECT_EQ(weightAt(*element, t), weightAt(*core, t)) << t;
    EXPECT_EQ(weightAt(*own, t), 0.25f) << t;
  }
  EXPECT_EQ(weightAt(*core, 0.3), 0.3f);
}

// Each bad pointer is one kInvalidGltf error naming the channel and the pointer.
TEST(AnimationPointer, BadPointersAreRefused) {
  struct Case {
    std::string json, fragment;
  };
  const Case cases[] = {
      {withPointer("/nodes/7/weights"), "node 7 is out of range (2 exist"},
      {withPointer("/nodes/1/weights"), "node 1 has no mesh with morph targets"},
      {withPointer("/meshes/3/weights"), "mesh 3 is out of range (1 exist"},
      {withPointer("/nodes/0/weights/1"), "weight 1 is out of range (the mesh has 1 morph targets)"},
      {withPointer("/nodes/01/weights"), "names no node"},
      {withPointer("/nodes/0/weights/x"), "names no weight"},
      {mutate(withPointer("/nodes/0/weights"), "{\"input\":3,\"output\":4}", "{\"input\":3,\"output\":8}"),
       "sampler output is VEC3 but weights need SCALAR"},
  };
  for (const Case& c : cases) {
    EXPECT_FAILURE(test::loadJson(c.json), Error::kInvalidGltf, "animations[0].channels[0]: pointer '",
                   c.fragment.c_str());
  }
  // Output count: a whole-array pointer needs input count x targets values; CUBICSPLINE x 3.
  EXPECT_FAILURE(test::loadJson(mutate(withPointer("/nodes/0/weights"), "{\"input\":3,\"output\":4}",
                                       "{\"input\":3,\"output\":4,\"interpolation\":\"CUBICSPLINE\"}")),
                 Error::kInvalidGltf, "'/nodes/0/weights'", "output count 2 != input count 2 x 3");
  // The same property twice: a core channel and a pointer, an array and its element, one pointer twice.
  const std::string twice[][2] = {{kWeightsTarget, pointerTarget("/nodes/0/weights")},
                                  {pointerTarget("/nodes/0/weights"), pointerTarget("/nodes/0/weights/0")},
                                  {pointerTarget("/meshes/0/weights"), pointerTarget("/meshes/0/weights")}};
  for (const auto& [first, second] : twice) {
    std::string json = mutate(mutateBase(kWeightsTarget, first), "{\"sampler\":1,\"target\":" + kTranslationTarget,
                              "{\"sampler\":0,\"target\":" + second);
    EXPECT_FAILURE(test::loadJson(json), Error::kInvalidGltf, "animations[0].channels[",
                   "MUST NOT be targeted more than once");
  }
}

// The CLI: a bad pointer is one error line naming the file, the channel and the pointer, exit 1.
TEST(AnimationPointer, BadPointerIsOneErrorLine) {
  const std::filesystem::path dir = test::scratchDir();
  test::writeText(dir / "bad.gltf", withPointer("/nodes/9/weights"));
  test::CliRun run = test::runMorphkit(dir, "pose bad.gltf --out pose.json");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "morphkit: error: bad.gltf: animations[0].channels[0]: pointer '/nodes/9/weights': node 9 is "
            "out of range (2 exist; KHR_animation_pointer: the pointer MUST point to a property defined in "
            "the asset)\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "pose.json"));
}

// Other pointers: inspect names them (text and --json), pose says once that they are ignored and poses the rest.
TEST(AnimationPointer, OtherPointersAreListedAndIgnoredWithOneWarning) {
  std::string json = mutateBase(kTranslationTarget, pointerTarget("/materials/0/alphaCutoff"));
  json = mutate(json, "\"scene\":0,", "\"scene\":0,\"extensionsUsed\":[\"KHR_animation_pointer\"],");
  Expected<Asset> asset = test::loadJson(json);
  ASSERT_LOADED(asset);
  EXPECT_EQ(asset->animations[0].channels[1].pointer.target, PointerTarget::kOther);
  EXPECT_FALSE(channelPlays(asset->animations[0].channels[1]));
  const std::filesystem::path dir = test::scratchDir();
  test::writeText(dir / "other.gltf", json);
  test::writeText(dir / "tex.png", "");
  test::CliRun run = test::runMorphkit(dir, "inspect other.gltf");
  EXPECT_NE(run.out.find("1x pointer /materials/0/alphaCutoff (ignored) LINEAR"), std::string::npos) << run.out;
  run = test::runMorphkit(dir, "inspect --json other.gltf");
  EXPECT_NE(run.out.find("\"pointer\": \"/materials/0/alphaCutoff\""), std::string::npos) << run.out;
  run = test::runMorphkit(dir, "pose other.gltf --time 0.5 --out pose.json");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::string warning =
      "morphkit: warning: other.gltf: 1 KHR_animation_pointer channel targets other "
      "properties than morph weights (animations[0].channels[1] '/materials/0/alphaCutoff'); "
      "ignored\n";
  EXPECT_NE(run.err.find(warning), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("warning", run.err.find(warning) + warning.size()), std::string::npos) << run.err;
  EXPECT_EQ(weightAt(*asset, 0.5), 0.5f);  // the weights channel still plays
}

// The writer keeps pointer channels (load → write → load), and make-demo --animation-pointer writes the pair's
// pointer file: the pointer channels listed by inspect, posed like the plain demo.
TEST(AnimationPointer, WrittenBackAndMadeByMakeDemo) {
  test::PointerPair pair = test::pointerPair();
  Expected<Asset> again = test::throughGlb(pair.pointer);
  ASSERT_LOADED(again);
  ASSERT_EQ(again->animations[2].channels.size(), pair.pointer.animations[2].channels.size());
  EXPECT_EQ(again->animations[2].channels[0].pointer.text, "/nodes/0/weights/0");
  EXPECT_EQ(again->animations[1].channels[0].pointer.text, "/meshes/0/weights");
  const std::filesystem::path dir = test::scratchDir();
  const std::string demo = "--targets 12 --vertices 400 --no-capture";
  ASSERT_EQ(test::runMorphkit(dir, "make-demo plain.glb " + demo).exit_code, 0);
  test::CliRun made = test::runMorphkit(dir, "make-demo pointer.glb --animation-pointer " + demo);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  test::CliRun run = test::runMorphkit(dir, "inspect pointer.glb");
  EXPECT_NE(run.out.find("1x pointer /nodes/0/weights CUBICSPLINE"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("1x pointer /meshes/0/weights STEP"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("1x pointer /nodes/0/weights/11 LINEAR"), std::string::npos) << run.out;
  for (const char* anim : {"talk", "blink", "express"}) {
    const std::string args = std::string(" --anim ") + anim + " --time 0.3,1.45,2.37 --out - --format json";
    test::CliRun plain = test::runMorphkit(dir, "pose plain.glb" + args);
    test::CliRun pointer = test::runMorphkit(dir, "pose pointer.glb" + args);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    ASSERT_EQ(pointer.exit_code, 0) << pointer.err;
    std::string renamed = pointer.out;  // the JSON names its model file
    for (size_t at = renamed.find("pointer.glb"); at != std::string::npos; at = renamed.find("pointer.glb"))
      renamed.replace(at, 11, "plain.glb");
    EXPECT_EQ(plain.out, renamed) << anim;
  }
}

}  // namespace
}  // namespace morphkit
