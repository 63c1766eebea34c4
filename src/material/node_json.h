// SPDX-License-Identifier: MIT
// node_json.h — what the node-material JSON readers share (node_parse.cpp: the document and its blocks;
// node_params.cpp: each built-in block type's parameters), on the one JSON field reader (src/model/json_fields.h).
// simdjson stays private to the material layer.
#pragma once
#include <array>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "json_fields.h"
#include "morphkit/material/node_material.h"

namespace morphkit::node_json {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// Every node-material error is kInvalidArgument, "<where>: <what>".
inline constexpr Error kNodeError = Error::kInvalidArgument;
using json::failAt;
bool isIdentifier(std::string_view s);
// A number or an array of 1..4 numbers (finite).
Expected<std::pair<NodeValueType, std::array<float, 4>>> readValue(element e, const std::string& where);
Expected<NodeValueType> readValueType(std::string_view text, const std::string& where);

// Keys each built-in type accepts besides id, type, inputs.
std::set<std::string> paramKeys(const std::string& type);
// Reads a block's parameters into `block` (and registers uniforms and textures in `material`).
Status readParams(object o, NodeBlock& block, NodeMaterial& material, const std::string& where);

}  // namespace morphkit::node_json
