// SPDX-License-Identifier: MIT
// PNG through libspng, JPEG through libjpeg-turbo (Debian libjpeg62-turbo-dev), decodeImage by signature (WebP in
// webp.cpp), contact sheets, image diffs and a codec's error (PSNR).
// clang-format off
#include <cstdio>  // jpeglib.h uses FILE and size_t without including their headers
#include <jpeglib.h>
#include <jerror.h>
// clang-format on
#include "codecs.h"

#include <spng.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "morphkit/image/image.h"

namespace morphkit {
namespace {

struct SpngContext {
  spng_ctx* ctx;
  explicit SpngContext(int flags) : ctx(spng_ctx_new(flags)) {}
  ~SpngContext() { spng_ctx_free(ctx); }
  SpngContext(const SpngContext&) = delete;
  SpngContext& operator=(const SpngContext&) = delete;
};

Failure spngFailure(const char* where, int code) {
  return fail(Error::kIo, std::string(where) + ": " + spng_strerror(code));
}

}  // namespace

const char* pngCompressionName(PngCompression compression) {
  return compression == PngCompression::kFast ? "fast" : "small";
}

std::optional<PngCompression> parsePngCompression(std::string_view text) {
  if (text == "fast") return PngCompression::kFast;
  if (text == "small") return PngCompression::kSmall;
  return std::nullopt;
}

Expected<std::vector<uint8_t>> encodePng(std::span<const uint8_t> rgba, uint32_t width, uint32_t height,
                                         PngCompression compression) {
  if (width == 0 || height == 0 || rgba.size() != size_t(width) * height * 4) {
    return fail(Error::kInvalidArgument, "encodePng: " + std::to_string(rgba.size()) + " bytes for " +
                                             std::to_string(width) + "×" + std::to_string(height) + " RGBA8");
  }
  SpngContext png(SPNG_CTX_ENCODER);
  if (!png.ctx) return fail(Error::kOutOfMemory, "encodePng: spng_ctx_new failed");
  spng_set_option(png.ctx, SPNG_ENCODE_TO_BUFFER, 1);
  if (compression == PngCompression::kFast) {
    // Measured on rendered frames: the adaptive filter choice and level 6 cost 5× the time of these settings.
    spng_set_option(png.ctx, SPNG_IMG_COMPRESSION_LEVEL, 1);
    spng_set_option(png.ctx, SPNG_IMG_COMPRESSION_STRATEGY, 3);  // zlib's Z_RLE
    spng_set_option(png.ctx, SPNG_FILTER_CHOICE, SPNG_FILTER_CHOICE_UP);
  }
  spng_ihdr ihdr{};
  ihdr.width = width;
  ihdr.height = height;
  ihdr.bit_depth = 8;
  ihdr.color_type = SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
  int r = spng_set_ihdr(png.ctx, &ihdr);
  if (r) return spngFailure("encodePng: spng_set_ihdr", r);
  r = spng_encode_image(png.ctx, rgba.data(), rgba.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
  if (r) return spngFailure("encodePng: spng_encode_image", r);
  size_t size = 0;
  int error = 0;
  void* data = spng_get_png_buffer(png.ctx, &size, &error);
  if (!data) return spngFailure("encodePng: spng_get_png_buffer", error);
  std::vector<uint8_t> out(static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
  std::free(data);  // spng allocates the buffer with malloc; the caller frees it
  return out;
}

Expected<DecodedImage> decodePng(std::span<const uint8_t> bytes) {
  SpngContext png(0);
  if (!png.ctx) return fail(Error::kOutOfMemory, "decodePng: spng_ctx_new failed");
  // Guard against absurd sizes in a hostile file: 16k × 16k is plenty for textures.
  spng_set_image_limits(png.ctx, kMaxImageSide, kMaxImageSide);
  spng_set_chunk_limits(png.ctx, 64u << 20, 64u << 20);
  int r = spng_set_png_buffer(png.ctx, bytes.data(), bytes.size());
  if (r) return spngFailure("decodePng: spng_set_png_buffer", r);
  spng_ihdr ihdr{};
  r = spng_get_ihdr(png.ctx, &ihdr);
  if (r) return spngFailure("decodePng: spng_get_ihdr", r);
  size_t size = 0;
  r = spng_decoded_image_size(png.ctx, SPNG_FMT_RGBA8, &size);
  if (r) return spngFailure("decodePng: spng_decoded_image_size", r);
  DecodedImage image;
  image.width = ihdr.width;
  image.height = ihdr.height;
  image.rgba.resize(size);
  r = spng_decode_image(png.ctx, image.rgba.data(), size, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS);
  if (r) return spngFailure("decodePng: spng_decode_image", r);
  return image;
}

namespace {

// libjpeg reports errors through a callback that must not return; it jumps back into decodeJpeg. Nothing with a
// destructor lives in the frames it skips (they are libjpeg's own C frames).
struct JpegErrors {
  jpeg_error_mgr base;  // first member: libjpeg hands back a jpeg_error_mgr*
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jpegErrorExit(j_common_ptr cinfo) {
  auto* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
  errors->base.format_message(cinfo, errors->message);
  std::longjmp(errors->jump, 1);
}

// Warnings (corrupt or truncated entropy data) are errors too: libjpeg would go on decoding filler, which for a
// truncated 16384 x 16384 header is a gigabyte of nothing. The renderer then draws without the texture and says so.
// Extraneous bytes between segments are the one warning that loses nothing; cameras write them.
void jpegWarningIsError(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code != JWRN_EXTRANEOUS_DATA) jpegErrorExit(cinfo);
}

constexpr long kJpegWorkingMemory = 1L << 30;  // a progressive 16384^2 4:2:0 file's coefficients (805 MB) fit

// libjpeg-turbo rather than stb_image: Debian's stb_image 2.27 writes and reads out of bounds on malformed
// tables (fuzz findings F1, F2, F3 in docs/SECURITY.md); libjpeg-turbo is fuzzed continuously upstream.
Expected<DecodedImage> decodeJpeg(std::span<const uint8_t> bytes) {
  auto image = std::make_unique<DecodedImage>();  // heap: its state stays defined across the longjmp
  jpeg_decompress_struct cinfo{};
  JpegErrors errors{};
  cinfo.err = jpeg_std_error(&errors.base);
  errors.base.error_exit = jpegErrorExit;
  errors.base.emit_message = jpegWarningIsError;
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return fail(Error::kUnsupportedExtension, std::string("decodeImage: JPEG: ") + errors.message);
  }
  jpeg_create_decompress(&cinfo);
  cinfo.mem->max_memory_to_use = kJpegWorkingMemory;
  jpeg_mem_src(&cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.image_width > kMaxImageSide || cinfo.image_height > kMaxImageSide) {
    const std::string size = std::to_string(cinfo.image_width) + " x " + std::to_string(cinfo.image_height);
    jpeg_destroy_decompress(&cinfo);
    return fail(Error::kTooLarge,
                "decodeImage: JPEG of " + size + " pixels (at most " + std::to_string(kMaxImageSide) + " on a side)");
  }
  cinfo.out_color_space = JCS_EXT_RGBA;  // libjpeg-turbo converts grayscale and YCbCr to RGBA itself
  jpeg_start_decompress(&cinfo);
  image->width = cinfo.output_width;
  image->height = cinfo.output_height;
  const size_t stride = size_t(cinfo.output_width) * 4;
  image->rgba.resize(stride * cinfo.output_height);
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = image->rgba.data() + stride * cinfo.output_scanline;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return std::move(*image);
}

}  // namespace

Expected<DecodedImage> decodeImage(std::span<const uint8_t> bytes) {
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPng, 8) == 0) return decodePng(bytes);
  if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) {
    if (bytes.size() > size_t(INT32_MAX)) return fail(Error::kTooLarge, "decodeImage: JPEG larger than 2 GiB");
    return decodeJpeg(bytes);
  }
  if (isWebp(bytes)) return decodeWebp(bytes);
  return fail(Error::kUnsupportedExtension, "decodeImage: not PNG, JPEG or WebP");
}

RenderedImage downscaleImage(const RenderedImage& frame, uint32_t cell_width) {
  RenderedImage cell;
  const uint32_t fw = frame.width, fh = frame.height;
  if (fw == 0 || fh == 0 || cell_width == 0 || frame.rgba.size() != size_t(fw) * fh * 4) return cell;
  const uint32_t cw = std::min(cell_width, fw);
  const uint32_t ch = std::max<uint32_t>(1, uint32_t(uint64_t(fh) * cw / fw));
  cell.width = cw;
  cell.height = ch;
  cell.rgba.resize(size_t(cw) * ch * 4);
  // Box filter: each cell pixel averages the source pixels it covers (at least one), rounded to nearest.
  for (uint32_t y = 0; y < ch; ++y) {
    const uint32_t y0 = uint32_t(uint64_t(y) * fh / ch), y1 = std::max(y0 + 1, uint32_t(uint64_t(y + 1) * fh / ch));
    for (uint32_t x = 0; x < cw; ++x) {
      const uint32_t x0 = uint32_t(uint64_t(x) * fw / cw), x1 = std::max(x0 + 1, uint32_t(uint64_t(x + 1) * fw / cw));
      uint32_t sum[4] = {0, 0, 0, 0};
      for (uint32_t sy = y0; sy < y1; ++sy) {
        for (uint32_t sx = x0; sx < x1; ++sx) {
          for (int c = 0; c < 4; ++c) sum[c] += frame.rgba[(size_t(sy) * fw + sx) * 4 + c];
        }
      }
      const uint32_t n = (y1 - y0) * (x1 - x0);
      uint8_t* dst = &cell.rgba[(size_t(y) * cw + x) * 4];
      for (int c = 0; c < 4; ++c) dst[c] = uint8_t((sum[c] + n / 2) / n);
    }
  }
  return cell;
}

DecodedImage makeContactSheet(std::span<const RenderedImage> frames, uint32_t columns, uint32_t cell_width,
                              std::array<uint8_t, 4> fill) {
  DecodedImage sheet;
  if (frames.empty() || columns == 0 || cell_width == 0 || frames[0].width == 0 || frames[0].height == 0) return sheet;
  const uint32_t fw = frames[0].width, fh = frames[0].height;
  const uint32_t cw = std::min(cell_width, fw);
  const uint32_t ch = std::max<uint32_t>(1, uint32_t(uint64_t(fh) * cw / fw));
  columns = std::min<uint32_t>(columns, uint32_t(frames.size()));
  const uint32_t rows = uint32_t((frames.size() + columns - 1) / columns);
  sheet.width = cw * columns;
  sheet.height = ch * rows;
  sheet.rgba.resize(size_t(sheet.width) * sheet.height * 4);
  for (size_t i = 0; i < sheet.rgba.size(); i += 4) std::memcpy(&sheet.rgba[i], fill.data(), 4);
  for (size_t f = 0; f < frames.size(); ++f) {
    const RenderedImage& frame = frames[f];
    if (frame.width != fw || frame.height != fh || frame.rgba.size() != size_t(fw) * fh * 4) continue;
    // A frame already cell-sized (downscaleImage) is copied as it is: the box filter at scale 1 is the identity.
    const RenderedImage cell = downscaleImage(frame, cw);
    const uint32_t ox = uint32_t(f % columns) * cw, oy = uint32_t(f / columns) * ch;
    for (uint32_t y = 0; y < ch; ++y) {
      std::memcpy(&sheet.rgba[(size_t(oy + y) * sheet.width + ox) * 4], &cell.rgba[size_t(y) * cw * 4], size_t(cw) * 4);
    }
  }
  return sheet;
}

Expected<ImageDiff> diffImages(const DecodedImage& a, const DecodedImage& b, uint32_t threshold) {
  if (a.width != b.width || a.height != b.height || a.rgba.size() != b.rgba.size() ||
      a.rgba.size() != size_t(a.width) * a.height * 4) {
    return fail(Error::kInvalidArgument, "diffImages: " + std::to_string(a.width) + "×" + std::to_string(a.height) +
                                             " vs " + std::to_string(b.width) + "×" + std::to_string(b.height));
  }
  ImageDiff diff;
  diff.diff.width = a.width;
  diff.diff.height = a.height;
  diff.diff.rgba.resize(a.rgba.size());
  uint64_t sum = 0, over = 0;
  const size_t pixels = size_t(a.width) * a.height;
  for (size_t p = 0; p < pixels; ++p) {
    uint32_t largest = 0;
    for (int c = 0; c < 4; ++c) {
      const uint32_t d = uint32_t(std::abs(int(a.rgba[p * 4 + c]) - int(b.rgba[p * 4 + c])));
      sum += d;
      largest = std::max(largest, d);
      diff.diff.rgba[p * 4 + c] = c == 3 ? 255 : uint8_t(std::min<uint32_t>(255, d * 4));
    }
    diff.max_abs = std::max(diff.max_abs, largest);
    if (largest > threshold) ++over;
  }
  diff.mean_abs = pixels ? double(sum) / double(pixels * 4) : 0.0;
  diff.fraction_over = pixels ? double(over) / double(pixels) : 0.0;
  return diff;
}

namespace {

double psnrOf(uint64_t squared_sum, uint64_t samples) {
  if (squared_sum == 0 || samples == 0) return std::numeric_limits<double>::infinity();
  const double mse = double(squared_sum) / double(samples);
  return 10.0 * std::log10(255.0 * 255.0 / mse);
}

}  // namespace

Expected<ImageError> measureImageError(const DecodedImage& reference, const DecodedImage& candidate) {
  const size_t pixels = size_t(reference.width) * reference.height;
  if (reference.width != candidate.width || reference.height != candidate.height ||
      reference.rgba.size() != pixels * 4 || candidate.rgba.size() != pixels * 4) {
    return fail(Error::kInvalidArgument, "measureImageError: " + std::to_string(reference.width) + "×" +
                                             std::to_string(reference.height) + " vs " +
                                             std::to_string(candidate.width) + "×" + std::to_string(candidate.height));
  }
  uint64_t rgb = 0, alpha = 0;
  uint32_t largest = 0;
  for (size_t i = 0; i < pixels * 4; ++i) {
    const uint32_t d = uint32_t(std::abs(int(reference.rgba[i]) - int(candidate.rgba[i])));
    largest = std::max(largest, d);
    (i % 4 == 3 ? alpha : rgb) += uint64_t(d) * d;
  }
  ImageError error;
  error.psnr_rgb = psnrOf(rgb, pixels * 3);
  error.psnr_alpha = psnrOf(alpha, pixels);
  error.psnr = std::min(error.psnr_rgb, error.psnr_alpha);
  error.max_abs = largest;
  return error;
}

Expected<PixelDifference> measurePixelDifference(std::span<const uint8_t> a, std::span<const uint8_t> b, uint32_t width,
                                                 uint32_t height) {
  const size_t pixels = size_t(width) * height;
  if (a.size() != pixels * 4 || b.size() != pixels * 4) {
    return fail(Error::kInvalidArgument, "measurePixelDifference: " + std::to_string(a.size()) + " and " +
                                             std::to_string(b.size()) + " bytes for " + std::to_string(width) + "×" +
                                             std::to_string(height) + " RGBA8 pixels");
  }
  // Differences are integers 0-255: a histogram gives the percentile exactly, without sorting the frame.
  std::array<uint64_t, 256> histogram{};
  uint64_t sum = 0;
  for (size_t p = 0; p < pixels; ++p) {
    uint32_t d = 0;
    for (size_t c = 0; c < 3; ++c) d = std::max(d, uint32_t(std::abs(int(a[4 * p + c]) - int(b[4 * p + c]))));
    ++histogram[d];
    sum += d;
  }
  PixelDifference result;
  if (pixels == 0) return result;
  result.mean_abs = double(sum) / double(pixels);
  const uint64_t rank = (pixels * 99 + 99) / 100;  // ceil(0.99 · pixels): nearest rank
  uint64_t seen = 0;
  bool found = false;
  for (uint32_t v = 0; v < 256; ++v) {
    seen += histogram[v];
    if (!found && seen >= rank) {
      result.p99 = v;
      found = true;
    }
    if (histogram[v] > 0) result.max = v;
  }
  return result;
}

void addFrameDifference(RenderDifference& into, std::string label, const PixelDifference& difference) {
  into.worst_mean = std::max(into.worst_mean, difference.mean_abs);
  into.worst_p99 = std::max(into.worst_p99, difference.p99);
  into.worst_max = std::max(into.worst_max, difference.max);
  into.frames.push_back({std::move(label), difference});
}

}  // namespace morphkit
