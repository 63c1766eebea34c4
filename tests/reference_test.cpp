// reference_test.cpp — differential test of the CPU pose (reference and fast paths) against the independent
// engines' output in shared/reference/ (three.js, cross-checked by Babylon.js; see its README.md for the format
// and the tolerances used here): every model file under shared/assets/gltf, every case in its reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "morphkit/gltf.h"
#include "morphkit/io.h"
#include "morphkit/pose.h"
#include "test_support.h"

namespace morphkit {
namespace {

// ---- A tiny JSON reader, enough for the reference files (numeric arrays are kept as doubles) ------------------
struct Json {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Json> items;                           // arrays of non-numbers
  std::vector<double> numbers;                       // arrays of numbers only
  std::vector<std::pair<std::string, Json>> fields;  // objects

  const Json* get(std::string_view key) const {
    for (const auto& [k, v] : fields) {
      if (k == key) return &v;
    }
    return nullptr;
  }
};

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : s_(text) {}
  bool parse(Json& out) {
    if (!value(out)) return false;
    ws();
    return pos_ == s_.size();
  }

 private:
  void ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool number(double& out) {
    const char* begin = s_.data() + pos_;
    char* end = nullptr;
    out = std::strtod(begin, &end);
    if (end == begin) return false;
    pos_ += size_t(end - begin);
    return true;
  }
  bool string(std::string& out) {
    if (s_[pos_] != '"') return false;
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ++pos_;  // escapes kept literally (only names here)
      out += s_[pos_++];
    }
    if (pos_ >= s_.size()) return false;
    ++pos_;
    return true;
  }
  bool value(Json& out) {
    ws();
    if (pos_ >= s_.size()) return false;
    const char c = s_[pos_];
    if (c == 'n') return out.kind = Json::kNull, literal("null");
    if (c == 't') return out.kind = Json::kBool, out.boolean = true, literal("true");
    if (c == 'f') return out.kind = Json::kBool, out.boolean = false, literal("false");
    if (c == '"') return out.kind = Json::kString, string(out.text);
    if (c == '[') {
      out.kind = Json::kArray;
      ++pos_;
      ws();
      if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
      const bool numeric = s_[pos_] == '-' || std::isdigit(static_cast<unsigned char>(s_[pos_]));
      for (;;) {
        if (numeric) {
          double d;
          ws();
          if (!number(d)) return false;
          out.numbers.push_back(d);
        } else {
          out.items.emplace_back();
          if (!value(out.items.back())) return false;
        }
        ws();
        if (pos_ >= s_.size()) return false;
        if (s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (s_[pos_] == ']') return ++pos_, true;
        return false;
      }
    }
    if (c == '{') {
      out.kind = Json::kObject;
      ++pos_;
      ws();
      if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
      for (;;) {
        ws();
        std::string key;
        if (pos_ >= s_.size() || !string(key)) return false;
        ws();
        if (pos_ >= s_.size() || s_[pos_] != ':') return false;
        ++pos_;
        out.fields.emplace_back(std::move(key), Json{});
        if (!value(out.fields.back().second)) return false;
        ws();
        if (pos_ >= s_.size()) return false;
        if (s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (s_[pos_] == '}') return ++pos_, true;
        return false;
      }
    }
    out.kind = Json::kNumber;
    return number(out.number);
  }
  std::string_view s_;
  size_t pos_ = 0;
};

// ---- The models: every file under shared/assets/gltf (ModelList.CoversEveryModelFile keeps this complete) ----
const std::vector<std::string>& modelFiles() {
  static const std::vector<std::string> files = {
      "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
      "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
      "AnimatedTriangle/glTF/AnimatedTriangle.gltf",
      "BlenderIO_01_cs_morph/01_cs_morph.gltf",
      "BlenderIO_01_morphed_triangle/01_morphed_triangle.gltf",
      "BlenderIO_03_skinned_cylinder/03_skinned_cylinder.gltf",
      "Fox/glTF-Binary/Fox.glb",
      "InterpolationTest/glTF-Binary/InterpolationTest.glb",
      "MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb",
      "MorphSkinBlob52/MorphSkinBlob52.glb",
      "MorphSkinBlob52/MorphSkinBlob52_quantized.glb",
      "MorphSkinBlob52/MorphSkinBlob52_sparse.glb",
      "RiggedFigure/glTF/RiggedFigure.gltf",
      "RiggedSimple/glTF-Binary/RiggedSimple.glb",
      "SimpleMorph/glTF/SimpleMorph.gltf",
      "SimpleSkin/glTF/SimpleSkin.gltf",
      "SimpleSkin/glTF-Embedded/SimpleSkin.gltf",
      "SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf",
      "SkinMorphEdgeCases/skin_morph.gltf",
      "SkinMorphEdgeCases/skin_morph.glb",
  };
  return files;
}

// X/Y.gltf|glb → X/Y.json (both SkinMorphEdgeCases containers map to skin_morph.json).
std::filesystem::path referenceFor(const std::string& model) {
  std::filesystem::path rel(model);
  rel.replace_extension(".json");
  return test::referenceDir() / rel;
}

struct CaseStats {
  int cases = 0;
  double worst_position_ratio = 0;  // max |Δ| / tolerance over every position
  double worst_normal = 0;
};

// Compares every case of the model's reference with evaluatePose on `path`.
void checkModel(const std::string& model, CpuPath path, CaseStats& stats) {
  const std::filesystem::path file = test::assetsDir() / model;
  Expected<Asset> asset = loadAsset(file);
  ASSERT_TRUE(asset.ok()) << model << ": " << asset.error().message;
  Expected<std::vector<uint8_t>> bytes = readFile(referenceFor(model));
  ASSERT_TRUE(bytes.ok()) << referenceFor(model) << ": " << bytes.error().message;
  Json ref;
  ASSERT_TRUE(JsonParser(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size())).parse(ref))
      << "unparsable reference " << referenceFor(model);
  const Json* cases = ref.get("cases");
  ASSERT_TRUE(cases && cases->kind == Json::kArray && !cases->items.empty());
  // SimpleSkin's non-unit keyframe quaternions: the README grants 2e-4 × bbox there.
  const double position_tolerance = model.rfind("SimpleSkin/", 0) == 0 ? 2e-4 : 1e-5;

  Expected<PosePrepared> prepared = preparePose(*asset);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  ThreadPool pool(2);
  for (const Json& c : cases->items) {
    const Json* anim = c.get("anim");
    const Json* time = c.get("time");
    const Json* meshes = c.get("meshes");
    ASSERT_TRUE(anim && time && meshes);
    PoseOptions options;
    options.animation = anim->kind == Json::kNull ? kNone : uint32_t(anim->number);
    options.time = time->number;
    options.path = path;
    options.pool = &pool;
    const std::string where = model + " anim " + (anim->kind == Json::kNull ? std::string("null") :
                              std::to_string(options.animation)) + " t=" + std::to_string(options.time);
    SCOPED_TRACE(where);
    Expected<PoseResult> pose = evaluatePose(*prepared, options);
    ASSERT_TRUE(pose.ok()) << pose.error().message;
    ASSERT_EQ(pose->meshes.size(), meshes->items.size());
    ++stats.cases;
    for (size_t i = 0; i < meshes->items.size(); ++i) {
      const Json& want = meshes->items[i];
      const PosedPrimitive& got = pose->meshes[i];
      ASSERT_EQ(got.node, uint32_t(want.get("node")->number));
      ASSERT_EQ(got.mesh, uint32_t(want.get("mesh")->number));
      ASSERT_EQ(got.primitive, uint32_t(want.get("primitive")->number));
      EXPECT_EQ(got.skinned, want.get("skinned")->boolean);
      ASSERT_EQ(got.vertex_count, uint32_t(want.get("vertexCount")->number));
      const std::vector<double>& ww = want.get("weights")->numbers;
      ASSERT_EQ(got.weights.size(), ww.size());
      for (size_t k = 0; k < ww.size(); ++k) EXPECT_NEAR(got.weights[k], ww[k], 1e-6) << "weight " << k;

      const std::vector<double>& wp = want.get("positions")->numbers;
      ASSERT_EQ(got.positions.size(), wp.size());
      double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
      for (size_t k = 0; k < wp.size(); ++k) {
        lo[k % 3] = std::min(lo[k % 3], wp[k]);
        hi[k % 3] = std::max(hi[k % 3], wp[k]);
      }
      const double diagonal = std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                                        (hi[2] - lo[2]) * (hi[2] - lo[2]));
      const double tol = std::max(position_tolerance * diagonal, 1e-7);
      int reported = 0;
      for (size_t k = 0; k < wp.size(); ++k) {
        const double err = std::fabs(double(got.positions[k]) - wp[k]);
        stats.worst_position_ratio = std::max(stats.worst_position_ratio, err / tol);
        if (!(err <= tol) && reported++ < 5) {
          ADD_FAILURE() << "mesh entry " << i << " position[" << k << "] = " << got.positions[k] << ", reference "
                        << wp[k] << " (tolerance " << tol << ")";
        }
      }
      const Json* wn = want.get("normals");
      if (wn->kind == Json::kNull) {
        EXPECT_TRUE(got.normals.empty());
      } else {
        ASSERT_EQ(got.normals.size(), wn->numbers.size());
        for (size_t k = 0; k < wn->numbers.size(); ++k) {
          const double err = std::fabs(double(got.normals[k]) - wn->numbers[k]);
          stats.worst_normal = std::max(stats.worst_normal, err);
          if (!(err <= 1e-4) && reported++ < 10) {
            ADD_FAILURE() << "mesh entry " << i << " normal[" << k << "] = " << got.normals[k] << ", reference "
                          << wn->numbers[k];
          }
        }
      }
    }
  }
}

class ReferenceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceTest, ReferencePathMatchesEveryCase) {
  MORPHKIT_REQUIRE_SHARED();
  CaseStats stats;
  checkModel(GetParam(), CpuPath::kReference, stats);
  RecordProperty("cases", stats.cases);
  std::printf("  %s [reference]: %d cases, worst position error %.3g of tolerance, worst normal error %.3g\n",
              GetParam().c_str(), stats.cases, stats.worst_position_ratio, stats.worst_normal);
}

TEST_P(ReferenceTest, FastPathMatchesEveryCase) {
  MORPHKIT_REQUIRE_SHARED();
  CaseStats stats;
  checkModel(GetParam(), CpuPath::kFast, stats);
  std::printf("  %s [fast]: %d cases, worst position error %.3g of tolerance, worst normal error %.3g\n",
              GetParam().c_str(), stats.cases, stats.worst_position_ratio, stats.worst_normal);
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (char c : info.param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllModels, ReferenceTest, ::testing::ValuesIn(modelFiles()), testName);

// The list above must name every model file that exists, and each must have a reference file.
TEST(ModelList, CoversEveryModelFile) {
  MORPHKIT_REQUIRE_SHARED();
  std::set<std::string> listed(modelFiles().begin(), modelFiles().end());
  std::set<std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(test::assetsDir())) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".gltf" || ext == ".glb") {
      found.insert(std::filesystem::relative(entry.path(), test::assetsDir()).generic_string());
    }
  }
  EXPECT_EQ(found, listed) << "update modelFiles() in reference_test.cpp";
  for (const std::string& model : found) EXPECT_TRUE(std::filesystem::exists(referenceFor(model))) << model;
}

// writePoseJson output re-read by the parser above: the schema of shared/reference/README.md.
TEST(PoseJson, MatchesTheReferenceSchema) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> asset = loadAsset(test::assetsDir() / "SkinMorphEdgeCases/skin_morph.gltf");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  std::vector<PoseResult> cases;
  for (double t : {0.0, 0.5}) {
    PoseOptions options;
    options.animation = t == 0.0 ? kNone : 0;
    options.time = t;
    Expected<PoseResult> pose = poseAsset(*asset, kNone, options);
    ASSERT_TRUE(pose.ok()) << pose.error().message;
    cases.push_back(std::move(*pose));
  }
  const std::string text = writePoseJson(cases, "SkinMorphEdgeCases/skin_morph.gltf");
  Json doc;
  ASSERT_TRUE(JsonParser(text).parse(doc)) << text.substr(0, 200);
  ASSERT_EQ(doc.kind, Json::kObject);
  std::vector<std::string> keys;
  for (const auto& f : doc.fields) keys.push_back(f.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"model", "engine", "cases"}));
  EXPECT_EQ(doc.get("engine")->text, "morphkit");
  EXPECT_EQ(doc.get("model")->text, "SkinMorphEdgeCases/skin_morph.gltf");
  const Json* c = doc.get("cases");
  ASSERT_EQ(c->items.size(), 2u);
  EXPECT_EQ(c->items[0].get("anim")->kind, Json::kNull);
  EXPECT_EQ(c->items[1].get("anim")->number, 0);
  EXPECT_EQ(c->items[1].get("time")->number, 0.5);
  const Json* meshes = c->items[1].get("meshes");
  ASSERT_EQ(meshes->items.size(), 3u);
  std::vector<std::string> mesh_keys;
  for (const auto& f : meshes->items[0].fields) mesh_keys.push_back(f.first);
  EXPECT_EQ(mesh_keys, (std::vector<std::string>{"node", "mesh", "primitive", "skinned", "vertexCount", "weights",
                                                 "positions", "normals"}));
  EXPECT_EQ(meshes->items[2].get("normals")->kind, Json::kNull);  // mesh 1 primitive 1 has no NORMAL
  EXPECT_EQ(meshes->items[0].get("positions")->numbers.size(), 18u);
}

}  // namespace
}  // namespace morphkit
