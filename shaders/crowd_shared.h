// SPDX-License-Identifier: MIT
// crowd_shared.h — the crowd kernel's (shaders/crowd.comp) push constants and specialization-constant ids, shared
// by GLSL and C++ (src/vk/gpu_crowd.cpp), like morph_shared.h is for morph.comp. docs/PERFORMANCE.md ("Crowds").
#ifndef MORPHKIT_CROWD_SHARED_H
#define MORPHKIT_CROWD_SHARED_H

#include "morph_shared.h"

#ifdef __cplusplus
namespace morphkit::gpu {
#endif

// Instances one workgroup deforms at most. Its sums live in registers while the union is walked (G × record
// floats per invocation), then in shared memory (256 · G · sums bytes per workgroup) for the skinning loop.
#define CROWD_MAX_GROUP 32
// Union targets staged in shared memory at a time (one per invocation of the 64-wide workgroup).
#define CROWD_CHUNK MORPH_GROUP_SIZE

// Specialization constants (constant_id): the record shape and the group size are fixed per crowd, so the kernel
// has no per-target branch on the layout or the attribute set.
#define CROWD_SC_GROUP 0           // instances per workgroup (1..CROWD_MAX_GROUP)
#define CROWD_SC_VERTEX_STRIDE 1   // floats per vertex (VertexFormat)
#define CROWD_SC_VERTEX_NORMAL 2   // float offsets in a vertex, or MORPH_ABSENT
#define CROWD_SC_VERTEX_TANGENT 3
#define CROWD_SC_VERTEX_EXTRA 4
#define CROWD_SC_DELTA_STRIDE 5    // components per delta record (0: no targets)
#define CROWD_SC_DELTA_POSITION 6  // component offsets in a record, or MORPH_ABSENT
#define CROWD_SC_DELTA_NORMAL 7
#define CROWD_SC_DELTA_TANGENT 8
#define CROWD_SC_DELTA_EXTRA 9
#define CROWD_SC_DELTA_EXTRA_COUNT 10
#define CROWD_SC_DELTA_F16 11      // 1: dense f16 deltas, 0: dense f32
#define CROWD_SC_SKINNED 12        // 1: joint palettes, 0: model + normal matrix per instance
#define CROWD_SC_INFLUENCE_SETS 13 // JOINTS_n/WEIGHTS_n sets (skinned)
#define CROWD_SC_SUMS 14           // morph sums per instance and vertex: max(DELTA_STRIDE, 1)
// crowd2.comp only (crowd.comp ignores them):
#define CROWD_SC_SLICE 15          // union entries whose deltas are staged in shared memory at a time
#define CROWD_SC_PALETTE_SHARED 16 // 1: the group's palettes are staged in shared memory as 3×4 rows
#define CROWD_SC_PALETTE_JOINTS 17 // joints staged per instance (>= 1; 1 when not staged)
#define CROWD_SC_SUBTILES 18       // CROWD2_TILE-vertex tiles one workgroup walks in turn
#define CROWD_SC_STAGE_DELTAS 19   // 1: the slice's records staged in shared memory (v2), 0: read per warp (v3)
#define CROWD_SC_DELTA_SLOTS 20    // records staged per slice: SLICE (v2) or 1 (v3, unused)
// crowd4.comp only:
#define CROWD_SC_ROWS 21           // rows of CROWD4_TILE invocations per workgroup (warps), each walking instances
#define CROWD_SC_SLOTS 22          // union records of a vertex tile staged in shared memory (the rest: from memory)
#define CROWD_SC_STAGED_WORDS 23   // 32-bit words per staged record: DELTA_STRIDE floats, or (f16 deltas with an even
                                   // stride) DELTA_STRIDE / 2 pairs of halves as stored
#define CROWD_SC_STAGE_HALVES 24   // 1: staged records are f16 pairs (CROWD_SC_STAGED_WORDS = DELTA_STRIDE / 2)
// crowd5.comp and crowd5_pack.comp only:
#define CROWD_SC_K_STEPS 25        // targets padded to K_STEPS · CROWD5_K (the product's inner dimension)
#define CROWD_SC_SPLIT_DELTAS 26   // 1: f32 deltas, packed as FP16 hi and lo planes; 0: f16 deltas, hi only
#define CROWD_SC_COUNT 27

// crowd2.comp: workgroup (CROWD2_TILE, G) — one subgroup-sized row of invocations per instance of the group, one
// invocation per (vertex, instance). 32 = one NVIDIA warp, so a warp serves one instance.
#define CROWD2_TILE 32
// crowd4.comp: workgroup (CROWD4_TILE, ROWS) — the tile's vertices across, one row (a warp) per instance in turn.
#define CROWD4_TILE 32
// crowd4.comp: an instance's active entry (the `actives` lists): target index, staged slot (or CROWD4_NOT_STAGED:
// read from memory), weight bits, 0.
#define CROWD4_NOT_STAGED 0xFFFFFFFFu

// crowd5.comp: the matrix units' tile (VK_NV_cooperative_matrix, FP16 × FP16 + FP32, subgroup scope): M vertices
// × N instances, K targets per step; a workgroup takes one tile of vertices, its subgroups of CROWD5_SUBGROUP
// invocations the tiles of instances.
#define CROWD5_M 16
#define CROWD5_N 16
#define CROWD5_K 16
#define CROWD5_SUBGROUP 32

// Push constants of every crowd kernel. Workgroup (x, y) = (instance group, vertex tile: MORPH_GROUP_SIZE vertices in
// crowd.comp, SUBTILES × CROWD2_TILE in crowd2.comp); crowd4.comp swaps them: (vertex tile of CROWD4_TILE, instance
// group). Instance group k holds instances k·G … k·G + G − 1 (G = the group size; the last group may be partial).
struct CrowdPush {
  MORPH_U64 base_address;      // base vertices, vertex_stride floats each
  MORPH_U64 delta_address;     // dense deltas: vertex-tiled slabs (docs/LAYOUTS.md §3a)
  MORPH_U64 skin_address;      // skin stream (skinned only)
  MORPH_U64 union_address;     // u32: groups + 1 offsets (group k's union is entries [u[k], u[k+1])), then one
                               // target index per entry (v4: only the staged targets, entry i in slot i)
  MORPH_U64 weights_address;   // v1-v3, f32: G weights per union entry (entry e, instance g at e·G + g); 0 where
                               // inactive. v4: per instance its active entries: u32 instance_count + 1 offsets,
                               // padded to 4 words, then one uvec4 (target, slot, weight bits, 0) per entry
  MORPH_U64 matrices_address;  // mat4: matrix_count per instance (origin block first, docs/LAYOUTS.md §5)
  MORPH_U64 output_address;    // instance i's vertices at output_address + i · instance_bytes
  MORPH_U64 instance_bytes;    // output stride between instances (a multiple of 256)
  uint vertex_count;
  uint target_count;
  uint instance_count;
  uint matrix_count;           // per instance: 1 + joints (skinned) or 3 (origin, model, normal matrix)
  uint groups;                 // instance groups (= dispatch width in x)
  uint weight_stride;          // v5: halves per row of the frame's weight matrices (instances padded to CROWD5_N)
  float inverse_scale;         // v5: 1 / (delta scale × the frame's weight scale), both powers of two
  uint pad0;
};

// crowd5_pack.comp: the primitive's dense deltas in, the FP16 planes out (gpu_crowd.cpp, at creation).
struct Crowd5PackPush {
  MORPH_U64 delta_address;     // dense deltas: vertex-tiled slabs (docs/LAYOUTS.md §3a)
  MORPH_U64 planes_address;    // FP16 planes: [hi, then lo with SPLIT_DELTAS][component][vertex][target]
  MORPH_U64 max_address;       // u32: the bits of the largest |delta| (measure pass; NaN and inf sort above)
  uint vertex_count;
  uint target_count;
  float scale;                 // write pass: every delta × scale (a power of two that puts the largest near 2^14)
  uint measure;                // 1: only find the largest |delta|; 0: write the planes
};

#ifdef __cplusplus
static_assert(sizeof(CrowdPush) == 96);
static_assert(offsetof(CrowdPush, instance_bytes) == 56);
static_assert(offsetof(CrowdPush, vertex_count) == 64);
static_assert(offsetof(CrowdPush, groups) == 80);
static_assert(sizeof(Crowd5PackPush) == 40);
}  // namespace morphkit::gpu
#endif

#endif  // MORPHKIT_CROWD_SHARED_H
