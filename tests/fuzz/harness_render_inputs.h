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

#include "morphkit/batch.h"
#include "morphkit/environment.h"
#include "morphkit/render.h"

namespace morphkit::fuzz {

// `render --environment FILE.hdr` and a batch job's "environment": the RGBE header, resolution line, flat and
// run-length scanlines, the caps.
inline int radianceHdr(const uint8_t* data, size_t size) {
  (void)decodeRadianceHdr(std::span<const uint8_t>(data, size));
  return 0;
}

// glTF images as the renderer decodes them for its materials (materials.cpp → decodeImage): PNG through libspng,
// JPEG through stb_image, by signature, with the 16384 × 16384 cap.
//
// JPEG is left out unless MORPHKIT_FUZZ_JPEG=1: the harness found two memory errors in Debian's stb_image 2.27
// within minutes (tests/fuzz/findings/fuzz_image/README.md: F1, a DHT table of more than 256 codes written past
// its arrays; F2, a scan decoded with a Huffman table the file never defined, read from uninitialized heap memory
// and indexed out of bounds), both fixed upstream in stb_image 2.28. The fix belongs to decodeImage
// (src/render/image.cpp, the render work's); until it lands, CI's short runs must not keep finding them (F2 depends
// on what earlier inputs left in the heap, so no input filter can keep it out), and the PNG path, libspng's and
// decodeImage's own, is fuzzed alone. A campaign that looks at JPEG sets MORPHKIT_FUZZ_JPEG=1.
inline bool fuzzJpeg() {
  static const bool on = [] {
    const char* v = std::getenv("MORPHKIT_FUZZ_JPEG");
    return v && std::string_view(v) == "1";
  }();
  return on;
}

inline int textureImage(const uint8_t* data, size_t size) {
  const bool jpeg = size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
  if (jpeg && !fuzzJpeg()) return -1;  // findings F1 and F2, above
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
