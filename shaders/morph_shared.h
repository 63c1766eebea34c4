// SPDX-License-Identifier: MIT
// morph_shared.h — GPU structs and flags shared by GLSL (shaders/*.comp) and C++ (src/vk/*.cpp).
// One definition, two languages: C++ sees the same struct names with static_asserts on every size and
// offset (std430 rules in GLSL, natural alignment in C++: both put 8-byte fields at 8-byte offsets).
// Every byte is described in docs/LAYOUTS.md.
#ifndef MORPHKIT_MORPH_SHARED_H
#define MORPHKIT_MORPH_SHARED_H

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
namespace morphkit::gpu {
using uint = uint32_t;
#define MORPH_U64 uint64_t
#else
#define MORPH_U64 uint64_t
#endif

// Threads per workgroup of morph.comp and copy.comp (local_size_x).
#define MORPH_GROUP_SIZE 64
// copy.comp: threads per workgroup and uvec4 elements per thread. One element per thread, the probe's shape, was the
// fastest on the H200 at 2 GiB (4143 GB/s; 4 per thread 3985, 8 per thread 3952: docs/PERFORMANCE.md).
#define MORPH_COPY_GROUP_SIZE 256
#define MORPH_COPY_PER_THREAD 1
// morph.comp's specialization constants: targets per iteration of the dense f32 position + normal loop (2 or 4) and
// of the dense f16 one (4 or 8).
#define MORPH_SC_F32_TARGETS_PER_STEP 0
#define MORPH_SC_F16_TARGETS_PER_STEP 1
// Dispatches of fewer workgroups than this take 4 targets per step: they fill less than one wave of a large GPU
// (an H200 holds 132 SMs × 32 groups of 64 = 4224), so latency, not bandwidth, bounds them.
#define MORPH_WIDE_STEP_MAX_GROUPS 4096u
// Largest dispatch width used in x; larger dispatches fold into y (maxComputeWorkGroupCount[0] >= 65535).
#define MORPH_MAX_GROUPS_X 65535
// A float offset that is absent (attribute not present in the vertex or delta record).
#define MORPH_ABSENT 0xFFFFFFFFu
// Morphed texcoord/color components a delta record may carry (2 per TEXCOORD_n, 4 per COLOR_n).
#define MORPH_MAX_EXTRA 16

// MorphEntry.flags: the layout in the low three bits (room for eight layouts; four are used), the flags above.
#define MORPH_LAYOUT_MASK 7u
#define MORPH_LAYOUT_DENSE_F32 0u  // target-major f32 deltas
#define MORPH_LAYOUT_DENSE_F16 1u  // target-major f16 deltas (IEEE binary16, little endian)
#define MORPH_LAYOUT_SPARSE 2u     // per-vertex CSR list of (target, f32 deltas)
// f16's order, int16 q/32767 × a per-(target, attribute) scale; the scales (a vec4 per target) follow the slabs, at
// target_bytes × target_count
#define MORPH_LAYOUT_DENSE_SNORM16 3u
// `matrices` (docs/LAYOUTS.md §5) start with the origin block: column 0 the pivot, 1 the origin's high floats, 2
// its low floats; the matrices after it place p − pivot relative to the origin.
#define MORPH_FLAG_SKINNED (1u << 3)      // linear blend skinning: matrices[1 + j] = joint j
#define MORPH_FLAG_TRANSFORM (1u << 4)    // unskinned: matrices[1] = model, matrices[2] = normal matrix
#define MORPH_FLAG_HAS_TARGETS (1u << 5)  // delta buffers are bound (target_count > 0)

// One (instance, primitive) of a batched dispatch. The dispatch table is an array of these, sorted by
// first_group; workgroup g belongs to the last entry whose first_group <= g.
struct MorphEntry {
  MORPH_U64 base_address;      // f32 vertices, vertex_stride floats each (VertexFormat)
  MORPH_U64 delta_address;     // dense f32 / f16 / snorm16 target blocks (snorm16: then its scales), or sparse entries
  MORPH_U64 rows_address;      // sparse only: vertex_count + 1 u32 entry offsets (CSR)
  MORPH_U64 skin_address;      // per vertex: 4·influence_sets u32 joints, then 4·influence_sets f32 weights
  MORPH_U64 weights_address;   // target_count f32 weights (zero where |w| <= epsilon); used by the sparse layout
  MORPH_U64 active_address;    // active_count MorphActiveTarget; used by the dense layouts
  MORPH_U64 matrices_address;  // mat4 column-major: joint palette, or model + normal matrix
  MORPH_U64 output_address;    // f32 vertices, same VertexFormat as the base
  MORPH_U64 target_bytes;      // dense layouts: bytes one target occupies over all tiles (bench accounting; snorm16:
                               // finds the scales)
  uint first_group;            // first workgroup (flattened) of this entry
  uint vertex_count;
  uint target_count;
  uint active_count;
  uint flags;           // MORPH_LAYOUT_* | MORPH_FLAG_*
  uint vertex_stride;   // floats per vertex (base and output)
  uint vertex_normal;   // float offset of the normal in a vertex, or MORPH_ABSENT
  uint vertex_tangent;  // float offset of the tangent (xyzw), or MORPH_ABSENT
  uint vertex_extra;    // float offset of the first texcoord/color component, or MORPH_ABSENT
  uint delta_stride;    // components per (vertex, target) delta record
  uint delta_position;  // component offsets in a delta record, or MORPH_ABSENT
  uint delta_normal;
  uint delta_tangent;
  uint delta_extra;  // morphed texcoords then colors, delta_extra_count components
  uint delta_extra_count;
  uint influence_sets;  // JOINTS_n/WEIGHTS_n sets (skinned only)
};

// An active target of the dense layouts: its index and its weight.
struct MorphActiveTarget {
  uint target;
  float weight;
};

// Push constants of morph.comp.
struct MorphPush {
  MORPH_U64 table_address;  // MorphEntry[entry_count]
  uint entry_count;
  uint total_groups;  // sum of the entries' groups
  uint groups_x;      // dispatch width in x (group = y * groups_x + x)
  uint pad0;
};

// Push constants of copy.comp: dst[i] = src[i] for i < count (uvec4 elements).
struct CopyPush {
  MORPH_U64 src_address;
  MORPH_U64 dst_address;
  uint count;
  uint groups_x;
};

#ifdef __cplusplus
static_assert(sizeof(MorphEntry) == 136);
static_assert(offsetof(MorphEntry, base_address) == 0);
static_assert(offsetof(MorphEntry, output_address) == 56);
static_assert(offsetof(MorphEntry, target_bytes) == 64);
static_assert(offsetof(MorphEntry, first_group) == 72);
static_assert(offsetof(MorphEntry, flags) == 88);
static_assert(offsetof(MorphEntry, vertex_stride) == 92);
static_assert(offsetof(MorphEntry, delta_stride) == 108);
static_assert(offsetof(MorphEntry, influence_sets) == 132);
static_assert(sizeof(MorphActiveTarget) == 8);
static_assert(sizeof(MorphPush) == 24);
static_assert(offsetof(MorphPush, groups_x) == 16);
static_assert(sizeof(CopyPush) == 24);
}  // namespace morphkit::gpu
#endif

#endif  // MORPHKIT_MORPH_SHARED_H
