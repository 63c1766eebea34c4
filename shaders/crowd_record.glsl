// SPDX-License-Identifier: MIT
// crowd_record.glsl — one delta record of the dense layouts (docs/LAYOUTS.md §3a: vertex-tiled slabs of
// MORPH_GROUP_SIZE records), read by both crowd kernels (crowd.comp, crowd2.comp), written once.
//
// Slab `slab` holds one target's records for one tile of 64 vertices; plane k holds components 4k … 4k+3 of the
// tile's 64 records, width min(4, stride − 4k), so a full plane is one 16-byte (f32) or 8-byte (f16) load. Every
// width is a constant once specialized. The includer enables GL_EXT_buffer_reference and the int64 types and
// declares, before including this file, the specialization constants DELTA_STRIDE (components per record) and
// DELTA_F16 (halves instead of floats).
#ifndef MORPHKIT_CROWD_RECORD_GLSL
#define MORPHKIT_CROWD_RECORD_GLSL

// A record has at most 3 + 3 + 3 + MORPH_MAX_EXTRA = 25 components: 7 planes of 4.
const uint kRecordMax = 28u;
const uint kPlanes = (DELTA_STRIDE + 3u) / 4u;

layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer RecordFloats { float f[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict readonly buffer RecordVec2s { vec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer RecordVec4s { vec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer RecordUints { uint u[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict readonly buffer RecordUVec2s { uvec2 v[]; };

float recordHalf(uint64_t deltas, uint index) {
  uint word = RecordUints(deltas).u[index >> 1];
  return unpackHalf2x16(word >> ((index & 1u) * 16u)).x;
}

// The record of tile lane `lane` (0 … 63) in slab `slab` of the deltas at `deltas`, as floats.
void loadRecord(uint64_t deltas, uint slab, uint lane, inout float rec[kRecordMax]) {
  [[unroll]] for (uint k = 0u; k < kPlanes; ++k) {
    uint width = min(4u, DELTA_STRIDE - 4u * k);
    uint first = slab * (MORPH_GROUP_SIZE * DELTA_STRIDE) + MORPH_GROUP_SIZE * 4u * k + lane * width;
    if (!DELTA_F16 && width == 4u) {
      vec4 x = RecordVec4s(deltas).v[first >> 2];
      rec[4u * k] = x.x, rec[4u * k + 1u] = x.y, rec[4u * k + 2u] = x.z, rec[4u * k + 3u] = x.w;
    } else if (!DELTA_F16 && width == 2u) {
      vec2 x = RecordVec2s(deltas).v[first >> 1];
      rec[4u * k] = x.x, rec[4u * k + 1u] = x.y;
    } else if (DELTA_F16 && width == 4u) {
      uvec2 h = RecordUVec2s(deltas).v[first >> 2];
      vec2 a = unpackHalf2x16(h.x), b = unpackHalf2x16(h.y);
      rec[4u * k] = a.x, rec[4u * k + 1u] = a.y, rec[4u * k + 2u] = b.x, rec[4u * k + 3u] = b.y;
    } else if (DELTA_F16 && width == 2u) {
      vec2 a = unpackHalf2x16(RecordUints(deltas).u[first >> 1]);
      rec[4u * k] = a.x, rec[4u * k + 1u] = a.y;
    } else {
      [[unroll]] for (uint c = 0u; c < 4u; ++c) {
        if (c < width) rec[4u * k + c] = DELTA_F16 ? recordHalf(deltas, first + c) : RecordFloats(deltas).f[first + c];
      }
    }
  }
}

// Word w (halves 2w and 2w + 1) of the f16 record of tile lane `lane` in slab `slab`, as stored. Only for an even
// DELTA_STRIDE, where every plane's width is even, so each lane's halves start on a word.
uint loadRecordHalfPair(uint64_t deltas, uint slab, uint lane, uint w) {
  uint k = w / 2u, width = min(4u, DELTA_STRIDE - 4u * k);
  uint first = slab * (MORPH_GROUP_SIZE * DELTA_STRIDE) + MORPH_GROUP_SIZE * 4u * k + lane * width + 2u * w - 4u * k;
  return RecordUints(deltas).u[first >> 1];
}

#endif  // MORPHKIT_CROWD_RECORD_GLSL
