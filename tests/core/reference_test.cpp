// SPDX-License-Identifier: MIT
// reference_test.cpp — differential test of the CPU pose (reference and fast paths) against the independent
// engines' output in shared/reference/ (three.js, cross-checked by Babylon.js; see its README.md for the format
// and the tolerances used here): every model file under shared/assets/gltf, every case in its reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/pose_writers.h"
#include "morphkit/model/files.h"
#include "reference_json.h"
#include "test_support.h"

namespace morphkit {
namespace {

// ---- The models: every file under shared/assets/gltf (ModelList.CoversEveryModelFile keeps this complete) ----
const std::vector<std::string>& modelFiles() {
  static const std::vector<std::string> files = {
      "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
      "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
      "AnimatedTriangle/glTF/AnimatedTriangle.gltf",
      "BlenderIO_01_cs_morph/01_cs_morph.gltf",
      "BlenderIO_01_morphed_triangle/01_morphed_triangle.gltf",
      "BlenderIO_03_skinned_cylinder/03_skinned_cylinder.gltf",
      "Fox/glTF-Binary/Fox.glb",
      "InterpolationTest/glTF-Binary/InterpolationTest.glb",
      "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb",
      "MorphSkinBlob52/MorphSkinBlob52.glb",
      "MorphSkinBlob52/MorphSkinBlob52_quantized.glb",
      "MorphSkinBlob52/MorphSkinBlob52_sparse.glb",
      "RiggedFigure/glTF/RiggedFigure.gltf",
      "RiggedSimple/glTF-Binary/RiggedSimple.glb",
      "SimpleMorph/glTF/SimpleMorph.gltf",
      "SimpleSkin/glTF/SimpleSkin.gltf",
      "SimpleSkin/glTF-Embedded/SimpleSkin.gltf",
      "SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf",
      "SkinMorphEdgeCases/skin_morph.gltf",
      "SkinMorphEdgeCases/skin_morph.glb",
  };
  return files;
}

// X/Y.gltf|glb → X/Y.json (both SkinMorphEdgeCases containers map to skin_morph.json).
std::filesystem::path referenceFor(const std::string& model) {
  std::filesystem::path rel(model);
  rel.replace_extension(".json");
  return test::referenceDir() / rel;
}

// Compares every case of the model's reference with evaluatePose on `path`.
void checkModel(const std::string& model, CpuPath path, test::ReferenceStats& stats) {
  const std::filesystem::path file = test::assetsDir() / model;
  Expected<Asset> asset = loadAsset(file);
  ASSERT_TRUE(asset.ok()) << model << ": " << asset.error().message;
  test::Json ref;
  ASSERT_TRUE(test::loadReference(referenceFor(model), ref));
  // SimpleSkin's non-unit keyframe quaternions: the README grants 2e-4 × bbox there.
  const double position_tolerance = model.rfind("SimpleSkin/", 0) == 0 ? 2e-4 : 1e-5;

  Expected<PosePrepared> prepared = preparePose(*asset);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  ThreadPool pool(2);
  PoseResult reused;  // the fast path poses every case into one result, as a player does (buffers reused)
  for (const test::Json& c : ref.get("cases")->items) {
    PoseOptions options;
    options.animation = test::caseAnimation(c);
    options.time = test::caseTime(c);
    options.path = path;
    options.pool = &pool;
    SCOPED_TRACE(test::caseName(model, c));
    if (path == CpuPath::kFast) {
      Status s = evaluatePose(*prepared, options, reused);
      ASSERT_TRUE(s.ok()) << s.error().message;
      test::expectMatchesCase(reused, c, position_tolerance, stats);
      continue;
    }
    Expected<PoseResult> pose = evaluatePose(*prepared, options);
    ASSERT_TRUE(pose.ok()) << pose.error().message;
    test::expectMatchesCase(*pose, c, position_tolerance, stats);
  }
}

// evaluatePose into a reused result: the same bits as a fresh result, frame after frame, with no reallocation
// of the vertex arrays after the first frame.
TEST(EvaluatePose, ReusedResultEqualsFreshAndKeepsItsBuffers) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> asset = loadAsset(test::assetsDir() / "MorphSkinBlob52/MorphSkinBlob52.glb");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  Expected<PosePrepared> prepared = preparePose(*asset);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  for (CpuPath path : {CpuPath::kReference, CpuPath::kFast}) {
    PoseResult reused;
    const float* positions = nullptr;
    const float* tangents = nullptr;
    for (auto [animation, time] : {std::pair{kNone, 0.0}, {0u, 0.3}, {2u, 1.7}, {1u, 2.2}, {2u, 0.1}}) {
      PoseOptions options;
      options.animation = animation;
      options.time = time;
      options.path = path;
      ASSERT_TRUE(evaluatePose(*prepared, options, reused).ok());
      Expected<PoseResult> fresh = evaluatePose(*prepared, options);
      ASSERT_TRUE(fresh.ok());
      ASSERT_EQ(reused.meshes.size(), fresh->meshes.size());
      EXPECT_EQ(reused.animation, animation);
      EXPECT_EQ(reused.time, time);
      for (size_t m = 0; m < fresh->meshes.size(); ++m) {
        const PosedPrimitive& a = reused.meshes[m];
        const PosedPrimitive& b = fresh->meshes[m];
        EXPECT_EQ(a.node, b.node);
        EXPECT_EQ(a.weights, b.weights);
        EXPECT_EQ(a.positions, b.positions);
        EXPECT_EQ(a.normals, b.normals);
        EXPECT_EQ(a.tangents, b.tangents);
        EXPECT_EQ(a.texcoords, b.texcoords);
        EXPECT_EQ(a.indices, b.indices);
      }
      if (positions) {
        EXPECT_EQ(reused.meshes[0].positions.data(), positions) << "positions reallocated";
        EXPECT_EQ(reused.meshes[0].tangents.data(), tangents) << "tangents reallocated";
      }
      positions = reused.meshes[0].positions.data();
      tangents = reused.meshes[0].tangents.data();
    }
  }
}

class ReferenceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceTest, ReferencePathMatchesEveryCase) {
  MORPHKIT_REQUIRE_SHARED();
  test::ReferenceStats stats;
  checkModel(GetParam(), CpuPath::kReference, stats);
  RecordProperty("cases", stats.cases);
  std::printf("  %s [reference]: %d cases, worst position error %.3g of tolerance, worst normal error %.3g\n",
              GetParam().c_str(), stats.cases, stats.worst_position_ratio, stats.worst_normal);
}

TEST_P(ReferenceTest, FastPathMatchesEveryCase) {
  MORPHKIT_REQUIRE_SHARED();
  test::ReferenceStats stats;
  checkModel(GetParam(), CpuPath::kFast, stats);
  std::printf("  %s [fast]: %d cases, worst position error %.3g of tolerance, worst normal error %.3g\n",
              GetParam().c_str(), stats.cases, stats.worst_position_ratio, stats.worst_normal);
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (char c : info.param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllModels, ReferenceTest, ::testing::ValuesIn(modelFiles()), testName);

// The list above must name every model file that exists, and each must have a reference file.
TEST(ModelList, CoversEveryModelFile) {
  MORPHKIT_REQUIRE_SHARED();
  std::set<std::string> listed(modelFiles().begin(), modelFiles().end());
  std::set<std::string> found;
  for (const std::filesystem::path& file : test::sharedModelFiles()) {
    found.insert(std::filesystem::relative(file, test::assetsDir()).generic_string());
  }
  EXPECT_EQ(found, listed) << "update modelFiles() in reference_test.cpp";
  for (const std::string& model : found) EXPECT_TRUE(std::filesystem::exists(referenceFor(model))) << model;
}

// writePoseJson output re-read by the parser above: the schema of shared/reference/README.md.
TEST(PoseJson, MatchesTheReferenceSchema) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> asset = loadAsset(test::assetsDir() / "SkinMorphEdgeCases/skin_morph.gltf");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  std::vector<PoseResult> cases;
  for (double t : {0.0, 0.5}) {
    PoseOptions options;
    options.animation = t == 0.0 ? kNone : 0;
    options.time = t;
    Expected<PoseResult> pose = poseAsset(*asset, kNone, options);
    ASSERT_TRUE(pose.ok()) << pose.error().message;
    cases.push_back(std::move(*pose));
  }
  const std::string text = writePoseJson(cases, "SkinMorphEdgeCases/skin_morph.gltf");
  test::Json doc;
  ASSERT_TRUE(test::JsonParser(text).parse(doc)) << text.substr(0, 200);
  ASSERT_EQ(doc.kind, test::Json::kObject);
  std::vector<std::string> keys;
  for (const auto& f : doc.fields) keys.push_back(f.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"model", "engine", "cases"}));
  EXPECT_EQ(doc.get("engine")->text, "morphkit");
  EXPECT_EQ(doc.get("model")->text, "SkinMorphEdgeCases/skin_morph.gltf");
  const test::Json* c = doc.get("cases");
  ASSERT_EQ(c->items.size(), 2u);
  EXPECT_EQ(c->items[0].get("anim")->kind, test::Json::kNull);
  EXPECT_EQ(c->items[1].get("anim")->number, 0);
  EXPECT_EQ(c->items[1].get("time")->number, 0.5);
  const test::Json* meshes = c->items[1].get("meshes");
  ASSERT_EQ(meshes->items.size(), 3u);
  std::vector<std::string> mesh_keys;
  for (const auto& f : meshes->items[0].fields) mesh_keys.push_back(f.first);
  EXPECT_EQ(mesh_keys, (std::vector<std::string>{"node", "mesh", "primitive", "skinned", "vertexCount", "weights",
                                                 "positions", "normals"}));
  EXPECT_EQ(meshes->items[2].get("normals")->kind, test::Json::kNull);  // mesh 1 primitive 1 has no NORMAL
  EXPECT_EQ(meshes->items[0].get("positions")->numbers.size(), 18u);
}

}  // namespace
}  // namespace morphkit
