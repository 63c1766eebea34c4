// SPDX-License-Identifier: MIT
// The capture formats through the CLI: the shared Live Link Face CSV converted to MediaPipe JSON (Python and JS
// layouts), Audio2Face JSON, iFacialMocap packets and a plain CSV, each baked by `animate --capture`, poses like
// the CSV's own bake at every frame and between frames (within 1e-5 of the bounding box; iFacialMocap within its
// 1/100 quantization), each with its one-line report; and the capture options' bad values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "capture_formats_util.h"
#include "morphkit/core/pose.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/capture_file.h"
#include "morphkit/model/files.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::CliRun;

Capture parsedFile(const std::filesystem::path& path) {
  Expected<Capture> capture = parseCapture(test::slurp(path));
  EXPECT_TRUE(capture.ok()) << path << ": " << capture.error().message;
  return capture ? std::move(*capture) : Capture{};
}

// Positions of every posed primitive of `asset` playing its last animation at `time`, concatenated.
std::vector<float> posedAt(const PosePrepared& prepared, double time) {
  PoseOptions options;
  options.animation = uint32_t(prepared.asset->animations.size() - 1);
  options.time = time;
  options.positions_only = true;
  Expected<PoseResult> pose = evaluatePose(prepared, options);
  EXPECT_TRUE(pose.ok()) << pose.error().message;
  std::vector<float> out;
  if (pose) {
    for (const PosedPrimitive& p : pose->meshes) out.insert(out.end(), p.positions.begin(), p.positions.end());
  }
  return out;
}

double maxDistance(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0.0;
  for (size_t i = 0; i + 2 < std::min(a.size(), b.size()); i += 3) {
    const double dx = double(a[i]) - b[i], dy = double(a[i + 1]) - b[i + 1], dz = double(a[i + 2]) - b[i + 2];
    worst = std::max(worst, std::sqrt(dx * dx + dy * dy + dz * dz));
  }
  return worst;
}

double bboxDiagonal(const std::vector<float>& p) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < p.size(); ++i) {
    lo[i % 3] = std::min(lo[i % 3], p[i]);
    hi[i % 3] = std::max(hi[i % 3], p[i]);
  }
  return std::sqrt(double(hi[0] - lo[0]) * (hi[0] - lo[0]) + double(hi[1] - lo[1]) * (hi[1] - lo[1]) +
                   double(hi[2] - lo[2]) * (hi[2] - lo[2]));
}

// Σ over targets of the largest vertex displacement a weight of 1 gives (rest pose, the core's own pose): with
// every weight within q of the CSV's, no vertex moves more than q times this.
double displacementPerUnitWeight(const Asset& asset) {
  Expected<PoseResult> rest = poseAsset(asset, kNone, PoseOptions{});
  EXPECT_TRUE(rest.ok());
  std::vector<float> base;
  for (const PosedPrimitive& p : rest->meshes) base.insert(base.end(), p.positions.begin(), p.positions.end());
  double sum = 0.0;
  for (const std::string& name : targetNameList(asset)) {
    PoseOptions options;
    std::vector<WeightOverride> one = {{.name = name, .value = 1.0f}};
    options.weights.overrides = one;
    Expected<PoseResult> posed = poseAsset(asset, kNone, options);
    EXPECT_TRUE(posed.ok());
    std::vector<float> moved;
    for (const PosedPrimitive& p : posed->meshes) moved.insert(moved.end(), p.positions.begin(), p.positions.end());
    sum += maxDistance(base, moved);
  }
  return sum;
}

TEST(CaptureCommand, TheSameCaptureInEveryFormatBakesTheSamePoses) {
  MORPHKIT_REQUIRE_SHARED();
  auto dir = test::scratchDir();
  const std::string blob = (test::assetsDir() / "MorphSkinBlob52/MorphSkinBlob52.glb").string();
  const auto csv_path = test::sharedDir() / "assets/capture/sample_capture.csv";
  const Capture source = parsedFile(csv_path);
  ASSERT_EQ(source.rows(), 120u);
  struct Format {
    std::string file, format;
    std::string text;
    double tolerance_scale;  // 0: within 1e-5 of the bbox; else the quantization step's half
  };
  const std::vector<Format> formats = {
      {"mp.json", "mediapipe", test::toMediaPipePython(source), 0},
      {"mp.jsonl", "mediapipe", test::toMediaPipeJsLines(source), 0},
      {"a2f.json", "a2f", test::toA2f(source, 60.0), 0},
      {"ifm.txt", "ifacialmocap", test::toIFacialMocap(source), 0.005},
      {"plain.csv", "csv", test::toTimeCsv(source), 0},
  };
  CliRun reference =
      test::runMorphkit(dir, "animate '" + blob + "' --capture '" + csv_path.string() + "' --out ref.glb");
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  Expected<Asset> ref_asset = loadAsset((dir / "ref.glb").string());
  ASSERT_TRUE(ref_asset.ok()) << ref_asset.error().message;
  Expected<PosePrepared> ref = preparePose(*ref_asset);
  ASSERT_TRUE(ref.ok());
  const double bbox = bboxDiagonal(posedAt(*ref, 0.0));
  ASSERT_GT(bbox, 0.0);
  const double per_weight = displacementPerUnitWeight(*ref_asset);
  for (const Format& f : formats) {
    SCOPED_TRACE(f.file);
    ASSERT_TRUE(writeFileAtomic(dir / f.file, f.text).ok());
    CliRun baked = test::runMorphkit(dir, "animate '" + blob + "' --capture " + f.file + " --out " + f.format + ".glb");
    ASSERT_EQ(baked.exit_code, 0) << baked.err;
    EXPECT_EQ(baked.err.rfind("morphkit: " + f.file + ": " + f.format + ", 120 rows over ", 0), 0u) << baked.err;
    EXPECT_NE(baked.err.find("columns: 52 matched"), std::string::npos) << baked.err;
    EXPECT_NE(baked.err.find("targets: 0 unmatched"), std::string::npos) << baked.err;
    Expected<Asset> asset = loadAsset((dir / (f.format + ".glb")).string());
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    Expected<PosePrepared> prepared = preparePose(*asset);
    ASSERT_TRUE(prepared.ok());
    const Capture own = parsedFile(dir / f.file);
    ASSERT_EQ(own.rows(), source.rows());
    const double tolerance =
        f.tolerance_scale > 0 ? f.tolerance_scale * per_weight * 1.0001 + 1e-5 * bbox : 1e-5 * bbox;
    double worst = 0.0;
    // Every fifth frame, its neighbour and halfway between them (LINEAR in both bakes: the mean of the two rows).
    for (size_t r = 0; r < source.rows(); r += (r % 5 == 0 ? 1 : 4)) {
      worst = std::max(worst, maxDistance(posedAt(*ref, source.times[r]), posedAt(*prepared, own.times[r])));
      if (r + 1 < source.rows()) {
        const double a = 0.5 * (double(source.times[r]) + source.times[r + 1]);
        const double b = 0.5 * (double(own.times[r]) + own.times[r + 1]);
        worst = std::max(worst, maxDistance(posedAt(*ref, a), posedAt(*prepared, b)));
      }
    }
    EXPECT_LE(worst, tolerance) << "bbox " << bbox;
    std::printf("%s: largest distance to the CSV's bake %.3g (bbox %.3g, tolerance %.3g)\n", f.file.c_str(), worst,
                bbox, tolerance);
    if (f.tolerance_scale == 0) {
      EXPECT_LE(worst, 1e-5 * bbox);
    }
  }
}

TEST(CaptureCommand, OptionsAndTheirBadValues) {
  auto dir = test::scratchDir();
  ASSERT_EQ(test::runMorphkit(dir, "make-demo face.glb --targets 52 --vertices 400 --no-capture").exit_code, 0);
  ASSERT_TRUE(
      writeFileAtomic(dir / "ifm.txt", std::string_view("jawOpen-50|eyeBlink_L-100|\njawOpen-0|eyeBlink_L-0|\n")).ok());
  // Packets without times need --capture-fps; with it, 0-100 becomes 0-1.
  CliRun run = test::runMorphkit(dir, "pose face.glb --capture ifm.txt");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err,
            "morphkit: error: ifm.txt: line 1: the packets carry no times; give their frame rate (--capture-fps)\n");
  run = test::runMorphkit(dir, "pose face.glb --capture ifm.txt --capture-fps 30 --time 0 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.rfind("morphkit: ifm.txt: ifacialmocap, 2 rows over 0.033 s; columns: 2 matched", 0), 0u)
      << run.err;
  CliRun same = test::runMorphkit(dir, "pose face.glb --weights jawOpen=0.5,eyeBlinkLeft=1 --json");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  // The same pose: compare the positions part of both JSON documents.
  EXPECT_EQ(run.out.substr(run.out.find("\"meshes\"")), same.out.substr(same.out.find("\"meshes\"")));
  // Forced formats and bad values.
  run = test::runMorphkit(dir, "pose face.glb --capture ifm.txt --capture-format mediapipe");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("morphkit: error: ifm.txt: line 1, column 1: not JSON: ", 0), 0u) << run.err;
  for (const char* bad : {"--capture-format bvh", "--face -1", "--capture-fps 0", "--map nosuch"}) {
    SCOPED_TRACE(bad);
    run = test::runMorphkit(dir, std::string("pose face.glb --capture ifm.txt --capture-fps 30 ") + bad);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }
  EXPECT_EQ(
      run.err,
      "morphkit: error: --map 'nosuch': neither a built-in map (arkit, arkit-to-vrm, arkit-to-oculus-visemes) nor "
      "a file\n");
  // A built-in map and a file: the file's entry wins.
  ASSERT_TRUE(
      writeFileAtomic(dir / "m.json", std::string_view(R"({"jawOpen": {"target": "jawOpen", "scale": 2}})")).ok());
  run = test::runMorphkit(dir,
                          "pose face.glb --capture ifm.txt --capture-fps 30 --map m.json --map arkit --time 0 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  same = test::runMorphkit(dir, "pose face.glb --weights jawOpen=1,eyeBlinkLeft=1 --json");
  EXPECT_EQ(run.out.substr(run.out.find("\"meshes\"")), same.out.substr(same.out.find("\"meshes\"")));
  // Unknown formats are one error line naming the file.
  ASSERT_TRUE(writeFileAtomic(dir / "what.txt", std::string_view("hello\n")).ok());
  run = test::runMorphkit(dir, "animate face.glb --capture what.txt --out x.glb");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("morphkit: error: what.txt: line 1: 'hello' is not a known capture format", 0), 0u)
      << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.glb"));
}

}  // namespace
}  // namespace morphkit
