// SPDX-License-Identifier: MIT
// Accessor semantics of the glTF loader (glTF 2.0 §3.6.2, §3.7.2, §3.11, KHR_mesh_quantization), each feature
// on a tiny asset built in memory. Expected values are written by hand (or by the spec formula), never taken
// from the code under test. Unused/padding bytes are filled with a poison value (0xCD) so reading them shows.
#include <gtest/gtest.h>

#include "accessor_support.h"

namespace morphkit {
namespace {

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

}  // namespace
}  // namespace morphkit
