// SPDX-License-Identifier: MIT
// Tests for makeDemoCapture (morphkit/demo/demo.h): the sample face capture make-demo writes beside its asset is in the
// Live Link Face layout, drives every ARKit-named target of the demo asset, and looks like a performance.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/demo/demo.h"
#include "morphkit/io/capture.h"

namespace morphkit {
namespace {

Capture parsed(const DemoCaptureOptions& options = {}) {
  Expected<std::string> text = makeDemoCapture(options);
  EXPECT_TRUE(text.ok()) << text.error().message;
  if (!text) return {};
  Expected<Capture> csv = parseCaptureCsv(*text, {.fps = options.fps});
  EXPECT_TRUE(csv.ok()) << csv.error().message;
  return csv ? std::move(*csv) : Capture{};
}

std::vector<float> column(const Capture& csv, std::string_view name) {
  const size_t c = size_t(std::find(csv.columns.begin(), csv.columns.end(), name) - csv.columns.begin());
  EXPECT_LT(c, csv.columns.size()) << name;
  std::vector<float> values;
  for (size_t r = 0; r < csv.rows() && c < csv.columns.size(); ++r)
    values.push_back(csv.values[r * csv.columns.size() + c]);
  return values;
}

TEST(DemoCapture, TheAppsLayoutAndRanges) {
  const Capture csv = parsed();
  ASSERT_EQ(csv.rows(), 240u);  // 4 s at 60 fps
  ASSERT_EQ(csv.columns.size(), 61u);
  for (size_t c = 0; c < 52; ++c) EXPECT_EQ(csv.columns[c], kLiveLinkBlendShapes[c]);
  for (size_t c = 0; c < 9; ++c) EXPECT_EQ(csv.columns[52 + c], kLiveLinkRotations[c]);
  EXPECT_EQ(csv.first_timecode.substr(0, 12), "10:00:00:00.");
  EXPECT_GT(csv.times.back(), 3.98f);
  EXPECT_LT(csv.times.back(), 4.0f);
  for (size_t r = 0; r < csv.rows(); ++r) {
    for (size_t c = 0; c < 61; ++c) {
      const float v = csv.values[r * 61 + c];
      if (c < 52) {
        ASSERT_TRUE(v >= 0.0f && v <= 1.0f) << csv.columns[c] << " row " << r << ": " << v;
      } else {
        ASSERT_LE(std::abs(v), 0.3f) << csv.columns[c] << " row " << r;
      }
    }
  }
}

TEST(DemoCapture, DrivesEveryArkitTargetOfTheDemoAsset) {
  const Asset asset = test::validated(makeDemoAsset({.targets = 60, .vertices = 300, .bones = 2}));
  const CaptureMatch match = matchCapture(asset, parsed());
  EXPECT_EQ(match.matched_columns.size(), 52u);
  EXPECT_TRUE(match.unmatched_columns.empty());
  EXPECT_EQ(match.unused_rotation_columns.size(), 9u);
  // Past the 52 ARKit names the demo names its targets extra052, ...: no capture column drives them.
  EXPECT_EQ(match.unmatched_targets, (std::vector<std::string>{"extra052", "extra053", "extra054", "extra055",
                                                               "extra056", "extra057", "extra058", "extra059"}));
}

TEST(DemoCapture, LooksLikeAPerformance) {
  const Capture csv = parsed();
  const std::vector<float> jaw = column(csv, "JawOpen");
  EXPECT_GT(*std::max_element(jaw.begin(), jaw.end()), 0.4f);   // speech opens the jaw
  EXPECT_LT(*std::min_element(jaw.begin(), jaw.end()), 0.05f);  // and closes it
  const std::vector<float> blink = column(csv, "EyeBlinkLeft");
  EXPECT_GT(*std::max_element(blink.begin(), blink.end()), 0.9f);
  const std::vector<float> smile = column(csv, "MouthSmileLeft");
  EXPECT_LT(smile.front(), 0.1f);
  EXPECT_GT(smile.back(), 0.6f);
  const std::vector<float> yaw = column(csv, "HeadYaw");
  EXPECT_NE(*std::max_element(yaw.begin(), yaw.end()), *std::min_element(yaw.begin(), yaw.end()));
}

TEST(DemoCapture, SeededAndDeterministic) {
  EXPECT_EQ(*makeDemoCapture({.seed = 3}), *makeDemoCapture({.seed = 3}));
  EXPECT_NE(*makeDemoCapture({.seed = 3}), *makeDemoCapture({.seed = 4}));
  EXPECT_EQ(parsed({.seconds = 0.5, .fps = 30}).rows(), 15u);
}

TEST(DemoCapture, RefusesBadOptions) {
  EXPECT_FALSE(makeDemoCapture({.seconds = 0}).ok());
  EXPECT_FALSE(makeDemoCapture({.seconds = 3601}).ok());
  EXPECT_FALSE(makeDemoCapture({.seconds = NAN}).ok());
  EXPECT_FALSE(makeDemoCapture({.fps = 0}).ok());
  EXPECT_FALSE(makeDemoCapture({.fps = 29.97}).ok());
  EXPECT_FALSE(makeDemoCapture({.fps = 500}).ok());
}

}  // namespace
}  // namespace morphkit
