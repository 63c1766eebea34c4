// SPDX-License-Identifier: MIT
// field_test.cpp — files as they arrive from the field (../shared/field/README.md): shared models re-encoded by
// gltfpack, glTF-Transform and a weight-scaling script. Every file is posed on both CPU paths and on the GPU
// compute path and compared with its three.js reference (cross-checked by Babylon.js) at the README's
// tolerances; plus the skin-weight rescaling those engines apply, tested on its own.
#include <gtest/gtest.h>

#include "field_support.h"

namespace morphkit {
namespace {

TEST_P(FieldReferenceTest, ReferencePathMatchesEveryCase) {
  MORPHKIT_REQUIRE_SHARED();
  checkCpu(GetParam(), CpuPath::kReference);
}

TEST_P(FieldReferenceTest, FastPathMatchesEveryCase) {
  MORPHKIT_REQUIRE_SHARED();
  checkCpu(GetParam(), CpuPath::kFast);
}

INSTANTIATE_TEST_SUITE_P(FieldModels, FieldReferenceTest, ::testing::ValuesIn(fieldModels()), fieldName);

// The list above names every file of ../shared/field/assets, and each has its reference.
TEST(FieldList, CoversEveryFieldFile) {
  MORPHKIT_REQUIRE_SHARED();
  std::set<std::string> listed, found;
  for (const FieldModel& model : fieldModels()) listed.insert(model.file);
  for (const auto& entry : std::filesystem::directory_iterator(fieldDir() / "assets")) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".gltf" || ext == ".glb") found.insert(entry.path().filename().string());
  }
  EXPECT_EQ(found, listed) << "update fieldModels() in field_test.cpp";
  for (const std::string& file : found) EXPECT_TRUE(std::filesystem::exists(fieldReference(file))) << file;
}

TEST_F(FieldGpuTest, ComputePathMatchesEveryReference) {
  MORPHKIT_REQUIRE_SHARED();
  MORPHKIT_REQUIRE_GPU(context_);
  for (const FieldModel& model : fieldModels()) {
    SCOPED_TRACE(model.file);
    Expected<Asset> asset = loadAsset(fieldDir() / "assets" / model.file);
    ASSERT_TRUE(asset.ok()) << model.file << ": " << asset.error().message;
    Expected<PosePrepared> prepared = preparePose(*asset);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    Expected<GpuPose*> gpu = prepareGpuPose(*context_, *prepared, GpuUploadOptions{});
    ASSERT_TRUE(gpu.ok()) << gpu.error().message;
    test::ReferenceStats stats;
    checkField(
        model,
        [&](uint32_t animation, double time) {
          GpuPoseOptions options;
          options.animation = animation;
          options.time = time;
          return evaluateGpuPose(*context_, **gpu, options);
        },
        stats);
    destroyGpuPose(*context_, *gpu);
    std::printf("  %s [gpu compute]: %d cases, worst position error %.3g of tolerance (%.3g of bbox)\n",
                model.file.c_str(), stats.cases, stats.worst_position_ratio, stats.worst_position_relative);
  }
}

TEST(SkinWeights, RescaledToSumOneLikeThreeJs) {
  // Four vertices of one set: unnormalized, already normalized, all zero, and within float rounding of 1.
  std::vector<float> w = {0.3f, 0.3f, 0.0f, 0.0f, 0.5f, 0.25f, 0.25f, 0.0f, 0, 0, 0, 0, 0.7f, 0.2f, 0.1f, 0.0f};
  const std::vector<float> stored = w;
  SkinWeightFix fix = normalizeSkinWeights(w, 4);
  EXPECT_EQ(fix.rescaled, 2u);
  EXPECT_EQ(fix.zero, 1u);
  EXPECT_EQ(fix.worst_sum, 0.0);  // the all-zero vertex is the furthest from 1
  EXPECT_FLOAT_EQ(w[0], 0.5f);
  EXPECT_FLOAT_EQ(w[1], 0.5f);
  for (int k = 4; k < 8; ++k) EXPECT_EQ(w[k], stored[k]) << "a vertex that sums to 1 is left exactly as stored";
  // three.js: an all-zero vertex gets (1, 0, 0, 0), so it follows the joint of its first influence.
  EXPECT_EQ(w[8], 1.0f);
  EXPECT_EQ(w[9] + w[10] + w[11], 0.0f);
  for (int k = 12; k < 16; ++k) EXPECT_EQ(w[k], stored[k]);
}

TEST(SkinWeights, TwoSetsAreRescaledTogether) {
  // JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1: 8 influences per vertex, summed together.
  std::vector<float> w = {0.2f, 0.2f, 0, 0, 0.2f, 0.2f, 0, 0};
  SkinWeightFix fix = normalizeSkinWeights(w, 8);
  EXPECT_EQ(fix.rescaled, 1u);
  EXPECT_NEAR(fix.worst_sum, 0.8, 1e-6);
  for (int k : {0, 1, 4, 5}) EXPECT_FLOAT_EQ(w[k], 0.25f);
}

TEST(SkinWeights, AllZeroVertexFollowsItsFirstJoint) {
  Expected<Asset> asset = test::loadJson(zeroWeightTriangle());
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  for (CpuPath path : {CpuPath::kReference, CpuPath::kFast}) {
    PoseOptions options;
    options.path = path;
    Expected<PoseResult> pose = poseAsset(*asset, kNone, options);
    ASSERT_TRUE(pose.ok()) << pose.error().message;
    const std::vector<float>& p = pose->meshes[0].positions;
    // v0: weight 1 on joint 0 (+10 x). v1: zero weights → (1,0,0,0) on its first joint, joint 1 (+20 y).
    // v2: weights 0.25/0.25 on joints 0 and 1, rescaled to 0.5/0.5: (0,1,0) + (5, 10, 0).
    EXPECT_FLOAT_EQ(p[0], 10.0f);
    EXPECT_FLOAT_EQ(p[3], 1.0f);
    EXPECT_FLOAT_EQ(p[4], 20.0f);
    EXPECT_FLOAT_EQ(p[6], 5.0f);
    EXPECT_FLOAT_EQ(p[7], 11.0f);
  }
}

TEST(SkinWeights, KeepSkinWeightsUsesTheStoredValues) {
  LoadOptions keep;
  keep.keep_skin_weights = true;
  Expected<Asset> asset = test::loadJson(zeroWeightTriangle(), ".", keep);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  Expected<PrimitiveData> data = decodePrimitive(*asset, 0, 0);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->skin_weight_fix.rescaled, 0u);
  EXPECT_EQ(data->skin_weights, readAccessorFloats(*asset, 2));
  Expected<PoseResult> pose = poseAsset(*asset, kNone, PoseOptions{});
  ASSERT_TRUE(pose.ok());
  const std::vector<float>& p = pose->meshes[0].positions;
  EXPECT_FLOAT_EQ(p[3], 0.0f);  // zero weights as stored: the blended matrix is zero
  EXPECT_FLOAT_EQ(p[6], 2.5f);  // 0.25 · (10, 1, 0) + 0.25 · (0, 21, 0)
  EXPECT_FLOAT_EQ(p[7], 5.5f);
}

// Without the rescaling the unnormalized files miss their references (the flag really changes the numbers).
TEST(SkinWeights, KeptWeightsMissTheReference) {
  MORPHKIT_REQUIRE_SHARED();
  LoadOptions keep;
  keep.keep_skin_weights = true;
  Expected<Asset> asset = loadAsset(fieldDir() / "assets" / "Fox_unnormalized.glb", keep);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  Expected<PoseResult> pose = poseAsset(*asset, kNone, PoseOptions{});
  ASSERT_TRUE(pose.ok());
  test::Json ref;
  ASSERT_TRUE(test::loadReference(fieldReference("Fox_unnormalized.glb"), ref));
  const std::vector<double>& want = ref.get("cases")->items[0].get("meshes")->items[0].get("positions")->numbers;
  ASSERT_EQ(want.size(), pose->meshes[0].positions.size());
  double worst = 0;
  for (size_t k = 0; k < want.size(); ++k) worst = std::max(worst, std::fabs(want[k] - pose->meshes[0].positions[k]));
  EXPECT_GT(worst / test::bboxDiagonalOf(want), 0.1);
}

TEST(SkinWeights, InspectReportsRescaledVerticesAndTheWorstSum) {
  MORPHKIT_REQUIRE_SHARED();
  const std::filesystem::path dir = test::scratchDir();
  const std::string file = (fieldDir() / "assets" / "Fox_unnormalized.glb").string();
  test::CliRun run = test::runMorphkit(dir, "inspect --json '" + file + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  test::Json doc;
  ASSERT_TRUE(test::JsonParser(run.out).parse(doc)) << run.out.substr(0, 200);
  const test::Json* weights = doc.get("meshes")->items[0].get("primitives")->items[0].get("skinWeights");
  ASSERT_NE(weights, nullptr);
  // unnormalize_weights.py scales vertex i by 0.6 (i % 3 == 0) or 1.3 (i % 3 == 1): 2 of every 3 of 1728.
  EXPECT_EQ(weights->get("rescaled")->number, 1152);
  EXPECT_EQ(weights->get("zero")->number, 0);
  EXPECT_NEAR(weights->get("worstSum")->number, 0.6, 1e-5);
  ASSERT_EQ(doc.get("warnings")->items.size(), 1u);
  EXPECT_NE(doc.get("warnings")->items[0].text.find("1152 vertices"), std::string::npos);

  run = test::runMorphkit(dir, "inspect '" + file + "'");
  ASSERT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("skin weights: 1152 vertices rescaled to sum 1 (worst sum 0.6"), std::string::npos) << run.out;
}

TEST(SkinWeights, PoseFlagKeepSkinWeights) {
  MORPHKIT_REQUIRE_SHARED();
  const std::filesystem::path dir = test::scratchDir();
  const std::string file = (fieldDir() / "assets" / "RiggedFigure_unnormalized.glb").string();
  test::CliRun rescaled = test::runMorphkit(dir, "pose --json --anim rest '" + file + "'");
  test::CliRun kept = test::runMorphkit(dir, "pose --json --anim rest --keep-skin-weights '" + file + "'");
  ASSERT_EQ(rescaled.exit_code, 0) << rescaled.err;
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  test::Json a, b, ref;
  ASSERT_TRUE(test::JsonParser(rescaled.out).parse(a));
  ASSERT_TRUE(test::JsonParser(kept.out).parse(b));
  ASSERT_TRUE(test::loadReference(fieldReference("RiggedFigure_unnormalized.glb"), ref));
  const test::Json& rest = ref.get("cases")->items[0];
  ASSERT_EQ(test::caseAnimation(rest), kNone);
  const auto positions = [](const test::Json& doc) -> const std::vector<double>& {
    return doc.get("cases")->items[0].get("meshes")->items[0].get("positions")->numbers;
  };
  const std::vector<double>& want = positions(ref);
  ASSERT_EQ(positions(a).size(), want.size());
  ASSERT_EQ(positions(b).size(), want.size());
  double worst_rescaled = 0, worst_kept = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    worst_rescaled = std::max(worst_rescaled, std::fabs(positions(a)[k] - want[k]));
    worst_kept = std::max(worst_kept, std::fabs(positions(b)[k] - want[k]));
  }
  const double diagonal = test::bboxDiagonalOf(want);
  EXPECT_LE(worst_rescaled, 1e-5 * diagonal);
  EXPECT_GT(worst_kept, 1e-2 * diagonal);
}

}  // namespace
}  // namespace morphkit
