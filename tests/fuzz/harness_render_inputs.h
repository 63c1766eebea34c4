// SPDX-License-Identifier: MIT
// The harness bodies for the file inputs of the render and batch layers (contract: harnesses.h): Radiance .hdr
// environments, texture images, batch job files. Apart because their headers belong to those layers. The fuzz
// preset builds neither layer (they need the renderer's pipelines and shaders); the harnesses link only the
// readers' own sources (tests/fuzz/CMakeLists.txt, morphkit_fuzz_render_inputs), which need no Vulkan.
#pragma once
#include <cstdint>
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

// Finding F1 of fuzz_image (issue 46; tests/fuzz/findings/fuzz_image/README.md): Debian's stb_image 2.27 builds a
// JPEG Huffman table from its DHT segment's 16 code counts without checking that they sum to at most 256, and
// writes past its size[257] and values[256] arrays inside the heap-allocated decoder state (stb_image 2.28 refuses
// such a segment). decodeImage (src/render/image.cpp, owned by the render work) hands JPEG bytes to stb_image as
// they are; until it refuses such a table itself, the harness leaves these inputs out, so that the rest of the
// JPEG and PNG paths keep being fuzzed. stb_image skips bytes between markers and reads DHT segments between scans
// too, so every FF C4 of a JPEG counts (an over-approximation: entropy-coded data stuffs FF as FF 00); true when one
// of its tables declares more than 256 codes (bytes past the end read as 0, as stb_image reads them).
inline bool jpegHuffmanCountsOverflow(std::span<const uint8_t> bytes) {
  if (bytes.size() < 2 || bytes[0] != 0xFF || bytes[1] != 0xD8) return false;
  auto at = [&](size_t i) -> uint32_t { return i < bytes.size() ? bytes[i] : 0u; };
  for (size_t p = 2; p + 1 < bytes.size(); ++p) {
    if (bytes[p] != 0xFF || bytes[p + 1] != 0xC4) continue;
    const size_t length = (at(p + 2) << 8) | at(p + 3);
    const size_t end = p + 2 + length;
    size_t q = p + 4;
    do {  // each table: class/id byte, 16 counts, the values
      uint32_t codes = 0;
      for (size_t i = 0; i < 16; ++i) codes += at(q + 1 + i);
      if (codes > 256) return true;
      q += 17 + codes;
    } while (q < end && q < bytes.size());
  }
  return false;
}

// glTF images as the renderer decodes them for its materials (materials.cpp → decodeImage): PNG through libspng,
// JPEG through stb_image, by signature, with the 16384 × 16384 cap.
inline int textureImage(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  if (jpegHuffmanCountsOverflow(bytes)) return -1;  // finding F1, above
  (void)decodeImage(bytes);
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
