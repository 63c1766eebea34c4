// SPDX-License-Identifier: MIT
// animation_test.cpp — keyframe sampling (glTF 2.0 §3.11, Appendix C) on hand-made channels whose expected
// values are computed by hand in the comments, plus decodeAnimation on an asset built in code.
#include "morphkit/core/animation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/core/scene.h"
#include "morphkit/gltf/glb_writer.h"

namespace morphkit {
namespace {

SamplerData makeSampler(Interpolation interpolation, uint32_t components, std::vector<float> times,
                        std::vector<float> values, bool rotation = false) {
  SamplerData s;
  s.interpolation = interpolation;
  s.components = components;
  s.times = std::move(times);
  s.values = std::move(values);
  s.is_rotation = rotation;
  return s;
}

std::vector<float> sample(const SamplerData& s, double t, SamplerCursor* cursor = nullptr) {
  std::vector<float> out(s.components, NAN);
  EXPECT_TRUE(sampleSampler(s, t, out, cursor));
  return out;
}

TEST(Sampling, LinearWeightsNonUniformKeysKeepNegativeAndLargeWeights) {
  // Two targets; keys at 0, 0.1 and 1.0 (non-uniform spacing).
  SamplerData s = makeSampler(Interpolation::kLinear, 2, {0.0f, 0.1f, 1.0f}, {0, 0, 1, -2, 3, 5});
  auto a = sample(s, 0.05);  // halfway in [0, 0.1]: (0.5, -1)
  EXPECT_NEAR(a[0], 0.5, 1e-6);
  EXPECT_NEAR(a[1], -1.0, 1e-6);
  auto b = sample(s, 0.55);  // halfway in [0.1, 1.0]: (2, 1.5)
  EXPECT_NEAR(b[0], 2.0, 1e-6);
  EXPECT_NEAR(b[1], 1.5, 1e-6);
  auto c = sample(s, 0.9999999);  // just before the end: > 1 kept, no clamping
  EXPECT_NEAR(c[1], 5.0, 1e-5);
}

TEST(Sampling, TimesOutsideTheKeysHoldTheEndValues) {
  SamplerData s = makeSampler(Interpolation::kLinear, 1, {0.5f, 1.5f}, {2, 4});
  EXPECT_EQ(sample(s, -3.0)[0], 2.0f);
  EXPECT_EQ(sample(s, 0.5)[0], 2.0f);
  EXPECT_EQ(sample(s, 1.5)[0], 4.0f);
  EXPECT_EQ(sample(s, 100.0)[0], 4.0f);
  EXPECT_EQ(sample(s, std::nan(""))[0], 2.0f);  // NaN: the first key, never NaN out
  // CUBICSPLINE holds the value, not a tangent.
  SamplerData cubic = makeSampler(Interpolation::kCubicSpline, 1, {0.5f, 1.5f}, {7, 2, 8, 9, 4, 6});
  EXPECT_EQ(sample(cubic, 0.0)[0], 2.0f);
  EXPECT_EQ(sample(cubic, 2.0)[0], 4.0f);
}

TEST(Sampling, OneKeyChannelsAreConstant) {
  for (Interpolation mode : {Interpolation::kLinear, Interpolation::kStep}) {
    SamplerData s = makeSampler(mode, 3, {2.0f}, {1, 2, 3});
    for (double t : {-1.0, 2.0, 5.0}) EXPECT_EQ(sample(s, t), (std::vector<float>{1, 2, 3}));
  }
  SamplerData cubic = makeSampler(Interpolation::kCubicSpline, 3, {2.0f}, {9, 9, 9, 1, 2, 3, 9, 9, 9});
  EXPECT_EQ(sample(cubic, 0.0), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(sample(cubic, 3.0), (std::vector<float>{1, 2, 3}));
}

TEST(Sampling, StepUsesTheLastKeyAtOrBeforeT) {
  SamplerData s = makeSampler(Interpolation::kStep, 1, {0.0f, 1.0f, 3.0f}, {10, 20, 30});
  EXPECT_EQ(sample(s, 0.99)[0], 10.0f);
  EXPECT_EQ(sample(s, 1.0)[0], 20.0f);  // exactly on a key: that key
  EXPECT_EQ(sample(s, 2.999)[0], 20.0f);
  EXPECT_EQ(sample(s, 3.0)[0], 30.0f);
}

TEST(Sampling, CubicTangentsAreScaledByTheKeyInterval) {
  // Keys at t=1 and t=3 (t_d = 2). Key 0: in 0, value 1, out 2. Key 1: in -1, value 4, out 0.
  // At t=2, u = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125 (Appendix C).
  // p = 0.5·1 + 2·0.125·2 + 0.5·4 + 2·(-0.125)·(-1) = 0.5 + 0.5 + 2 + 0.25 = 3.25
  // (without the t_d factor it would be 2.875).
  SamplerData s = makeSampler(Interpolation::kCubicSpline, 1, {1.0f, 3.0f}, {0, 1, 2, -1, 4, 0});
  EXPECT_NEAR(sample(s, 2.0)[0], 3.25, 1e-6);
  // At u = 0.25 (t = 1.5): h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875.
  // p = 0.84375 + 2·0.140625·2 + 0.15625·4 + 2·(-0.046875)·(-1) = 0.84375 + 0.5625 + 0.625 + 0.09375 = 2.125
  EXPECT_NEAR(sample(s, 1.5)[0], 2.125, 1e-6);
}

TEST(Sampling, CubicWeightsUseTheTargetMajorTripletLayout) {
  // Two targets. Per key: [in t0, in t1, value t0, value t1, out t0, out t1]; 99 marks tangents never used.
  SamplerData s = makeSampler(Interpolation::kCubicSpline, 2, {1.0f, 3.0f},
                              {99, 99, 1, 10, 2, 0,     // key 0
                               -1, 0, 4, 10, 99, 99});  // key 1
  auto w = sample(s, 2.0);
  EXPECT_NEAR(w[0], 3.25, 1e-6);  // same curve as the test above
  EXPECT_NEAR(w[1], 10.0, 1e-6);  // flat, zero tangents
}

TEST(Sampling, LinearRotationTakesTheShortestArc) {
  // b is the 90° rotation about z stored with negative w (the double cover). Halfway must be +45°, not -135°.
  const float h = std::sqrt(0.5f);
  SamplerData s = makeSampler(Interpolation::kLinear, 4, {0.0f, 1.0f}, {0, 0, 0, 1, 0, 0, -h, -h}, true);
  auto q = sample(s, 0.5);
  EXPECT_NEAR(q[0], 0.0, 1e-6);
  EXPECT_NEAR(q[1], 0.0, 1e-6);
  EXPECT_NEAR(q[2], std::sin(M_PI / 8), 1e-6);
  EXPECT_NEAR(q[3], std::cos(M_PI / 8), 1e-6);
  // A quarter of the way: 22.5°, a true slerp (nlerp would give 22.5° only at the midpoint).
  auto r = sample(s, 0.25);
  EXPECT_NEAR(r[2], std::sin(M_PI / 16), 1e-6);
  EXPECT_NEAR(r[3], std::cos(M_PI / 16), 1e-6);
}

TEST(Sampling, CubicRotationIsNormalized) {
  SamplerData s = makeSampler(Interpolation::kCubicSpline, 4, {0.0f, 1.0f},
                              {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0,   // key 0: in, value (identity), out
                               0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0},  // key 1: in, value (180° about z), out
                              true);
  for (double t : {0.1, 0.3, 0.5, 0.77}) {
    auto q = sample(s, t);
    EXPECT_NEAR(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), 1.0, 1e-6) << t;
  }
}

TEST(Sampling, CursorSequentialEqualsRandomAccess) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> step(0.01f, 0.5f), value(-3.0f, 3.0f);
  for (Interpolation mode : {Interpolation::kLinear, Interpolation::kStep, Interpolation::kCubicSpline}) {
    std::vector<float> times{0.0f}, values;
    for (int k = 1; k < 50; ++k) times.push_back(times.back() + step(rng));
    const size_t per_key = mode == Interpolation::kCubicSpline ? 9 : 3;
    for (size_t i = 0; i < times.size() * per_key; ++i) values.push_back(value(rng));
    SamplerData s = makeSampler(mode, 3, times, values);
    SamplerCursor cursor;
    // Forward playback at 60 Hz past the end, then a jump back and random access with the same cursor.
    for (double t = -0.1; t < times.back() + 0.2; t += 1.0 / 60) {
      EXPECT_EQ(sample(s, t, &cursor), sample(s, t)) << t;
    }
    std::uniform_real_distribution<double> any(-1.0, times.back() + 1.0);
    for (int i = 0; i < 200; ++i) {
      const double t = any(rng);
      EXPECT_EQ(sample(s, t, &cursor), sample(s, t)) << t;
    }
    // Exactly on every key.
    for (float t : times) EXPECT_EQ(sample(s, t, &cursor), sample(s, t)) << t;
  }
}

TEST(Sampling, RejectsWrongOutputSizes) {
  SamplerData s = makeSampler(Interpolation::kLinear, 3, {0.0f, 1.0f}, {0, 0, 0, 1, 1, 1});
  std::vector<float> small(2);
  EXPECT_FALSE(sampleSampler(s, 0.5, small));
  SamplerData broken = makeSampler(Interpolation::kCubicSpline, 3, {0.0f, 1.0f}, {0, 0, 0, 1, 1, 1});
  std::vector<float> out(3);
  EXPECT_FALSE(sampleSampler(broken, 0.5, out));  // CUBICSPLINE needs 3 × components per key
  SamplerData empty = makeSampler(Interpolation::kLinear, 3, {}, {});
  EXPECT_FALSE(sampleSampler(empty, 0.5, out));
}

TEST(Math, SlerpOfNearlyEqualQuaternionsIsFinite) {
  Quat a{0, 0, 0, 1};
  Quat b = normalize(Quat{1e-7f, 0, 0, 1});
  Quat q = slerp(a, b, 0.5f);
  EXPECT_TRUE(std::isfinite(q.x) && std::isfinite(q.w));
  EXPECT_NEAR(q.w, 1.0, 1e-6);
}

TEST(Math, ComposeInverseAndNormalMatrix) {
  const float h = std::sqrt(0.5f);
  Mat4 m = composeTRS({1, 2, 3}, {0, 0, h, h}, {2, 3, 4});  // 90° about z
  // p = (1, 0, 0): scale → (2, 0, 0), rotate 90° about z → (0, 2, 0), translate → (1, 4, 3).
  Vec3 p = transformPoint(m, {1, 0, 0});
  EXPECT_NEAR(p.x, 1, 1e-6);
  EXPECT_NEAR(p.y, 4, 1e-6);
  EXPECT_NEAR(p.z, 3, 1e-6);
  Mat4 id = inverse(m) * m;
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(id(r, c), r == c ? 1.0 : 0.0, 1e-5);
  }
  // A normal stays perpendicular to a transformed tangent under non-uniform scale.
  Vec3 t{1, -1, 0}, n{1, 1, 0};
  Vec3 tt = transformVector(m, t), nn = transformVector(normalMatrix(m), n);
  EXPECT_NEAR(dot(tt, nn), 0.0, 1e-5);
  EXPECT_GT(std::fabs(dot(transformVector(m, t), transformVector(m, n))), 0.1);  // the plain matrix would fail
  // Singular: identity back, never NaN.
  Mat4 zero;
  zero.m.fill(0);
  EXPECT_EQ(inverse(zero).m, Mat4{}.m);
}

// ---- decodeAnimation + AnimationSamplingJob on an asset built in code ----------------------------------------

Asset makeAnimatedAsset() {
  Asset asset;
  asset.nodes.resize(2);
  asset.nodes[1].mesh = 0;
  asset.meshes.resize(1);
  asset.scenes.push_back(Scene{"", {0, 1}});
  std::vector<float> times{0.0f, 2.0f};
  std::vector<float> translation{0, 0, 0, 4, 0, 0};
  std::vector<float> weights{0, 1, -1, 3};  // 2 keys × 2 targets
  AppendAccessorOptions with_min_max;
  with_min_max.min_max = true;
  uint32_t input = appendAccessor(asset, std::span<const float>(times), AccessorType::kScalar, with_min_max);
  uint32_t t_out = appendAccessor(asset, std::span<const float>(translation), AccessorType::kVec3);
  uint32_t w_out = appendAccessor(asset, std::span<const float>(weights), AccessorType::kScalar);
  Animation anim;
  anim.samplers.push_back(AnimationSampler{input, t_out, Interpolation::kLinear});
  anim.samplers.push_back(AnimationSampler{input, w_out, Interpolation::kLinear});
  anim.channels.push_back(AnimationChannel{0, 0, TargetPath::kTranslation});
  anim.channels.push_back(AnimationChannel{1, 1, TargetPath::kWeights});
  anim.channels.push_back(AnimationChannel{0, kNone, TargetPath::kTranslation});  // no target: ignored
  asset.animations.push_back(anim);
  // The mesh the weights drive: one triangle, two targets with POSITION deltas (a primitive needs attributes,
  // §5.24; a target at least one, §3.7.2.2; POSITION needs min/max, §3.6.2.5).
  std::vector<float> positions{0, 0, 0, 1, 0, 0, 0, 1, 0};
  std::vector<float> up{0, 0, 1, 0, 0, 1, 0, 0, 1};
  AppendAccessorOptions vertex_data;
  vertex_data.target = kArrayBuffer;
  AppendAccessorOptions position_data = vertex_data;
  position_data.min_max = true;
  Primitive primitive;
  primitive.attributes.push_back(
      {"POSITION", appendAccessor(asset, std::span<const float>(positions), AccessorType::kVec3, position_data)});
  for (int t = 0; t < 2; ++t) {
    uint32_t delta = appendAccessor(asset, std::span<const float>(up), AccessorType::kVec3, position_data);
    primitive.targets.push_back(MorphTarget{{{"POSITION", delta}}});
  }
  asset.meshes[0].primitives.push_back(std::move(primitive));
  return test::validated(std::move(asset));
}

TEST(DecodeAnimation, SamplesTranslationAndWeights) {
  Asset asset = makeAnimatedAsset();
  Expected<AnimationData> anim = decodeAnimation(asset, 0);
  ASSERT_TRUE(anim.ok()) << anim.error().message;
  EXPECT_EQ(anim->channels.size(), 2u);
  EXPECT_EQ(anim->samplers[1].components, 2u);
  EXPECT_DOUBLE_EQ(anim->duration, 2.0);
  EXPECT_DOUBLE_EQ(animationDuration(asset, 0), 2.0);

  std::vector<NodePose> pose(asset.nodes.size());
  AnimationSamplingJob job;
  job.animation = &*anim;
  job.time = 0.5;
  job.output = pose;
  ASSERT_TRUE(job.run());
  EXPECT_TRUE(pose[0].has_translation);
  EXPECT_FALSE(pose[0].has_rotation);
  EXPECT_NEAR(pose[0].translation.x, 1.0, 1e-6);
  ASSERT_TRUE(pose[1].has_weights);
  EXPECT_NEAR(pose[1].weights[0], -0.25, 1e-6);
  EXPECT_NEAR(pose[1].weights[1], 1.5, 1e-6);

  // Scene: animated weights override node and mesh weights; the translation moves node 0.
  asset.nodes[1].weights = {7, 7};
  asset = test::validated(std::move(asset));
  Expected<SceneState> state = evaluateScene(asset, 0, pose);
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->weights[1], pose[1].weights);
  EXPECT_NEAR(state->world[0](0, 3), 1.0, 1e-6);
  Expected<SceneState> rest = evaluateScene(asset, 0);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->weights[1], (std::vector<float>{7, 7}));  // node.weights
  asset.nodes[1].weights.clear();
  asset.meshes[0].weights = {0.25f, 0.5f};
  asset = test::validated(std::move(asset));
  EXPECT_EQ(evaluateScene(asset, 0)->weights[1], (std::vector<float>{0.25f, 0.5f}));  // mesh.weights
  asset.meshes[0].weights.clear();
  EXPECT_EQ(evaluateScene(asset, 0)->weights[1], (std::vector<float>{0, 0}));  // default zeros
}

// An output count that does not fit the keys is refused by the one gate, validateAsset (§3.11; bad_input_test's
// "output count 1 != input count 2 x 1" cases). decodeAnimation states it as a precondition
// (morphkit/model/contract.h), which a debug build enforces; a caller's animation index is an argument, still checked.
// The edited asset is deliberately invalid: it does not go through test::validated.
TEST(DecodeAnimation, RejectsOutputCountMismatch) {
  Asset asset = makeAnimatedAsset();
  std::vector<float> odd{1, 2, 3, 4, 5};  // 5 floats for 2 keys of VEC3
  asset.animations[0].samplers[0].output = appendAccessor(asset, std::span<const float>(odd), AccessorType::kScalar);
  EXPECT_FALSE(decodeAnimation(asset, 5).ok());
#ifndef NDEBUG
  EXPECT_DEATH(static_cast<void>(decodeAnimation(asset, 0)), "precondition");
#endif
}

TEST(AnimationSamplingJob, ValidityBreaksEachInputInTurn) {
  Asset asset = makeAnimatedAsset();
  Expected<AnimationData> anim = decodeAnimation(asset, 0);
  ASSERT_TRUE(anim.ok());
  std::vector<NodePose> pose(asset.nodes.size());
  AnimationSamplingJob good;
  good.animation = &*anim;
  good.output = pose;
  ASSERT_TRUE(good.validate());

  AnimationSamplingJob job = good;
  job.animation = nullptr;
  EXPECT_FALSE(job.validate());
  EXPECT_FALSE(job.run());

  job = good;
  job.output = std::span<NodePose>(pose.data(), 1);  // node 1 is targeted
  EXPECT_FALSE(job.validate());

  AnimationData bad = *anim;
  bad.samplers[0].components = 4;  // translation needs 3
  job = good;
  job.animation = &bad;
  EXPECT_FALSE(job.validate());

  bad = *anim;
  bad.channels[0].sampler = 9;
  job.animation = &bad;
  EXPECT_FALSE(job.validate());

  AnimationSamplingJob default_job;
  EXPECT_FALSE(default_job.validate());
}

TEST(Scene, SkinnedJointMatricesUseWorldTimesInverseBind) {
  Asset built;
  built.nodes.resize(3);
  built.nodes[0].translation = {0, 0, 5};
  built.nodes[0].children = {1};
  built.nodes[1].translation = {1, 0, 0};
  built.scenes.push_back(Scene{"", {0, 2}});
  built.skins.push_back(Skin{"", kNone, kNone, {1}});
  const Asset asset = test::validated(std::move(built));
  Expected<SceneState> state = evaluateScene(asset, 0);
  ASSERT_TRUE(state.ok());
  std::vector<Mat4> ibm = decodeInverseBindMatrices(asset, 0);
  ASSERT_EQ(ibm.size(), 1u);
  EXPECT_EQ(ibm[0].m, Mat4{}.m);  // absent: identity
  Mat4 custom = composeTRS({-1, 0, 0}, {}, {1, 1, 1});
  std::vector<DMat4> joints = jointMatrices(asset, *state, 0, std::span<const Mat4>(&custom, 1));
  Vec3 p = transformPoint(toFloat(joints[0]), {0, 0, 0});  // world(joint) = T(1,0,5), IBM = T(-1,0,0)
  EXPECT_NEAR(p.x, 0, 1e-6);
  EXPECT_NEAR(p.z, 5, 1e-6);
  EXPECT_EQ(state->scene_nodes, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_FALSE(resolveScene(asset, 3).ok());
  EXPECT_EQ(*resolveScene(asset), 0u);
}

}  // namespace
}  // namespace morphkit
