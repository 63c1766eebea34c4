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
#include "gltf_test_util.h"
#include "morphkit/demo/demo.h"
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

// What one input may cost the posing harnesses is bounded (issue 56: 370 KB inputs took seconds each): a large
// file is posed until kMaxPosedVertices and never written as text; a small one is still written (OBJ and JSON).
TEST(FuzzReplay, PosingHarnessesBoundTheWorkOfOneInput) {
  DemoOptions large;
  large.vertices = 30000;
  large.targets = 4;
  Expected<Asset> asset = makeDemoAsset(large);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const fuzz::PoseWork work = fuzz::poseAsset(test::validated(std::move(asset).value()));
  EXPECT_GT(work.poses, 1u);
  EXPECT_LT(work.poses, 18u) << "the rest pose and two animations at four times, on two paths each: cut short";
  EXPECT_LE(work.posed_vertices, fuzz::kMaxPosedVertices + large.vertices * 2);
  EXPECT_EQ(work.written_bytes, 0u);

  DemoOptions small;
  small.vertices = 300;
  small.targets = 4;
  Expected<Asset> little = makeDemoAsset(small);
  ASSERT_TRUE(little.ok()) << little.error().message;
  const fuzz::PoseWork small_work = fuzz::poseAsset(test::validated(std::move(little).value()));
  EXPECT_EQ(small_work.poses, 18u);  // the rest pose and 2 animations x 4 times, on two paths each
  EXPECT_GT(small_work.written_bytes, 0u);
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
