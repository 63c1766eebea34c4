// SPDX-License-Identifier: MIT
// Band-texture path's weights uniform as a pure function (no device needed; the band texture's tests are in
// pack_test.cpp), the morph-path rule, camera parsing, PNG round trips, contact sheets and the image metric the goldens
// use.
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

#include "morphkit/render/render.h"
#include "test_support.h"

namespace morphkit {
namespace {

TEST(MorphUniform, PerFrameUpdateWritesOnlyTheFirst16Bytes) {
  auto layout = morphTextureLayout(300, 3, 2, 128);
  ASSERT_TRUE(layout.ok());
  uint8_t bytes[40];
  std::memset(bytes, 0xCD, sizeof bytes);  // poison: unwritten bytes show
  const float initial[3] = {0.25f, 0.5f, 0.75f};
  ASSERT_TRUE(initMorphUniform(bytes, *layout, initial));
  float weights[4];
  uint32_t fields[4];
  std::memcpy(weights, bytes, 16);
  std::memcpy(fields, bytes + 16, 16);
  EXPECT_EQ(weights[0], 0.25f);
  EXPECT_EQ(weights[2], 0.75f);
  EXPECT_EQ(weights[3], 0.0f);
  EXPECT_EQ(fields[0], 3u);    // count
  EXPECT_EQ(fields[1], 128u);  // texWidth
  EXPECT_EQ(fields[2], 3u);    // rowsPerBand = ceil(300 / 128)
  EXPECT_EQ(fields[3], 0u);    // pad
  EXPECT_EQ(bytes[32], 0xCD);  // nothing past the 32-byte block

  uint8_t before[40];
  std::memcpy(before, bytes, sizeof bytes);
  std::memset(bytes + 16, 0xAB, 24);  // if the update touched bytes 16.., this pattern would change
  const float next[2] = {1.0f, -2.0f};
  ASSERT_TRUE(writeMorphWeights(bytes, next));
  std::memcpy(weights, bytes, 16);
  EXPECT_EQ(weights[0], 1.0f);
  EXPECT_EQ(weights[1], -2.0f);
  EXPECT_EQ(weights[2], 0.0f);
  for (size_t i = 16; i < 40; ++i) ASSERT_EQ(bytes[i], 0xAB) << "byte " << i << " written by the per-frame update";

  const float five[5] = {1, 2, 3, 4, 5};
  EXPECT_FALSE(writeMorphWeights(bytes, five));  // the seed's vec4 holds 4 weights
  EXPECT_FALSE(writeMorphWeights(std::span<uint8_t>(bytes, 16), next));
}

TEST(MorphPath, AutoRule) {
  EXPECT_EQ(chooseMorphPath(1, 0), MorphPath::kVertex);
  EXPECT_EQ(chooseMorphPath(3, 0), MorphPath::kVertex);
  EXPECT_EQ(chooseMorphPath(1, 2), MorphPath::kVertex);
  EXPECT_EQ(chooseMorphPath(1, 4), MorphPath::kVertex);
  EXPECT_EQ(chooseMorphPath(1, 5), MorphPath::kCompute);
  EXPECT_EQ(chooseMorphPath(2, 1), MorphPath::kCompute);
  EXPECT_EQ(chooseMorphPath(3, 52), MorphPath::kCompute);
  EXPECT_EQ(parseMorphPath("vertex"), MorphPath::kVertex);
  EXPECT_EQ(parseMorphPath("compute"), MorphPath::kCompute);
  EXPECT_EQ(parseMorphPath("auto"), MorphPath::kAuto);
  EXPECT_FALSE(parseMorphPath("Vertex").has_value());
}

TEST(RenderCamera, ParseAndFrame) {
  auto c = parseCamera("1,2,3:0,0,0:45");
  ASSERT_TRUE(c.has_value());
  EXPECT_FLOAT_EQ(c->eye.y, 2.0f);
  EXPECT_NEAR(c->yfov, 45.0f * 3.14159265f / 180.0f, 1e-6f);
  EXPECT_FALSE(parseCamera("1,2:0,0,0").has_value());
  EXPECT_FALSE(parseCamera("1,2,3:1,2,3").has_value());  // eye == target
  EXPECT_FALSE(parseCamera("1,2,3:0,0,0:0").has_value());
  EXPECT_FALSE(parseCamera("a,b,c:0,0,0").has_value());

  Bounds b;
  b.min = {-1, -2, -1};
  b.max = {1, 2, 1};
  RenderCamera framed = frameBounds(b, 1.0f);
  // The bounding sphere (radius sqrt(6)) fits the field of view: distance ≥ r / sin(fov/2).
  const float r = std::sqrt(6.0f);
  EXPECT_GE(length(framed.eye - framed.target), r / std::sin(framed.yfov * 0.5f));
  EXPECT_LT(framed.znear, length(framed.eye - framed.target) - r);
  EXPECT_GT(framed.zfar, length(framed.eye - framed.target) + r);
}

TEST(RenderCamera, AutoFramingCentresTheSphereAtEightyFivePercentAndPrintsItself) {
  Bounds b;
  b.min = {-1, -1, -1};
  b.max = {3, 1, 1};
  b.sphere_center = {1.0f, 0.1f, 0.0f};
  b.sphere_radius = 2.1f;  // tighter than the box's sqrt(6)
  for (float aspect : {1.0f, 2.0f, 0.5f}) {
    const RenderCamera c = frameBounds(b, aspect);
    EXPECT_NEAR(c.target.x, 1.0f, 1e-6f);
    EXPECT_NEAR(c.target.y, 0.1f, 1e-6f);
    const float d = length(c.eye - c.target);
    const float half = std::min(c.yfov * 0.5f, std::atan(std::tan(c.yfov * 0.5f) * aspect));
    // The silhouette's half-angle asin(r / d) spans 85 % of the smaller half field's tangent.
    EXPECT_NEAR(std::tan(std::asin(2.1f / d)) / std::tan(half), kFrameFill, 1e-4f) << aspect;
    // cameraText round-trips through parseCamera (render --json prints it as a --camera value).
    auto parsed = parseCamera(cameraText(c));
    ASSERT_TRUE(parsed.has_value()) << cameraText(c);
    EXPECT_NEAR(length(parsed->eye - c.eye), 0.0f, 1e-5f);
    EXPECT_NEAR(length(parsed->target - c.target), 0.0f, 1e-5f);
    EXPECT_NEAR(parsed->yfov, c.yfov, 1e-6f);
    EXPECT_NEAR(parsed->znear, c.znear, 1e-5f);
    EXPECT_NEAR(parsed->zfar, c.zfar, 1e-2f);
  }
  // A sphere looser than the box's (or none) falls back to the box's circumscribed sphere.
  b.sphere_radius = 10.0f;
  EXPECT_NEAR(frameBounds(b, 1.0f).target.x, 1.0f, 1e-6f);
  EXPECT_NEAR(frameBounds(b, 1.0f).target.y, 0.0f, 1e-6f);
}

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
TEST(RenderImages, BrokenJpegsAreOneErrorAndAGoodOneDecodes) {
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

TEST(RenderImages, PngRoundTripAndDiff) {
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
TEST(RenderImages, PngCompressionsKeepThePixels) {
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

TEST(RenderImages, ContactSheet) {
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

}  // namespace
}  // namespace morphkit
