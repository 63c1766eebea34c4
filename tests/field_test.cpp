// SPDX-License-Identifier: MIT
// field_test.cpp — files as they arrive from the field (../shared/field/README.md): shared models re-encoded by
// gltfpack, glTF-Transform and a weight-scaling script. Every file is posed on both CPU paths and on the GPU
// compute path and compared with its three.js reference (cross-checked by Babylon.js) at the README's
// tolerances; plus the skin-weight rescaling those engines apply, tested on its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/accessor.h"
#include "morphkit/gltf.h"
#include "morphkit/gpu_pose.h"
#include "morphkit/pose.h"
#include "morphkit/primitive.h"
#include "reference_json.h"
#include "test_support.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

std::filesystem::path fieldDir() {
  return test::sharedDir() / "field";
}

struct FieldModel {
  std::string file;           // under ../shared/field/assets
  double position_tolerance;  // × the primitive's bounding-box diagonal (README "Tolerances")
};

// Every file of ../shared/field/assets (FieldList.CoversEveryFieldFile keeps this complete).
const std::vector<FieldModel>& fieldModels() {
  static const std::vector<FieldModel> models = {
      {"Fox_draco.glb", 1e-5},
      {"Fox_gltfpack.glb", 3e-5},  // gltfpack folds dequantization into node transforms: the engines differ by 1.4e-5
      {"Fox_meshopt.glb", 3e-5},
      {"Fox_unnormalized.glb", 1e-5},
      {"MorphSkinBlob52_draco.glb", 1e-5},
      {"MorphSkinBlob52_meshopt.glb", 1e-5},
      {"RiggedFigure_unnormalized.glb", 1e-5},
  };
  return models;
}

std::filesystem::path fieldReference(const std::string& file) {
  return fieldDir() / "reference" / std::filesystem::path(file).replace_extension(".json");
}

// Poses every case of the file's reference with `pose_case` and compares.
template <class PoseCase>
void checkField(const FieldModel& model, PoseCase&& pose_case, test::ReferenceStats& stats) {
  test::Json ref;
  ASSERT_TRUE(test::loadReference(fieldReference(model.file), ref));
  for (const test::Json& c : ref.get("cases")->items) {
    SCOPED_TRACE(test::caseName(model.file, c));
    Expected<PoseResult> pose = pose_case(test::caseAnimation(c), test::caseTime(c));
    ASSERT_TRUE(pose.ok()) << pose.error().message;
    test::expectMatchesCase(*pose, c, model.position_tolerance, stats);
  }
}

void checkCpu(const FieldModel& model, CpuPath path) {
  Expected<Asset> asset = loadAsset(fieldDir() / "assets" / model.file);
  ASSERT_TRUE(asset.ok()) << model.file << ": " << asset.error().message;
  Expected<PosePrepared> prepared = preparePose(*asset);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  ThreadPool pool(2);
  test::ReferenceStats stats;
  checkField(
      model,
      [&](uint32_t animation, double time) {
        PoseOptions options;
        options.animation = animation;
        options.time = time;
        options.path = path;
        options.pool = &pool;
        return evaluatePose(*prepared, options);
      },
      stats);
  std::printf("  %s [%s]: %d cases, worst position error %.3g of tolerance (%.3g of bbox), worst normal error %.3g\n",
              model.file.c_str(), path == CpuPath::kFast ? "fast" : "reference", stats.cases,
              stats.worst_position_ratio, stats.worst_position_relative, stats.worst_normal);
}

class FieldReferenceTest : public ::testing::TestWithParam<FieldModel> {};

TEST_P(FieldReferenceTest, ReferencePathMatchesEveryCase) {
  MORPHKIT_REQUIRE_SHARED();
  checkCpu(GetParam(), CpuPath::kReference);
}

TEST_P(FieldReferenceTest, FastPathMatchesEveryCase) {
  MORPHKIT_REQUIRE_SHARED();
  checkCpu(GetParam(), CpuPath::kFast);
}

std::string fieldName(const ::testing::TestParamInfo<FieldModel>& info) {
  std::string name;
  for (char c : std::filesystem::path(info.param.file).stem().string()) {
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
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

// The GPU compute path against the same references and tolerances (not only against the CPU).
class FieldGpuTest : public test::VulkanTest {};

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

// ---- Skin weights that do not sum to 1 ---------------------------------------------------------------------

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

// A skinned triangle whose vertex 1 has all-zero weights: it must follow joint JOINTS_0[1].x, as three.js does.
std::string zeroWeightTriangle() {
  test::Bytes b;
  b.put<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});                   // POSITION, 36 bytes
  b.put<uint8_t>({0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0});        // JOINTS_0, 12 bytes
  b.put<float>({1, 0, 0, 0, 0, 0, 0, 0, 0.25f, 0.25f, 0, 0});  // WEIGHTS_0: v0 ok, v1 zero, v2 sums 0.5
  const std::string body =
      "\"buffers\":[" + test::bufferJson(b.data) +
      "],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12},"
      "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":48}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":["
      "1,1,0]},"
      "{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
      "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
      "\"skins\":[{\"joints\":[1,2]}],"
      "\"nodes\":[{\"mesh\":0,\"skin\":0},{\"translation\":[10,0,0]},{\"translation\":[0,20,0]}],"
      "\"scenes\":[{\"nodes\":[0,1,2]}]";
  return test::gltfJson(body);
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

// ---- Compressed streams: every rule checked, corrupt data refused with one line ------------------------------

// A GLB split into its JSON text and BIN chunk, so tests can edit either and reassemble it.
struct GlbFile {
  std::string json;
  std::vector<uint8_t> bin;
};

GlbFile readGlb(const std::filesystem::path& path) {
  const std::string bytes = test::slurp(path);
  GlbFile glb;
  uint32_t json_length = 0, bin_length = 0;
  std::memcpy(&json_length, bytes.data() + 12, 4);
  glb.json = bytes.substr(20, json_length);
  while (!glb.json.empty() && glb.json.back() == ' ') glb.json.pop_back();
  std::memcpy(&bin_length, bytes.data() + 20 + json_length, 4);
  const size_t bin_start = 20 + json_length + 8;
  glb.bin.assign(bytes.begin() + ptrdiff_t(bin_start), bytes.begin() + ptrdiff_t(bin_start + bin_length));
  return glb;
}

std::vector<uint8_t> assemble(const GlbFile& glb) {
  return test::makeGlb(glb.json, &glb.bin);
}

// Replaces the one occurrence of `from` in the JSON (the test fails when it is not exactly one).
void replaceOnce(std::string& json, const std::string& from, const std::string& to) {
  const size_t at = json.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  ASSERT_EQ(json.find(from, at + 1), std::string::npos) << from;
  json.replace(at, from.size(), to);
}

Expected<Asset> loadGlb(const GlbFile& glb) {
  const std::vector<uint8_t> bytes = assemble(glb);
  return loadAssetFromMemory(bytes, fieldDir() / "assets");
}

// Fox_meshopt.glb: bufferView 1 (POSITION, ATTRIBUTES) is compressed in buffers[0] at 26764, 2125 bytes.
constexpr const char* kFoxMeshoptView1 =
    "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"ATTRIBUTES\"";

TEST(Meshopt, EveryRuleOfTheExtensionIsChecked) {
  MORPHKIT_REQUIRE_SHARED();
  const GlbFile original = readGlb(fieldDir() / "assets" / "Fox_meshopt.glb");
  ASSERT_TRUE(loadGlb(original).ok());
  struct Case {
    std::string from, to;
    std::vector<const char*> message;
  };
  const std::string v = kFoxMeshoptView1;
  const std::vector<Case> cases = {
      {v,
       "\"buffer\":7,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"ATTRIBUTES\"",
       {"bufferViews[1].extensions.EXT_meshopt_compression.buffer: 7 is out of range"}},
      {v,
       "\"buffer\":1,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"ATTRIBUTES\"",
       {"buffer 1 is a fallback buffer", "Fallback buffers"}},
      {v,
       "\"buffer\":0,\"byteOffset\":46764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"ATTRIBUTES\"",
       {"bufferViews[1].extensions.EXT_meshopt_compression: byteOffset 46764 + byteLength 2125 exceeds buffer 0"}},
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"STRIPS\"",
       {"mode: 'STRIPS' is not ATTRIBUTES, TRIANGLES or INDICES"}},
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":6,\"mode\":\"ATTRIBUTES\"",
       {"byteStride: 6 must be a multiple of 4 in [4, 256] for ATTRIBUTES"}},
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":4,\"mode\":\"ATTRIBUTES\"",
       {"byteStride: 4 differs from the bufferView's byteStride 8"}},
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"INDICES\"",
       {"byteStride: 8 must be 2 or 4 for INDICES"}},
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"ATTRIBUTES\",\"filter\":"
       "\"QUATERNION\"",
       {"byteStride: 8"}},  // QUATERNION needs 8: passes the filter rule, then the stream is decoded
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"ATTRIBUTES\",\"filter\":"
       "\"OCTAGON\"",
       {"filter: 'OCTAGON' is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL"}},
      {"\"mode\":\"ATTRIBUTES\",\"count\":434",
       "\"mode\":\"ATTRIBUTES\",\"count\":433",
       {"count 433 x byteStride 8 = 3464 differs from the bufferView's byteLength 3472"}},
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":20,\"byteStride\":8,\"mode\":\"ATTRIBUTES\"",
       {"3472 decoded bytes cannot come from 20 compressed bytes"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to);
    GlbFile edited = original;
    if (c.from == "\"mode\":\"ATTRIBUTES\",\"count\":434") {
      // bufferView 1 and 2 share this text; edit the first one only.
      const size_t at = edited.json.find(c.from);
      ASSERT_NE(at, std::string::npos);
      edited.json.replace(at, c.from.size(), c.to);
    } else {
      replaceOnce(edited.json, c.from, c.to);
    }
    Expected<Asset> asset = loadGlb(edited);
    if (c.to.find("QUATERNION") != std::string::npos) continue;  // a valid combination: only must not crash
    ASSERT_FALSE(asset.ok());
    for (const char* fragment : c.message) {
      EXPECT_NE(asset.error().message.find(fragment), std::string::npos) << asset.error().message;
    }
    EXPECT_NE(asset.error().message.find("EXT_meshopt_compression"), std::string::npos) << asset.error().message;
  }
}

TEST(Meshopt, FallbackBuffersAreOnlyReferencedByCompressedViews) {
  MORPHKIT_REQUIRE_SHARED();
  GlbFile glb = readGlb(fieldDir() / "assets" / "Fox_meshopt.glb");
  // An image bufferView moved onto the fallback buffer: a plain reference, which the extension forbids.
  replaceOnce(glb.json, "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":26764}",
              "{\"buffer\":1,\"byteOffset\":0,\"byteLength\":26764}");
  Expected<Asset> asset = loadGlb(glb);
  ASSERT_FALSE(asset.ok());
  EXPECT_NE(asset.error().message.find(
                "bufferViews[0]: refers to buffers[1], a fallback buffer, without EXT_meshopt_compression"),
            std::string::npos)
      << asset.error().message;
}

// Every truncated prefix of a compressed stream (the view's byteLength shortened) is refused with a message that
// names the bufferView, and never reads outside the stream (ASan).
TEST(Meshopt, EveryTruncatedStreamIsAnError) {
  MORPHKIT_REQUIRE_SHARED();
  const GlbFile original = readGlb(fieldDir() / "assets" / "Fox_meshopt.glb");
  for (size_t length = 2125 / 64; length < 2125; length += 7) {
    GlbFile edited = original;
    replaceOnce(edited.json, kFoxMeshoptView1,
                "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":" + std::to_string(length) +
                    ",\"byteStride\":8,\"mode\":\"ATTRIBUTES\"");
    Expected<Asset> asset = loadGlb(edited);
    ASSERT_FALSE(asset.ok()) << "length " << length;
    // Below 3472 / 64 bytes the expansion bound refuses it before decoding; above, the decoder does.
    const char* expected =
        length < 3472 / 64 ? "bufferViews[1].extensions.EXT_meshopt_compression: 3472 decoded bytes cannot come from"
                           : "bufferViews[1]: EXT_meshopt_compression ATTRIBUTES stream is corrupt or truncated";
    EXPECT_NE(asset.error().message.find(expected), std::string::npos) << asset.error().message;
  }
}

// Flipped bytes anywhere in every compressed stream: a clean error or (the codec has no checksum) garbage that the
// validation pass then judges; never a crash or an out-of-bounds read.
TEST(Meshopt, FlippedBytesNeverCrash) {
  MORPHKIT_REQUIRE_SHARED();
  const GlbFile original = readGlb(fieldDir() / "assets" / "Fox_meshopt.glb");
  size_t refused = 0, loaded = 0;
  for (size_t offset = 26764; offset < original.bin.size(); offset += 29) {
    GlbFile edited = original;
    edited.bin[offset] ^= 0x5a;
    Expected<Asset> asset = loadGlb(edited);
    if (asset.ok()) {
      ++loaded;
      ASSERT_TRUE(preparePose(*asset).ok());
    } else {
      ++refused;
      EXPECT_EQ(asset.error().message.find('\n'), std::string::npos);
    }
  }
  EXPECT_GT(refused, 0u);
  std::printf("  flipped bytes: %zu refused, %zu decoded to other data\n", refused, loaded);
}

TEST(Draco, AccessorsMustAgreeWithTheDecodedMesh) {
  MORPHKIT_REQUIRE_SHARED();
  const GlbFile original = readGlb(fieldDir() / "assets" / "Fox_draco.glb");
  ASSERT_TRUE(loadGlb(original).ok());
  struct Case {
    std::string from, to, message;
  };
  const std::vector<Case> cases = {
      {"{\"type\":\"VEC2\",\"componentType\":5126,\"count\":434}",
       "{\"type\":\"VEC2\",\"componentType\":5126,\"count\":435}",
       "TEXCOORD_0: accessor 2 (VEC2 f32, count 435) disagrees with the 434 decoded points"},
      {"{\"type\":\"VEC2\",\"componentType\":5126,\"count\":434}",
       "{\"type\":\"VEC3\",\"componentType\":5126,\"count\":434}",
       "TEXCOORD_0: accessor 2 (VEC3 f32, count 434) disagrees with the decoded attribute's 2 components"},
      // Fewer indices than the stream declares faces: refused before decoding (the stream's header is read first).
      {"{\"type\":\"SCALAR\",\"componentType\":5123,\"count\":1728}",
       "{\"type\":\"SCALAR\",\"componentType\":5123,\"count\":1725}",
       "bufferView 3: the Draco stream declares 576 faces but indices accessor 0 holds 1725 indices"},
      // More: found after decoding.
      {"{\"type\":\"SCALAR\",\"componentType\":5123,\"count\":1728}",
       "{\"type\":\"SCALAR\",\"componentType\":5123,\"count\":1731}",
       "indices: accessor 0 (SCALAR, count 1731) disagrees with the 1728 decoded indices"},
      {"\"TEXCOORD_0\":1,", "\"TEXCOORD_0\":9,", "TEXCOORD_0: Draco attribute id 9 is not in the stream"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to);
    GlbFile edited = original;
    replaceOnce(edited.json, c.from, c.to);
    Expected<Asset> asset = loadGlb(edited);
    ASSERT_FALSE(asset.ok());
    EXPECT_NE(asset.error().message.find(c.message), std::string::npos) << asset.error().message;
    EXPECT_NE(asset.error().message.find("meshes[0].primitives[0]"), std::string::npos) << asset.error().message;
  }
}

// Draco's own stream: truncations and flipped bytes. Draco is not checksummed either; what decodes must still
// pass the accessor checks and the validation pass, and nothing crashes.
TEST(Draco, TruncatedAndFlippedStreamsNeverCrash) {
  MORPHKIT_REQUIRE_SHARED();
  const GlbFile original = readGlb(fieldDir() / "assets" / "Fox_draco.glb");
  // bufferViews[3] is the Draco stream: {"buffer":0,"byteOffset":70640,"byteLength":3566}.
  const std::string view = "{\"buffer\":0,\"byteOffset\":70640,\"byteLength\":3566}";
  ASSERT_NE(original.json.find(view), std::string::npos);
  size_t refused = 0;
  for (size_t length = 1; length < 3566; length += 53) {
    GlbFile edited = original;
    replaceOnce(edited.json, view, "{\"buffer\":0,\"byteOffset\":70640,\"byteLength\":" + std::to_string(length) + "}");
    Expected<Asset> asset = loadGlb(edited);
    ASSERT_FALSE(asset.ok()) << "length " << length;
    EXPECT_NE(asset.error().message.find("KHR_draco_mesh_compression"), std::string::npos) << asset.error().message;
    ++refused;
  }
  for (size_t offset = 70640; offset < 70640 + 3566; offset += 17) {
    GlbFile edited = original;
    edited.bin[offset] ^= 0xa5;
    Expected<Asset> asset = loadGlb(edited);
    if (asset.ok())
      ASSERT_TRUE(preparePose(*asset).ok());
    else
      ++refused;
  }
  EXPECT_GT(refused, 0u);
}

// The CLI on corrupt files: exit 1, exactly one line on stderr naming the object, no crash under ASan.
TEST(CompressedCli, CorruptStreamsAreOneLineErrors) {
  MORPHKIT_REQUIRE_SHARED();
  const std::filesystem::path dir = test::scratchDir();
  GlbFile meshopt = readGlb(fieldDir() / "assets" / "Fox_meshopt.glb");
  replaceOnce(meshopt.json, kFoxMeshoptView1,
              "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":1000,\"byteStride\":8,\"mode\":\"ATTRIBUTES\"");
  test::writeBytes(dir / "truncated_meshopt.glb", assemble(meshopt));
  GlbFile draco = readGlb(fieldDir() / "assets" / "Fox_draco.glb");
  for (size_t k = 0; k < 8; ++k) draco.bin[70640 + k] ^= 0xff;  // the "DRACO" magic and version
  test::writeBytes(dir / "flipped_draco.glb", assemble(draco));
  for (const auto& [file, fragment] : {std::pair{"truncated_meshopt.glb", "bufferViews[1]: EXT_meshopt_compression"},
                                       std::pair{"flipped_draco.glb", "KHR_draco_mesh_compression"}}) {
    for (const char* command : {"inspect", "pose"}) {
      test::CliRun run = test::runMorphkit(dir, std::string(command) + " " + file);
      EXPECT_EQ(run.exit_code, 1) << file << ": " << run.err;
      EXPECT_EQ(run.err.rfind(std::string("morphkit: error: ") + file + ": ", 0), 0u) << run.err;
      EXPECT_NE(run.err.find(fragment), std::string::npos) << run.err;
      EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
      EXPECT_TRUE(run.out.empty()) << run.out;
    }
  }
}

// ---- KHR_texture_transform ------------------------------------------------------------------------------------

TEST(TextureTransform, MatrixFollowsTheExtension) {
  TextureRef ref;
  EXPECT_EQ(textureTransformMatrix(ref), (std::array<float, 6>{1, 0, 0, 0, 1, 0}));
  ref.has_transform = true;
  ref.transform.offset[0] = 0.25f;
  ref.transform.offset[1] = 0.5f;
  ref.transform.scale[0] = 2.0f;
  ref.transform.scale[1] = 3.0f;
  ref.transform.rotation = float(M_PI / 2);
  // T · R · S with R = [cos sin; -sin cos]: at 90°, u' = 3v + 0.25 and v' = -2u + 0.5.
  const std::array<float, 6> m = textureTransformMatrix(ref);
  const float expected[6] = {0, 3, 0.25f, -2, 0, 0.5f};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(m[k], expected[k], 1e-6) << k;
  EXPECT_EQ(textureCoordinateSet(ref), 0u);
  ref.transform.texcoord = 1;  // the extension's texCoord overrides textureInfo.texCoord
  EXPECT_EQ(textureCoordinateSet(ref), 1u);
}

TEST(TextureTransform, LoadedFromTheFile) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> asset = loadAsset(fieldDir() / "assets" / "Fox_gltfpack.glb");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  EXPECT_TRUE(asset->notes.empty()) << asset->notes[0];  // no "not supported; ignored" note any more
  const TextureRef& ref = asset->materials[0].base_color_texture;
  ASSERT_TRUE(ref.has_transform);
  EXPECT_FLOAT_EQ(ref.transform.offset[0], 0.0204429999f);
  EXPECT_FLOAT_EQ(ref.transform.offset[1], 0.0197620001f);
  EXPECT_FLOAT_EQ(ref.transform.scale[0], 15.405014f);
  EXPECT_FLOAT_EQ(ref.transform.scale[1], 15.4472961f);
  EXPECT_EQ(ref.transform.rotation, 0.0f);
}

struct ObjMesh {
  std::vector<std::array<double, 3>> v;
  std::vector<std::array<double, 2>> vt;
  std::vector<std::array<int, 6>> faces;  // v, vt of 3 corners (0-based)
};

ObjMesh parseObj(const std::string& text) {
  ObjMesh obj;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string tag;
    l >> tag;
    if (tag == "v") {
      std::array<double, 3> p{};
      l >> p[0] >> p[1] >> p[2];
      obj.v.push_back(p);
    } else if (tag == "vt") {
      std::array<double, 2> t{};
      l >> t[0] >> t[1];
      obj.vt.push_back(t);
    } else if (tag == "f") {
      std::array<int, 6> f{};
      for (int k = 0; k < 3; ++k) {
        std::string corner;
        l >> corner;
        int a = 0, b = 0;
        std::sscanf(corner.c_str(), "%d/%d", &a, &b);
        f[size_t(k)] = a - 1;
        f[size_t(k) + 3] = b - 1;
      }
      obj.faces.push_back(f);
    }
  }
  return obj;
}

// Fox.glb (float UVs) and Fox_gltfpack.glb (u16 UVs whose scale and offset live in KHR_texture_transform), each
// posed to OBJ by the CLI: every triangle of one is found in the other by its corner positions, and the corners'
// UVs agree within gltfpack's quantization step (the transform's scale / 65535).
TEST(TextureTransform, ObjUvsOfBothFoxFilesAgree) {
  MORPHKIT_REQUIRE_SHARED();
  const std::filesystem::path dir = test::scratchDir();
  const std::string fox = (test::assetsDir() / "Fox/glTF-Binary/Fox.glb").string();
  const std::string packed = (fieldDir() / "assets" / "Fox_gltfpack.glb").string();
  ASSERT_EQ(test::runMorphkit(dir, "pose '" + fox + "' --out fox.obj").exit_code, 0);
  test::CliRun run = test::runMorphkit(dir, "pose '" + packed + "' --out packed.obj");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const ObjMesh a = parseObj(test::slurp(dir / "fox.obj"));
  const ObjMesh b = parseObj(test::slurp(dir / "packed.obj"));
  ASSERT_EQ(a.faces.size(), b.faces.size());
  ASSERT_FALSE(b.vt.empty());
  // Each triangle of the gltfpack file is matched to the Fox.glb triangles whose corners lie at the same places
  // (within 0.02 units of a 176-unit model; gltfpack's positions are within 3e-5 of it), in the same winding from
  // any start; a triangle may exist twice (both sides of a UV seam), so the closest UVs count.
  auto near = [](const std::array<double, 3>& p, const std::array<double, 3>& q) {
    return std::fabs(p[0] - q[0]) < 0.02 && std::fabs(p[1] - q[1]) < 0.02 && std::fabs(p[2] - q[2]) < 0.02;
  };
  const double step = 15.45 / 65535.0;  // the larger scale of the transform / the u16 range
  double worst = 0;
  size_t matched = 0;
  for (const auto& fb : b.faces) {
    double best = HUGE_VAL;
    for (const auto& fa : a.faces) {
      for (int rotation = 0; rotation < 3; ++rotation) {
        bool same = true;
        for (int k = 0; k < 3 && same; ++k) {
          same = near(a.v[size_t(fa[size_t((k + rotation) % 3)])], b.v[size_t(fb[size_t(k)])]);
        }
        if (!same) continue;
        double d = 0;
        for (int k = 0; k < 3; ++k) {
          const auto& ua = a.vt[size_t(fa[size_t((k + rotation) % 3) + 3])];
          const auto& ub = b.vt[size_t(fb[size_t(k) + 3])];
          d = std::max({d, std::fabs(ua[0] - ub[0]), std::fabs(ua[1] - ub[1])});
        }
        best = std::min(best, d);
      }
    }
    if (best == HUGE_VAL) continue;
    worst = std::max(worst, best);
    ++matched;
  }
  EXPECT_EQ(matched, b.faces.size());
  EXPECT_LE(worst, step) << "worst UV difference " << worst << " vs the quantization step " << step;
  std::printf("  OBJ UVs: %zu of %zu triangles matched, worst UV difference %.3g (step %.3g)\n", matched,
              b.faces.size(), worst, step);
}

// The posed .glb stores the file's TEXCOORDs, so the material keeps KHR_texture_transform as it was.
TEST(TextureTransform, PosedGlbKeepsTheExtension) {
  MORPHKIT_REQUIRE_SHARED();
  const std::filesystem::path dir = test::scratchDir();
  const std::string packed = (fieldDir() / "assets" / "Fox_gltfpack.glb").string();
  test::CliRun run = test::runMorphkit(dir, "pose '" + packed + "' --out posed.glb");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Expected<Asset> posed = loadAsset(dir / "posed.glb");
  ASSERT_TRUE(posed.ok()) << posed.error().message;
  Expected<Asset> source = loadAsset(packed);
  ASSERT_TRUE(source.ok());
  EXPECT_NE(std::find(posed->extensions_used.begin(), posed->extensions_used.end(), "KHR_texture_transform"),
            posed->extensions_used.end());
  ASSERT_EQ(posed->materials.size(), 1u);
  ASSERT_EQ(posed->meshes[0].primitives[0].material, 0u);
  const TextureRef& ref = posed->materials[0].base_color_texture;
  const TextureRef& want = source->materials[0].base_color_texture;
  ASSERT_TRUE(ref.has_transform);
  EXPECT_EQ(textureTransformMatrix(ref), textureTransformMatrix(want));
  ASSERT_EQ(posed->images.size(), 1u);
  EXPECT_NE(posed->images[0].buffer_view, kNone);  // the PNG travels inside the .glb
  // TEXCOORD_0 as stored (dequantized u16, not transformed).
  const uint32_t uv = findAttribute(posed->meshes[0].primitives[0].attributes, "TEXCOORD_0");
  const uint32_t source_uv = findAttribute(source->meshes[0].primitives[0].attributes, "TEXCOORD_0");
  EXPECT_EQ(readAccessorFloats(*posed, uv), readAccessorFloats(*source, source_uv));
}

// ---- KHR_texture_basisu ---------------------------------------------------------------------------------------

// A textured triangle whose only texture is KTX2 (KHR_texture_basisu required), with or without a PNG fallback.
std::string basisuTriangle(bool fallback) {
  test::Bytes b;
  b.put<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});  // POSITION
  b.put<float>({0, 0, 1, 0, 0, 1});           // TEXCOORD_0
  const std::vector<uint8_t> ktx2 = {0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, 0x0D, 0x0A, 0x1A, 0x0A};
  // A 1×1 PNG (signature + IHDR + IDAT + IEND), red.
  const std::vector<uint8_t> png = {0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48,
                                    0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00,
                                    0x00, 0x90, 0x77, 0x53, 0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41, 0x54, 0x08,
                                    0xD7, 0x63, 0xF8, 0xCF, 0xC0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xDD, 0x8D,
                                    0xB0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82};
  std::string images = "{\"uri\":\"data:image/ktx2;base64," + test::base64(ktx2) + "\",\"mimeType\":\"image/ktx2\"}";
  if (fallback) images += ",{\"uri\":\"data:image/png;base64," + test::base64(png) + "\"}";
  const std::string texture = fallback ? "{\"source\":1,\"extensions\":{\"KHR_texture_basisu\":{\"source\":0}}}"
                                       : "{\"extensions\":{\"KHR_texture_basisu\":{\"source\":0}}}";
  const std::string body =
      "\"extensionsUsed\":[\"KHR_texture_basisu\"],\"extensionsRequired\":[\"KHR_texture_basisu\"],"
      "\"buffers\":[" +
      test::bufferJson(b.data) +
      "],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":["
      "1,1,0]},"
      "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}],"
      "\"images\":[" +
      images + "],\"textures\":[" + texture +
      "],"
      "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}},\"emissiveTexture\":{\"index\":0}}"
      "],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1},\"material\":0}]}],"
      "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]";
  return test::gltfJson(body);
}

TEST(TextureBasisu, InspectAndPoseWorkAndNameTheKtx2Textures) {
  const std::filesystem::path dir = test::scratchDir();
  for (bool fallback : {false, true}) {
    SCOPED_TRACE(fallback ? "with fallback" : "KTX2 only");
    test::writeText(dir / "ktx2.gltf", basisuTriangle(fallback));
    Expected<Asset> asset = loadAsset(dir / "ktx2.gltf");
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    EXPECT_EQ(asset->textures[0].basisu_source, 0u);
    EXPECT_TRUE(isKtx2Image(*asset, 0));
    test::CliRun run = test::runMorphkit(dir, "inspect ktx2.gltf");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("textures[0]: images[0] is KTX2"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find(fallback ? "render uses the fallback images[1]" : "no fallback"), std::string::npos)
        << run.out;
    run = test::runMorphkit(dir, "inspect --json ktx2.gltf");
    ASSERT_EQ(run.exit_code, 0);
    test::Json doc;
    ASSERT_TRUE(test::JsonParser(run.out).parse(doc));
    const test::Json& t = doc.get("textures")->items.at(0);
    EXPECT_TRUE(t.get("ktx2")->boolean);
    EXPECT_EQ(t.get("ktx2Image")->number, 0);
    EXPECT_EQ(t.get("drawable")->boolean, fallback);
    run = test::runMorphkit(dir, "pose ktx2.gltf --out ktx2.obj");
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_TRUE(std::filesystem::exists(dir / "ktx2.obj"));
  }
}

TEST(SupportedExtensions, InspectHelpListsEveryOne) {
  const std::filesystem::path dir = test::scratchDir();
  test::CliRun run = test::runMorphkit(dir, "inspect --help");
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_GE(supportedExtensions().size(), 5u);
  for (const char* name : supportedExtensions()) EXPECT_NE(run.out.find(name), std::string::npos) << name;
  // docs/CLI.md lists them too.
  const std::string cli_md = test::slurp(test::sourceDir() / "docs" / "CLI.md");
  for (const char* name : supportedExtensions()) EXPECT_NE(cli_md.find(name), std::string::npos) << name;
}

}  // namespace
}  // namespace morphkit
