// SPDX-License-Identifier: MIT
// optimize's list of passes, flat and in order (morphkit/optimize/optimize.h kOptimizePassNames), and what they share.
#include "optimize_passes.h"

#include <algorithm>
#include <set>
#include <span>
#include <string>

#include "morphkit/model/accessor.h"
#include "morphkit/model/asset_builder.h"

namespace morphkit::optimize_detail {
namespace {

struct NamedPass {
  const char* name;
  PassFunction run;
};

constexpr NamedPass kPasses[] = {
    {"drop-attributes", dropUnreadAttributes},
    {"drop-direction-deltas", dropZeroDirectionDeltas},
    {"weld", weldIdenticalVertices},
    {"simplify", simplifyMeshes},
    {"node-dequantization", planNodeDequantization},
    {"textures", encodeTextures},
    {"reorder", reorderForCompression},  // last: optimizeAsset may undo it (PassDocument::before_reorder)
};
static_assert(std::size(kPasses) == std::size(kOptimizePassNames));

// The bytes of every accessor a mesh reads (each once, as loaded: count × element size, sparse ones as dense).
uint64_t meshAccessorBytes(const Asset& asset) {
  std::set<uint32_t> used;
  for (const Mesh& mesh : asset.meshes) {
    for (const Primitive& primitive : mesh.primitives) {
      for (const Attribute& a : primitive.attributes) used.insert(a.accessor);
      if (primitive.indices != kNone) used.insert(primitive.indices);
      for (const MorphTarget& target : primitive.targets) {
        for (const Attribute& a : target.attributes) used.insert(a.accessor);
      }
    }
  }
  uint64_t bytes = 0;
  for (uint32_t index : used) {
    if (index >= asset.accessors.size()) continue;
    const Accessor& a = asset.accessors[index];
    bytes += uint64_t(a.count) * elementSize(a.component_type, a.type);
  }
  return bytes;
}

// `values` (count × components) keeping the elements of `kept`.
template <class T>
std::vector<T> gather(const std::vector<T>& values, size_t components, std::span<const uint32_t> kept) {
  std::vector<T> out;
  out.reserve(kept.size() * components);
  for (uint32_t v : kept)
    out.insert(out.end(), values.begin() + std::ptrdiff_t(v * components),
               values.begin() + std::ptrdiff_t((v + 1) * components));
  return out;
}

}  // namespace

uint32_t keptElements(Asset& asset, uint32_t index, std::span<const uint32_t> kept, bool min_max) {
  const Accessor source = asset.accessors[index];
  const size_t components = componentCount(source.type);
  AppendAccessorOptions options;
  options.name = source.name;
  options.target = kArrayBuffer;
  options.min_max = min_max;
  const bool whole = source.component_type == ComponentType::kUnsignedByte ||
                     source.component_type == ComponentType::kUnsignedShort ||
                     source.component_type == ComponentType::kUnsignedInt;
  if (whole && !source.normalized) {
    const std::vector<uint32_t> values = gather(readAccessorUints(asset, index), components, kept);
    if (source.component_type == ComponentType::kUnsignedByte) {
      const std::vector<uint8_t> narrow(values.begin(), values.end());
      return appendAccessor(asset, std::span<const uint8_t>(narrow), source.type, options);
    }
    if (source.component_type == ComponentType::kUnsignedShort) {
      const std::vector<uint16_t> narrow(values.begin(), values.end());
      return appendAccessor(asset, std::span<const uint16_t>(narrow), source.type, options);
    }
    return appendAccessor(asset, std::span<const uint32_t>(values), source.type, options);
  }
  const std::vector<float> values = gather(readAccessorFloats(asset, index), components, kept);
  return appendAccessor(asset, std::span<const float>(values), source.type, options);
}

bool positionDeltaMissingSomewhere(const Primitive& primitive) {
  size_t with = 0;
  for (const MorphTarget& target : primitive.targets) with += findAttribute(target.attributes, "POSITION") != kNone;
  return with > 0 && with < primitive.targets.size();
}

std::string primitiveLabel(const Asset& asset, uint32_t mesh, uint32_t primitive) {
  std::string label = "meshes[" + std::to_string(mesh) + "]";
  if (!asset.meshes[mesh].name.empty()) label += " '" + asset.meshes[mesh].name + "'";
  return label + ".primitives[" + std::to_string(primitive) + "]";
}

Expected<PassDocument> runPasses(const Asset& input, const OptimizeOptions& options,
                                 std::vector<OptimizePassReport>& reports) {
  for (const std::string& name : options.skip_passes) {
    const bool known =
        std::any_of(std::begin(kPasses), std::end(kPasses), [&](const NamedPass& pass) { return name == pass.name; });
    if (!known) {
      std::string names;
      for (const NamedPass& pass : kPasses) names += std::string(names.empty() ? "" : ", ") + pass.name;
      return fail(Error::kInvalidArgument, "optimize: no pass is named '" + name + "' (the passes: " + names + ")");
    }
  }
  PassDocument document;
  document.asset = input;
  document.mesh_carriers.assign(input.meshes.size(), {});
  document.vertex_remap.resize(input.meshes.size());
  for (size_t m = 0; m < input.meshes.size(); ++m) document.vertex_remap[m].resize(input.meshes[m].primitives.size());
  reports.clear();
  for (const NamedPass& pass : kPasses) {
    OptimizePassReport report;
    report.name = pass.name;
    const bool skipped =
        std::find(options.skip_passes.begin(), options.skip_passes.end(), pass.name) != options.skip_passes.end();
    if (!skipped) {
      const uint64_t before = meshAccessorBytes(document.asset);
      pass.run(document, options, report);
      if (!document.status) return document.status.error();
      report.ran = true;
      const uint64_t after = meshAccessorBytes(document.asset);
      report.bytes_removed = before > after ? before - after : 0;
    }
    reports.push_back(std::move(report));
  }
  return document;
}

}  // namespace morphkit::optimize_detail
