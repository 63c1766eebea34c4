// SPDX-License-Identifier: MIT
// crowd_gemm_probe.cu — a probe of goal 4's remaining direction (docs/PERFORMANCE.md, "The direction left"): the
// morph of a group of instances as one dense matrix product on tensor cores, fused with the skinning and the write,
// on `bench --crowd 1000`'s shape (20000 vertices × 52 targets, position + normal deltas, 10 active targets per
// instance, 4 coherent joints of 32, three-row matrices, 24-byte outputs).
//
// Per workgroup (32-vertex tile, group of 128 instances), 8 warps:
//   1. the tile's deltas as a 192 × 64 FP16 matrix (6 components × 32 vertices, 52 targets padded to 64) and the
//      group's weights as a 64 × 128 FP16 matrix (zeros for inactive targets) go to shared memory, once;
//   2. for each 32-instance slice: sums = deltas × weights (WMMA 16 × 16 × 16, FP32 accumulation) into shared
//      memory, then each (vertex, instance) of the slice adds its base, skins with its instance's matrices, writes.
// Not the Vulkan kernel and not bit-identical to v1 (FP16 deltas and weights, another summation order); checked
// against a CPU evaluation within FP16's tolerance. Built and run by hand on the device host:
//   nvcc -O3 -arch=sm_90 -o /tmp/crowd_gemm_probe bench/cuda/crowd_gemm_probe.cu && /tmp/crowd_gemm_probe
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "crowd_probe.cuh"

// PROBE_WIDE_STORES=1: each warp's outputs staged in shared memory and written as 16-byte stores (measured slower:
// 908-911 us against 857-858, docs/PERFORMANCE.md).
#ifndef PROBE_WIDE_STORES
#define PROBE_WIDE_STORES 0
#endif

namespace {

using namespace nvcuda;

using namespace crowd_probe;

constexpr uint32_t kTile = 32, kGroup = 128, kSlice = 32, kK = 64, kRowsM = kTile * 6;  // 192
constexpr uint32_t kWarps = 8, kThreads = kWarps * 32;

struct Data {
  const __half* deltas;    // per tile: kRowsM × kK, row = component·32 + vertex, column = target (row-major)
  const __half* weights;   // per group: kK × kGroup, row = target, column = instance of the group (row-major)
  const float* base;       // kVertices × 6
  const uint32_t* skin;    // kVertices × 8: 4 joints, 4 weights (bits)
  const float4* matrices;  // kInstances × kMatrixCount × 3 rows
  float2* out;             // kInstances × kVertices × 3
};

__global__ void __launch_bounds__(kThreads) crowdGemm(Data d) {
  // 70 KiB of dynamic shared memory (over the 48 KiB of static): deltas 24 KiB, weights 16 KiB, sums 24 KiB,
  // 6 KiB of output staging.
  extern __shared__ __align__(128) unsigned char s_bytes[];
  __half* s_delta = reinterpret_cast<__half*>(s_bytes);
  __half* s_weight = reinterpret_cast<__half*>(s_bytes + kRowsM * kK * 2);
  float* s_sum = reinterpret_cast<float*>(s_bytes + kRowsM * kK * 2 + kK * kGroup * 2);
#if PROBE_WIDE_STORES  // each warp's 32 outputs (768 bytes) staged here and written as 16-byte stores
  float* s_out = s_sum + kRowsM * kSlice + (threadIdx.x / 32) * (kTile * 6);
#endif
  const uint32_t tile = blockIdx.x, group = blockIdx.y, warp = threadIdx.x / 32;
  {  // 1. stage the tile's deltas and the group's weights (16-byte copies)
    const uint4* src = reinterpret_cast<const uint4*>(d.deltas + size_t(tile) * kRowsM * kK);
    uint4* dst = reinterpret_cast<uint4*>(s_delta);
    for (uint32_t i = threadIdx.x; i < kRowsM * kK / 8; i += kThreads) dst[i] = src[i];
    const uint4* wsrc = reinterpret_cast<const uint4*>(d.weights + size_t(group) * kK * kGroup);
    uint4* wdst = reinterpret_cast<uint4*>(s_weight);
    for (uint32_t i = threadIdx.x; i < kK * kGroup / 8; i += kThreads) wdst[i] = wsrc[i];
  }
  __syncthreads();
  const uint32_t first_instance = group * kGroup;
  const uint32_t lane = threadIdx.x % 32, v = tile * kTile + lane;
  const bool live = v < kVertices;
  float base_p[3] = {0, 0, 0}, base_n[3] = {0, 0, 0};
  uint32_t skin[8] = {};
  if (live) {
#pragma unroll
    for (int c = 0; c < 3; ++c) base_p[c] = d.base[size_t(v) * 6 + c], base_n[c] = d.base[size_t(v) * 6 + 3 + c];
#pragma unroll
    for (int k = 0; k < 8; ++k) skin[k] = d.skin[size_t(v) * 8 + k];
  }
  for (uint32_t slice = 0; slice < kGroup / kSlice; ++slice) {
    if (first_instance + slice * kSlice >= kInstances) break;
    // 2a. sums[192 × 32] = deltas[192 × 64] × weights[64 × 32 of this slice]: 12 × 2 output tiles, 3 per warp.
    for (uint32_t t = warp; t < (kRowsM / 16) * (kSlice / 16); t += kWarps) {
      const uint32_t tm = t / (kSlice / 16), tn = t % (kSlice / 16);
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
#pragma unroll
      for (uint32_t k = 0; k < kK / 16; ++k) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
        wmma::load_matrix_sync(a, s_delta + (tm * 16) * kK + k * 16, kK);
        wmma::load_matrix_sync(b, s_weight + (k * 16) * kGroup + slice * kSlice + tn * 16, kGroup);
        wmma::mma_sync(acc, a, b, acc);
      }
      // Column-major (instance-major): a warp's 32 lanes then read 32 consecutive floats (no bank conflicts).
      wmma::store_matrix_sync(s_sum + (tn * 16) * kRowsM + tm * 16, acc, kRowsM, wmma::mem_col_major);
    }
    __syncthreads();
    // 2b. per (vertex, instance) of the slice: base + sums, skin, place, renormalize, write. Lane = vertex, warp w
    // takes instances w, w + 8, … of the slice, so a warp's stores of one instance are consecutive and the vertex's
    // base and skin words (loaded once, before the slices) stay in registers.
    for (uint32_t j = warp; j < kSlice && live; j += kWarps) {
      const uint32_t instance = first_instance + slice * kSlice + j;
      if (instance >= kInstances) break;
      float p[3], n[3];
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        p[c] = base_p[c] + s_sum[j * kRowsM + c * kTile + lane];
        n[c] = base_n[c] + s_sum[j * kRowsM + (3 + c) * kTile + lane];
      }
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
#if PROBE_WIDE_STORES
      float* o = s_out + lane * 6;
      o[0] = q[0], o[1] = q[1], o[2] = q[2], o[3] = nn[0] * inv, o[4] = nn[1] * inv, o[5] = nn[2] * inv;
      __syncwarp();
      float4* dst = reinterpret_cast<float4*>(d.out + (size_t(instance) * kVertices + tile * kTile) * 3);
      const float4* src = reinterpret_cast<const float4*>(s_out);
      const uint32_t vectors = (min(kTile, kVertices - tile * kTile) * 6) / 4;  // 48 for a whole tile
      for (uint32_t k = lane; k < vectors; k += 32) dst[k] = src[k];
      __syncwarp();
#else
      float2* out = d.out + (size_t(instance) * kVertices + v) * 3;
      out[0] = make_float2(q[0], q[1]);
      out[1] = make_float2(q[2], nn[0] * inv);
      out[2] = make_float2(nn[1] * inv, nn[2] * inv);
#endif
    }
    __syncthreads();  // s_sum is rewritten by the next slice
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
  // Weights: 10 distinct active targets per instance, dense per group (zeros elsewhere), FP16.
  std::vector<__half> weights(size_t(groups) * kK * kGroup, __float2half(0.0f));
  std::vector<float> weight_f(size_t(kInstances) * kTargets, 0.0f);
  for (uint32_t i = 0; i < kInstances; ++i) {
    uint32_t active = 0;
    while (active < kActive) {
      const uint32_t t = rng.bits() % kTargets;
      if (weight_f[size_t(i) * kTargets + t] != 0.0f) continue;
      const __half h = __float2half(0.05f + rng.unit());
      weights[size_t(i / kGroup) * kK * kGroup + t * kGroup + i % kGroup] = h;
      weight_f[size_t(i) * kTargets + t] = __half2float(h);
      ++active;
    }
  }
  Data d{upload(deltas.tiles), upload(weights), upload(base), upload(skin), upload(matrices), nullptr};
  const size_t out_bytes = size_t(kInstances) * kVertices * 3 * sizeof(float2);
  cudaMalloc(&d.out, out_bytes);
  const dim3 grid(tiles, groups), block(kThreads);
  const int shared_bytes = kRowsM * kK * 2 + kK * kGroup * 2 + kRowsM * kSlice * 4 + kWarps * kTile * 6 * 4;
  cudaFuncSetAttribute(crowdGemm, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
  const float best = bestMilliseconds([&] { crowdGemm<<<grid, block, shared_bytes>>>(d); });
  if (best < 0.0f) return 1;
  // CPU check of a few (vertex, instance) pairs, in double from the same FP16-rounded inputs.
  double err = 0;
  for (uint32_t ci : {0u, 500u, 999u}) {
    for (uint32_t cv : {0u, 7u, 19999u}) {
      err = std::max(err, checkDenseVertex(d.out, base, deltas, weight_f, matrices, skin, ci, cv));
    }
  }
  std::printf("crowd as a tensor-core product (CUDA WMMA, FP16 in, FP32 sums): %u instances x %u vertices x %u "
              "targets (%u active, dense product over all), G %u: %.1f us best of 20 (output %.1f MB, %.0f GB/s); "
              "CPU check max |diff| %.2g\n",
              kInstances, kVertices, kTargets, kActive, kGroup, best * 1000.0, out_bytes / 1e6,
              out_bytes / (best * 1e-3) / 1e9, err);
  return err < 1e-3 ? 0 : 1;
}
