// SPDX-License-Identifier: MIT
// The texture pass's image work (pass_textures.cpp, docs/OPTIMIZE.md "Textures"): resampling by role, the WebP and
// KTX2 (basisu) encodings with their decoded result, and GPU memory. Private to morphkit::optimize.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "morphkit/image/image.h"
#include "morphkit/model/error.h"

namespace morphkit::optimize_detail {

// What a texture's texels mean, from the material slots that read it: colour is sRGB (base colour, emissive, sheen
// and specular colour); data is linear (occlusion, metallic-roughness, clearcoat, ...); a normal map is linear
// unit vectors in RGB. Where slots disagree, the stricter wins (normal over data over colour).
enum class TextureRole : uint8_t { kColour, kData, kNormal };
const char* textureRoleName(TextureRole role);  // "colour", "data", "normal"

// `image` resampled so that its larger side is `largest` (the aspect kept, each side at least 1): a separable tent
// filter as wide as the scale, in linear light for colour (sRGB decoded, filtered, encoded), the normal map's
// vectors renormalized. An image no larger comes back unchanged.
DecodedImage resampleTexture(const DecodedImage& image, uint32_t largest, TextureRole role);

// One encoding of a texture and what a reader decodes from it.
struct EncodedTexture {
  std::vector<uint8_t> bytes;
  std::string format;      // "webp", "webp-near-lossless", "webp-lossless", "ktx2-etc1s", "ktx2-uastc"
  std::string setting;     // the encoder setting: "lossy q70", "near-lossless 20 (±8)", "uastc level 2, mipmaps"
  std::string tried;       // every setting tried, with its PSNR and bytes, and any skipped for a reason
  std::string mime_type;   // "image/webp", "image/ktx2"
  DecodedImage decoded;    // the top level as a reader gets it (KTX2: transcoded to BC7), the stored size
  uint64_t gpu_bytes = 0;  // GPU memory with a full mip chain
  bool has_mips = false;   // the file holds its mip chain (KTX2)
};

// WebP through libwebp, decoded back in process with decodeImage: of the settings its role allows, the smallest
// whose decoded result is at least `min_psnr` dB from `image`, else the last one tried (docs/OPTIMIZE.md,
// "Textures", has the measurements behind each step):
// - colour: lossy quality 70, 80, 90, 95, the first that passes;
// - data (lossy 70, 80, 90, 100) and normal maps (lossy 50, 60, 70, 80, 90, 100 with sharp YUV): lossy only where
//   chromaCeilingPsnr comes within 1 dB (normal maps: 3 dB) of min_psnr, the top quality first and the rest only
//   if it passes; then near-lossless, starting at the most aggressive level whose worst case
//   20·log10(255 / bound) is within 6 dB of min_psnr, one level more aggressive while the margin exceeds 5 dB,
//   less aggressive while it misses; lossless last.
Expected<EncodedTexture> encodeWebpTexture(const DecodedImage& image, TextureRole role, double min_psnr);

// The RGB PSNR of `image` after lossy WebP's colour conversion alone (BT.601 luma, chroma averaged over 2×2
// texels, back to RGB): about the best lossy WebP can do on it at any quality (quality 100 decodes within 0.2 dB
// of it on the demo's normal and data maps), so a texture far below the threshold here skips the lossy trials.
double chromaCeilingPsnr(const DecodedImage& image);

// KTX2 through the basisu program at `basisu`: ETC1S for colour (sRGB), UASTC for data and normal maps (linear),
// with mipmaps; decoded back by `basisu -unpack` (its BC7 transcode of level 0, what a desktop GPU samples). The
// work happens in a private temporary folder removed before returning. `where` names the image in messages.
Expected<EncodedTexture> encodeKtx2Texture(const DecodedImage& image, TextureRole role,
                                           const std::filesystem::path& basisu, const std::string& where);

// GPU memory of a width × height texture with its full mip chain: RGBA8 (4 bytes a texel), or 4×4 blocks of
// `block_bytes` (8: BC1/ETC1, 16: BC3/BC7/ASTC 4×4).
uint64_t rgba8MipBytes(uint32_t width, uint32_t height);
uint64_t blockMipBytes(uint32_t width, uint32_t height, uint32_t block_bytes);

}  // namespace morphkit::optimize_detail
