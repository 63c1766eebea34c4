// SPDX-License-Identifier: MIT
// crowd4_twin.cu — a CUDA twin of shaders/crowd4.comp (crowd kernel v4) for Nsight Compute, which profiles CUDA
// kernels but not Vulkan dispatches (docs/PERFORMANCE.md, "What the device offers to look inside").
//
// Same work, same layout, same order as `morphkit bench --crowd 1000` at its defaults (20000 vertices × 52 targets,
// f32 records of position + normal in 64-vertex slabs, 10 active targets per instance, 4 influences from 32 joints,
// matrices as three rows, group G = 128, 16 rows of 32 invocations, 12 KiB of staged records: 16 slots):
//   stage 1: a workgroup copies its tile's records of the group's 16 most used targets to shared memory, one barrier;
//   stage 2: row y walks instances y, y + 16, …; for each, its own list (target, slot, weight) four entries at a
//            time, each record from shared memory or, unstaged, from memory; then the skin blend of 4 joints,
//            the origin split, renormalization and three 8-byte stores (p.xy, p.z n.x, n.yz).
// Not bit-compared with the Vulkan kernel (its own compiler); checked against a CPU evaluation of a few outputs.
// Indices are 32-bit, as the GLSL's (64-bit ones cost registers the kernel does not have).
//
// Build and run on the device host (nvcc from /usr/local/cuda), from the repository root:
//   nvcc -O3 -arch=sm_90 -Xptxas -v -o /tmp/crowd4_twin bench/cuda/crowd4_twin.cu && /tmp/crowd4_twin
//   ncu --set full -k regex:crowd4 -c 1 --launch-skip 430 /tmp/crowd4_twin   (a warm launch of the second variant)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

#include "crowd_probe.cuh"

namespace {

using namespace crowd_probe;

constexpr uint32_t kTile = 32, kRows = 16, kGroup = 128, kSlots = 16, kStride = 6, kSlab = 64;
constexpr uint32_t kNotStaged = 0xffffffffu;

struct Data {
  const float* base;          // kVertices × 6 (position, normal)
  const float* deltas;        // slabs: (v / 64) · kTargets + t, each plane 0 (64 × float4) then plane 1 (64 × float2)
  const uint32_t* skin;       // kVertices × 8: 4 joints, 4 weights (bits)
  const float4* matrices;     // kInstances × kMatrixCount × 3 rows
  const uint32_t* offsets;    // kInstances + 1: each instance's list in `entries`
  const uint4* entries;       // (target, slot or kNotStaged, weight bits, 0), 3 entries of slack at the end
  const uint32_t* unions;     // groups + 1 offsets, then the staged targets of each group
  uint32_t groups;
  float2* out;                // kInstances × kVertices × 3 float2
};

__device__ __forceinline__ void loadRecord(const float* deltas, uint32_t slab, uint32_t lane, float rec[kStride]) {
  const float* s = deltas + slab * (kSlab * kStride);
  const float4 a = reinterpret_cast<const float4*>(s)[lane];
  const float2 b = reinterpret_cast<const float2*>(s + kSlab * 4)[lane];
  rec[0] = a.x, rec[1] = a.y, rec[2] = a.z, rec[3] = a.w, rec[4] = b.x, rec[5] = b.y;
}

// TWIN_MIN_BLOCKS 2 (default): two workgroups per SM, i.e. at most 64 registers, as the Vulkan pipeline's 63
// (bench --crowd `regs`); nvcc then spills 48 bytes per invocation. 1: nvcc takes 86 registers, no spill, one
// workgroup (16 warps) per SM.
// TWIN_FUSED=1: the morph's multiply-adds fused (FMA), as a kernel could do where bits need not equal v1's.
#ifndef TWIN_FUSED
#define TWIN_FUSED 0
#endif
#ifndef TWIN_SCATTERED_JOINTS
#define TWIN_SCATTERED_JOINTS 0
#endif
#ifndef TWIN_MIN_BLOCKS
#define TWIN_MIN_BLOCKS 2
#endif
// kBatched: the list read four entries at a time, as crowd4.comp does; false: one entry at a time (16 registers
// fewer across the morph loop). The skin words are loaded before the instance loop and held, as crowd4.comp does.
template <bool kBatched>
__global__ void __launch_bounds__(kTile * kRows, TWIN_MIN_BLOCKS) crowd4(Data d) {
  __shared__ uint32_t s_delta[kSlots * kStride * kTile];
  const uint32_t x = threadIdx.x, y = threadIdx.y, tile = blockIdx.x, group = blockIdx.y;
  const uint32_t v = tile * kTile + x;
  const bool live = v < kVertices;
  const uint32_t slab_lane = v % kSlab, slab_first = (v / kSlab) * kTargets;

  // Stage 1.
  const uint32_t begin = d.unions[group], staged = d.unions[group + 1] - begin;
  for (uint32_t s = y; s < staged && live; s += kRows) {
    float rec[kStride];
    loadRecord(d.deltas, slab_first + d.unions[d.groups + 1 + begin + s], slab_lane, rec);
#pragma unroll
    for (uint32_t c = 0; c < kStride; ++c) s_delta[(s * kStride + c) * kTile + x] = __float_as_uint(rec[c]);
  }
  __syncthreads();
  if (!live) return;

  const float* b = d.base + v * 6u;
  const float3 base_p = make_float3(b[0], b[1], b[2]), base_n = make_float3(b[3], b[4], b[5]);
  uint32_t skin[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) skin[k] = d.skin[v * 8u + k];

  // Stage 2.
  const uint32_t first_instance = group * kGroup;
  const uint32_t instances = min(kGroup, kInstances - first_instance);
  uint32_t list_begin = 0, list_end = 0;
  if (y < instances) list_begin = d.offsets[first_instance + y], list_end = d.offsets[first_instance + y + 1];
  for (uint32_t g = y; g < instances; g += kRows) {
    const uint32_t instance = first_instance + g;
    const uint32_t lb = list_begin, le = list_end;
    if (g + kRows < instances) {
      list_begin = d.offsets[instance + kRows];
      list_end = d.offsets[instance + kRows + 1];
    }
    float sp[3] = {0, 0, 0}, sn[3] = {0, 0, 0};
    auto add = [&](uint4 entry) {
      const float w = __uint_as_float(entry.z);
      float rec[kStride];
      if (entry.y != kNotStaged) {
        const uint32_t at = entry.y * kStride * kTile + x;
#pragma unroll
        for (uint32_t c = 0; c < kStride; ++c) rec[c] = __uint_as_float(s_delta[at + c * kTile]);
      } else {
        loadRecord(d.deltas, slab_first + entry.x, slab_lane, rec);
      }
#if TWIN_FUSED
#pragma unroll
      for (int c = 0; c < 3; ++c) sp[c] = fmaf(w, rec[c], sp[c]);  // one FMA: not v1's bits
#pragma unroll
      for (int c = 0; c < 3; ++c) sn[c] = fmaf(w, rec[3 + c], sn[c]);
#else
#pragma unroll
      for (int c = 0; c < 3; ++c) sp[c] = __fadd_rn(sp[c], __fmul_rn(w, rec[c]));  // unfused, as `precise`
#pragma unroll
      for (int c = 0; c < 3; ++c) sn[c] = __fadd_rn(sn[c], __fmul_rn(w, rec[3 + c]));
#endif
    };
    if (kBatched) {
      for (uint32_t a = lb; a < le; a += 4) {
        uint4 batch[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) batch[k] = d.entries[a + k];
#pragma unroll
        for (uint32_t k = 0; k < 4; ++k) {
          if (a + k >= le) break;
          add(batch[k]);
        }
      }
    } else {
#pragma unroll 1
      for (uint32_t a = lb; a < le; ++a) add(d.entries[a]);
    }
    // Stage 3: skin relative to the origin block, place, renormalize, write.
    const float4* m = d.matrices + instance * (kMatrixCount * 3);
    const float4 o0 = m[0], o1 = m[1], o2 = m[2];  // rows: column j of the origin block is (o0[j], o1[j], o2[j])
    float p[3] = {base_p.x + sp[0] - o0.x, base_p.y + sp[1] - o1.x, base_p.z + sp[2] - o2.x};
    float n[3] = {base_n.x + sn[0], base_n.y + sn[1], base_n.z + sn[2]};
    float4 r0 = make_float4(0, 0, 0, 0), r1 = r0, r2 = r0;
    float excess = -1.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float w = __uint_as_float(skin[4 + j]);
      if (w != 0.0f) {
        const float4* jm = m + 3 * (1 + skin[j]);
        const float4 a = jm[0], bb = jm[1], c = jm[2];
        r0.x += w * a.x, r0.y += w * a.y, r0.z += w * a.z, r0.w += w * a.w;
        r1.x += w * bb.x, r1.y += w * bb.y, r1.z += w * bb.z, r1.w += w * bb.w;
        r2.x += w * c.x, r2.y += w * c.y, r2.z += w * c.z, r2.w += w * c.w;
        excess += w;
      }
    }
    float q[3] = {r0.x * p[0] + r0.y * p[1] + r0.z * p[2] + r0.w, r1.x * p[0] + r1.y * p[1] + r1.z * p[2] + r1.w,
                  r2.x * p[0] + r2.y * p[1] + r2.z * p[2] + r2.w};
    float nn[3] = {r0.x * n[0] + r0.y * n[1] + r0.z * n[2], r1.x * n[0] + r1.y * n[1] + r1.z * n[2],
                   r2.x * n[0] + r2.y * n[1] + r2.z * n[2]};
    const float origin_high[3] = {o0.y, o1.y, o2.y}, origin_low[3] = {o0.z, o1.z, o2.z};
#pragma unroll
    for (int c = 0; c < 3; ++c) {  // skin.glsl's order: (q + low) + excess · high, then + high, unfused
      q[c] = __fadd_rn(__fadd_rn(__fadd_rn(q[c], origin_low[c]), __fmul_rn(excess, origin_high[c])), origin_high[c]);
    }
    const float len2 = nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2];
    const float inv = len2 > 0.0f ? rsqrtf(len2) : 0.0f;
    float2* out = d.out + (instance * kVertices + v) * 3u;
    out[0] = make_float2(q[0], q[1]);
    out[1] = make_float2(q[2], nn[0] * inv);
    out[2] = make_float2(nn[1] * inv, nn[2] * inv);
  }
}

#define CHECK(call)                                                                            \
  do {                                                                                         \
    cudaError_t e = (call);                                                                    \
    if (e != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));                          \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

}  // namespace

int main() {
  Rng rng{12345};
  const uint32_t tiles = (kVertices + kTile - 1) / kTile, groups = (kInstances + kGroup - 1) / kGroup;
  std::vector<float> base(size_t(kVertices) * 6), deltas(size_t((kVertices + kSlab - 1) / kSlab) * kTargets * kSlab * kStride);
  for (size_t i = 0; i < base.size(); ++i) base[i] = rng.unit() - 0.5f;
  for (float& f : deltas) f = 0.01f * (rng.unit() - 0.5f);
  const std::vector<uint32_t> skin = makeSkin(rng, TWIN_SCATTERED_JOINTS != 0, true);
  const std::vector<float4> matrices = makeMatrices(rng);
  // Lists: 10 distinct targets per instance, ascending; per group the 16 most used targets are staged.
  std::vector<std::vector<uint32_t>> lists(kInstances);
  for (auto& list : lists) {
    while (list.size() < kActive) {
      const uint32_t t = rng.bits() % kTargets;
      if (std::find(list.begin(), list.end(), t) == list.end()) list.push_back(t);
    }
    std::sort(list.begin(), list.end());
  }
  std::vector<uint32_t> unions(groups + 1, 0), offsets(kInstances + 1, 0);
  std::vector<uint4> entries;
  std::vector<uint32_t> union_targets;
  for (uint32_t g = 0; g < groups; ++g) {
    std::vector<uint32_t> uses(kTargets, 0);
    for (uint32_t i = g * kGroup; i < std::min(kInstances, (g + 1) * kGroup); ++i) {
      for (uint32_t t : lists[i]) ++uses[t];
    }
    std::vector<uint32_t> order(kTargets);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return uses[a] > uses[b]; });
    std::vector<uint32_t> slot(kTargets, kNotStaged);
    uint32_t staged = 0;
    for (uint32_t t : order) {
      if (staged == kSlots || uses[t] == 0) break;
      slot[t] = staged++;
      union_targets.push_back(t);
    }
    unions[g + 1] = unions[g] + staged;
    for (uint32_t i = g * kGroup; i < std::min(kInstances, (g + 1) * kGroup); ++i) {
      offsets[i] = uint32_t(entries.size());
      for (uint32_t t : lists[i]) {
        const float w = rng.unit();
        uint32_t bits;
        std::memcpy(&bits, &w, 4);
        entries.push_back(make_uint4(t, slot[t], bits, 0));
      }
    }
  }
  offsets[kInstances] = uint32_t(entries.size());
  for (int k = 0; k < 3; ++k) entries.push_back(make_uint4(0, kNotStaged, 0, 0));  // the slack
  unions.insert(unions.end(), union_targets.begin(), union_targets.end());

  Data d{upload(base), upload(deltas), upload(skin), upload(matrices), upload(offsets), upload(entries), upload(unions), groups, nullptr};
  const size_t out_bytes = size_t(kInstances) * kVertices * 3 * sizeof(float2);
  CHECK(cudaMalloc(&d.out, out_bytes));
  const dim3 grid(tiles, groups), block(kTile, kRows);
  float best_of[2];
  for (int variant = 0; variant < 2; ++variant) {
    best_of[variant] = bestMilliseconds([&] {
      if (variant == 0) {
        crowd4<true><<<grid, block>>>(d);
      } else {
        crowd4<false><<<grid, block>>>(d);
      }
    });
    if (best_of[variant] < 0.0f) return 1;
  }
  const float best = best_of[1];  // the output checked below is the last variant's
  // A CPU check of vertex 7 of instance 500: the twin computes what the kernel computes.
  const uint32_t ci = 500, cv = 7;
  double p[3], n[3];
  for (int c = 0; c < 3; ++c) p[c] = base[cv * 6 + c], n[c] = base[cv * 6 + 3 + c];
  for (uint32_t e = offsets[ci]; e < offsets[ci + 1]; ++e) {
    float w;
    std::memcpy(&w, &entries[e].z, 4);
    const size_t slab = size_t(cv / kSlab) * kTargets + entries[e].x;
    const float* s = &deltas[slab * kSlab * kStride];
    const uint32_t lane = cv % kSlab;
    for (int c = 0; c < 3; ++c) p[c] += w * s[lane * 4 + c];
    n[0] += w * s[lane * 4 + 3], n[1] += w * s[kSlab * 4 + lane * 2], n[2] += w * s[kSlab * 4 + lane * 2 + 1];
  }
  const double err = checkVertex(d.out, matrices, skin, ci, cv, p, n);
  std::printf("crowd4 twin (CUDA): %u instances x %u vertices x %u targets (%u active), G %u, %u rows, %u slots: "
              "list read 4 entries at a time %.1f us, 1 at a time %.1f us, best of 20 (output %.1f MB, %.0f GB/s); CPU check "
              "max |diff| %.2g\n",
              kInstances, kVertices, kTargets, kActive, kGroup, kRows, kSlots, best_of[0] * 1000.0, best * 1000.0,
              out_bytes / 1e6, out_bytes / (best * 1e-3) / 1e9, err);
  return err < 1e-3 ? 0 : 1;
}
