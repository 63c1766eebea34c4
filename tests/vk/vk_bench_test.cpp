// SPDX-License-Identifier: MIT
// `morphkit bench`'s engine (morphkit_bench/gpu_bench.h) on tiny sizes: every variant runs under validation,
// reports plausible numbers, and configurations over the size cap are reported as skipped.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <map>
#include <string>
#include <string_view>

#include "morphkit_bench/gpu_bench.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

using test::VulkanTest;

TEST_F(VulkanTest, BenchRunsEveryVariant) {
  MORPHKIT_REQUIRE_GPU(context_);
  GpuBenchOptions options;
  options.vertices = {500, 3000};
  options.targets = {8, 52};
  options.active = 4;
  options.repetitions = 1;
  options.copy_bytes = 1 << 20;
  options.max_delta_bytes = 3000 * 52 * 24 - 1;  // the largest configuration is skipped
  Expected<GpuBenchReport> report = runGpuBench(*context_, options);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->rows.size(), 2u * 2u * 5u);  // dense_f32_all, dense_f32, dense_f16, dense_snorm16, sparse
  size_t skipped = 0;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> f16_bytes;  // snorm16 moves f16's bytes (same slabs)
  for (const GpuBenchRow& row : report->rows) {
    if (!row.skipped.empty()) {
      ++skipped;
      EXPECT_EQ(row.vertices, 3000u);
      EXPECT_EQ(row.targets, 52u);
      continue;
    }
    EXPECT_EQ(row.active, row.variant == "dense_f32_all" ? row.targets : 4u) << row.variant;
    EXPECT_GT(row.bytes, uint64_t(row.vertices) * 4);
    if (row.variant == "dense_f16") f16_bytes[{row.vertices, row.targets}] = row.bytes;
    if (row.variant == "dense_snorm16") {
      EXPECT_EQ(row.bytes, f16_bytes.at({row.vertices, row.targets}));
    }
    if (row.variant == "sparse") {  // base, skin and output, the tile offsets, every record's target word and the
                                    // deltas of the 4 active targets' records (each target moves `span` vertices)
      const uint64_t v = row.vertices, span = uint64_t(float(v) * options.region);
      EXPECT_EQ(row.bytes, 80 * v + 4 * (v / 64 + 2) + row.targets * span * 4 + 4 * span * 4 * 6) << row.vertices;
    }
    if (gpuDeviceInfo(*context_).timestamps) {
      EXPECT_GT(row.microseconds, 0.0) << row.variant;
      EXPECT_GT(row.gbps, 0.0) << row.variant;
    }
  }
  EXPECT_EQ(skipped, 5u);
  const std::string table = gpuBenchTable(*report);
  EXPECT_NE(table.find("dense_f16"), std::string::npos);
  EXPECT_NE(table.find("dense_snorm16"), std::string::npos);
  EXPECT_NE(table.find("skipped"), std::string::npos);
  const std::string json = gpuBenchJson(*report);
  EXPECT_NE(json.find("\"percentOfCopy\""), std::string::npos);
}

// --rigid: the same rows without a joint palette (the kernel's transform branch), clean under validation.
TEST_F(VulkanTest, BenchRunsRigidRows) {
  MORPHKIT_REQUIRE_GPU(context_);
  GpuBenchOptions options;
  options.vertices = {700};
  options.targets = {9};
  options.active = 3;
  options.repetitions = 1;
  options.copy_bytes = 1 << 20;
  options.skinned = false;
  Expected<GpuBenchReport> report = runGpuBench(*context_, options);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->rows.size(), 5u);
  for (const GpuBenchRow& row : report->rows) EXPECT_TRUE(row.skipped.empty()) << row.variant << ": " << row.skipped;
  EXPECT_TRUE(gpuValidationMessages(*context_).empty());
}

// The CLI's --layouts: dense_snorm16 alone gives one row of that layout; an unknown name and --crowd with snorm16
// are usage errors naming what is accepted.
TEST(BenchCommand, LayoutsFlagTakesSnorm16) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto dir = test::scratchDir();
  test::CliRun run = test::runMorphkit(
      dir, "bench --vertices 500 --targets 8 --layouts dense_snorm16 --active 4 --repetitions 1 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(run.out).get(root), simdjson::SUCCESS) << run.out;
  simdjson::dom::array rows = root["rows"].get_array();
  ASSERT_EQ(rows.size(), 1u) << run.out;
  EXPECT_EQ(std::string_view(rows.at(0)["layout"].get_string()), "dense_snorm16");
  EXPECT_EQ(uint64_t(rows.at(0)["active"].get_uint64()), 4u);
  run = test::runMorphkit(dir, "bench --vertices 500 --targets 8 --layouts dense_snorm8");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(
      run.err.find(
          "unknown layout 'dense_snorm8' (dense_f32 (or dense), dense_f16 (f16), dense_snorm16 (snorm16), sparse)"),
      std::string::npos)
      << run.err;
  // One vocabulary with `pose --layout`: the short name is the same layout.
  run = test::runMorphkit(dir, "bench --vertices 500 --targets 8 --layouts snorm16 --active 4 --repetitions 1 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"layout\": \"dense_snorm16\""), std::string::npos) << run.out;  // pretty-printed
  run = test::runMorphkit(dir, "bench --crowd 4 --layouts dense_snorm16");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--crowd takes one layout, dense_f32 or dense_f16"), std::string::npos) << run.err;
}

// --warmup-ms: the warm-up each row had is in the table's first line and the JSON (on lavapipe the default is 0);
// a negative value is a usage error.
TEST(BenchCommand, WarmUpIsReportedAndChecked) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto dir = test::scratchDir();
  const std::string rows = "bench --vertices 300 --targets 4 --layouts dense_f32 --active 2 --repetitions 1";
  test::CliRun run = test::runMorphkit(dir, rows + " --warmup-ms 5 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(run.out).get(root), simdjson::SUCCESS) << run.out;
  EXPECT_EQ(double(root["warmupMs"].get_double()), 5.0) << run.out;
  run = test::runMorphkit(dir, rows + " --warmup-ms 0");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("GPU warmed up 0 ms before each row"), std::string::npos) << run.out;
  run = test::runMorphkit(dir, rows + " --warmup-ms -3");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--warmup-ms"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace morphkit
