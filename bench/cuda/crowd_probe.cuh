// SPDX-License-Identifier: MIT
// crowd_probe.cuh — what the CUDA crowd probes (crowd4_twin.cu, crowd_gemm_probe.cu, crowd_mma_probe.cu) share on
// the host: `bench --crowd 1000`'s shape, the deterministic generator, the skin and the instances' matrices, and
// stage 3's double-precision reference for the CPU check. Each kernel keeps its own stage 3 on the device: they
// differ in small ways (the twin skips zero weights and adds the origin unfused, as skin.glsl; 32- or 64-bit
// indices) that moved the probes' times by 2–3 % when one device function served all three.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>

namespace crowd_probe {

constexpr uint32_t kVertices = 20000, kTargets = 52, kActive = 10, kJoints = 32, kInstances = 1000;
constexpr uint32_t kMatrixCount = 1 + kJoints;  // the origin block, then the palette; three float4 rows each

// The benchmarks' generator (a 64-bit LCG; 24 random bits per draw), as BenchRng in src/vk/gpu_internal.h.
struct Rng {
  uint64_t state;
  uint32_t bits() { return uint32_t((state = state * 6364136223846793005ull + 1442695040888963407ull) >> 40); }
  float unit() { return float(bits()) / float(1u << 24); }
};

template <class T>
T* upload(const std::vector<T>& host) {
  T* device = nullptr;
  cudaMalloc(&device, host.size() * sizeof(T));
  cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return device;
}

// `launch` 200 times untimed (the clocks up, as `bench --warmup-ms`), then 20 times timed with events: the best in
// milliseconds, or a negative value (and a message) when a launch failed.
template <class Launch>
float bestMilliseconds(const Launch& launch) {
  for (int i = 0; i < 200; ++i) launch();
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return -1.0f;
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float best = 1e30f;
  for (int i = 0; i < 20; ++i) {
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    if (cudaEventSynchronize(stop) != cudaSuccess) best = -1.0f;
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (best >= 0.0f) best = std::min(best, ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best;
}

// Per vertex 4 joints, then 4 weights (bits). `bench --crowd`'s skin (benchPrimitive, src/vk/gpu_bench.cpp): joint
// i of vertex v is (v / 64 + 7i) % 32, weights 0.4, 0.2, 0.2, 0.2, so a warp's 32 vertices share their joints.
// `scattered`: random joints and weights per vertex instead (draws from `rng`), each lane gathering other matrices.
// `normalize`: each weight divided by the vertex's float sum (the twin's data; the probes' keep 0.4 and 0.2).
inline std::vector<uint32_t> makeSkin(Rng& rng, bool scattered, bool normalize) {
  std::vector<uint32_t> skin(size_t(kVertices) * 8);
  for (uint32_t v = 0; v < kVertices; ++v) {
    float w[4], sum = 0;
    for (uint32_t j = 0; j < 4; ++j) {
      if (scattered) {
        skin[v * 8 + j] = rng.bits() % kJoints, w[j] = rng.unit() + 0.01f;
      } else {
        skin[v * 8 + j] = (v / 64 + 7 * j) % kJoints, w[j] = j == 0 ? 0.4f : 0.2f;
      }
      sum += w[j];
    }
    for (int j = 0; j < 4; ++j) {
      const float f = normalize ? w[j] / sum : w[j];
      std::memcpy(&skin[v * 8 + 4 + j], &f, 4);
    }
  }
  return skin;
}

// Per instance the origin block (pivot 0, origin high 0.01 · instance on x) and 32 near-identity joint matrices.
inline std::vector<float4> makeMatrices(Rng& rng) {
  std::vector<float4> matrices(size_t(kInstances) * kMatrixCount * 3);
  for (uint32_t i = 0; i < kInstances; ++i) {
    float4* m = &matrices[size_t(i) * kMatrixCount * 3];
    m[0] = make_float4(0.0f, 0.01f * float(i), 0.0f, 0.0f), m[1] = make_float4(0, 0, 0, 0), m[2] = make_float4(0, 0, 0, 0);
    for (uint32_t j = 0; j < kJoints; ++j) {
      const float e = 0.1f * (rng.unit() - 0.5f);
      m[3 * (1 + j)] = make_float4(1.0f + e, e, 0.0f, e);
      m[3 * (1 + j) + 1] = make_float4(-e, 1.0f, e, e);
      m[3 * (1 + j) + 2] = make_float4(0.0f, -e, 1.0f - e, e);
    }
  }
  return matrices;
}

// The largest |difference| between what the device wrote for (vertex, instance) and stage 3 in double from the
// morphed p and n the caller computed on the host (the pivot and the low origin are 0 in makeMatrices' blocks).
inline double checkVertex(const float2* device_out, const std::vector<float4>& matrices, const std::vector<uint32_t>& skin,
                          uint32_t instance, uint32_t v, const double p[3], const double n[3]) {
  float2 got2[3];
  cudaMemcpy(got2, device_out + (size_t(instance) * kVertices + v) * 3, sizeof got2, cudaMemcpyDeviceToHost);
  const float4* m = &matrices[size_t(instance) * kMatrixCount * 3];
  double r[3][4] = {};
  for (int j = 0; j < 4; ++j) {
    float w;
    std::memcpy(&w, &skin[v * 8 + 4 + j], 4);
    const float4* jm = m + 3 * (1 + skin[v * 8 + j]);
    const float4 rows[3] = {jm[0], jm[1], jm[2]};
    for (int i = 0; i < 3; ++i) r[i][0] += w * rows[i].x, r[i][1] += w * rows[i].y, r[i][2] += w * rows[i].z, r[i][3] += w * rows[i].w;
  }
  const double rel[3] = {p[0] - m[0].x, p[1] - m[1].x, p[2] - m[2].x};
  const double high[3] = {m[0].y, m[1].y, m[2].y};
  double q[3], nn[3], len = 0;
  for (int i = 0; i < 3; ++i) {
    q[i] = r[i][0] * rel[0] + r[i][1] * rel[1] + r[i][2] * rel[2] + r[i][3] + high[i];
    nn[i] = r[i][0] * n[0] + r[i][1] * n[1] + r[i][2] * n[2];
    len += nn[i] * nn[i];
  }
  const double got[6] = {got2[0].x, got2[0].y, got2[1].x, got2[1].y, got2[2].x, got2[2].y};
  const double want[6] = {q[0], q[1], q[2], nn[0] / std::sqrt(len), nn[1] / std::sqrt(len), nn[2] / std::sqrt(len)};
  double err = 0;
  for (int i = 0; i < 6; ++i) err = std::max(err, std::fabs(got[i] - want[i]));
  return err;
}

// The tensor-core probes' deltas (position + normal) in FP16: per tile of `tile` vertices a (6 · tile) × `k` matrix,
// row = component · tile + vertex, column = target (kTargets used, the rest 0). `rounded` holds the same values as
// floats, [vertex][component][target], for the CPU check.
struct Fp16Deltas {
  std::vector<__half> tiles;
  std::vector<float> rounded;
};
inline Fp16Deltas makeFp16Deltas(Rng& rng, uint32_t tile, uint32_t k) {
  Fp16Deltas d;
  d.tiles.assign(size_t((kVertices + tile - 1) / tile) * 6 * tile * k, __float2half(0.0f));
  d.rounded.resize(size_t(kVertices) * 6 * kTargets);
  for (uint32_t v = 0; v < kVertices; ++v) {
    for (uint32_t c = 0; c < 6; ++c) {
      for (uint32_t t = 0; t < kTargets; ++t) {
        const __half h = __float2half(0.01f * (rng.unit() - 0.5f));
        d.tiles[size_t(v / tile) * 6 * tile * k + (c * tile + v % tile) * k + t] = h;
        d.rounded[(size_t(v) * 6 + c) * kTargets + t] = __half2float(h);
      }
    }
  }
  return d;
}

// The tensor-core probes' CPU check of (vertex, instance): base + Σ w·Δ over every target (`weights`: per instance
// kTargets FP16-rounded weights, 0 where inactive), in double, then checkVertex.
inline double checkDenseVertex(const float2* device_out, const std::vector<float>& base, const Fp16Deltas& deltas,
                               const std::vector<float>& weights, const std::vector<float4>& matrices,
                               const std::vector<uint32_t>& skin, uint32_t instance, uint32_t v) {
  double p[3], n[3];
  for (int c = 0; c < 3; ++c) p[c] = base[v * 6 + c], n[c] = base[v * 6 + 3 + c];
  for (uint32_t t = 0; t < kTargets; ++t) {
    const double w = weights[size_t(instance) * kTargets + t];
    for (int c = 0; c < 3; ++c) {
      p[c] += w * deltas.rounded[(size_t(v) * 6 + c) * kTargets + t];
      n[c] += w * deltas.rounded[(size_t(v) * 6 + 3 + c) * kTargets + t];
    }
  }
  return checkVertex(device_out, matrices, skin, instance, v, p, n);
}

}  // namespace crowd_probe
