// SPDX-License-Identifier: MIT
// morphkit/image/image.h — images on the CPU (morphkit::image): the RGBA8 image type the renderer returns, PNG
// (libspng), JPEG (libjpeg-turbo) and WebP (libwebp) codecs, contact sheets, image diffs and codec error. No GPU: the
// batch, the CLI and Python use these without one. Nothing throws; failures are Expected with "<where>: <what>".
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/model/error.h"

namespace morphkit {

// A rendered frame: RGBA8, sRGB-encoded, rows top to bottom.
struct RenderedImage {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;  // width × height × 4, sRGB, top row first; empty when readback was false
};

// PNG (libspng): RGBA8, 8 bits per channel. decodePng returns RGBA8 whatever the file's color type.
// kFast: zlib level 1, run-length matching, every row filtered by Up: a rendered 1024² frame encodes about 5×
// faster than kSmall (libspng's defaults: level 6, adaptive filters) for a file about 1.3× larger
// (docs/PERFORMANCE.md, "PNG encoding"). The pixels are the same either way.
enum class PngCompression { kFast, kSmall };
const char* pngCompressionName(PngCompression compression);  // "fast", "small"
std::optional<PngCompression> parsePngCompression(std::string_view text);
Expected<std::vector<uint8_t>> encodePng(std::span<const uint8_t> rgba, uint32_t width, uint32_t height,
                                         PngCompression compression = PngCompression::kFast);
struct DecodedImage {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
};
Expected<DecodedImage> decodePng(std::span<const uint8_t> bytes);
// PNG, JPEG or WebP by signature (JPEG through libjpeg-turbo, WebP through libwebp: still images only), RGBA8 out;
// fails with kUnsupportedExtension for other formats, kTooLarge for more than 16384 pixels on a side (checked on
// the header, before the pixels are allocated), and one "decodeImage: <format>: <what>" line for a corrupt or
// truncated file.
Expected<DecodedImage> decodeImage(std::span<const uint8_t> bytes);

// WebP (libwebp), the EXT_texture_webp image format. Lossy: VP8, colour in 4:2:0 YUV, alpha stored losslessly;
// `quality` 0-100 trades size for error. Lossless: VP8L, the same pixels back; `quality` is then the effort spent
// on a smaller file. RGB under alpha 0 is kept either way (a glTF texture's alpha may not be coverage).
struct WebpOptions {
  bool lossless = false;
  float quality = 90.0f;  // 0 to 100
  int method = 4;         // 0 (fastest) to 6 (smallest file): the effort libwebp spends choosing modes
  // Lossless only, 0 to 100 (100: off): near-lossless, which quantizes what the predictor leaves so that no channel
  // of any pixel moves by more than 2^(4 − level/20): 1 at 80-99, 2 at 60, 4 at 40, 8 at 20, 16 at 0 (libwebp
  // picks a smaller step where the neighbours differ less, so smooth areas move less). It needs method ≥ 1 and does
  // nothing where libwebp stores a palette (256 colours or fewer). On an image with alpha below 255, RGB under
  // alpha 0 is kept (libwebp's `exact`), which turns it off wherever libwebp uses its predictor: little is saved.
  int near_lossless = 100;
  // Lossy only: libwebp's iterative RGB to YUV conversion, which picks the chroma that decodes closest to the RGB
  // (slower); plain averaging otherwise.
  bool sharp_yuv = false;
};
// The largest channel difference near-lossless `level` allows (WebpOptions::near_lossless); 0 at 100 (off).
uint32_t webpNearLosslessBound(int level);
// `rgba`: width × height × 4 bytes, top row first, not premultiplied; at most 16383 on a side (WebP's own limit).
// Returns the .webp file's bytes; kInvalidArgument for a size, buffer or quality that cannot work.
Expected<std::vector<uint8_t>> encodeWebp(std::span<const uint8_t> rgba, uint32_t width, uint32_t height,
                                          const WebpOptions& options = {});
// Frames laid out in rows of `columns`, each scaled (downscaleImage) to fit `cell_width`; frames must share a size.
// Frames already downscaled to the cell size give the same sheet as the originals, so a long render keeps only
// small copies of the frames it will show (memory flat in the number of frames).
// Cells no frame fills (the last row's) take `fill` (RGBA8; the CLI passes the background colour).
DecodedImage makeContactSheet(std::span<const RenderedImage> frames, uint32_t columns, uint32_t cell_width,
                              std::array<uint8_t, 4> fill = {0, 0, 0, 255});
// A box-filtered copy min(cell_width, width) wide, the height scaled to keep the aspect (at least 1 row); an
// empty image for an empty or inconsistent frame. A frame already that size comes back unchanged.
RenderedImage downscaleImage(const RenderedImage& frame, uint32_t cell_width);

// Image comparison for goldens: per-channel absolute differences (RGB and A), in units of 1/255.
struct ImageDiff {
  double mean_abs = 0;       // mean over every channel of every pixel
  double fraction_over = 0;  // fraction of pixels whose largest channel difference exceeds `threshold`
  uint32_t max_abs = 0;
  DecodedImage diff;  // |a − b| × 4 per channel, alpha 255 (for the failure PNG)
};
// Fails (kInvalidArgument) when the sizes differ.
Expected<ImageDiff> diffImages(const DecodedImage& a, const DecodedImage& b, uint32_t threshold);

// A codec's error against the original (a stored texture against its input, at the same size). PSNR in dB,
// 10·log10(255² / MSE): of R, G and B together, and of A alone, so an opaque image's constant alpha does not
// dilute its colour error; +infinity where the channels are identical.
struct ImageError {
  double psnr_rgb = 0;
  double psnr_alpha = 0;
  double psnr = 0;       // the lower of the two: what a threshold is held against
  uint32_t max_abs = 0;  // the largest difference of any channel of any pixel, in 1/255
};
// Fails (kInvalidArgument) when the sizes differ or a buffer is not width × height × 4.
Expected<ImageError> measureImageError(const DecodedImage& reference, const DecodedImage& candidate);

// What a viewer sees change between two renders of one scene (docs/OPTIMIZE.md, "What the user sees"). Per pixel, the
// largest of its R, G and B differences (0-255, sRGB-encoded values as displayed; alpha ignored: a render is opaque):
// the mean of that over the image, its 99th percentile (nearest rank: the smallest value at least 99 % of the pixels
// do not exceed) and its largest value. A percentile, not a mean alone, because a change confined to a few pixels
// (an edge that moved, a texture's seam) vanishes into an average over a frame mostly background.
struct PixelDifference {
  double mean_abs = 0;  // 0-255
  uint32_t p99 = 0;     // 0-255
  uint32_t max = 0;     // 0-255
};
// `a`, `b`: width × height × 4 bytes each (RGBA8); fails (kInvalidArgument) otherwise.
Expected<PixelDifference> measurePixelDifference(std::span<const uint8_t> a, std::span<const uint8_t> b, uint32_t width,
                                                 uint32_t height);

// Pairs of renders compared frame by frame (morphkit/render/render_compare.h compareRenders; optimize's report carries
// one as renderDiff): each frame's PixelDifference under its label, and the worst frame's mean and 99th percentile.
struct LabelledDifference {
  std::string label;  // what the frame shows ("rest", "meshes[0] target 3 'jawOpen' alone at weight 1", ...)
  PixelDifference difference;
};
struct RenderDifference {
  uint32_t width = 0, height = 0;  // of every frame
  std::vector<LabelledDifference> frames;
  double worst_mean = 0;   // the largest frames[].difference.mean_abs
  uint32_t worst_p99 = 0;  // the largest frames[].difference.p99
  uint32_t worst_max = 0;  // the largest frames[].difference.max
  // What the candidate's renderer could not draw and the reference's could (a KTX2 texture morphkit has no
  // transcoder for, drawn with its factors): a difference that measures the renderer, not the file.
  std::vector<std::string> warnings;
};
// Appends a frame and keeps the worst_* fields the largest over every frame.
void addFrameDifference(RenderDifference& into, std::string label, const PixelDifference& difference);

}  // namespace morphkit
