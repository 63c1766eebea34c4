// SPDX-License-Identifier: MIT
// `morphkit render`: frames, contact sheet, summary line / JSON, exit codes (validation layer on).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "morphkit/demo.h"
#include "morphkit/glb_writer.h"
#include "morphkit/gpu.h"
#include "morphkit/io.h"
#include "morphkit/render.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::CliRun;

CliRun morphkit(const std::filesystem::path& dir, const std::string& args) { return test::runMorphkit(dir, args); }

// Skips without a Vulkan device on a user's machine; fails under CI=true (like MORPHKIT_REQUIRE_SHARED).
#define MORPHKIT_REQUIRE_GPU_DEVICE()                                                        \
  do {                                                                                       \
    auto probe = createVulkanContext();                                                      \
    if (!probe) {                                                                            \
      if (::morphkit::test::runningInCi() || probe.error().code != Error::kNoDevice)         \
        FAIL() << probe.error().message;                                                     \
      GTEST_SKIP() << probe.error().message << " (MORPHKIT_REQUIRE_GPU)";                    \
    }                                                                                        \
    destroyVulkanContext(*probe);                                                            \
  } while (0)

std::filesystem::path writeDemo(const std::filesystem::path& dir) {
  DemoOptions options;
  options.vertices = 1500;
  options.targets = 12;
  auto asset = makeDemoAsset(options);
  EXPECT_TRUE(asset.ok());
  auto glb = writeGlb(*asset);
  EXPECT_TRUE(glb.ok());
  EXPECT_TRUE(writeFileAtomic(dir / "demo.glb", std::span<const uint8_t>(*glb)).ok());
  return dir / "demo.glb";
}

TEST(RenderCommand, RendersFramesAContactSheetAndJson) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  writeDemo(dir);
  CliRun run = morphkit(dir, "render demo.glb --frames 0:3 --size 64x48 --out frames --validation --json --morph-path vertex");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* name : {"frames/frame_0000.png", "frames/frame_0001.png", "frames/frame_0002.png", "frames/contact_sheet.png"}) {
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
  EXPECT_NE(run.out.find("\"morph_path\":\"vertex\""), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\"gpu_ms_per_frame\":"), std::string::npos) << run.out;
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
      {"render demo.glb --morph-path fast", 1, "--morph-path fast"},
      {"render demo.glb --size 0x10", 1, "--size 0x10"},
      {"render demo.glb --size big", 1, "--size big"},
      {"render demo.glb --frames 5:5", 1, "--frames 5:5"},
      {"render demo.glb --anim 9", 1, "animations[9]"},
      {"render demo.glb --anim nope", 1, "nope"},
      {"render demo.glb --camera 1,2:3", 1, "--camera"},
      {"render missing.glb", 1, "missing.glb"},
      {"render demo.glb --duration 1 --frames 0:2", 2, ""},
  };
  for (const Case& c : cases) {
    CliRun run = morphkit(dir, c.args);
    EXPECT_EQ(run.exit_code, c.code) << c.args << "\n" << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << c.args << "\n" << run.err;
  }
}

}  // namespace
}  // namespace morphkit
