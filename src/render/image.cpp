// SPDX-License-Identifier: MIT
// PNG through libspng, JPEG through stb_image (header-only, Debian libstb-dev), contact sheets, image diffs.
#include <spng.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "morphkit/render.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_JPEG
#define STBI_NO_STDIO
#define STBI_NO_HDR
#define STBI_NO_LINEAR
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#endif
#include <stb/stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

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
  spng_set_image_limits(png.ctx, 16384, 16384);
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

Status badJpeg(const std::string& what, size_t at) {
  return fail(Error::kUnsupportedExtension, "decodeImage: JPEG: " + what + " (byte " + std::to_string(at) + ")");
}

// Debian's stb_image (2.27) trusts two things a JPEG can lie about; fuzzing found both (tests/fuzz/crashers/
// fuzz_image/README.md): a DHT table's code counts (more than 256 codes are written past its arrays, F1) and a
// scan's table selectors (a table no DHT defined is read from uninitialized memory, F2). stb_image 2.28 checks
// both; this walk of the segments refuses them before stb_image sees the file.
Status checkJpegTables(std::span<const uint8_t> b) {
  bool defined[2][4] = {};  // [DC, AC][table id]
  size_t i = 2;             // after SOI
  while (i + 1 < b.size()) {
    if (b[i] != 0xFF) {  // stray bytes between segments: stb_image skips to the next marker, and so does this walk
      ++i;
      continue;
    }
    const uint8_t marker = b[i + 1];
    if (marker == 0xFF) {  // fill byte
      ++i;
      continue;
    }
    if (marker == 0xD9) return Ok{};                             // EOI
    if ((marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) {  // RSTn, TEM: no length
      i += 2;
      continue;
    }
    if (i + 4 > b.size()) return badJpeg("a segment is cut short", i);
    const size_t length = size_t(b[i + 2]) << 8 | b[i + 3];
    if (length < 2 || i + 2 + length > b.size()) return badJpeg("a segment is longer than the file", i);
    const uint8_t* segment = b.data() + i + 4;
    const size_t n = length - 2;
    if (marker == 0xC4) {  // DHT: one or more tables
      for (size_t p = 0; p < n;) {
        if (p + 17 > n) return badJpeg("a Huffman table is cut short", i);
        const uint8_t table_class = segment[p] >> 4, id = segment[p] & 15;
        if (table_class > 1 || id > 3) return badJpeg("a Huffman table has a bad class or id", i);
        size_t codes = 0;
        for (size_t k = 1; k <= 16; ++k) codes += segment[p + k];
        if (codes > 256)
          return badJpeg("a Huffman table declares " + std::to_string(codes) + " codes (at most 256)", i);
        p += 17 + codes;
        if (p > n) return badJpeg("a Huffman table is cut short", i);
        defined[table_class][id] = true;
      }
    } else if (marker == 0xDA) {  // SOS: every table the scan decodes with must be defined by now
      const size_t components = n >= 1 ? segment[0] : 0;
      if (n < 1 + 2 * components + 3) return badJpeg("a scan header is cut short", i);
      const uint8_t spectral_start = segment[1 + 2 * components], spectral_end = segment[2 + 2 * components];
      for (size_t c = 0; c < components; ++c) {
        const uint8_t dc = segment[2 + 2 * c] >> 4, ac = segment[2 + 2 * c] & 15;
        if (spectral_start == 0 && (dc > 3 || !defined[0][dc])) {
          return badJpeg("a scan uses DC Huffman table " + std::to_string(dc) + ", which no DHT defined", i);
        }
        if (spectral_end > 0 && (ac > 3 || !defined[1][ac])) {
          return badJpeg("a scan uses AC Huffman table " + std::to_string(ac) + ", which no DHT defined", i);
        }
      }
      i += 2 + length;  // then the entropy-coded data, up to the next marker (not a stuffed 0x00 or RSTn)
      while (i + 1 < b.size() && !(b[i] == 0xFF && b[i + 1] != 0 && !(b[i + 1] >= 0xD0 && b[i + 1] <= 0xD7))) ++i;
      continue;
    }
    i += 2 + length;
  }
  return Ok{};
}

}  // namespace

Expected<DecodedImage> decodeImage(std::span<const uint8_t> bytes) {
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kPng, 8) == 0) return decodePng(bytes);
  if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) {
    if (bytes.size() > size_t(INT32_MAX)) return fail(Error::kTooLarge, "decodeImage: JPEG larger than 2 GiB");
    if (Status tables = checkJpegTables(bytes); !tables) return tables.error();
    int w = 0, h = 0, channels = 0;
    if (!stbi_info_from_memory(bytes.data(), int(bytes.size()), &w, &h, &channels) || w <= 0 || h <= 0 || w > 16384 ||
        h > 16384) {
      return fail(Error::kUnsupportedExtension, "decodeImage: JPEG header not understood");
    }
    stbi_uc* pixels = stbi_load_from_memory(bytes.data(), int(bytes.size()), &w, &h, &channels, 4);
    if (!pixels) {
      return fail(Error::kUnsupportedExtension, std::string("decodeImage: JPEG: ") + stbi_failure_reason());
    }
    DecodedImage image;
    image.width = uint32_t(w);
    image.height = uint32_t(h);
    image.rgba.assign(pixels, pixels + size_t(w) * h * 4);
    stbi_image_free(pixels);
    return image;
  }
  return fail(Error::kUnsupportedExtension, "decodeImage: neither PNG nor JPEG");
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

}  // namespace morphkit
