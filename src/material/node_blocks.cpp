// SPDX-License-Identifier: MIT
// node_blocks.cpp — the built-in block types of node materials (docs/NODE_MATERIALS.md "Blocks").
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "morphkit/model/text.h"
#include "node_feature.h"
#include "node_internal.h"

namespace morphkit {

// ---- GLSL helpers ----
std::string glslFloat(float value) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest round-trip form
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string glslTypeName(NodeValueType type) {
  return nodeValueTypeName(type);
}

std::string glslValue(NodeValueType type, const std::array<float, 4>& value) {
  const uint32_t n = nodeValueComponents(type);
  if (n == 1) return glslFloat(value[0]);
  std::string text = glslTypeName(type) + "(";
  for (uint32_t i = 0; i < n; ++i) text += (i ? ", " : "") + glslFloat(value[i]);
  return text + ")";
}

Expected<std::string> convertNodeValue(const std::string& expr, NodeValueType from, NodeValueType to) {
  if (from == to) return expr;
  const uint32_t f = nodeValueComponents(from), t = nodeValueComponents(to);
  if (f == 1) return glslTypeName(to) + "(" + expr + ")";
  if (t == 2 && f > 2) return "(" + expr + ").xy";
  if (t == 3 && f == 4) return "(" + expr + ").xyz";
  if (t == 4 && f == 3) return "vec4(" + expr + ", 1.0)";
  return fail(Error::kInvalidArgument,
              std::string("cannot convert ") + nodeValueTypeName(from) + " to " + nodeValueTypeName(to));
}

bool nodeTypeFromComponents(size_t count, NodeValueType& type) {
  switch (count) {
    case 1:
      type = NodeValueType::kFloat;
      return true;
    case 2:
      type = NodeValueType::kVec2;
      return true;
    case 3:
      type = NodeValueType::kVec3;
      return true;
    case 4:
      type = NodeValueType::kVec4;
      return true;
    default:
      return false;
  }
}

namespace {

NodePortDecl port(std::string name, NodeValueType type, bool optional = false,
                  std::array<float, 4> fallback = {0, 0, 0, 0}, std::string expression = {}) {
  return NodePortDecl{std::move(name), type, optional, fallback, std::move(expression)};
}

// ---- Inputs and uniforms ----
class ConstantEmitter final : public NodeBlockEmitter {
 public:
  ConstantEmitter(NodeValueType type, std::array<float, 4> value) : type_(type), value_(value) {}
  std::vector<NodePortDecl> inputs() const override { return {}; }
  std::vector<NodePortDecl> outputs() const override { return {port("value", type_)}; }
  Expected<std::vector<std::string>> emit(const NodeEmitContext&, std::string&) const override {
    return std::vector<std::string>{glslValue(type_, value_)};
  }

 private:
  NodeValueType type_;
  std::array<float, 4> value_;
};

class UniformEmitter final : public NodeBlockEmitter {
 public:
  UniformEmitter(NodeValueType type, std::string name) : type_(type), name_(std::move(name)) {}
  std::vector<NodePortDecl> inputs() const override { return {}; }
  std::vector<NodePortDecl> outputs() const override { return {port("value", type_)}; }
  Expected<std::vector<std::string>> emit(const NodeEmitContext&, std::string&) const override {
    static const char* swizzles[4] = {".x", ".xy", ".xyz", ""};
    return std::vector<std::string>{"node.u_" + name_ + swizzles[nodeValueComponents(type_) - 1]};
  }

 private:
  NodeValueType type_;
  std::string name_;
};

// Built-in values of one stage ("Position", "WorldNormal", ...): one output, a fixed GLSL name.
class AttributeEmitter final : public NodeBlockEmitter {
 public:
  AttributeEmitter(std::string output, NodeValueType type, std::string expression, uint32_t stages)
      : output_(std::move(output)), type_(type), expression_(std::move(expression)), stages_(stages) {}
  std::vector<NodePortDecl> inputs() const override { return {}; }
  std::vector<NodePortDecl> outputs() const override { return {port(output_, type_)}; }
  uint32_t stages() const override { return stages_; }
  Expected<std::vector<std::string>> emit(const NodeEmitContext&, std::string&) const override {
    return std::vector<std::string>{expression_};
  }

 private:
  std::string output_;
  NodeValueType type_;
  std::string expression_;
  uint32_t stages_;
};

// A texture of the material (fragment stage): declared texture `index` at binding 1 + index. Unbound textures
// (texture_mask bit clear) read NodeTextureInfo::unbound, so a graph written for a textured material still draws
// an untextured one exactly as its factors say (glTF 2.0 §3.9.2: a missing texture counts as 1).
class TextureEmitter final : public NodeBlockEmitter {
 public:
  TextureEmitter(uint32_t index, std::array<float, 4> unbound) : index_(index), unbound_(unbound) {}
  std::vector<NodePortDecl> inputs() const override {
    const std::string k = std::to_string(index_);
    return {port("uv", NodeValueType::kVec2, true, {0, 0, 0, 0},
                 "(((node.texcoord_sets >> " + k + "u) & 1u) != 0u ? nodeUv1 : nodeUv0)")};
  }
  std::vector<NodePortDecl> outputs() const override {
    return {port("rgba", NodeValueType::kVec4), port("rgb", NodeValueType::kVec3), port("r", NodeValueType::kFloat),
            port("g", NodeValueType::kFloat),   port("b", NodeValueType::kFloat),  port("a", NodeValueType::kFloat)};
  }
  uint32_t stages() const override { return kNodeStageFragment; }
  Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string& code) const override {
    const std::string k = std::to_string(index_);
    const std::string v = c.prefix + "_rgba";
    // The texture reference's KHR_texture_transform applies to whatever UV reaches the block (identity rows
    // for image textures and references without the extension).
    const std::string uv = c.prefix + "_uv";
    code += "  vec3 " + uv + " = vec3(" + c.inputs[0] + ", 1.0);\n";
    const std::string row = "node.uv_transform[" + std::to_string(2 * index_) + "]";
    const std::string row1 = "node.uv_transform[" + std::to_string(2 * index_ + 1) + "]";
    code += "  vec4 " + v + " = (node.texture_mask & (1u << " + k + "u)) != 0u ? texture(nodeTexture" + k +
            ", vec2(dot(" + row + ".xyz, " + uv + "), dot(" + row1 + ".xyz, " + uv +
            "))) : " + glslValue(NodeValueType::kVec4, unbound_) + ";\n";
    return std::vector<std::string>{v, v + ".rgb", v + ".r", v + ".g", v + ".b", v + ".a"};
  }

 private:
  uint32_t index_;
  std::array<float, 4> unbound_;
};

// ---- Math ----
struct MathOp {
  const char* type;
  std::vector<const char*> ports;
  const char* pattern;  // $0, $1, $2: the inputs
  int output;           // -1: the resolved type; else a fixed NodeValueType
  int fixed_input;      // -1: generic inputs; else a fixed NodeValueType
};

const std::vector<MathOp>& mathOps() {
  static const std::vector<MathOp> ops = {
      {"Add", {"a", "b"}, "($0 + $1)", -1, -1},
      {"Subtract", {"a", "b"}, "($0 - $1)", -1, -1},
      {"Multiply", {"a", "b"}, "($0 * $1)", -1, -1},
      {"Divide", {"a", "b"}, "($0 / $1)", -1, -1},
      {"Min", {"a", "b"}, "min($0, $1)", -1, -1},
      {"Max", {"a", "b"}, "max($0, $1)", -1, -1},
      {"Pow", {"a", "b"}, "pow($0, $1)", -1, -1},
      {"Mix", {"a", "b", "t"}, "mix($0, $1, $2)", -1, -1},
      {"Clamp", {"value", "min", "max"}, "clamp($0, $1, $2)", -1, -1},
      {"Dot", {"a", "b"}, "dot($0, $1)", int(NodeValueType::kFloat), -1},
      {"Length", {"a"}, "length($0)", int(NodeValueType::kFloat), -1},
      {"Normalize", {"a"}, "normalize($0)", -1, -1},
      {"OneMinus", {"a"}, "(1.0 - $0)", -1, -1},
      {"Negate", {"a"}, "(-$0)", -1, -1},
      {"Saturate", {"a"}, "clamp($0, 0.0, 1.0)", -1, -1},
      {"Cross", {"a", "b"}, "cross($0, $1)", int(NodeValueType::kVec3), int(NodeValueType::kVec3)},
  };
  return ops;
}

const MathOp* findMathOp(std::string_view type) {
  for (const MathOp& op : mathOps()) {
    if (type == op.type) return &op;
  }
  return nullptr;
}

class MathEmitter final : public NodeBlockEmitter {
 public:
  MathEmitter(const MathOp& op, NodeValueType type) : op_(op), type_(type) {}
  std::vector<NodePortDecl> inputs() const override {
    std::vector<NodePortDecl> ports;
    const NodeValueType in = op_.fixed_input >= 0 ? NodeValueType(op_.fixed_input) : type_;
    for (const char* name : op_.ports) ports.push_back(port(name, in));
    return ports;
  }
  std::vector<NodePortDecl> outputs() const override {
    return {port("value", op_.output >= 0 ? NodeValueType(op_.output) : type_)};
  }
  Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string& code) const override {
    std::string expr;
    for (const char* p = op_.pattern; *p; ++p) {
      if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
        expr += c.inputs[size_t(p[1] - '0')];
        ++p;
      } else {
        expr += *p;
      }
    }
    const NodeValueType out = outputs()[0].type;
    code += "  " + glslTypeName(out) + " " + c.prefix + " = " + expr + ";\n";
    return std::vector<std::string>{c.prefix};
  }

 private:
  const MathOp& op_;
  NodeValueType type_;
};

class SwizzleEmitter final : public NodeBlockEmitter {
 public:
  SwizzleEmitter(NodeValueType in, NodeValueType out, std::string components)
      : in_(in), out_(out), components_(std::move(components)) {}
  std::vector<NodePortDecl> inputs() const override { return {port("value", in_)}; }
  std::vector<NodePortDecl> outputs() const override { return {port("value", out_)}; }
  Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string& code) const override {
    code += "  " + glslTypeName(out_) + " " + c.prefix + " = (" + c.inputs[0] + ")." + components_ + ";\n";
    return std::vector<std::string>{c.prefix};
  }

 private:
  NodeValueType in_, out_;
  std::string components_;
};

class CombineEmitter final : public NodeBlockEmitter {
 public:
  std::vector<NodePortDecl> inputs() const override {
    return {port("x", NodeValueType::kFloat, true), port("y", NodeValueType::kFloat, true),
            port("z", NodeValueType::kFloat, true), port("w", NodeValueType::kFloat, true, {1, 0, 0, 0})};
  }
  std::vector<NodePortDecl> outputs() const override {
    return {port("xyzw", NodeValueType::kVec4), port("xyz", NodeValueType::kVec3), port("xy", NodeValueType::kVec2)};
  }
  Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string& code) const override {
    code += "  vec4 " + c.prefix + " = vec4(" + c.inputs[0] + ", " + c.inputs[1] + ", " + c.inputs[2] + ", " +
            c.inputs[3] + ");\n";
    return std::vector<std::string>{c.prefix, c.prefix + ".xyz", c.prefix + ".xy"};
  }
};

// ---- Deformation (vertex stage) ----
// MorphTargets: installs the morph feature (its GLSL, bindings and fallback) through the seam, then adds the
// feature's weighted deltas to its inputs (the object-space attributes unless connected).
class MorphTargetsEmitter final : public NodeBlockEmitter {
 public:
  std::vector<NodePortDecl> inputs() const override {
    return {port("position", NodeValueType::kVec3, true, {}, "nodePosition"),
            port("normal", NodeValueType::kVec3, true, {}, "nodeNormal")};
  }
  std::vector<NodePortDecl> outputs() const override {
    return {port("position", NodeValueType::kVec3), port("normal", NodeValueType::kVec3)};
  }
  uint32_t stages() const override { return kNodeStageVertex; }
  Status declare(NodeBuildState& state, const NodeBlock&) const override {
    state.uses_morph_targets = true;
    installNodeFeature(state, nodeMorphFeature());
    return Ok{};
  }
  Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string& code) const override {
    code += "  vec3 " + c.prefix + "_position = " + c.inputs[0] + " + nodeMorphDeltaPosition;\n";
    code += "  vec3 " + c.prefix + "_normal = " + c.inputs[1] + " + nodeMorphDeltaNormal;\n";
    return std::vector<std::string>{c.prefix + "_position", c.prefix + "_normal"};
  }
};

// Skinning: installs the skinning feature; outputs are in world space (glTF 2.0 §3.7.3.3: the skinned mesh
// ignores the node transform; unskinned draws get the node's model matrix instead).
class SkinningEmitter final : public NodeBlockEmitter {
 public:
  std::vector<NodePortDecl> inputs() const override {
    return {port("position", NodeValueType::kVec3, true, {}, "nodePosition"),
            port("normal", NodeValueType::kVec3, true, {}, "nodeNormal")};
  }
  std::vector<NodePortDecl> outputs() const override {
    return {port("worldPosition", NodeValueType::kVec3), port("worldNormal", NodeValueType::kVec3)};
  }
  uint32_t stages() const override { return kNodeStageVertex; }
  Status declare(NodeBuildState& state, const NodeBlock&) const override {
    state.uses_skinning = true;
    installNodeFeature(state, nodeSkinFeature());
    return Ok{};
  }
  Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string& code) const override {
    code += "  vec3 " + c.prefix + "_worldPosition = (nodeSkinMatrix * vec4(" + c.inputs[0] + ", 1.0)).xyz;\n";
    code += "  vec3 " + c.prefix + "_worldNormal = nodeSkinNormalMatrix * " + c.inputs[1] + ";\n";
    return std::vector<std::string>{c.prefix + "_worldPosition", c.prefix + "_worldNormal"};
  }
};

bool connected(const NodeBlock& block, size_t i) {
  return i < block.inputs.size() && (block.inputs[i].block != kNone || block.inputs[i].literal);
}

// VertexOutput: object-space position/normal (the node's model applies) or world-space ones (from Skinning).
class VertexOutputEmitter final : public NodeBlockEmitter {
 public:
  std::vector<NodePortDecl> inputs() const override {
    return {port("position", NodeValueType::kVec3, true, {}, "nodePosition"),
            port("normal", NodeValueType::kVec3, true, {}, "nodeNormal"),
            port("worldPosition", NodeValueType::kVec3, true), port("worldNormal", NodeValueType::kVec3, true)};
  }
  std::vector<NodePortDecl> outputs() const override { return {}; }
  uint32_t stages() const override { return kNodeStageVertex; }
  Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string& code) const override {
    if (connected(*c.block, 2)) {
      code += "  nodeOutWorldPosition = " + c.inputs[2] + ";\n";
    } else {
      code += "  nodeOutWorldPosition = (node.model * vec4(" + c.inputs[0] + ", 1.0)).xyz;\n";
    }
    if (connected(*c.block, 3)) {
      code += "  nodeOutWorldNormal = " + c.inputs[3] + ";\n";
    } else {
      code += "  nodeOutWorldNormal = mat3(node.normal_matrix) * " + c.inputs[1] + ";\n";
    }
    return std::vector<std::string>{};
  }
};

// PbrOutput: the glTF metallic-roughness inputs of the lighting epilogue (node_compile.cpp), glTF 2.0 §3.9.2.
class PbrOutputEmitter final : public NodeBlockEmitter {
 public:
  std::vector<NodePortDecl> inputs() const override {
    return {port("baseColor", NodeValueType::kVec4, true, {1, 1, 1, 1}),
            port("metallic", NodeValueType::kFloat, true, {1, 0, 0, 0}),
            port("roughness", NodeValueType::kFloat, true, {1, 0, 0, 0}),
            port("normal", NodeValueType::kVec3, true, {0.5f, 0.5f, 1, 0}),  // tangent-space texel, 0..1 encoded
            port("normalScale", NodeValueType::kFloat, true, {1, 0, 0, 0}),
            port("normalUv", NodeValueType::kVec2, true, {}, "nodeUv0"),
            port("emissive", NodeValueType::kVec3, true, {0, 0, 0, 0}),
            port("occlusion", NodeValueType::kFloat, true, {1, 0, 0, 0}),
            port("occlusionStrength", NodeValueType::kFloat, true, {1, 0, 0, 0})};
  }
  std::vector<NodePortDecl> outputs() const override { return {}; }
  uint32_t stages() const override { return kNodeStageFragment; }
  Expected<std::vector<std::string>> emit(const NodeEmitContext& c, std::string& code) const override {
    code += "  nodePbrBaseColor = " + c.inputs[0] + ";\n";
    code += "  nodePbrMetallic = " + c.inputs[1] + ";\n";
    code += "  nodePbrRoughness = " + c.inputs[2] + ";\n";
    if (connected(*c.block, 3)) {
      code += "  nodePbrNormalMapped = true;\n";
      code += "  nodePbrNormalTexel = " + c.inputs[3] + ";\n";
      code += "  nodePbrNormalScale = " + c.inputs[4] + ";\n";
      code += "  nodePbrNormalUv = " + c.inputs[5] + ";\n";
    }
    code += "  nodePbrEmissive = " + c.inputs[6] + ";\n";
    if (connected(*c.block, 7)) {
      code += "  nodePbrOccluded = true;\n";
      code += "  nodePbrOcclusion = " + c.inputs[7] + ";\n";
      code += "  nodePbrOcclusionStrength = " + c.inputs[8] + ";\n";
    }
    return std::vector<std::string>{};
  }
};

std::shared_ptr<const NodeBlockEmitter> attribute(std::string_view type) {
  using T = NodeValueType;
  if (type == "Position")
    return std::make_shared<AttributeEmitter>("position", T::kVec3, "nodePosition", kNodeStageVertex);
  if (type == "Normal") return std::make_shared<AttributeEmitter>("normal", T::kVec3, "nodeNormal", kNodeStageVertex);
  if (type == "WorldPosition")
    return std::make_shared<AttributeEmitter>("position", T::kVec3, "nodeWorldPosition", kNodeStageFragment);
  if (type == "WorldNormal")
    return std::make_shared<AttributeEmitter>("normal", T::kVec3, "nodeWorldNormal", kNodeStageFragment);
  if (type == "ViewDirection")
    return std::make_shared<AttributeEmitter>("direction", T::kVec3, "nodeViewDirection", kNodeStageFragment);
  return nullptr;
}

const char* const kFixedTypes[] = {
    "Constant",      "Uniform", "Texture", "Uv",           "Position", "Normal",       "WorldPosition", "WorldNormal",
    "ViewDirection", "Swizzle", "Combine", "MorphTargets", "Skinning", "VertexOutput", "PbrOutput"};

}  // namespace

bool isBuiltinNodeType(std::string_view type) {
  for (const char* t : kFixedTypes) {
    if (type == t) return true;
  }
  return findMathOp(type) != nullptr;
}

std::vector<std::string> builtinNodeInputNames(std::string_view type) {
  if (const MathOp* op = findMathOp(type)) return std::vector<std::string>(op->ports.begin(), op->ports.end());
  if (type == "Swizzle") return {"value"};
  if (type == "Combine") return {"x", "y", "z", "w"};
  if (type == "Texture") return {"uv"};
  if (type == "MorphTargets" || type == "Skinning") return {"position", "normal"};
  if (type == "VertexOutput") return {"position", "normal", "worldPosition", "worldNormal"};
  if (type == "PbrOutput") {
    return {"baseColor", "normal",   "normalScale", "normalUv",         "metallic",
            "roughness", "emissive", "occlusion",   "occlusionStrength"};
  }
  return {};
}

Expected<std::shared_ptr<const NodeBlockEmitter>> makeBuiltinNodeEmitter(
    const NodeBlock& block, const std::map<std::string, NodeValueType>& connected_types, const std::string& where) {
  const std::string& type = block.type;
  if (type == "Constant")
    return std::shared_ptr<const NodeBlockEmitter>(std::make_shared<ConstantEmitter>(block.value_type, block.value));
  if (type == "Uniform")
    return std::shared_ptr<const NodeBlockEmitter>(std::make_shared<UniformEmitter>(block.value_type, block.uniform));
  if (type == "Texture") {
    return std::shared_ptr<const NodeBlockEmitter>(std::make_shared<TextureEmitter>(block.texture, block.value));
  }
  if (type == "Uv") {
    return std::shared_ptr<const NodeBlockEmitter>(std::make_shared<AttributeEmitter>(
        "uv", NodeValueType::kVec2, block.texcoord == 1 ? "nodeUv1" : "nodeUv0", kNodeStageFragment));
  }
  if (auto a = attribute(type)) return a;
  if (type == "Combine") return std::shared_ptr<const NodeBlockEmitter>(std::make_shared<CombineEmitter>());
  if (type == "MorphTargets") return std::shared_ptr<const NodeBlockEmitter>(std::make_shared<MorphTargetsEmitter>());
  if (type == "Skinning") return std::shared_ptr<const NodeBlockEmitter>(std::make_shared<SkinningEmitter>());
  if (type == "VertexOutput") return std::shared_ptr<const NodeBlockEmitter>(std::make_shared<VertexOutputEmitter>());
  if (type == "PbrOutput") return std::shared_ptr<const NodeBlockEmitter>(std::make_shared<PbrOutputEmitter>());
  if (type == "Swizzle") {
    auto it = connected_types.find("value");
    if (it == connected_types.end())
      return fail(Error::kInvalidArgument, where + ".inputs.value: required input not connected");
    const uint32_t n = nodeValueComponents(it->second);
    NodeValueType out;
    if (!nodeTypeFromComponents(block.components.size(), out)) {
      return fail(Error::kInvalidArgument,
                  where + ".components: " + quote(block.components) + " must have 1 to 4 components");
    }
    for (char ch : block.components) {
      const char* set = "xyzw";
      const char* rgba = "rgba";
      const char* at = std::strchr(set, ch);
      const char* at2 = std::strchr(rgba, ch);
      const long index = at && ch ? at - set : at2 && ch ? at2 - rgba : -1;
      if (index < 0 || uint32_t(index) >= n) {
        return fail(Error::kInvalidArgument, where + ".components: " + quote(block.components) + " reads beyond a " +
                                                 nodeValueTypeName(it->second));
      }
    }
    return std::shared_ptr<const NodeBlockEmitter>(std::make_shared<SwizzleEmitter>(it->second, out, block.components));
  }
  if (const MathOp* op = findMathOp(type)) {
    uint32_t components = 1;
    for (const char* name : op->ports) {
      auto it = connected_types.find(name);
      if (it == connected_types.end()) {
        return fail(Error::kInvalidArgument, where + ".inputs." + name + ": required input not connected");
      }
      components = std::max(components, nodeValueComponents(it->second));
    }
    NodeValueType resolved;
    nodeTypeFromComponents(components, resolved);
    return std::shared_ptr<const NodeBlockEmitter>(std::make_shared<MathEmitter>(*op, resolved));
  }
  return fail(Error::kInvalidArgument, where + ": unknown block type " + quote(type));
}

}  // namespace morphkit
