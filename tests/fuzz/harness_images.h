// SPDX-License-Identifier: MIT
// The harness bodies for the image layer's file readers (contract: harnesses.h): Radiance .hdr environments and
// texture images. They link morphkit::image alone (no GPU).
#pragma once
#include <cstdint>
#include <span>

#include "morphkit/image/hdr.h"
#include "morphkit/image/image.h"

namespace morphkit::fuzz {

// `render --environment FILE.hdr` and a batch job's "environment": the RGBE header, resolution line, flat and
// run-length scanlines, the caps.
inline int radianceHdr(const uint8_t* data, size_t size) {
  (void)decodeRadianceHdr(std::span<const uint8_t>(data, size));
  return 0;
}

// glTF images as the renderer decodes them for its materials (materials.cpp → decodeImage): PNG through libspng,
// JPEG through libjpeg-turbo, WebP (EXT_texture_webp) through libwebp, by signature, with the 16384 × 16384 cap. The
// three stb_image 2.27 memory errors this harness found (tests/fuzz/crashers/fuzz_image/README.md, F1-F3) are why JPEG
// no longer goes through stb_image.
inline int textureImage(const uint8_t* data, size_t size) {
  (void)decodeImage(std::span<const uint8_t>(data, size));
  return 0;
}

}  // namespace morphkit::fuzz
