// SPDX-License-Identifier: MIT
// check_command_test.cpp — `morphkit check` end to end: the report, --json, --fail-above, bad input.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <string>

#include "gltf_test_util.h"
#include "test_support.h"

namespace morphkit {
namespace {

// A make-demo face of 600 vertices and `targets` targets in `dir`.
std::string makeFace(const std::filesystem::path& dir, uint32_t targets) {
  const std::string file = "face" + std::to_string(targets) + ".glb";
  const test::CliRun made = test::runMorphkit(
      dir, "make-demo " + file + " --vertices 600 --targets " + std::to_string(targets) + " --no-capture");
  EXPECT_EQ(made.exit_code, 0) << made.err;
  return file;
}

TEST(CheckCommand, UnknownEngineIsAUsageErrorNamingTheKnownOnes) {
  const auto dir = test::scratchDir();
  const std::string face = makeFace(dir, 8);
  const test::CliRun run = test::runMorphkit(dir, "check " + face + " --engines three,unity");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(
                "'unity': unknown engine (known: three, babylon, filament, godot, bevy, playcanvas, univrm, or all)"),
            std::string::npos)
      << run.err;
  EXPECT_TRUE(run.out.empty());
  EXPECT_EQ(test::runMorphkit(dir, "check " + face + " --times 0").exit_code, 2);
  EXPECT_EQ(test::runMorphkit(dir, "check " + face + " --fail-above -1").exit_code, 2);
}

TEST(CheckCommand, AFileThatDoesNotLoadIsTheUsualErrorLine) {
  const auto dir = test::scratchDir();
  test::writeText(dir / "broken.gltf", "{\"asset\":{}}");
  const test::CliRun run = test::runMorphkit(dir, "check broken.gltf");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("morphkit: error: broken.gltf: ", 0), 0u) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1);
  EXPECT_TRUE(run.out.empty());
}

TEST(CheckCommand, ThreeHundredTargetsAreDroppedByFilamentAndRefusedByBevy) {
  const auto dir = test::scratchDir();
  const std::string face = makeFace(dir, 300);
  const test::CliRun run = test::runMorphkit(dir, "check " + face + " --engines filament,bevy --times 4 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(run.out);
  simdjson::dom::array engines = doc["engines"].get_array();
  ASSERT_EQ(engines.size(), 2u);
  simdjson::dom::element filament = engines.at(0), bevy = engines.at(1);
  EXPECT_EQ(std::string_view(filament["name"].get_string()), "filament");
  EXPECT_TRUE(bool(filament["loads"].get_bool()));
  EXPECT_FALSE(bool(bevy["loads"].get_bool()));
  bool dropped = false;
  for (simdjson::dom::element h : filament["hazards"].get_array()) {
    dropped = dropped || std::string_view(h["id"].get_string()) == "target-cap";
  }
  EXPECT_TRUE(dropped);
  bool refused = false;
  for (simdjson::dom::element h : bevy["hazards"].get_array()) {
    if (std::string_view(h["id"].get_string()) != "target-cap-refused") continue;
    refused = bool(h["refuses_load"].get_bool());
    EXPECT_TRUE(h["deviation_if_dropped"].is_object());
  }
  EXPECT_TRUE(refused);
  // The demo's clip drives targets past 256: Filament's deviation is measured and non-zero.
  simdjson::dom::element deviation = filament["deviation"];
  ASSERT_TRUE(deviation.is_object());
  EXPECT_GT(double(deviation["position_mm"].get_double()), 0.0);
  const double mm = double(deviation["position_mm"].get_double());
  // --fail-above: below the deviation exits 1 with one line, above it passes.
  const test::CliRun strict =
      test::runMorphkit(dir, "check " + face + " --engines filament --times 4 --fail-above " + std::to_string(mm / 2));
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_NE(strict.err.find("--fail-above"), std::string::npos) << strict.err;
  EXPECT_NE(strict.out.find("filament"), std::string::npos);  // the report still printed
  EXPECT_EQ(test::runMorphkit(
                dir, "check " + face + " --engines filament --times 4 --fail-above " + std::to_string(mm * 2 + 1))
                .exit_code,
            0);
}

TEST(CheckCommand, TextReportSaysNotApplicable) {
  const auto dir = test::scratchDir();
  const std::string face = makeFace(dir, 8);
  const test::CliRun run = test::runMorphkit(dir, "check " + face + " --times 3");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* name : {"three", "babylon", "filament", "godot", "bevy", "playcanvas", "univrm"}) {
    EXPECT_NE(run.out.find(std::string("\n") + name + " ("), std::string::npos) << name << "\n" << run.out;
  }
  EXPECT_NE(run.out.find("not applicable: no mesh has that many targets"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace morphkit
