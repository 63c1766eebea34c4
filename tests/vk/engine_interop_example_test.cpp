// SPDX-License-Identifier: MIT
// examples/engine_interop.cpp, run as a user would (docs/ENGINE_INTEROP.md): its own VkInstance and VkDevice
// with the validation layer on, morphkit's dispatch recorded into its command buffer, the output checked
// against the CPU reference pose. The example exits 1 on any difference beyond 1e-4 of the scene size or on
// any validation message; this test also requires the summary line that says so.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "morphkit/vk/gpu.h"
#include "test_support.h"

namespace morphkit::test {
namespace {

CliRun runExample(const std::string& args) {
  const char* example = std::getenv("MORPHKIT_ENGINE_INTEROP");
  EXPECT_NE(example, nullptr) << "MORPHKIT_ENGINE_INTEROP is not set (tests/CMakeLists.txt)";
  const std::filesystem::path dir = scratchDir();
  const std::string command =
      "cd '" + dir.string() + "' && '" + (example ? example : "false") + "' " + args + " > out.txt 2> err.txt";
  const int status = std::system(command.c_str());
  CliRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = slurp(dir / "out.txt");
  run.err = slurp(dir / "err.txt");
  return run;
}

void expectClean(const CliRun& run) {
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("0 validation messages"), std::string::npos) << run.out;
  EXPECT_EQ(run.err.find("validation:"), std::string::npos) << run.err;
}

TEST(EngineInteropExample, DemoFaceMatchesCpuWithValidationClean) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const CliRun run = runExample("--validation");
  expectClean(run);
  EXPECT_NE(run.out.find("engine_interop: 1 instances"), std::string::npos) << run.out;
}

// A crowd recorded into the engine's command buffer: 6 instances of the demo face, each at its own time of the
// clip, one dispatch, the output bound as one vertex buffer; every instance equals the CPU pose at its time.
TEST(EngineInteropExample, CrowdInTheEnginesFrameMatchesCpuWithValidationClean) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const CliRun run = runExample("--validation --crowd 6");
  expectClean(run);
  EXPECT_NE(run.out.find("engine_interop: a crowd of 6 in one dispatch"), std::string::npos) << run.out;
}

// Skinned and rigid nodes, a 2-primitive mesh, a primitive without normals, sparse targets.
TEST(EngineInteropExample, SkinMorphEdgeCasesMatchCpuWithValidationClean) {
  MORPHKIT_REQUIRE_SHARED();
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const CliRun run =
      runExample("--validation '" + (assetsDir() / "SkinMorphEdgeCases" / "skin_morph.glb").string() + "'");
  expectClean(run);
}

}  // namespace
}  // namespace morphkit::test
