// SPDX-License-Identifier: MIT
// morphkit/io/inspect.h — what a glTF file holds, as far as morphing and skinning care: the data behind
// `morphkit inspect --json` and the Python package's Asset.info() (one builder for both, schema in docs/CLI.md).
// Lives in morphkit::vk because each primitive with targets also reports what the GPU's f16 delta layout
// (morphkit/pack/packed_deltas.h) would lose against f32.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "morphkit/model/asset.h"
#include "morphkit/model/primitive.h"

namespace morphkit {

class JsonWriter;  // morphkit/io/json_writer.h

// Human-readable names used in reports ("TRIANGLES", "weights", "CUBICSPLINE", "u16 normalized", ...).
const char* primitiveModeName(PrimitiveMode mode);
const char* targetPathName(TargetPath path);
const char* interpolationName(Interpolation interpolation);
// A channel's path; a non-core one (an extension's) keeps its name: "pointer (ignored)". A KHR_animation_pointer
// channel adds its pointer: "pointer /nodes/0/weights" (played), "pointer /materials/0/alphaCutoff (ignored)".
std::string channelPathName(const AnimationChannel& channel);
// "f32", "u16 normalized", "sparse f32" (no bufferView), "sparse-on-dense i16" ...
std::string accessorEncoding(const Accessor& accessor);

// The texture's KTX2 image (its KHR_texture_basisu source, or a `source` that is itself KTX2), or kNone.
uint32_t textureKtx2Image(const Asset& asset, const Texture& texture);
// Whether `render` can draw it (drawnTextureImage): an EXT_texture_webp image, or a source that is not KTX2 (a
// PNG/JPEG, possibly the basisu fallback).
bool textureDrawable(const Asset& asset, const Texture& texture);

// A VRM avatar's expressions (Asset::vrm): `inspect --json`'s "vrm" member — {"version", "expressions": [{"name",
// "preset", "isBinary", "overrideBlink", "overrideLookAt", "overrideMouth", "binds": [{"node" | "mesh", "index",
// "weight"}]}]}, null for a file that is no VRM — and the table's lines, one per expression:
// "happy  preset  binary  blink:blend  2 binds (node 0 target 3 x1, ...)".
void writeExpressionsJson(JsonWriter& json, const Asset& asset);
std::vector<std::string> describeExpressions(const Asset& asset);

// One primitive's report.
struct PrimitiveSummary {
  uint32_t vertex_count = 0, index_count = 0;
  size_t morph_bytes = 0;                                   // bytes of every target accessor, as stored
  std::vector<std::vector<std::string>> target_attributes;  // per target, sorted attribute names
  std::vector<std::string> sparse, quantized;               // "targets[3].POSITION: sparse f32"
  // What decodePrimitive's normalizeSkinWeights does to the WEIGHTS_n (morphkit/model/primitive.h); only with skin
  // weights.
  bool has_skin_weights = false;
  SkinWeightFix skin_weights;
  // What the GPU's f16 delta layout would lose against f32 (max abs error per attribute); only with targets.
  bool has_f16 = false;
  float f16_position = 0, f16_normal = 0, f16_tangent = 0, f16_extra = 0;
  bool f16_overflow = false;
  // The same for the snorm16 layout (per-target, per-attribute scales); measured with f16.
  float snorm16_position = 0, snorm16_normal = 0, snorm16_tangent = 0, snorm16_extra = 0;
  bool snorm16_non_finite = false;
};
// Requires a validated asset (morphkit/gltf/gltf.h) and indices in range.
PrimitiveSummary summarizePrimitive(const Asset& asset, uint32_t mesh, uint32_t primitive);
// Identical primitives (primitiveIdentity, morphkit/model/primitive.h) are summarized once: a file repeating one
// primitive a thousand times must not be decoded a thousand times (docs/SECURITY.md).
using PrimitiveSummaryCache = std::unordered_map<std::string, PrimitiveSummary>;
const PrimitiveSummary& summaryOf(PrimitiveSummaryCache& cache, const Asset& asset, uint32_t mesh, uint32_t primitive);

// Sums further than this from 1 are warned about; closer ones are rescaled silently (lossy encoders, e.g. Draco
// quantizing weights, leave ~1e-4).
inline constexpr double kWarnSkinWeightSum = 1e-3;
// "meshes[M].primitives[P]: N vertices have skin weights that do not sum to 1 (worst sum S); rescaled ..." per
// primitive whose worst sum is off 1 by more than kWarnSkinWeightSum, in mesh order.
std::vector<std::string> inspectWarnings(const Asset& asset);

// The `inspect --json` object (pretty-printed, no trailing newline); `file` is echoed in its "file" field.
std::string inspectJson(const Asset& asset, std::string_view file);

}  // namespace morphkit
