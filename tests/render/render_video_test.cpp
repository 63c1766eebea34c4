// SPDX-License-Identifier: MIT
// `morphkit render` writes an MP4 through ffmpeg: the video has one frame per rendered frame, the rendered size
// (odd sizes padded to even, as yuv420p needs), checked with ffprobe. Without ffmpeg/ffprobe on PATH the test
// skips on a user's machine and fails under CI=true (scripts/install-deps installs Debian's ffmpeg).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "demo_dir_support.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/files.h"
#include "morphkit/vk/gpu.h"
#include "test_support.h"

namespace morphkit {
namespace {

bool onPath(const std::string& program) {
  return std::system(("command -v " + program + " > /dev/null 2>&1").c_str()) == 0;
}

#define MORPHKIT_REQUIRE_FFMPEG()                                                                  \
  do {                                                                                             \
    if (!onPath("ffmpeg") || !onPath("ffprobe")) {                                                 \
      if (::morphkit::test::runningInCi()) FAIL() << "CI=true but ffmpeg/ffprobe are not on PATH"; \
      GTEST_SKIP() << "ffmpeg/ffprobe not on PATH (scripts/install-deps installs them)";           \
    }                                                                                              \
  } while (0)

void writeDemo(const std::filesystem::path& dir) {
  test::writeDemoGlb(dir / "demo.glb", 800, 8);
}

// ffprobe's view of the first video stream: "codec,width,height,pix_fmt,frames_read".
std::string probeVideo(const std::filesystem::path& video) {
  const std::string command =
      "ffprobe -v error -select_streams v:0 -count_frames -show_entries "
      "stream=codec_type,width,height,pix_fmt,nb_read_frames -of csv=p=0 '" +
      video.string() + "' 2>&1";
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
    pclose(pipe);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

TEST(RenderVideo, FrameCountAndSizeMatchTheRender) {
  MORPHKIT_REQUIRE_FFMPEG();
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  writeDemo(dir);
  test::CliRun run =
      test::runMorphkit(dir, "render demo.glb --anim talk --frames 0:5 --fps 10 --size 64x48 --out frames --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(std::filesystem::exists(dir / "frames/animation.mp4")) << run.out;
  EXPECT_NE(run.out.find("\"video\":\"frames/animation.mp4\""), std::string::npos) << run.out;
  // ffprobe prints the requested fields in its own order: codec_type, width, height, pix_fmt, nb_read_frames.
  EXPECT_EQ(probeVideo(dir / "frames/animation.mp4"), "video,64,48,yuv420p,5");
}

TEST(RenderVideo, OddSizesArePaddedToEven) {
  MORPHKIT_REQUIRE_FFMPEG();
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  writeDemo(dir);
  test::CliRun run = test::runMorphkit(dir, "render demo.glb --anim blink --frames 1:4 --size 33x21 --out out");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("animation.mp4"), std::string::npos) << run.out;
  EXPECT_EQ(probeVideo(dir / "out/animation.mp4"), "video,34,22,yuv420p,3");
}

// The decoded frames of a video, one MD5 per frame (ffmpeg -f framemd5), without the header lines.
std::string frameHashes(const std::filesystem::path& video) {
  const std::string command = "ffmpeg -loglevel error -i '" + video.string() + "' -f framemd5 - 2>&1";
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe)) {
      if (buffer[0] != '#') out += buffer;
    }
    pclose(pipe);
  }
  return out;
}

// render feeds ffmpeg raw frames through a pipe as they are rendered; the video is the one ffmpeg makes from the
// PNG files it wrote, frame for frame, also when --resume reads kept frames back to complete it.
TEST(RenderVideo, ThePipedVideoEqualsFfmpegOnTheWrittenFrames) {
  MORPHKIT_REQUIRE_FFMPEG();
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  writeDemo(dir);
  ASSERT_EQ(test::runMorphkit(dir, "render demo.glb --anim talk --frames 2:9 --fps 10 --size 33x21 --out v").exit_code,
            0);
  const std::string from_files =
      "ffmpeg -y -loglevel error -framerate 10 -start_number 2 -i '" + (dir / "v/frame_%04d.png").string() +
      "' -frames:v 7 -vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' -pix_fmt yuv420p '" + (dir / "files.mp4").string() + "'";
  ASSERT_EQ(std::system(from_files.c_str()), 0);
  const std::string expected = frameHashes(dir / "files.mp4");
  ASSERT_EQ(std::count(expected.begin(), expected.end(), '\n'), 7) << expected;
  EXPECT_EQ(frameHashes(dir / "v/animation.mp4"), expected);

  std::filesystem::remove(dir / "v/frame_0004.png");
  std::filesystem::remove(dir / "v/frame_0008.png");
  std::filesystem::remove(dir / "v/animation.mp4");
  test::CliRun resumed =
      test::runMorphkit(dir, "render demo.glb --anim talk --frames 2:9 --fps 10 --size 33x21 --out v --resume --json");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("\"rendered\":2"), std::string::npos) << resumed.out;
  EXPECT_EQ(frameHashes(dir / "v/animation.mp4"), expected);
  EXPECT_FALSE(std::filesystem::exists(dir / "v/animation.tmp.mp4"));
}

}  // namespace
}  // namespace morphkit
