// SPDX-License-Identifier: MIT
// The two halves of morphkit::optimizeAsset (morphkit/optimize/optimize.h): encoding an asset on grids chosen from a
// bound (optimize_encode.cpp) and comparing two assets pose by pose (optimize_verify.cpp). Private to
// morphkit::optimize.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/asset.h"
#include "morphkit/optimize/optimize.h"

namespace morphkit {
class JsonWriter;  // morphkit/io/json_writer.h
}  // namespace morphkit

namespace morphkit::optimize_detail {

// What each bufferView holds, for the report's parts.
enum class ViewPart : uint8_t { kTargets, kBase, kAnimation, kImages, kOther };

// Local-space error allowances, from the world bound and the asset's largest transform scale and weight sum.
// One primitive's skin weights as 8-bit integers, rounded once by skinWeightError and reused by the encoding.
struct RoundedSkinWeights {
  uint32_t mesh = 0, primitive = 0;
  std::vector<uint32_t> ints;  // roundSkinWeights' result at scale 255
};

struct EncodeBudget {
  double base_position = 0.0;        // largest vector error of a base POSITION (object-space units)
  double base_position_floor = 0.0;  // what a base POSITION may take when 16 bits cannot meet base_position
  double target_delta = 0.0;         // largest vector error of one POSITION delta
  double shared_position = 0.0;      // largest vector error of a skinned position on its skin's one grid
  double mesh_position = 0.0;        // the same for an unskinned mesh's position on its own grid (node-dequantized)
  bool u8_skin_weights = false;
  std::span<const RoundedSkinWeights> rounded_u8_weights;  // skinWeightError's roundings, where u8_skin_weights
  double keep_nearest = 0.0;  // world space: a skinned base vertex whose error is within it keeps its nearest rounding
};

struct SkinnedDraw;

struct EncodedAsset {
  Asset asset;                               // every accessor rewritten into one buffer
  std::vector<MeshoptViewEncoding> meshopt;  // the views to store compressed (empty without meshopt)
  std::vector<ViewPart> parts;               // per bufferView
  std::vector<std::string> notes;
};

// The extensions the encoder may write (optimize --for: what the runtime decodes, morphkit/model/runtimes.h).
struct EncodeExtensions {
  bool meshopt = true;  // EXT_meshopt_compression; false: plain bufferViews
  // KHR_mesh_quantization; false: positions, normals, tangents, every target delta and every animation key are
  // floats, and no grid is folded into a skin or node (texture coordinates, joints and skin weights keep the 8/16-bit
  // forms core glTF allows, §3.7.2.1)
  bool quantization = true;
};

struct PassDocument;
// `document`: the passes' output (optimize_passes.h); `draws`: skinnedDraws(input), for the skin weights' rounding.
Expected<EncodedAsset> encodeAsset(const PassDocument& document, const EncodeBudget& budget,
                                   const EncodeExtensions& extensions, std::span<const SkinnedDraw> draws,
                                   ThreadPool* pool);

// The parts of an asset's views (as loaded) and of an encoded one (compressed views at their encoded size).
OptimizeParts inputParts(const Asset& asset);
OptimizeParts outputParts(const EncodedAsset& encoded, std::span<const uint8_t> glb);

// What the encoder needs to turn a world bound into local ones.
struct PoseScale {
  double diagonal = 0.0;           // rest pose, world space
  double transform_scale = 1.0;    // largest column length of any instance's world or joint matrix at rest
  double weight_sum = 1.0;         // largest Σ|w| of the verified poses (1: a target alone)
  double weight_square_sum = 1.0;  // largest Σw² of the same
};
Expected<PoseScale> measurePoseScale(const Asset& asset);

// One verified pose: a category of docs/OPTIMIZE.md's list, its label for messages, and the frame request.
struct VerifyPose {
  std::string category;
  std::string label;
  uint32_t animation = kNone;
  double time = 0.0;
  std::vector<WeightOverride> overrides;
};
std::vector<VerifyPose> verifyPoses(const Asset& asset, const PosePrepared& prepared);

// OptimizeReport::render_diff as the report's renderDiff object (render_check.cpp).
void renderDiffJson(JsonWriter& json, const RenderDifference& diff);

// The verified poses as skin-weight rounding needs them (optimize_weights.cpp): for each primitive a skinned node
// draws, each such node's joint palette (world(joint)·IBM) and morph weights at every verified pose.
struct SkinnedDraw {
  uint32_t mesh = kNone, primitive = kNone;
  std::vector<std::vector<DMat4>> palettes;  // per pose
  std::vector<std::vector<float>> weights;   // per pose, one per target
};
Expected<std::vector<SkinnedDraw>> skinnedDraws(const Asset& asset);

// The WEIGHTS_n accessors of `primitive`, WEIGHTS_0 up to the first set that is absent.
std::vector<uint32_t> weightSets(const Primitive& primitive);
// Those sets' weights together per vertex (4 per set, set 0 first), as roundSkinWeights takes them.
std::vector<float> interleavedWeights(const Asset& input, std::span<const uint32_t> sets);

// Vertices per task where roundSkinWeights and roundSkinnedPositions search on the pool: a vertex's search covers
// every verified pose, so ranges this long are milliseconds of work each.
constexpr size_t kRoundingVerticesPerTask = 256;

// Skin weights (`influences` per vertex, every WEIGHTS_n set of `primitive` together) as integers of `scale` (255 or
// 65535), each vertex's summing exactly to round(scale × min(1, its sum)) (§3.7.3.3). Among the roundings up or
// down that keep that sum, each vertex takes the one that moves its skinned position least, largest over `draws`'
// poses of the primitive, and `largest_error` grows to the largest such distance (world space); without
// `largest_error`, or where no skinned node draws the primitive, the largest remainders.
std::vector<uint32_t> roundSkinWeights(const Asset& input, const Primitive& primitive, std::span<const float> weights,
                                       uint32_t influences, double scale, std::span<const SkinnedDraw* const> draws,
                                       double* largest_error, ThreadPool* pool);

// A skinned primitive's base POSITION as integers on its skin's grid (q = (p − center) / step), each vertex rounded
// up or down per axis where its largest skinned error over `draws'` poses, its targets' nearest roundings included,
// is least; the nearest grid point where no skinned node draws it, no target moves the vertex, or the nearest
// point's error is within `keep_below` (world space).
// With `deltas`, a vertex still above `keep_below` then tries each of its targets' roundings in turn, and the ones
// that lower its error are listed: (target, vertex, the delta on the grid).
struct DeltaRounding {
  uint32_t target = 0, vertex = 0;
  int16_t q[3] = {0, 0, 0};
};
std::vector<int16_t> roundSkinnedPositions(const Asset& input, const Primitive& primitive, double step,
                                           const double center[3], std::span<const SkinnedDraw* const> draws,
                                           double keep_below, std::vector<DeltaRounding>* deltas, ThreadPool* pool);

// The largest error skin weights as integers of `scale` (roundSkinWeights with `largest_error`) move a vertex by
// over `draws`' poses, every skinned primitive together: what decides whether 8-bit weights are tried.
// With `rounded`, each primitive's integers as well.
double skinWeightError(const Asset& input, std::span<const SkinnedDraw> draws, double scale, ThreadPool* pool,
                       std::vector<RoundedSkinWeights>* rounded = nullptr);

// Poses `original` and `optimized` (the same scene structure) at every verified pose; fills report.errors,
// max_distance and worst. Stops at the first pose whose distance exceeds `stop_above` (the encoding has failed).
// `vertex_remap` (PassDocument::vertex_remap): the output vertex of each input vertex where a pass merged vertices.
Status comparePoses(const Asset& original, const Asset& optimized, double stop_above, OptimizeReport& report,
                    const OptimizeOptions& options,
                    const std::vector<std::vector<std::vector<uint32_t>>>& vertex_remap);

// Poses `original` and `optimized` at every verified pose and fills report.surface_errors: per category, the largest
// two-sided surface distance (surfaceDistance) over the triangle primitives whose vertex counts differ.
Status compareSurfaces(const Asset& original, const Asset& optimized, OptimizeReport& report,
                       const OptimizeOptions& options);

}  // namespace morphkit::optimize_detail
