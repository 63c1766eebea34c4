// SPDX-License-Identifier: MIT
// The helpers of accessor_test.cpp and accessor_mesh_test.cpp (one file until it passed 600 lines).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/accessor.h"
#include "morphkit/model/primitive.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::bufferJson;
using test::Bytes;
using test::gltfJson;
using test::loadJson;

constexpr uint8_t kPoison = 0xCD;

// One buffer (data: URI), one bufferView over all of it (optionally strided), one accessor.
inline std::string singleAccessor(const Bytes& bytes, const std::string& accessor_fields, uint32_t stride = 0) {
  std::string view = "{\"buffer\":0,\"byteLength\":" + std::to_string(bytes.size());
  if (stride) view += ",\"byteStride\":" + std::to_string(stride);
  view += "}";
  return gltfJson("\"buffers\":[" + bufferJson(bytes.data) + "],\"bufferViews\":[" + view +
                  "],\"accessors\":[{\"bufferView\":0," + accessor_fields + "}]");
}

inline void expectFloats(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(actual[i], expected[i]) << "at " << i;
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

inline double sweepValue(const ComponentInfo& c, uint32_t element, uint32_t k) {
  double v = element * 16.0 + k + 1;
  if (c.is_signed && (k % 2 == 1)) v = -v;
  if (c.type == ComponentType::kFloat) v += 0.5;
  return v;
}

inline void putComponent(Bytes& b, const ComponentInfo& c, double v) {
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

// ---------------------------------------------------------------------------------------------------------
// Meshes: a sparse morph target without a bufferView, targetNames, mesh.weights, node.weights.
inline std::string morphMesh(const Bytes& bytes, const std::string& extra_root = "") {
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

inline Bytes morphBytes() {
  Bytes bytes;
  bytes.put<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});           // POSITION @0
  bytes.put<uint8_t>({2}).fill(3, kPoison);                // sparse index @36
  bytes.put<float>({0, 0, 1});                             // sparse value @40
  bytes.put<float>({0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f});  // dense target @52
  return bytes;
}

// ---------------------------------------------------------------------------------------------------------
// KHR_mesh_quantization: integer and normalized POSITION / NORMAL / TANGENT / TEXCOORD and morph deltas.
struct QuantizedAsset {
  Bytes bytes;
  std::string json;
};

inline QuantizedAsset quantizedAsset(bool declare_extension) {
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

}  // namespace
}  // namespace morphkit
