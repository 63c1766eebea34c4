// SPDX-License-Identifier: MIT
// crowd_mma_probe.cu — the next step of crowd_gemm_probe.cu (docs/PERFORMANCE.md, "The direction left"): the
// group's morph as tensor-core products whose sums stay in the accumulator registers and feed the skinning directly,
// with no shared-memory round trip. Same shape and data as crowd4_twin.cu / crowd_gemm_probe.cu.
//
// mma.sync m16n8k16 (FP16 in, FP32 sums) with the fragment layouts of the PTX ISA: thread (g = lane / 4,
// t = lane % 4) holds rows g and g + 8, columns 2t and 2t + 1 of a 16 × 8 result. Rows are ordered so that those two
// rows are two components of one vertex: in m-tile k (0..2), row r < 8 is component 2k of vertex r of the warp's
// 8-vertex group, row r + 8 component 2k + 1. After three m-tiles a thread holds all six sums (position + normal) of
// vertex g for instances 2t and 2t + 1 of an 8-instance octet, and skins and writes those two pairs itself.
// Per workgroup (32-vertex tile, 128 instances), 8 warps: warp w takes vertex group w % 4 (its A fragments, 48
// registers, loaded once) and instance octets w / 4, w / 4 + 2, …
//   nvcc -O3 -arch=sm_90 -o /tmp/crowd_mma_probe bench/cuda/crowd_mma_probe.cu && /tmp/crowd_mma_probe
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "crowd_probe.cuh"

namespace {

using namespace crowd_probe;

constexpr uint32_t kTile = 32, kGroup = 128, kK = 64, kRowsM = kTile * 6;  // 192 rows: component · 32 + vertex
constexpr uint32_t kPad = 72;  // shared row stride in halves (144 bytes): conflict-free fragment loads
constexpr uint32_t kWarps = 8, kThreads = kWarps * 32;

struct Data {
  const __half* deltas;    // per tile: kRowsM × kK, row = component·32 + vertex, column = target
  const __half* weights;   // per group: kGroup × kK, row = instance of the group, column = target
  const float* base;       // kVertices × 6
  const uint32_t* skin;    // kVertices × 8: 4 joints, 4 weights (bits)
  const float4* matrices;  // kInstances × kMatrixCount × 3 rows
  float2* out;             // kInstances × kVertices × 3
};

__device__ __forceinline__ void mma16816(float c[4], const uint32_t a[4], const uint32_t b[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ uint32_t shared32(const __half* p) { return *reinterpret_cast<const uint32_t*>(p); }

// Skin, place, renormalize and write one (vertex, instance) from its six morph sums.
__device__ __forceinline__ void finish(const Data& d, uint32_t v, uint32_t instance, const float base[6], const uint32_t skin[8],
                                       const float s[6]) {
  float p[3] = {base[0] + s[0], base[1] + s[1], base[2] + s[2]};
  float n[3] = {base[3] + s[3], base[4] + s[4], base[5] + s[5]};
  const float4* m = d.matrices + size_t(instance) * kMatrixCount * 3;
  const float4 o0 = m[0], o1 = m[1], o2 = m[2];
  p[0] -= o0.x, p[1] -= o1.x, p[2] -= o2.x;
  float4 r0 = make_float4(0, 0, 0, 0), r1 = r0, r2 = r0;
  float excess = -1.0f;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const float w = __uint_as_float(skin[4 + k]);
    const float4* jm = m + 3 * (1 + skin[k]);
    const float4 a = jm[0], bb = jm[1], c = jm[2];
    r0.x += w * a.x, r0.y += w * a.y, r0.z += w * a.z, r0.w += w * a.w;
    r1.x += w * bb.x, r1.y += w * bb.y, r1.z += w * bb.z, r1.w += w * bb.w;
    r2.x += w * c.x, r2.y += w * c.y, r2.z += w * c.z, r2.w += w * c.w;
    excess += w;
  }
  float q[3] = {r0.x * p[0] + r0.y * p[1] + r0.z * p[2] + r0.w, r1.x * p[0] + r1.y * p[1] + r1.z * p[2] + r1.w,
                r2.x * p[0] + r2.y * p[1] + r2.z * p[2] + r2.w};
  float nn[3] = {r0.x * n[0] + r0.y * n[1] + r0.z * n[2], r1.x * n[0] + r1.y * n[1] + r1.z * n[2],
                 r2.x * n[0] + r2.y * n[1] + r2.z * n[2]};
  q[0] += o0.z + excess * o0.y + o0.y, q[1] += o1.z + excess * o1.y + o1.y, q[2] += o2.z + excess * o2.y + o2.y;
  const float len2 = nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2];
  const float inv = len2 > 0.0f ? rsqrtf(len2) : 0.0f;
  float2* out = d.out + (size_t(instance) * kVertices + v) * 3;
  out[0] = make_float2(q[0], q[1]);
  out[1] = make_float2(q[2], nn[0] * inv);
  out[2] = make_float2(nn[1] * inv, nn[2] * inv);
}

// MMA_MIN_BLOCKS: workgroups per SM asked of the compiler (1: 148 registers, 8 warps per SM; 2: at most 128).
#ifndef MMA_MIN_BLOCKS
#define MMA_MIN_BLOCKS 1
#endif
__global__ void __launch_bounds__(kThreads, MMA_MIN_BLOCKS) crowdMma(Data d) {
  __shared__ __align__(16) __half s_delta[kRowsM * kPad];  // 27 KiB
  __shared__ __align__(16) __half s_weight[kGroup * kPad];  // 18 KiB
  const uint32_t tile = blockIdx.x, group = blockIdx.y;
  {  // stage the tile's deltas and the group's weights, 16 bytes at a time, into padded rows
    const uint4* src = reinterpret_cast<const uint4*>(d.deltas + size_t(tile) * kRowsM * kK);
    for (uint32_t i = threadIdx.x; i < kRowsM * (kK / 8); i += kThreads) {
      reinterpret_cast<uint4*>(s_delta + (i / 8) * kPad)[i % 8] = src[i];
    }
    const uint4* wsrc = reinterpret_cast<const uint4*>(d.weights + size_t(group) * kGroup * kK);
    for (uint32_t i = threadIdx.x; i < kGroup * (kK / 8); i += kThreads) {
      reinterpret_cast<uint4*>(s_weight + (i / 8) * kPad)[i % 8] = wsrc[i];
    }
  }
  __syncthreads();
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const uint32_t vertex_group = warp % 4;
  const uint32_t v = tile * kTile + vertex_group * 8 + g;
  // A fragments of this warp's 8 vertices: 3 m-tiles × 4 k-steps × 4 registers, loaded once.
  uint32_t a[3][4][4];
#pragma unroll
  for (uint32_t m = 0; m < 3; ++m) {
    const __half* lo = s_delta + ((2 * m) * kTile + vertex_group * 8 + g) * kPad;      // component 2m
    const __half* hi = s_delta + ((2 * m + 1) * kTile + vertex_group * 8 + g) * kPad;  // component 2m + 1
#pragma unroll
    for (uint32_t ks = 0; ks < 4; ++ks) {
      a[m][ks][0] = shared32(lo + ks * 16 + 2 * t);
      a[m][ks][1] = shared32(hi + ks * 16 + 2 * t);
      a[m][ks][2] = shared32(lo + ks * 16 + 2 * t + 8);
      a[m][ks][3] = shared32(hi + ks * 16 + 2 * t + 8);
    }
  }
  float base[6];
  uint32_t skin[8];
#pragma unroll
  for (int c = 0; c < 6; ++c) base[c] = d.base[size_t(v) * 6 + c];
#pragma unroll
  for (int k = 0; k < 8; ++k) skin[k] = d.skin[size_t(v) * 8 + k];
  const uint32_t first_instance = group * kGroup;
  for (uint32_t octet = warp / 4; octet < kGroup / 8; octet += 2) {
    if (first_instance + octet * 8 >= kInstances) break;  // uniform per warp
    float c[3][4] = {};
#pragma unroll
    for (uint32_t ks = 0; ks < 4; ++ks) {
      const __half* col = s_weight + (octet * 8 + g) * kPad + ks * 16 + 2 * t;  // B[k][n]: instance octet·8 + g
      const uint32_t b[2] = {shared32(col), shared32(col + 8)};
#pragma unroll
      for (uint32_t m = 0; m < 3; ++m) mma16816(c[m], a[m][ks], b);
    }
    // Thread (g, t): vertex g, instances 2t and 2t + 1 of the octet; c[m][0..1] are component 2m, [2..3] 2m + 1.
#pragma unroll
    for (uint32_t k = 0; k < 2; ++k) {
      const uint32_t instance = first_instance + octet * 8 + 2 * t + k;
      if (v >= kVertices || instance >= kInstances) continue;
      const float s[6] = {c[0][k], c[0][2 + k], c[1][k], c[1][2 + k], c[2][k], c[2][2 + k]};
      finish(d, v, instance, base, skin, s);
    }
  }
}

}  // namespace

int main() {
  Rng rng{12345};
  const uint32_t tiles = (kVertices + kTile - 1) / kTile, groups = (kInstances + kGroup - 1) / kGroup;
  const Fp16Deltas deltas = makeFp16Deltas(rng, kTile, kK);  // as the product reads them
  std::vector<float> base(size_t(kVertices) * 6);
  for (float& f : base) f = rng.unit() - 0.5f;
  const std::vector<uint32_t> skin = makeSkin(rng, false, false);  // bench --crowd's: coherent joints
  const std::vector<float4> matrices = makeMatrices(rng);
  std::vector<__half> weights(size_t(groups) * kGroup * kK, __float2half(0.0f));
  std::vector<float> weight_f(size_t(kInstances) * kTargets, 0.0f);
  for (uint32_t i = 0; i < kInstances; ++i) {
    uint32_t active = 0;
    while (active < kActive) {
      const uint32_t t = rng.bits() % kTargets;
      if (weight_f[size_t(i) * kTargets + t] != 0.0f) continue;
      const __half h = __float2half(0.05f + rng.unit());
      weights[(size_t(i / kGroup) * kGroup + i % kGroup) * kK + t] = h;
      weight_f[size_t(i) * kTargets + t] = __half2float(h);
      ++active;
    }
  }
  Data d{upload(deltas.tiles), upload(weights), upload(base), upload(skin), upload(matrices), nullptr};
  const size_t out_bytes = size_t(kInstances) * kVertices * 3 * sizeof(float2);
  cudaMalloc(&d.out, out_bytes);
  cudaMemset(d.out, 0, out_bytes);
  const dim3 grid(tiles, groups), block(kThreads);
  const float best = bestMilliseconds([&] { crowdMma<<<grid, block>>>(d); });
  if (best < 0.0f) return 1;
  double err = 0;
  for (uint32_t ci : {0u, 1u, 6u, 500u, 999u}) {
    for (uint32_t cv : {0u, 7u, 13u, 31u, 19999u}) {
      err = std::max(err, checkDenseVertex(d.out, base, deltas, weight_f, matrices, skin, ci, cv));
    }
  }
  std::printf("crowd as tensor-core products kept in registers (mma.sync m16n8k16, FP16 in, FP32 sums): %u instances x "
              "%u vertices x %u targets (%u active, dense over all), G %u: %.1f us best of 20 (output %.1f MB, %.0f "
              "GB/s); CPU check max |diff| %.2g\n",
              kInstances, kVertices, kTargets, kActive, kGroup, best * 1000.0, out_bytes / 1e6,
              out_bytes / (best * 1e-3) / 1e9, err);
  return err < 1e-3 ? 0 : 1;
}
