// SPDX-License-Identifier: MIT
// The sample outputs docs/DEMO.md and docs/FACE_CAPTURE.md show, byte counts included, are what the commands
// print now: each command runs here and its lines must appear in the doc verbatim (a stale figure fails).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace morphkit {
namespace {

using test::CliRun;

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string doc(const std::string& name) {
  return test::slurp(test::sourceDir() / "docs" / name);
}

void expectDocLine(const std::string& name, const std::string& line) {
  EXPECT_NE(doc(name).find(line + "\n"), std::string::npos)
      << "docs/" << name << " lacks the line the command prints now:\n"
      << line;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

TEST(DocExamples, MakeDemoAndAnimateOnTheDefaultDemo) {
  auto dir = test::scratchDir();
  CliRun demo = test::runMorphkit(dir, "make-demo face.glb");
  ASSERT_EQ(demo.exit_code, 0) << demo.err;
  const std::vector<std::string> made = linesOf(demo.out);
  ASSERT_EQ(made.size(), 2u) << demo.out;
  for (const std::string& line : made) {
    expectDocLine("FACE_CAPTURE.md", line);
    // DEMO.md names it head.glb.
    expectDocLine("DEMO.md", replaced(replaced(line, "face.glb", "head.glb"), "face_capture.csv", "head_capture.csv"));
  }
  CliRun small = test::runMorphkit(dir, "make-demo head.glb --targets 3 --vertices 500 --json");
  ASSERT_EQ(small.exit_code, 0) << small.err;
  expectDocLine("DEMO.md", linesOf(small.out).at(0));

  CliRun posed = test::runMorphkit(dir, "pose face.glb --anim talk --time 1 --weights jawOpen=1,eyeBlinkLeft=1");
  ASSERT_EQ(posed.exit_code, 0) << posed.err;
  const std::vector<std::string> pose_lines = linesOf(posed.out);
  ASSERT_GE(pose_lines.size(), 3u) << posed.out;
  expectDocLine("FACE_CAPTURE.md", pose_lines[0]);
  // The doc shows the weights line's first names and elides the rest with " ...".
  const std::string shown = pose_lines[2].substr(0, pose_lines[2].find(" jawOpen=1") + 10) + " ...";
  expectDocLine("FACE_CAPTURE.md", shown);

  CliRun baked = test::runMorphkit(dir, "animate face.glb --weights-csv face_capture.csv --out face_captured.glb");
  ASSERT_EQ(baked.exit_code, 0) << baked.err;
  expectDocLine("FACE_CAPTURE.md", linesOf(baked.err).at(0));
  expectDocLine("FACE_CAPTURE.md", linesOf(baked.out).at(0));
  expectDocLine("CLI.md", linesOf(baked.out).at(0));
}

TEST(DocExamples, AnimateOnTheSharedBlob) {
  MORPHKIT_REQUIRE_SHARED();
  auto dir = test::scratchDir();
  const auto blob = test::assetsDir() / "MorphSkinBlob52/MorphSkinBlob52.glb";
  const auto capture = test::sharedDir() / "assets/capture/sample_capture.csv";
  CliRun baked =
      test::runMorphkit(dir, "animate '" + blob.string() + "' --weights-csv '" + capture.string() + "' --out blob.glb");
  ASSERT_EQ(baked.exit_code, 0) << baked.err;
  expectDocLine("FACE_CAPTURE.md", linesOf(baked.out).at(0));
}

}  // namespace
}  // namespace morphkit
