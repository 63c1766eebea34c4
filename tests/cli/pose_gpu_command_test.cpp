// SPDX-License-Identifier: MIT
// `morphkit pose --device gpu` writes the same JSON as the CPU path (within the GPU tolerances), and
// `--compare` reports per-attribute errors. Runs on lavapipe in CI.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "morphkit/model/files.h"
#include "morphkit/vk/gpu.h"
#include "test_support.h"

namespace morphkit {
namespace {

int runCli(const std::string& args, std::string* output = nullptr) {
  std::string command = test::cliPath().string() + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  std::string text;
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, n);
  int status = pclose(pipe);
  if (output) *output = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<double> numbers(simdjson::dom::element array) {
  std::vector<double> out;
  for (auto v : array.get_array()) out.push_back(v.get_double());
  return out;
}

TEST(PoseGpuCommand, GpuJsonMatchesCpuJson) {
  MORPHKIT_REQUIRE_SHARED();
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto dir = test::scratchDir();
  const auto model = test::assetsDir() / "MorphSkinBlob52/MorphSkinBlob52_sparse.glb";
  const std::string common = model.string() + " --anim 0 --time 0.3,1.1";
  ASSERT_EQ(runCli("pose " + common + " --out " + (dir / "cpu.json").string()), 0);
  ASSERT_EQ(runCli("pose " + common + " --device gpu --out " + (dir / "gpu.json").string()), 0);
  simdjson::dom::parser cpu_parser, gpu_parser;
  simdjson::dom::element cpu = cpu_parser.load((dir / "cpu.json").string());
  simdjson::dom::element gpu = gpu_parser.load((dir / "gpu.json").string());
  auto cpu_cases = cpu["cases"].get_array();
  auto gpu_cases = gpu["cases"].get_array();
  ASSERT_EQ(cpu_cases.size(), 2u);
  ASSERT_EQ(gpu_cases.size(), 2u);
  for (size_t c = 0; c < 2; ++c) {
    auto cpu_mesh = cpu_cases.at(c)["meshes"].at(0);
    auto gpu_mesh = gpu_cases.at(c)["meshes"].at(0);
    std::vector<double> p_cpu = numbers(cpu_mesh["positions"]), p_gpu = numbers(gpu_mesh["positions"]);
    std::vector<double> n_cpu = numbers(cpu_mesh["normals"]), n_gpu = numbers(gpu_mesh["normals"]);
    ASSERT_EQ(p_cpu.size(), p_gpu.size());
    ASSERT_EQ(n_cpu.size(), n_gpu.size());
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
    for (size_t i = 0; i < p_cpu.size(); ++i) {
      lo[i % 3] = std::min(lo[i % 3], p_cpu[i]);
      hi[i % 3] = std::max(hi[i % 3], p_cpu[i]);
    }
    double diagonal = std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                                (hi[2] - lo[2]) * (hi[2] - lo[2]));
    for (size_t i = 0; i < p_cpu.size(); ++i) ASSERT_NEAR(p_cpu[i], p_gpu[i], 1e-5 * diagonal) << "position " << i;
    for (size_t i = 0; i < n_cpu.size(); ++i) ASSERT_NEAR(n_cpu[i], n_gpu[i], 1e-4) << "normal " << i;
  }
}

TEST(PoseGpuCommand, CompareReportsEachAttribute) {
  MORPHKIT_REQUIRE_SHARED();
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto model = test::assetsDir() / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf";
  std::string output;
  ASSERT_EQ(runCli("pose " + model.string() + " --anim 0 --time 1.0 --compare", &output), 0) << output;
  for (const char* attribute : {"position", "normal", "tangent"}) {
    size_t at = output.find(std::string("\n") + attribute);
    ASSERT_NE(at, std::string::npos) << output;
    double abs_err = 1, rel_err = 1;
    unsigned long values = 0;
    char name[32];
    ASSERT_EQ(std::sscanf(output.c_str() + at + 1, "%31s %lu %lf %lf", name, &values, &abs_err, &rel_err), 4) << output;
    EXPECT_GT(values, 0u);
    EXPECT_LT(abs_err, 1e-5) << attribute;
  }
}

TEST(PoseGpuCommand, BadGpuIndexIsAClearError) {
  MORPHKIT_REQUIRE_SHARED();
  const auto model = test::assetsDir() / "SimpleMorph/glTF/SimpleMorph.gltf";
  std::string output;
  EXPECT_EQ(runCli("pose " + model.string() + " --device 99", &output), 1);
  EXPECT_NE(output.find("morphkit: error: "), std::string::npos) << output;
  EXPECT_NE(output.find("device index 99"), std::string::npos) << output;
}

}  // namespace
}  // namespace morphkit

namespace morphkit {
namespace {

// `inspect --json` reports, per primitive with targets, what the f16 delta layout loses against f32: non-zero
// for real data, and within half an f16 ulp of the largest delta (|Δ| · 2^-11); and the same for snorm16.
TEST(InspectF16, ReportsTheF16ErrorPerPrimitive) {
  MORPHKIT_REQUIRE_SHARED();
  const auto model = test::assetsDir() / "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf";
  const auto out = test::scratchDir() / "inspect.json";
  ASSERT_EQ(runCli("inspect --json " + model.string() + " > " + out.string()), 0);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(out.string());
  simdjson::dom::element primitive = doc["meshes"].at(0)["primitives"].at(0);
  double position = primitive["f16MaxError"]["position"].get_double();
  double normal = primitive["f16MaxError"]["normal"].get_double();
  EXPECT_FALSE(primitive["f16MaxError"]["overflow"].get_bool().value());
  // AnimatedMorphCube's deltas stay below 1 in magnitude: f16 keeps 11 significant bits.
  EXPECT_GT(position, 0.0);
  EXPECT_LE(position, std::ldexp(1.0, -11));
  EXPECT_GT(normal, 0.0);
  EXPECT_LE(normal, std::ldexp(1.0, -11));
  // snorm16 beside it: within half a step of the largest |Δ| (< 1), and finer than f16 on both attributes here.
  const double snorm_position = primitive["snorm16MaxError"]["position"].get_double();
  const double snorm_normal = primitive["snorm16MaxError"]["normal"].get_double();
  EXPECT_FALSE(primitive["snorm16MaxError"]["nonFinite"].get_bool().value());
  EXPECT_GT(snorm_position, 0.0);
  EXPECT_LT(snorm_position, position);
  EXPECT_GT(snorm_normal, 0.0);
  EXPECT_LT(snorm_normal, normal);
  EXPECT_LE(snorm_normal, 1.0 / 65534.0);
  std::string text;
  ASSERT_EQ(runCli("inspect " + model.string(), &text), 0) << text;
  EXPECT_NE(text.find("f16 deltas: max error position"), std::string::npos) << text;
  EXPECT_NE(text.find("snorm16 deltas: max error position"), std::string::npos) << text;
}

// `pose --device gpu --layout snorm16` runs the snorm16 kernel: within the f32 tolerances of the CPU output, and
// not byte-equal to the dense f32 layout's output (its deltas are quantized). A bad layout name is a usage error.
TEST(PoseGpuCommand, Snorm16LayoutFlag) {
  MORPHKIT_REQUIRE_SHARED();
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto dir = test::scratchDir();
  const auto model = test::assetsDir() / "MorphSkinBlob52/MorphSkinBlob52.glb";
  const std::string common = model.string() + " --anim 0 --time 0.7";
  ASSERT_EQ(runCli("pose " + common + " --out " + (dir / "cpu.json").string()), 0);
  std::string output;
  for (const char* layout : {"dense", "snorm16"}) {
    ASSERT_EQ(runCli("pose " + common + " --device gpu --layout " + layout + " --out " +
                         (dir / (std::string(layout) + ".json")).string(),
                     &output),
              0)
        << output;
  }
  simdjson::dom::parser cpu_parser, dense_parser, snorm_parser;
  auto positions = [](simdjson::dom::element doc) { return numbers(doc["cases"].at(0)["meshes"].at(0)["positions"]); };
  auto normals = [](simdjson::dom::element doc) { return numbers(doc["cases"].at(0)["meshes"].at(0)["normals"]); };
  const simdjson::dom::element cpu = cpu_parser.load((dir / "cpu.json").string());
  const simdjson::dom::element dense = dense_parser.load((dir / "dense.json").string());
  const simdjson::dom::element snorm = snorm_parser.load((dir / "snorm16.json").string());
  const std::vector<double> p_cpu = positions(cpu), p_snorm = positions(snorm), n_cpu = normals(cpu),
                            n_snorm = normals(snorm);
  ASSERT_EQ(p_cpu.size(), p_snorm.size());
  ASSERT_EQ(n_cpu.size(), n_snorm.size());
  double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
  for (size_t i = 0; i < p_cpu.size(); ++i)
    lo[i % 3] = std::min(lo[i % 3], p_cpu[i]), hi[i % 3] = std::max(hi[i % 3], p_cpu[i]);
  const double diagonal = std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  for (size_t i = 0; i < p_cpu.size(); ++i) ASSERT_NEAR(p_cpu[i], p_snorm[i], 1e-5 * diagonal) << "position " << i;
  for (size_t i = 0; i < n_cpu.size(); ++i) ASSERT_NEAR(n_cpu[i], n_snorm[i], 1e-4) << "normal " << i;
  EXPECT_NE(positions(dense), p_snorm);
  EXPECT_EQ(runCli("pose " + common + " --device gpu --layout snorm8", &output), 2) << output;
  EXPECT_NE(output.find("dense_snorm16 (snorm16)"), std::string::npos) << output;  // the accepted names
  // One vocabulary with `bench --layouts`: the long name poses exactly what the short one does.
  ASSERT_EQ(
      runCli("pose " + common + " --device gpu --layout dense_snorm16 --out " + (dir / "long.json").string(), &output),
      0)
      << output;
  EXPECT_EQ(*readFile(dir / "long.json"), *readFile(dir / "snorm16.json"));
}

// --gpu-memory-mb bounds the frames in flight: a budget of a few frames gives chunks of one frame and the same bytes
// as the default budget; a budget below one frame is refused with the bytes one frame needs, and writes nothing.
TEST(PoseGpuCommand, GpuMemoryBudgetChunksTheFramesAndRefusesLessThanOneFrame) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto dir = test::scratchDir();
  const std::string asset = (dir / "face50k.glb").string();
  ASSERT_EQ(runCli("make-demo " + asset + " --vertices 50000 --targets 4"), 0);
  const std::string common = "pose " + asset + " --anim 0 --time 0:0.5:0.1 --device gpu";
  const auto whole = dir / "whole.npy", chunked = dir / "chunked.npy", refused = dir / "refused.npy";
  ASSERT_EQ(runCli(common + " --out " + whole.string()), 0);
  ASSERT_EQ(runCli(common + " --gpu-memory-mb 5 --out " + chunked.string()), 0);  // ~2.4 MB a frame: one per chunk
  EXPECT_EQ(test::slurp(whole), test::slurp(chunked));
  std::string output;
  EXPECT_EQ(runCli(common + " --gpu-memory-mb 1 --out " + refused.string(), &output), 1);
  EXPECT_NE(output.find("--gpu-memory-mb 1: below one frame's output; one frame of this pose needs "),
            std::string::npos)
      << output;
  EXPECT_FALSE(std::filesystem::exists(refused));
  EXPECT_EQ(runCli(common + " --gpu-memory-mb 0 --out " + refused.string(), &output), 2) << output;
}

}  // namespace
}  // namespace morphkit
