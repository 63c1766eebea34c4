// SPDX-License-Identifier: MIT
// Tests for morphkit/io/capture_signal.h (scale detection, neutral calibration, the One-Euro filter, time offset,
// resampling) and the CLI options that run them (--capture-scale, --neutral, --smooth, --capture-offset, animate
// --fps, --verbose).
#include "morphkit/io/capture_signal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "morphkit/io/capture_file.h"
#include "morphkit/model/files.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::CliRun;

// Two shape channels and one rotation channel over `rows` rows at `fps`, values from `f(row, channel)`.
template <class F>
Capture makeCapture(size_t rows, double fps, F f) {
  Capture c;
  c.columns = {"JawOpen", "eyeBlink_L", "HeadYaw"};
  for (size_t r = 0; r < rows; ++r) {
    c.times.push_back(float(double(r) / fps));
    for (size_t k = 0; k < 3; ++k) c.values.push_back(float(f(r, k)));
  }
  return c;
}

TEST(CaptureSignal, ScaleIsTheFormatsOrDetectedAndLeavesRotations) {
  Capture percent = makeCapture(3, 30, [](size_t r, size_t k) { return k == 2 ? -0.2 : 40.0 * double(r); });
  float largest = 0;
  EXPECT_EQ(detectCaptureScale(percent, &largest), 100.0f);
  EXPECT_EQ(largest, 80.0f);
  scaleCapture(percent, 100.0f);
  EXPECT_FLOAT_EQ(percent.values[2 * 3 + 0], 0.8f);
  EXPECT_EQ(percent.values[2 * 3 + 2], -0.2f);  // HeadYaw: radians, not rescaled
  Capture unit = makeCapture(3, 30, [](size_t r, size_t) { return 0.4 * double(r); });
  EXPECT_EQ(detectCaptureScale(unit), 1.0f);
  unit.full_scale = 100.0f;  // iFacialMocap says so itself
  EXPECT_EQ(detectCaptureScale(unit), 100.0f);
}

TEST(CaptureSignal, NeutralIsSubtractedAndClampedAtZero) {
  Capture c =
      makeCapture(4, 10, [](size_t r, size_t k) { return k == 2 ? 0.5 : 0.1 * double(r + 1) + 0.05 * double(k); });
  size_t rows = 0;
  const std::vector<float> neutral = neutralFromFirst(c, 0.1, &rows);  // rows at 0 and 0.1 s
  EXPECT_EQ(rows, 2u);
  EXPECT_FLOAT_EQ(neutral[0], 0.15f);
  EXPECT_FLOAT_EQ(neutral[1], 0.2f);
  subtractNeutral(c, neutral);
  EXPECT_EQ(c.values[0], 0.0f);  // 0.1 - 0.15 clamped
  EXPECT_FLOAT_EQ(c.values[3 * 3 + 0], 0.4f - 0.15f);
  EXPECT_EQ(c.values[3 * 3 + 2], 0.5f);  // rotations are not calibrated
  // A neutral capture matched by normalized name; channels it lacks subtract nothing.
  Capture face;
  face.columns = {"jawOpen", "EyeBlinkLeft"};
  face.times = {0.0f, 1.0f};
  face.values = {0.2f, 0.0f, 0.4f, 0.5f};
  std::vector<std::string> missing;
  const std::vector<float> from_file = neutralFromCapture(c, face, &missing);
  EXPECT_FLOAT_EQ(from_file[0], 0.3f);
  EXPECT_FLOAT_EQ(from_file[1], 0.25f);
  EXPECT_EQ(from_file[2], 0.0f);
  EXPECT_EQ(missing, (std::vector<std::string>{"HeadYaw"}));
}

TEST(CaptureSignal, OneEuroFollowsTheFilterEquations) {
  // Two steps by hand (Casiez et al. 2012): dt = 0.1, x = 0, 1, 1.
  Capture c;
  c.columns = {"jawOpen"};
  c.times = {0.0f, 0.1f, 0.2f};
  c.values = {0.0f, 1.0f, 1.0f};
  const OneEuroParams params{.min_cutoff = 1.0, .beta = 0.5, .d_cutoff = 1.0};
  auto alpha = [](double cutoff, double dt) { return 1.0 / (1.0 + 1.0 / (2.0 * M_PI * cutoff * dt)); };
  const double dt1 = double(0.1f), dt2 = double(0.2f) - double(0.1f);
  double dx = alpha(1.0, dt1) * (1.0 / dt1);
  double x1 = alpha(1.0 + 0.5 * dx, dt1) * 1.0;
  dx += alpha(1.0, dt2) * ((1.0 - x1) / dt2 - dx);
  double x2 = x1 + alpha(1.0 + 0.5 * std::fabs(dx), dt2) * (1.0 - x1);
  smoothOneEuro(c, params);
  EXPECT_EQ(c.values[0], 0.0f);
  EXPECT_NEAR(c.values[1], x1, 1e-6);
  EXPECT_NEAR(c.values[2], x2, 1e-6);
}

TEST(CaptureSignal, OneEuroRemovesJitterAtRestAndFollowsFastMotion) {
  // A resting channel with ±0.02 jitter, and a fast one (3 Hz, amplitude 0.5) with the same jitter.
  auto jitter = [](size_t r) { return 0.02 * ((r * 7919 % 13) / 6.0 - 1.0); };
  Capture c = makeCapture(240, 60, [&](size_t r, size_t k) {
    const double t = double(r) / 60;
    return k == 0 ? 0.3 + jitter(r) : 0.5 + 0.5 * std::sin(2 * M_PI * 3 * t) + jitter(r);
  });
  const Capture raw = c;
  Capture plain = c;
  smoothOneEuro(c, {.min_cutoff = 1.0, .beta = 1.0});
  smoothOneEuro(plain, {.min_cutoff = 1.0, .beta = 0.0});  // a 1 Hz low-pass alone
  double rest_raw = 0, rest_smooth = 0, fast_error = 0, plain_error = 0;
  for (size_t r = 60; r < 240; ++r) {
    rest_raw = std::max(rest_raw, std::fabs(raw.values[r * 3] - 0.3));
    rest_smooth = std::max(rest_smooth, std::fabs(c.values[r * 3] - 0.3));
    const double clean = 0.5 + 0.5 * std::sin(2 * M_PI * 3 * double(r) / 60);
    fast_error = std::max(fast_error, std::fabs(c.values[r * 3 + 1] - clean));
    plain_error = std::max(plain_error, std::fabs(plain.values[r * 3 + 1] - clean));
  }
  EXPECT_LT(rest_smooth, 0.25 * rest_raw);    // jitter at rest cut by more than 4×
  EXPECT_LT(fast_error, 0.75 * plain_error);  // the fast channel is followed better than by the low-pass alone
}

TEST(CaptureSignal, OffsetDelaysOrCutsWithARowAtZero) {
  Capture later = makeCapture(3, 10, [](size_t r, size_t) { return double(r); });
  Expected<size_t> none = offsetCapture(later, 0.25);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 0u);
  EXPECT_EQ(later.times, (std::vector<float>{0.25f, 0.35f, 0.45f}));
  Capture earlier = makeCapture(4, 10, [](size_t r, size_t) { return double(r); });
  Expected<size_t> dropped = offsetCapture(earlier, -0.15);
  ASSERT_TRUE(dropped.ok()) << dropped.error().message;
  EXPECT_EQ(*dropped, 2u);  // rows 0 and 1 are before 0.15 s; a row is interpolated at 0
  ASSERT_EQ(earlier.rows(), 3u);
  EXPECT_EQ(earlier.times[0], 0.0f);
  EXPECT_NEAR(earlier.times[1], 0.05f, 1e-6);
  EXPECT_NEAR(earlier.values[0], 1.5f, 1e-5);
  Capture gone = makeCapture(2, 10, [](size_t, size_t) { return 0.0; });
  Expected<size_t> fail_all = offsetCapture(gone, -1.0);
  ASSERT_FALSE(fail_all.ok());
  EXPECT_NE(fail_all.error().message.find("moves every row before 0"), std::string::npos);
}

TEST(CaptureSignal, ResampleIsLinearOnAUniformGrid) {
  // A ramp at irregular times: resampled values are the ramp at the new times, exactly (LINEAR).
  Capture c;
  c.columns = {"jawOpen"};
  c.times = {0.0f, 0.013f, 0.05f, 0.071f, 0.1f};
  for (float t : c.times) c.values.push_back(2.0f * t);
  resampleCapture(c, 40.0);
  ASSERT_EQ(c.rows(), 5u);  // 0, 0.025, 0.05, 0.075, 0.1
  for (size_t r = 0; r < c.rows(); ++r) {
    EXPECT_NEAR(c.times[r], 0.025 * double(r), 1e-7);
    EXPECT_NEAR(c.values[r], 2.0 * c.times[r], 1e-6);
  }
  Capture off_grid;
  off_grid.columns = {"jawOpen"};
  off_grid.times = {0.0f, 0.07f};
  off_grid.values = {0.0f, 1.0f};
  resampleCapture(off_grid, 30.0);  // 0, 1/30, 2/30, then the last row's 0.07
  ASSERT_EQ(off_grid.rows(), 4u);
  EXPECT_EQ(off_grid.times.back(), 0.07f);
  EXPECT_EQ(off_grid.values.back(), 1.0f);
}

TEST(CaptureSignal, TheCliRunsEachStepAndReportsItUnderVerbose) {
  auto dir = test::scratchDir();
  ASSERT_EQ(test::runMorphkit(dir, "make-demo face.glb --targets 52 --vertices 400").exit_code, 0);
  // A percent CSV at 60 fps: jawOpen 20 % at rest for 0.5 s, then 80 %.
  std::string csv = "time,jawOpen,eyeBlinkLeft\n";
  for (int r = 0; r < 60; ++r) csv += std::to_string(r / 60.0) + (r < 30 ? ",20,0\n" : ",80,100\n");
  ASSERT_TRUE(writeFileAtomic(dir / "p.csv", csv).ok());
  CliRun run = test::runMorphkit(
      dir,
      "animate face.glb --capture p.csv --neutral first:0.4 --smooth one-euro:2,0.5 --capture-offset 0.1 "
      "--fps 30 --out a.glb --verbose --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("  scale: values / 100 (detected: a value above 1.5; largest shape value 100)\n"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("  neutral: the mean of the first 25 rows (to 0.4 s) subtracted, clamped at 0; largest 0.2 "
                         "(jawOpen)\n"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("  smooth: One-Euro, min cutoff 2 Hz, beta 0.5, speed cutoff 1 Hz; largest change "),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("  offset: +0.1 s (0 rows before 0 dropped)\n"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("  resample: 60 rows -> 31 at 30 fps (LINEAR)\n"), std::string::npos) << run.err;
  EXPECT_NE(run.out.find("\"keys\":31,"), std::string::npos) << run.out;
  // The baked jawOpen: 0 at rest (neutral removed), then towards 0.6.
  CliRun rest = test::runMorphkit(dir, "pose a.glb --anim capture --time 0.2 --json");
  CliRun zero = test::runMorphkit(dir, "pose face.glb --anim rest --json");
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  EXPECT_EQ(rest.out.substr(rest.out.find("\"meshes\"")), zero.out.substr(zero.out.find("\"meshes\"")));
  // Bad values are usage errors.
  for (const char* bad : {"--smooth gauss", "--smooth one-euro:0,1", "--smooth one-euro:1", "--neutral first:-1",
                          "--neutral first:x", "--capture-scale 0", "--capture-offset nan", "--fps 0"}) {
    SCOPED_TRACE(bad);
    run = test::runMorphkit(dir, std::string("animate face.glb --capture p.csv --out b.glb ") + bad);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "b.glb"));
  }
  run = test::runMorphkit(dir, "animate face.glb --capture p.csv --out b.glb --capture-offset -5");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("morphkit: error: p.csv: the capture offset -5", 0), 0u) << run.err;
  run = test::runMorphkit(dir, "animate face.glb --capture p.csv --out b.glb --neutral missing.csv");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("morphkit: error: missing.csv: ", 0), 0u) << run.err;
  // render has its own --fps; pose takes the cleaning options too.
  run = test::runMorphkit(dir, "pose face.glb --capture p.csv --capture-scale 100 --time 0.9 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  CliRun direct = test::runMorphkit(dir, "pose face.glb --weights jawOpen=0.8,eyeBlinkLeft=1 --json");
  EXPECT_EQ(run.out.substr(run.out.find("\"meshes\"")), direct.out.substr(direct.out.find("\"meshes\"")));
}

}  // namespace
}  // namespace morphkit
