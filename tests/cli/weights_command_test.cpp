// SPDX-License-Identifier: MIT
// Driving targets by name from the command line: `pose`/`render` --weights, --weights-file, --weights-csv and
// `animate` (bake a capture into a glTF animation): summaries, errors with exit codes, no partial output, the
// animate round trip against --weights posing, and the Khronos validator on the baked file.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "capture_test_util.h"
#include "gltf_test_util.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/capture.h"
#include "morphkit/model/files.h"
#include "morphkit/vk/gpu.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::CliRun;

std::filesystem::path repoRoot() {
  return test::sourceDir();
}

}  // namespace
}  // namespace morphkit

namespace morphkit {
namespace {

CliRun morphkit(const std::filesystem::path& dir, const std::string& args) {
  return test::runMorphkit(dir, args);
}

// The demo head (its first 52 targets carry ARKit names) and a capture in the app's layout beside it.
std::filesystem::path writeHead(const std::filesystem::path& dir, size_t capture_rows = 12) {
  Expected<Asset> asset = makeDemoAsset({.targets = 52, .vertices = 600, .bones = 3});
  EXPECT_TRUE(asset.ok());
  Expected<std::vector<uint8_t>> glb = writeGlb(*asset);
  EXPECT_TRUE(glb.ok());
  EXPECT_TRUE(writeFileAtomic(dir / "head.glb", std::span<const uint8_t>(*glb)).ok());
  EXPECT_TRUE(writeFileAtomic(dir / "capture.csv", test::appCsv(capture_rows)).ok());
  return dir / "head.glb";
}

// The pose JSON from "meshes" on: what was posed, without the file name and animation fields.
std::string posedMeshes(const std::filesystem::path& json) {
  const std::string text = test::slurp(json);
  const size_t at = text.find("\"meshes\"");
  EXPECT_NE(at, std::string::npos) << json;
  return at == std::string::npos ? std::string() : text.substr(at);
}

// A float as text that parses back to exactly that float (so a time lands exactly on a baked key).
std::string exact(float value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.17g", double(value));
  return buffer;
}

int validateFile(const std::filesystem::path& file) {
  const std::string command =
      "'" + (repoRoot() / "scripts/validate-gltf").string() + "' '" + file.string() + "' >/dev/null";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(PoseWeights, SummaryListsTheNonZeroWeightsByName) {
  const auto dir = test::scratchDir();
  writeHead(dir);
  CliRun run = morphkit(dir, "pose head.glb --weights jawOpen=0.8,eyeBlinkLeft=1 --weights mouthClose=-0.25");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("weights: 3 of 52 non-zero: eyeBlinkLeft=1 jawOpen=0.8 mouthClose=-0.25"), std::string::npos)
      << run.out;
  run = morphkit(dir, "pose head.glb");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("weights: 0 of 52 non-zero\n"), std::string::npos) << run.out;
}

TEST(PoseWeights, WeightsFileCaseInsensitiveAndIndicesPoseAlike) {
  const auto dir = test::scratchDir();
  writeHead(dir);
  ASSERT_TRUE(writeFileAtomic(dir / "w.json", std::string_view(R"({"jawOpen": 0.8, "eyeBlinkLeft": 1})")).ok());
  ASSERT_EQ(morphkit(dir, "pose head.glb --weights jawOpen=0.8,eyeBlinkLeft=1 --out a.json").exit_code, 0);
  ASSERT_EQ(morphkit(dir, "pose head.glb --weights-file w.json --out b.json").exit_code, 0);
  ASSERT_EQ(morphkit(dir, "pose head.glb --weights JAWOPEN=0.8,EyeBlinkLeft=1 --ignore-case --out c.json").exit_code,
            0);
  ASSERT_EQ(morphkit(dir, "pose head.glb --weights 17=0.8,0:0=1 --out d.json").exit_code, 0);  // jawOpen is target 17
  ASSERT_EQ(morphkit(dir, "pose head.glb --out rest.json").exit_code, 0);
  const std::string a = posedMeshes(dir / "a.json");
  EXPECT_EQ(a, posedMeshes(dir / "b.json"));
  EXPECT_EQ(a, posedMeshes(dir / "c.json"));
  EXPECT_EQ(a, posedMeshes(dir / "d.json"));
  EXPECT_NE(a, posedMeshes(dir / "rest.json"));
  // The command line wins over the file.
  ASSERT_EQ(morphkit(dir, "pose head.glb --weights-file w.json --weights jawOpen=0 --out e.json").exit_code, 0);
  ASSERT_EQ(morphkit(dir, "pose head.glb --weights eyeBlinkLeft=1 --out f.json").exit_code, 0);
  EXPECT_EQ(posedMeshes(dir / "e.json"), posedMeshes(dir / "f.json"));
}

TEST(PoseWeights, UnknownNamesAreErrorsListingTheClosestOrWarnings) {
  const auto dir = test::scratchDir();
  writeHead(dir);
  CliRun run = morphkit(dir, "pose head.glb --weights jawOpn=0.5 --out x.json");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "morphkit: error: head.glb: weights: no target named 'jawOpn' (closest: jawOpen, jawLeft, jawRight) "
            "(--ignore-unknown to skip it)\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "x.json"));
  run = morphkit(dir, "pose head.glb --weights JawOpen=0.5");  // exact by default
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("(closest: jawOpen,"), std::string::npos) << run.err;
  run = morphkit(dir, "pose head.glb --weights jawOpn=0.5,jawOpen=0.25 --ignore-unknown");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("morphkit: warning: head.glb: weights: no target named 'jawOpn'"), std::string::npos)
      << run.err;
  EXPECT_NE(run.out.find("weights: 1 of 52 non-zero: jawOpen=0.25"), std::string::npos) << run.out;
  EXPECT_EQ(morphkit(dir, "pose head.glb --weights 52=1").exit_code, 1);  // 52 targets: indices 0..51
  ASSERT_TRUE(writeFileAtomic(dir / "w.json", std::string_view(R"({"jawOpen": "high"})")).ok());
  run = morphkit(dir, "pose head.glb --weights-file w.json");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "morphkit: error: w.json: 'jawOpen': must be a finite number\n");
  run = morphkit(dir, "pose head.glb --weights-file missing.json");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("morphkit: error: missing.json"), std::string::npos);
}

TEST(PoseWeights, MalformedWeightsAreUsageErrors) {
  const auto dir = test::scratchDir();
  writeHead(dir);
  for (const char* bad : {"jawOpen", "jawOpen=", "=0.5", "jawOpen=abc", "jawOpen=nan", "jawOpen=1e99"}) {
    CliRun run = morphkit(dir, std::string("pose head.glb --weights '") + bad + "'");
    EXPECT_EQ(run.exit_code, 2) << bad;
    EXPECT_EQ(run.err.find("morphkit: error: --weights '"), 0u) << run.err;
  }
}

TEST(WeightsCsv, PoseReportsTheMatchInOneLineAndNamesUnderVerbose) {
  const auto dir = test::scratchDir();
  writeHead(dir);
  CliRun run = morphkit(dir, "pose head.glb --weights-csv capture.csv --time 0.1");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(
      run.err,
      "morphkit: capture.csv: livelink, 12 rows over 0.192 s; columns: 52 matched, 9 unmatched (9 rotation unused); "
      "targets: 0 unmatched\n");
  EXPECT_NE(run.out.find("weights: 52 of 52 non-zero: eyeBlinkLeft="), std::string::npos) << run.out;
  run = morphkit(dir, "pose head.glb --weights-csv capture.csv --verbose");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("  matched columns: EyeBlinkLeft, EyeLookDownLeft,"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("  unused rotation columns: HeadYaw, HeadPitch, HeadRoll, LeftEyeYaw,"), std::string::npos);
  EXPECT_NE(run.err.find("  unmatched targets: -\n"), std::string::npos);
}

TEST(WeightsCsv, BadCapturesAndMapsAreOneErrorLine) {
  const auto dir = test::scratchDir();
  writeHead(dir);
  std::string ragged = test::appCsv(3);
  ragged.resize(ragged.rfind(",", ragged.size() - 3));  // cut the last row's last field
  ragged += "\n";
  ASSERT_TRUE(writeFileAtomic(dir / "ragged.csv", ragged).ok());
  CliRun run = morphkit(dir, "pose head.glb --weights-csv ragged.csv");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "morphkit: error: ragged.csv: line 4: 62 fields, the header has 63 (ragged row)\n");
  ASSERT_TRUE(writeFileAtomic(dir / "empty.csv", std::string_view("")).ok());
  run = morphkit(dir, "pose head.glb --weights-csv empty.csv");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("morphkit: error: empty.csv: empty file"), std::string::npos) << run.err;
  run = morphkit(dir, "pose head.glb --weights-csv capture.csv --csv-fps 30");  // frames 28, 29, 30: no 30 at 30 fps
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(
      run.err.find("morphkit: error: capture.csv: line 4, column 1 (Timecode): '14:03:52:30.274' is not a timecode"),
      std::string::npos)
      << run.err;
  ASSERT_TRUE(writeFileAtomic(dir / "other.csv", std::string_view("Timecode,Foo\n00:00:00:00,1\n")).ok());
  run = morphkit(dir, "pose head.glb --weights-csv other.csv");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "morphkit: error: other.csv: no column matches a target name of head.glb (1 unmatched columns; --map names "
            "them)\n");
  // A map whose target is unknown: an error listing the closest names, or a warning with --ignore-unknown.
  ASSERT_TRUE(
      writeFileAtomic(dir / "map.json", std::string_view(R"({"JawOpen": {"target": "jaw_opens", "scale": 0.5}})"))
          .ok());
  run = morphkit(dir, "pose head.glb --weights-csv capture.csv --map map.json");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "morphkit: error: map.json: 'JawOpen -> jaw_opens': head.glb has no target named 'jaw_opens' (closest: "
            "jawOpen, jawLeft, jawForward) (--ignore-unknown to skip it)\n");
  run = morphkit(dir, "pose head.glb --weights-csv capture.csv --map map.json --ignore-unknown");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("morphkit: warning: map.json: 'JawOpen -> jaw_opens'"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("columns: 51 matched"), std::string::npos) << run.err;
  EXPECT_EQ(morphkit(dir, "pose head.glb --map map.json").exit_code, 2);  // --map needs --weights-csv: a usage error
}

TEST(WeightsCsv, MapRenamesAndScales) {
  const auto dir = test::scratchDir();
  writeHead(dir);
  // Drive jawOpen from the capture's MouthClose column at half strength: equal to --weights with that value.
  ASSERT_TRUE(
      writeFileAtomic(dir / "map.json",
                      std::string_view(R"({"JawOpen": null, "MouthClose": {"target": "jawOpen", "scale": 0.5}})"))
          .ok());
  ASSERT_TRUE(
      writeFileAtomic(dir / "one.csv", std::string_view("Timecode,MouthClose,JawOpen\n00:00:01:00,0.5,0.9\n")).ok());
  CliRun run = morphkit(dir, "pose head.glb --weights-csv one.csv --map map.json --out a.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(
      run.err.find("columns: 1 matched, 0 unmatched (0 rotation unused, 1 ignored by the map); targets: 51 unmatched"),
      std::string::npos)
      << run.err;
  ASSERT_EQ(morphkit(dir, "pose head.glb --weights jawOpen=0.25 --out b.json").exit_code, 0);
  EXPECT_EQ(posedMeshes(dir / "a.json"), posedMeshes(dir / "b.json"));
}

// animate: the baked animation, posed at a row's time, equals posing the original with that row's weights given
// by name on the command line; between rows it equals posing with the capture itself.
TEST(Animate, RoundTripEqualsWeightsPosing) {
  const auto dir = test::scratchDir();
  writeHead(dir, 12);
  CliRun run = morphkit(dir, "animate head.glb --weights-csv capture.csv --out baked.glb --name capture");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("baked.glb: animation 3 'capture': 1 weights channel, 12 keys over 0.192 s driving 52 target "
                         "names; 4 animations in all"),
            std::string::npos)
      << run.out;
  Expected<Asset> baked = loadAsset(dir / "baked.glb");
  ASSERT_TRUE(baked.ok()) << baked.error().message;
  ASSERT_EQ(baked->animations.size(), 4u);
  EXPECT_EQ(baked->animations[0].name, "talk");  // the file's animations are kept, in order
  EXPECT_EQ(baked->animations[3].name, "capture");

  Expected<Capture> csv = parseCaptureCsv(test::appCsv(12));
  ASSERT_TRUE(csv.ok());
  for (size_t r : {size_t(0), size_t(5), size_t(11)}) {
    std::string weights;
    for (size_t c = 0; c < kLiveLinkBlendShapes.size(); ++c) {
      weights += (c ? "," : "") + test::arkitName(kLiveLinkBlendShapes[c]) + "=" + test::captureText(r, c);
    }
    const std::string time = exact(csv->times[r]);
    ASSERT_EQ(morphkit(dir, "pose baked.glb --anim capture --time " + time + " --out a.json").exit_code, 0);
    run = morphkit(dir, "pose head.glb --anim rest --weights " + weights + " --time " + time + " --out b.json");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(posedMeshes(dir / "a.json"), posedMeshes(dir / "b.json")) << "row " << r;
  }
  const std::string between = exact(0.5f * (csv->times[6] + csv->times[7]));
  ASSERT_EQ(morphkit(dir, "pose baked.glb --anim capture --time " + between + " --out a.json").exit_code, 0);
  ASSERT_EQ(morphkit(dir, "pose head.glb --weights-csv capture.csv --time " + between + " --out b.json").exit_code, 0);
  EXPECT_EQ(posedMeshes(dir / "a.json"), posedMeshes(dir / "b.json"));
  ASSERT_EQ(morphkit(dir, "pose head.glb --out rest.json").exit_code, 0);
  EXPECT_NE(posedMeshes(dir / "a.json"), posedMeshes(dir / "rest.json"));
}

TEST(Animate, TheBakedFilePassesTheValidator) {
  MORPHKIT_REQUIRE_VALIDATOR();
  const auto dir = test::scratchDir();
  writeHead(dir, 30);
  ASSERT_EQ(morphkit(dir, "animate head.glb --weights-csv capture.csv --out baked.glb --json").exit_code, 0);
  EXPECT_EQ(validateFile(dir / "baked.glb"), 0);
}

// The baked file is an edit of IN's document: a head in each KHR_materials_* material keeps its extension object,
// declared (the validator reports UNDECLARED_EXTENSION otherwise), and an extension morphkit never heard of, with
// extras, survives too.
TEST(Animate, KeepsAndDeclaresEveryExtensionOfTheInput) {
  MORPHKIT_REQUIRE_VALIDATOR();
  const auto dir = test::scratchDir();
  writeHead(dir, 20);
  for (DemoMaterial material : {DemoMaterial::kEmissive, DemoMaterial::kIor, DemoMaterial::kSpecular,
                                DemoMaterial::kClearcoat, DemoMaterial::kSheen, DemoMaterial::kUnlit}) {
    Expected<Asset> asset = makeDemoAsset({.targets = 52, .vertices = 600, .bones = 3, .material = material});
    ASSERT_TRUE(asset.ok());
    const std::string expected = asset->extensions_used.back();
    Expected<std::vector<uint8_t>> glb = writeGlb(*asset);
    ASSERT_TRUE(glb.ok());
    // An unknown extension and extras on the material, as another tool would have written them.
    std::string json = writeGltfJson(*asset).value();
    const size_t materials = json.find("\"materials\":[{");
    ASSERT_NE(materials, std::string::npos);
    json.insert(materials + 14, R"("extras":{"shader":"skin_v2"},)");
    json.insert(json.find("\"extensionsUsed\":[") + 18, R"("EXT_vendor_skin",)");
    json.insert(json.find("\"extensions\":{", materials) + 14, R"("EXT_vendor_skin":{"pores":3},)");
    std::vector<uint8_t> bin(glb->begin() + 20 + (*glb)[12] + ((*glb)[13] << 8) + ((*glb)[14] << 16) + 8, glb->end());
    test::writeBytes(dir / "head.glb", test::makeGlb(json, &bin));
    CliRun run = morphkit(dir, "animate head.glb --weights-csv capture.csv --out baked.glb");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.err.find("does not keep"), std::string::npos) << run.err;
    EXPECT_EQ(validateFile(dir / "baked.glb"), 0) << expected;
    Expected<Asset> baked = loadAsset(dir / "baked.glb");
    ASSERT_TRUE(baked.ok()) << baked.error().message;
    for (const std::string& name : {expected, std::string("EXT_vendor_skin")}) {
      EXPECT_NE(std::find(baked->extensions_used.begin(), baked->extensions_used.end(), name),
                baked->extensions_used.end())
          << name;
    }
    EXPECT_NE(baked->source_json.find(R"("EXT_vendor_skin":{"pores":3})"), std::string::npos);
    EXPECT_NE(baked->source_json.find(R"("shader":"skin_v2")"), std::string::npos);
  }
}

// The issue's acceptance case: the shared sample capture baked into MorphSkinBlob52 (52 ARKit names, three
// animations of its own), validated, and posed like --weights-csv.
TEST(Animate, SharedSampleOnMorphSkinBlob52) {
  MORPHKIT_REQUIRE_SHARED();
  MORPHKIT_REQUIRE_VALIDATOR();
  const auto dir = test::scratchDir();
  const std::string model = (test::assetsDir() / "MorphSkinBlob52/MorphSkinBlob52.glb").string();
  const std::string capture = (test::sharedDir() / "assets/capture/sample_capture.csv").string();
  CliRun run = morphkit(dir, "animate '" + model + "' --weights-csv '" + capture + "' --out blob.glb --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"channels\":1,\"keys\":120,"), std::string::npos) << run.out;
  EXPECT_NE(
      run.out.find("\"matchedColumns\":52,\"unmatchedColumns\":9,\"unusedRotationColumns\":9,\"unmatchedTargets\":0"),
      std::string::npos)
      << run.out;
  EXPECT_EQ(validateFile(dir / "blob.glb"), 0);
  ASSERT_EQ(morphkit(dir, "pose blob.glb --anim capture --time 0.75 --out a.json").exit_code, 0);
  ASSERT_EQ(morphkit(dir, "pose '" + model + "' --weights-csv '" + capture + "' --time 0.75 --out b.json").exit_code,
            0);
  EXPECT_EQ(posedMeshes(dir / "a.json"), posedMeshes(dir / "b.json"));
}

// Compressed inputs (../shared/field): meshopt and Draco were decoded at load, so the baked file is written
// plain, does not declare the compression extensions, passes the validator and poses like the input.
TEST(Animate, CompressedInputsAreBakedUncompressed) {
  MORPHKIT_REQUIRE_SHARED();
  MORPHKIT_REQUIRE_VALIDATOR();
  const auto dir = test::scratchDir();
  const std::string capture = (test::sharedDir() / "assets/capture/sample_capture.csv").string();
  for (const char* name : {"MorphSkinBlob52_meshopt.glb", "MorphSkinBlob52_draco.glb"}) {
    SCOPED_TRACE(name);
    const std::string model = (test::sharedDir() / "field/assets" / name).string();
    ASSERT_TRUE(std::filesystem::exists(model));
    CliRun run = morphkit(dir, "animate '" + model + "' --weights-csv '" + capture + "' --out baked.glb");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.err.find("decoded at load, the output is written uncompressed"), std::string::npos) << run.err;
    EXPECT_EQ(validateFile(dir / "baked.glb"), 0);
    Expected<Asset> baked = loadAsset(dir / "baked.glb");
    ASSERT_TRUE(baked.ok()) << baked.error().message;
    for (const std::string& used : baked->extensions_used) EXPECT_EQ(used, "KHR_mesh_quantization");  // data-level
    for (const std::string& required : baked->extensions_required) EXPECT_EQ(required, "KHR_mesh_quantization");
    ASSERT_EQ(morphkit(dir, "pose baked.glb --anim capture --time 0.61 --out a.json").exit_code, 0);
    ASSERT_EQ(morphkit(dir, "pose '" + model + "' --weights-csv '" + capture + "' --time 0.61 --out b.json").exit_code,
              0);
    EXPECT_EQ(posedMeshes(dir / "a.json"), posedMeshes(dir / "b.json"));
  }
}

TEST(Animate, FailuresLeaveNoOutput) {
  const auto dir = test::scratchDir();
  writeHead(dir);
  std::string backwards = "Timecode,JawOpen\n00:00:01:00,0.5\n00:00:00:59,0.5\n";
  ASSERT_TRUE(writeFileAtomic(dir / "backwards.csv", backwards).ok());
  CliRun run = morphkit(dir, "animate head.glb --weights-csv backwards.csv --out baked.glb");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "morphkit: error: backwards.csv: line 3, column 1 (Timecode): 00:00:00:59 goes back before line 2's "
            "00:00:01:00 (timecodes must increase)\n");
  run = morphkit(dir, "animate head.glb --weights-csv capture.csv --out baked.glb --name talk");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "morphkit: error: head.glb: animations: one is already named 'talk' (choose another with --name)\n");
  EXPECT_EQ(morphkit(dir, "animate head.glb --weights-csv capture.csv --out baked.gltf").exit_code, 2);
  EXPECT_EQ(morphkit(dir, "animate head.glb --out baked.glb").exit_code, 2);  // --weights-csv is required
  EXPECT_EQ(morphkit(dir, "animate missing.glb --weights-csv capture.csv --out baked.glb").exit_code, 1);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "head.glb" || name == "capture.csv" || name == "backwards.csv") << "left behind: " << name;
  }
}

TEST(RenderWeights, RendersTheCaptureAtFps) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto dir = test::scratchDir();
  writeHead(dir, 12);  // 0.192 s: frames at 0, 1/30, ..., 5/30
  CliRun run =
      morphkit(dir, "render head.glb --weights-csv capture.csv --fps 30 --size 48x48 --no-shadows --out frames --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"animation\":null,\"frames\":6,"), std::string::npos) << run.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "frames/frame_0005.png"));
  EXPECT_FALSE(std::filesystem::exists(dir / "frames/frame_0006.png"));
  // The capture moves the face: the first and the last frame differ.
  EXPECT_NE(test::slurp(dir / "frames/frame_0000.png"), test::slurp(dir / "frames/frame_0005.png"));
  run = morphkit(dir, "render head.glb --weights jawOpn=1 --out bad");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_FALSE(std::filesystem::exists(dir / "bad"));
}

}  // namespace
}  // namespace morphkit
