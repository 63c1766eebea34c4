// SPDX-License-Identifier: MIT
// Accessors in whole files: sparse morph targets with their names and weights, buffers from GLB and external sources,
// node TRS against matrices, required and used extensions. Element layouts and reads: accessor_test.cpp.
#include <gtest/gtest.h>

#include "accessor_support.h"
#include "morphkit/model/extensions.h"

namespace morphkit {
namespace {

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
  for (const GltfExtension& e : gltfExtensions()) listed |= e.name == "KHR_mesh_quantization";
  EXPECT_TRUE(listed);
}

}  // namespace
}  // namespace morphkit
