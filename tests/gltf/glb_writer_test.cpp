// SPDX-License-Identifier: MIT
// Tests for morphkit/gltf/glb_writer.h: the GLB container bytes (glTF 2.0 §4.4) and the builder helpers.
#include "morphkit/gltf/glb_writer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/image/image.h"
#include "morphkit/model/accessor.h"
#include "test_support.h"
#include "texture_support.h"

namespace morphkit {
namespace {

uint32_t read32(const std::vector<uint8_t>& bytes, size_t offset) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(bytes.at(offset + i)) << (8 * i);
  return v;
}

// A small asset with two buffers, so the writer has to merge and rebase.
Asset twoBufferAsset() {
  Asset asset;
  asset.generator = "glb_writer_test";
  Buffer a;
  a.data = {1, 2, 3, 4, 5};  // odd size: the second buffer must start aligned
  a.byte_length = 5;
  Buffer b;
  b.data = std::vector<uint8_t>(12, 0);
  float xyz[3] = {1.5f, -2.0f, 0.25f};
  std::memcpy(b.data.mutate().data(), xyz, 12);  // a writer: mutate() (owned bytes here, no copy)
  b.byte_length = 12;
  asset.buffers = {a, b};
  BufferView va;
  va.buffer = 0;
  va.byte_length = 5;
  BufferView vb;
  vb.buffer = 1;
  vb.byte_length = 12;
  vb.target = kArrayBuffer;
  asset.buffer_views = {va, vb};
  Accessor acc;
  acc.buffer_view = 1;
  acc.count = 1;
  acc.type = AccessorType::kVec3;
  acc.min = {1.5, -2.0, 0.25};
  acc.max = {1.5, -2.0, 0.25};
  asset.accessors = {acc};
  return test::validated(std::move(asset));
}

TEST(GlbWriter, HeaderAndChunksAreWellFormed) {
  auto glb = writeGlb(twoBufferAsset());
  ASSERT_TRUE(glb.ok()) << glb.error().message;
  const auto& bytes = *glb;
  ASSERT_GE(bytes.size(), 28u);
  EXPECT_EQ(std::memcmp(bytes.data(), "glTF", 4), 0);
  EXPECT_EQ(read32(bytes, 4), 2u);
  EXPECT_EQ(read32(bytes, 8), bytes.size());
  uint32_t json_length = read32(bytes, 12);
  EXPECT_EQ(std::memcmp(bytes.data() + 16, "JSON", 4), 0);
  EXPECT_EQ(json_length % 4, 0u);
  size_t bin_header = 20 + json_length;
  ASSERT_LE(bin_header + 8, bytes.size());
  uint32_t bin_length = read32(bytes, bin_header);
  EXPECT_EQ(std::memcmp(bytes.data() + bin_header + 4, "BIN\0", 4), 0);
  EXPECT_EQ(bin_length % 4, 0u);
  EXPECT_EQ(bin_header + 8 + bin_length, bytes.size());

  // JSON padding is spaces; the JSON text itself ends with '}'.
  std::string json(reinterpret_cast<const char*>(bytes.data() + 20), json_length);
  size_t end = json.find_last_not_of(' ');
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(json[end], '}');
  EXPECT_LT(json_length - (end + 1), 4u);

  // Buffer 0 at offset 0, buffer 1 rebased to 16 (5 rounded up to the 16-byte alignment).
  const uint8_t* bin = bytes.data() + bin_header + 8;
  EXPECT_EQ(bin[0], 1);
  EXPECT_EQ(bin[4], 5);
  for (int i = 5; i < 16; ++i) EXPECT_EQ(bin[i], 0) << "alignment gap must be zero at " << i;
  float xyz[3];
  std::memcpy(xyz, bin + 16, 12);
  EXPECT_EQ(xyz[0], 1.5f);
  EXPECT_EQ(xyz[1], -2.0f);
  EXPECT_EQ(xyz[2], 0.25f);
  EXPECT_EQ(bin_length, 28u);  // 16 + 12
  EXPECT_NE(json.find("\"buffers\":[{\"byteLength\":28}]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"buffer\":0,\"byteOffset\":16,\"byteLength\":12"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"buffer\":1"), std::string::npos) << json;
}

TEST(GlbWriter, OmitsDefaultsAndWritesNonDefaults) {
  Asset built;
  // Accessor 0 has no bufferView: three zero vertices (§3.6.2.3), so the asset has no buffers at all.
  Accessor zeros;
  zeros.count = 3;
  zeros.type = AccessorType::kVec3;
  zeros.min = {0, 0, 0};
  zeros.max = {0, 0, 0};  // POSITION needs min/max (§3.6.2.5)
  built.accessors = {zeros};
  Node plain;
  Node moved;
  moved.name = "moved";
  moved.mesh = 0;  // node weights need a mesh (§5.25)
  moved.translation = {1, 2, 3};
  moved.weights = {0.5f};
  moved.children = {0};
  built.nodes = {plain, moved};
  Material material;
  material.metallic_factor = 0.0f;
  material.alpha_cutoff = 0.25f;  // not MASK: must be omitted (§3.9.4)
  built.materials = {material};
  Mesh mesh;
  mesh.target_names = {"jawOpen"};
  mesh.weights = {0.0f};
  Primitive primitive;
  primitive.attributes = {{"POSITION", 0}};
  primitive.targets = {MorphTarget{{{"POSITION", 0}}}};
  mesh.primitives = {primitive};
  built.meshes = {mesh};
  const Asset asset = test::validated(std::move(built));
  auto json = writeGltfJson(asset);
  ASSERT_TRUE(json.ok()) << json.error().message;
  const std::string& text = *json;
  EXPECT_NE(text.find("\"nodes\":[{},{"), std::string::npos) << text;
  EXPECT_NE(text.find("\"translation\":[1,2,3]"), std::string::npos) << text;
  EXPECT_EQ(text.find("\"rotation\""), std::string::npos) << text;
  EXPECT_EQ(text.find("\"scale\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"metallicFactor\":0"), std::string::npos) << text;
  EXPECT_EQ(text.find("roughnessFactor"), std::string::npos) << text;
  EXPECT_EQ(text.find("alphaCutoff"), std::string::npos) << text;
  EXPECT_NE(text.find("\"extras\":{\"targetNames\":[\"jawOpen\"]}"), std::string::npos) << text;
  EXPECT_NE(text.find("\"targets\":[{\"POSITION\":0}]"), std::string::npos) << text;
  EXPECT_EQ(text.find("\"mode\""), std::string::npos) << text;
  EXPECT_EQ(text.find("\"buffers\""), std::string::npos) << text;

  auto glb = writeGlb(asset);
  ASSERT_TRUE(glb.ok());
  EXPECT_EQ(read32(*glb, 8), glb->size());
  EXPECT_EQ(glb->size(), 20 + read32(*glb, 12)) << "no BIN chunk without buffers";
}

// The edited assets are deliberately invalid (the writer's own checks): they skip test::validated.
TEST(GlbWriter, RejectsInconsistentBuffers) {
  Asset asset = twoBufferAsset();
  asset.buffers[1].byte_length = 100;  // more than data holds
  auto glb = writeGlb(asset);
  ASSERT_FALSE(glb.ok());
  EXPECT_EQ(glb.error().code, Error::kInvalidArgument);
  EXPECT_NE(glb.error().message.find("buffers[1]"), std::string::npos) << glb.error().message;

  asset = twoBufferAsset();
  asset.buffer_views[1].buffer = 7;
  glb = writeGlb(asset);
  ASSERT_FALSE(glb.ok());
  EXPECT_NE(glb.error().message.find("bufferViews[1]"), std::string::npos) << glb.error().message;
}

TEST(GlbWriter, AppendAccessorAlignsAndComputesMinMax) {
  Asset asset;
  std::vector<uint16_t> indices = {0, 1, 2};  // 6 bytes: next view must start at 8
  uint32_t ia =
      appendAccessor(asset, std::span<const uint16_t>(indices), AccessorType::kScalar, {.target = kElementArrayBuffer});
  std::vector<float> positions = {0, 0, 0, 1, -1, 2, -3, 4, 0.5f};
  uint32_t pa = appendAccessor(asset, std::span<const float>(positions), AccessorType::kVec3,
                               {.name = "pos", .target = kArrayBuffer, .min_max = true});
  ASSERT_EQ(asset.accessors.size(), 2u);
  ASSERT_EQ(asset.buffers.size(), 1u);
  const Accessor& idx = asset.accessors[ia];
  EXPECT_EQ(idx.component_type, ComponentType::kUnsignedShort);
  EXPECT_EQ(idx.count, 3u);
  EXPECT_TRUE(idx.min.empty());
  EXPECT_EQ(asset.buffer_views[idx.buffer_view].target, kElementArrayBuffer);
  const Accessor& pos = asset.accessors[pa];
  EXPECT_EQ(pos.name, "pos");
  EXPECT_EQ(pos.count, 3u);
  EXPECT_EQ(pos.type, AccessorType::kVec3);
  const BufferView& pv = asset.buffer_views[pos.buffer_view];
  EXPECT_EQ(pv.byte_offset, 8u);
  EXPECT_EQ(pv.byte_length, 36u);
  EXPECT_EQ(asset.buffers[0].byte_length, 44u);
  EXPECT_EQ(pos.min, (std::vector<double>{-3, -1, 0}));
  EXPECT_EQ(pos.max, (std::vector<double>{1, 4, 2}));
  float stored[9];
  std::memcpy(stored, asset.buffers[0].data.data() + 8, 36);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(stored[i], positions[i]);
}

// ---- Round trip: write → loadAssetFromMemory → every field and every decoded accessor equal -------------

void expectSameRef(const TextureRef& a, const TextureRef& b, const std::string& where) {
  EXPECT_EQ(a.texture, b.texture) << where;
  EXPECT_EQ(a.texcoord, b.texcoord) << where;
  EXPECT_EQ(a.scale, b.scale) << where;
}

// `a` is the asset that was written, `b` the one loaded back. Buffers and bufferViews are merged/rebased
// by the writer, so accessors are compared on their decoded values rather than on offsets.
// Buffers and accessors.
void expectSameData(const Asset& a, const Asset& b) {
  EXPECT_EQ(a.generator, b.generator);
  EXPECT_EQ(a.extensions_used, b.extensions_used);
  EXPECT_EQ(a.extensions_required, b.extensions_required);
  EXPECT_EQ(b.buffers.size(), a.buffers.empty() ? 0u : 1u);
  ASSERT_EQ(a.buffer_views.size(), b.buffer_views.size());
  for (size_t i = 0; i < a.buffer_views.size(); ++i) {
    EXPECT_EQ(a.buffer_views[i].byte_length, b.buffer_views[i].byte_length) << i;
    EXPECT_EQ(a.buffer_views[i].byte_stride, b.buffer_views[i].byte_stride) << i;
    EXPECT_EQ(a.buffer_views[i].target, b.buffer_views[i].target) << i;
    EXPECT_EQ(a.buffer_views[i].name, b.buffer_views[i].name) << i;
  }
  ASSERT_EQ(a.accessors.size(), b.accessors.size());
  for (uint32_t i = 0; i < a.accessors.size(); ++i) {
    const Accessor &x = a.accessors[i], &y = b.accessors[i];
    std::string where = "accessors[" + std::to_string(i) + "]";
    EXPECT_EQ(x.name, y.name) << where;
    EXPECT_EQ(x.buffer_view, y.buffer_view) << where;
    EXPECT_EQ(x.byte_offset, y.byte_offset) << where;
    EXPECT_EQ(x.component_type, y.component_type) << where;
    EXPECT_EQ(x.normalized, y.normalized) << where;
    EXPECT_EQ(x.count, y.count) << where;
    EXPECT_EQ(x.type, y.type) << where;
    EXPECT_EQ(x.min, y.min) << where;
    EXPECT_EQ(x.max, y.max) << where;
    EXPECT_EQ(x.has_sparse, y.has_sparse) << where;
    if (x.has_sparse && y.has_sparse) {
      EXPECT_EQ(x.sparse.count, y.sparse.count) << where;
      EXPECT_EQ(x.sparse.indices_component_type, y.sparse.indices_component_type) << where;
      EXPECT_EQ(x.sparse.indices_buffer_view, y.sparse.indices_buffer_view) << where;
      EXPECT_EQ(x.sparse.values_buffer_view, y.sparse.values_buffer_view) << where;
    }
    std::vector<float> fx = readAccessorFloats(a, i), fy = readAccessorFloats(b, i);
    EXPECT_TRUE(fx == fy) << where << ": decoded values differ";
  }
}

// Meshes, nodes, skins, animations and scenes.
void expectSameScene(const Asset& a, const Asset& b) {
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    const Mesh &x = a.meshes[m], &y = b.meshes[m];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.weights, y.weights);
    EXPECT_EQ(x.target_names, y.target_names);
    ASSERT_EQ(x.primitives.size(), y.primitives.size());
    for (size_t p = 0; p < x.primitives.size(); ++p) {
      const Primitive &px = x.primitives[p], &py = y.primitives[p];
      ASSERT_EQ(px.attributes.size(), py.attributes.size());
      for (const auto& attr : px.attributes)
        EXPECT_EQ(findAttribute(py.attributes, attr.name), attr.accessor) << attr.name;
      EXPECT_EQ(px.indices, py.indices);
      EXPECT_EQ(px.material, py.material);
      EXPECT_EQ(px.mode, py.mode);
      ASSERT_EQ(px.targets.size(), py.targets.size());
      for (size_t t = 0; t < px.targets.size(); ++t) {
        ASSERT_EQ(px.targets[t].attributes.size(), py.targets[t].attributes.size());
        for (const auto& attr : px.targets[t].attributes)
          EXPECT_EQ(findAttribute(py.targets[t].attributes, attr.name), attr.accessor) << attr.name;
      }
    }
  }
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t n = 0; n < a.nodes.size(); ++n) {
    const Node &x = a.nodes[n], &y = b.nodes[n];
    std::string where = "nodes[" + std::to_string(n) + "]";
    EXPECT_EQ(x.name, y.name) << where;
    EXPECT_EQ(x.children, y.children) << where;
    EXPECT_EQ(x.mesh, y.mesh) << where;
    EXPECT_EQ(x.skin, y.skin) << where;
    EXPECT_EQ(x.camera, y.camera) << where;
    EXPECT_EQ(x.has_matrix, y.has_matrix) << where;
    if (x.has_matrix) {
      EXPECT_EQ(x.matrix.m, y.matrix.m) << where;
    }
    if (!x.has_matrix) {
      EXPECT_EQ(x.translation.x, y.translation.x) << where;
      EXPECT_EQ(x.translation.y, y.translation.y) << where;
      EXPECT_EQ(x.translation.z, y.translation.z) << where;
      EXPECT_EQ(x.rotation.x, y.rotation.x) << where;
      EXPECT_EQ(x.rotation.y, y.rotation.y) << where;
      EXPECT_EQ(x.rotation.z, y.rotation.z) << where;
      EXPECT_EQ(x.rotation.w, y.rotation.w) << where;
      EXPECT_EQ(x.scale.x, y.scale.x) << where;
      EXPECT_EQ(x.scale.y, y.scale.y) << where;
      EXPECT_EQ(x.scale.z, y.scale.z) << where;
    }
    EXPECT_EQ(x.weights, y.weights) << where;
  }
  ASSERT_EQ(a.skins.size(), b.skins.size());
  for (size_t s = 0; s < a.skins.size(); ++s) {
    EXPECT_EQ(a.skins[s].name, b.skins[s].name);
    EXPECT_EQ(a.skins[s].inverse_bind_matrices, b.skins[s].inverse_bind_matrices);
    EXPECT_EQ(a.skins[s].skeleton, b.skins[s].skeleton);
    EXPECT_EQ(a.skins[s].joints, b.skins[s].joints);
  }
  ASSERT_EQ(a.animations.size(), b.animations.size());
  for (size_t i = 0; i < a.animations.size(); ++i) {
    const Animation &x = a.animations[i], &y = b.animations[i];
    EXPECT_EQ(x.name, y.name);
    ASSERT_EQ(x.channels.size(), y.channels.size());
    for (size_t c = 0; c < x.channels.size(); ++c) {
      EXPECT_EQ(x.channels[c].sampler, y.channels[c].sampler);
      EXPECT_EQ(x.channels[c].node, y.channels[c].node);
      EXPECT_EQ(x.channels[c].path, y.channels[c].path);
    }
    ASSERT_EQ(x.samplers.size(), y.samplers.size());
    for (size_t c = 0; c < x.samplers.size(); ++c) {
      EXPECT_EQ(x.samplers[c].input, y.samplers[c].input);
      EXPECT_EQ(x.samplers[c].output, y.samplers[c].output);
      EXPECT_EQ(x.samplers[c].interpolation, y.samplers[c].interpolation);
    }
  }
  ASSERT_EQ(a.scenes.size(), b.scenes.size());
  for (size_t i = 0; i < a.scenes.size(); ++i) {
    EXPECT_EQ(a.scenes[i].name, b.scenes[i].name);
    EXPECT_EQ(a.scenes[i].nodes, b.scenes[i].nodes);
  }
  EXPECT_EQ(a.scene, b.scene);
}

// Materials, textures, images, samplers and cameras.
void expectSameLook(const Asset& a, const Asset& b) {
  ASSERT_EQ(a.materials.size(), b.materials.size());
  for (size_t i = 0; i < a.materials.size(); ++i) {
    const Material &x = a.materials[i], &y = b.materials[i];
    std::string where = "materials[" + std::to_string(i) + "]";
    EXPECT_EQ(x.name, y.name) << where;
    for (int c = 0; c < 4; ++c) EXPECT_EQ(x.base_color_factor[c], y.base_color_factor[c]) << where;
    for (int c = 0; c < 3; ++c) EXPECT_EQ(x.emissive_factor[c], y.emissive_factor[c]) << where;
    EXPECT_EQ(x.metallic_factor, y.metallic_factor) << where;
    EXPECT_EQ(x.roughness_factor, y.roughness_factor) << where;
    expectSameRef(x.base_color_texture, y.base_color_texture, where + ".baseColorTexture");
    expectSameRef(x.metallic_roughness_texture, y.metallic_roughness_texture, where + ".metallicRoughnessTexture");
    expectSameRef(x.normal_texture, y.normal_texture, where + ".normalTexture");
    expectSameRef(x.occlusion_texture, y.occlusion_texture, where + ".occlusionTexture");
    expectSameRef(x.emissive_texture, y.emissive_texture, where + ".emissiveTexture");
    EXPECT_EQ(x.alpha_mode, y.alpha_mode) << where;
    if (x.alpha_mode == AlphaMode::kMask) {
      EXPECT_EQ(x.alpha_cutoff, y.alpha_cutoff) << where;
    }
    EXPECT_EQ(x.double_sided, y.double_sided) << where;
  }
  ASSERT_EQ(a.textures.size(), b.textures.size());
  for (size_t i = 0; i < a.textures.size(); ++i) {
    EXPECT_EQ(a.textures[i].sampler, b.textures[i].sampler);
    EXPECT_EQ(a.textures[i].source, b.textures[i].source);
    EXPECT_EQ(a.textures[i].basisu_source, b.textures[i].basisu_source);
    EXPECT_EQ(a.textures[i].webp_source, b.textures[i].webp_source);
  }
  ASSERT_EQ(a.images.size(), b.images.size());
  for (size_t i = 0; i < a.images.size(); ++i) {
    EXPECT_EQ(a.images[i].name, b.images[i].name);
    EXPECT_EQ(a.images[i].uri, b.images[i].uri);
    EXPECT_EQ(a.images[i].mime_type, b.images[i].mime_type);
    EXPECT_EQ(a.images[i].buffer_view, b.images[i].buffer_view);
  }
  ASSERT_EQ(a.samplers.size(), b.samplers.size());
  for (size_t i = 0; i < a.samplers.size(); ++i) {
    EXPECT_EQ(a.samplers[i].mag_filter, b.samplers[i].mag_filter);
    EXPECT_EQ(a.samplers[i].min_filter, b.samplers[i].min_filter);
    EXPECT_EQ(a.samplers[i].wrap_s, b.samplers[i].wrap_s);
    EXPECT_EQ(a.samplers[i].wrap_t, b.samplers[i].wrap_t);
  }
  ASSERT_EQ(a.cameras.size(), b.cameras.size());
  for (size_t i = 0; i < a.cameras.size(); ++i) {
    const Camera &x = a.cameras[i], &y = b.cameras[i];
    EXPECT_EQ(x.perspective, y.perspective);
    if (x.perspective) {
      EXPECT_EQ(x.yfov, y.yfov);
      EXPECT_EQ(x.aspect_ratio, y.aspect_ratio);
    } else {
      EXPECT_EQ(x.xmag, y.xmag);
      EXPECT_EQ(x.ymag, y.ymag);
    }
    EXPECT_EQ(x.znear, y.znear);
    EXPECT_EQ(x.zfar, y.zfar);
  }
}

void expectSameAsset(const Asset& a, const Asset& b) {
  expectSameData(a, b);
  expectSameScene(a, b);
  expectSameLook(a, b);
}

Expected<Asset> roundTrip(const Asset& asset, const std::filesystem::path& base_dir = {}) {
  auto glb = writeGlb(asset);
  if (!glb) return glb.error();
  return loadAssetFromMemory(*glb, base_dir);
}

TEST(GlbWriterRoundTrip, DemoAssetSurvivesWriteAndLoad) {
  const Asset demo = test::validated(makeDemoAsset({.targets = 12, .vertices = 2000, .bones = 5, .seed = 3}));
  auto loaded = roundTrip(demo);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  expectSameAsset(demo, *loaded);
}

TEST(GlbWriterRoundTrip, SparseCamerasTexturesAndMatrices) {
  auto built = makeDemoAsset({.targets = 2, .vertices = 100, .bones = 2});
  ASSERT_TRUE(built.ok()) << built.error().message;
  Asset asset = std::move(built).value();
  // A sparse accessor on top of zeros (no bufferView) with u8 indices, as glTF-Transform writes them.
  std::vector<uint8_t> sparse_indices = {1, 4, 7};
  std::vector<float> sparse_values = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  Accessor sparse;
  sparse.name = "sparse";
  sparse.count = 10;
  sparse.type = AccessorType::kVec3;
  sparse.has_sparse = true;
  sparse.sparse.count = 3;
  sparse.sparse.indices_component_type = ComponentType::kUnsignedByte;
  sparse.sparse.indices_buffer_view = appendBufferView(asset, sparse_indices);
  sparse.sparse.values_buffer_view = appendBufferView(
      asset,
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(sparse_values.data()), sparse_values.size() * 4));
  asset.accessors.push_back(sparse);
  // Cameras, a matrix node, sampler/texture/image and a MASK material with every texture slot.
  Camera ortho;
  ortho.perspective = false;
  ortho.xmag = 2;
  ortho.ymag = 3;
  ortho.znear = 0.5f;
  ortho.zfar = 50;
  Camera persp;
  persp.aspect_ratio = 1.5f;
  persp.zfar = 100;
  asset.cameras = {persp, ortho};
  Node camera_node;
  camera_node.name = "camera";
  camera_node.camera = 1;
  camera_node.has_matrix = true;
  camera_node.matrix.m[12] = 4;
  camera_node.matrix.m[0] = 2;
  asset.nodes.push_back(camera_node);
  asset.scenes[0].nodes.push_back(uint32_t(asset.nodes.size() - 1));
  Sampler sampler;
  sampler.mag_filter = 9729;
  sampler.min_filter = 9987;
  sampler.wrap_s = 33071;
  asset.samplers = {sampler};
  Image image;
  image.name = "tex";
  image.uri = "texture.png";
  asset.images = {image};
  asset.textures = {Texture{0, 0}};
  Material& material = asset.materials[0];
  material.base_color_texture = {0, 0, 1.0f};
  material.normal_texture = {0, 1, 0.5f};
  material.occlusion_texture = {0, 0, 0.25f};
  material.emissive_texture = {0, 0, 1.0f};
  material.metallic_roughness_texture = {0, 0, 1.0f};
  material.emissive_factor[1] = 0.5f;
  material.alpha_mode = AlphaMode::kMask;
  material.alpha_cutoff = 0.3f;
  material.double_sided = true;
  asset.nodes[0].weights = {0.25f, 0.75f};
  material.emissive_strength = 2.0f;  // written as its extension object, so the writer declares it
  material.extensions = {"KHR_materials_emissive_strength"};
  asset.extensions_used = {"KHR_materials_emissive_strength"};
  asset = test::validated(std::move(asset));

  auto loaded = roundTrip(asset);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  expectSameAsset(asset, *loaded);
  std::vector<float> decoded = readAccessorFloats(*loaded, uint32_t(asset.accessors.size() - 1));
  ASSERT_EQ(decoded.size(), 30u);
  EXPECT_EQ(decoded[3], 1.0f);
  EXPECT_EQ(decoded[14], 6.0f);
  EXPECT_EQ(decoded[0], 0.0f);
}

// Every shared sample asset: load → write → load gives the same asset.
TEST(GlbWriterRoundTrip, SharedAssets) {
  MORPHKIT_REQUIRE_SHARED();
  int checked = 0;
  for (const std::filesystem::path& file : test::sharedModelFiles()) {
    SCOPED_TRACE(file.string());
    auto original = loadAsset(file);
    if (!original) continue;  // assets the loader rejects on purpose are the loader tests' business
    auto loaded = roundTrip(*original, file.parent_path());
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    expectSameAsset(*original, *loaded);
    ++checked;
  }
  EXPECT_GE(checked, 15);
}

// A file with what the data model does not hold: extras everywhere, an extension morphkit has never heard of (on
// a material, a node and the root), KHR_materials_* objects and a light. Written back as an edit of its document.
std::string documentWithExtensions() {
  std::vector<uint8_t> bin(36, 0);
  const float triangle[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  std::memcpy(bin.data(), triangle, sizeof triangle);
  return test::gltfJson(
      R"("extensionsUsed":["KHR_materials_emissive_strength","KHR_materials_ior","EXT_vendor_thing",)"
      R"("KHR_lights_punctual","KHR_materials_volume"],)"
      R"("extras":{"pipeline":"face-v3"},)"
      R"("extensions":{"KHR_lights_punctual":{"lights":[{"type":"point","intensity":2.5}]}},)"
      R"("buffers":[)" +
      test::bufferJson(bin) +
      R"(],"bufferViews":[{"buffer":0,"byteLength":36}],)"
      R"("accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],)"
      R"("materials":[{"name":"skin","extras":{"sss":0.3},"extensions":{"KHR_materials_emissive_strength":)"
      R"({"emissiveStrength":4},"KHR_materials_ior":{"ior":1.4},"KHR_materials_volume":{"thicknessFactor":0.1},)"
      R"("EXT_vendor_thing":{"level":7}}}],)"
      R"("meshes":[{"name":"tri","extras":{"targetNames":[]},"primitives":[{"attributes":{"POSITION":0},)"
      R"("material":0,"extras":{"lod":0}}]}],)"
      R"("nodes":[{"name":"root","mesh":0,"extras":{"id":"n0"},)"
      R"("extensions":{"KHR_lights_punctual":{"light":0}}}],"scenes":[{"nodes":[0],"extras":{"s":1}}],"scene":0)");
}

std::string writtenJson(const Asset& asset) {
  auto json = writeGltfJson(asset);
  EXPECT_TRUE(json.ok()) << json.error().message;
  return json ? *json : std::string();
}

TEST(GlbWriterDocument, KeepsExtrasAndEveryExtensionOfTheInput) {
  auto asset = test::loadJson(documentWithExtensions());
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const std::string json = writtenJson(*asset);
  for (const char* kept : {R"("pipeline":"face-v3")", R"("sss":0.3)", R"("lod":0)", R"("id":"n0")", R"("s":1)",
                           R"("EXT_vendor_thing":{"level":7})", R"("KHR_materials_volume":{"thicknessFactor":0.1})",
                           R"("lights":[{"type":"point","intensity":2.5}])", R"("KHR_lights_punctual":{"light":0})",
                           R"("KHR_materials_emissive_strength":{"emissiveStrength":4})"}) {
    EXPECT_NE(json.find(kept), std::string::npos) << kept << " missing from " << json;
  }
  // Declared exactly: every extension object written, in the input's order, nothing else.
  EXPECT_NE(json.find(R"("extensionsUsed":["KHR_materials_emissive_strength","KHR_materials_ior",)"
                      R"("EXT_vendor_thing","KHR_lights_punctual","KHR_materials_volume"])"),
            std::string::npos)
      << json;
  // Reloads to the same asset.
  auto glb = writeGlb(*asset);
  ASSERT_TRUE(glb.ok()) << glb.error().message;
  auto again = loadAssetFromMemory(*glb, ".");
  ASSERT_TRUE(again.ok()) << again.error().message;
  expectSameAsset(*asset, *again);
}

// A loaded asset keeps only what the writer needs of its document (issue 56): not a .gltf's data: URIs, which
// the writer replaces with its own buffers, so they are not held twice. What it writes is what the whole text gave;
// a data: string anywhere else (here in extras) is the input's JSON and stays.
TEST(GlbWriterDocument, KeepsTheInputDocumentWithoutItsDataUris) {
  std::string text = documentWithExtensions();
  const std::string extras = R"("extras":{"pipeline":"face-v3"})";
  ASSERT_NE(text.find(extras), std::string::npos);
  text.replace(text.find(extras), extras.size(), R"("extras":{"pipeline":"face-v3","uri":"data:text/plain,kept"})");
  auto asset = test::loadJson(text);
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  EXPECT_EQ(asset->source_json.find(";base64,"), std::string::npos) << asset->source_json;
  EXPECT_NE(asset->source_json.find(R"("uri":"data:text/plain,kept")"), std::string::npos) << asset->source_json;
  EXPECT_NE(asset->source_json.find(R"("buffers":[{"byteLength":36,"uri":""}])"), std::string::npos)
      << asset->source_json;
  Asset whole = *asset;
  whole.source_json = text;
  EXPECT_EQ(writtenJson(*asset), writtenJson(whole));
  auto glb = writeGlb(*asset), whole_glb = writeGlb(whole);
  ASSERT_TRUE(glb.ok() && whole_glb.ok());
  EXPECT_EQ(*glb, *whole_glb);
}

// EXT_texture_webp survives load → write → load, with and without a fallback `source`, declared as the input
// declared it (required only where the input required it: a file with a fallback still loads without WebP).
TEST(GlbWriterDocument, KeepsTextureWebp) {
  const std::vector<uint8_t> pixels = {10, 20, 30, 255, 40, 50, 60, 255, 70, 80, 90, 255, 100, 110, 120, 255};
  auto webp = encodeWebp(pixels, 2, 2, {.lossless = true, .quality = 50});
  auto png = encodePng(pixels, 2, 2);
  ASSERT_TRUE(webp.ok() && png.ok());
  for (bool fallback : {false, true}) {
    SCOPED_TRACE(fallback ? "with fallback" : "WebP only");
    auto asset = test::loadJson(fallback ? test::webpTriangle(*webp, *png) : test::webpTriangle(*webp));
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    ASSERT_EQ(asset->textures[0].webp_source, 0u);
    const std::string json = writtenJson(*asset);
    EXPECT_NE(json.find(R"("extensions":{"EXT_texture_webp":{"source":0}})"), std::string::npos) << json;
    EXPECT_EQ(json.find(R"("extensionsRequired")") == std::string::npos, fallback) << json;
    auto glb = writeGlb(*asset);
    ASSERT_TRUE(glb.ok()) << glb.error().message;
    auto again = loadAssetFromMemory(*glb, ".");
    ASSERT_TRUE(again.ok()) << again.error().message;
    expectSameAsset(*asset, *again);
    auto bytes = imageBytes(*again, 0);
    ASSERT_TRUE(bytes.ok()) << bytes.error().message;
    EXPECT_TRUE(std::equal(bytes->begin(), bytes->end(), webp->begin(), webp->end()));
  }
  // An asset built in code (no source document) is written from the data model.
  auto built = test::loadJson(test::webpTriangle(*webp));
  ASSERT_TRUE(built.ok());
  built->source_json.clear();
  auto glb = writeGlb(*built);
  ASSERT_TRUE(glb.ok()) << glb.error().message;
  auto again = loadAssetFromMemory(*glb, ".");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->textures[0].webp_source, 0u);
}

TEST(GlbWriterDocument, DeclaresWhatItWritesAndDropsWhatItDoesNot) {
  auto asset = test::loadJson(documentWithExtensions());
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  // Declared but absent from the document: not declared in the output.
  asset->extensions_used.push_back("KHR_texture_transform");
  asset->extensions_required.push_back("KHR_texture_transform");
  // An appended object is written from the Asset and keeps the input's objects around it.
  AppendAccessorOptions options;
  options.min_max = true;
  const float times[2] = {0, 1};
  const uint32_t input = appendAccessor(*asset, std::span<const float>(times), AccessorType::kScalar, options);
  const float moves[6] = {0, 0, 0, 0, 1, 0};
  const uint32_t output = appendAccessor(*asset, std::span<const float>(moves), AccessorType::kVec3);
  Animation animation;
  animation.name = "added";
  animation.samplers.push_back({input, output, Interpolation::kStep});
  animation.channels.push_back({0, 0, TargetPath::kTranslation});
  asset->animations.push_back(animation);
  const std::string json = writtenJson(test::validated(*asset));
  EXPECT_EQ(json.find("KHR_texture_transform"), std::string::npos) << json;
  EXPECT_EQ(json.find("extensionsRequired"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("name":"added")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("interpolation":"STEP")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("id":"n0")"), std::string::npos) << json;
}

TEST(GlbWriterDocument, QuantizedAttributesDeclareMeshQuantization) {
  Asset asset;
  const int16_t positions[12] = {0, 0, 0, 0, 100, 0, 0, 0, 0, 100, 0, 0};  // 8-byte stride: 4-byte aligned
  AppendAccessorOptions options;
  options.min_max = true;
  options.target = kArrayBuffer;
  const uint32_t position = appendAccessor(asset, std::span<const int16_t>(positions), AccessorType::kVec4, options);
  asset.accessors[position].type = AccessorType::kVec3;
  asset.accessors[position].min.resize(3);
  asset.accessors[position].max.resize(3);
  asset.buffer_views[asset.accessors[position].buffer_view].byte_stride = 8;
  Mesh mesh;
  mesh.primitives.push_back({{{"POSITION", position}}});
  asset.meshes.push_back(mesh);
  asset.nodes.push_back(Node{.mesh = 0});
  asset.extensions_used = {"KHR_mesh_quantization"};  // for the validation pass; the writer derives its own
  asset = test::validated(std::move(asset));
  asset.extensions_used.clear();
  const std::string json = writtenJson(asset);
  EXPECT_NE(json.find(R"("extensionsUsed":["KHR_mesh_quantization"])"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("extensionsRequired":["KHR_mesh_quantization"])"), std::string::npos) << json;
}

}  // namespace
}  // namespace morphkit
