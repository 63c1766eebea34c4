// SPDX-License-Identifier: MIT
// crowd_shared.h — the crowd kernel's (shaders/crowd.comp) push constants and specialization-constant ids, shared
// by GLSL and C++ (src/vk/gpu_crowd.cpp), like morph_shared.h is for morph.comp.
#ifndef MORPHKIT_CROWD_SHARED_H
#define MORPHKIT_CROWD_SHARED_H

#include "morph_shared.h"

#ifdef __cplusplus
namespace morphkit::gpu {
#endif

// Specialization constants (constant_id): the record shape and the group size are fixed per crowd, so the kernel
// has no per-target branch on the layout or the attribute set.
#define CROWD_SC_GROUP 0          // instances per workgroup: those that share one staging of a vertex tile
#define CROWD_SC_VERTEX_STRIDE 1  // floats per vertex (VertexFormat)
#define CROWD_SC_VERTEX_NORMAL 2  // float offsets in a vertex, or MORPH_ABSENT
#define CROWD_SC_VERTEX_TANGENT 3
#define CROWD_SC_VERTEX_EXTRA 4
#define CROWD_SC_DELTA_STRIDE 5    // components per delta record (0: no targets)
#define CROWD_SC_DELTA_POSITION 6  // component offsets in a record, or MORPH_ABSENT
#define CROWD_SC_DELTA_NORMAL 7
#define CROWD_SC_DELTA_TANGENT 8
#define CROWD_SC_DELTA_EXTRA 9
#define CROWD_SC_DELTA_EXTRA_COUNT 10
#define CROWD_SC_DELTA_F16 11       // 1: dense f16 deltas, 0: dense f32
#define CROWD_SC_SKINNED 12         // 1: joint palettes, 0: model + normal matrix per instance
#define CROWD_SC_INFLUENCE_SETS 13  // JOINTS_n/WEIGHTS_n sets (skinned)
#define CROWD_SC_SUMS 14            // morph sums per instance and vertex: max(DELTA_STRIDE, 1)
#define CROWD_SC_ROWS 15            // rows of CROWD_TILE invocations per workgroup (warps), each walking instances
#define CROWD_SC_SLOTS 16           // union records of a vertex tile staged in shared memory (the rest: from memory)
#define CROWD_SC_STAGED_WORDS 17    // words per staged record: DELTA_STRIDE floats, or DELTA_STRIDE / 2 half pairs
#define CROWD_SC_STAGE_HALVES 18    // 1: staged records are f16 pairs (CROWD_SC_STAGED_WORDS = DELTA_STRIDE / 2)
#define CROWD_SC_COUNT 19

// Workgroup (CROWD_TILE, ROWS): the tile's vertices across, one row (a warp) per instance in turn.
#define CROWD_TILE 32
// An instance's active entry (the `weights` lists): target index, staged slot (or CROWD_NOT_STAGED: read from
// memory), weight bits, 0.
#define CROWD_NOT_STAGED 0xFFFFFFFFu

// Push constants. Workgroup (x, y) = (vertex tile of CROWD_TILE vertices, instance group). Instance group k holds
// instances k·G … k·G + G − 1 (G = the group size; the last group may be partial).
struct CrowdPush {
  MORPH_U64 base_address;      // base vertices, vertex_stride floats each
  MORPH_U64 delta_address;     // dense deltas: vertex-tiled slabs (docs/LAYOUTS.md §3a)
  MORPH_U64 skin_address;      // skin stream (skinned only)
  MORPH_U64 union_address;     // u32: groups + 1 offsets (group k's staged targets are entries [u[k], u[k+1])),
                               // then one target index per entry, entry i in slot i
  MORPH_U64 weights_address;   // per instance its active entries: u32 instance_count + 1 offsets, padded to 4
                               // words, then one uvec4 (target, slot, weight bits, 0) per entry
  MORPH_U64 matrices_address;  // three vec4 rows per matrix, matrix_count per instance (origin block first,
                               // docs/LAYOUTS.md §5)
  MORPH_U64 output_address;    // instance i's vertices at output_address + i · instance_bytes
  MORPH_U64 instance_bytes;    // output stride between instances (a multiple of 256)
  uint vertex_count;
  uint target_count;
  uint instance_count;
  uint matrix_count;  // per instance: 1 + joints (skinned) or 3 (origin, model, normal matrix)
  uint groups;        // instance groups (= dispatch height)
  uint pad0, pad1, pad2;
};

#ifdef __cplusplus
static_assert(sizeof(CrowdPush) == 96);
static_assert(offsetof(CrowdPush, instance_bytes) == 56);
static_assert(offsetof(CrowdPush, vertex_count) == 64);
static_assert(offsetof(CrowdPush, groups) == 80);
}  // namespace morphkit::gpu
#endif

#endif  // MORPHKIT_CROWD_SHARED_H
