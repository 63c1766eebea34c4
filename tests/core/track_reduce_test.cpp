// SPDX-License-Identifier: MIT
// Tests for morphkit/core/track_reduce.h and `animate --max-error`: the fewest LINEAR keys within a vertex-space bound,
// checked here independently of the reduction — both tracks posed by the core's reference pose at every row time
// of the capture — on tracks whose answer is known (a ramp needs 2 keys, a tent 3), on the make-demo face's own
// 240-row capture, and through the CLI (keys before/after, the achieved error, --max-error 0 keeps every key).
#include "morphkit/core/track_reduce.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/capture.h"
#include "morphkit/model/files.h"
#include "morphkit/model/thread_pool.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::CliRun;

// Two threads for the reference pose: it is the test's cost (the check poses the 20000-vertex face ~1000 times).
ThreadPool& pool() {
  static ThreadPool threads(2);
  return threads;
}

std::vector<float> posed(const PosePrepared& prepared, uint32_t animation, const WeightTrack* track, double time) {
  PoseOptions options;
  options.pool = &pool();  // the reference path (positions only: bit-identical to a full pose's, pose.h)
  options.positions_only = true;
  options.animation = animation;
  options.time = time;
  options.weights.track = track;
  Expected<PoseResult> pose = evaluatePose(prepared, options);
  EXPECT_TRUE(pose.ok()) << pose.error().message;
  std::vector<float> out;
  if (pose) {
    for (const PosedPrimitive& p : pose->meshes) out.insert(out.end(), p.positions.begin(), p.positions.end());
  }
  return out;
}

double distance(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0.0;
  for (size_t i = 0; i + 2 < std::min(a.size(), b.size()); i += 3) {
    const double dx = double(a[i]) - b[i], dy = double(a[i + 1]) - b[i + 1], dz = double(a[i + 2]) - b[i + 2];
    worst = std::max(worst, std::sqrt(dx * dx + dy * dy + dz * dz));
  }
  return worst;
}

// The largest distance, over the full track's row times, between posing `full` and `reduced`.
double independentError(const PosePrepared& prepared, const WeightTrack& full, const WeightTrack& reduced) {
  double worst = 0.0;
  for (float t : full.keys.times) {
    worst = std::max(worst, distance(posed(prepared, kNone, &full, t), posed(prepared, kNone, &reduced, t)));
  }
  return worst;
}

WeightTrack oneColumn(const std::string& name, const std::vector<float>& values, double fps) {
  WeightTrack track;
  track.names = {name};
  track.keys.interpolation = Interpolation::kLinear;
  track.keys.components = 1;
  for (size_t r = 0; r < values.size(); ++r) track.keys.times.push_back(float(double(r) / fps));
  track.keys.values = values;
  return track;
}

TEST(TrackReduce, ARampNeedsTwoKeysATentThree) {
  Expected<Asset> demo = makeDemoAsset({.targets = 4, .vertices = 600, .bones = 2});
  ASSERT_TRUE(demo.ok());
  const Asset asset = test::validated(std::move(*demo));
  Expected<PosePrepared> prepared = preparePose(asset);
  ASSERT_TRUE(prepared.ok());
  const std::string name = asset.meshes[0].target_names[0];
  std::vector<float> ramp, tent;
  for (int r = 0; r < 21; ++r) {
    ramp.push_back(float(r) / 32.0f);  // exact in float: LINEAR between the ends is the ramp itself
    tent.push_back(float(10 - std::abs(r - 10)) / 16.0f);
  }
  const WeightTrack ramp_track = oneColumn(name, ramp, 30);
  Expected<TrackReduction> two = reduceWeightTrack(*prepared, ramp_track, 1e-5);
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->kept_rows, (std::vector<size_t>{0, 20}));
  EXPECT_EQ(two->keys_before, 21u);
  EXPECT_LE(independentError(*prepared, ramp_track, two->track), 1e-5);
  Expected<TrackReduction> three = reduceWeightTrack(*prepared, oneColumn(name, tent, 30), 1e-5);
  ASSERT_TRUE(three.ok()) << three.error().message;
  EXPECT_EQ(three->kept_rows, (std::vector<size_t>{0, 10, 20}));
  // A bound no interval meets keeps every row; bad bounds fail.
  std::vector<float> zigzag;
  for (int r = 0; r < 9; ++r) zigzag.push_back(r % 2 ? 1.0f : 0.0f);
  Expected<TrackReduction> all = reduceWeightTrack(*prepared, oneColumn(name, zigzag, 30), 1e-9);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->kept_rows.size(), 9u);
  EXPECT_EQ(all->max_error, 0.0);
  EXPECT_FALSE(reduceWeightTrack(*prepared, ramp_track, 0.0).ok());
  EXPECT_FALSE(reduceWeightTrack(*prepared, ramp_track, NAN).ok());
}

TEST(TrackReduce, TheDemoFacesCaptureWithinATenthOfAMillimetre) {
  // The make-demo face (20000 vertices, 52 targets, 2 m tall) and its 240-row, 52-shape capture.
  Expected<Asset> demo = makeDemoAsset({});
  ASSERT_TRUE(demo.ok());
  const Asset asset = test::validated(std::move(*demo));
  Expected<std::string> text = makeDemoCapture({});
  ASSERT_TRUE(text.ok());
  Expected<Capture> capture = parseCaptureCsv(*text);
  ASSERT_TRUE(capture.ok());
  ASSERT_EQ(capture->rows(), 240u);
  const CaptureMatch match = matchCapture(asset, *capture);
  ASSERT_EQ(match.track.names.size(), 52u);
  Expected<PosePrepared> prepared = preparePose(asset);
  ASSERT_TRUE(prepared.ok());
  Expected<TrackReduction> reduced = reduceWeightTrack(*prepared, match.track, 1e-4, &pool());
  ASSERT_TRUE(reduced.ok()) << reduced.error().message;
  const double checked = independentError(*prepared, match.track, reduced->track);
  std::printf("demo face: %zu of %zu keys within 0.1 mm; reported %.6f mm, checked %.6f mm\n",
              reduced->kept_rows.size(), reduced->keys_before, 1e3 * reduced->max_error, 1e3 * checked);
  EXPECT_LE(checked, 1e-4);
  EXPECT_NEAR(checked, reduced->max_error, 1e-9);
  EXPECT_LT(reduced->kept_rows.size(), 240u);
  EXPECT_EQ(reduced->kept_rows.front(), 0u);
  EXPECT_EQ(reduced->kept_rows.back(), 239u);
  // Fewest: dropping any one kept interior key (its neighbours stay) breaks the bound somewhere.
  size_t removable = 0;
  for (size_t k = 1; k + 1 < reduced->kept_rows.size(); k += 11) {
    std::vector<size_t> fewer = reduced->kept_rows;
    fewer.erase(fewer.begin() + ptrdiff_t(k));
    WeightTrack smaller = reduced->track;
    smaller.keys.times.erase(smaller.keys.times.begin() + ptrdiff_t(k));
    smaller.keys.values.erase(smaller.keys.values.begin() + ptrdiff_t(k * 52),
                              smaller.keys.values.begin() + ptrdiff_t((k + 1) * 52));
    double worst = 0.0;
    for (size_t r = fewer[k - 1] + 1; r < fewer[k]; ++r) {
      const double t = match.track.keys.times[r];
      worst = std::max(worst, distance(posed(*prepared, kNone, &match.track, t), posed(*prepared, kNone, &smaller, t)));
    }
    removable += worst <= 1e-4 ? 1 : 0;
  }
  EXPECT_EQ(removable, 0u);
}

TEST(TrackReduce, AnimateReportsAndBakesTheReducedKeys) {
  auto dir = test::scratchDir();
  ASSERT_EQ(test::runMorphkit(dir, "make-demo face.glb --vertices 3000").exit_code, 0);
  CliRun run = test::runMorphkit(dir, "animate face.glb --capture face_capture.csv --max-error 0.1 --out r.glb --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element json;
  ASSERT_EQ(parser.parse(run.out).get(json), simdjson::SUCCESS) << run.out;
  const uint64_t before = json["keysBefore"].get_uint64().value_unsafe();
  const uint64_t after = json["keys"].get_uint64().value_unsafe();
  const double reported_mm = json["maxErrorMm"].get_double().value_unsafe();
  EXPECT_EQ(before, 240u);
  EXPECT_LT(after, before);
  EXPECT_LE(reported_mm, 0.1);
  // Independently: the baked file's animation against the input posed with the full capture, at every row time.
  Expected<Asset> input = loadAsset((dir / "face.glb").string());
  Expected<Asset> baked = loadAsset((dir / "r.glb").string());
  ASSERT_TRUE(input.ok() && baked.ok());
  Expected<Capture> capture = parseCaptureCsv(test::slurp(dir / "face_capture.csv"));
  ASSERT_TRUE(capture.ok());
  const CaptureMatch match = matchCapture(*input, *capture);
  Expected<PosePrepared> in = preparePose(*input), out = preparePose(*baked);
  ASSERT_TRUE(in.ok() && out.ok());
  double worst = 0.0;
  for (float t : capture->times) {
    worst = std::max(worst, distance(posed(*in, kNone, &match.track, t), posed(*out, 3, nullptr, t)));
  }
  EXPECT_LE(worst, 1e-4);
  EXPECT_NEAR(worst * 1e3, reported_mm, 1e-6);
  // The text summary says the same; --max-error 0 keeps every key (and says nothing of a reduction).
  run = test::runMorphkit(dir, "animate face.glb --capture face_capture.csv --max-error 0.1 --out r2.glb");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find(std::to_string(after) + " keys over 3.987 s"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("; keys 240 -> " + std::to_string(after) + " within 0.1 mm (largest vertex error "),
            std::string::npos)
      << run.out;
  run = test::runMorphkit(dir, "animate face.glb --capture face_capture.csv --max-error 0 --out r3.glb");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("240 keys over 3.987 s"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("keys 240 ->"), std::string::npos) << run.out;
  for (const char* bad : {"--max-error -1", "--max-error nan", "--max-error x"}) {
    run = test::runMorphkit(dir, std::string("animate face.glb --capture face_capture.csv --out r4.glb ") + bad);
    EXPECT_EQ(run.exit_code, 2) << bad << ": " << run.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "r4.glb"));
  }
}

}  // namespace
}  // namespace morphkit
