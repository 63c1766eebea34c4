// SPDX-License-Identifier: MIT
// The harness bodies for the file inputs of the render and batch layers (contract: harnesses.h): Radiance .hdr
// environments, texture images, batch job files. Apart because their headers belong to those layers. The fuzz
// preset builds neither layer (they need the renderer's pipelines and shaders); the harnesses link only the
// readers' own sources (tests/fuzz/CMakeLists.txt, morphkit_fuzz_render_inputs), which need no Vulkan.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string_view>

#include "morphkit/batch/batch.h"
#include "morphkit/render/environment.h"
#include "morphkit/render/render.h"

namespace morphkit::fuzz {

// `render --environment FILE.hdr` and a batch job's "environment": the RGBE header, resolution line, flat and
// run-length scanlines, the caps.
inline int radianceHdr(const uint8_t* data, size_t size) {
  (void)decodeRadianceHdr(std::span<const uint8_t>(data, size));
  return 0;
}

// glTF images as the renderer decodes them for its materials (materials.cpp → decodeImage): PNG through libspng,
// JPEG through libjpeg-turbo, by signature, with the 16384 × 16384 cap. The three stb_image 2.27 memory errors this
// harness found (tests/fuzz/crashers/fuzz_image/README.md, F1-F3) are why JPEG no longer goes through stb_image.
inline int textureImage(const uint8_t* data, size_t size) {
  (void)decodeImage(std::span<const uint8_t>(data, size));
  return 0;
}

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
