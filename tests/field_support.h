// SPDX-License-Identifier: MIT
// The helpers of field_test.cpp and field_compression_test.cpp (one file until it passed 600 lines).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/core/pose.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/accessor.h"
#include "morphkit/model/primitive.h"
#include "morphkit/vk/gpu_pose.h"
#include "reference_json.h"
#include "test_support.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

inline std::filesystem::path fieldDir() {
  return test::sharedDir() / "field";
}

struct FieldModel {
  std::string file;           // under ../shared/field/assets
  double position_tolerance;  // × the primitive's bounding-box diagonal (README "Tolerances")
};

// Every file of ../shared/field/assets (FieldList.CoversEveryFieldFile keeps this complete).
inline const std::vector<FieldModel>& fieldModels() {
  static const std::vector<FieldModel> models = {
      {"Fox_draco.glb", 1e-5},
      {"Fox_gltfpack.glb", 3e-5},  // gltfpack folds dequantization into node transforms: the engines differ by 1.4e-5
      {"Fox_meshopt.glb", 3e-5},
      {"Fox_unnormalized.glb", 1e-5},
      {"MorphSkinBlob52_draco.glb", 1e-5},
      {"MorphSkinBlob52_meshopt.glb", 1e-5},
      {"RiggedFigure_unnormalized.glb", 1e-5},
  };
  return models;
}

inline std::filesystem::path fieldReference(const std::string& file) {
  return fieldDir() / "reference" / std::filesystem::path(file).replace_extension(".json");
}

// Poses every case of the file's reference with `pose_case` and compares.
template <class PoseCase>
inline void checkField(const FieldModel& model, PoseCase&& pose_case, test::ReferenceStats& stats) {
  test::Json ref;
  ASSERT_TRUE(test::loadReference(fieldReference(model.file), ref));
  for (const test::Json& c : ref.get("cases")->items) {
    SCOPED_TRACE(test::caseName(model.file, c));
    Expected<PoseResult> pose = pose_case(test::caseAnimation(c), test::caseTime(c));
    ASSERT_TRUE(pose.ok()) << pose.error().message;
    test::expectMatchesCase(*pose, c, model.position_tolerance, stats);
  }
}

inline void checkCpu(const FieldModel& model, CpuPath path) {
  Expected<Asset> asset = loadAsset(fieldDir() / "assets" / model.file);
  ASSERT_TRUE(asset.ok()) << model.file << ": " << asset.error().message;
  Expected<PosePrepared> prepared = preparePose(*asset);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  ThreadPool pool(2);
  test::ReferenceStats stats;
  checkField(
      model,
      [&](uint32_t animation, double time) {
        PoseOptions options;
        options.animation = animation;
        options.time = time;
        options.path = path;
        options.pool = &pool;
        return evaluatePose(*prepared, options);
      },
      stats);
  std::printf("  %s [%s]: %d cases, worst position error %.3g of tolerance (%.3g of bbox), worst normal error %.3g\n",
              model.file.c_str(), path == CpuPath::kFast ? "fast" : "reference", stats.cases,
              stats.worst_position_ratio, stats.worst_position_relative, stats.worst_normal);
}

class FieldReferenceTest : public ::testing::TestWithParam<FieldModel> {};

inline std::string fieldName(const ::testing::TestParamInfo<FieldModel>& info) {
  std::string name;
  for (char c : std::filesystem::path(info.param.file).stem().string()) {
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

// The GPU compute path against the same references and tolerances (not only against the CPU).
class FieldGpuTest : public test::VulkanTest {};

// ---- Skin weights that do not sum to 1 ---------------------------------------------------------------------

// A skinned triangle whose vertex 1 has all-zero weights: it must follow joint JOINTS_0[1].x, as three.js does.
inline std::string zeroWeightTriangle() {
  test::Bytes b;
  b.put<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});                   // POSITION, 36 bytes
  b.put<uint8_t>({0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0});        // JOINTS_0, 12 bytes
  b.put<float>({1, 0, 0, 0, 0, 0, 0, 0, 0.25f, 0.25f, 0, 0});  // WEIGHTS_0: v0 ok, v1 zero, v2 sums 0.5
  const std::string body =
      "\"buffers\":[" + test::bufferJson(b.data) +
      "],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12},"
      "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":48}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":["
      "1,1,0]},"
      "{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
      "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
      "\"skins\":[{\"joints\":[1,2]}],"
      "\"nodes\":[{\"mesh\":0,\"skin\":0},{\"translation\":[10,0,0]},{\"translation\":[0,20,0]}],"
      "\"scenes\":[{\"nodes\":[0,1,2]}]";
  return test::gltfJson(body);
}

// ---- Compressed streams: every rule checked, corrupt data refused with one line ------------------------------

// A GLB split into its JSON text and BIN chunk, so tests can edit either and reassemble it.
struct GlbFile {
  std::string json;
  std::vector<uint8_t> bin;
};

inline GlbFile readGlb(const std::filesystem::path& path) {
  const std::string bytes = test::slurp(path);
  GlbFile glb;
  uint32_t json_length = 0, bin_length = 0;
  std::memcpy(&json_length, bytes.data() + 12, 4);
  glb.json = bytes.substr(20, json_length);
  while (!glb.json.empty() && glb.json.back() == ' ') glb.json.pop_back();
  std::memcpy(&bin_length, bytes.data() + 20 + json_length, 4);
  const size_t bin_start = 20 + json_length + 8;
  glb.bin.assign(bytes.begin() + ptrdiff_t(bin_start), bytes.begin() + ptrdiff_t(bin_start + bin_length));
  return glb;
}

inline std::vector<uint8_t> assemble(const GlbFile& glb) {
  return test::makeGlb(glb.json, &glb.bin);
}

// Replaces the one occurrence of `from` in the JSON (the test fails when it is not exactly one).
inline void replaceOnce(std::string& json, const std::string& from, const std::string& to) {
  const size_t at = json.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  ASSERT_EQ(json.find(from, at + 1), std::string::npos) << from;
  json.replace(at, from.size(), to);
}

inline Expected<Asset> loadGlb(const GlbFile& glb) {
  const std::vector<uint8_t> bytes = assemble(glb);
  return loadAssetFromMemory(bytes, fieldDir() / "assets");
}

// Fox_meshopt.glb: bufferView 1 (POSITION, ATTRIBUTES) is compressed in buffers[0] at 26764, 2125 bytes.
constexpr const char* kFoxMeshoptView1 =
    "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"ATTRIBUTES\"";

// ---- KHR_texture_transform ------------------------------------------------------------------------------------

struct ObjMesh {
  std::vector<std::array<double, 3>> v;
  std::vector<std::array<double, 2>> vt;
  std::vector<std::array<int, 6>> faces;  // v, vt of 3 corners (0-based)
};

inline ObjMesh parseObj(const std::string& text) {
  ObjMesh obj;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string tag;
    l >> tag;
    if (tag == "v") {
      std::array<double, 3> p{};
      l >> p[0] >> p[1] >> p[2];
      obj.v.push_back(p);
    } else if (tag == "vt") {
      std::array<double, 2> t{};
      l >> t[0] >> t[1];
      obj.vt.push_back(t);
    } else if (tag == "f") {
      std::array<int, 6> f{};
      for (int k = 0; k < 3; ++k) {
        std::string corner;
        l >> corner;
        int a = 0, b = 0;
        std::sscanf(corner.c_str(), "%d/%d", &a, &b);
        f[size_t(k)] = a - 1;
        f[size_t(k) + 3] = b - 1;
      }
      obj.faces.push_back(f);
    }
  }
  return obj;
}

// ---- KHR_texture_basisu ---------------------------------------------------------------------------------------

// A textured triangle whose only texture is KTX2 (KHR_texture_basisu required), with or without a PNG fallback.
inline std::string basisuTriangle(bool fallback) {
  test::Bytes b;
  b.put<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});  // POSITION
  b.put<float>({0, 0, 1, 0, 0, 1});           // TEXCOORD_0
  const std::vector<uint8_t> ktx2 = {0xAB, 'K', 'T', 'X', ' ', '2', '0', 0xBB, 0x0D, 0x0A, 0x1A, 0x0A};
  // A 1×1 PNG (signature + IHDR + IDAT + IEND), red.
  const std::vector<uint8_t> png = {0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48,
                                    0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00,
                                    0x00, 0x90, 0x77, 0x53, 0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41, 0x54, 0x08,
                                    0xD7, 0x63, 0xF8, 0xCF, 0xC0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xDD, 0x8D,
                                    0xB0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82};
  std::string images = "{\"uri\":\"data:image/ktx2;base64," + test::base64(ktx2) + "\",\"mimeType\":\"image/ktx2\"}";
  if (fallback) images += ",{\"uri\":\"data:image/png;base64," + test::base64(png) + "\"}";
  const std::string texture = fallback ? "{\"source\":1,\"extensions\":{\"KHR_texture_basisu\":{\"source\":0}}}"
                                       : "{\"extensions\":{\"KHR_texture_basisu\":{\"source\":0}}}";
  const std::string body =
      "\"extensionsUsed\":[\"KHR_texture_basisu\"],\"extensionsRequired\":[\"KHR_texture_basisu\"],"
      "\"buffers\":[" +
      test::bufferJson(b.data) +
      "],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":24}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":["
      "1,1,0]},"
      "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}],"
      "\"images\":[" +
      images + "],\"textures\":[" + texture +
      "],"
      "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}},\"emissiveTexture\":{\"index\":0}}"
      "],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1},\"material\":0}]}],"
      "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]";
  return test::gltfJson(body);
}

}  // namespace
}  // namespace morphkit
