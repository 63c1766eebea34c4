// SPDX-License-Identifier: MIT
// batch_test.cpp — morphkit/batch/batch.h: job parsing (each key broken in turn), planning into chunks and keys,
// task/result JSON round trips, `morphkit batch` end to end on the CPU (poses only: no device needed).
#include "morphkit/batch/batch.h"

#include <gtest/gtest.h>

#include <string>

#include "morphkit/io/npy.h"
#include "morphkit/model/files.h"
#include "test_support.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

TEST(BatchJob, DefaultsAndEveryKey) {
  auto job = parseBatchJob(R"({"assets": ["a.glb", "m/*.gltf"], "out": "o", "animations": ["Walk", 2], "frames": [3, 9],
                               "fps": 24, "chunk": 4, "outputs": ["poses"], "size": [64, 32], "morph_path": "compute",
                               "device": 0, "pose_device": "gpu", "resume": true, "read_files": true, "manifest": "m.json", "workers": 3})",
                           "/jobs");
  ASSERT_TRUE(job.ok()) << job.error().message;
  EXPECT_EQ(job->assets, (std::vector<std::string>{"a.glb", "m/*.gltf"}));
  EXPECT_EQ(job->animations, (std::vector<std::string>{"Walk", "2"}));
  EXPECT_TRUE(job->has_frames);
  EXPECT_EQ(job->first_frame, 3u);
  EXPECT_EQ(job->last_frame, 9u);
  EXPECT_EQ(job->chunk, 4u);
  EXPECT_TRUE(job->poses);
  EXPECT_FALSE(job->frames);
  EXPECT_EQ(job->width, 64u);
  EXPECT_TRUE(job->resume);
  EXPECT_TRUE(job->read_files);
  EXPECT_EQ(job->pose_device, "gpu");
  EXPECT_EQ(job->base_dir, "/jobs");
  // The normalized JSON reads back to the same job.
  auto again = parseBatchJob(batchJobJson(*job), "/elsewhere");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(batchJobJson(*again), batchJobJson(*job));
  auto defaults = parseBatchJob(R"({"assets": ["a.glb"]})", ".");
  ASSERT_TRUE(defaults.ok());
  EXPECT_TRUE(defaults->frames && defaults->poses);
  EXPECT_EQ(defaults->chunk, 32u);
  EXPECT_EQ(defaults->out, "batch_out");
  EXPECT_FALSE(defaults->read_files);
  EXPECT_EQ(defaults->pose_device, "cpu");
}

TEST(BatchJob, EachBadKeyIsNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {R"([1])", "JSON object"},
      {R"({"out": "o"})", "assets: is required"},
      {R"({"assets": []})", "assets: lists no asset"},
      {R"({"assets": [1]})", "assets: expected"},
      {R"({"assets": ["a"], "frames": [5, 5]})", "frames: expected [A, B] with A < B"},
      {R"({"assets": ["a"], "frames": [1]})", "frames: expected [A, B]"},
      {R"({"assets": ["a"], "fps": 0})", "fps:"},
      {R"({"assets": ["a"], "chunk": 0})", "chunk:"},
      {R"({"assets": ["a"], "outputs": ["video"]})", "outputs: \"video\""},
      {R"({"assets": ["a"], "outputs": []})", "outputs: lists no output"},
      {R"({"assets": ["a"], "size": [0, 4]})", "size:"},
      {R"({"assets": ["a"], "morph_path": "fast"})", "morph_path:"},
      {R"({"assets": ["a"], "pose_device": "tpu"})", "pose_device: expected cpu or gpu"},
      {R"({"assets": ["a"], "animations": [true]})", "animations:"},
      {R"({"assets": ["a"], "manifest": "../m.json"})", "manifest:"},
      {R"({"assets": ["a"], "resume": 1})", "resume:"},
      {R"({"assets": ["a"], "read_files": "yes"})", "read_files: expected true or false"},
      {R"({"assets": ["a"], "colour": 1})", "colour: unknown key"},
  };
  for (const auto& [json, message] : cases) {
    auto job = parseBatchJob(json, ".");
    ASSERT_FALSE(job.ok()) << json;
    EXPECT_NE(job.error().message.find(message), std::string::npos) << json << " -> " << job.error().message;
  }
  EXPECT_EQ(parseBatchJob("{", ".").error().code, Error::kInvalidJson);
}

TEST(BatchPlan, ChunksKeysAndFailingAssets) {
  MORPHKIT_REQUIRE_SHARED();
  const std::string dir = test::assetsDir().string();
  auto job =
      parseBatchJob(R"({"assets": ["AnimatedMorphCube/*/AnimatedMorphCube.gltf", "Fox/glTF-Binary/Fox.glb", "nope.glb"],
                               "animations": ["Run", 0], "frames": [0, 5], "chunk": 2})",
                    dir);
  ASSERT_TRUE(job.ok()) << job.error().message;
  auto plan = planBatch(*job);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  std::vector<std::string> seen;
  for (const BatchTask& t : plan->tasks) {
    EXPECT_EQ(t.id, &t - plan->tasks.data());
    seen.push_back(t.asset_key + "/" + t.animation_key + (t.error.empty() ? "" : "!") + "/" + std::to_string(t.first) +
                   "-" + std::to_string(t.last));
  }
  // Two cubes share a stem: their keys come from their paths below the folder common to all three assets. The cube has
  // no "Run" (an error task per cube); Fox's "Run" is animation 2; chunks of 2 over [0, 5); the missing file is one
  // error task.
  EXPECT_EQ(seen, (std::vector<std::string>{"AnimatedMorphCube_glTF-Quantized_AnimatedMorphCube.gltf/Run!/0-0",
                                            "AnimatedMorphCube_glTF-Quantized_AnimatedMorphCube.gltf/0_Square/0-2",
                                            "AnimatedMorphCube_glTF-Quantized_AnimatedMorphCube.gltf/0_Square/2-4",
                                            "AnimatedMorphCube_glTF-Quantized_AnimatedMorphCube.gltf/0_Square/4-5",
                                            "AnimatedMorphCube_glTF_AnimatedMorphCube.gltf/Run!/0-0",
                                            "AnimatedMorphCube_glTF_AnimatedMorphCube.gltf/0_Square/0-2",
                                            "AnimatedMorphCube_glTF_AnimatedMorphCube.gltf/0_Square/2-4",
                                            "AnimatedMorphCube_glTF_AnimatedMorphCube.gltf/0_Square/4-5",
                                            "Fox/2_Run/0-2", "Fox/2_Run/2-4", "Fox/2_Run/4-5", "Fox/0_Survey/0-2",
                                            "Fox/0_Survey/2-4", "Fox/0_Survey/4-5", "nope/rest!/0-0"}));
  // A task survives the trip to a worker.
  BatchJob shipped;
  auto task = parseBatchTaskJson(batchTaskJson(plan->job, plan->tasks[9]), &shipped);
  ASSERT_TRUE(task.ok()) << task.error().message;
  EXPECT_EQ(batchTaskJson(shipped, *task), batchTaskJson(plan->job, plan->tasks[9]));
  // read_files: the assets read instead of mapped give the same plan, and the switch travels with a task.
  BatchJob read = *job;
  read.read_files = true;
  auto read_plan = planBatch(read);
  ASSERT_TRUE(read_plan.ok()) << read_plan.error().message;
  ASSERT_EQ(read_plan->tasks.size(), plan->tasks.size());
  for (size_t i = 0; i < plan->tasks.size(); ++i) {
    EXPECT_EQ(batchTaskJson(read_plan->job, read_plan->tasks[i]).find("\"read_files\":true") != std::string::npos,
              true);
    EXPECT_EQ(read_plan->tasks[i].error.empty(), plan->tasks[i].error.empty()) << i;
    EXPECT_EQ(read_plan->tasks[i].last, plan->tasks[i].last) << i;
  }
  auto read_task = parseBatchTaskJson(batchTaskJson(read_plan->job, read_plan->tasks[9]), &shipped);
  ASSERT_TRUE(read_task.ok()) << read_task.error().message;
  EXPECT_TRUE(shipped.read_files);
}

TEST(BatchCommand, PosesOnlyJobWritesNpyResumesAndReportsFailures) {
  MORPHKIT_REQUIRE_SHARED();
  const auto dir = test::scratchDir();
  const std::string fox = (test::assetsDir() / "Fox/glTF-Binary/Fox.glb").string();
  ASSERT_TRUE(writeFileAtomic(dir / "broken.glb", std::string_view("glTF")).ok());
  ASSERT_TRUE(writeFileAtomic(dir / "job.json", R"({"assets": [")" + fox + R"(", "broken.glb"], "out": "out",
      "animations": ["Walk"], "frames": [0, 3], "chunk": 2, "outputs": ["poses"]})")
                  .ok());
  test::CliRun run = test::runMorphkit(dir, "batch job.json --json");
  EXPECT_EQ(run.exit_code, 1) << run.err;  // broken.glb failed, the fox did not
  EXPECT_NE(run.err.find("broken"), std::string::npos) << run.err;
  EXPECT_NE(run.out.find("\"tasks\":3,\"failed\":1"), std::string::npos) << run.out;
  auto npy = decodeNpy(*readFile(dir / "out/Fox/1_Walk/poses/f0002-0003_node1_mesh0_prim0_positions.npy"));
  ASSERT_TRUE(npy.ok()) << npy.error().message;
  EXPECT_EQ(npy->shape, (std::vector<uint64_t>{1, 1728, 3}));
  EXPECT_TRUE(std::filesystem::exists(dir / "out/Fox/1_Walk/done/f0000-0002.json"));
  const std::string manifest = test::slurp(dir / "out/manifest.json");
  EXPECT_NE(manifest.find("\"summary\":{\"tasks\":3,\"failed\":1,\"skipped\":0"), std::string::npos) << manifest;
  // Resume: the fox's tasks are done and skipped; the broken asset fails again.
  run = test::runMorphkit(dir, "batch job.json --resume --json");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("\"skipped\":2"), std::string::npos) << run.out;
  // Usage and job errors.
  EXPECT_EQ(test::runMorphkit(dir, "batch").exit_code, 2);
  run = test::runMorphkit(dir, "batch missing.json");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("missing.json"), std::string::npos);
}

// --workers N runs the tasks on N threads, each with its own BatchWorker: the same files as one worker, byte for
// byte, and the manifest's tasks in plan order. The job's "workers" is the default; 0 is a usage error.
TEST(BatchCommand, WorkersSideBySideWriteTheSameFiles) {
  MORPHKIT_REQUIRE_SHARED();
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto dir = test::scratchDir();
  const std::string fox = (test::assetsDir() / "Fox/glTF-Binary/Fox.glb").string();
  for (const char* out : {"one", "three"}) {
    ASSERT_TRUE(writeFileAtomic(dir / (std::string(out) + ".json"),
                                R"({"assets": [")" + fox + R"("], "out": ")" + out +
                                    R"(", "animations": ["Walk"], "frames": [0, 6], "chunk": 1, "size": [24, 24],
                                    "msaa": 1, "environment": "none", "workers": 3})")
                    .ok());
  }
  test::CliRun one = test::runMorphkit(dir, "batch one.json --workers 1 --json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  test::CliRun three = test::runMorphkit(dir, "batch three.json --json");  // the job's "workers": 3
  ASSERT_EQ(three.exit_code, 0) << three.err;
  EXPECT_NE(three.out.find("\"tasks\":6,\"failed\":0,\"skipped\":0,\"rendered\":6"), std::string::npos) << three.out;
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir / "one")) {
    const std::filesystem::path relative = std::filesystem::relative(entry.path(), dir / "one");
    if (!entry.is_regular_file() || relative.string().find("done") == 0 || relative.filename() == "manifest.json")
      continue;
    if (relative.string().find("/done/") != std::string::npos) continue;  // they name the worker and the seconds
    ++files;
    EXPECT_EQ(test::slurp(entry.path()), test::slurp(dir / "three" / relative)) << relative;
  }
  EXPECT_EQ(files, 12u) << "6 frames and 6 tasks' positions (the fox has no normals)";
  EXPECT_EQ(test::runMorphkit(dir, "batch one.json --workers 0").exit_code, 2);
}

}  // namespace
}  // namespace morphkit
