// SPDX-License-Identifier: MIT
// The reorder pass: each indexed triangle primitive's triangles in meshoptimizer's vertex-cache order, then its
// vertices in the order those triangles first use them (fetch order), so indices grow by small steps and neighbouring
// vertices sit together in every stream. It is the last pass, and optimizeAsset keeps it only where the whole file then
// gzips smaller (docs/OPTIMIZE.md, "Passes"): on MorphSkinBlob52 the streams shrink but the input's order gzips better.
// Nothing is interpolated: vertex v of the input is vertex remap[v] of the output in every pose
// (PassDocument::vertex_remap).
#include <meshoptimizer.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "morphkit/model/accessor.h"
#include "morphkit/model/asset_builder.h"
#include "optimize_passes.h"

namespace morphkit::optimize_detail {
namespace {

// A primitive is reordered only where its order misses the vertex cache at least this many times as often as the
// cache order does (ACMR, a 16-entry cache). Orders nearer than that are coherent already, and gzip finds their
// long-range repeats: MorphSkinBlob52 (1.54x) gzipped 25 % larger reordered, the demo's captured face (1.48x) 32 %;
// Fox (2.47x) 2 % smaller (docs/OPTIMIZE.md, "Passes").
constexpr double kReorderAboveAcmrRatio = 2.0;

std::string twoDecimals(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

// How many primitive attributes (base and target) read each accessor: one whose vertex accessors another primitive
// also reads keeps its order (a reordered copy would store them twice).
std::map<uint32_t, uint32_t> accessorReaders(const Asset& asset) {
  std::map<uint32_t, uint32_t> readers;
  for (const Mesh& mesh : asset.meshes) {
    for (const Primitive& primitive : mesh.primitives) {
      for (const Attribute& a : primitive.attributes) ++readers[a.accessor];
      for (const MorphTarget& target : primitive.targets) {
        for (const Attribute& a : target.attributes) ++readers[a.accessor];
      }
    }
  }
  return readers;
}

bool readsSharedAccessors(const Primitive& primitive, const std::map<uint32_t, uint32_t>& readers) {
  for (const Attribute& a : primitive.attributes) {
    if (readers.at(a.accessor) > 1) return true;
  }
  for (const MorphTarget& target : primitive.targets) {
    for (const Attribute& a : target.attributes) {
      if (readers.at(a.accessor) > 1) return true;
    }
  }
  return false;
}

// The new place of each vertex: fetch order for the ones the triangles use, then the unused ones in their old order
// (kept, so every input vertex still has its output vertex).
std::vector<uint32_t> fetchOrder(std::span<const uint32_t> indices, uint32_t vertices) {
  std::vector<uint32_t> remap(vertices);
  const size_t used = meshopt_optimizeVertexFetchRemap(remap.data(), indices.data(), indices.size(), vertices);
  uint32_t next = uint32_t(used);
  for (uint32_t& r : remap) {
    if (r == ~0u) r = next++;
  }
  return remap;
}

}  // namespace

void reorderForCompression(PassDocument& document, const OptimizeOptions&, OptimizePassReport& report) {
  Asset& asset = document.asset;
  const std::map<uint32_t, uint32_t> readers = accessorReaders(asset);
  std::shared_ptr<const PassDocument> before;  // the document as the earlier passes left it, made on the first change
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    for (uint32_t p = 0; p < asset.meshes[m].primitives.size(); ++p) {
      Primitive& primitive = asset.meshes[m].primitives[p];
      const uint32_t position = findAttribute(primitive.attributes, "POSITION");
      if (primitive.mode != PrimitiveMode::kTriangles || primitive.indices == kNone || position == kNone ||
          readsSharedAccessors(primitive, readers)) {
        continue;
      }
      const uint32_t vertices = asset.accessors[position].count;
      std::vector<uint32_t> indices = readAccessorUints(asset, primitive.indices);
      if (vertices == 0 || indices.empty() || indices.size() % 3 != 0) continue;
      bool in_range = true;
      for (uint32_t i : indices) in_range = in_range && i < vertices;
      if (!in_range) continue;  // the loader has refused such a file already; nothing to reorder safely
      std::vector<uint32_t> cached(indices.size());
      meshopt_optimizeVertexCache(cached.data(), indices.data(), indices.size(), vertices);
      const double acmr_before = meshopt_analyzeVertexCache(indices.data(), indices.size(), vertices, 16, 0, 0).acmr;
      const double acmr_after = meshopt_analyzeVertexCache(cached.data(), cached.size(), vertices, 16, 0, 0).acmr;
      if (acmr_before < kReorderAboveAcmrRatio * acmr_after) continue;
      if (!before) before = std::make_shared<const PassDocument>(document);
      const std::vector<uint32_t> remap = fetchOrder(cached, vertices);
      std::vector<uint32_t> order(vertices);  // new vertex → old vertex
      for (uint32_t v = 0; v < vertices; ++v) order[remap[v]] = v;
      for (Attribute& a : primitive.attributes) a.accessor = keptElements(asset, a.accessor, order, true);
      for (MorphTarget& target : primitive.targets) {
        for (Attribute& a : target.attributes) a.accessor = keptElements(asset, a.accessor, order, true);
      }
      for (uint32_t& index : cached) index = remap[index];
      primitive.indices = appendAccessor(asset, std::span<const uint32_t>(cached), AccessorType::kScalar,
                                         {.target = kElementArrayBuffer});
      // Composed with an earlier pass's map (weld): input vertex → its vertex before this pass → its place now. A
      // simplified document is verified against itself, vertex by vertex, and by surfaces against the input.
      std::vector<uint32_t>& input_to_output = document.vertex_remap[m][p];
      if (document.simplified) {
        input_to_output.clear();
      } else if (input_to_output.empty()) {
        input_to_output = remap;
      } else {
        for (uint32_t& v : input_to_output) v = remap[v];
      }
      report.changes.push_back(primitiveLabel(asset, m, p) + ": " + std::to_string(indices.size() / 3) +
                               " triangles in vertex-cache order, " + std::to_string(vertices) +
                               " vertices in fetch order (vertex-cache misses per triangle " +
                               twoDecimals(acmr_before) + " -> " + twoDecimals(acmr_after) + ")");
    }
  }
  document.before_reorder = std::move(before);
}

}  // namespace morphkit::optimize_detail
