// SPDX-License-Identifier: MIT
// Band-texture path's weights uniform as a pure function (no device needed; the band texture's tests are in
// pack_test.cpp), the morph-path rule and camera parsing. The image codecs' tests are in tests/image/image_test.cpp.
#include <gtest/gtest.h>

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
  EXPECT_FALSE(writeMorphWeights(bytes, five));  // the band-texture design's vec4 holds 4 weights
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

}  // namespace
}  // namespace morphkit
