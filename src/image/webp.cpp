// SPDX-License-Identifier: MIT
// WebP through libwebp (Debian libwebp-dev): decodeImage's WebP branch and encodeWebp, the EXT_texture_webp codec.
#include <webp/decode.h>
#include <webp/encode.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "codecs.h"
#include "morphkit/image/image.h"

namespace morphkit {
namespace {

const char* webpStatusText(VP8StatusCode status) {
  switch (status) {
    case VP8_STATUS_OK:
      return "ok";
    case VP8_STATUS_OUT_OF_MEMORY:
      return "out of memory";
    case VP8_STATUS_INVALID_PARAM:
      return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR:
      return "corrupt bitstream";
    case VP8_STATUS_UNSUPPORTED_FEATURE:
      return "unsupported feature";
    case VP8_STATUS_SUSPENDED:
      return "suspended";
    case VP8_STATUS_USER_ABORT:
      return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA:
      return "truncated (not enough data)";
  }
  return "unknown error";
}

const char* webpEncodeErrorText(WebPEncodingError error) {
  switch (error) {
    case VP8_ENC_OK:
      return "ok";
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY:
      return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION:
      return "bad dimension";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
    case VP8_ENC_ERROR_PARTITION_OVERFLOW:
      return "partition overflow (lower the quality)";
    default:
      return "encoder error";
  }
}

// WebPMemoryWriter's buffer freed whatever path leaves encodeWebp.
struct WebpWriter {
  WebPMemoryWriter writer;
  WebpWriter() { WebPMemoryWriterInit(&writer); }
  ~WebpWriter() { WebPMemoryWriterClear(&writer); }
  WebpWriter(const WebpWriter&) = delete;
  WebpWriter& operator=(const WebpWriter&) = delete;
};

struct WebpPicture {
  WebPPicture picture;
  bool ok;
  WebpPicture() : ok(WebPPictureInit(&picture) != 0) {}
  ~WebpPicture() { WebPPictureFree(&picture); }
  WebpPicture(const WebpPicture&) = delete;
  WebpPicture& operator=(const WebpPicture&) = delete;
};

}  // namespace

uint32_t webpNearLosslessBound(int level) {
  // libwebp's near-lossless (src/enc/near_lossless_enc.c, predictor_enc.c): 5 − level/20 bits of quantization,
  // each value rounded to the nearest step, so half a step at most.
  if (level >= 100) return 0;
  return 1u << (4 - std::max(0, level) / 20);
}

bool isWebp(std::span<const uint8_t> bytes) {
  // RIFF container (WebP container specification, "RIFF Header"): "RIFF", a 32-bit size, "WEBP".
  return bytes.size() >= 12 && std::memcmp(bytes.data(), "RIFF", 4) == 0 &&
         std::memcmp(bytes.data() + 8, "WEBP", 4) == 0;
}

Expected<DecodedImage> decodeWebp(std::span<const uint8_t> bytes) {
  WebPBitstreamFeatures features{};
  const VP8StatusCode status = WebPGetFeatures(bytes.data(), bytes.size(), &features);
  if (status != VP8_STATUS_OK) {
    return fail(Error::kIo, std::string("decodeImage: WebP: ") + webpStatusText(status));
  }
  // The cap before the pixels are allocated: an animated file's VP8X canvas may declare up to 2^24 on a side.
  if (features.width <= 0 || features.height <= 0 || uint32_t(features.width) > kMaxImageSide ||
      uint32_t(features.height) > kMaxImageSide) {
    return fail(Error::kTooLarge, "decodeImage: WebP of " + std::to_string(features.width) + " x " +
                                      std::to_string(features.height) + " pixels (at most " +
                                      std::to_string(kMaxImageSide) + " on a side)");
  }
  // EXT_texture_webp images are still images; a texture has no frame to pick from an animation.
  if (features.has_animation) return fail(Error::kIo, "decodeImage: WebP: animated WebP is not a texture");
  DecodedImage image;
  image.width = uint32_t(features.width);
  image.height = uint32_t(features.height);
  const size_t stride = size_t(image.width) * 4;
  image.rgba.resize(stride * image.height);
  // Non-premultiplied RGBA as glTF stores it, into our buffer; an image without alpha decodes with alpha 255.
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) return fail(Error::kIo, "decodeImage: WebP: libwebp version mismatch");
  config.output.colorspace = MODE_RGBA;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = image.rgba.data();
  config.output.u.RGBA.stride = int(stride);
  config.output.u.RGBA.size = image.rgba.size();
  const VP8StatusCode decoded = WebPDecode(bytes.data(), bytes.size(), &config);
  WebPFreeDecBuffer(&config.output);  // external memory: libwebp frees only its own bookkeeping
  if (decoded != VP8_STATUS_OK) {
    return fail(Error::kIo, std::string("decodeImage: WebP: ") + webpStatusText(decoded));
  }
  return image;
}

Expected<std::vector<uint8_t>> encodeWebp(std::span<const uint8_t> rgba, uint32_t width, uint32_t height,
                                          const WebpOptions& options) {
  const std::string size = std::to_string(width) + "×" + std::to_string(height);
  if (width == 0 || height == 0 || rgba.size() != size_t(width) * height * 4) {
    return fail(Error::kInvalidArgument,
                "encodeWebp: " + std::to_string(rgba.size()) + " bytes for " + size + " RGBA8");
  }
  if (width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
    return fail(Error::kInvalidArgument,
                "encodeWebp: " + size + " (WebP holds at most " + std::to_string(WEBP_MAX_DIMENSION) + " on a side)");
  }
  if (!(options.quality >= 0.0f && options.quality <= 100.0f)) {
    return fail(Error::kInvalidArgument, "encodeWebp: quality " + std::to_string(options.quality) + " (0 to 100)");
  }
  if (options.method < 0 || options.method > 6) {
    return fail(Error::kInvalidArgument, "encodeWebp: method " + std::to_string(options.method) + " (0 to 6)");
  }
  if (options.near_lossless < 0 || options.near_lossless > 100) {
    return fail(Error::kInvalidArgument,
                "encodeWebp: near_lossless " + std::to_string(options.near_lossless) + " (0 to 100)");
  }
  WebPConfig config;
  if (!WebPConfigInit(&config)) return fail(Error::kInvalidArgument, "encodeWebp: libwebp version mismatch");
  config.lossless = options.lossless ? 1 : 0;
  config.quality = options.quality;  // lossless: the effort spent on a smaller file, the pixels are the same
  config.method = options.method;
  config.near_lossless = options.lossless ? options.near_lossless : 100;
  config.use_sharp_yuv = options.sharp_yuv && !options.lossless ? 1 : 0;
  WebpPicture picture;
  if (!picture.ok) return fail(Error::kInvalidArgument, "encodeWebp: libwebp version mismatch");
  picture.picture.use_argb = 1;  // lossless needs ARGB; lossy converts to YUV itself
  picture.picture.width = int(width);
  picture.picture.height = int(height);
  if (!WebPPictureImportRGBA(&picture.picture, rgba.data(), int(width * 4))) {
    return fail(Error::kOutOfMemory, "encodeWebp: " + size + ": out of memory");
  }
  // RGB under alpha 0 kept: glTF textures may use alpha for something other than coverage. libwebp's `exact` also
  // turns off near-lossless on the predictor's residuals (predictor_enc.c), so an opaque image (nothing under
  // alpha 0 to keep) goes without it.
  config.exact = config.near_lossless < 100 && !WebPPictureHasTransparency(&picture.picture) ? 0 : 1;
  if (!WebPValidateConfig(&config)) return fail(Error::kInvalidArgument, "encodeWebp: invalid settings");
  WebpWriter writer;
  picture.picture.writer = WebPMemoryWrite;
  picture.picture.custom_ptr = &writer.writer;
  if (!WebPEncode(&config, &picture.picture)) {
    return fail(Error::kIo, "encodeWebp: " + size + ": " + webpEncodeErrorText(picture.picture.error_code));
  }
  return std::vector<uint8_t>(writer.writer.mem, writer.writer.mem + writer.writer.size);
}

}  // namespace morphkit
