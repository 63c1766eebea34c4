// SPDX-License-Identifier: MIT
// `morphkit render`: frames, contact sheet, summary line / JSON, exit codes (validation layer on).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "demo_dir_support.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/files.h"
#include "morphkit/render/render.h"
#include "morphkit/vk/gpu.h"
#include "test_support.h"

extern char** environ;

namespace morphkit {
namespace {

using test::CliRun;

CliRun morphkit(const std::filesystem::path& dir, const std::string& args) {
  return test::runMorphkit(dir, args);
}

std::filesystem::path writeDemo(const std::filesystem::path& dir) {
  test::writeDemoGlb(dir / "demo.glb", 1500, 12);
  return dir / "demo.glb";
}

TEST(RenderCommand, RendersFramesAContactSheetAndJson) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  writeDemo(dir);
  CliRun run =
      morphkit(dir, "render demo.glb --frames 0:3 --size 64x48 --out frames --validation --json --morph-path vertex");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* name :
       {"frames/frame_0000.png", "frames/frame_0001.png", "frames/frame_0002.png", "frames/contact_sheet.png"}) {
    auto bytes = readFile(dir / name);
    ASSERT_TRUE(bytes.ok()) << name;
    auto image = decodePng(*bytes);
    ASSERT_TRUE(image.ok()) << name;
    if (std::string(name).find("frame_") != std::string::npos) {
      EXPECT_EQ(image->width, 64u);
      EXPECT_EQ(image->height, 48u);
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "frames/frame_0003.png"));
  EXPECT_NE(run.out.find("\"frames\":3"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\"morphPath\":\"vertex\""), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\"gpuMsPerFrame\":"), std::string::npos) << run.out;
  // Consecutive frames of an animation differ (the mouth moves).
  auto a = decodePng(*readFile(dir / "frames/frame_0000.png"));
  auto c = decodePng(*readFile(dir / "frames/frame_0002.png"));
  ASSERT_TRUE(a.ok() && c.ok());
  EXPECT_NE(a->rgba, c->rgba);
}

TEST(RenderCommand, SummaryLine) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  writeDemo(dir);
  CliRun run = morphkit(dir, "render demo.glb --frames 2:4 --size 32x32 --out out --morph-path compute --anim blink");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("2 frames 32x32 of blink"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("compute path"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("ms/frame"), std::string::npos) << run.out;
}

TEST(RenderCommand, BadArguments) {
  auto dir = test::scratchDir();
  writeDemo(dir);
  struct Case {
    const char* args;
    int code;
    const char* message;
  } cases[] = {
      // A malformed option value is a usage error; one the file cannot satisfy is a bad input (docs/CLI.md).
      {"render demo.glb --morph-path fast", 2, "--morph-path fast"},
      {"render demo.glb --size 0x10", 2, "--size 0x10"},
      {"render demo.glb --size big", 2, "--size big"},
      {"render demo.glb --frames 5:5", 2, "--frames 5:5"},
      {"render demo.glb --anim 9", 1, "--anim 9: no animation of that index"},
      {"render demo.glb --anim nope", 1, "nope"},
      {"render demo.glb --camera 1,2:3", 2, "--camera"},
      {"render missing.glb", 1, "missing.glb"},
      {"render demo.glb --duration 1 --frames 0:2", 2, ""},
  };
  for (const Case& c : cases) {
    CliRun run = morphkit(dir, c.args);
    EXPECT_EQ(run.exit_code, c.code) << c.args << "\n" << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << c.args << "\n" << run.err;
  }
}

std::vector<std::string> listFolder(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(RenderCommand, FramesAreNamedByTheirRealIndex) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  writeDemo(dir);
  CliRun run = morphkit(dir, "render demo.glb --frames 30:33 --size 32x32 --out f --no-video --validation");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(listFolder(dir / "f"),
            (std::vector<std::string>{"contact_sheet.png", "frame_0030.png", "frame_0031.png", "frame_0032.png"}));
}

TEST(RenderCommand, NonEmptyFolderIsRefusedForceClearsOnlyMorphkitOutputs) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  writeDemo(dir);
  ASSERT_EQ(morphkit(dir, "render demo.glb --frames 0:3 --size 32x32 --out f --no-video").exit_code, 0);
  ASSERT_TRUE(writeFileAtomic(dir / "f/notes.txt", std::string_view("mine")).ok());
  // A second render into the folder: refused, and nothing in it changes.
  const std::string before = test::slurp(dir / "f/frame_0002.png");
  CliRun refused = morphkit(dir, "render demo.glb --frames 0:2 --size 32x32 --out f --no-video");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("not empty"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_EQ(test::slurp(dir / "f/frame_0002.png"), before);
  EXPECT_EQ(morphkit(dir, "render demo.glb --frames 0:2 --out f --force --resume").exit_code, 2);
  // --force: the stale frame_0002 (and the old sheet) go, the user's file stays.
  CliRun forced =
      morphkit(dir, "render demo.glb --frames 0:2 --size 32x32 --out f --no-video --force --no-contact-sheet");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(listFolder(dir / "f"), (std::vector<std::string>{"frame_0000.png", "frame_0001.png", "notes.txt"}));
}

TEST(RenderCommand, ResumeRendersOnlyMissingFramesAndSplitRangesEqualOneRun) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  writeDemo(dir);
  // One run over 0:4 ...
  ASSERT_EQ(morphkit(dir, "render demo.glb --frames 0:4 --size 40x32 --out whole --no-video --validation").exit_code,
            0);
  // ... equals two workers' ranges into one folder (the second with --resume); the auto camera frames the clip.
  ASSERT_EQ(
      morphkit(dir, "render demo.glb --frames 2:4 --size 40x32 --out split --no-video --no-contact-sheet").exit_code,
      0);
  CliRun second = morphkit(dir, "render demo.glb --frames 0:2 --size 40x32 --out split --no-video --resume --json");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  for (int f = 0; f < 4; ++f) {
    const std::string name = "frame_000" + std::to_string(f) + ".png";
    EXPECT_EQ(test::slurp(dir / "whole" / name), test::slurp(dir / "split" / name)) << name;
  }
  // --resume over the whole range keeps what is there: a frame replaced by another image is not re-rendered,
  // and the contact sheet is rebuilt from the files.
  ASSERT_TRUE(writeFileAtomic(dir / "split/frame_0001.png", test::slurp(dir / "split/frame_0003.png")).ok());
  std::filesystem::remove(dir / "split/contact_sheet.png");
  CliRun resumed = morphkit(dir, "render demo.glb --frames 0:4 --size 40x32 --out split --no-video --resume --json");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("\"rendered\":0"), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find("\"skipped\":4"), std::string::npos) << resumed.out;
  EXPECT_EQ(test::slurp(dir / "split/frame_0001.png"), test::slurp(dir / "split/frame_0003.png"));
  EXPECT_TRUE(std::filesystem::exists(dir / "split/contact_sheet.png"));
  EXPECT_NE(test::slurp(dir / "split/contact_sheet.png"), test::slurp(dir / "whole/contact_sheet.png"));
}

// The PNG writer encodes on --threads workers while the next frames render: the files are the same whatever the
// count, and every frame is there.
TEST(RenderCommand, EncoderThreadsWriteTheSameFrames) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  writeDemo(dir);
  ASSERT_EQ(morphkit(dir, "render demo.glb --frames 0:7 --size 40x32 --out one --no-video --threads 1").exit_code, 0);
  CliRun three = morphkit(dir, "render demo.glb --frames 0:7 --size 40x32 --out three --no-video --threads 3 --json");
  ASSERT_EQ(three.exit_code, 0) << three.err;
  EXPECT_NE(three.out.find("\"rendered\":7"), std::string::npos) << three.out;
  for (int f = 0; f < 7; ++f) {
    const std::string name = "frame_000" + std::to_string(f) + ".png";
    ASSERT_TRUE(std::filesystem::exists(dir / "three" / name)) << name;
    EXPECT_EQ(test::slurp(dir / "one" / name), test::slurp(dir / "three" / name)) << name;
  }
  EXPECT_EQ(test::slurp(dir / "one/contact_sheet.png"), test::slurp(dir / "three/contact_sheet.png"));
  EXPECT_EQ(morphkit(dir, "render demo.glb --frames 0:2 --out bad --threads 300").exit_code, 2);
  EXPECT_EQ(morphkit(dir, "render demo.glb --frames 0:2 --out bad --threads -1").exit_code, 2);
  // --png-compression small: other bytes (libspng's defaults), the same pixels; an unknown value is a usage error.
  ASSERT_EQ(morphkit(dir, "render demo.glb --frames 0:7 --size 40x32 --out small --no-video --png-compression small")
                .exit_code,
            0);
  for (int f = 0; f < 7; ++f) {
    const std::string name = "frame_000" + std::to_string(f) + ".png";
    const std::string fast = test::slurp(dir / "one" / name), small = test::slurp(dir / "small" / name);
    EXPECT_NE(fast, small) << name;
    auto a = decodePng(std::span(reinterpret_cast<const uint8_t*>(fast.data()), fast.size()));
    auto b = decodePng(std::span(reinterpret_cast<const uint8_t*>(small.data()), small.size()));
    ASSERT_TRUE(a && b) << name;
    EXPECT_EQ(a->rgba, b->rgba) << name;
  }
  CliRun bad = morphkit(dir, "render demo.glb --frames 0:2 --out bad --png-compression best");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--png-compression"), std::string::npos) << bad.err;
}

// Runs the CLI as a child and returns its peak resident set (KiB, ru_maxrss of that child alone). Under ASan
// the child runs without the allocator's quarantines (global and per-thread): they hold freed blocks back on
// purpose, which would measure the sanitizer instead of the program.
long childPeakRssKib(const std::filesystem::path& dir, const std::vector<std::string>& args, int& exit_code) {
  std::vector<std::string> argv_text{test::cliPath().string()};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    if (std::string_view(*e).rfind("ASAN_OPTIONS=", 0) != 0) env_text.emplace_back(*e);
  }
  env_text.emplace_back(
      "ASAN_OPTIONS=detect_leaks=0:quarantine_size_mb=0:thread_local_quarantine_size_kb=0:"
      "malloc_context_size=0:allocator_release_to_os_interval_ms=0");
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, (dir / "rss.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, (dir / "rss.err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  std::filesystem::current_path(cwd);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) return -1;
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return usage.ru_maxrss;
}

TEST(RenderCommand, MemoryStaysFlatOverA300FrameRender) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  writeDemo(dir);
  // 512x512 RGBA frames are 1 MiB each: keeping 300 of them would add 300 MB on their own. One sample per pixel
  // and no environment: 4× MSAA's attachments (8 MiB here) and the environment's one-time start-up (its kernels
  // compiled by lavapipe, ~30 MB under ASan) are not what this measures.
  auto render = [&](const std::string& frames, const std::string& out, int& exit_code) {
    return childPeakRssKib(dir,
                           {"render", "demo.glb", "--frames", frames, "--size", "512x512", "--out", out, "--no-video",
                            "--no-shadows", "--no-prepass", "--msaa", "1", "--environment", "none"},
                           exit_code);
  };
  int exit_one = -1, exit_many = -1;
  const long one = render("0:1", "one", exit_one);
  const long many = render("0:300", "many", exit_many);
  ASSERT_EQ(exit_one, 0) << test::slurp(dir / "rss.err");
  ASSERT_EQ(exit_many, 0) << test::slurp(dir / "rss.err");
  EXPECT_TRUE(std::filesystem::exists(dir / "many/frame_0299.png"));
  EXPECT_TRUE(std::filesystem::exists(dir / "many/contact_sheet.png"));
  RecordProperty("peak_rss_kib_1_frame", std::to_string(one));
  RecordProperty("peak_rss_kib_300_frames", std::to_string(many));
  // Bounded by what the frames add over one frame's run, not by an absolute figure: a one-frame run is ~215 MB
  // here, nearly all of it the sanitizer runtime, lavapipe and the unoptimized CLI's pages.
  EXPECT_GT(one, 0);
  EXPECT_LT(many - one, 50 * 1000) << "300 frames peak at " << many << " KiB, one frame at " << one << " KiB";
}

}  // namespace
}  // namespace morphkit
