// SPDX-License-Identifier: MIT
// evaluateGpuPoseFrames (morphkit/vk/gpu_pose.h) against evaluateGpuPose frame by frame, on lavapipe with validation
// on: the same bits for every frame, whatever the chunk size — one frame per chunk, chunks that leave a partial last
// chunk, one chunk for every frame, and the budget's own choice — on the demo face (skinned, morphed, every
// attribute).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/core/pose_arrays.h"
#include "morphkit/demo/demo.h"
#include "morphkit/model/thread_pool.h"
#include "morphkit/pack/packed_deltas.h"
#include "morphkit/vk/gpu_pose.h"
#include "vk_interop_support.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

using test::VulkanTest;

template <class T>
bool sameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

void expectSameBits(const PoseResult& got, const PoseResult& want, const std::string& what) {
  ASSERT_EQ(got.meshes.size(), want.meshes.size()) << what;
  EXPECT_EQ(got.time, want.time) << what;
  for (size_t m = 0; m < want.meshes.size(); ++m) {
    const PosedPrimitive &g = got.meshes[m], &w = want.meshes[m];
    const std::string where = what + " mesh " + std::to_string(m);
    EXPECT_EQ(g.node, w.node) << where;
    EXPECT_TRUE(sameBits(g.positions, w.positions)) << where << " positions";
    EXPECT_TRUE(sameBits(g.normals, w.normals)) << where << " normals";
    EXPECT_TRUE(sameBits(g.tangents, w.tangents)) << where << " tangents";
    EXPECT_TRUE(sameBits(g.weights, w.weights)) << where << " weights";
    ASSERT_EQ(g.texcoords.size(), w.texcoords.size()) << where;
    for (size_t k = 0; k < w.texcoords.size(); ++k) EXPECT_TRUE(sameBits(g.texcoords[k], w.texcoords[k])) << where;
  }
}

// Frames of the demo's first clip at 7 times (odd: chunks of 3 leave one frame in the last chunk).
std::vector<GpuPoseOptions> clipFrames(const Asset& asset, size_t count) {
  std::vector<GpuPoseOptions> frames(count);
  for (size_t k = 0; k < count; ++k) {
    frames[k].animation = asset.animations.empty() ? kNone : 0;
    frames[k].time = 0.137 * double(k);
  }
  return frames;
}

void checkStream(VulkanContext& context, const Asset& asset, const std::string& what) {
  Expected<PosePrepared> prepared = preparePose(asset);
  ASSERT_TRUE(prepared) << prepared.error().message;
  Expected<GpuPose*> pose = prepareGpuPose(context, *prepared);
  ASSERT_TRUE(pose) << pose.error().message;
  const std::vector<GpuPoseOptions> frames = clipFrames(asset, 7);
  std::vector<PoseResult> one_by_one;
  for (const GpuPoseOptions& f : frames) {
    Expected<PoseResult> r = evaluateGpuPose(context, **pose, f);
    ASSERT_TRUE(r) << r.error().message;
    one_by_one.push_back(std::move(*r));
  }
  const uint64_t frame_bytes = gpuPoseFrameBytes(**pose);
  ASSERT_GT(frame_bytes, 0u);
  struct Case {
    GpuPoseStreamOptions options;
    uint32_t chunk_frames, chunks;
  };
  const Case cases[] = {
      {{.max_chunk_frames = 1}, 1, 7},                 // a chunk of one frame
      {{.max_chunk_frames = 3}, 3, 3},                 // 3 + 3 + a partial chunk of 1
      {{.memory_budget = 2 * 2 * frame_bytes}, 2, 4},  // the budget's choice: 2 frames per chunk
      {{.memory_budget = frame_bytes}, 1, 7},          // a budget of one frame: one frame per chunk
      {{}, 7, 1},                                      // the default budget: every frame in one chunk
  };
  for (const Case& c : cases) {
    std::vector<size_t> order;
    GpuPoseStreamStats stats;
    Status s = evaluateGpuPoseFrames(
        context, **pose, frames,
        [&](size_t frame, PoseResult&& result) -> Status {
          order.push_back(frame);
          expectSameBits(result, one_by_one[frame], what + " frame " + std::to_string(frame));
          return Ok{};
        },
        c.options, &stats);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(stats.chunk_frames, c.chunk_frames) << what;
    EXPECT_EQ(stats.chunks, c.chunks) << what;
    EXPECT_EQ(stats.frame_bytes, frame_bytes);
    EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6})) << what;
  }
  EXPECT_TRUE(gpuValidationMessages(context).empty()) << test::joinLines(gpuValidationMessages(context));
  destroyGpuPose(context, *pose);
}

TEST_F(VulkanTest, StreamedFramesEqualOneFrameAtATime) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<Asset> demo = test::smallDemo();
  ASSERT_TRUE(demo) << demo.error().message;
  checkStream(*context_, *demo, "demo");
}

// The host's share on a pool (morphkit/model/thread_pool.h): frame steps with their own cursors and unpacking on 3
// threads give the same bits, with the ordered sink (frame order kept) and with a concurrent one (every frame once),
// for chunks of one frame, partial chunks and one chunk; a concurrent sink's error stops the stream.
TEST_F(VulkanTest, StreamedFramesOnAPoolEqualOneFrameAtATime) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<Asset> demo = test::smallDemo();
  ASSERT_TRUE(demo) << demo.error().message;
  Expected<PosePrepared> prepared = preparePose(*demo);
  ASSERT_TRUE(prepared);
  Expected<GpuPose*> pose = prepareGpuPose(*context_, *prepared);
  ASSERT_TRUE(pose) << pose.error().message;
  SamplingContext shared_cursors;
  std::vector<GpuPoseOptions> frames = clipFrames(*demo, 7);
  for (GpuPoseOptions& f : frames) f.sampling = &shared_cursors;
  std::vector<PoseResult> one_by_one;
  for (const GpuPoseOptions& f : frames) {
    Expected<PoseResult> r = evaluateGpuPose(*context_, **pose, f);
    ASSERT_TRUE(r) << r.error().message;
    one_by_one.push_back(std::move(*r));
  }
  ThreadPool pool(3);
  for (uint32_t chunk : {1u, 3u, 0u}) {
    for (bool concurrent : {false, true}) {
      const std::string what = "chunk " + std::to_string(chunk) + (concurrent ? " concurrent" : " ordered");
      GpuPoseStreamOptions options{.max_chunk_frames = chunk, .pool = &pool, .concurrent_sink = concurrent};
      std::vector<PoseResult> got(frames.size());
      std::vector<int> calls(frames.size(), 0);
      std::vector<size_t> order;
      Status s = evaluateGpuPoseFrames(
          *context_, **pose, frames,
          [&](size_t frame, PoseResult&& result) -> Status {
            ++calls[frame];  // each frame its own slot: no lock, as a concurrent sink is meant to be
            got[frame] = result;
            if (!concurrent) order.push_back(frame);
            return Ok{};
          },
          options);
      ASSERT_TRUE(s) << what << ": " << s.error().message;
      for (size_t k = 0; k < frames.size(); ++k) {
        EXPECT_EQ(calls[k], 1) << what << " frame " << k;
        expectSameBits(got[k], one_by_one[k], what + " frame " + std::to_string(k));
      }
      if (!concurrent) {
        EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6})) << what;
      }
    }
  }
  Status s = evaluateGpuPoseFrames(
      *context_, **pose, frames,
      [&](size_t frame, PoseResult&&) -> Status { return frame == 4 ? fail(Error::kIo, "disk full") : Status(Ok{}); },
      {.max_chunk_frames = 3, .pool = &pool, .concurrent_sink = true});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "disk full");
  EXPECT_TRUE(gpuValidationMessages(*context_).empty()) << test::joinLines(gpuValidationMessages(*context_));
  destroyGpuPose(*context_, *pose);
}

// A budget below one frame is refused, naming the bytes one frame needs; a failing sink stops the stream with its
// error and no frame after it is delivered; frames with different epsilons are refused.
TEST_F(VulkanTest, StreamRefusesATooSmallBudgetAndStopsAtTheSinksError) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<Asset> demo = test::smallDemo();
  ASSERT_TRUE(demo) << demo.error().message;
  Expected<PosePrepared> prepared = preparePose(*demo);
  ASSERT_TRUE(prepared);
  Expected<GpuPose*> pose = prepareGpuPose(*context_, *prepared);
  ASSERT_TRUE(pose) << pose.error().message;
  const std::vector<GpuPoseOptions> frames = clipFrames(*demo, 5);
  const uint64_t frame_bytes = gpuPoseFrameBytes(**pose);
  auto ignore = [](size_t, PoseResult&&) -> Status { return Ok{}; };
  Status s = evaluateGpuPoseFrames(*context_, **pose, frames, ignore, {.memory_budget = frame_bytes - 1});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Error::kInvalidArgument);
  EXPECT_NE(s.error().message.find("one frame needs " + std::to_string(frame_bytes) + " bytes"), std::string::npos)
      << s.error().message;
  size_t delivered = 0;
  s = evaluateGpuPoseFrames(*context_, **pose, frames,
                            [&](size_t frame, PoseResult&&) -> Status {
                              ++delivered;
                              if (frame == 2) return fail(Error::kIo, "disk full");
                              return Ok{};
                            },
                            {.max_chunk_frames = 2});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "disk full");
  EXPECT_EQ(delivered, 3u);
  std::vector<GpuPoseOptions> mixed = frames;
  mixed[3].epsilon = 0.5f;
  s = evaluateGpuPoseFrames(*context_, **pose, mixed, ignore);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("same epsilon"), std::string::npos);
  EXPECT_TRUE(gpuValidationMessages(*context_).empty()) << test::joinLines(gpuValidationMessages(*context_));
  destroyGpuPose(*context_, *pose);
}

// evaluateGpuPoseFrameViews: each frame's views hold the vertices evaluateGpuPose unpacks, bit for bit (unpacked
// here from the views), for chunks of one frame, partial chunks and one chunk, with and without a pool (ordered and
// concurrent); copyGpuPoseFrame fills the arrays copyPoseFrame fills from the unpacked result, and refuses arrays
// that do not hold the frame; a view sink's error stops the stream.
TEST_F(VulkanTest, FrameViewsEqualOneFrameAtATime) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<Asset> demo = test::smallDemo();
  ASSERT_TRUE(demo) << demo.error().message;
  Expected<PosePrepared> prepared = preparePose(*demo);
  ASSERT_TRUE(prepared);
  Expected<GpuPose*> pose = prepareGpuPose(*context_, *prepared);
  ASSERT_TRUE(pose) << pose.error().message;
  const std::vector<GpuPoseOptions> frames = clipFrames(*demo, 7);
  std::vector<PoseResult> one_by_one;
  for (const GpuPoseOptions& f : frames) {
    Expected<PoseResult> r = evaluateGpuPose(*context_, **pose, f);
    ASSERT_TRUE(r) << r.error().message;
    one_by_one.push_back(std::move(*r));
  }
  const std::vector<PoseArrayShape> shapes = poseArrayShapes(*prepared);
  auto makeArrays = [&](std::vector<std::vector<float>>& storage) {
    storage.clear();
    std::vector<PoseArrayView> views;
    storage.reserve(shapes.size() * 3);
    for (const PoseArrayShape& shape : shapes) {
      storage.emplace_back(frames.size() * shape.vertex_count * 3);
      std::span<float> positions = storage.back();
      storage.emplace_back(shape.has_normals ? frames.size() * shape.vertex_count * 3 : 0);
      std::span<float> normals = storage.back();
      storage.emplace_back(frames.size() * shape.target_count);
      views.push_back({positions, normals, storage.back()});
    }
    return views;
  };
  std::vector<std::vector<float>> want_storage;
  const std::vector<PoseArrayView> want = makeArrays(want_storage);
  for (size_t k = 0; k < frames.size(); ++k) ASSERT_TRUE(copyPoseFrame(one_by_one[k], k, want));
  ThreadPool pool(3);
  for (ThreadPool* with : {static_cast<ThreadPool*>(nullptr), &pool}) {
    for (uint32_t chunk : {1u, 3u, 0u}) {
      for (bool concurrent : {false, true}) {
        if (concurrent && !with) continue;
        const std::string what = std::string(with ? "pool" : "no pool") + " chunk " + std::to_string(chunk) +
                                 (concurrent ? " concurrent" : " ordered");
        std::vector<std::vector<float>> got_storage;
        const std::vector<PoseArrayView> got = makeArrays(got_storage);
        std::vector<int> calls(frames.size(), 0);
        std::vector<PoseResult> unpacked(frames.size());
        Status s = evaluateGpuPoseFrameViews(
            *context_, **pose, frames,
            [&](size_t frame, std::span<const GpuPosedInstance> instances) -> Status {
              ++calls[frame];
              PoseResult& r = unpacked[frame];
              r.meshes.resize(instances.size());
              for (size_t i = 0; i < instances.size(); ++i) {
                PrimitiveData data;
                unpackVertices(instances[i].format, instances[i].vertex_count, instances[i].vertices, data);
                PosedPrimitive& m = r.meshes[i];
                m.node = one_by_one[frame].meshes[i].node;
                m.positions = data.position;
                m.normals = data.normal;
                m.tangents = data.tangent;
                m.texcoords = data.texcoords;
                m.weights.assign(instances[i].weights.begin(), instances[i].weights.end());
              }
              r.time = frames[frame].time;
              return copyGpuPoseFrame(instances, frame, got);
            },
            {.max_chunk_frames = chunk, .pool = with, .concurrent_sink = concurrent});
        ASSERT_TRUE(s) << what << ": " << s.error().message;
        for (size_t k = 0; k < frames.size(); ++k) {
          EXPECT_EQ(calls[k], 1) << what << " frame " << k;
          expectSameBits(unpacked[k], one_by_one[k], what + " frame " + std::to_string(k));
        }
        for (size_t m = 0; m < got_storage.size(); ++m) EXPECT_TRUE(sameBits(got_storage[m], want_storage[m])) << what;
      }
    }
  }
  // Arrays one frame short are refused before anything is written; a sink's error stops the stream.
  std::vector<std::vector<float>> short_storage;
  std::vector<PoseArrayView> short_views = makeArrays(short_storage);
  short_views[0].positions = short_views[0].positions.first(short_views[0].positions.size() - 1);
  Status s = evaluateGpuPoseFrameViews(*context_, **pose, frames,
                                       [&](size_t frame, std::span<const GpuPosedInstance> instances) {
                                         return copyGpuPoseFrame(instances, frame, short_views);
                                       });
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("do not hold frame 0"), std::string::npos) << s.error().message;
  size_t delivered = 0;
  s = evaluateGpuPoseFrameViews(*context_, **pose, frames,
                                [&](size_t frame, std::span<const GpuPosedInstance>) -> Status {
                                  ++delivered;
                                  return frame == 2 ? fail(Error::kIo, "disk full") : Status(Ok{});
                                },
                                {.max_chunk_frames = 2});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "disk full");
  EXPECT_EQ(delivered, 3u);
  EXPECT_TRUE(gpuValidationMessages(*context_).empty()) << test::joinLines(gpuValidationMessages(*context_));
  destroyGpuPose(*context_, *pose);
}

}  // namespace
}  // namespace morphkit
