// SPDX-License-Identifier: MIT
// optimize's passes (src/optimize/pass_*.cpp, docs/OPTIMIZE.md "Passes"): what each changes and keeps, what the report
// says of it, and that the output still holds the bound at every verified pose.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/accessor.h"
#include "morphkit/model/asset_builder.h"
#include "morphkit/optimize/optimize.h"
#include "optimize_support.h"
#include "test_support.h"

namespace morphkit {
namespace {

Asset cube() {
  return test::validated(loadAsset(test::assetsDir() / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf"));
}

using test::Optimized;
using test::optimizeOrDie;

const OptimizePassReport& pass(const OptimizeReport& report, const std::string& name) {
  for (const OptimizePassReport& p : report.passes) {
    if (p.name == name) return p;
  }
  static const OptimizePassReport kMissing;
  ADD_FAILURE() << "no pass " << name << " in the report";
  return kMissing;
}

const Accessor& positionOf(const Asset& asset, uint32_t mesh = 0) {
  return asset.accessors[findAttribute(asset.meshes[mesh].primitives[0].attributes, "POSITION")];
}

TEST(OptimizePasses, ReportListsEveryPassInOrder) {
  MORPHKIT_REQUIRE_SHARED();
  OptimizeOptions options;
  options.skip_passes = {"drop-direction-deltas"};
  const Optimized run = optimizeOrDie(cube(), options);
  ASSERT_EQ(run.report.passes.size(), std::size(kOptimizePassNames));
  for (size_t i = 0; i < run.report.passes.size(); ++i) {
    EXPECT_EQ(run.report.passes[i].name, kOptimizePassNames[i]);
    EXPECT_EQ(run.report.passes[i].ran, run.report.passes[i].name != "drop-direction-deltas");
  }
  const std::string json = optimizeReportJson(run.report, "in.gltf", "out.glb");
  EXPECT_NE(json.find("\"passes\":[{\"name\":\"drop-attributes\",\"ran\":true"), std::string::npos) << json;
  EXPECT_GT(run.report.input_bytes, 0u);  // the .gltf and its .bin, counted by the library
}

TEST(OptimizePasses, AnUnknownPassNameIsRefused) {
  MORPHKIT_REQUIRE_SHARED();
  OptimizeOptions options;
  options.skip_passes = {"resample"};
  OptimizeReport report;
  Expected<std::vector<uint8_t>> glb = optimizeAsset(cube(), options, report);
  ASSERT_FALSE(glb.ok());
  EXPECT_NE(glb.error().message.find("no pass is named 'resample'"), std::string::npos) << glb.error().message;
}

// The cube's material has no texture: its TANGENT is read by nothing and goes, unless --keep-attributes.
TEST(OptimizePasses, AttributesNoMaterialReadsAreDroppedAndNamed) {
  MORPHKIT_REQUIRE_SHARED();
  const Asset input = cube();
  ASSERT_NE(findAttribute(input.meshes[0].primitives[0].attributes, "TANGENT"), kNone);
  const Optimized dropped = optimizeOrDie(input);
  EXPECT_EQ(findAttribute(dropped.asset.meshes[0].primitives[0].attributes, "TANGENT"), kNone);
  EXPECT_NE(findAttribute(dropped.asset.meshes[0].primitives[0].attributes, "NORMAL"), kNone);
  const OptimizePassReport& report = pass(dropped.report, "drop-attributes");
  ASSERT_EQ(report.changes.size(), 1u);
  EXPECT_NE(report.changes[0].find("meshes[0] 'Cube'.primitives[0]: dropped TANGENT"), std::string::npos)
      << report.changes[0];
  uint64_t tangent_bytes = 0;  // the base TANGENT (VEC4) and every target's TANGENT delta (VEC3), float
  const Primitive& primitive = input.meshes[0].primitives[0];
  tangent_bytes += uint64_t(input.accessors[findAttribute(primitive.attributes, "TANGENT")].count) * 16u;
  for (const MorphTarget& target : primitive.targets) {
    const uint32_t delta = findAttribute(target.attributes, "TANGENT");
    if (delta != kNone) tangent_bytes += uint64_t(input.accessors[delta].count) * 12u;
  }
  EXPECT_EQ(report.bytes_removed, tangent_bytes);
  EXPECT_LE(dropped.report.max_distance, dropped.report.bound);

  OptimizeOptions keep;
  keep.keep_attributes = true;
  const Optimized kept = optimizeOrDie(input, keep);
  EXPECT_NE(findAttribute(kept.asset.meshes[0].primitives[0].attributes, "TANGENT"), kNone);
  EXPECT_TRUE(pass(kept.report, "drop-attributes").changes.empty());
}

// A texture reading TEXCOORD_0 keeps it, and a normal map keeps TANGENT.
TEST(OptimizePasses, AttributesAMaterialReadsAreKept) {
  MORPHKIT_REQUIRE_SHARED();
  Asset input = cube();
  std::vector<float> uv(2 * size_t(positionOf(input).count), 0.5f);
  input.meshes[0].primitives[0].attributes.push_back(
      {"TEXCOORD_0", appendAccessor(input, std::span<const float>(uv), AccessorType::kVec2)});
  input.textures.push_back(Texture{});  // no image: what is sampled does not matter here, only through which set
  input.materials[0].normal_texture.texture = 0;
  const Optimized run = optimizeOrDie(test::validated(std::move(input)));
  EXPECT_NE(findAttribute(run.asset.meshes[0].primitives[0].attributes, "TEXCOORD_0"), kNone);
  EXPECT_NE(findAttribute(run.asset.meshes[0].primitives[0].attributes, "TANGENT"), kNone);
  EXPECT_TRUE(pass(run.report, "drop-attributes").changes.empty());
}

// The cube is ±0.01 under a node scale of 100: 16 normalized bits over ±1 are too coarse for its bound, so without
// the pass its positions stay float. With it they are integers on the cube's own grid, undone by its node's
// transform (no node added), and the bound holds.
TEST(OptimizePasses, AnUnskinnedMeshIsDequantizedByItsNode) {
  MORPHKIT_REQUIRE_SHARED();
  const Asset input = cube();
  const Optimized with = optimizeOrDie(input);
  EXPECT_EQ(positionOf(with.asset).component_type, ComponentType::kShort);
  EXPECT_FALSE(positionOf(with.asset).normalized);
  ASSERT_EQ(with.asset.nodes.size(), input.nodes.size());
  EXPECT_NE(with.asset.nodes[0].scale.x, input.nodes[0].scale.x);  // D folded into the node
  EXPECT_EQ(with.asset.nodes[0].name, input.nodes[0].name);
  EXPECT_LE(with.report.max_distance, with.report.bound);
  ASSERT_EQ(pass(with.report, "node-dequantization").changes.size(), 1u);
  EXPECT_NE(pass(with.report, "node-dequantization").changes[0].find("nodes[0] (its transform)"), std::string::npos);

  OptimizeOptions skip;
  skip.skip_passes = {"node-dequantization"};
  const Optimized without = optimizeOrDie(input, skip);
  EXPECT_EQ(positionOf(without.asset).component_type, ComponentType::kFloat);
  EXPECT_LT(with.glb.size(), without.glb.size());
}

// A node with a child cannot change its transform (the child would move): the mesh moves into a new first child that
// carries D, its weights channel follows it, and every pose still holds the bound. --keep-nodes adds no node.
TEST(OptimizePasses, ANodeWithChildrenGetsADequantizingChild) {
  MORPHKIT_REQUIRE_SHARED();
  Asset input = cube();
  Node empty;
  empty.name = "attachment";
  empty.translation = DVec3{0.01, 0, 0};
  input.nodes.push_back(empty);
  input.nodes[0].children.push_back(1);
  input = test::validated(std::move(input));
  const Optimized run = optimizeOrDie(input);
  ASSERT_EQ(run.asset.nodes.size(), input.nodes.size() + 1);
  const uint32_t child = uint32_t(input.nodes.size());
  EXPECT_EQ(run.asset.nodes[0].mesh, kNone);
  EXPECT_EQ(run.asset.nodes[child].mesh, 0u);
  EXPECT_EQ(run.asset.nodes[0].children, (std::vector<uint32_t>{child, 1u}));
  EXPECT_EQ(run.asset.nodes[1].translation.x, 0.01);  // the attachment did not move
  EXPECT_EQ(run.asset.animations[0].channels[0].node, child);
  EXPECT_EQ(positionOf(run.asset).component_type, ComponentType::kShort);
  EXPECT_LE(run.report.max_distance, run.report.bound);
  EXPECT_NE(pass(run.report, "node-dequantization").changes[0].find("a new child of nodes[0]"), std::string::npos);

  OptimizeOptions keep;
  keep.keep_nodes = true;
  const Optimized kept = optimizeOrDie(input, keep);
  EXPECT_EQ(kept.asset.nodes.size(), input.nodes.size());
  EXPECT_EQ(kept.asset.nodes[0].mesh, 0u);
  EXPECT_NE(pass(kept.report, "node-dequantization").changes[0].find("--keep-nodes"), std::string::npos);
  EXPECT_LE(kept.report.max_distance, kept.report.bound);
}

// The cube drawn without indices: every corner repeated for each triangle that uses it. The repeats are identical in
// position, normal, tangent and every target's deltas, so they weld back into one vertex each; input vertex v is
// output vertex remap[v], and every pose holds the bound through that map.
TEST(OptimizePasses, IdenticalVerticesWeldAndTheVerificationFollowsThem) {
  MORPHKIT_REQUIRE_SHARED();
  Asset input = cube();
  Primitive& primitive = input.meshes[0].primitives[0];
  const std::vector<uint32_t> indices = readAccessorUints(input, primitive.indices);
  auto expand = [&](Attribute& attribute) {
    const uint32_t n = componentCount(input.accessors[attribute.accessor].type);
    const std::vector<float> values = readAccessorFloats(input, attribute.accessor);
    std::vector<float> expanded;
    for (uint32_t index : indices)
      expanded.insert(expanded.end(), &values[size_t(index) * n], &values[size_t(index) * n] + n);
    attribute.accessor =
        appendAccessor(input, std::span<const float>(expanded), input.accessors[attribute.accessor].type,
                       {.min_max = attribute.name == "POSITION"});
  };
  for (Attribute& attribute : primitive.attributes) expand(attribute);
  for (MorphTarget& target : primitive.targets) {
    for (Attribute& attribute : target.attributes) expand(attribute);
  }
  primitive.indices = kNone;
  input = test::validated(std::move(input));
  const Optimized run = optimizeOrDie(input);
  const std::vector<std::string>& changes = pass(run.report, "weld").changes;
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_NE(changes[0].find("36 -> 24 vertices"), std::string::npos) << changes[0];
  EXPECT_EQ(positionOf(run.asset).count, 24u);
  ASSERT_EQ(run.report.vertex_remap.size(), 1u);
  EXPECT_EQ(run.report.vertex_remap[0][0].size(), 36u);
  EXPECT_LE(run.report.max_distance, run.report.bound);

  OptimizeOptions skip;
  skip.skip_passes = {"weld"};
  const Optimized unwelded = optimizeOrDie(input, skip);
  EXPECT_EQ(positionOf(unwelded.asset).count, 36u);
  EXPECT_TRUE(unwelded.report.vertex_remap[0][0].empty());
}

// The reorder pass (docs/OPTIMIZE.md, "Passes"): Fox's triangles miss the vertex cache 2.5 times as often as
// meshoptimizer's order, so the pass is tried; the whole file gzipped with and without it decides whether it stays,
// and the report gives both sizes. Where it stays, input vertex v is output vertex remap[v] in every pose.
TEST(OptimizePasses, ReorderStaysOnlyWhereTheFileGzipsSmaller) {
  MORPHKIT_REQUIRE_SHARED();
  const Asset input = test::validated(loadAsset(test::assetsDir() / "Fox/glTF-Binary/Fox.glb"));
  const Optimized run = optimizeOrDie(input);
  const std::vector<std::string>& changes = pass(run.report, "reorder").changes;
  ASSERT_EQ(changes.size(), 2u);
  // Fox is drawn without indices: the weld pass has made 1728 corners 434 vertices and indexed them first.
  EXPECT_NE(changes[0].find("576 triangles in vertex-cache order, 434 vertices in fetch order"), std::string::npos)
      << changes[0];
  unsigned long with = 0, without = 0;
  char verdict[16] = {};
  ASSERT_EQ(std::sscanf(changes[1].c_str(), "%15[a-z]: the file gzips to %lu bytes with it, %lu without", verdict,
                        &with, &without),
            3)
      << changes[1];
  const bool kept = std::string(verdict) == "kept";
  EXPECT_EQ(kept, with < without) << changes[1];
  // Every input corner has its output vertex, and every output vertex stands for one (weld, then reorder).
  const std::vector<uint32_t>& remap = run.report.vertex_remap[0][0];
  ASSERT_EQ(remap.size(), 1728u);
  const std::set<uint32_t> hit(remap.begin(), remap.end());
  EXPECT_EQ(hit.size(), 434u);
  EXPECT_EQ(*hit.rbegin(), 433u);
  if (kept) {  // fetch order numbers the vertices as the triangles first use them
    const Primitive& primitive = run.asset.meshes[0].primitives[0];
    const std::vector<uint32_t> indices = readAccessorUints(run.asset, primitive.indices);
    ASSERT_GE(indices.size(), 3u);
    EXPECT_EQ(std::max({indices[0], indices[1], indices[2]}), 2u);
  }
  EXPECT_LE(run.report.max_distance, run.report.bound);

  OptimizeOptions skip;
  skip.skip_passes = {"reorder"};
  EXPECT_TRUE(pass(optimizeOrDie(input, skip).report, "reorder").changes.empty());
}

// An order as coherent as the vertex cache's (the cube: every order of its 12 triangles misses alike) stays as it is.
TEST(OptimizePasses, ACoherentOrderIsLeftAsItIs) {
  MORPHKIT_REQUIRE_SHARED();
  const Optimized run = optimizeOrDie(cube());
  EXPECT_TRUE(pass(run.report, "reorder").changes.empty());
  EXPECT_TRUE(run.report.vertex_remap[0][0].empty());
}

// skin_morph's TwoPrims has a target without POSITION beside one with it: three.js adds weight × the stored base there
// (docs/CHECK.md, missing-delta-is-base), so an offset grid would move it in three.js alone. The pass says so and the
// positions stay where they were stored (OptimizeEngines.ThreeJsPosesTheOutputWithinTheBound poses it in three.js).
TEST(OptimizePasses, AMeshThreeJsReadsTheBaseAsADeltaKeepsItsFrame) {
  MORPHKIT_REQUIRE_SHARED();
  const Asset input = test::validated(loadAsset(test::assetsDir() / "SkinMorphEdgeCases/skin_morph.gltf"));
  const Optimized run = optimizeOrDie(input);
  const std::vector<std::string>& changes = pass(run.report, "node-dequantization").changes;
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_NE(changes[0].find("meshes[1] 'TwoPrims': positions kept"), std::string::npos) << changes[0];
  EXPECT_NE(changes[0].find("targets without POSITION"), std::string::npos) << changes[0];
  EXPECT_EQ(run.asset.nodes[5].scale.x, input.nodes[5].scale.x);
  EXPECT_LE(run.report.max_distance, run.report.bound);
}

// The simplify pass (docs/OPTIMIZE.md, "Levels of detail"): half the triangles, every target, attribute, skin and
// animation kept; the encoding verified against the simplified mesh, the simplification measured as surfaces.
TEST(OptimizePasses, SimplifyHalvesTheTrianglesAndMeasuresTheSurfaces) {
  DemoOptions demo;
  demo.targets = 3;
  demo.vertices = 300;
  const Asset input = test::validated(makeDemoAsset(demo));
  OptimizeOptions options;
  options.simplify_ratio = 0.5;
  const Optimized run = optimizeOrDie(input, options);
  ASSERT_EQ(run.asset.meshes.size(), input.meshes.size());
  const Primitive& before = input.meshes[0].primitives[0];
  const Primitive& after = run.asset.meshes[0].primitives[0];
  const uint32_t triangles = input.accessors[before.indices].count / 3;
  EXPECT_LE(run.asset.accessors[after.indices].count / 3, triangles / 2);
  EXPECT_GE(run.asset.accessors[after.indices].count / 3, triangles / 2 - 2);
  EXPECT_LT(run.asset.accessors[findAttribute(after.attributes, "POSITION")].count,
            input.accessors[findAttribute(before.attributes, "POSITION")].count);
  EXPECT_EQ(after.targets.size(), before.targets.size());
  EXPECT_EQ(run.asset.meshes[0].target_names, input.meshes[0].target_names);
  EXPECT_EQ(run.asset.animations.size(), input.animations.size());
  EXPECT_EQ(run.asset.skins.size(), input.skins.size());
  EXPECT_NE(findAttribute(after.attributes, "WEIGHTS_0"), kNone);
  EXPECT_LE(run.report.max_distance, run.report.bound);
  const std::vector<std::string>& changes = pass(run.report, "simplify").changes;
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_NE(changes[0].find(std::to_string(triangles) + " -> "), std::string::npos) << changes[0];
  std::vector<std::string> categories;
  for (const OptimizeError& e : run.report.surface_errors) {
    categories.push_back(e.category);
    EXPECT_GT(e.max_distance, 0.0) << e.category;  // a simplified surface is not the input's
    EXPECT_LT(e.max_distance, 0.05 * run.report.diagonal) << e.category << ": " << e.worst;
  }
  EXPECT_EQ(categories, (std::vector<std::string>{"rest", "targets", "default weights", "animations"}));
  EXPECT_NE(optimizeReportJson(run.report, "in", "out").find("\"surfaceErrors\""), std::string::npos);

  const Optimized off = optimizeOrDie(input);
  EXPECT_EQ(off.asset.accessors[off.asset.meshes[0].primitives[0].indices].count / 3, triangles);
  EXPECT_TRUE(off.report.surface_errors.empty());
  EXPECT_TRUE(pass(off.report, "simplify").changes.empty());
}

TEST(OptimizePasses, ASimplifyRatioOutsideZeroToOneIsRefused) {
  DemoOptions demo;
  demo.targets = 1;
  demo.vertices = 200;
  const Asset input = test::validated(makeDemoAsset(demo));
  for (double ratio : {-0.5, 1.5, double(NAN)}) {
    OptimizeOptions options;
    options.simplify_ratio = ratio;
    OptimizeReport report;
    Expected<std::vector<uint8_t>> glb = optimizeAsset(input, options, report);
    ASSERT_FALSE(glb.ok()) << ratio;
    EXPECT_NE(glb.error().message.find("simplify ratio"), std::string::npos) << glb.error().message;
  }
}

}  // namespace
}  // namespace morphkit
