// SPDX-License-Identifier: MIT
// The harness body for the batch layer's job files (contract: harnesses.h). Apart because its headers belong to the
// batch and render layers. The fuzz preset builds neither layer (they need the renderer's pipelines and shaders);
// the harness links only the readers' own sources (tests/fuzz/CMakeLists.txt, morphkit_fuzz_batch_inputs), which
// need no Vulkan.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string_view>

#include "morphkit/batch/batch.h"
#include "morphkit/render/render.h"

namespace morphkit::fuzz {

// `morphkit batch JOB.json` and what its workers exchange: the job file (every key, the look checked with the
// renderer's own parsers), a task with its job inside, a task's result; each accepted one written back.
inline int batchJob(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (Expected<BatchJob> job = parseBatchJob(text, "/nonexistent/morphkit-fuzz")) (void)batchJobJson(*job);
  BatchJob task_job;
  if (Expected<BatchTask> task = parseBatchTaskJson(text, &task_job)) (void)batchTaskJson(task_job, *task);
  if (Expected<BatchTaskResult> result = parseBatchTaskResultJson(text)) (void)batchTaskResultJson(*result);
  return 0;
}

}  // namespace morphkit::fuzz
