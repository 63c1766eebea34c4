// SPDX-License-Identifier: MIT
// The helpers of node_material_test.cpp and node_material_examples_test.cpp (one file until it passed 600 lines).
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "gltf_test_util.h"
#include "morphkit/material/node_material.h"
#include "node_feature.h"
#include "test_support.h"

namespace morphkit {
namespace {

inline std::filesystem::path sourceDir() {
  return test::sourceDir();
}
inline std::filesystem::path examplePath(const char* name) {
  return sourceDir() / "examples" / name;
}

inline std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// ---- Custom blocks used by the tests and examples/custom_rim.json ----
// Written against the older flag-only contract: sets uses_morph_targets, never installs the feature, and relies on
// the documented nodeMorphDeltaPosition / nodeMorphDeltaNormal names.
class LegacyMorphEmitter final : public NodeBlockEmitter {
 public:
  explicit LegacyMorphEmitter(bool set_flag = true) : set_flag_(set_flag) {}
  std::vector<NodePortDecl> inputs() const override {
    return {{"position", NodeValueType::kVec3, true, {}, "nodePosition"},
            {"normal", NodeValueType::kVec3, true, {}, "nodeNormal"}};
  }
  std::vector<NodePortDecl> outputs() const override {
    return {{"position", NodeValueType::kVec3}, {"normal", NodeValueType::kVec3}};
  }
  uint32_t stages() const override { return kNodeStageVertex; }
  Status declare(NodeBuildState& state, const NodeBlock&) const override {
    if (set_flag_) state.uses_morph_targets = true;
    return Ok{};
  }
  Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string& code) const override {
    code += "  vec3 " + c.prefix + "_position = " + c.inputs[0] + " + nodeMorphDeltaPosition;\n";
    code += "  vec3 " + c.prefix + "_normal = " + c.inputs[1] + " + nodeMorphDeltaNormal;\n";
    return std::vector<std::string>{c.prefix + "_position", c.prefix + "_normal"};
  }

 private:
  bool set_flag_;
};

class RimEmitter final : public NodeBlockEmitter {
 public:
  std::vector<NodePortDecl> inputs() const override {
    return {{"normal", NodeValueType::kVec3, false},
            {"view", NodeValueType::kVec3, false},
            {"power", NodeValueType::kFloat, true, {2, 0, 0, 0}}};
  }
  std::vector<NodePortDecl> outputs() const override { return {{"value", NodeValueType::kFloat}}; }
  uint32_t stages() const override { return kNodeStageFragment; }
  Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string& code) const override {
    code += "  float " + c.prefix + " = pow(1.0 - clamp(dot(normalize(" + c.inputs[0] + "), normalize(" + c.inputs[1] +
            ")), 0.0, 1.0), " + c.inputs[2] + ");\n";
    return std::vector<std::string>{c.prefix};
  }
};

inline ParseNodeMaterialOptions testLoader() {
  ParseNodeMaterialOptions options;
  options.block_loader = [](std::string_view type) -> std::shared_ptr<const NodeBlockEmitter> {
    if (type == "LegacyMorph") return std::make_shared<LegacyMorphEmitter>();
    if (type == "NoFlagMorph") return std::make_shared<LegacyMorphEmitter>(false);
    if (type == "Rim") return std::make_shared<RimEmitter>();
    return nullptr;
  };
  return options;
}

// A small morph graph; `morph_type` names the deformation block ("MorphTargets" or a custom one).
inline std::string morphGraph(const std::string& morph_type, bool skin = false) {
  std::string s = R"({"name": "morph-test", "blocks": [
    {"id": "p", "type": "Position"},
    {"id": "m", "type": ")" +
                  morph_type + R"(", "inputs": {"position": "p"}},)";
  if (skin) {
    s += R"({"id": "s", "type": "Skinning", "inputs": {"position": "m.position", "normal": "m.normal"}},
            {"id": "v", "type": "VertexOutput", "inputs": {"worldPosition": "s.worldPosition", "worldNormal": "s.worldNormal"}},)";
  } else {
    s += R"({"id": "v", "type": "VertexOutput", "inputs": {"position": "m.position", "normal": "m.normal"}},)";
  }
  s += R"({"id": "c", "type": "Uniform", "name": "tint", "value": [0.5, 0.25, 1.0, 1.0]},
    {"id": "out", "type": "PbrOutput", "inputs": {"baseColor": "c", "roughness": 0.5}}]})";
  return s;
}

inline std::vector<std::string> bindingNames(const std::vector<NodeBinding>& bindings) {
  std::vector<std::string> names;
  for (const NodeBinding& b : bindings) names.push_back(b.name);
  return names;
}

inline std::string allText(const NodeMaterialGlsl& glsl) {
  std::string text;
  for (const NodeShaderText& s : glsl.shaders) text += s.vertex + s.fragment;
  return text;
}

struct BadGraph {
  const char* json;
  const char* message;  // expected prefix
};

inline std::filesystem::path cli() {
  return test::cliPath();
}

inline int runCli(const std::string& args, const std::filesystem::path& output) {
  const std::string command = cli().string() + " " + args + " >" + output.string() + " 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace
}  // namespace morphkit
