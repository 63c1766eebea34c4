// SPDX-License-Identifier: MIT
// node_internal.h — internal: built-in block emitters and GLSL helpers shared by the parser and the compiler.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "morphkit/material/node_material.h"
#include "morphkit/model/error.h"

namespace morphkit {

// A GLSL float literal that round-trips (always has a '.' or an exponent).
std::string glslFloat(float value);
// A GLSL constructor for `type` from the first components of `value`.
std::string glslValue(NodeValueType type, const std::array<float, 4>& value);
std::string glslTypeName(NodeValueType type);  // "float", "vec2", ...

// Converts `expr` of type `from` to `to`: float broadcasts to any vector; vec4 → vec3 / vec2 and vec3 → vec2
// truncate; vec3 → vec4 appends 1. Other conversions fail with "cannot convert <from> to <to>".
Expected<std::string> convertNodeValue(const std::string& expr, NodeValueType from, NodeValueType to);
// The type produced by the components of a swizzle ("xyz" → vec3), or an error.
bool nodeTypeFromComponents(size_t count, NodeValueType& type);

// True when `type` is a built-in block type (docs/NODE_MATERIALS.md lists them).
bool isBuiltinNodeType(std::string_view type);
// Ports of a built-in type whose port list does not depend on its inputs' types; for the generic math blocks the
// names (types are resolved later by makeBuiltinNodeEmitter).
std::vector<std::string> builtinNodeInputNames(std::string_view type);
// The emitter of a built-in block, with `connected` the source types of its connected inputs (by port name).
// `block` carries the parameters (value, uniform, texture, components...). `where` prefixes errors.
Expected<std::shared_ptr<const NodeBlockEmitter>> makeBuiltinNodeEmitter(
    const NodeBlock& block, const std::map<std::string, NodeValueType>& connected, const std::string& where);

}  // namespace morphkit
