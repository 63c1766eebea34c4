// SPDX-License-Identifier: MIT
// Sweep over every model file in ../shared/assets/gltf: each loads, `morphkit inspect --json` succeeds on it, and
// what inspect reports matches the facts of MANIFEST.md's "Structure" table (parsed from the markdown here, at
// test time): meshes/primitives, vertex sum, attribute set, morph targets and what they displace, default
// weights and targetNames, skins × joints, sparse/integer/normalized encodings, animations with their channel
// count and (path, interpolation) set, extensions. Files the table does not list are checked against their
// README's facts and against their sibling container (.gltf vs .glb).
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/gltf/gltf.h"
#include "test_support.h"

namespace morphkit {
namespace {

// ---------------------------------------------------------------------------------------------------------
// Markdown parsing
std::string trim(std::string s) {
  size_t a = s.find_first_not_of(" \t");
  size_t b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::vector<std::string> split(const std::string& s, const std::string& separator) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t at = s.find(separator, start);
    out.push_back(trim(s.substr(start, at == std::string::npos ? std::string::npos : at - start)));
    if (at == std::string::npos) break;
    start = at + separator.size();
  }
  return out;
}

std::string stripTicks(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '`'), s.end());
  return trim(s);
}

std::set<std::string> slashSet(const std::string& s) {
  std::set<std::string> out;
  if (s == "-" || s.empty()) return out;
  for (const auto& part : split(s, "/")) out.insert(part);
  return out;
}

struct ManifestRow {
  std::string model, file;
  int meshes = 0, primitives = 0;
  long vertices = 0;
  std::set<std::string> attributes;
  int primitives_with_targets = 0;  // "2x 1 (POSITION)" → 2; "2 (...)" → all primitives
  int targets_per_primitive = 0;
  std::set<std::string> target_attributes;
  bool has_weights = false;
  std::vector<double> weights;
  bool target_names = false;
  int skins = 0, joints = 0;
  std::set<std::string> normalized, integer, sparse;  // "attr:NORMAL:i8", "target:POSITION", ...
  int animations = 0, channels = 0;
  std::set<std::string> path_interpolations;  // "rotation LINEAR"
  std::set<std::string> extensions_used, extensions_required;
};

std::vector<double> parseNumberList(const std::string& text) {  // "[0.0, 0.5]"
  std::vector<double> out;
  std::string inner = text.substr(text.find('[') + 1);
  inner = inner.substr(0, inner.find(']'));
  for (const auto& item : split(inner, ",")) {
    if (!item.empty()) out.push_back(std::stod(item));
  }
  return out;
}

ManifestRow parseRow(const std::vector<std::string>& cells) {
  ManifestRow row;
  row.model = cells[0];
  row.file = stripTicks(cells[1]);
  auto mp = split(cells[2], "/");
  row.meshes = std::stoi(mp[0]);
  row.primitives = std::stoi(mp[1]);
  row.vertices = std::stol(cells[3]);
  row.attributes = slashSet(cells[4]);
  // Morph targets: "-", "2 (NORMAL/POSITION)", "2x 1 (POSITION)".
  std::string morph = cells[5];
  if (morph != "-") {
    std::string counts = trim(morph.substr(0, morph.find('(')));
    size_t x = counts.find("x ");
    if (x != std::string::npos) {
      row.primitives_with_targets = std::stoi(counts.substr(0, x));
      row.targets_per_primitive = std::stoi(counts.substr(x + 2));
    } else {
      row.primitives_with_targets = row.primitives;
      row.targets_per_primitive = std::stoi(counts);
    }
    std::string inside = morph.substr(morph.find('(') + 1);
    row.target_attributes = slashSet(inside.substr(0, inside.find(')')));
  }
  // Default weights: "-", "`[0.5]`", "52 x `0`; targetNames".
  std::string weights = cells[6];
  row.target_names = weights.find("targetNames") != std::string::npos;
  weights = trim(weights.substr(0, weights.find(';')));
  if (weights != "-") {
    row.has_weights = true;
    if (weights.find('[') != std::string::npos) {
      row.weights = parseNumberList(weights);
    } else {
      auto parts = split(weights, " x ");
      row.weights.assign(size_t(std::stoi(parts[0])), std::stod(stripTicks(parts[1])));
    }
  }
  if (cells[7] != "-") {
    auto parts = split(cells[7], " x ");
    row.skins = std::stoi(parts[0]);
    row.joints = std::stoi(parts[1]);
  }
  // Encodings: "all float" or groups "normalized: a, b; int: c; sparse: d".
  if (cells[8] != "all float") {
    for (const auto& group : split(cells[8], "; ")) {
      size_t colon = group.find(": ");
      std::string kind = group.substr(0, colon);
      std::set<std::string>* into = kind == "normalized" ? &row.normalized : kind == "int" ? &row.integer : &row.sparse;
      EXPECT_TRUE(kind == "normalized" || kind == "int" || kind == "sparse") << "unknown encoding group " << kind;
      for (const auto& item : split(group.substr(colon + 2), ", ")) into->insert(item);
    }
  }
  // Animations: "-" or "3 anim, 63 ch: rotation LINEAR, translation CUBICSPLINE/LINEAR".
  if (cells[9] != "-") {
    std::string text = cells[9];
    row.animations = std::stoi(text);
    row.channels = std::stoi(text.substr(text.find(", ") + 2));
    for (const auto& item : split(text.substr(text.find(": ") + 2), ", ")) {
      auto words = split(item, " ");
      for (const auto& interpolation : split(words[1], "/"))
        row.path_interpolations.insert(words[0] + " " + interpolation);
    }
  }
  // Extensions: "-" or "KHR_mesh_quantization (required: KHR_mesh_quantization)".
  if (cells[10] != "-") {
    std::string text = cells[10];
    std::string used = trim(text.substr(0, text.find('(')));
    for (const auto& e : split(used, ", ")) row.extensions_used.insert(e);
    size_t required = text.find("required: ");
    if (required != std::string::npos) {
      std::string list = text.substr(required + 10);
      for (const auto& e : split(list.substr(0, list.find(')')), ", ")) row.extensions_required.insert(e);
    }
  }
  return row;
}

std::vector<ManifestRow> parseManifest(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<ManifestRow> rows;
  bool in_structure = false, header_seen = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) {
      in_structure = line.find("Structure") != std::string::npos;
      continue;
    }
    if (!in_structure || line.rfind("|", 0) != 0) continue;
    auto cells = split(line.substr(1, line.rfind('|') - 1), "|");
    if (!header_seen) {  // the header row, then the |---| row
      header_seen = true;
      EXPECT_EQ(cells.size(), 11u) << line;
      EXPECT_EQ(cells[0], "Model");
      continue;
    }
    if (cells[0].rfind("---", 0) == 0) continue;
    if (cells.size() != 11) {
      ADD_FAILURE() << "malformed Structure row: " << line;
      continue;
    }
    rows.push_back(parseRow(cells));
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------------
// What `morphkit inspect --json` reports, reduced to the manifest's vocabulary.
struct Facts {
  int meshes = 0, primitives = 0;
  long vertices = 0;
  std::set<std::string> attributes;
  int primitives_with_targets = 0;
  std::set<int> targets_per_primitive;  // over primitives that have targets
  std::set<std::string> target_attributes;
  std::vector<std::vector<double>> weights;  // per mesh
  std::vector<bool> target_names;            // per mesh
  std::vector<int> skin_joints;
  std::set<std::string> normalized, integer, sparse;
  int animations = 0, channels = 0;
  std::set<std::string> path_interpolations;
  std::set<std::string> extensions_used, extensions_required;
};

std::string str(simdjson::dom::element e) {
  return std::string(std::string_view(e));
}

void addEncoding(Facts& facts, const std::string& where, simdjson::dom::element a) {
  std::string component = str(a["componentType"]);
  if (bool(a["sparse"])) facts.sparse.insert(where);
  if (component == "f32") return;
  (bool(a["normalized"]) ? facts.normalized : facts.integer).insert(where + ":" + component);
}

Facts factsFromInspect(simdjson::dom::element root) {
  Facts facts;
  for (simdjson::dom::element e : root["extensionsUsed"].get_array()) facts.extensions_used.insert(str(e));
  for (simdjson::dom::element e : root["extensionsRequired"].get_array()) facts.extensions_required.insert(str(e));
  for (simdjson::dom::element mesh : root["meshes"].get_array()) {
    ++facts.meshes;
    std::vector<double> weights;
    for (simdjson::dom::element w : mesh["weights"].get_array()) weights.push_back(double(w));
    facts.weights.push_back(weights);
    facts.target_names.push_back(simdjson::dom::array(mesh["targetNames"]).size() > 0);
    for (simdjson::dom::element primitive : mesh["primitives"].get_array()) {
      ++facts.primitives;
      facts.vertices += int64_t(primitive["vertexCount"]);
      for (simdjson::dom::element a : primitive["attributes"].get_array()) {
        std::string name = str(a["name"]);
        facts.attributes.insert(name);
        addEncoding(facts, "attr:" + name, a);
      }
      int targets = int(int64_t(primitive["targetCount"]));
      if (targets > 0) {
        ++facts.primitives_with_targets;
        facts.targets_per_primitive.insert(targets);
      }
      for (simdjson::dom::element target : primitive["targetAttributes"].get_array()) {
        for (simdjson::dom::element a : target.get_array()) {
          std::string name = str(a["name"]);
          facts.target_attributes.insert(name);
          addEncoding(facts, "target:" + name, a);
        }
      }
    }
  }
  for (simdjson::dom::element skin : root["skins"].get_array())
    facts.skin_joints.push_back(int(int64_t(skin["joints"])));
  for (simdjson::dom::element animation : root["animations"].get_array()) {
    ++facts.animations;
    for (simdjson::dom::element channel : animation["channels"].get_array()) {
      ++facts.channels;
      std::string path = str(channel["path"]);
      facts.path_interpolations.insert(path + " " + str(channel["interpolation"]));
      std::string where = "anim.output:" + path;
      if (bool(channel["outputSparse"])) facts.sparse.insert(where);
      std::string component = str(channel["outputComponentType"]);
      if (component != "f32")
        (bool(channel["outputNormalized"]) ? facts.normalized : facts.integer).insert(where + ":" + component);
    }
  }
  return facts;
}

// ---------------------------------------------------------------------------------------------------------
using test::CliRun;

CliRun inspectJson(const std::filesystem::path& file, const std::filesystem::path& scratch) {
  return test::runMorphkit(scratch, "inspect --json '" + file.string() + "'");
}

std::vector<std::filesystem::path> modelFiles() {
  return test::sharedModelFiles();
}

std::string relativeName(const std::filesystem::path& file) {
  return std::filesystem::relative(file, test::assetsDir()).generic_string();
}

std::string joined(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return "{" + out + "}";
}

void compare(const ManifestRow& row, const Facts& facts) {
  EXPECT_EQ(facts.meshes, row.meshes);
  EXPECT_EQ(facts.primitives, row.primitives);
  EXPECT_EQ(facts.vertices, row.vertices);
  EXPECT_EQ(facts.attributes, row.attributes) << joined(facts.attributes) << " vs " << joined(row.attributes);
  EXPECT_EQ(facts.primitives_with_targets, row.primitives_with_targets);
  if (row.targets_per_primitive > 0) {
    EXPECT_EQ(facts.targets_per_primitive, std::set<int>{row.targets_per_primitive});
  } else {
    EXPECT_TRUE(facts.targets_per_primitive.empty());
  }
  EXPECT_EQ(facts.target_attributes, row.target_attributes) << joined(facts.target_attributes);
  for (size_t m = 0; m < facts.weights.size(); ++m) {
    if (row.has_weights) {
      ASSERT_EQ(facts.weights[m].size(), row.weights.size()) << "mesh " << m;
      for (size_t w = 0; w < row.weights.size(); ++w) EXPECT_DOUBLE_EQ(facts.weights[m][w], row.weights[w]);
    } else {
      EXPECT_TRUE(facts.weights[m].empty()) << "mesh " << m;
    }
    EXPECT_EQ(facts.target_names[m], row.target_names) << "mesh " << m;
  }
  EXPECT_EQ(int(facts.skin_joints.size()), row.skins);
  for (int joints : facts.skin_joints) EXPECT_EQ(joints, row.joints);
  EXPECT_EQ(facts.normalized, row.normalized) << joined(facts.normalized) << " vs " << joined(row.normalized);
  EXPECT_EQ(facts.integer, row.integer) << joined(facts.integer) << " vs " << joined(row.integer);
  EXPECT_EQ(facts.sparse, row.sparse) << joined(facts.sparse) << " vs " << joined(row.sparse);
  EXPECT_EQ(facts.animations, row.animations);
  EXPECT_EQ(facts.channels, row.channels);
  EXPECT_EQ(facts.path_interpolations, row.path_interpolations) << joined(facts.path_interpolations);
  EXPECT_EQ(facts.extensions_used, row.extensions_used);
  EXPECT_EQ(facts.extensions_required, row.extensions_required);
}

TEST(Manifest, TableParses) {
  MORPHKIT_REQUIRE_SHARED();
  auto rows = parseManifest(test::assetsDir() / "MANIFEST.md");
  ASSERT_GE(rows.size(), 10u);
  // Spot-check the parser itself on rows whose text is quoted here by hand.
  auto find = [&](const std::string& file) -> const ManifestRow* {
    for (const auto& r : rows)
      if (r.file == file) return &r;
    return nullptr;
  };
  const ManifestRow* cube = find("AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf");
  ASSERT_NE(cube, nullptr);
  EXPECT_EQ(cube->vertices, 24);
  EXPECT_EQ(cube->targets_per_primitive, 2);
  EXPECT_EQ(cube->normalized, (std::set<std::string>{"anim.output:weights:u8", "attr:NORMAL:i8", "target:NORMAL:i8"}));
  EXPECT_EQ(cube->integer, (std::set<std::string>{"attr:POSITION:u16", "target:POSITION:i16"}));
  EXPECT_EQ(cube->extensions_required, std::set<std::string>{"KHR_mesh_quantization"});
  const ManifestRow* prims = find("MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb");
  ASSERT_NE(prims, nullptr);
  EXPECT_EQ(prims->primitives_with_targets, 2);
  EXPECT_EQ(prims->targets_per_primitive, 1);
  EXPECT_EQ(prims->weights, std::vector<double>{0.5});
  const ManifestRow* blob = find("MorphSkinBlob52/MorphSkinBlob52_sparse.glb");
  ASSERT_NE(blob, nullptr);
  EXPECT_EQ(blob->weights.size(), 52u);
  EXPECT_TRUE(blob->target_names);
  EXPECT_EQ(blob->skins, 1);
  EXPECT_EQ(blob->joints, 6);
  EXPECT_EQ(blob->channels, 14);
  EXPECT_TRUE(blob->path_interpolations.count("weights STEP"));
  EXPECT_EQ(blob->sparse, (std::set<std::string>{"target:POSITION", "target:NORMAL", "anim.output:weights"}));
}

TEST(Manifest, EveryModelFileLoadsAndInspectMatchesTheTable) {
  MORPHKIT_REQUIRE_SHARED();
  auto rows = parseManifest(test::assetsDir() / "MANIFEST.md");
  std::map<std::string, const ManifestRow*> by_file;
  for (const auto& row : rows) {
    by_file[row.file] = &row;
    EXPECT_TRUE(std::filesystem::exists(test::assetsDir() / row.file)) << row.file << " is listed but missing";
  }
  auto scratch = test::scratchDir();
  simdjson::dom::parser parser;
  size_t checked_against_table = 0;
  std::vector<std::filesystem::path> files = modelFiles();
  ASSERT_FALSE(files.empty());
  for (const auto& file : files) {
    std::string name = relativeName(file);
    SCOPED_TRACE(name);
    auto asset = loadAsset(file);
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    CliRun run = inspectJson(file, scratch);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    simdjson::dom::element root;
    ASSERT_EQ(parser.parse(run.out).get(root), simdjson::SUCCESS) << run.out.substr(0, 400);
    EXPECT_EQ(str(root["file"]), file.string());
    Facts facts = factsFromInspect(root);
    // inspect against the loaded Asset (same process-independent facts).
    EXPECT_EQ(facts.meshes, int(asset->meshes.size()));
    EXPECT_EQ(facts.animations, int(asset->animations.size()));
    EXPECT_EQ(int64_t(root["nodes"]), int64_t(asset->nodes.size()));
    auto it = by_file.find(name);
    if (it != by_file.end()) {
      compare(*it->second, facts);
      ++checked_against_table;
    }
  }
  EXPECT_EQ(checked_against_table, rows.size()) << "every Structure row has a file that was checked";
}

// SkinMorphEdgeCases is not in the table; its README states these facts, and both containers must agree.
TEST(Manifest, SkinMorphEdgeCasesMatchesItsReadme) {
  MORPHKIT_REQUIRE_SHARED();
  auto dir = test::assetsDir() / "SkinMorphEdgeCases";
  if (!std::filesystem::exists(dir)) {
    if (test::runningInCi()) FAIL() << "CI=true but ../shared lacks SkinMorphEdgeCases";
    GTEST_SKIP() << "SkinMorphEdgeCases not present (MORPHKIT_REQUIRE_SHARED: fails in CI)";
  }
  auto scratch = test::scratchDir();
  simdjson::dom::parser parser;
  std::vector<Facts> both;
  for (const char* file : {"skin_morph.gltf", "skin_morph.glb"}) {
    SCOPED_TRACE(file);
    CliRun run = inspectJson(dir / file, scratch);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    simdjson::dom::element root;
    ASSERT_EQ(parser.parse(run.out).get(root), simdjson::SUCCESS);
    Facts facts = factsFromInspect(root);
    EXPECT_EQ(facts.targets_per_primitive, std::set<int>{2});  // "2 morph targets per primitive"
    EXPECT_EQ(facts.primitives_with_targets, facts.primitives);
    EXPECT_GT(facts.primitives, facts.meshes);             // "a 2-primitive mesh"
    EXPECT_TRUE(facts.integer.count("attr:JOINTS_0:u8"));  // "JOINTS_0 as UNSIGNED_BYTE"
    EXPECT_FALSE(facts.sparse.empty());                    // "a sparse morph-target accessor"
    EXPECT_EQ(facts.animations, 3);
    for (const char* pi : {"weights LINEAR", "rotation LINEAR", "translation STEP", "weights CUBICSPLINE",
                           "rotation CUBICSPLINE", "scale LINEAR", "translation LINEAR"}) {
      EXPECT_TRUE(facts.path_interpolations.count(pi)) << pi;
    }
    EXPECT_EQ(facts.skin_joints.size(), 1u);
    both.push_back(facts);
  }
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].vertices, both[1].vertices);
  EXPECT_EQ(both[0].attributes, both[1].attributes);
  EXPECT_EQ(both[0].target_attributes, both[1].target_attributes);
  EXPECT_EQ(both[0].sparse, both[1].sparse);
  EXPECT_EQ(both[0].weights, both[1].weights);
  EXPECT_EQ(both[0].channels, both[1].channels);
  EXPECT_EQ(both[0].path_interpolations, both[1].path_interpolations);
}

}  // namespace
}  // namespace morphkit
