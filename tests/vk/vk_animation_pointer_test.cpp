// SPDX-License-Identifier: MIT
// KHR_animation_pointer on the GPU: the demo written with pointer channels poses on the GPU (one prepared pose,
// many frames) like the demo written with "weights" channels, bit for bit, and within float precision of the CPU;
// `render` draws the same frames from both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "animation_pointer_support.h"
#include "morphkit/vk/gpu_pose.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

class AnimationPointerGpu : public test::VulkanTest {};

TEST_F(AnimationPointerGpu, PosesLikeWeightChannels) {
  MORPHKIT_REQUIRE_GPU(context_);
  test::PointerPair pair = test::pointerPair();
  Expected<PosePrepared> plain = preparePose(pair.plain), pointer = preparePose(pair.pointer);
  ASSERT_TRUE(plain) << plain.error().message;
  ASSERT_TRUE(pointer) << pointer.error().message;
  Expected<GpuPose*> gpu_plain = prepareGpuPose(*context_, *plain), gpu_pointer = prepareGpuPose(*context_, *pointer);
  ASSERT_TRUE(gpu_plain) << gpu_plain.error().message;
  ASSERT_TRUE(gpu_pointer) << gpu_pointer.error().message;
  for (uint32_t animation = 0; animation < 3; ++animation) {
    bool moved = false;
    for (double time : test::pointerPoseTimes()) {
      GpuPoseOptions options;
      options.animation = animation;
      options.time = time;
      Expected<PoseResult> a = evaluateGpuPose(*context_, **gpu_plain, options);
      Expected<PoseResult> b = evaluateGpuPose(*context_, **gpu_pointer, options);
      ASSERT_TRUE(a) << a.error().message;
      ASSERT_TRUE(b) << b.error().message;
      const std::string what = "animation " + std::to_string(animation) + " t=" + std::to_string(time);
      test::expectSamePositions(*a, *b, what);
      PoseOptions cpu;
      cpu.animation = animation;
      cpu.time = time;
      Expected<PoseResult> reference = evaluatePose(*pointer, cpu);
      ASSERT_TRUE(reference) << reference.error().message;
      const std::vector<float>& ref = reference->meshes[0].positions;
      float lo[3] = {ref[0], ref[1], ref[2]}, hi[3] = {ref[0], ref[1], ref[2]}, worst = 0.0f;
      for (size_t i = 0; i < ref.size(); ++i) {
        lo[i % 3] = std::min(lo[i % 3], ref[i]);
        hi[i % 3] = std::max(hi[i % 3], ref[i]);
        worst = std::max(worst, std::fabs(b->meshes[0].positions[i] - ref[i]));
      }
      const float diagonal = std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
      EXPECT_LE(worst, 1e-5f * diagonal) << what;  // the GPU's stated tolerance (vk_morph_test: 1e-5 x bbox)
      for (float w : b->meshes[0].weights) moved |= w != 0.0f;
    }
    EXPECT_TRUE(moved) << "animation " << animation << " never leaves the rest weights: the test could not fail";
  }
  destroyGpuPose(*context_, *gpu_plain);
  destroyGpuPose(*context_, *gpu_pointer);
}

// render plays the pointer channels through the same frame step: the frames of both files are the same bytes.
TEST_F(AnimationPointerGpu, RendersLikeWeightChannels) {
  MORPHKIT_REQUIRE_GPU(context_);
  const std::filesystem::path dir = test::scratchDir();
  const std::string demo = " --targets 12 --vertices 400 --no-capture";
  ASSERT_EQ(test::runMorphkit(dir, "make-demo plain.glb" + demo).exit_code, 0);
  ASSERT_EQ(test::runMorphkit(dir, "make-demo pointer.glb --animation-pointer" + demo).exit_code, 0);
  for (const char* anim : {"talk", "blink", "express"}) {
    for (const char* file : {"plain", "pointer"}) {
      test::CliRun run = test::runMorphkit(dir, std::string("render ") + file + ".glb --anim " + anim +
                                                    " --fps 4 --frames 1:4 --size 48x48 --no-video "
                                                    "--no-contact-sheet --out " +
                                                    file + "_" + anim);
      ASSERT_EQ(run.exit_code, 0) << run.err;
    }
    for (const char* frame : {"frame_0001.png", "frame_0002.png", "frame_0003.png"}) {
      const std::string plain = test::slurp(dir / (std::string("plain_") + anim) / frame);
      const std::string pointer = test::slurp(dir / (std::string("pointer_") + anim) / frame);
      EXPECT_FALSE(plain.empty()) << anim << " " << frame;
      EXPECT_EQ(plain, pointer) << anim << " " << frame;
    }
  }
}

}  // namespace
}  // namespace morphkit
