// SPDX-License-Identifier: MIT
// One worker, many tasks (morphkit/batch.h): a worker keeps its Vulkan context and the asset's renderer between
// tasks, so the pipelines are compiled by the first rendering task only — counted on the context, which every
// compute and graphics pipeline creation goes through. A task of another size makes a new renderer (more
// pipelines).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "morphkit/batch.h"
#include "morphkit/demo.h"
#include "morphkit/glb_writer.h"
#include "morphkit/io.h"
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
  BatchJob larger = plan->job;
  larger.width = larger.height = 24;
  larger.out = "out24";
  BatchTaskResult other = runBatchTask(*worker, larger, plan->tasks[0], "test");
  ASSERT_TRUE(other.error.empty()) << other.error;
  EXPECT_GT(batchWorkerPipelinesCreated(*worker), after_first);  // a new renderer for the new size
  destroyBatchWorker(worker);
}

}  // namespace
}  // namespace morphkit
