// SPDX-License-Identifier: MIT
// morphkit/pack/packed_deltas.h — part of the pack module (src/pack/, docs/LAYOUTS.md): the byte layouts the Vulkan
// compute path uploads (interleaved vertices, dense f32/f16/snorm16 and CSR deltas, the skin stream), as pure functions
// `PrimitiveData → bytes + layout descriptor`, each with a decoder (used by the tests) that turns the bytes
// back into plain float arrays. No Vulkan here: these run and are tested without a device.
// Every byte is drawn in docs/LAYOUTS.md; the GPU-side structs are in shaders/morph_shared.h.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "morphkit/model/error.h"
#include "morphkit/model/primitive.h"

namespace morphkit {

inline constexpr uint32_t kLayoutAbsent = 0xFFFFFFFFu;  // an offset of an attribute that is not there
inline constexpr uint32_t kMaxMorphedExtra = 16;        // morphed texcoord + color components (MORPH_MAX_EXTRA)

// ---- Vertices: base (input) and deformed (output) share one interleaved f32 format ----
// Per vertex, in this order: position xyz, [normal xyz], [tangent xyzw], [TEXCOORD_n uv]..., [COLOR_n rgba]...
// Offsets are in floats from the start of a vertex; kLayoutAbsent when the primitive lacks the attribute.
struct VertexFormat {
  uint32_t stride = 3;  // floats per vertex
  uint32_t normal = kLayoutAbsent;
  uint32_t tangent = kLayoutAbsent;
  uint32_t extra = kLayoutAbsent;  // first texcoord (then colors); kLayoutAbsent when none
  uint32_t texcoord_sets = 0, color_sets = 0;
};

VertexFormat vertexFormat(const PrimitiveData& primitive);

// vertex_count × format.stride floats.
struct PackedVertices {
  VertexFormat format;
  uint32_t vertex_count = 0;
  std::vector<float> data;
};
PackedVertices packVertices(const PrimitiveData& primitive);

// Decoder: fills position/normal/tangent/texcoords/colors of `out` (sizes as in PrimitiveData) from
// interleaved vertices. Used for the base layout in tests and for reading the GPU's output.
void unpackVertices(const VertexFormat& format, uint32_t vertex_count, const float* data, PrimitiveData& out);

// ---- Morph target deltas ----
enum class DeltaLayout : uint8_t {
  kDenseF32,      // f32 records in vertex tiles × target slabs × planes (below)
  kDenseF16,      // same order, IEEE binary16 (round to nearest even)
  kSparse,        // per-vertex CSR: rows[v]..rows[v+1] index records (target u32, f32 delta record), targets ascending
  kDenseSnorm16,  // same order, int16 q = round(Δ / scale · 32767) with a scale per (target, attribute group),
                  // then the scales (kSnorm16ScaleSlots f32 per target) after the last slab
};
const char* deltaLayoutName(DeltaLayout layout);  // "dense_f32", "dense_f16", "sparse", "dense_snorm16"
// Bytes of one delta component: 2 for f16 and snorm16, else 4.
uint32_t denseElementBytes(DeltaLayout layout);

// The components of one (vertex, target) delta record: the union of the attributes the targets carry.
// Offsets in components; kLayoutAbsent when no target moves that attribute (or the base lacks it).
struct DeltaFormat {
  uint32_t stride = 0;  // components per record
  uint32_t position = kLayoutAbsent, normal = kLayoutAbsent, tangent = kLayoutAbsent;
  uint32_t extra = kLayoutAbsent;  // texcoord and color deltas, in the VertexFormat's extra order
  uint32_t extra_count = 0;        // = every texcoord/color float of the vertex when any target moves one
};

// Fails with kInvalidArgument when the targets move more than kMaxMorphedExtra texcoord/color floats.
Expected<DeltaFormat> deltaFormat(const PrimitiveData& primitive);

// Dense deltas (docs/LAYOUTS.md §3a) are tiled: vertices in tiles of kDeltaTileVertices (one workgroup of
// the kernel), and per tile one slab per target holding the tile's records split into planes of up to 4
// components (plane k = components 4k..4k+3 of the tile's vertex 0, then vertex 1, ...). A workgroup then
// reads one contiguous run of slabs (few pages, few DRAM rows) and a record's 4 f32 components with one
// 16-byte load. Buffer = tiles × targets × slab; the last tile is zero-padded.
inline constexpr uint32_t kDeltaTileVertices = 64;  // = MORPH_GROUP_SIZE
// Bytes of the whole dense delta buffer.
uint64_t denseDeltaBytes(uint32_t vertex_count, uint32_t target_count, uint32_t stride, uint32_t element_bytes);
// Element (f32 or f16) index of component `component` of (target, vertex) in the dense delta buffer.
uint64_t denseElementIndex(uint32_t target_count, uint32_t stride, uint32_t target, uint32_t vertex,
                           uint32_t component);

struct PackedDeltas {
  DeltaLayout layout = DeltaLayout::kDenseF32;
  DeltaFormat format;
  uint32_t vertex_count = 0, target_count = 0;
  uint64_t target_bytes = 0;  // dense: bytes one target occupies (its slabs over every tile); sparse: 0
  // dense: denseDeltaBytes (tiled), snorm16 then its scale block (snorm16ScaleOffset); sparse: the records
  // (4·(1 + stride) bytes each)
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> rows;  // sparse: vertex_count + 1 record offsets; dense: empty
  uint64_t record_count = 0;   // sparse: records stored; dense: vertex_count × target_count
};

// Packs every target of the primitive in the given layout. kDenseSnorm16 fails with kInvalidArgument when a
// delta is not finite (one inf would make its whole attribute's scale useless). The sparse layout keeps a (vertex,
// target) record when any of its delta components is non-zero, or when the vertex is listed in one of the target's glTF
// sparse accessors (MorphTargetData::*_sparse_indices, glTF 2.0 §3.6.2.3).
Expected<PackedDeltas> packDeltas(const PrimitiveData& primitive, DeltaLayout layout);

// Records the sparse layout would store (same rule as packDeltas), in all and per target.
uint64_t sparseRecordCount(const PrimitiveData& primitive);
std::vector<uint64_t> sparseRecordCounts(const PrimitiveData& primitive);

// The layout uploadGpuPrimitive picks unless forced: kSparse when a target came from glTF sparse
// accessors, or when the sparse bytes are at most `sparse_ratio` × the dense f32 bytes; else kDenseF32.
DeltaLayout chooseDeltaLayout(const PrimitiveData& primitive, double sparse_ratio = 0.5);

// Decoder: target `target`'s deltas as vertex_count × format.stride floats (zeros where no record).
std::vector<float> unpackTargetDeltas(const PackedDeltas& packed, uint32_t target);

// IEEE 754 binary16 conversions (round to nearest even; overflow → ±inf; NaN stays NaN).
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t half);

// ---- snorm16 (docs/LAYOUTS.md §3d) ----
// The scales of one target: slot 0 position, 1 normal, 2 tangent, 3 every texcoord and color component. A
// scale is the largest |Δ| of its group over every vertex (0 when the target does not move it).
inline constexpr uint32_t kSnorm16ScaleSlots = 4;
// Byte offset of the scale block (target_count × kSnorm16ScaleSlots f32, one 16-byte vec4 per target) in the
// snorm16 delta buffer: right after the slabs.
uint64_t snorm16ScaleOffset(uint32_t vertex_count, uint32_t target_count, uint32_t stride);
// The scales of target `t` of the primitive, as packDeltas stores them (non-finite when a delta is).
std::array<float, kSnorm16ScaleSlots> snorm16TargetScales(const MorphTargetData& t);
// q = round(value / scale · 32767), clamped to ±32767 (never -32768, so GLSL's unpackSnorm2x16 needs no clamp);
// 0 when scale is 0. Decoded: q / 32767 · scale, rounded once to float. |decoded − value| ≤ scale / 65534 plus
// that last rounding (half an ulp of the decoded value).
int16_t floatToSnorm16(float value, float scale);
float snorm16ToFloat(int16_t q, float scale);
// The scales a snorm16 buffer stores for target `target` (zeros for other layouts).
std::array<float, kSnorm16ScaleSlots> packedSnorm16Scales(const PackedDeltas& packed, uint32_t target);

// What the snorm16 layout loses on one primitive: the largest |snorm16(Δ) − Δ| per attribute over all targets,
// and per attribute the largest scale (the error is at most scale / 65534). For `morphkit inspect`.
struct Snorm16DeltaError {
  float max_abs_position = 0, max_abs_normal = 0, max_abs_tangent = 0, max_abs_extra = 0;
  float max_scale_position = 0, max_scale_normal = 0, max_scale_tangent = 0, max_scale_extra = 0;
  bool non_finite = false;  // some Δ is inf or NaN: the snorm16 layout must not be used
};
Snorm16DeltaError snorm16DeltaError(const PrimitiveData& primitive);

// What the f16 layout loses on one primitive: the largest |f16(Δ) − Δ| over all targets and components,
// per attribute, and the largest |Δ| for scale. For `morphkit inspect`.
struct F16DeltaError {
  float max_abs_position = 0, max_abs_normal = 0, max_abs_tangent = 0, max_abs_extra = 0;
  float max_delta = 0;    // the largest |Δ| of any component
  bool overflow = false;  // some |Δ| > 65504 (f16 max): the f16 layout must not be used
};
F16DeltaError f16DeltaError(const PrimitiveData& primitive);

// ---- Skinning stream ----
// Per vertex: 4·influence_sets u32 joint indices, then 4·influence_sets f32 weights (as bit patterns).
struct PackedSkin {
  uint32_t influence_sets = 0;
  uint32_t joints_needed = 0;  // largest joint index + 1: the palette must have at least this many matrices
  std::vector<uint32_t> words;
};
PackedSkin packSkin(const PrimitiveData& primitive);

}  // namespace morphkit
