// SPDX-License-Identifier: MIT
// Accessor semantics of the glTF loader (glTF 2.0 §3.6.2, §3.7.2, §3.11, KHR_mesh_quantization), each feature
// on a tiny asset built in memory. Expected values are written by hand (or by the spec formula), never taken
// from the code under test. Unused/padding bytes are filled with a poison value (0xCD) so reading them shows.
#include "morphkit/accessor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/gltf.h"
#include "morphkit/primitive.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::bufferJson;
using test::Bytes;
using test::gltfJson;
using test::loadJson;

constexpr uint8_t kPoison = 0xCD;

// One buffer (data: URI), one bufferView over all of it (optionally strided), one accessor.
std::string singleAccessor(const Bytes& bytes, const std::string& accessor_fields, uint32_t stride = 0) {
  std::string view = "{\"buffer\":0,\"byteLength\":" + std::to_string(bytes.size());
  if (stride) view += ",\"byteStride\":" + std::to_string(stride);
  view += "}";
  return gltfJson("\"buffers\":[" + bufferJson(bytes.data) + "],\"bufferViews\":[" + view +
                  "],\"accessors\":[{\"bufferView\":0," + accessor_fields + "}]");
}

void expectFloats(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(actual[i], expected[i]) << "at " << i;
}

// ---------------------------------------------------------------------------------------------------------
// Sizes (§3.6.2.2 and the column alignment of §3.6.2.4), written out by hand.
TEST(AccessorLayout, ElementSizesIncludeMatrixColumnPadding) {
  EXPECT_EQ(elementSize(ComponentType::kUnsignedByte, AccessorType::kScalar), 1u);
  EXPECT_EQ(elementSize(ComponentType::kShort, AccessorType::kVec3), 6u);
  EXPECT_EQ(elementSize(ComponentType::kFloat, AccessorType::kVec4), 16u);
  EXPECT_EQ(elementSize(ComponentType::kByte, AccessorType::kMat2), 8u);            // 2 cols × (2 + 2 pad)
  EXPECT_EQ(elementSize(ComponentType::kUnsignedByte, AccessorType::kMat3), 12u);   // 3 cols × (3 + 1 pad)
  EXPECT_EQ(elementSize(ComponentType::kUnsignedByte, AccessorType::kMat4), 16u);   // no padding
  EXPECT_EQ(elementSize(ComponentType::kShort, AccessorType::kMat2), 8u);           // no padding
  EXPECT_EQ(elementSize(ComponentType::kUnsignedShort, AccessorType::kMat3), 24u);  // 3 cols × (6 + 2 pad)
  EXPECT_EQ(elementSize(ComponentType::kShort, AccessorType::kMat4), 32u);
  EXPECT_EQ(elementSize(ComponentType::kFloat, AccessorType::kMat3), 36u);
  EXPECT_EQ(elementSize(ComponentType::kUnsignedInt, AccessorType::kMat4), 64u);
}

// ---------------------------------------------------------------------------------------------------------
// Every componentType × type. Component k of element i holds (i*16 + k + 1), negated for odd k on signed
// types, +0.5 on floats; the bytes are laid out by this test's own rules (matrix columns padded to 4 bytes).
struct ComponentInfo {
  ComponentType type;
  uint32_t gl;
  uint32_t size;
  bool is_signed;
};
struct TypeInfo {
  AccessorType type;
  const char* name;
  uint32_t columns, rows;  // vectors: 1 column of `rows`
};

const ComponentInfo kComponents[] = {
    {ComponentType::kByte, 5120, 1, true},         {ComponentType::kUnsignedByte, 5121, 1, false},
    {ComponentType::kShort, 5122, 2, true},        {ComponentType::kUnsignedShort, 5123, 2, false},
    {ComponentType::kUnsignedInt, 5125, 4, false}, {ComponentType::kFloat, 5126, 4, true}};
const TypeInfo kTypes[] = {{AccessorType::kScalar, "SCALAR", 1, 1}, {AccessorType::kVec2, "VEC2", 1, 2},
                           {AccessorType::kVec3, "VEC3", 1, 3},     {AccessorType::kVec4, "VEC4", 1, 4},
                           {AccessorType::kMat2, "MAT2", 2, 2},     {AccessorType::kMat3, "MAT3", 3, 3},
                           {AccessorType::kMat4, "MAT4", 4, 4}};

double sweepValue(const ComponentInfo& c, uint32_t element, uint32_t k) {
  double v = element * 16.0 + k + 1;
  if (c.is_signed && (k % 2 == 1)) v = -v;
  if (c.type == ComponentType::kFloat) v += 0.5;
  return v;
}

void putComponent(Bytes& b, const ComponentInfo& c, double v) {
  switch (c.type) {
    case ComponentType::kByte:
      b.put<int8_t>(int8_t(v));
      break;
    case ComponentType::kUnsignedByte:
      b.put<uint8_t>(uint8_t(v));
      break;
    case ComponentType::kShort:
      b.put<int16_t>(int16_t(v));
      break;
    case ComponentType::kUnsignedShort:
      b.put<uint16_t>(uint16_t(v));
      break;
    case ComponentType::kUnsignedInt:
      b.put<uint32_t>(uint32_t(v));
      break;
    case ComponentType::kFloat:
      b.put<float>(float(v));
      break;
  }
}

TEST(AccessorRead, EveryComponentTypeTimesType) {
  constexpr uint32_t kCount = 2;
  for (const ComponentInfo& c : kComponents) {
    for (const TypeInfo& t : kTypes) {
      SCOPED_TRACE(std::string(t.name) + " componentType " + std::to_string(c.gl));
      bool matrix = t.columns > 1;
      Bytes bytes;
      std::vector<float> expected;
      for (uint32_t e = 0; e < kCount; ++e) {
        for (uint32_t col = 0; col < t.columns; ++col) {
          for (uint32_t row = 0; row < t.rows; ++row) {
            uint32_t k = col * t.rows + row;
            putComponent(bytes, c, sweepValue(c, e, k));
            expected.push_back(float(sweepValue(c, e, k)));
          }
          if (matrix) bytes.padTo4(kPoison);  // §3.6.2.4: each column starts on a 4-byte boundary
        }
      }
      auto asset = loadJson(singleAccessor(
          bytes, "\"componentType\":" + std::to_string(c.gl) + ",\"count\":2,\"type\":\"" + t.name + "\""));
      ASSERT_LOADED(asset);
      EXPECT_EQ(asset->accessors[0].component_type, c.type);
      EXPECT_EQ(asset->accessors[0].type, t.type);
      EXPECT_EQ(asset->accessors[0].count, kCount);
      expectFloats(readAccessorFloats(*asset, 0), expected);
      std::vector<float> into(expected.size(), -777.0f);
      readAccessorFloats(*asset, 0, into);
      expectFloats(into, expected);
      if (c.type == ComponentType::kUnsignedByte || c.type == ComponentType::kUnsignedShort ||
          c.type == ComponentType::kUnsignedInt) {
        std::vector<uint32_t> uints = readAccessorUints(*asset, 0);
        ASSERT_EQ(uints.size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(uints[i], uint32_t(expected[i])) << "at " << i;
      }
    }
  }
}

// The padded matrix layouts once more, as literal bytes.
TEST(AccessorRead, Mat2UnsignedByteColumnsArePadded) {
  Bytes bytes;
  bytes.raw({1, 2, kPoison, kPoison, 3, 4, kPoison, kPoison});
  auto asset = loadJson(singleAccessor(bytes, "\"componentType\":5121,\"count\":1,\"type\":\"MAT2\""));
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {1, 2, 3, 4});
}

TEST(AccessorRead, Mat3UnsignedByteNormalizedColumnsArePadded) {
  Bytes bytes;
  bytes.raw({255, 0, 51, kPoison, 0, 255, 102, kPoison, 0, 0, 255, kPoison});
  auto asset =
      loadJson(singleAccessor(bytes, "\"componentType\":5121,\"normalized\":true,\"count\":1,\"type\":\"MAT3\""));
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {1, 0, 0.2f, 0, 1, 0.4f, 0, 0, 1});
}

TEST(AccessorRead, Mat3ShortColumnsArePadded) {
  Bytes bytes;
  for (int col = 0; col < 3; ++col) {
    bytes.put<int16_t>({int16_t(-(col * 3 + 1)), int16_t(col * 3 + 2), int16_t(-(col * 3 + 3))});
    bytes.fill(2, kPoison);
  }
  ASSERT_EQ(bytes.size(), 24u);
  auto asset = loadJson(singleAccessor(bytes, "\"componentType\":5122,\"count\":1,\"type\":\"MAT3\""));
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {-1, 2, -3, -4, 5, -6, -7, 8, -9});
}

TEST(AccessorRead, Mat2ByteWithStrideBetweenElements) {
  // Two MAT2 i8 elements of 8 bytes each in a 12-byte stride.
  Bytes bytes;
  bytes.raw({1, uint8_t(-2), kPoison, kPoison, 3, uint8_t(-4), kPoison, kPoison}).fill(4, kPoison);
  bytes.raw({5, uint8_t(-6), kPoison, kPoison, 7, uint8_t(-8), kPoison, kPoison});
  auto asset = loadJson(singleAccessor(bytes, "\"componentType\":5120,\"count\":2,\"type\":\"MAT2\"", 12));
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {1, -2, 3, -4, 5, -6, 7, -8});
}

// ---------------------------------------------------------------------------------------------------------
// Normalized integers → float, §3.11: i8 max(c/127,-1), u8 c/255, i16 max(c/32767,-1), u16 c/65535.
TEST(AccessorRead, NormalizedSignedByte) {
  Bytes bytes;
  bytes.put<int8_t>({-128, -127, -64, 0, 1, 64, 127});
  auto asset =
      loadJson(singleAccessor(bytes, "\"componentType\":5120,\"normalized\":true,\"count\":7,\"type\":\"SCALAR\""));
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0),
               {-1.0f, -1.0f, -64.0f / 127.0f, 0.0f, 1.0f / 127.0f, 64.0f / 127.0f, 1.0f});
}

TEST(AccessorRead, NormalizedUnsignedByte) {
  Bytes bytes;
  bytes.put<uint8_t>({0, 1, 51, 128, 255});
  auto asset =
      loadJson(singleAccessor(bytes, "\"componentType\":5121,\"normalized\":true,\"count\":5,\"type\":\"SCALAR\""));
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {0.0f, 1.0f / 255.0f, 0.2f, 128.0f / 255.0f, 1.0f});
}

TEST(AccessorRead, NormalizedSignedShort) {
  Bytes bytes;
  bytes.put<int16_t>({-32768, -32767, -1, 0, 16384, 32767});
  auto asset =
      loadJson(singleAccessor(bytes, "\"componentType\":5122,\"normalized\":true,\"count\":3,\"type\":\"VEC2\""));
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {-1.0f, -1.0f, -1.0f / 32767.0f, 0.0f, 16384.0f / 32767.0f, 1.0f});
}

TEST(AccessorRead, NormalizedUnsignedShort) {
  Bytes bytes;
  bytes.put<uint16_t>({0, 1, 13107, 32768, 65535, 0});
  auto asset =
      loadJson(singleAccessor(bytes, "\"componentType\":5123,\"normalized\":true,\"count\":2,\"type\":\"VEC3\""));
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {0.0f, 1.0f / 65535.0f, 0.2f, 32768.0f / 65535.0f, 1.0f, 0.0f});
}

TEST(AccessorRead, ComponentToFloatDirect) {
  const int8_t i8 = -128;
  const uint8_t u8 = 255;
  const int16_t i16 = -32768;
  const uint16_t u16 = 65535;
  EXPECT_EQ(componentToFloat(reinterpret_cast<const uint8_t*>(&i8), ComponentType::kByte, true), -1.0f);
  EXPECT_EQ(componentToFloat(reinterpret_cast<const uint8_t*>(&i8), ComponentType::kByte, false), -128.0f);
  EXPECT_EQ(componentToFloat(&u8, ComponentType::kUnsignedByte, true), 1.0f);
  EXPECT_EQ(componentToFloat(&u8, ComponentType::kUnsignedByte, false), 255.0f);
  EXPECT_EQ(componentToFloat(reinterpret_cast<const uint8_t*>(&i16), ComponentType::kShort, true), -1.0f);
  EXPECT_EQ(componentToFloat(reinterpret_cast<const uint8_t*>(&i16), ComponentType::kShort, false), -32768.0f);
  EXPECT_EQ(componentToFloat(reinterpret_cast<const uint8_t*>(&u16), ComponentType::kUnsignedShort, true), 1.0f);
  EXPECT_EQ(componentToFloat(reinterpret_cast<const uint8_t*>(&u16), ComponentType::kUnsignedShort, false), 65535.0f);
}

TEST(AccessorRead, NormalizedIsRejectedOnFloatAndUnsignedInt) {
  Bytes bytes;
  bytes.put<float>({1, 2});
  EXPECT_FAILURE(
      loadJson(singleAccessor(bytes, "\"componentType\":5126,\"normalized\":true,\"count\":2,\"type\":\"SCALAR\"")),
      Error::kInvalidGltf, "accessors[0].normalized", "FLOAT");
  EXPECT_FAILURE(
      loadJson(singleAccessor(bytes, "\"componentType\":5125,\"normalized\":true,\"count\":2,\"type\":\"SCALAR\"")),
      Error::kInvalidGltf, "accessors[0].normalized", "UNSIGNED_INT");
}

// ---------------------------------------------------------------------------------------------------------
// byteStride (§3.6.2.4)
TEST(AccessorRead, PaddedStrideSkipsPoisonAndEndsExactlyAtViewEnd) {
  Bytes bytes;
  for (int e = 0; e < 3; ++e) {
    bytes.put<float>({float(e) + 0.25f, float(-e), float(e * 10)});
    if (e < 2) bytes.fill(4, kPoison);  // the last element has no trailing padding: the view is 44 bytes
  }
  ASSERT_EQ(bytes.size(), 44u);
  auto asset = loadJson(singleAccessor(bytes, "\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"", 16));
  ASSERT_LOADED(asset);
  EXPECT_EQ(asset->buffer_views[0].byte_stride, 16u);
  expectFloats(readAccessorFloats(*asset, 0), {0.25f, 0, 0, 1.25f, -1, 10, 2.25f, -2, 20});
}

TEST(AccessorRead, InterleavedAttributesShareOneStridedView) {
  // Per vertex: POSITION f32×3 at 0, TEXCOORD_0 u16-normalized×2 at 12, poison×4: stride 20.
  Bytes bytes;
  bytes.put<float>({1, 2, 3}).put<uint16_t>({0, 65535}).fill(4, kPoison);
  bytes.put<float>({4, 5, 6}).put<uint16_t>({65535, 0}).fill(4, kPoison);
  bytes.put<float>({7, 8, 9}).put<uint16_t>({32768, 13107}).fill(4, kPoison);
  std::string json = gltfJson(
      "\"buffers\":[" + bufferJson(bytes.data) +
      "],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":60,\"byteStride\":20,\"target\":34962}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
      "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5123,\"normalized\":true,\"count\":3,\"type\":\"VEC2\"}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1}}]}]");
  auto asset = loadJson(json);
  ASSERT_LOADED(asset);
  EXPECT_EQ(asset->buffer_views[0].target, 34962u);
  expectFloats(readAccessorFloats(*asset, 0), {1, 2, 3, 4, 5, 6, 7, 8, 9});
  expectFloats(readAccessorFloats(*asset, 1), {0, 1, 1, 0, 32768.0f / 65535.0f, 0.2f});
  auto data = decodePrimitive(*asset, 0, 0);
  ASSERT_LOADED(data);
  EXPECT_EQ(data->vertex_count, 3u);
  ASSERT_EQ(data->texcoords.size(), 1u);
  expectFloats(data->texcoords[0], {0, 1, 1, 0, 32768.0f / 65535.0f, 0.2f});
}

TEST(AccessorRead, ByteOffsetInsideStridedView) {
  // VEC2 u8 at byteOffset 2 in a 4-byte stride: bytes [p p a b] per element.
  Bytes bytes;
  bytes.raw({kPoison, kPoison, 10, 20, kPoison, kPoison, 30, 40, kPoison, kPoison, 50, 60});
  auto asset =
      loadJson(singleAccessor(bytes, "\"byteOffset\":2,\"componentType\":5121,\"count\":3,\"type\":\"VEC2\"", 4));
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {10, 20, 30, 40, 50, 60});
  EXPECT_EQ(readAccessorUints(*asset, 0), (std::vector<uint32_t>{10, 20, 30, 40, 50, 60}));
}

TEST(AccessorRead, BufferViewOffsetIsAddedToAccessorOffset) {
  Bytes bytes;
  bytes.fill(8, kPoison).put<float>({kPoison, 3.5f, -1.0f});
  std::string json = gltfJson(
      "\"buffers\":[" + bufferJson(bytes.data) +
      "],"
      "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":8,\"byteLength\":12}],"
      "\"accessors\":[{\"bufferView\":0,\"byteOffset\":4,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}]");
  auto asset = loadJson(json);
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {3.5f, -1.0f});
}

TEST(AccessorRead, MinMaxAreKeptAsStored) {
  Bytes bytes;
  bytes.put<float>({-1, -2.5f, 0, 1, 2.5f, 3});
  auto asset = loadJson(singleAccessor(
      bytes, "\"componentType\":5126,\"count\":2,\"type\":\"VEC3\",\"min\":[-1,-2.5,0],\"max\":[1,2.5,3]"));
  ASSERT_LOADED(asset);
  EXPECT_EQ(asset->accessors[0].min, (std::vector<double>{-1, -2.5, 0}));
  EXPECT_EQ(asset->accessors[0].max, (std::vector<double>{1, 2.5, 3}));
  // min/max count must match the type's component count (§5.1: 1, 2, 3, 4, 9 or 16).
  EXPECT_FAILURE(loadJson(singleAccessor(
                     bytes, "\"componentType\":5126,\"count\":2,\"type\":\"VEC3\",\"min\":[0,0],\"max\":[1,1]")),
                 Error::kInvalidGltf, "accessors[0]", "min/max");
}

// ---------------------------------------------------------------------------------------------------------
// Sparse accessors (§3.6.2.3)
TEST(AccessorSparse, UnsignedByteIndicesOverBufferView) {
  Bytes bytes;
  bytes.put<float>({1, 2, 3, 4, 5});            // base @0, 20 bytes
  bytes.put<uint8_t>({1, 3}).fill(2, kPoison);  // indices @20
  bytes.put<float>({20, 40});                   // values @24
  std::string json = gltfJson(
      "\"buffers\":[" + bufferJson(bytes.data) +
      "],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":20},{\"buffer\":0,\"byteOffset\":20,\"byteLength\":2},"
      "{\"buffer\":0,\"byteOffset\":24,\"byteLength\":8}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":5,\"type\":\"SCALAR\",\"sparse\":{\"count\":2,"
      "\"indices\":{\"bufferView\":1,\"componentType\":5121},\"values\":{\"bufferView\":2}}}]");
  auto asset = loadJson(json);
  ASSERT_LOADED(asset);
  const Accessor& a = asset->accessors[0];
  EXPECT_TRUE(a.has_sparse);
  EXPECT_EQ(a.sparse.count, 2u);
  EXPECT_EQ(a.sparse.indices_component_type, ComponentType::kUnsignedByte);
  expectFloats(readAccessorFloats(*asset, 0), {1, 20, 3, 40, 5});
  SparseData sparse = readSparse(*asset, 0);
  EXPECT_EQ(sparse.indices, (std::vector<uint32_t>{1, 3}));
  expectFloats(sparse.values, {20, 40});
  EXPECT_EQ(accessorStorageBytes(*asset, 0), 20u + 2u * (1u + 4u));
}

TEST(AccessorSparse, UnsignedShortIndicesWithoutBufferViewStartFromZeros) {
  Bytes bytes;
  bytes.put<uint16_t>({0, 3});           // indices @0
  bytes.put<float>({1, 2, 3, 4, 5, 6});  // values @4
  std::string json =
      gltfJson("\"buffers\":[" + bufferJson(bytes.data) +
               "],"
               "\"bufferViews\":[{\"buffer\":0,\"byteLength\":4},{\"buffer\":0,\"byteOffset\":4,\"byteLength\":24}],"
               "\"accessors\":[{\"componentType\":5126,\"count\":4,\"type\":\"VEC3\",\"sparse\":{\"count\":2,"
               "\"indices\":{\"bufferView\":0,\"componentType\":5123},\"values\":{\"bufferView\":1}}}]");
  auto asset = loadJson(json);
  ASSERT_LOADED(asset);
  EXPECT_EQ(asset->accessors[0].buffer_view, kNone);
  expectFloats(readAccessorFloats(*asset, 0), {1, 2, 3, 0, 0, 0, 0, 0, 0, 4, 5, 6});
  EXPECT_EQ(readSparse(*asset, 0).indices, (std::vector<uint32_t>{0, 3}));
  EXPECT_EQ(accessorStorageBytes(*asset, 0), 2u * (2u + 12u));
}

TEST(AccessorSparse, UnsignedIntIndicesWithByteOffsets) {
  Bytes bytes;
  bytes.put<uint16_t>({10, 11, 12, 13});        // base @0 (8 bytes)
  bytes.fill(4, kPoison).put<uint32_t>({2});    // indices view @8, index at byteOffset 4
  bytes.fill(2, kPoison).put<uint16_t>({999});  // values view @16, value at byteOffset 2
  std::string json = gltfJson(
      "\"buffers\":[" + bufferJson(bytes.data) +
      "],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,\"byteLength\":8},"
      "{\"buffer\":0,\"byteOffset\":16,\"byteLength\":4}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5123,\"count\":4,\"type\":\"SCALAR\",\"sparse\":{\"count\":1,"
      "\"indices\":{\"bufferView\":1,\"byteOffset\":4,\"componentType\":5125},\"values\":{\"bufferView\":2,"
      "\"byteOffset\":2}}}]");
  auto asset = loadJson(json);
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {10, 11, 999, 13});
  EXPECT_EQ(readAccessorUints(*asset, 0), (std::vector<uint32_t>{10, 11, 999, 13}));
}

TEST(AccessorSparse, NormalizedSparseValuesOverStridedBase) {
  // Base VEC2 i8 normalized in a 4-byte stride; one sparse replacement (i8 normalized, tightly packed).
  Bytes bytes;
  bytes.put<int8_t>({127, 0})
      .fill(2, kPoison)
      .put<int8_t>({0, 127})
      .fill(2, kPoison)
      .put<int8_t>({-127, -127});            // @0, 10 bytes
  bytes.fill(2, kPoison);                    // pad to 12
  bytes.put<uint8_t>({1}).fill(3, kPoison);  // indices @12
  bytes.put<int8_t>({-128, 64});             // values @16
  std::string json = gltfJson("\"buffers\":[" + bufferJson(bytes.data) +
                              "],"
                              "\"bufferViews\":[{\"buffer\":0,\"byteLength\":10,\"byteStride\":4},{\"buffer\":0,"
                              "\"byteOffset\":12,\"byteLength\":1},"
                              "{\"buffer\":0,\"byteOffset\":16,\"byteLength\":2}],"
                              "\"accessors\":[{\"bufferView\":0,\"componentType\":5120,\"normalized\":true,\"count\":3,"
                              "\"type\":\"VEC2\",\"sparse\":{\"count\":1,"
                              "\"indices\":{\"bufferView\":1,\"componentType\":5121},\"values\":{\"bufferView\":2}}}]");
  auto asset = loadJson(json);
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {1, 0, -1, 64.0f / 127.0f, -1, -1});
  expectFloats(readSparse(*asset, 0).values, {-1, 64.0f / 127.0f});
}

// ---------------------------------------------------------------------------------------------------------
// Meshes: a sparse morph target without a bufferView, targetNames, mesh.weights, node.weights.
std::string morphMesh(const Bytes& bytes, const std::string& extra_root = "") {
  return gltfJson(
      "\"buffers\":[" + bufferJson(bytes.data) +
      "],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":1},"
      "{\"buffer\":0,\"byteOffset\":40,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":52,\"byteLength\":36}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":["
      "1,1,0]},"
      "{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"sparse\":{\"count\":1,"
      "\"indices\":{\"bufferView\":1,\"componentType\":5121},\"values\":{\"bufferView\":2}}},"
      "{\"bufferView\":3,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[{\"POSITION\":1},{\"POSITION\":2}]}],"
      "\"weights\":[0.25,0.75],\"extras\":{\"targetNames\":[\"smile\",\"blink\"]}}],"
      "\"nodes\":[{\"mesh\":0,\"weights\":[0.5,1.0]},{\"mesh\":0}],\"scenes\":[{\"nodes\":[0,1]}],\"scene\":0" +
      extra_root);
}

Bytes morphBytes() {
  Bytes bytes;
  bytes.put<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});           // POSITION @0
  bytes.put<uint8_t>({2}).fill(3, kPoison);                // sparse index @36
  bytes.put<float>({0, 0, 1});                             // sparse value @40
  bytes.put<float>({0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f});  // dense target @52
  return bytes;
}

TEST(AccessorMesh, SparseMorphTargetTargetNamesAndWeights) {
  auto asset = loadJson(morphMesh(morphBytes()));
  ASSERT_LOADED(asset);
  const Mesh& mesh = asset->meshes[0];
  EXPECT_EQ(targetCount(mesh), 2u);
  EXPECT_EQ(mesh.weights, (std::vector<float>{0.25f, 0.75f}));
  EXPECT_EQ(mesh.target_names, (std::vector<std::string>{"smile", "blink"}));
  EXPECT_EQ(asset->nodes[0].weights, (std::vector<float>{0.5f, 1.0f}));
  EXPECT_TRUE(asset->nodes[1].weights.empty());
  auto data = decodePrimitive(*asset, 0, 0);
  ASSERT_LOADED(data);
  EXPECT_EQ(data->vertex_count, 3u);
  expectFloats(data->position, {0, 0, 0, 1, 0, 0, 0, 1, 0});
  ASSERT_EQ(data->targets.size(), 2u);
  expectFloats(data->targets[0].position, {0, 0, 0, 0, 0, 0, 0, 0, 1});
  EXPECT_TRUE(data->targets[0].position_sparse);
  EXPECT_EQ(data->targets[0].position_sparse_indices, (std::vector<uint32_t>{2}));
  EXPECT_TRUE(data->targets[0].normal.empty());
  expectFloats(data->targets[1].position, {0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f});
  EXPECT_FALSE(data->targets[1].position_sparse);
}

// ---------------------------------------------------------------------------------------------------------
// Skinning attributes: JOINTS_0 u16, WEIGHTS_0 u8 normalized, a skin with inverse bind matrices.
TEST(AccessorMesh, SkinAttributesDecode) {
  Bytes bytes;
  bytes.put<float>({0, 0, 0, 1, 0, 0});                                 // POSITION @0 (2 vertices, 24 bytes)
  bytes.put<uint16_t>({0, 1, 0, 0, 1, 0, 0, 0});                        // JOINTS_0 @24 (16 bytes)
  bytes.put<uint8_t>({255, 0, 0, 0, 128, 127, 0, 0});                   // WEIGHTS_0 @40 (8 bytes)
  bytes.put<float>({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});   // IBM 0 @48
  bytes.put<float>({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1});  // IBM 1 @112
  std::string json =
      gltfJson("\"buffers\":[" + bufferJson(bytes.data) +
               "],"
               "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24},{\"buffer\":0,\"byteOffset\":24,\"byteLength\":16},"
               "{\"buffer\":0,\"byteOffset\":40,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":128}],"
               "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
               "{\"bufferView\":1,\"componentType\":5123,\"count\":2,\"type\":\"VEC4\"},"
               "{\"bufferView\":2,\"componentType\":5121,\"normalized\":true,\"count\":2,\"type\":\"VEC4\"},"
               "{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"}],"
               "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
               "\"skins\":[{\"joints\":[1,2],\"inverseBindMatrices\":3}],"
               "\"nodes\":[{\"mesh\":0,\"skin\":0},{\"children\":[2]},{\"translation\":[1,0,0]}],\"scenes\":[{"
               "\"nodes\":[0,1]}]");
  auto asset = loadJson(json);
  ASSERT_LOADED(asset);
  EXPECT_EQ(asset->skins[0].joints, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(asset->skins[0].inverse_bind_matrices, 3u);
  EXPECT_EQ(asset->skins[0].skeleton, kNone);
  std::vector<float> ibm = readAccessorFloats(*asset, 3);
  ASSERT_EQ(ibm.size(), 32u);
  EXPECT_EQ(ibm[16 + 12], -1.0f);  // column-major: translation x of matrix 1
  auto data = decodePrimitive(*asset, 0, 0);
  ASSERT_LOADED(data);
  EXPECT_EQ(data->influences, 4u);
  EXPECT_EQ(data->joints, (std::vector<uint32_t>{0, 1, 0, 0, 1, 0, 0, 0}));
  expectFloats(data->skin_weights, {1, 0, 0, 0, 128.0f / 255.0f, 127.0f / 255.0f, 0, 0});
}

// ---------------------------------------------------------------------------------------------------------
// KHR_mesh_quantization: integer and normalized POSITION / NORMAL / TANGENT / TEXCOORD and morph deltas.
struct QuantizedAsset {
  Bytes bytes;
  std::string json;
};

QuantizedAsset quantizedAsset(bool declare_extension) {
  QuantizedAsset q;
  Bytes& b = q.bytes;
  // @0 POSITION u16 VEC3, stride 8 (6 bytes + 2 poison)
  b.put<uint16_t>({0, 0, 0})
      .fill(2, kPoison)
      .put<uint16_t>({100, 0, 0})
      .fill(2, kPoison)
      .put<uint16_t>({0, 200, 65535})
      .fill(2, kPoison);
  // @24 NORMAL i8 normalized VEC3, stride 4
  b.put<int8_t>({0, 0, 127})
      .fill(1, kPoison)
      .put<int8_t>({0, -127, 0})
      .fill(1, kPoison)
      .put<int8_t>({-128, 0, 0})
      .fill(1, kPoison);
  // @36 TANGENT i8 normalized VEC4
  b.put<int8_t>({127, 0, 0, 127, 0, 127, 0, -127, 0, 0, 127, 127});
  // @48 TEXCOORD_0 u16 normalized VEC2
  b.put<uint16_t>({0, 65535, 32768, 0, 65535, 65535});
  // @60 TEXCOORD_1 i16 (not normalized) VEC2
  b.put<int16_t>({-2, 3, 4, -5, 0, 0});
  // @72 target 0 POSITION i16 VEC3, stride 8
  b.put<int16_t>({1, -1, 2})
      .fill(2, kPoison)
      .put<int16_t>({0, 0, 0})
      .fill(2, kPoison)
      .put<int16_t>({-3, 0, 0})
      .fill(2, kPoison);
  // @96 target 0 NORMAL i8 normalized VEC3, stride 4
  b.put<int8_t>({0, 127, 0})
      .fill(1, kPoison)
      .put<int8_t>({0, 0, 0})
      .fill(1, kPoison)
      .put<int8_t>({0, 0, -127})
      .fill(1, kPoison);
  // @108 target 1 POSITION i8 normalized VEC3, stride 4
  b.put<int8_t>({127, 0, -127})
      .fill(1, kPoison)
      .put<int8_t>({0, 0, 0})
      .fill(1, kPoison)
      .put<int8_t>({64, 0, 0})
      .fill(1, kPoison);
  // @120 target 1 TEXCOORD_0 i16 normalized VEC2
  b.put<int16_t>({32767, 0, 0, -32767, 0, 0});
  // @132 animation input f32 ×2, @140 output u8 normalized ×4 (2 keys × 2 targets)
  b.put<float>({0, 1}).put<uint8_t>({0, 255, 51, 128});
  std::string ext =
      declare_extension
          ? "\"extensionsUsed\":[\"KHR_mesh_quantization\"],\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
          : "";
  q.json =
      gltfJson(ext + "\"buffers\":[" + bufferJson(b.data) +
               "],"
               "\"bufferViews\":["
               "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":22,\"byteStride\":8},"    // 0 POSITION
               "{\"buffer\":0,\"byteOffset\":24,\"byteLength\":11,\"byteStride\":4},"   // 1 NORMAL
               "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12},"                    // 2 TANGENT
               "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":12},"                    // 3 TEXCOORD_0
               "{\"buffer\":0,\"byteOffset\":60,\"byteLength\":12},"                    // 4 TEXCOORD_1
               "{\"buffer\":0,\"byteOffset\":72,\"byteLength\":22,\"byteStride\":8},"   // 5 t0 POSITION
               "{\"buffer\":0,\"byteOffset\":96,\"byteLength\":11,\"byteStride\":4},"   // 6 t0 NORMAL
               "{\"buffer\":0,\"byteOffset\":108,\"byteLength\":11,\"byteStride\":4},"  // 7 t1 POSITION
               "{\"buffer\":0,\"byteOffset\":120,\"byteLength\":12},"                   // 8 t1 TEXCOORD_0
               "{\"buffer\":0,\"byteOffset\":132,\"byteLength\":8},"                    // 9 anim input
               "{\"buffer\":0,\"byteOffset\":140,\"byteLength\":4}],"                   // 10 anim output
               "\"accessors\":["
               "{\"bufferView\":0,\"componentType\":5123,\"count\":3,\"type\":\"VEC3\"},"
               "{\"bufferView\":1,\"componentType\":5120,\"normalized\":true,\"count\":3,\"type\":\"VEC3\"},"
               "{\"bufferView\":2,\"componentType\":5120,\"normalized\":true,\"count\":3,\"type\":\"VEC4\"},"
               "{\"bufferView\":3,\"componentType\":5123,\"normalized\":true,\"count\":3,\"type\":\"VEC2\"},"
               "{\"bufferView\":4,\"componentType\":5122,\"count\":3,\"type\":\"VEC2\"},"
               "{\"bufferView\":5,\"componentType\":5122,\"count\":3,\"type\":\"VEC3\"},"
               "{\"bufferView\":6,\"componentType\":5120,\"normalized\":true,\"count\":3,\"type\":\"VEC3\"},"
               "{\"bufferView\":7,\"componentType\":5120,\"normalized\":true,\"count\":3,\"type\":\"VEC3\"},"
               "{\"bufferView\":8,\"componentType\":5122,\"normalized\":true,\"count\":3,\"type\":\"VEC2\"},"
               "{\"bufferView\":9,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
               "{\"bufferView\":10,\"componentType\":5121,\"normalized\":true,\"count\":4,\"type\":\"SCALAR\"}],"
               "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TANGENT\":2,\"TEXCOORD_0\":"
               "3,\"TEXCOORD_1\":4},"
               "\"targets\":[{\"POSITION\":5,\"NORMAL\":6},{\"POSITION\":7,\"TEXCOORD_0\":8}]}],\"weights\":[0,0]}],"
               "\"nodes\":[{\"mesh\":0}],"
               "\"animations\":[{\"samplers\":[{\"input\":9,\"output\":10}],\"channels\":[{\"sampler\":0,\"target\":{"
               "\"node\":0,\"path\":\"weights\"}}]}]");
  return q;
}

TEST(AccessorQuantization, IntegerAndNormalizedAttributesAndDeltas) {
  QuantizedAsset q = quantizedAsset(true);
  auto asset = loadJson(q.json);
  ASSERT_LOADED(asset);
  auto data = decodePrimitive(*asset, 0, 0);
  ASSERT_LOADED(data);
  expectFloats(data->position, {0, 0, 0, 100, 0, 0, 0, 200, 65535});
  expectFloats(data->normal, {0, 0, 1, 0, -1, 0, -1, 0, 0});
  expectFloats(data->tangent, {1, 0, 0, 1, 0, 1, 0, -1, 0, 0, 1, 1});
  ASSERT_EQ(data->texcoords.size(), 2u);
  expectFloats(data->texcoords[0], {0, 1, 32768.0f / 65535.0f, 0, 1, 1});
  expectFloats(data->texcoords[1], {-2, 3, 4, -5, 0, 0});
  ASSERT_EQ(data->targets.size(), 2u);
  expectFloats(data->targets[0].position, {1, -1, 2, 0, 0, 0, -3, 0, 0});
  expectFloats(data->targets[0].normal, {0, 1, 0, 0, 0, 0, 0, 0, -1});
  EXPECT_TRUE(data->targets[0].texcoords[0].empty());
  expectFloats(data->targets[1].position, {1, 0, -1, 0, 0, 0, 64.0f / 127.0f, 0, 0});
  EXPECT_TRUE(data->targets[1].normal.empty());
  ASSERT_EQ(data->targets[1].texcoords.size(), 2u);
  expectFloats(data->targets[1].texcoords[0], {1, 0, 0, -1, 0, 0});
  expectFloats(readAccessorFloats(*asset, 10), {0, 1, 0.2f, 128.0f / 255.0f});
}

TEST(AccessorQuantization, IntegerPositionsWithoutTheExtensionAreRejected) {
  QuantizedAsset q = quantizedAsset(false);
  EXPECT_FAILURE(loadJson(q.json), Error::kInvalidGltf, "meshes[0].primitives[0].attributes.POSITION",
                 "KHR_mesh_quantization");
}

// ---------------------------------------------------------------------------------------------------------
// Where the bytes come from: data: URIs, external files with percent-encoded relative URIs, GLB chunks.
TEST(AccessorSource, ExternalBuffersWithPercentEncodedUris) {
  auto dir = test::scratchDir();
  std::filesystem::create_directories(dir / "sub dir");
  Bytes a, b;
  a.put<float>({1.5f, -2.5f});
  b.put<uint16_t>({7, 8, 9, 10});
  test::writeBytes(dir / "my data#1.bin", a.data);
  test::writeBytes(dir / "sub dir" / "geo 2.bin", b.data);
  std::string json = gltfJson(
      "\"buffers\":[{\"byteLength\":8,\"uri\":\"my%20data%231.bin\"},{\"byteLength\":8,\"uri\":\"sub%20dir/"
      "geo%202.bin\"}],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":1,\"byteLength\":8}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
      "{\"bufferView\":1,\"componentType\":5123,\"count\":2,\"type\":\"VEC2\"}]");
  test::writeText(dir / "model.gltf", json);
  auto asset = loadAsset(dir / "model.gltf");
  ASSERT_LOADED(asset);
  EXPECT_EQ(asset->path, dir / "model.gltf");
  EXPECT_EQ(asset->buffers[0].uri, "my%20data%231.bin");
  expectFloats(readAccessorFloats(*asset, 0), {1.5f, -2.5f});
  EXPECT_EQ(readAccessorUints(*asset, 1), (std::vector<uint32_t>{7, 8, 9, 10}));
  // From memory, relative to an explicit base folder.
  auto from_memory = loadJson(json, dir);
  ASSERT_LOADED(from_memory);
  expectFloats(readAccessorFloats(*from_memory, 0), {1.5f, -2.5f});
}

TEST(AccessorSource, ExternalFileLongerThanByteLengthIsTruncatedToIt) {
  auto dir = test::scratchDir();
  Bytes a;
  a.put<float>({3, 4, 5});
  test::writeBytes(dir / "long.bin", a.data);
  auto asset =
      loadJson(gltfJson("\"buffers\":[{\"byteLength\":8,\"uri\":\"long.bin\"}],"
                        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8}],"
                        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}]"),
               dir);
  ASSERT_LOADED(asset);
  EXPECT_EQ(asset->buffers[0].data.size(), 8u);
  expectFloats(readAccessorFloats(*asset, 0), {3, 4});
}

TEST(AccessorSource, DataUriVariants) {
  Bytes bytes;
  bytes.raw({1, 2, 3, 4, 5});  // 5 bytes: base64 ends with one '='
  for (const char* mime : {"application/octet-stream", "application/gltf-buffer"}) {
    std::string uri = std::string("data:") + mime + ";base64," + test::base64(bytes.data);
    auto asset =
        loadJson(gltfJson("\"buffers\":[{\"byteLength\":5,\"uri\":\"" + uri +
                          "\"}],"
                          "\"bufferViews\":[{\"buffer\":0,\"byteLength\":5}],"
                          "\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":5,\"type\":\"SCALAR\"}]"));
    ASSERT_LOADED(asset);
    EXPECT_EQ(asset->buffers[0].data, (std::vector<uint8_t>{1, 2, 3, 4, 5}));
  }
  EXPECT_EQ(test::base64(bytes.data), "AQIDBAU=");  // the helper itself, checked against a known encoding
}

TEST(AccessorSource, GlbWithPaddedBinChunk) {
  std::vector<uint8_t> bin = {1, 2, 3, 4, 5, 6};  // chunk padded to 8 with zeros
  std::string json = gltfJson(
      "\"buffers\":[{\"byteLength\":6}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":6}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":6,\"type\":\"SCALAR\"}]");
  std::vector<uint8_t> glb = test::makeGlb(json, &bin);
  ASSERT_EQ(glb.size() % 4, 0u);
  auto asset = loadAssetFromMemory(glb, ".");
  ASSERT_LOADED(asset);
  EXPECT_EQ(asset->buffers[0].data.size(), 6u);
  EXPECT_TRUE(asset->buffers[0].uri.empty());
  expectFloats(readAccessorFloats(*asset, 0), {1, 2, 3, 4, 5, 6});
}

TEST(AccessorSource, GlbWithAnExtraExternalBuffer) {
  auto dir = test::scratchDir();
  Bytes extra;
  extra.put<float>({0.5f, 8.0f});
  test::writeBytes(dir / "extra.bin", extra.data);
  std::vector<uint8_t> bin = {9, 8, 7, 6};
  std::string json = gltfJson(
      "\"buffers\":[{\"byteLength\":4},{\"byteLength\":8,\"uri\":\"extra.bin\"}],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":4},{\"buffer\":1,\"byteLength\":8}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":2,\"type\":\"VEC2\"},"
      "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}]");
  test::writeBytes(dir / "model.glb", test::makeGlb(json, &bin));
  auto asset = loadAsset(dir / "model.glb");
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {9, 8, 7, 6});
  expectFloats(readAccessorFloats(*asset, 1), {0.5f, 8.0f});
}

TEST(AccessorSource, GlbIgnoresUnknownChunksAfterBin) {
  std::vector<uint8_t> bin = {42, 0, 0, 0};
  std::string json = gltfJson(
      "\"buffers\":[{\"byteLength\":1}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":1}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5121,\"count\":1,\"type\":\"SCALAR\"}]");
  std::vector<uint8_t> glb = test::makeGlb(json, &bin);
  Bytes extra;
  extra.put<uint32_t>({4u, 0x54584554u}).raw({1, 2, 3, 4});  // an unknown chunk type "TEXT"
  glb.insert(glb.end(), extra.data.begin(), extra.data.end());
  uint32_t total = uint32_t(glb.size());
  std::memcpy(glb.data() + 8, &total, 4);
  auto asset = loadAssetFromMemory(glb, ".");
  ASSERT_LOADED(asset);
  expectFloats(readAccessorFloats(*asset, 0), {42});
}

// ---------------------------------------------------------------------------------------------------------
// Nodes, extensions
TEST(AccessorScene, NodeTrsVersusMatrix) {
  auto asset = loadJson(gltfJson(
      "\"nodes\":[{\"translation\":[1,2,3],\"rotation\":[0,0,0.6,0.8],\"scale\":[2,3,4]},"
      "{\"matrix\":[2,0,0,0, 0,3,0,0, 0,0,4,0, 5,6,7,1]},{\"name\":\"plain\"}],\"scenes\":[{\"nodes\":[0,1,2]}]"));
  ASSERT_LOADED(asset);
  const Node& trs = asset->nodes[0];
  EXPECT_FALSE(trs.has_matrix);
  EXPECT_EQ(trs.translation.x, 1.0f);
  EXPECT_EQ(trs.translation.z, 3.0f);
  EXPECT_EQ(trs.rotation.z, 0.6);  // the file's numbers in double (scene composition is double)
  EXPECT_EQ(trs.rotation.w, 0.8);
  EXPECT_EQ(trs.scale.y, 3.0f);
  const Node& matrix = asset->nodes[1];
  EXPECT_TRUE(matrix.has_matrix);
  EXPECT_EQ(matrix.matrix.m[12], 5.0f);  // column-major: translation in elements 12..14
  EXPECT_EQ(matrix.matrix(1, 3), 6.0f);  // row 1, column 3
  EXPECT_EQ(matrix.matrix(2, 2), 4.0f);
  const Node& plain = asset->nodes[2];
  EXPECT_EQ(plain.name, "plain");
  EXPECT_FALSE(plain.has_matrix);
  EXPECT_EQ(plain.rotation.w, 1.0f);
  EXPECT_EQ(plain.scale.x, 1.0f);
  EXPECT_EQ(plain.translation.x, 0.0f);
  // §5.25: matrix MUST NOT be present together with TRS.
  EXPECT_FAILURE(loadJson(gltfJson("\"nodes\":[{\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1],\"scale\":[1,1,1]}]")),
                 Error::kInvalidGltf, "nodes[0]", "matrix");
}

TEST(AccessorExtensions, UnsupportedRequiredExtensionIsAnErrorNamingIt) {
  EXPECT_FAILURE(loadJson(gltfJson("\"extensionsUsed\":[\"EXT_mesh_gpu_instancing\"],"
                                   "\"extensionsRequired\":[\"EXT_mesh_gpu_instancing\"]")),
                 Error::kUnsupportedExtension, "EXT_mesh_gpu_instancing", "extensionsRequired",
                 "supported: KHR_mesh_quantization, EXT_meshopt_compression, KHR_draco_mesh_compression");
}

TEST(AccessorExtensions, UnknownUsedOnlyExtensionBecomesANote) {
  auto asset = loadJson(gltfJson("\"extensionsUsed\":[\"EXT_made_up_thing\",\"KHR_mesh_quantization\"]"));
  ASSERT_LOADED(asset);
  ASSERT_EQ(asset->notes.size(), 1u);
  EXPECT_NE(asset->notes[0].find("EXT_made_up_thing"), std::string::npos);
  EXPECT_EQ(asset->extensions_used.size(), 2u);
  EXPECT_TRUE(asset->extensions_required.empty());
  bool listed = false;
  for (const char* name : supportedExtensions()) listed |= std::string(name) == "KHR_mesh_quantization";
  EXPECT_TRUE(listed);
}

}  // namespace
}  // namespace morphkit
