// SPDX-License-Identifier: MIT
// docs/CLI.md's "One set of habits" and "The overwrite rule": -q, -o, --out - --format, inspect -, the
// wrote/replaced line, folders that would mix runs; summaries that say what ran; pose --compare --tolerance.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "demo_dir_support.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/files.h"
#include "morphkit/vk/gpu.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::CliRun;

CliRun morphkit(const std::filesystem::path& dir, const std::string& args) {
  return test::runMorphkit(dir, args);
}

std::string sizeOf(const std::filesystem::path& file) {
  return std::to_string(std::filesystem::file_size(file));
}

TEST(CliHabits, SingleFilesAreWrittenThenReplacedAndSaySo) {
  auto dir = test::smallDemoDir();
  CliRun first = morphkit(dir, "pose demo.glb --time 0.1 -o p.json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.err, "morphkit: wrote p.json (" + sizeOf(dir / "p.json") + " bytes)\n");
  CliRun again = morphkit(dir, "pose demo.glb --time 0.2 --out p.json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err, "morphkit: replaced p.json (" + sizeOf(dir / "p.json") + " bytes)\n");
  CliRun quiet = morphkit(dir, "pose demo.glb --time 0.2 --out p.json -q");
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.err, "");
  CliRun quiet_first = morphkit(dir, "--quiet pose demo.glb --time 0.2 --out p.json");
  EXPECT_EQ(quiet_first.exit_code, 0);
  EXPECT_EQ(quiet_first.err, "");

  CliRun demo = morphkit(dir, "make-demo d.glb --vertices 600 --targets 4 --no-capture");
  ASSERT_EQ(demo.exit_code, 0) << demo.err;
  EXPECT_EQ(demo.out.find("(replaced)"), std::string::npos) << demo.out;
  CliRun demo_again = morphkit(dir, "make-demo d.glb --vertices 600 --targets 4 --no-capture");
  EXPECT_NE(demo_again.out.find(" bytes (replaced)\n"), std::string::npos) << demo_again.out;

  // optimize follows the same rule (it used to refuse an existing OUT without --force).
  CliRun small = morphkit(dir, "optimize d.glb --out small.glb");
  ASSERT_EQ(small.exit_code, 0) << small.err;
  EXPECT_NE(small.err.find("morphkit: wrote small.glb ("), std::string::npos) << small.err;
  CliRun small_again = morphkit(dir, "optimize d.glb --out small.glb");
  ASSERT_EQ(small_again.exit_code, 0) << small_again.err;
  EXPECT_NE(small_again.err.find("morphkit: replaced small.glb (" + sizeOf(dir / "small.glb") + " bytes)\n"),
            std::string::npos)
      << small_again.err;
}

TEST(CliHabits, OutDashWritesTheFormatToStdout) {
  auto dir = test::smallDemoDir();
  ASSERT_EQ(morphkit(dir, "pose demo.glb --time 0.1 --out p.json").exit_code, 0);
  ASSERT_EQ(morphkit(dir, "pose demo.glb --time 0:0.3:0.1 --out p.npz").exit_code, 0);
  CliRun json = morphkit(dir, "pose demo.glb --time 0.1 --out - --format json");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out, test::slurp(dir / "p.json"));
  EXPECT_EQ(json.err, "");  // no "wrote" line for stdout
  CliRun npz = morphkit(dir, "pose demo.glb --time 0:0.3:0.1 -o - --format npz");
  EXPECT_EQ(npz.out, test::slurp(dir / "p.npz"));
  const std::string help = " (`morphkit pose --help` for usage)";
  CliRun bare = morphkit(dir, "pose demo.glb --out -");
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_EQ(bare.err, "morphkit: error: --out -: give the format with --format (json, obj, glb, npy or npz)\n");
  CliRun contradicts = morphkit(dir, "pose demo.glb --out q.json --format obj");
  EXPECT_EQ(contradicts.exit_code, 2);
  EXPECT_EQ(contradicts.err, "morphkit: error: --out q.json: the name's extension contradicts --format obj\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "q.json"));
}

TEST(CliHabits, InspectReadsStdin) {
  auto dir = test::smallDemoDir();
  CliRun file = morphkit(dir, "inspect demo.glb --json");
  CliRun piped = morphkit(dir, "inspect - --json < demo.glb");
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  // The same data; only the echoed file name differs.
  std::string expected = file.out;
  const std::string from = "\"file\": \"demo.glb\"", to = "\"file\": \"-\"";
  ASSERT_NE(expected.find(from), std::string::npos) << expected;
  expected.replace(expected.find(from), from.size(), to);
  EXPECT_EQ(piped.out, expected);
  CliRun empty = morphkit(dir, "inspect - < /dev/null");
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_TRUE(empty.err.starts_with("morphkit: error: -: ")) << empty.err;
}

TEST(CliHabits, BatchRefusesAFolderOfAnotherRunUnlessResumeOrForce) {
  auto dir = test::smallDemoDir();
  std::ofstream(dir / "job.json") << R"({"assets": ["demo.glb"], "out": "o", "outputs": ["poses"],
    "animations": [0], "frames": [0, 2], "chunk": 1})";
  ASSERT_EQ(morphkit(dir, "batch job.json").exit_code, 0);
  CliRun again = morphkit(dir, "batch job.json");
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err,
            "morphkit: error: job.json: out: 'o' already holds 2 entries; resume (--resume) finishes that run, force "
            "(--force) writes over it\n");
  EXPECT_EQ(morphkit(dir, "batch job.json --resume").exit_code, 0);
  EXPECT_EQ(morphkit(dir, "batch job.json --force").exit_code, 0);
  EXPECT_EQ(morphkit(dir, "batch job.json --force --resume").exit_code, 2);
}

TEST(CliHabits, CompareToleranceFailsTheRunWhenExceeded) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::smallDemoDir();
  CliRun table = morphkit(dir, "pose demo.glb --anim talk --time 0.3 --compare");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  // "position  <values>  <max abs>  <max rel>"
  const size_t row = table.out.find("\nposition ");
  ASSERT_NE(row, std::string::npos) << table.out;
  double values = 0, max_abs = 0;
  ASSERT_EQ(std::sscanf(table.out.c_str() + row, "\nposition %lf %lf", &values, &max_abs), 2) << table.out;
  EXPECT_EQ(morphkit(dir, "pose demo.glb --anim talk --time 0.3 --compare --tolerance 1").exit_code, 0);
  if (max_abs > 0) {
    const std::string tolerance = std::to_string(max_abs / 2);
    CliRun exceeded = morphkit(dir, "pose demo.glb --anim talk --time 0.3 --compare --tolerance " + tolerance);
    EXPECT_EQ(exceeded.exit_code, 1);
    EXPECT_TRUE(exceeded.err.starts_with("morphkit: error: demo.glb: --compare: position max abs error "))
        << exceeded.err;
    EXPECT_NE(exceeded.err.find(" exceeds --tolerance "), std::string::npos) << exceeded.err;
  }
  EXPECT_EQ(morphkit(dir, "pose demo.glb --tolerance 1").exit_code, 2);  // only with --compare
}

TEST(CliHabits, SummariesSayWhatRan) {
  auto dir = test::smallDemoDir();
  CliRun pose = morphkit(dir, "pose demo.glb --anim rest --weights eyeBlinkLeft=0.8");
  ASSERT_EQ(pose.exit_code, 0) << pose.err;
  EXPECT_TRUE(pose.out.starts_with("scene 0 rest pose + weights eyeBlinkLeft=0.8\n")) << pose.out;
}

TEST(CliHabits, RenderSummaryNamesTheWeightsAndWhatResumeKept) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::smallDemoDir();
  CliRun weights =
      morphkit(dir, "render demo.glb --anim rest --weights eyeBlinkLeft=0.8 --size 16x16 --no-video --out r");
  ASSERT_EQ(weights.exit_code, 0) << weights.err;
  EXPECT_NE(weights.out.find(" of rest pose + weights eyeBlinkLeft=0.8 on "), std::string::npos) << weights.out;
  CliRun resumed = morphkit(dir,
                            "render demo.glb --anim rest --weights eyeBlinkLeft=0.8 --size 16x16 --no-video --out r "
                            "--resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("(1 already there)"), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find("(contact_sheet.png kept; --no-video)"), std::string::npos) << resumed.out;
  CliRun json = morphkit(dir, "render demo.glb --anim rest --size 16x16 --no-video --out r --resume --json");
  EXPECT_NE(json.out.find("\"contactSheetWritten\":false"), std::string::npos) << json.out;
}

}  // namespace
}  // namespace morphkit
