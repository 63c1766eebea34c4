// SPDX-License-Identifier: MIT
// `morphkit bench FILE`: every path's row is there (CPU reference, fast path at 1..N threads, GPU compute per
// layout, the renderer's vertex and compute paths), in the table and in --json; options of the other mode are
// usage errors. No timing thresholds: only that each row ran and reported a time.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <string_view>

#include "morphkit/vk/gpu.h"
#include "test_support.h"

namespace morphkit {
namespace {

// Skips without a Vulkan device on a user's machine; fails with CI=true (MORPHKIT_REQUIRE_GPU for a CLI test).
#define REQUIRE_GPU_FOR_CLI()                                                                         \
  do {                                                                                                \
    Expected<VulkanContext*> context = createVulkanContext();                                         \
    if (!context) {                                                                                   \
      if (test::runningInCi()) FAIL() << "CI=true but no Vulkan device: " << context.error().message; \
      GTEST_SKIP() << context.error().message << " (MORPHKIT_REQUIRE_GPU)";                           \
    }                                                                                                 \
    destroyVulkanContext(*context);                                                                   \
  } while (0)

std::string model() {
  return (test::assetsDir() / "MorphSkinBlob52/MorphSkinBlob52.glb").string();
}

TEST(BenchFileCommand, JsonHasEveryPathRow) {
  MORPHKIT_REQUIRE_SHARED();
  REQUIRE_GPU_FOR_CLI();
  const auto dir = test::scratchDir();
  test::CliRun run = test::runMorphkit(
      dir, "bench '" + model() +
               "' --anim Talk --frames 2 --repetitions 1 --threads 2 --size 64x64 --warmup-ms 3 --crowd 2 --json "
               "--validation");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(run.out).get(root), simdjson::SUCCESS) << run.out;
  EXPECT_EQ(uint64_t(root["vertices"]), 8383u);
  EXPECT_EQ(uint64_t(root["maxTargets"]), 52u);
  EXPECT_EQ(uint64_t(root["frames"]), 2u);
  EXPECT_EQ(std::string_view(root["animation"]["name"]), "Talk");
  EXPECT_EQ(uint64_t(root["animation"]["index"]), 2u);
  EXPECT_GT(double(root["animation"]["duration"]), 0.0);
  EXPECT_FALSE(std::string_view(root["device"]["name"]).empty());
  EXPECT_EQ(double(root["warmupMs"]), 3.0);  // each GPU row warmed up first, clean under validation

  std::set<std::string> seen;
  for (simdjson::dom::element row : root["rows"].get_array()) {
    std::string key{std::string_view(row["path"])};
    int64_t threads = 0;
    if (row["threads"].get(threads) == simdjson::SUCCESS) key += "/" + std::to_string(threads);
    std::string_view layout;
    if (row["layout"].get(layout) == simdjson::SUCCESS) key += "/" + std::string(layout);
    std::string_view skipped;
    EXPECT_NE(row["skipped"].get(skipped), simdjson::SUCCESS) << key << ": " << skipped;
    const double ms = row["msPerFrame"];
    EXPECT_TRUE(std::isfinite(ms) && ms > 0.0) << key;
    EXPECT_TRUE(seen.insert(key).second) << "duplicate row " << key;
    // GPU rows carry the dispatch / render-pass time (lavapipe has timestamps), CPU rows none.
    const bool gpu = key.rfind("gpu", 0) == 0 || key.rfind("render", 0) == 0;
    double gpu_ms = 0;
    if (gpu) {
      ASSERT_EQ(row["gpuMsPerFrame"].get(gpu_ms), simdjson::SUCCESS) << key;
      EXPECT_GT(gpu_ms, 0.0) << key;
    } else {
      EXPECT_TRUE(row["gpuMsPerFrame"].is_null()) << key;
    }
    EXPECT_GT(double(row["speedupVsReference"]), 0.0) << key;
    // The frames-in-flight rows beside their floors (GPU time, one readback of the pass's bytes; the file row also
    // the write of the same bytes in one write), and the ratio to the largest.
    // render_png: the render command's frames beside the same two, one frame's encode ÷ the encoders and the write.
    double readback_ms = 0, write_ms = 0, encode_ms = 0;
    const bool has_floors = row["floors"]["readbackMs"].get(readback_ms) == simdjson::SUCCESS;
    const bool has_write = row["floors"]["writeMs"].get(write_ms) == simdjson::SUCCESS;
    const bool has_encode = row["floors"]["encodeMs"].get(encode_ms) == simdjson::SUCCESS;
    EXPECT_EQ(has_floors, key == "gpu_frames/2/auto" || key == "gpu_frames_arrays/2/auto" ||
                              key == "gpu_frames_npy/2/auto" || key == "render_png/2")
        << key;
    EXPECT_EQ(has_write, key == "gpu_frames_npy/2/auto" || key == "render_png/2") << key;
    // render_crowd: the crowd frame's GPU ms beside its dispatch plus one draw in one pass.
    double draw_ms = 0;
    const bool has_draw = row["floors"]["dispatchAndDrawMs"].get(draw_ms) == simdjson::SUCCESS;
    EXPECT_EQ(has_draw, key == "render_crowd/2 copies") << key;
    if (has_draw) {
      EXPECT_GT(draw_ms, 0.0);
      EXPECT_DOUBLE_EQ(ms, gpu_ms) << key;  // its ms is the GPU time
      EXPECT_DOUBLE_EQ(double(row["ratioToFloor"]), ms / draw_ms) << key;
    }
    EXPECT_EQ(has_encode, key == "render_png/2") << key;
    if (has_floors) {
      EXPECT_GT(readback_ms, 0.0);
      double floor = std::max(readback_ms, double(row["floors"]["gpuMs"]));
      if (has_write) {
        EXPECT_GT(write_ms, 0.0);
        floor = std::max(floor, write_ms);
      }
      if (has_encode) {
        EXPECT_GT(encode_ms, 0.0);
        floor = std::max(floor, encode_ms);
      }
      EXPECT_DOUBLE_EQ(double(row["ratioToFloor"]), ms / floor) << key;
    }
  }
  const std::set<std::string> expected = {"reference/1",
                                          "fast/1",
                                          "fast/2",
                                          "gpu/dense_f32",
                                          "gpu/dense_f16",
                                          "gpu/dense_snorm16",
                                          "gpu/sparse",
                                          "gpu_frames/2/auto",
                                          "gpu_frames_arrays/2/auto",
                                          "gpu_frames_npy/2/auto",
                                          "render_vertex",
                                          "render_compute",
                                          "render_png/2",
                                          "render_crowd/2 copies"};
  EXPECT_EQ(seen, expected);
}

TEST(BenchFileCommand, TableAndPathSelection) {
  MORPHKIT_REQUIRE_SHARED();
  const auto dir = test::scratchDir();
  test::CliRun run =
      test::runMorphkit(dir, "bench '" + model() + "' --frames 2 --repetitions 1 --threads 2 --paths reference,fast");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("8383 vertices"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("animation 0 \"Blink\""), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("ms/frame"), std::string::npos) << run.out;
  for (const char* row : {"\nreference ", "\nfast  "})
    EXPECT_NE(run.out.find(row), std::string::npos) << row << "\n" << run.out;
  EXPECT_EQ(run.out.find("gpu"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("render_"), std::string::npos) << run.out;
  EXPECT_TRUE(run.err.empty()) << run.err;  // not a terminal: no progress bar
}

// Many thread rows: each row's pool lives while its group is timed, and rows are grouped so that at most 256
// workers exist at once (1..23 threads hold 253; the 24-thread row is timed in a second group). Every row is
// there, in order, with a time.
TEST(BenchFileCommand, ManyThreadRowsAreTimedInGroups) {
  MORPHKIT_REQUIRE_SHARED();
  const auto dir = test::scratchDir();
  test::CliRun run = test::runMorphkit(
      dir, "bench '" + model() + "' --device cpu --frames 1 --repetitions 1 --threads 24 --paths fast --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(run.out).get(root), simdjson::SUCCESS) << run.out;
  simdjson::dom::array rows = root["rows"].get_array();
  ASSERT_EQ(rows.size(), 24u) << run.out;
  uint64_t expected = 1;
  for (simdjson::dom::element row : rows) {
    EXPECT_EQ(std::string_view(row["path"].get_string()), "fast");
    EXPECT_EQ(uint64_t(row["threads"].get_uint64()), expected++);
    EXPECT_GT(double(row["msPerFrame"].get_double()), 0.0);
  }
}

// --positions-only: the CPU rows pose positions only (three.js's work); the default rows become reference and fast,
// and asking for GPU rows with it, or using it without FILE, is a usage error.
TEST(BenchFileCommand, PositionsOnlyRunsTheCpuRows) {
  MORPHKIT_REQUIRE_SHARED();
  const auto dir = test::scratchDir();
  test::CliRun run =
      test::runMorphkit(dir, "bench '" + model() + "' --frames 2 --repetitions 1 --threads 1 --positions-only --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(run.out).get(root), simdjson::SUCCESS) << run.out;
  EXPECT_TRUE(bool(root["positionsOnly"]));
  std::set<std::string> paths;
  for (simdjson::dom::element row : root["rows"].get_array()) paths.insert(std::string(std::string_view(row["path"])));
  EXPECT_EQ(paths, (std::set<std::string>{"reference", "fast"}));
  run = test::runMorphkit(dir, "bench '" + model() + "' --frames 2 --repetitions 1 --threads 1 --positions-only");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("CPU rows: posed positions only"), std::string::npos) << run.out;
  run = test::runMorphkit(dir, "bench '" + model() + "' --positions-only --paths fast,gpu");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--positions-only applies to the CPU rows"), std::string::npos) << run.err;
  run = test::runMorphkit(dir, "bench --positions-only");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--positions-only needs FILE"), std::string::npos) << run.err;
}

TEST(BenchFileCommand, ModeOptionsAndBadInput) {
  MORPHKIT_REQUIRE_SHARED();
  const auto dir = test::scratchDir();
  test::CliRun run = test::runMorphkit(dir, "bench '" + model() + "' --vertices 100");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--vertices applies to the synthetic table"), std::string::npos) << run.err;
  run = test::runMorphkit(dir, "bench --frames 3");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--frames needs FILE"), std::string::npos) << run.err;
  run = test::runMorphkit(dir, "bench '" + model() + "' --paths reference,warp");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  run = test::runMorphkit(dir, "bench '" + model() + "' --size 12");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  run = test::runMorphkit(dir, "bench '" + model() + "' --anim 7 --paths reference");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("morphkit: error: " + model() + ": --anim 7: no animation of that index (the file has 0 ", 0),
            0u)
      << run.err;  // the shared --anim lookup (tests/cli/cli_conventions_test.cpp) lists the animations
  run = test::runMorphkit(dir, "bench missing.glb --paths reference");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("morphkit: error: missing.glb: ", 0), 0u) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

}  // namespace
}  // namespace morphkit
