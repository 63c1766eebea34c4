// SPDX-License-Identifier: MIT
// node_parse.cpp — parseNodeMaterial: JSON (simdjson, privately) → a type-checked NodeMaterial with its features
// installed. Errors name the block and field: "blocks[3].inputs.a: unknown block 'foo'".
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "morphkit/model/files.h"
#include "morphkit/model/text.h"
#include "node_feature.h"
#include "node_internal.h"
#include "node_json.h"

namespace morphkit {

const char* nodeValueTypeName(NodeValueType type) {
  switch (type) {
    case NodeValueType::kFloat:
      return "float";
    case NodeValueType::kVec2:
      return "vec2";
    case NodeValueType::kVec3:
      return "vec3";
    case NodeValueType::kVec4:
      return "vec4";
  }
  return "float";
}

uint32_t nodeValueComponents(NodeValueType type) {
  return uint32_t(type) + 1;
}

const char* nodeTextureSlotName(NodeTextureSlot slot) {
  switch (slot) {
    case NodeTextureSlot::kImage:
      return "image";
    case NodeTextureSlot::kBaseColor:
      return "baseColor";
    case NodeTextureSlot::kMetallicRoughness:
      return "metallicRoughness";
    case NodeTextureSlot::kNormal:
      return "normal";
    case NodeTextureSlot::kOcclusion:
      return "occlusion";
    case NodeTextureSlot::kEmissive:
      return "emissive";
  }
  return "image";
}

bool nodeFeatureInstalled(const NodeBuildState& state, std::string_view name) {
  for (const auto& f : state.features) {
    if (f && f->name == name) return true;
  }
  return false;
}

void installNodeFeature(NodeBuildState& state, std::shared_ptr<const NodeFeature> feature) {
  if (!feature || nodeFeatureInstalled(state, feature->name)) return;
  state.features.push_back(std::move(feature));
}

std::vector<std::shared_ptr<const NodeFeature>> orderedNodeFeatures(const NodeBuildState& state) {
  std::vector<std::shared_ptr<const NodeFeature>> list = state.features;
  std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a->order < b->order; });
  return list;
}

bool nodeMaterialUsesMorph(const NodeMaterial& material) {
  return nodeFeatureInstalled(material.state, "morph");
}
bool nodeMaterialUsesSkinning(const NodeMaterial& material) {
  return nodeFeatureInstalled(material.state, "skin");
}

namespace node_json {

bool isIdentifier(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(s[0])) return false;
  for (char c : s) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

Expected<std::pair<NodeValueType, std::array<float, 4>>> readValue(element e, const std::string& where) {
  std::array<float, 4> v{0, 0, 0, 0};
  double d = 0;
  if (e.get_double().get(d) == simdjson::SUCCESS) {
    if (!std::isfinite(d) || std::fabs(d) > 3.4e38) return failAt(kNodeError, where, "must be a finite number");
    v[0] = float(d);
    return std::make_pair(NodeValueType::kFloat, v);
  }
  array list;
  if (e.get_array().get(list) != simdjson::SUCCESS)
    return failAt(kNodeError, where, "must be a number or an array of 1 to 4 numbers");
  size_t n = 0;
  for (element item : list) {
    if (n >= 4) return failAt(kNodeError, where, "must have at most 4 components");
    if (item.get_double().get(d) != simdjson::SUCCESS || !std::isfinite(d) || std::fabs(d) > 3.4e38) {
      return failAt(kNodeError, where + "[" + std::to_string(n) + "]", "must be a finite number");
    }
    v[n++] = float(d);
  }
  NodeValueType type;
  if (!nodeTypeFromComponents(n, type)) return failAt(kNodeError, where, "must have 1 to 4 components");
  return std::make_pair(type, v);
}

Expected<NodeValueType> readValueType(std::string_view text, const std::string& where) {
  if (text == "float") return NodeValueType::kFloat;
  if (text == "vec2") return NodeValueType::kVec2;
  if (text == "vec3") return NodeValueType::kVec3;
  if (text == "vec4") return NodeValueType::kVec4;
  return failAt(kNodeError, where, "unknown value type " + quote(text) + " (float, vec2, vec3, vec4)");
}

}  // namespace node_json

namespace {

using namespace node_json;

// A raw input before resolution: "id" / "id.output", or a literal.
struct RawInput {
  std::string name;
  bool literal = false;
  NodeValueType type = NodeValueType::kFloat;
  std::array<float, 4> value{0, 0, 0, 0};
  std::string block_id, output;
  uint32_t block = kNone;
};

struct RawBlock {
  std::vector<RawInput> inputs;
};

// What pass 1 hands to the later passes: the raw inputs of each block and the id → block index map.
struct RawGraph {
  std::vector<RawBlock> raws;
  std::unordered_map<std::string, uint32_t> ids;
};

std::string blockWhere(uint32_t b) {
  return "blocks[" + std::to_string(b) + "]";
}

Status parseInputs(object o, RawBlock& raw, const std::string& where) {
  element e;
  if (o.at_key("inputs").get(e) != simdjson::SUCCESS) return Ok{};
  object inputs;
  if (e.get_object().get(inputs) != simdjson::SUCCESS)
    return failAt(kNodeError, where + ".inputs", "must be an object");
  for (auto field : inputs) {
    RawInput in;
    in.name = std::string(field.key);
    const std::string here = where + ".inputs." + in.name;
    std::string_view ref;
    if (field.value.get_string().get(ref) == simdjson::SUCCESS) {
      const size_t dot = ref.find('.');
      in.block_id = std::string(ref.substr(0, dot));
      if (dot != std::string_view::npos) in.output = std::string(ref.substr(dot + 1));
      if (in.block_id.empty()) return failAt(kNodeError, here, "empty block reference");
    } else {
      auto v = readValue(field.value, here);
      if (!v)
        return failAt(kNodeError, here,
                      "must be \"blockId\", \"blockId.output\", a number or an array of 1 to 4 numbers");
      in.literal = true;
      in.type = v->first;
      in.value = v->second;
    }
    raw.inputs.push_back(std::move(in));
  }
  return Ok{};
}

// The document's top level: an optional name, the required blocks array, nothing else (besides a description).
Status readTopLevel(element root, NodeMaterial& material, array& blocks) {
  object top;
  if (root.get_object().get(top) != simdjson::SUCCESS)
    return failAt(kNodeError, "node material", "the root must be an object");
  element e;
  if (top.at_key("name").get(e) == simdjson::SUCCESS) {
    std::string_view name;
    if (e.get_string().get(name) != simdjson::SUCCESS) return failAt(kNodeError, "name", "must be a string");
    material.name = std::string(name);
  }
  if (top.at_key("blocks").get(e) != simdjson::SUCCESS || e.get_array().get(blocks) != simdjson::SUCCESS) {
    return failAt(kNodeError, "blocks", "required array");
  }
  for (auto field : top) {
    if (field.key != "name" && field.key != "blocks" && field.key != "description") {
      return failAt(kNodeError, std::string(field.key), "unknown field");
    }
  }
  return Ok{};
}

// One block's id (unique, no '.') and type; a built-in type reads its parameters, any other type must come from
// options.block_loader.
Status readBlockHeader(object o, const std::string& where, uint32_t index, const ParseNodeMaterialOptions& options,
                       NodeBlock& block, NodeMaterial& material, RawGraph& graph) {
  element e;
  std::string_view text;
  if (o.at_key("id").get(e) != simdjson::SUCCESS || e.get_string().get(text) != simdjson::SUCCESS || text.empty()) {
    return failAt(kNodeError, where + ".id", "required non-empty string");
  }
  block.id = std::string(text);
  if (block.id.find('.') != std::string::npos)
    return failAt(kNodeError, where + ".id", quote(block.id) + " must not contain '.'");
  if (!graph.ids.emplace(block.id, index).second)
    return failAt(kNodeError, where + ".id", "duplicate id " + quote(block.id));
  if (o.at_key("type").get(e) != simdjson::SUCCESS || e.get_string().get(text) != simdjson::SUCCESS) {
    return failAt(kNodeError, where + ".type", "required string");
  }
  block.type = std::string(text);
  if (isBuiltinNodeType(block.type)) {
    const std::set<std::string> keys = paramKeys(block.type);
    for (auto field : o) {
      const std::string key(field.key);
      if (key != "id" && key != "type" && key != "inputs" && key != "comment" && !keys.count(key)) {
        return failAt(kNodeError, where + "." + key, "unknown field for " + block.type);
      }
    }
    return readParams(o, block, material, where);
  }
  std::shared_ptr<const NodeBlockEmitter> custom = options.block_loader ? options.block_loader(block.type) : nullptr;
  if (!custom) return failAt(kNodeError, where + ".type", "unknown block type " + quote(block.type));
  block.emitter = std::move(custom);
  return Ok{};
}

// Pass 1: blocks, parameters, raw inputs.
Status readBlocks(array blocks, const ParseNodeMaterialOptions& options, NodeMaterial& material, RawGraph& graph) {
  uint32_t index = 0;
  for (element item : blocks) {
    const std::string where = blockWhere(index);
    object o;
    if (item.get_object().get(o) != simdjson::SUCCESS) return failAt(kNodeError, where, "must be an object");
    NodeBlock block;
    if (Status s = readBlockHeader(o, where, index, options, block, material, graph); !s) return s.error();
    RawBlock raw;
    if (Status s = parseInputs(o, raw, where); !s) return s.error();
    material.blocks.push_back(std::move(block));
    graph.raws.push_back(std::move(raw));
    ++index;
  }
  return Ok{};
}

// Pass 2: every input names a port of its block, every reference a block that exists.
Status resolveReferences(const NodeMaterial& material, RawGraph& graph) {
  for (uint32_t b = 0; b < material.blocks.size(); ++b) {
    const NodeBlock& block = material.blocks[b];
    std::vector<std::string> ports;
    if (block.emitter) {
      for (const NodePortDecl& p : block.emitter->inputs()) ports.push_back(p.name);
    } else {
      ports = builtinNodeInputNames(block.type);
    }
    for (RawInput& in : graph.raws[b].inputs) {
      const std::string where = blockWhere(b) + ".inputs." + in.name;
      if (std::find(ports.begin(), ports.end(), in.name) == ports.end()) {
        return failAt(kNodeError, where, block.type + " has no input " + quote(in.name));
      }
      if (in.literal) continue;
      auto it = graph.ids.find(in.block_id);
      if (it == graph.ids.end()) return failAt(kNodeError, where, "unknown block " + quote(in.block_id));
      in.block = it->second;
    }
  }
  return Ok{};
}

// Pass 3: topological order (sources before consumers), so pass 4 types each block after its sources; cycles fail.
Expected<std::vector<uint32_t>> topologicalOrder(const NodeMaterial& material, const RawGraph& graph) {
  const uint32_t count = uint32_t(material.blocks.size());
  std::vector<uint32_t> order;
  std::vector<uint8_t> mark(count, 0);  // 0 new, 1 on the stack, 2 done
  std::function<Status(uint32_t)> visit = [&](uint32_t b) -> Status {
    mark[b] = 1;
    for (const RawInput& in : graph.raws[b].inputs) {
      if (in.literal) continue;
      if (mark[in.block] == 1) {
        return failAt(kNodeError, blockWhere(b) + ".inputs." + printable(in.name),
                      "cycle through " + quote(material.blocks[in.block].id));
      }
      if (mark[in.block] == 0) {
        if (Status s = visit(in.block); !s) return s;
      }
    }
    mark[b] = 2;
    order.push_back(b);
    return Ok{};
  };
  for (uint32_t b = 0; b < count; ++b) {
    if (mark[b] == 0) {
      if (Status s = visit(b); !s) return s.error();
    }
  }
  return order;
}

// One raw input as a NodeInput, with its value type: a literal's own, or the type of the source output it names.
Status resolveInput(const NodeMaterial& material, const RawInput& in, const std::string& where, NodeInput& n,
                    NodeValueType& type) {
  n.name = in.name;
  if (in.literal) {
    n.literal = true;
    n.literal_type = in.type;
    n.value = in.value;
    type = in.type;
    return Ok{};
  }
  const NodeBlock& source = material.blocks[in.block];
  const std::vector<NodePortDecl> outs = source.emitter->outputs();
  const std::string here = where + ".inputs." + in.name;
  if (outs.empty())
    return failAt(kNodeError, here, "block " + quote(source.id) + " (" + source.type + ") has no outputs");
  uint32_t k = 0;
  if (!in.output.empty()) {
    k = kNone;
    for (uint32_t i = 0; i < outs.size(); ++i) {
      if (outs[i].name == in.output) k = i;
    }
    if (k == kNone)
      return failAt(kNodeError, here,
                    "block " + quote(source.id) + " (" + source.type + ") has no output " + quote(in.output));
  }
  n.block = in.block;
  n.output = k;
  type = outs[k].type;
  return Ok{};
}

// Pass 4, one block: its inputs typed, a built-in block's emitter made from those types, and the inputs stored in
// the order of the emitter's ports (required ones connected, every one convertible to the port's type).
Status typeBlock(NodeMaterial& material, uint32_t b, const RawBlock& raw) {
  NodeBlock& block = material.blocks[b];
  const std::string where = blockWhere(b);
  std::map<std::string, NodeValueType> types;
  std::map<std::string, NodeInput> resolved;
  for (const RawInput& in : raw.inputs) {
    NodeInput n;
    if (Status s = resolveInput(material, in, where, n, types[in.name]); !s) return s;
    resolved[in.name] = n;
  }
  if (!block.emitter) {
    auto made = makeBuiltinNodeEmitter(block, types, where);
    if (!made) return made.error();
    block.emitter = *made;
  }
  for (const NodePortDecl& p : block.emitter->inputs()) {
    auto it = resolved.find(p.name);
    if (it == resolved.end()) {
      if (!p.optional) return failAt(kNodeError, where + ".inputs." + p.name, "required input not connected");
      NodeInput n;
      n.name = p.name;
      block.inputs.push_back(n);
      continue;
    }
    auto converted = convertNodeValue("x", types[p.name], p.type);
    if (!converted) return failAt(kNodeError, where + ".inputs." + p.name, converted.error().message);
    block.inputs.push_back(it->second);
  }
  return Ok{};
}

// Pass 5: features. Built-in emitters install theirs; flag-only ones get theirs installed here.
Status installFeatures(NodeMaterial& material) {
  for (uint32_t b = 0; b < material.blocks.size(); ++b) {
    if (Status s = material.blocks[b].emitter->declare(material.state, material.blocks[b]); !s) {
      return fail(s.error().code, blockWhere(b) + ": " + s.error().message);
    }
  }
  // Band-texture path: a custom emitter that only set the flag gets the same feature module as the built-in block.
  if (material.state.uses_morph_targets && !nodeFeatureInstalled(material.state, "morph")) {
    installNodeFeature(material.state, nodeMorphFeature());
  }
  if (material.state.uses_skinning && !nodeFeatureInstalled(material.state, "skin")) {
    installNodeFeature(material.state, nodeSkinFeature());
  }
  return Ok{};
}

// Pass 6, structure: exactly one PbrOutput, at most one VertexOutput.
Status findOutputs(NodeMaterial& material) {
  for (uint32_t b = 0; b < material.blocks.size(); ++b) {
    const std::string& type = material.blocks[b].type;
    const std::string where = blockWhere(b);
    if (type == "PbrOutput") {
      if (material.pbr_output != kNone)
        return failAt(
            kNodeError, where,
            "a graph has exactly one PbrOutput (another is blocks[" + std::to_string(material.pbr_output) + "])");
      material.pbr_output = b;
    }
    if (type == "VertexOutput") {
      if (material.vertex_output != kNone) return failAt(kNodeError, where, "a graph has at most one VertexOutput");
      material.vertex_output = b;
    }
  }
  if (material.pbr_output == kNone) return failAt(kNodeError, "blocks", "a graph needs a PbrOutput block");
  return Ok{};
}

// Morph, then skin (glTF 2.0 §3.7.3.3: morph targets apply to the bind-pose attributes that skinning deforms):
// a MorphTargets block must not read (transitively) from a Skinning block.
Status checkMorphBeforeSkin(const NodeMaterial& material) {
  const uint32_t count = uint32_t(material.blocks.size());
  for (uint32_t b = 0; b < count; ++b) {
    if (material.blocks[b].type != "MorphTargets") continue;
    for (const NodeInput& in : material.blocks[b].inputs) {
      if (in.block == kNone) continue;
      std::vector<uint32_t> stack{in.block};
      std::vector<uint8_t> seen(count, 0);
      while (!stack.empty()) {
        const uint32_t s = stack.back();
        stack.pop_back();
        if (seen[s]) continue;
        seen[s] = 1;
        if (material.blocks[s].type == "Skinning") {
          return failAt(kNodeError, blockWhere(b) + ".inputs." + in.name,
                        "MorphTargets reads the output of Skinning " + quote(material.blocks[s].id) +
                            "; morph targets apply before skinning (glTF 2.0 §3.7.3.3)");
        }
        for (const NodeInput& next : material.blocks[s].inputs) {
          if (next.block != kNone) stack.push_back(next.block);
        }
      }
    }
  }
  return Ok{};
}

// Stages: every block feeding VertexOutput must exist in the vertex stage, every block feeding PbrOutput in the
// fragment stage.
Status checkStages(const NodeMaterial& material) {
  for (const auto& [stage_root, stage, stage_name] :
       {std::tuple{material.vertex_output, kNodeStageVertex, "vertex"},
        std::tuple{material.pbr_output, kNodeStageFragment, "fragment"}}) {
    if (stage_root == kNone) continue;
    std::vector<uint32_t> stack{stage_root};
    std::vector<uint8_t> seen(material.blocks.size(), 0);
    while (!stack.empty()) {
      const uint32_t s = stack.back();
      stack.pop_back();
      if (seen[s]) continue;
      seen[s] = 1;
      for (const NodeInput& in : material.blocks[s].inputs) {
        if (in.block == kNone) continue;
        const NodeBlock& source = material.blocks[in.block];
        if ((source.emitter->stages() & stage) == 0) {
          return failAt(kNodeError, blockWhere(s) + ".inputs." + in.name,
                        quote(source.id) + " (" + source.type + ") is not available in the " + stage_name + " stage");
        }
        stack.push_back(in.block);
      }
    }
  }
  return Ok{};
}

}  // namespace

Expected<NodeMaterial> parseNodeMaterial(std::string_view json_text, const ParseNodeMaterialOptions& options) {
  simdjson::dom::parser parser;
  element root;
  MORPHKIT_TRY(json::parse(parser, json_text, root, "node material: "));
  NodeMaterial material;
  array blocks;
  if (Status s = readTopLevel(root, material, blocks); !s) return s.error();
  RawGraph graph;
  if (Status s = readBlocks(blocks, options, material, graph); !s) return s.error();
  if (Status s = resolveReferences(material, graph); !s) return s.error();
  Expected<std::vector<uint32_t>> order = topologicalOrder(material, graph);
  if (!order) return order.error();
  for (uint32_t b : *order) {
    if (Status s = typeBlock(material, b, graph.raws[b]); !s) return s.error();
  }
  if (Status s = installFeatures(material); !s) return s.error();
  if (Status s = findOutputs(material); !s) return s.error();
  if (Status s = checkMorphBeforeSkin(material); !s) return s.error();
  if (Status s = checkStages(material); !s) return s.error();
  material.uv_transform_offset = uint32_t(sizeof(NodeObjectHeader) + 16 * material.uniforms.size());
  material.uniform_block_bytes = uint32_t(material.uv_transform_offset + 32 * material.textures.size());
  return material;
}

Expected<NodeMaterial> loadNodeMaterial(const std::string& path, const ParseNodeMaterialOptions& options) {
  Expected<std::vector<uint8_t>> bytes = readFile(path, size_t(16) << 20);
  if (!bytes) return fail(bytes.error().code, path + ": " + bytes.error().message);  // the header's contract
  Expected<NodeMaterial> material =
      parseNodeMaterial(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), options);
  if (!material) return fail(material.error().code, path + ": " + material.error().message);
  return material;
}

}  // namespace morphkit
