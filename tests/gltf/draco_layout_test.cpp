// SPDX-License-Identifier: MIT
// KHR_draco_mesh_compression: how the decoded attributes are laid out (src/gltf/draco.cpp). A Draco primitive's
// accessors have no bufferView in the file; the loader points them at the decoded bytes, which must then follow
// glTF 2.0 §3.6.2.4 (vertex attribute elements 4-byte aligned) like any other vertex data. Issue 46: `gltf-transform
// draco` of a quantized face (normalized i16 VEC3 POSITION, 6 bytes) was refused with "accessor 1 elements are 6
// bytes apart (bufferView 57 has no byteStride), not a multiple of 4". The streams here are made with libdraco's own
// encoder, so the test needs no file from outside.
#include <draco/compression/encode.h>
#include <draco/mesh/mesh.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/core/pose.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/accessor.h"

namespace morphkit {
namespace {

// A triangle's Draco stream: POSITION as i16 VEC3 (6 bytes), NORMAL as i8 VEC3 (3 bytes), COLOR_0 as u8 VEC4
// (4 bytes: needs no padding), lossless (integer attributes are not quantized by Draco), sequential connectivity.
std::vector<uint8_t> integerTriangleStream() {
  draco::Mesh mesh;
  mesh.set_num_points(3);
  mesh.AddFace(draco::Mesh::Face{draco::PointIndex(0), draco::PointIndex(1), draco::PointIndex(2)});
  auto add = [&](draco::GeometryAttribute::Type type, draco::DataType data, int components, size_t size,
                 const void* values) {
    draco::GeometryAttribute ga;
    ga.Init(type, nullptr, int8_t(components), data, false, int64_t(size * components), 0);
    const int id = mesh.AddAttribute(ga, true, 3);
    for (int p = 0; p < 3; ++p) {
      mesh.attribute(id)->SetAttributeValue(draco::AttributeValueIndex(p),
                                            static_cast<const uint8_t*>(values) + size_t(p) * size * components);
    }
    return id;
  };
  const int16_t positions[9] = {0, 0, 0, 32767, 0, 0, 0, 32767, -32767};
  const int8_t normals[9] = {0, 0, 127, 0, 0, 127, 0, 127, 0};
  const uint8_t colors[12] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 128};
  EXPECT_EQ(add(draco::GeometryAttribute::POSITION, draco::DT_INT16, 3, 2, positions), 0);
  EXPECT_EQ(add(draco::GeometryAttribute::NORMAL, draco::DT_INT8, 3, 1, normals), 1);
  EXPECT_EQ(add(draco::GeometryAttribute::COLOR, draco::DT_UINT8, 4, 1, colors), 2);
  draco::Encoder encoder;
  encoder.SetEncodingMethod(draco::MESH_SEQUENTIAL_ENCODING);
  draco::EncoderBuffer buffer;
  const draco::Status status = encoder.EncodeMeshToBuffer(mesh, &buffer);
  EXPECT_TRUE(status.ok()) << status.error_msg_string();
  return {buffer.data(), buffer.data() + buffer.size()};
}

// The triangle as a GLB: the Draco stream in bufferView 0, one float POSITION morph target (plain accessor, as the
// extension requires) in bufferView 1, mesh weight 0.5.
std::vector<uint8_t> integerTriangleGlb() {
  test::Bytes bin;
  const std::vector<uint8_t> stream = integerTriangleStream();
  bin.data = stream;
  bin.padTo4();
  const size_t target_offset = bin.size();
  bin.put<float>({0, 0, 2, 0, 0, 2, 0, 0, 2});
  const std::string json =
      "{\"asset\":{\"version\":\"2.0\"},"
      "\"extensionsUsed\":[\"KHR_draco_mesh_compression\",\"KHR_mesh_quantization\"],"
      "\"extensionsRequired\":[\"KHR_draco_mesh_compression\",\"KHR_mesh_quantization\"],"
      "\"buffers\":[{\"byteLength\":" +
      std::to_string(bin.size()) +
      "}],\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":" + std::to_string(stream.size()) +
      "},{\"buffer\":0,\"byteOffset\":" + std::to_string(target_offset) +
      ",\"byteLength\":36}],\"accessors\":["
      "{\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"},"
      "{\"componentType\":5122,\"normalized\":true,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,-1],\"max\":[1,1,0]},"
      "{\"componentType\":5120,\"normalized\":true,\"count\":3,\"type\":\"VEC3\"},"
      "{\"componentType\":5121,\"normalized\":true,\"count\":3,\"type\":\"VEC4\"},"
      "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,2],\"max\":[0,0,2]}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":1,\"NORMAL\":2,\"COLOR_0\":3},\"indices\":0,"
      "\"targets\":[{\"POSITION\":4}],\"extensions\":{\"KHR_draco_mesh_compression\":{\"bufferView\":0,"
      "\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"COLOR_0\":2}}}}],\"weights\":[0.5]}],"
      "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0}";
  return test::makeGlb(json, &bin.data);
}

std::vector<float> restPositions(const Asset& asset) {
  Expected<PosePrepared> prepared = preparePose(asset);
  EXPECT_TRUE(prepared) << prepared.error().message;
  if (!prepared) return {};
  Expected<PoseResult> pose = evaluatePose(*prepared, PoseOptions{});
  EXPECT_TRUE(pose) << pose.error().message;
  if (!pose || pose->meshes.size() != 1) return {};
  return pose->meshes[0].positions;
}

TEST(DracoLayout, AttributesOfThreeAndSixBytesAreDecodedFourByteAligned) {
  const std::vector<uint8_t> glb = integerTriangleGlb();
  Expected<Asset> asset = loadAssetFromMemory(glb, ".");
  ASSERT_TRUE(asset) << asset.error().message;  // before the fix: "elements are 6 bytes apart ... not a multiple of 4"

  // Each decoded vertex attribute sits in its own bufferView, 4-byte aligned, with a byteStride exactly where the
  // element size is not a multiple of 4.
  const std::array<std::pair<uint32_t, uint32_t>, 3> strides = {{{1, 8}, {2, 4}, {3, 0}}};
  for (const auto& [accessor, stride] : strides) {
    SCOPED_TRACE("accessor " + std::to_string(accessor));
    const Accessor& a = asset->accessors[accessor];
    ASSERT_NE(a.buffer_view, kNone);
    const BufferView& view = asset->buffer_views[a.buffer_view];
    EXPECT_EQ(view.byte_stride, stride);
    EXPECT_EQ((view.byte_offset + a.byte_offset) % 4, 0u);
    EXPECT_EQ(view.byte_length, 3 * (stride ? stride : 4u));
  }

  // The values come through the padding unchanged: normalized i16 → [-1, 1], plus half the +2 z delta.
  const std::vector<float> expected = {0, 0, 1, 1, 0, 1, 0, 1, 0};
  const std::vector<float> posed = restPositions(*asset);
  ASSERT_EQ(posed.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(posed[i], expected[i], 1e-6) << "component " << i;
  const std::vector<float> normals = readAccessorFloats(*asset, 2), colors = readAccessorFloats(*asset, 3);
  ASSERT_EQ(normals.size(), 9u);
  ASSERT_EQ(colors.size(), 12u);
  EXPECT_FLOAT_EQ(normals[8], 0.0f);
  EXPECT_FLOAT_EQ(normals[7], 1.0f);
  EXPECT_NEAR(colors[11], 128.0f / 255.0f, 1e-7);

  // What morphkit writes back from it is plain, valid glTF that it loads again to the same pose (the stride travels
  // with the bufferView).
  Asset plain = *asset;
  std::erase(plain.extensions_used, "KHR_draco_mesh_compression");
  std::erase(plain.extensions_required, "KHR_draco_mesh_compression");
  Expected<std::vector<uint8_t>> written = writeGlb(plain);
  ASSERT_TRUE(written) << written.error().message;
  Expected<Asset> reloaded = loadAssetFromMemory(*written, ".");
  ASSERT_TRUE(reloaded) << reloaded.error().message;
  EXPECT_EQ(restPositions(*reloaded), posed);
}

// The alignment rule still applies to plain files: the same 6-byte elements tightly packed in a file's own
// bufferView are refused with the one-line message that names the accessor and the section.
TEST(DracoLayout, PlainTightlyPackedSixByteElementsAreStillRefused) {
  test::Bytes bin;
  bin.put<int16_t>({0, 0, 0, 32767, 0, 0, 0, 32767, 0});
  bin.padTo4();
  const std::string json = test::gltfJson(
      "\"extensionsUsed\":[\"KHR_mesh_quantization\"],\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
      "\"buffers\":[" +
      test::bufferJson(bin.data) +
      "],\"bufferViews\":[{\"buffer\":0,\"byteLength\":18}],\"accessors\":[{\"bufferView\":0,\"componentType\":5122,"
      "\"normalized\":true,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,0]}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}],"
      "\"scenes\":[{\"nodes\":[0]}]");
  Expected<Asset> asset = test::loadJson(json);
  ASSERT_FALSE(asset);
  EXPECT_NE(asset.error().message.find("meshes[0].primitives[0].attributes.POSITION: accessor 0 elements are 6 bytes "
                                       "apart (bufferView 0 has no byteStride), not a multiple of 4"),
            std::string::npos)
      << asset.error().message;
  EXPECT_EQ(asset.error().message.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace morphkit
