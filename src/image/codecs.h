// SPDX-License-Identifier: MIT
// Between the image layer's codec files (not part of the public API): the shared cap and the decoders that
// decodeImage picks by signature.
#pragma once
#include <cstdint>
#include <span>

#include "morphkit/image/image.h"

namespace morphkit {

// Every decoder refuses a larger image before it allocates the pixels (docs/SECURITY.md): 16384² RGBA8 is 1 GiB.
constexpr uint32_t kMaxImageSide = 16384;

// webp.cpp: the RIFF/WEBP signature, and the decoder (still images only, the cap checked on the header first).
bool isWebp(std::span<const uint8_t> bytes);
Expected<DecodedImage> decodeWebp(std::span<const uint8_t> bytes);

}  // namespace morphkit
