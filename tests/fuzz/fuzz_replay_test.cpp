// SPDX-License-Identifier: MIT
// Every committed fuzzing crasher (tests/fuzz/crashers/<harness>/*) replayed through its harness's own body
// (tests/fuzz/harnesses.h) in the main g++ ASan + UBSan build, on every CI run. The clang build (scripts/fuzz)
// replays them too, together with the seed corpus, before fuzzing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "fuzz/harness_batch_job.h"
#include "fuzz/harness_check.h"
#include "fuzz/harness_images.h"
#include "fuzz/harness_node_material.h"
#include "fuzz/harnesses.h"
#include "test_support.h"

namespace morphkit {
namespace {

struct Harness {
  const char* name;
  int (*run)(const uint8_t*, size_t);
};
const Harness kHarnesses[] = {{"fuzz_gltf", fuzz::gltf},
                              {"fuzz_glb", fuzz::glb},
                              {"fuzz_pose", fuzz::pose},
                              {"fuzz_meshopt", fuzz::meshopt},
                              {"fuzz_draco", fuzz::draco},
                              {"fuzz_node_material", fuzz::nodeMaterial},
                              {"fuzz_capture_csv", fuzz::captureCsv},
                              {"fuzz_mediapipe", fuzz::mediaPipe},
                              {"fuzz_a2f", fuzz::a2f},
                              {"fuzz_ifacialmocap", fuzz::iFacialMocap},
                              {"fuzz_timed_csv", fuzz::timedCsv},
                              {"fuzz_vrm", fuzz::vrmExpressions},
                              {"fuzz_animation_pointer", fuzz::animationPointer},
                              {"fuzz_check", fuzz::check},
                              {"fuzz_hdr", fuzz::radianceHdr},
                              {"fuzz_image", fuzz::textureImage},
                              {"fuzz_batch_job", fuzz::batchJob}};

std::filesystem::path crasherRoot() {
  return test::sourceDir() / "tests" / "fuzz" / "crashers";
}

TEST(FuzzReplay, EveryCrasherRunsCleanlyThroughItsHarness) {
  const std::filesystem::path root = crasherRoot();
  ASSERT_TRUE(std::filesystem::is_directory(root)) << root;
  size_t replayed = 0;
  for (const Harness& harness : kHarnesses) {
    const std::filesystem::path dir = root / harness.name;
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      SCOPED_TRACE(entry.path().string());
      const std::string bytes = test::slurp(entry.path());
      const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
      harness.run(data, bytes.size());  // ASan/UBSan abort the test on any memory error or UB
      const bool whole_file = harness.run == fuzz::gltf || harness.run == fuzz::glb || harness.run == fuzz::pose;
      if (whole_file) fuzz::pose(data, bytes.size());  // whole glTF files: the deepest harness too
      ++replayed;
    }
  }
  RecordProperty("replayed", int(replayed));
  EXPECT_GT(replayed, 0u);
}

// The capture harness poses a face built in code; like every fixture it passes the one gate
// (morphkit/model/contract.h). No committed crasher may reach it, so it is built here (arkitFace stops the binary, too,
// if it does not pass).
TEST(FuzzReplay, TheCaptureHarnessFaceIsValid) {
  const Status valid = validateAsset(fuzz::arkitFace());
  EXPECT_TRUE(valid.ok()) << valid.error().message;
}

}  // namespace
}  // namespace morphkit
