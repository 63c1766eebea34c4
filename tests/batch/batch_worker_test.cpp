// SPDX-License-Identifier: MIT
// One worker, many tasks (morphkit/batch/batch.h): a worker keeps its Vulkan context and the asset's renderer between
// tasks, so the pipelines are compiled by the first rendering task only — counted on the context, which every
// compute and graphics pipeline creation goes through. A task of another size makes a new renderer (more
// pipelines).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "morphkit/batch/batch.h"
#include "morphkit/core/pose.h"
#include "morphkit/core/pose_arrays.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/io/npy.h"
#include "morphkit/model/files.h"
#include "morphkit/vk/gpu.h"
#include "morphkit/vk/gpu_pose.h"
#include "test_support.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

TEST(BatchWorker, ReusesItsContextAndPipelinesAcrossTasks) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto dir = test::scratchDir();
  Expected<Asset> demo = makeDemoAsset({.targets = 4, .vertices = 200, .bones = 2});
  ASSERT_TRUE(demo) << demo.error().message;
  Expected<std::vector<uint8_t>> glb = writeGlb(*demo);
  ASSERT_TRUE(glb) << glb.error().message;
  ASSERT_TRUE(writeFileAtomic(dir / "face.glb", std::span<const uint8_t>(*glb)));
  BatchJob job;
  job.assets = {"face.glb"};
  job.animations = {"0"};
  job.has_frames = true;
  job.first_frame = 0;
  job.last_frame = 6;
  job.chunk = 2;  // three tasks
  job.poses = false;
  job.width = job.height = 16;
  job.out = "out";
  job.base_dir = dir;
  Expected<BatchPlan> plan = planBatch(job);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->tasks.size(), 3u);
  BatchWorker* worker = createBatchWorker();
  EXPECT_EQ(batchWorkerPipelinesCreated(*worker), 0u);
  BatchTaskResult first = runBatchTask(*worker, plan->job, plan->tasks[0], "test");
  ASSERT_TRUE(first.error.empty()) << first.error;
  const uint64_t after_first = batchWorkerPipelinesCreated(*worker);
  EXPECT_GT(after_first, 0u);
  for (size_t t = 1; t < plan->tasks.size(); ++t) {
    BatchTaskResult r = runBatchTask(*worker, plan->job, plan->tasks[t], "test");
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.rendered, 2u);
    EXPECT_EQ(batchWorkerPipelinesCreated(*worker), after_first) << "task " << t << " compiled pipelines again";
  }
  // Frames encoded on 3 threads (the front ends' share of the cores) are the same files.
  BatchJob threaded = plan->job;
  threaded.out = "out3";
  for (const BatchTask& task : plan->tasks) {
    BatchTaskResult r = runBatchTask(*worker, threaded, task, "test", 3);
    ASSERT_TRUE(r.error.empty()) << r.error;
    for (const std::string& output : r.outputs) {
      if (output.size() < 4 || output.substr(output.size() - 4) != ".png") continue;
      Expected<std::vector<uint8_t>> a = readFile(dir / "out" / output, size_t(1) << 24);
      Expected<std::vector<uint8_t>> b = readFile(dir / "out3" / output, size_t(1) << 24);
      ASSERT_TRUE(a && b) << output;
      EXPECT_EQ(*a, *b) << output;
    }
  }
  BatchJob larger = plan->job;
  larger.width = larger.height = 24;
  larger.out = "out24";
  BatchTaskResult other = runBatchTask(*worker, larger, plan->tasks[0], "test");
  ASSERT_TRUE(other.error.empty()) << other.error;
  EXPECT_GT(batchWorkerPipelinesCreated(*worker), after_first);  // a new renderer for the new size
  destroyBatchWorker(worker);
}

// pose_device "gpu": the task's posed arrays come from the frames-in-flight stream on the worker's context, equal
// bit for bit to the one-frame GPU path (evaluateGpuPose) and to the CPU fast path within float tolerance; a second
// task reuses the worker's context and GPU pose (no pipeline compiled again).
TEST(BatchWorker, GpuPosedArraysEqualTheOneFrameGpuPath) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto dir = test::scratchDir();
  Expected<Asset> demo = makeDemoAsset({.targets = 6, .vertices = 300, .bones = 3});
  ASSERT_TRUE(demo) << demo.error().message;
  Expected<std::vector<uint8_t>> glb = writeGlb(*demo);
  ASSERT_TRUE(glb) << glb.error().message;
  ASSERT_TRUE(writeFileAtomic(dir / "face.glb", std::span<const uint8_t>(*glb)));
  BatchJob job;
  job.assets = {"face.glb"};
  job.animations = {"0"};
  job.has_frames = true;
  job.first_frame = 0;
  job.last_frame = 10;
  job.chunk = 5;  // two tasks
  job.frames = false;
  job.out = "gpu";
  job.pose_device = "gpu";
  job.base_dir = dir;
  Expected<BatchPlan> plan = planBatch(job);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->tasks.size(), 2u);
  BatchWorker* worker = createBatchWorker();
  BatchTaskResult second;
  for (const BatchTask& task : plan->tasks) {
    second = runBatchTask(*worker, plan->job, task, "test");
    ASSERT_TRUE(second.error.empty()) << second.error;
  }
  const uint64_t pipelines = batchWorkerPipelinesCreated(*worker);
  EXPECT_GT(pipelines, 0u);
  BatchTaskResult again = runBatchTask(*worker, plan->job, plan->tasks[0], "test");
  ASSERT_TRUE(again.error.empty()) << again.error;
  EXPECT_EQ(batchWorkerPipelinesCreated(*worker), pipelines);
  destroyBatchWorker(worker);
  BatchJob cpu_job = plan->job;
  cpu_job.pose_device = "cpu";
  cpu_job.out = "cpu";
  BatchWorker* cpu_worker = createBatchWorker();
  BatchTaskResult cpu = runBatchTask(*cpu_worker, cpu_job, plan->tasks[1], "test");
  ASSERT_TRUE(cpu.error.empty()) << cpu.error;
  destroyBatchWorker(cpu_worker);

  auto context = createVulkanContext();
  ASSERT_TRUE(context) << context.error().message;
  Expected<PosePrepared> prepared = preparePose(*demo);
  ASSERT_TRUE(prepared);
  auto pose = prepareGpuPose(**context, *prepared);
  ASSERT_TRUE(pose) << pose.error().message;
  // The second task's positions file (outputs are relative to the job's out folder).
  auto read = [&](const std::string& out, const BatchTaskResult& result) {
    std::vector<float> values;
    for (const std::string& file : result.outputs) {
      if (file.find("_positions.npy") == std::string::npos) continue;
      Expected<std::vector<uint8_t>> bytes = readFile(dir / out / file);
      EXPECT_TRUE(bytes) << file;
      Expected<NpyArray> array = bytes ? decodeNpy(*bytes) : Expected<NpyArray>(bytes.error());
      EXPECT_TRUE(array) << file;
      if (!array) break;
      values.resize(array->data.size() / sizeof(float));
      std::memcpy(values.data(), array->data.data(), values.size() * sizeof(float));
    }
    return values;
  };
  const std::vector<float> gpu = read("gpu", second), cpu_values = read("cpu", cpu);
  const size_t per_frame = size_t(prepared->primitives[prepared->instances[0].data].vertex_count) * 3;
  ASSERT_EQ(gpu.size(), 5 * per_frame);
  ASSERT_EQ(cpu_values.size(), gpu.size());
  EXPECT_NE(gpu, cpu_values) << "the GPU's float rounding differs from the CPU fast path's somewhere: the GPU ran";
  for (uint32_t f = 5; f < 10; ++f) {
    GpuPoseOptions options;
    options.animation = 0;
    options.time = f / plan->job.fps;
    Expected<PoseResult> one = evaluateGpuPose(**context, **pose, options);
    ASSERT_TRUE(one) << one.error().message;
    const std::vector<float>& expected = one->meshes[0].positions;
    ASSERT_EQ(expected.size(), per_frame);
    for (size_t i = 0; i < per_frame; ++i) {
      ASSERT_EQ(gpu[(f - 5) * per_frame + i], expected[i]) << "frame " << f << " float " << i;
      ASSERT_NEAR(cpu_values[(f - 5) * per_frame + i], expected[i], 1e-4) << "frame " << f << " float " << i;
    }
  }
  destroyGpuPose(**context, *pose);
  destroyVulkanContext(*context);
}

}  // namespace
}  // namespace morphkit
