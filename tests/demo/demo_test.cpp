// SPDX-License-Identifier: MIT
// Tests for morphkit/demo/demo.h (the make-demo asset): geometry, targets, skin and animation properties
// checked on the decoded data, plus the Khronos glTF validator on the written .glb (scripts/validate-gltf).
#include "morphkit/demo/demo.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/accessor.h"
#include "morphkit/model/files.h"
#include "test_support.h"

namespace morphkit {
namespace {

std::filesystem::path repoRoot() {
  return test::sourceDir();
}

}  // namespace
}  // namespace morphkit

namespace morphkit {
namespace {

const Primitive& primitiveOf(const Asset& asset) {
  return asset.meshes.at(0).primitives.at(0);
}

std::vector<float> attribute(const Asset& asset, const Primitive& primitive, const char* name) {
  uint32_t accessor = findAttribute(primitive.attributes, name);
  EXPECT_NE(accessor, kNone) << name;
  return accessor == kNone ? std::vector<float>{} : readAccessorFloats(asset, accessor);
}

Asset makeOrDie(const DemoOptions& options) {
  return test::validated(makeDemoAsset(options));
}

// Runs scripts/validate-gltf on `asset` written to a scratch file; returns the script's exit status.
int validateFile(const std::filesystem::path& file) {
  std::string command = "'" + (repoRoot() / "scripts/validate-gltf").string() + "' '" + file.string() + "'";
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int validate(const Asset& asset, const std::string& label) {
  auto glb = writeGlb(asset);
  EXPECT_TRUE(glb.ok()) << glb.error().message;
  if (!glb.ok()) return -1;
  std::filesystem::path file = test::scratchDir() / (label + ".glb");
  EXPECT_TRUE(writeFileAtomic(file, std::span<const uint8_t>(*glb)).ok());
  return validateFile(file);
}

TEST(DemoValidator, DefaultAssetHasNoErrors) {
  MORPHKIT_REQUIRE_VALIDATOR();
  EXPECT_EQ(validate(makeOrDie({}), "default"), 0);
}

TEST(DemoValidator, VariantsHaveNoErrors) {
  MORPHKIT_REQUIRE_VALIDATOR();
  EXPECT_EQ(validate(makeOrDie({.targets = 1, .vertices = 3000, .bones = 4}), "one_target"), 0);
  EXPECT_EQ(validate(makeOrDie({.targets = 256, .vertices = 1500, .bones = 6}), "many_targets"), 0);
  EXPECT_EQ(validate(makeOrDie({.targets = 0, .vertices = 8, .bones = 1}), "minimal"), 0);
  EXPECT_EQ(validate(makeOrDie({.targets = 2, .vertices = 70000, .bones = 256}), "u32_indices"), 0);
}

TEST(DemoValidator, ValidatorReportsErrors) {
  // The check must be able to fail: a POSITION accessor whose min/max do not match the data is an error (the
  // edited asset is deliberately invalid, so it does not go through test::validated again).
  MORPHKIT_REQUIRE_VALIDATOR();
  Asset asset = makeOrDie({.targets = 1, .vertices = 100, .bones = 2});
  uint32_t position = findAttribute(primitiveOf(asset).attributes, "POSITION");
  asset.accessors[position].max[0] += 1.0;
  EXPECT_EQ(validate(asset, "broken"), 1);
}

// The GLB writer on real files: sparse, quantized (KHR_mesh_quantization), embedded images, external .bin
// buffers merged into one BIN chunk. Each original passes the validator, so the rewritten file must too.
// Every shared asset the validator accepts: the rewritten file (an edit of its document) is accepted too.
TEST(DemoValidator, RewrittenSharedAssetsHaveNoErrors) {
  MORPHKIT_REQUIRE_SHARED();
  MORPHKIT_REQUIRE_VALIDATOR();
  int checked = 0;
  for (const std::filesystem::path& path : test::sharedModelFiles()) {
    SCOPED_TRACE(path.string());
    if (validateFile(path) != 0) continue;  // the original must be valid for the check to mean anything
    auto asset = loadAsset(path);
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    EXPECT_EQ(validate(*asset, path.stem().string() + std::to_string(checked)), 0);
    ++checked;
  }
  EXPECT_GE(checked, 15);
}

TEST(Demo, VertexCountIsCloseToRequested) {
  for (uint32_t requested : {8u, 100u, 2000u, 20000u, 70000u}) {
    Asset asset = makeOrDie({.targets = 0, .vertices = requested});
    uint32_t count = asset.accessors[findAttribute(primitiveOf(asset).attributes, "POSITION")].count;
    EXPECT_LE(std::abs(double(count) - requested), 0.01 * requested + 2) << requested;
    const Accessor& indices = asset.accessors[primitiveOf(asset).indices];
    EXPECT_EQ(indices.component_type, count <= 65535 ? ComponentType::kUnsignedShort : ComponentType::kUnsignedInt);
  }
}

// Every undirected edge lies in exactly two triangles, and each directed edge appears once (consistent
// orientation); the signed volume is positive, so the triangles face outward.
TEST(Demo, MeshIsClosedAndOutwardFacing) {
  for (uint32_t requested : {8u, 500u, 20000u}) {
    Asset asset = makeOrDie({.targets = 0, .vertices = requested, .bones = 1});
    const Primitive& primitive = primitiveOf(asset);
    std::vector<uint32_t> indices = readAccessorUints(asset, primitive.indices);
    std::vector<float> position = attribute(asset, primitive, "POSITION");
    ASSERT_EQ(indices.size() % 3, 0u);
    std::map<std::pair<uint32_t, uint32_t>, int> directed;
    double volume = 0;
    for (size_t t = 0; t < indices.size(); t += 3) {
      for (int c = 0; c < 3; ++c) {
        uint32_t a = indices[t + c], b = indices[t + (c + 1) % 3];
        ASSERT_NE(a, b) << "degenerate triangle " << t / 3;
        ++directed[{a, b}];
      }
      auto p = [&](int c) {
        return Vec3{position[3 * indices[t + c]], position[3 * indices[t + c] + 1], position[3 * indices[t + c] + 2]};
      };
      volume += dot(p(0), cross(p(1), p(2))) / 6.0;
    }
    for (const auto& [edge, count] : directed) {
      EXPECT_EQ(count, 1) << "directed edge " << edge.first << "->" << edge.second << " used twice";
      auto reverse = directed.find({edge.second, edge.first});
      EXPECT_TRUE(reverse != directed.end()) << "edge " << edge.first << "-" << edge.second << " has one triangle";
    }
    // Positive: outward. The head (radii about 0.8 × 1 × 0.9) has volume ≈ 3; the 8-vertex bipyramid ≈ 0.9.
    EXPECT_GT(volume, requested < 100 ? 0.5 : 2.5) << requested;
  }
}

TEST(Demo, VertexAttributesAreWellFormed) {
  Asset asset = makeOrDie({.targets = 0, .vertices = 5000});
  const Primitive& primitive = primitiveOf(asset);
  std::vector<float> normal = attribute(asset, primitive, "NORMAL");
  std::vector<float> tangent = attribute(asset, primitive, "TANGENT");
  std::vector<float> uv = attribute(asset, primitive, "TEXCOORD_0");
  size_t n = normal.size() / 3;
  ASSERT_EQ(tangent.size(), 4 * n);
  ASSERT_EQ(uv.size(), 2 * n);
  int flipped = 0;
  for (size_t v = 0; v < n; ++v) {
    Vec3 nv{normal[3 * v], normal[3 * v + 1], normal[3 * v + 2]};
    Vec3 tv{tangent[4 * v], tangent[4 * v + 1], tangent[4 * v + 2]};
    EXPECT_NEAR(length(nv), 1.0f, 1e-5f) << v;
    EXPECT_NEAR(length(tv), 1.0f, 1e-5f) << v;
    EXPECT_NEAR(dot(nv, tv), 0.0f, 1e-4f) << v;
    float w = tangent[4 * v + 3];
    EXPECT_TRUE(w == 1.0f || w == -1.0f) << v;
    flipped += w < 0;
    EXPECT_GE(uv[2 * v], 0.0f);
    EXPECT_LE(uv[2 * v], 1.0f);
  }
  // Mirrored UVs: both handedness values occur.
  EXPECT_GT(flipped, 0);
  EXPECT_LT(size_t(flipped), n);
}

TEST(Demo, TargetsAreLocalized) {
  for (DemoOptions options : {DemoOptions{}, DemoOptions{.targets = 120, .vertices = 3000, .bones = 4, .seed = 7},
                              DemoOptions{.targets = 5, .vertices = 8, .bones = 4}}) {
    Asset asset = makeOrDie(options);
    const Primitive& primitive = primitiveOf(asset);
    ASSERT_EQ(primitive.targets.size(), options.targets);
    std::vector<uint32_t> indices = readAccessorUints(asset, primitive.indices);
    size_t n = asset.accessors[findAttribute(primitive.attributes, "POSITION")].count;
    for (size_t t = 0; t < primitive.targets.size(); ++t) {
      const auto& attrs = primitive.targets[t].attributes;
      std::vector<float> dp = readAccessorFloats(asset, findAttribute(attrs, "POSITION"));
      std::vector<float> dn = readAccessorFloats(asset, findAttribute(attrs, "NORMAL"));
      std::vector<float> dt = readAccessorFloats(asset, findAttribute(attrs, "TANGENT"));
      ASSERT_EQ(dp.size(), 3 * n);
      ASSERT_EQ(dn.size(), 3 * n);
      ASSERT_EQ(dt.size(), 3 * n);
      std::vector<char> moved(n, 0), near(n, 0);
      size_t moved_count = 0;
      for (size_t v = 0; v < n; ++v) {
        if (dp[3 * v] != 0 || dp[3 * v + 1] != 0 || dp[3 * v + 2] != 0) moved[v] = 1, ++moved_count;
      }
      double fraction = double(moved_count) / double(n);
      EXPECT_GE(fraction, 0.03 - 1e-9) << "target " << t << " moves " << moved_count << "/" << n;
      EXPECT_LE(fraction, 0.15 + 1e-9) << "target " << t << " moves " << moved_count << "/" << n;
      // Normal and tangent deltas stay within the moved vertices and their one-ring.
      for (size_t i = 0; i < indices.size(); i += 3) {
        if (moved[indices[i]] || moved[indices[i + 1]] || moved[indices[i + 2]])
          near[indices[i]] = near[indices[i + 1]] = near[indices[i + 2]] = 1;
      }
      size_t leaks = 0;
      for (size_t v = 0; v < n; ++v) {
        if (near[v]) continue;
        for (int c = 0; c < 3; ++c) leaks += dn[3 * v + c] != 0 || dt[3 * v + c] != 0;
      }
      EXPECT_EQ(leaks, 0u) << "target " << t;
    }
  }
}

TEST(Demo, TargetNamesFollowArkitThenExtras) {
  Asset asset = makeOrDie({.targets = 60, .vertices = 500});
  const Mesh& mesh = asset.meshes[0];
  ASSERT_EQ(mesh.target_names.size(), 60u);
  ASSERT_EQ(mesh.weights.size(), 60u);
  std::set<std::string> unique(mesh.target_names.begin(), mesh.target_names.end());
  EXPECT_EQ(unique.size(), 60u);
  for (const char* name : {"eyeBlinkLeft", "jawOpen", "mouthSmileLeft", "browInnerUp", "cheekPuff", "tongueOut"})
    EXPECT_TRUE(unique.count(name)) << name;
  EXPECT_EQ(mesh.target_names[52], "extra052");
  EXPECT_EQ(mesh.target_names[59], "extra059");
  EXPECT_EQ(demoTargetName(51), "tongueOut");
}

TEST(Demo, SkinWeightsAreNormalized) {
  for (uint32_t bones : {1u, 4u, 9u, 256u}) {
    Asset asset = makeOrDie({.targets = 0, .vertices = 3000, .bones = bones});
    const Primitive& primitive = primitiveOf(asset);
    std::vector<float> weights = attribute(asset, primitive, "WEIGHTS_0");
    std::vector<uint32_t> joints = readAccessorUints(asset, findAttribute(primitive.attributes, "JOINTS_0"));
    ASSERT_EQ(weights.size(), joints.size());
    ASSERT_EQ(asset.skins.size(), 1u);
    ASSERT_EQ(asset.skins[0].joints.size(), bones);
    std::vector<size_t> used(bones, 0);
    for (size_t v = 0; v < weights.size() / 4; ++v) {
      float sum = 0;
      std::set<uint32_t> distinct;
      for (int k = 0; k < 4; ++k) {
        float w = weights[4 * v + k];
        EXPECT_GE(w, 0.0f);
        sum += w;
        ASSERT_LT(joints[4 * v + k], bones);
        if (w > 0) {
          EXPECT_TRUE(distinct.insert(joints[4 * v + k]).second) << "vertex " << v << " repeats a joint";
          ++used[joints[4 * v + k]];
        }
      }
      EXPECT_NEAR(sum, 1.0f, 2e-7f) << "vertex " << v;
    }
    if (bones <= 9) {
      for (uint32_t b = 0; b < bones; ++b) EXPECT_GT(used[b], 0u) << "joint " << b << " moves nothing";
    }
    // Inverse bind matrices invert each joint's bind-pose world transform (§3.7.3.1).
    std::vector<float> ibm = readAccessorFloats(asset, asset.skins[0].inverse_bind_matrices);
    ASSERT_EQ(ibm.size(), 16u * bones);
    Vec3 world;
    for (uint32_t b = 0; b < bones; ++b) {
      const Node& joint = asset.nodes[asset.skins[0].joints[b]];
      world = world + Vec3{float(joint.translation.x), float(joint.translation.y),
                           float(joint.translation.z)};  // a chain without rotation or scale
      EXPECT_NEAR(ibm[16 * b + 12], -world.x, 1e-6f);
      EXPECT_NEAR(ibm[16 * b + 13], -world.y, 1e-6f);
      EXPECT_NEAR(ibm[16 * b + 14], -world.z, 1e-6f);
      if (b + 1 < bones) {
        ASSERT_EQ(joint.children.size(), 1u);
        EXPECT_EQ(joint.children[0], asset.skins[0].joints[b + 1]);
      }
    }
  }
}

TEST(Demo, AnimationsUseAllInterpolations) {
  Asset asset = makeOrDie({.targets = 52, .vertices = 500, .bones = 4});
  ASSERT_EQ(asset.animations.size(), 3u);
  std::set<Interpolation> weight_modes, rotation_modes;
  for (const Animation& animation : asset.animations) {
    std::set<std::pair<uint32_t, TargetPath>> targets;
    for (const AnimationChannel& channel : animation.channels) {
      // glTF 2.0 §3.11: at most one channel per (node, path) in an animation.
      EXPECT_TRUE(targets.insert({channel.node, channel.path}).second) << animation.name;
      const AnimationSampler& sampler = animation.samplers.at(channel.sampler);
      size_t keys = asset.accessors[sampler.input].count;
      size_t values = asset.accessors[sampler.output].count;
      size_t per_key = channel.path == TargetPath::kWeights ? 52 : 1;
      size_t factor = sampler.interpolation == Interpolation::kCubicSpline ? 3 : 1;
      EXPECT_EQ(values, keys * per_key * factor) << animation.name;
      std::vector<float> times = readAccessorFloats(asset, sampler.input);
      for (size_t k = 1; k < times.size(); ++k) EXPECT_LT(times[k - 1], times[k]);
      EXPECT_GE(times.back(), 2.0f) << "a few seconds";
      if (channel.path == TargetPath::kWeights) {
        EXPECT_EQ(channel.node, 0u);
        weight_modes.insert(sampler.interpolation);
      } else if (channel.path == TargetPath::kRotation) {
        rotation_modes.insert(sampler.interpolation);
      }
    }
  }
  EXPECT_EQ(weight_modes.size(), 3u);
  EXPECT_TRUE(rotation_modes.count(Interpolation::kLinear));
  EXPECT_TRUE(rotation_modes.count(Interpolation::kCubicSpline));
}

TEST(Demo, DeterministicForASeed) {
  DemoOptions options{.targets = 20, .vertices = 2000, .bones = 5, .seed = 42};
  auto a = writeGlb(makeOrDie(options));
  auto b = writeGlb(makeOrDie(options));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(*a == *b);
  options.seed = 43;
  auto c = writeGlb(makeOrDie(options));
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(*a == *c);
}

TEST(Demo, RejectsAbsurdOptions) {
  const DemoOptions bad[] = {
      {.targets = kDemoMaxTargets + 1, .vertices = 100},
      {.vertices = 7},
      {.vertices = 0},
      {.vertices = kDemoMaxVertices + 1},
      {.bones = 0},
      {.bones = kDemoMaxBones + 1},
      {.targets = 4096, .vertices = 100000},  // targets × vertices over the bound
  };
  const char* expected[] = {"targets", "vertices", "vertices", "vertices", "bones", "bones", "targets"};
  for (size_t i = 0; i < std::size(bad); ++i) {
    auto asset = makeDemoAsset(bad[i]);
    ASSERT_FALSE(asset.ok()) << i;
    EXPECT_EQ(asset.error().code, Error::kInvalidArgument);
    EXPECT_NE(asset.error().message.find(expected[i]), std::string::npos) << asset.error().message;
    EXPECT_EQ(asset.error().message.rfind("make-demo: ", 0), 0u) << asset.error().message;
  }
  EXPECT_TRUE(makeDemoAsset({.targets = kDemoMaxTargets, .vertices = kDemoMinVertices, .bones = kDemoMaxBones}).ok());
}

}  // namespace
}  // namespace morphkit

namespace morphkit {
namespace {

// `morphkit pose --out X.glb` writes a static glTF of the posed meshes; it must pass the Khronos validator too.
TEST(PosedGlbValidator, PosedSharedModelsHaveNoErrors) {
  MORPHKIT_REQUIRE_SHARED();
  MORPHKIT_REQUIRE_VALIDATOR();
  const auto dir = test::scratchDir();
  const char* models[] = {"MorphSkinBlob52/MorphSkinBlob52_sparse.glb", "SkinMorphEdgeCases/skin_morph.gltf",
                          "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb"};
  for (const char* model : models) {
    const auto out = dir / (std::filesystem::path(model).stem().string() + "_posed.glb");
    std::string pose = "'" + test::cliPath().string() + "' pose '" + (test::assetsDir() / model).string() +
                       "' --anim 0 --time 0.5 --out '" + out.string() + "' >/dev/null 2>&1";
    if (std::string(model).find("MorphPrimitivesTest") != std::string::npos) {  // no animation: rest pose
      pose = "'" + test::cliPath().string() + "' pose '" + (test::assetsDir() / model).string() + "' --out '" +
             out.string() + "' >/dev/null 2>&1";
    }
    ASSERT_EQ(std::system(pose.c_str()), 0) << model;
    EXPECT_EQ(validateFile(out), 0) << model << ": the validator reported errors";
  }
}

}  // namespace
}  // namespace morphkit
