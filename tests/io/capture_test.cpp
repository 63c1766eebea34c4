// SPDX-License-Identifier: MIT
// Tests for morphkit/io/capture.h (Live Link Face CSV → weight track) and morphkit/io/weight_files.h (weights files,
// capture maps): the app's exact column order driving MorphSkinBlob52's ARKit-named targets on the CPU, names
// shared by several meshes, the mapping file, and every bad-input case with the line and column it names.
#include "morphkit/io/capture.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "capture_test_util.h"
#include "gltf_test_util.h"
#include "morphkit/core/pose.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/weight_files.h"
#include "morphkit/model/files.h"
#include "test_support.h"

namespace morphkit {
namespace {

Capture parseOrDie(std::string_view text, const CaptureCsvOptions& options = {}) {
  Expected<Capture> csv = parseCaptureCsv(text, options);
  EXPECT_TRUE(csv.ok()) << csv.error().message;
  return csv ? std::move(*csv) : Capture{};
}

std::string errorOf(std::string_view text, const CaptureCsvOptions& options = {}) {
  Expected<Capture> csv = parseCaptureCsv(text, options);
  EXPECT_FALSE(csv.ok()) << "parsed: " << text.substr(0, 80);
  if (csv) return {};
  EXPECT_EQ(csv.error().code, Error::kInvalidCsv) << csv.error().message;
  return csv.error().message;
}

std::string allColumns() {
  std::string header = "Timecode,BlendShapeCount";
  for (std::string_view c : kLiveLinkBlendShapes) header += "," + std::string(c);
  for (std::string_view c : kLiveLinkRotations) header += "," + std::string(c);
  return header;
}

// A demo head whose targets carry ARKit names, plus a second mesh (its own node) that shares the first 20 names
// in another order: a face split into head and teeth.
Asset splitFace() {
  Expected<Asset> demo = makeDemoAsset({.targets = 52, .vertices = 300, .bones = 2});
  EXPECT_TRUE(demo.ok());
  Asset asset = std::move(*demo);
  Mesh teeth = asset.meshes[0];
  teeth.name = "Teeth";
  teeth.target_names.resize(20);
  std::reverse(teeth.target_names.begin(), teeth.target_names.end());
  teeth.target_names.resize(52, "");
  Node node;
  node.name = "Teeth";
  node.mesh = uint32_t(asset.meshes.size());
  asset.meshes.push_back(std::move(teeth));
  asset.scenes[0].nodes.push_back(uint32_t(asset.nodes.size()));
  asset.nodes.push_back(std::move(node));
  return test::validated(std::move(asset));
}

TEST(CaptureTimecode, HoursMinutesSecondsFramesAndAFractionalFrame) {
  double s = 0.0;
  ASSERT_TRUE(parseTimecode("14:03:52:28.207", 60.0, s));
  EXPECT_NEAR(s, 14 * 3600 + 3 * 60 + 52 + 28.207 / 60.0, 1e-9);
  ASSERT_TRUE(parseTimecode("00:00:01:15", 30.0, s));
  EXPECT_NEAR(s, 1.5, 1e-12);
  ASSERT_TRUE(parseTimecode("00:00:00:59.999", 60.0, s));
  for (const char* bad :
       {"", "1:00:00:00", "00:00:00", "00:00:00:00:00", "00:60:00:00", "00:00:60:00", "00:00:00:60", "00:00:00:5",
        "aa:00:00:00", "00:00:00:00.", "00:00:00:00.x", "00:00:00:00.1.2", "-1:00:00:00", "00:00:00:+1"}) {
    EXPECT_FALSE(parseTimecode(bad, 60.0, s)) << bad;
  }
  EXPECT_FALSE(parseTimecode("00:00:00:30", 30.0, s));    // FF must be below the frame rate
  EXPECT_TRUE(parseTimecode("00:00:00:29.5", 29.97, s));  // NTSC rates: FF.fff below 29.97
  EXPECT_FALSE(parseTimecode("00:00:00:29.99", 29.97, s));
}

TEST(CaptureCsvParse, TheAppsLayout) {
  const Capture csv = parseOrDie(test::appCsv(50));
  ASSERT_EQ(csv.columns.size(), 61u);
  for (size_t c = 0; c < 52; ++c) EXPECT_EQ(csv.columns[c], kLiveLinkBlendShapes[c]);
  for (size_t c = 0; c < 9; ++c) EXPECT_EQ(csv.columns[52 + c], kLiveLinkRotations[c]);
  ASSERT_EQ(csv.rows(), 50u);
  EXPECT_EQ(csv.first_timecode, "14:03:52:28.000");
  for (size_t r = 0; r < csv.rows(); ++r) {
    EXPECT_NEAR(csv.times[r], test::appCsvTime(r), 1e-6) << r;  // relative to the first row
    for (size_t c = 0; c < 61; ++c) ASSERT_EQ(csv.values[r * 61 + c], test::captureRead(r, c)) << r << "," << c;
  }
  EXPECT_EQ(csv.times[0], 0.0f);
}

TEST(CaptureCsvParse, TheSharedSample) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<std::vector<uint8_t>> bytes = readFile(test::sharedDir() / "assets/capture/sample_capture.csv");
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  const Capture csv = parseOrDie(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  EXPECT_EQ(csv.rows(), 120u);
  ASSERT_EQ(csv.columns.size(), 61u);
  EXPECT_EQ(csv.columns.front(), "EyeBlinkLeft");
  EXPECT_EQ(csv.columns.back(), "RightEyeRoll");
  EXPECT_EQ(csv.first_timecode, "00:00:10:00.000");
  EXPECT_NEAR(csv.times[1], 1.137 / 60.0, 1e-6);
}

TEST(CaptureCsvParse, OtherFrameRatesHeadersAndLineEndings) {
  // --csv-fps 30, LF endings, a byte-order mark, no BlendShapeCount column, spaces around fields, a blank line.
  const std::string text = "\xEF\xBB\xBFTimecode, JawOpen ,EyeBlinkLeft\n01:00:00:29,0.5, 1\n\n01:00:01:00.5,0.25,0\n";
  const Capture csv = parseOrDie(text, {.fps = 30.0});
  EXPECT_EQ(csv.columns, (std::vector<std::string>{"JawOpen", "EyeBlinkLeft"}));
  ASSERT_EQ(csv.rows(), 2u);
  EXPECT_NEAR(csv.times[1], 1.5 / 30.0, 1e-7);
  EXPECT_EQ(csv.values, (std::vector<float>{0.5f, 1.0f, 0.25f, 0.0f}));
  // Past midnight the timecode wraps; the capture goes on.
  const Capture wrap = parseOrDie("Timecode,JawOpen\n23:59:59:59,0\n00:00:00:00,1\n");
  EXPECT_NEAR(wrap.times[1], 1.0 / 60.0, 1e-7);
}

// Every bad-input case names the line, and the column where one is at fault.
TEST(CaptureCsvParse, BadInputNamesTheRowAndColumn) {
  const std::string header = allColumns() + "\n";
  std::string row = "00:00:10:00.000,61";
  for (size_t c = 0; c < 61; ++c) row += ",0.5";
  std::string row2 = "00:00:10:01.000,61";
  for (size_t c = 0; c < 61; ++c) row2 += ",0.25";

  EXPECT_NE(errorOf("").find("empty file"), std::string::npos);
  EXPECT_NE(errorOf("\n\r\n  \n").find("empty file"), std::string::npos);
  EXPECT_NE(errorOf(header).find("no data rows"), std::string::npos);
  EXPECT_EQ(errorOf("Time,JawOpen\n00:00:00:00,1\n"),
            "line 1, column 1: 'Time' is not Timecode; expected the Live Link Face header "
            "'Timecode,BlendShapeCount,EyeBlinkLeft,...'");
  EXPECT_EQ(errorOf("Timecode\n00:00:00:00\n"), "line 1: no value columns after Timecode");
  EXPECT_EQ(errorOf("Timecode,JawOpen,,EyeBlinkLeft\n"), "line 1, column 3: empty column name");
  EXPECT_EQ(errorOf("Timecode,JawOpen,jawopen\n"), "line 1, column 3 (jawopen): repeats column 2 (JawOpen)");
  // Ragged rows: a field missing, a field too many.
  EXPECT_EQ(errorOf(header + row + "\n" + row2.substr(0, row2.rfind(',')) + "\n"),
            "line 3: 62 fields, the header has 63 (ragged row)");
  EXPECT_EQ(errorOf(header + row + ",0.5\n"), "line 2: 64 fields, the header has 63 (ragged row)");
  // A value that is not a number, or not a finite one.
  std::string bad = row2;
  bad.replace(bad.find(",0.25"), 5, ",abc");
  EXPECT_EQ(errorOf(header + row + "\n" + bad + "\n"), "line 3, column 3 (EyeBlinkLeft): 'abc' is not a finite number");
  for (const char* value : {"nan", "inf", "-inf", "1e999", "", "0.5x", "+1"}) {
    std::string text = "Timecode,BlendShapeCount,JawOpen,EyeBlinkLeft\n00:00:00:00,61,0.5,";
    text += value;
    text += "\n";
    EXPECT_EQ(errorOf(text), "line 2, column 4 (EyeBlinkLeft): '" + std::string(value) + "' is not a finite number")
        << value;
  }
  EXPECT_EQ(errorOf("Timecode,BlendShapeCount,JawOpen\n00:00:00:00,x,0.5\n"),
            "line 2, column 2 (BlendShapeCount): 'x' is not a number");
  // Timecodes: malformed, a frame number the frame rate does not have, going backwards, repeating.
  EXPECT_EQ(errorOf("Timecode,JawOpen\n12:00,1\n"),
            "line 2, column 1 (Timecode): '12:00' is not a timecode HH:MM:SS:FF[.fff] with FF below the frame rate 60");
  EXPECT_NE(
      errorOf("Timecode,JawOpen\n00:00:00:45,1\n", {.fps = 30.0}).find("line 2, column 1 (Timecode): '00:00:00:45'"),
      std::string::npos);
  EXPECT_EQ(
      errorOf("Timecode,JawOpen\n\n00:00:10:05,1\n00:00:10:04.500,1\n"),
      "line 4, column 1 (Timecode): 00:00:10:04.500 goes back before line 3's 00:00:10:05 (timecodes must increase)");
  EXPECT_EQ(errorOf("Timecode,JawOpen\n00:00:10:05,1\n00:00:10:05.000,1\n"),
            "line 3, column 1 (Timecode): 00:00:10:05.000 repeats line 2's 00:00:10:05 (timecodes must increase)");
  // Control bytes from the file never reach the terminal raw.
  EXPECT_EQ(errorOf("Timecode,Jaw\x1b[2JOpen\n00:00:00:00,\x07\n"),
            "line 2, column 2 (Jaw\\x1b[2JOpen): '\\x07' is not a finite number");
  // The frame rate itself.
  Expected<Capture> zero_fps = parseCaptureCsv("Timecode,JawOpen\n00:00:00:00,1\n", {.fps = 0.0});
  EXPECT_FALSE(zero_fps.ok());
}

TEST(CaptureMatch, AppColumnsDriveArkitNamedTargetsCaseInsensitively) {
  const Asset asset = splitFace();
  const Capture csv = parseOrDie(test::appCsv(8));
  const CaptureMatch match = matchCapture(asset, csv);
  EXPECT_EQ(match.matched_columns.size(), 52u);
  EXPECT_TRUE(match.unmatched_columns.empty());
  EXPECT_EQ(match.unused_rotation_columns.size(), 9u);
  EXPECT_TRUE(match.unmatched_targets.empty());
  ASSERT_EQ(match.track.names.size(), 52u);
  EXPECT_EQ(match.track.names[17], "jawOpen");  // the asset's spelling, applied with NameMatch::kExact
  ASSERT_TRUE(checkWeightTrack(match.track).ok());
}

// One capture column drives every mesh that carries its name, at that mesh's index for it.
TEST(CaptureMatch, OneColumnDrivesEveryMeshSharingTheName) {
  const Asset asset = splitFace();
  const CaptureMatch match = matchCapture(asset, parseOrDie(test::appCsv(6)));
  for (size_t r = 0; r < 6; ++r) {
    PoseOptions options;
    options.time = test::appCsvTime(r);
    options.weights.track = &match.track;
    Expected<PoseResult> pose = poseAsset(asset, kNone, options);
    ASSERT_TRUE(pose.ok()) << pose.error().message;
    ASSERT_EQ(pose->meshes.size(), 2u);
    const std::vector<float>& head = pose->meshes[0].weights;
    const std::vector<float>& teeth = pose->meshes[1].weights;
    for (size_t c = 0; c < 52; ++c) {
      const std::string name = test::arkitName(kLiveLinkBlendShapes[c]);
      const auto it = std::find(asset.meshes[0].target_names.begin(), asset.meshes[0].target_names.end(), name);
      ASSERT_NE(it, asset.meshes[0].target_names.end()) << name;
      EXPECT_NEAR(head[size_t(it - asset.meshes[0].target_names.begin())], test::captureRead(r, c), 1e-6) << name;
      const auto& teeth_names = asset.meshes[1].target_names;
      const auto in_teeth = std::find(teeth_names.begin(), teeth_names.end(), name);
      if (in_teeth != teeth_names.end()) {
        EXPECT_NEAR(teeth[size_t(in_teeth - teeth_names.begin())], test::captureRead(r, c), 1e-6) << name;
      }
    }
    for (size_t t = 20; t < 52; ++t) EXPECT_EQ(teeth[t], 0.0f);  // unnamed targets of the teeth stay at rest
  }
}

// The acceptance test on the real asset: a CSV in the app's exact column order drives MorphSkinBlob52 (ARKit
// names, camelCase) on the CPU exactly like setting the weights by hand, row by row and between rows.
TEST(CaptureMatch, AppCsvDrivesMorphSkinBlob52OnTheCpu) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> asset = loadAsset(test::assetsDir() / "MorphSkinBlob52/MorphSkinBlob52.glb");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const CaptureMatch match = matchCapture(*asset, parseOrDie(test::appCsv(4)));
  EXPECT_EQ(match.matched_columns.size(), 52u);
  EXPECT_TRUE(match.unmatched_targets.empty());
  Expected<PosePrepared> prepared = preparePose(*asset);
  ASSERT_TRUE(prepared.ok());
  const uint32_t mesh = prepared->instances.at(0).mesh;
  const std::vector<std::string>& names = asset->meshes[mesh].target_names;
  for (double row : {0.0, 1.0, 2.0, 2.5}) {
    const size_t r0 = size_t(row), r1 = std::min<size_t>(r0 + 1, 3);
    const double u = row - double(r0);
    const std::vector<float>& keys = match.track.keys.times;  // the parsed times (checked in CaptureCsvParse)
    const double time = double(keys[r0]) + u * (double(keys[r1]) - double(keys[r0]));
    PoseOptions options;
    options.time = time;
    options.path = CpuPath::kFast;
    options.weights.track = &match.track;
    Expected<PoseResult> driven = evaluatePose(*prepared, options);
    ASSERT_TRUE(driven.ok()) << driven.error().message;

    Asset by_hand = *asset;
    std::vector<float> weights(names.size(), 0.0f);
    for (size_t c = 0; c < 52; ++c) {
      const auto it = std::find(names.begin(), names.end(), test::arkitName(kLiveLinkBlendShapes[c]));
      ASSERT_NE(it, names.end());
      const float a = test::captureRead(r0, c), b = test::captureRead(r1, c);
      weights[size_t(it - names.begin())] = float(double(a) + (double(b) - double(a)) * u);
    }
    by_hand.nodes[prepared->instances[0].node].weights = weights;
    by_hand = test::validated(std::move(by_hand));
    PoseOptions plain;
    plain.path = CpuPath::kFast;
    Expected<PoseResult> expected = poseAsset(by_hand, kNone, plain);
    ASSERT_TRUE(expected.ok());
    const PosedPrimitive& got = driven->meshes.at(0);
    const PosedPrimitive& want = expected->meshes.at(0);
    for (size_t t = 0; t < weights.size(); ++t)
      EXPECT_NEAR(got.weights[t], want.weights[t], 2e-6) << names[t] << " row " << row;
    float worst = 0.0f;
    for (size_t i = 0; i < got.positions.size(); ++i)
      worst = std::max(worst, std::fabs(got.positions[i] - want.positions[i]));
    EXPECT_LE(worst, 1e-6f) << "row " << row;
    // And the capture moves the face: far from the rest pose.
    Expected<PoseResult> rest = evaluatePose(*prepared, PoseOptions{.path = CpuPath::kFast});
    float moved = 0.0f;
    for (size_t i = 0; i < got.positions.size(); ++i)
      moved = std::max(moved, std::fabs(got.positions[i] - rest->meshes[0].positions[i]));
    EXPECT_GT(moved, 0.01f);
  }
}

TEST(CaptureMap, RenamesScalesIgnoresAndReports) {
  Asset asset = splitFace();
  // A rig named otherwise: rename three of the head's targets.
  std::vector<std::string>& names = asset.meshes[0].target_names;
  const auto rename = [&](const char* from, const char* to) { *std::find(names.begin(), names.end(), from) = to; };
  rename("mouthSmileLeft", "smile_L");
  rename("jawOpen", "jaw_open");
  rename("tongueOut", "tongue");
  Expected<CaptureMap> map = parseCaptureMapJson(R"({"MouthSmileLeft": "smile_L",
      "JawOpen": {"target": "JAW_OPEN", "scale": 0.8}, "TongueOut": null, "HeadYaw": {"target": "tongue", "scale": 2},
      "EyeBlinkLeft": "noSuchTarget", "NotInTheCsv": "jaw_open"})");
  ASSERT_TRUE(map.ok()) << map.error().message;
  ASSERT_EQ(map->entries.size(), 6u);
  const Capture csv = parseOrDie(test::appCsv(3));
  const CaptureMatch match = matchCapture(asset, csv, &*map);
  EXPECT_EQ(match.ignored_columns, (std::vector<std::string>{"TongueOut"}));
  EXPECT_EQ(match.unknown_map_targets, (std::vector<std::string>{"EyeBlinkLeft -> noSuchTarget"}));
  EXPECT_EQ(match.unused_map_columns, (std::vector<std::string>{"NotInTheCsv"}));
  EXPECT_EQ(match.unused_rotation_columns.size(), 8u);  // HeadYaw is mapped, the 8 others are unused
  EXPECT_TRUE(match.unmatched_columns.empty());
  // eyeBlinkLeft is not driven (its column went to an unknown target).
  EXPECT_NE(std::find(match.unmatched_targets.begin(), match.unmatched_targets.end(), "eyeBlinkLeft"),
            match.unmatched_targets.end());
  const WeightTrack& track = match.track;
  auto column = [&](const char* name) {
    return size_t(std::find(track.names.begin(), track.names.end(), name) - track.names.begin());
  };
  auto csvColumn = [&](std::string_view name) {
    return size_t(std::find(csv.columns.begin(), csv.columns.end(), name) - csv.columns.begin());
  };
  const size_t n = track.names.size();
  ASSERT_LT(column("smile_L"), n);
  ASSERT_LT(column("jaw_open"), n);
  ASSERT_LT(column("tongue"), n);
  for (size_t r = 0; r < 3; ++r) {
    const float* row = &track.keys.values[r * n];
    EXPECT_EQ(row[column("smile_L")], csv.values[r * 61 + csvColumn("MouthSmileLeft")]);
    EXPECT_FLOAT_EQ(row[column("jaw_open")], 0.8f * csv.values[r * 61 + csvColumn("JawOpen")]);
    EXPECT_FLOAT_EQ(row[column("tongue")], 2.0f * csv.values[r * 61 + csvColumn("HeadYaw")]);
  }
  // The teeth carry "jawOpen" (ARKit spelling): the same name as the map's target normalized (case and separators
  // ignored, normalizeCaptureName), so the map's JawOpen entry drives it too.
  EXPECT_EQ(std::find(match.unmatched_targets.begin(), match.unmatched_targets.end(), "jawOpen"),
            match.unmatched_targets.end());
  ASSERT_LT(column("jawOpen"), n);
  EXPECT_FLOAT_EQ(track.keys.values[column("jawOpen")], 0.8f * csv.values[csvColumn("JawOpen")]);
}

TEST(CaptureMap, TwoColumnsOnOneTargetAdd) {
  Asset asset = splitFace();
  Expected<CaptureMap> map = parseCaptureMapJson(
      R"({"MouthSmileLeft": {"target": "mouthSmileLeft", "scale": 0.5}, "MouthSmileRight": {"target": "mouthSmileLeft", "scale": 0.5}})");
  ASSERT_TRUE(map.ok());
  const Capture csv = parseOrDie(test::appCsv(2));
  const CaptureMatch match = matchCapture(asset, csv, &*map);
  const size_t n = match.track.names.size();
  const size_t smile = size_t(std::find(match.track.names.begin(), match.track.names.end(), "mouthSmileLeft") -
                              match.track.names.begin());
  ASSERT_LT(smile, n);
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_FLOAT_EQ(match.track.keys.values[r * n + smile], 0.5f * (csv.values[r * 61 + 23] + csv.values[r * 61 + 24]));
  }
  // mouthSmileRight has no column now: reported.
  EXPECT_NE(std::find(match.unmatched_targets.begin(), match.unmatched_targets.end(), "mouthSmileRight"),
            match.unmatched_targets.end());
}

TEST(CaptureMap, NoMatchingColumnGivesAnEmptyTrack) {
  const Asset asset = splitFace();
  const CaptureMatch match = matchCapture(asset, parseOrDie("Timecode,Foo,HeadYaw\n00:00:00:00,1,0\n"));
  EXPECT_TRUE(match.track.names.empty());
  EXPECT_EQ(match.unmatched_columns, (std::vector<std::string>{"Foo"}));
  EXPECT_EQ(match.unused_rotation_columns, (std::vector<std::string>{"HeadYaw"}));
  EXPECT_EQ(match.unmatched_targets.size(), 52u);
}

TEST(WeightFiles, MapErrorsNameTheKey) {
  auto error = [](std::string_view text) {
    Expected<CaptureMap> map = parseCaptureMapJson(text);
    EXPECT_FALSE(map.ok()) << text;
    return map ? std::string() : map.error().message;
  };
  EXPECT_EQ(parseCaptureMapJson("{\"A\": ").error().code, Error::kInvalidJson);
  EXPECT_NE(error("[1]").find("the top level must be an object"), std::string::npos);
  EXPECT_EQ(error(R"({"JawOpen": 3})"),
            "'JawOpen': must be a target name, {\"target\": name, \"scale\": number} or null");
  EXPECT_EQ(error(R"({"JawOpen": ""})"), "'JawOpen': the target name must not be empty (null ignores the column)");
  EXPECT_EQ(error(R"({"JawOpen": {"scale": 2}})"),
            "'JawOpen': needs \"target\" (a target name, or null to ignore the column)");
  EXPECT_EQ(error(R"({"JawOpen": {"target": 1}})"), "'JawOpen'.target: must be a non-empty string or null");
  EXPECT_EQ(error(R"({"JawOpen": {"target": "a", "scale": "x"}})"), "'JawOpen'.scale: must be a finite number");
  EXPECT_EQ(error(R"({"JawOpen": {"target": "a", "scale": 1e39}})"), "'JawOpen'.scale: must be a finite number");
  EXPECT_EQ(error(R"({"JawOpen": {"target": "a", "gain": 1}})"),
            "'JawOpen'.gain: unknown field (expected target, scale)");
  EXPECT_EQ(error(R"({"JawOpen": "a", "JawOpen": "b"})"), "'JawOpen': repeated key");
  EXPECT_EQ(error(R"({"": "a"})"), "'': a capture column name must not be empty");
  Expected<CaptureMap> ignored = parseCaptureMapJson(R"({"JawOpen": {"target": null}})");
  ASSERT_TRUE(ignored.ok());
  EXPECT_TRUE(ignored->entries[0].target.empty());
}

TEST(WeightFiles, WeightsFileKeepsOrderAndNamesBadKeys) {
  Expected<std::vector<WeightOverride>> weights =
      parseWeightsJson(R"({"jawOpen": 0.8, "eyeBlinkLeft": 1, "x": -2.5e-1})");
  ASSERT_TRUE(weights.ok()) << weights.error().message;
  ASSERT_EQ(weights->size(), 3u);
  EXPECT_EQ((*weights)[0].name, "jawOpen");
  EXPECT_EQ((*weights)[0].value, 0.8f);
  EXPECT_EQ((*weights)[2].value, -0.25f);
  EXPECT_EQ(parseWeightsJson("nope").error().code, Error::kInvalidJson);
  EXPECT_EQ(parseWeightsJson(R"({"jawOpen": "0.8"})").error().message, "'jawOpen': must be a finite number");
  EXPECT_EQ(parseWeightsJson(R"({"jawOpen": null})").error().message, "'jawOpen': must be a finite number");
  EXPECT_EQ(parseWeightsJson(R"({"jawOpen": 1, "jawOpen": 2})").error().message, "'jawOpen': repeated key");
  EXPECT_EQ(parseWeightsJson(R"({"a\u0007b": "x"})").error().message, "'a\\x07b': must be a finite number");
  EXPECT_NE(parseWeightsJson("[0.5]").error().message.find("the top level must be an object"), std::string::npos);
}

}  // namespace
}  // namespace morphkit
