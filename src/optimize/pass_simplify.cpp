// SPDX-License-Identifier: MIT
// The simplify pass (docs/OPTIMIZE.md, "Levels of detail"): each triangle primitive's collapses priced at the rest
// pose, every target alone and skinned poses sampled from the animations (simplify.h), then every per-vertex array
// (attributes, every target's deltas, skin weights) compacted to the vertices kept, each kept vertex's data as it was.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/model/accessor.h"
#include "morphkit/model/asset_builder.h"
#include "optimize_internal.h"
#include "optimize_passes.h"
#include "simplify.h"

namespace morphkit::optimize_detail {
namespace {

// Animation poses priced per primitive, spread evenly over the verified ones: each costs the simplifier memory
// (a quadric per vertex) and time, and neighbouring key times bend a mesh alike.
constexpr size_t kMaxAnimationPoses = 24;
// Fewer triangles than this are kept as they are: nothing worth a level of detail.
constexpr size_t kMinTriangles = 16;

// The poses to price collapses at: the rest pose, every target alone, a sample of the animation poses.
std::vector<const VerifyPose*> pricedPoses(const std::vector<VerifyPose>& poses) {
  std::vector<const VerifyPose*> priced, animated;
  for (const VerifyPose& pose : poses) {
    if (pose.category == "animations") {
      animated.push_back(&pose);
    } else if (pose.category != "default weights") {
      priced.push_back(&pose);
    }
  }
  const size_t take = std::min(animated.size(), kMaxAnimationPoses);
  for (size_t i = 0; i < take; ++i) priced.push_back(animated[i * animated.size() / take]);
  return priced;
}

// Per primitive (mesh-major), its world positions at every priced pose as drawn by the first node that draws it;
// empty for a primitive no node draws.
Expected<std::vector<std::vector<std::vector<float>>>> posedPrimitives(const Asset& asset, ThreadPool* pool) {
  std::vector<size_t> first(asset.meshes.size() + 1, 0);
  for (size_t m = 0; m < asset.meshes.size(); ++m) first[m + 1] = first[m] + asset.meshes[m].primitives.size();
  std::vector<std::vector<std::vector<float>>> out(first.back());
  Expected<PosePrepared> prepared = preparePose(asset);
  if (!prepared) return prepared.error();
  const std::vector<VerifyPose> poses = verifyPoses(asset, *prepared);
  PoseResult result;
  for (const VerifyPose* pose : pricedPoses(poses)) {
    PoseOptions request;
    request.path = CpuPath::kFast;  // pricing, not proof: the verification measures what was priced
    request.pool = pool;
    request.animation = pose->animation;
    request.time = pose->time;
    request.weights.overrides = pose->overrides;
    request.positions_only = true;
    if (Status s = evaluatePose(*prepared, request, result); !s) return s.error();
    std::vector<bool> seen(first.back(), false);
    for (PosedPrimitive& posed : result.meshes) {
      const size_t slot = first[posed.mesh] + posed.primitive;
      if (seen[slot]) continue;  // a second node drawing it: the first one's poses price it
      seen[slot] = true;
      out[slot].push_back(posed.positions);
    }
  }
  return out;
}

void compactPrimitive(Asset& asset, Primitive& primitive, const SimplifyResult& result) {
  for (Attribute& attribute : primitive.attributes) {
    attribute.accessor = keptElements(asset, attribute.accessor, result.kept_vertices, attribute.name == "POSITION");
  }
  for (MorphTarget& target : primitive.targets) {
    for (Attribute& attribute : target.attributes) {
      attribute.accessor = keptElements(asset, attribute.accessor, result.kept_vertices, attribute.name == "POSITION");
    }
  }
  AppendAccessorOptions options;
  options.target = kElementArrayBuffer;
  if (result.kept_vertices.size() <= 0xffff) {
    const std::vector<uint16_t> narrow(result.indices.begin(), result.indices.end());
    primitive.indices = appendAccessor(asset, std::span<const uint16_t>(narrow), AccessorType::kScalar, options);
  } else {
    primitive.indices =
        appendAccessor(asset, std::span<const uint32_t>(result.indices), AccessorType::kScalar, options);
  }
}

std::string millimetres(double metres) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3g mm", metres * 1000.0);
  return text;
}

}  // namespace

void simplifyMeshes(PassDocument& document, const OptimizeOptions& options, OptimizePassReport& report) {
  if (options.simplify_ratio <= 0 || options.simplify_ratio >= 1) return;  // off, or nothing to remove
  Asset& asset = document.asset;
  Expected<std::vector<std::vector<std::vector<float>>>> posed = posedPrimitives(asset, options.pool);
  if (!posed) {
    report.changes.push_back("nothing simplified: the input does not pose (" + posed.error().message + ")");
    return;
  }
  const double max_error =
      options.simplify_error_mm > 0 ? options.simplify_error_mm / 1000.0 : std::numeric_limits<double>::infinity();
  size_t slot = 0;
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    for (uint32_t p = 0; p < asset.meshes[m].primitives.size(); ++p, ++slot) {
      Primitive& primitive = asset.meshes[m].primitives[p];
      const std::string label = primitiveLabel(asset, m, p);
      const uint32_t position = findAttribute(primitive.attributes, "POSITION");
      if (primitive.mode != PrimitiveMode::kTriangles || position == kNone) {
        report.changes.push_back(label + ": kept as it is (not a triangle list)");
        continue;
      }
      const uint32_t vertices = asset.accessors[position].count;
      std::vector<uint32_t> indices;
      if (primitive.indices != kNone) {
        indices = readAccessorUints(asset, primitive.indices);
      } else {
        for (uint32_t v = 0; v < vertices; ++v) indices.push_back(v);
      }
      const std::vector<std::vector<float>>& poses = (*posed)[slot];
      if (indices.size() / 3 < kMinTriangles || poses.empty()) {
        report.changes.push_back(label + ": kept as it is (" +
                                 (poses.empty() ? std::string("no node draws it")
                                                : std::to_string(indices.size() / 3) + " triangles, too few") +
                                 ")");
        continue;
      }
      const std::vector<std::span<const float>> spans(poses.begin(), poses.end());
      const std::vector<uint8_t> seams = sharedPositionVertices(readAccessorFloats(asset, position), vertices);
      SimplifyInput input;
      input.indices = indices;
      input.vertex_count = vertices;
      input.poses = spans;
      input.locked = seams;
      input.target_ratio = options.simplify_ratio;
      input.max_error = max_error;
      input.pool = options.pool;
      const SimplifyResult result = simplifyTriangles(input);
      if (result.collapses == 0) {
        report.changes.push_back(label + ": kept as it is (" + simplifyStopName(result.stop) + " before any collapse)");
        continue;
      }
      compactPrimitive(asset, primitive, result);
      document.simplified = true;
      report.changes.push_back(label + ": " + std::to_string(indices.size() / 3) + " -> " +
                               std::to_string(result.indices.size() / 3) + " triangles, " + std::to_string(vertices) +
                               " -> " + std::to_string(result.kept_vertices.size()) + " vertices over " +
                               std::to_string(poses.size()) + " poses, largest collapse error " +
                               millimetres(result.max_error) + " (" + simplifyStopName(result.stop) + ")");
    }
  }
}

}  // namespace morphkit::optimize_detail
