// SPDX-License-Identifier: MIT
// The weld pass: vertices identical in every attribute the primitive keeps, in every morph target's deltas and in
// their skin become one (exporters split vertices for attributes the drop-attributes pass has just removed, such as
// UV seams no texture reads). Nothing is interpolated: a welded vertex poses exactly as each of the vertices it
// replaces, in every pose, so the verification compares input vertex v with output vertex remap[v]
// (PassDocument::vertex_remap).
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>

#include "morphkit/model/accessor.h"
#include "morphkit/model/asset_builder.h"
#include "optimize_passes.h"

namespace morphkit::optimize_detail {
namespace {

bool startsWith(std::string_view name, std::string_view prefix) {
  return name.substr(0, prefix.size()) == prefix;
}

// Attributes whose meaning the pass knows (an application's own `_NAME` data could hold anything, in any type).
bool weldable(const Primitive& primitive) {
  if (primitive.mode != PrimitiveMode::kTriangles || findAttribute(primitive.attributes, "POSITION") == kNone) {
    return false;
  }
  for (const Attribute& a : primitive.attributes) {
    const bool known = a.name == "POSITION" || a.name == "NORMAL" || a.name == "TANGENT" ||
                       startsWith(a.name, "TEXCOORD_") || startsWith(a.name, "COLOR_") ||
                       startsWith(a.name, "JOINTS_") || startsWith(a.name, "WEIGHTS_");
    if (!known) return false;
  }
  return true;
}

// One column of per-vertex values: the accessor's elements as floats (joint indices as exact integers in floats).
struct Column {
  std::vector<float> values;
  uint32_t components = 0;
};

Column readColumn(const Asset& asset, const Attribute& attribute) {
  Column column;
  column.components = componentCount(asset.accessors[attribute.accessor].type);
  if (startsWith(attribute.name, "JOINTS_")) {
    const std::vector<uint32_t> joints = readAccessorUints(asset, attribute.accessor);
    column.values.assign(joints.begin(), joints.end());
  } else {
    column.values = readAccessorFloats(asset, attribute.accessor);
  }
  return column;
}

}  // namespace

void weldIdenticalVertices(PassDocument& document, const OptimizeOptions&, OptimizePassReport& report) {
  Asset& asset = document.asset;
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    for (uint32_t p = 0; p < asset.meshes[m].primitives.size(); ++p) {
      Primitive& primitive = asset.meshes[m].primitives[p];
      if (!weldable(primitive)) continue;
      const uint32_t vertices = asset.accessors[findAttribute(primitive.attributes, "POSITION")].count;
      // Every value a vertex carries, base attributes then each target's deltas, in one row per vertex.
      std::vector<Column> base, deltas;
      for (const Attribute& a : primitive.attributes) base.push_back(readColumn(asset, a));
      for (const MorphTarget& target : primitive.targets) {
        for (const Attribute& a : target.attributes) deltas.push_back(readColumn(asset, a));
      }
      size_t row_floats = 0;
      for (const Column& c : base) row_floats += c.components;
      for (const Column& c : deltas) row_floats += c.components;
      std::vector<float> rows(size_t(vertices) * row_floats);
      size_t offset = 0;
      for (const std::vector<Column>* columns : {&base, &deltas}) {
        for (const Column& c : *columns) {
          for (uint32_t v = 0; v < vertices; ++v) {
            std::memcpy(&rows[v * row_floats + offset], &c.values[size_t(v) * c.components],
                        c.components * sizeof(float));
          }
          offset += c.components;
        }
      }
      // Rows compared by their bytes: -0 and 0 stay apart, which keeps the pass exact (they pose alike anyway).
      std::unordered_map<std::string_view, uint32_t> first;
      first.reserve(vertices);
      std::vector<uint32_t> remap(vertices), kept;
      for (uint32_t v = 0; v < vertices; ++v) {
        const std::string_view key(reinterpret_cast<const char*>(&rows[v * row_floats]), row_floats * sizeof(float));
        auto [it, added] = first.emplace(key, uint32_t(kept.size()));
        if (added) kept.push_back(v);
        remap[v] = it->second;
      }
      if (kept.size() == vertices) continue;
      for (Attribute& a : primitive.attributes) a.accessor = keptElements(asset, a.accessor, kept, true);
      for (MorphTarget& target : primitive.targets) {
        for (Attribute& a : target.attributes) a.accessor = keptElements(asset, a.accessor, kept, true);
      }
      std::vector<uint32_t> indices;
      if (primitive.indices != kNone) {
        indices = readAccessorUints(asset, primitive.indices);
      } else {
        indices.resize(vertices);
        for (uint32_t v = 0; v < vertices; ++v) indices[v] = v;
      }
      for (uint32_t& index : indices) index = remap[index];
      primitive.indices = appendAccessor(asset, std::span<const uint32_t>(indices), AccessorType::kScalar,
                                         {.target = kElementArrayBuffer});
      document.vertex_remap[m][p] = std::move(remap);
      report.changes.push_back(primitiveLabel(asset, m, p) + ": " + std::to_string(vertices) + " -> " +
                               std::to_string(kept.size()) + " vertices");
    }
  }
}

}  // namespace morphkit::optimize_detail
