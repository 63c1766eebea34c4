// SPDX-License-Identifier: MIT
// deform_bench.cpp — CPU morph + skin throughput: the scalar reference vs the fast path, 1 vs 2 threads,
// on make-demo data (morphkit/demo/demo.h) at 52 and 256 targets × 20k and 200k vertices, next to a STREAM-like
// copy measured in the same binary (the memory-bandwidth ceiling the delta streaming is up against).
//
// Counters: items = vertices × active targets per second; bytes = morph-delta bytes read per second
// (reference: every dense delta array of the active targets; fast: the packed, trimmed streams); moved = every
// byte the job must move (deltas, base attributes, outputs, skin stream) per second, against BM_StreamCopy on
// 1 and 2 threads. BM_MorphSkinGrain and BM_PoolRoundTrip look at two-thread scaling (chunk size, wake-up).
// Every target is active (weight 0.5): the worst case for both paths.
//
// 256 targets × 200k vertices exceeds make-demo's kDemoMaxTargetVertices; that one configuration uses a
// synthetic demo-like primitive (each target moves one contiguous 3–15 % window of vertices).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "morphkit/core/deform.h"
#include "morphkit/core/scene.h"
#include "morphkit/demo/demo.h"
#include "morphkit/model/primitive.h"
#include "morphkit/model/thread_pool.h"

namespace morphkit {
namespace {

struct Fixture {
  PrimitiveData primitive;
  PackedTargets packed;
  std::vector<DMat4> joints;
  std::vector<float> weights;
  size_t dense_delta_bytes = 0;  // bytes of every dense delta array (all targets active)
  bool synthetic = false;
};

// Synthetic demo-like data for sizes make-demo refuses.
void fillSynthetic(Fixture& f, uint32_t targets, uint32_t vertices) {
  PrimitiveData& p = f.primitive;
  p.vertex_count = vertices;
  p.position.resize(size_t(3) * vertices);
  p.normal.resize(size_t(3) * vertices);
  p.tangent.resize(size_t(4) * vertices);
  uint64_t state = 52052;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return float((state >> 40) & 0xFFFFFF) / float(0x1000000);
  };
  for (float& v : p.position) v = next() - 0.5f;
  for (uint32_t v = 0; v < vertices; ++v) {
    p.normal[3 * v + 2] = 1.0f;
    p.tangent[4 * v + 0] = 1.0f;
    p.tangent[4 * v + 3] = 1.0f;
  }
  p.influences = 4;
  p.joints.assign(size_t(4) * vertices, 0);
  p.skin_weights.assign(size_t(4) * vertices, 0.0f);
  for (uint32_t v = 0; v < vertices; ++v) {
    p.joints[4 * v] = v % 4;
    p.joints[4 * v + 1] = (v + 1) % 4;
    p.skin_weights[4 * v] = 0.75f;
    p.skin_weights[4 * v + 1] = 0.25f;
  }
  p.targets.resize(targets);
  for (uint32_t t = 0; t < targets; ++t) {
    MorphTargetData& d = p.targets[t];
    d.position.assign(size_t(3) * vertices, 0.0f);
    d.normal.assign(size_t(3) * vertices, 0.0f);
    const uint32_t span = uint32_t(vertices * (0.03 + 0.12 * next()));
    const uint32_t first = uint32_t((vertices - span) * next());
    for (uint32_t v = first; v < first + span; ++v) {
      for (int c = 0; c < 3; ++c) {
        d.position[3 * v + size_t(c)] = 0.01f * (next() - 0.5f);
        d.normal[3 * v + size_t(c)] = 0.05f * (next() - 0.5f);
      }
    }
  }
  f.synthetic = true;
}

// One fixture alive at a time (the largest takes ~1.3 GB of dense deltas).
Fixture& fixture(uint32_t targets, uint32_t vertices) {
  static std::unique_ptr<Fixture> current;
  static std::pair<uint32_t, uint32_t> key{0, 0};
  if (current && key == std::make_pair(targets, vertices)) return *current;
  current.reset();
  current = std::make_unique<Fixture>();
  Fixture& f = *current;
  key = {targets, vertices};
  if (uint64_t(targets) * vertices <= kDemoMaxTargetVertices) {
    DemoOptions options;
    options.targets = targets;
    options.vertices = vertices;
    Expected<Asset> asset = makeDemoAsset(options);
    if (asset) {
      Expected<PrimitiveData> data = decodePrimitive(*asset, 0, 0);
      if (data) f.primitive = std::move(*data);
    }
  }
  if (f.primitive.vertex_count == 0) fillSynthetic(f, targets, vertices);
  const PrimitiveData& p = f.primitive;
  f.packed = packTargets(p);
  uint32_t joint_count = 1;
  for (uint32_t j : p.joints) joint_count = std::max(joint_count, j + 1);
  for (uint32_t j = 0; j < joint_count; ++j) {
    f.joints.push_back(composeTRS({0.01f * float(j), 0, 0}, normalize(Quat{0.05f * float(j), 0, 0, 1}), {1, 1, 1}));
  }
  f.weights.assign(p.targets.size(), 0.5f);
  for (const MorphTargetData& d : p.targets) {
    f.dense_delta_bytes += (d.position.size() + d.normal.size() + d.tangent.size()) * sizeof(float);
  }
  return f;
}

// User + system CPU seconds of the whole process (all threads).
double processCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Output arrays for every attribute of a fixture's primitive.
struct JobOutputs {
  std::vector<float> positions, normals, tangents;
  std::vector<std::vector<float>> texcoords;
  std::vector<std::span<float>> texcoord_spans;
};

// A job over all of `f`'s vertices, writing into `out` (sized here).
MorphSkinJob wholeJob(const Fixture& f, JobOutputs& out) {
  const PrimitiveData& p = f.primitive;
  const size_t n = p.vertex_count;
  out.positions.assign(3 * n, 0.0f);
  out.normals.assign(p.normal.empty() ? 0 : 3 * n, 0.0f);
  out.tangents.assign(p.tangent.empty() ? 0 : 4 * n, 0.0f);
  out.texcoords.assign(p.texcoords.size(), std::vector<float>(2 * n));
  out.texcoord_spans.assign(out.texcoords.begin(), out.texcoords.end());
  return MorphSkinJob{.primitive = &p,
                      .weights = f.weights,
                      .joint_matrices = f.joints,
                      .begin = 0,
                      .end = uint32_t(n),
                      .out_positions = out.positions,
                      .out_normals = out.normals,
                      .out_tangents = out.tangents,
                      .out_texcoords = out.texcoord_spans};
}

// Args: targets, vertices, fast (0/1), threads, grain (vertices per parallelFor chunk; 0: one even chunk per thread).
void BM_MorphSkin(benchmark::State& state) {
  const uint32_t targets = uint32_t(state.range(0));
  const uint32_t vertices = uint32_t(state.range(1));
  const bool fast = state.range(2) != 0;
  const unsigned threads = unsigned(state.range(3));
  const size_t grain = size_t(state.range(4));
  Fixture& f = fixture(targets, vertices);
  const PrimitiveData& p = f.primitive;
  const size_t n = p.vertex_count;
  JobOutputs outputs;
  const MorphSkinJob job = wholeJob(f, outputs);
  ThreadPool pool(threads);
  const size_t chunk = grain ? grain : (n + threads - 1) / threads;  // what parallelFor uses for grain 0
  std::vector<double> chunk_cpu((n + chunk - 1) / chunk, 0.0);       // thread CPU seconds spent per chunk
  const double cpu_start = processCpuSeconds();
  for (auto _ : state) {
    pool.parallelFor(n, grain, [&](size_t begin, size_t end) {
      const double chunk_start = threadCpuSeconds();
      MorphSkinJob range = job;
      range.begin = uint32_t(begin);
      range.end = uint32_t(end);
      if (fast) {
        FastMorphSkinJob fast_job{range, &f.packed};
        fast_job.run();
      } else {
        range.run();
      }
      chunk_cpu[begin / chunk] += threadCpuSeconds() - chunk_start;  // one thread per chunk per iteration
    });
    benchmark::DoNotOptimize(outputs.positions.data());
    benchmark::ClobberMemory();
  }
  // CPU time of every thread of the process per iteration: against the 1-thread row it shows how much work
  // splitting adds, independently of whether the machine had a free core for the second thread.
  // The largest chunk's share of the work: with one chunk per thread (grain 0), 1 / that share is the speedup
  // the split allows on free cores, before wake-up and memory contention.
  double chunk_total = 0.0, chunk_max = 0.0;
  for (double c : chunk_cpu) chunk_total += c, chunk_max = std::max(chunk_max, c);
  state.counters["max_chunk_share"] = chunk_total > 0 ? chunk_max / chunk_total : 0.0;
  // Two free cores claiming these chunks in order, as the pool does (each takes the next chunk when it is done):
  // total work / the later finish is the speedup the chunking allows, before wake-up and memory contention.
  double finish[2] = {0.0, 0.0};
  for (double c : chunk_cpu) *std::min_element(finish, finish + 2) += c;
  state.counters["split_speedup_2"] = chunk_total > 0 ? chunk_total / std::max(finish[0], finish[1]) : 0.0;
  state.counters["process_cpu_ms"] =
      (processCpuSeconds() - cpu_start) * 1e3 / double(std::max<int64_t>(state.iterations(), 1));
  const size_t delta_bytes = fast ? f.packed.deltas.size() * sizeof(float) : f.dense_delta_bytes;
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n) * int64_t(p.targets.size()));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(delta_bytes));
  // Every byte the job must move: deltas + base attributes read, outputs written, the skin stream (u32 joints,
  // f32 weights) read. Compared with the STREAM copy's read + write bytes.
  const size_t vertex_bytes = n * sizeof(float) * 2 * (3 + (p.normal.empty() ? 0 : 3) + (p.tangent.empty() ? 0 : 4)) +
                              n * size_t(p.influences) * 8;
  state.counters["moved"] =
      benchmark::Counter(double(state.iterations()) * double(delta_bytes + vertex_bytes), benchmark::Counter::kIsRate);
  state.counters["vertices"] = double(n);
  state.counters["delta_MB"] = double(delta_bytes) / 1e6;
  state.counters["synthetic"] = f.synthetic ? 1 : 0;
  state.SetLabel(fast ? "fast" : "reference");
}

void morphSkinArgs(benchmark::internal::Benchmark* b) {
  for (int64_t targets : {52, 256}) {
    for (int64_t vertices : {20000, 200000}) {
      for (int64_t fast : {0, 1}) {
        for (int64_t threads : {1, 2}) b->Args({targets, vertices, fast, threads, 2048});
      }
    }
  }
  b->ArgNames({"targets", "vertices", "fast", "threads", "grain"})->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_MorphSkin)->Apply(morphSkinArgs);

// Two-thread scaling at 52 × 20k (fast path): the chunk size decides the balance. Demo targets cluster in parts
// of the vertex range, so 20k vertices in 8192-vertex chunks (3 chunks) put 65 % of the work in one chunk;
// counters: max_chunk_share, split_speedup_2 (what the split allows on 2 free cores), process_cpu_ms.
void grainArgs(benchmark::internal::Benchmark* b) {
  for (int64_t grain : {8192, 4096, 2048, 1024, 0}) {
    for (int64_t threads : {1, 2}) b->Args({52, 20000, 1, threads, grain});
  }
  b->ArgNames({"targets", "vertices", "fast", "threads", "grain"})->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_MorphSkin)->Name("BM_MorphSkinGrain")->Apply(grainArgs);

// What BM_MorphSkin's per-chunk timers cost: two reads of the thread CPU clock per chunk, a system call on some
// virtual machines rather than a vDSO read.
void BM_ThreadCpuClock(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(threadCpuSeconds());
}
BENCHMARK(BM_ThreadCpuClock)->Unit(benchmark::kMicrosecond);

// A fast-path job's fixed cost: one job over a one-vertex range at 52 × 20k (the demo face), so what is timed is
// its set-up (validation, active list, palette, attribute tables) and one vertex. A pose on a pool splits a
// primitive into 1024-vertex jobs (20 for the 20k demo; docs/PERFORMANCE.md, "Two threads at 20k").
void BM_FastJobSetUp(benchmark::State& state) {
  Fixture& f = fixture(52, 20000);
  JobOutputs outputs;
  MorphSkinJob job = wholeJob(f, outputs);
  job.begin = f.primitive.vertex_count / 2;  // a vertex inside the targets' spans
  job.end = job.begin + 1;
  for (auto _ : state) {
    const bool ok = FastMorphSkinJob{job, &f.packed}.run();
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(outputs.positions.data());
  }
}
BENCHMARK(BM_FastJobSetUp)->Unit(benchmark::kMicrosecond);

// The pool's fork-join cost: 2 chunks of 50 µs of busy work on 2 threads take 50 µs + the cost of waking the
// worker and joining it (counter overhead_us); on 1 thread they take 100 µs.
void BM_PoolRoundTrip(benchmark::State& state) {
  ThreadPool pool(unsigned(state.range(0)));
  constexpr double kSpinMicroseconds = 50.0;
  auto spin = [](size_t, size_t) {
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() <
           kSpinMicroseconds) {
    }
  };
  double total = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    pool.parallelFor(2, 1, spin);
    total += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  }
  const double ideal = kSpinMicroseconds * (pool.threadCount() >= 2 ? 1.0 : 2.0);
  state.counters["overhead_us"] = total / double(std::max<int64_t>(state.iterations(), 1)) - ideal;
}
BENCHMARK(BM_PoolRoundTrip)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMicrosecond)->UseRealTime();

// STREAM-like copy of 256 MiB on 1 or 2 threads of the same ThreadPool the deformation uses (each thread copies
// its contiguous half): bytes = read + write, the ceiling for streaming deltas from memory.
void BM_StreamCopy(benchmark::State& state) {
  const size_t bytes = size_t(state.range(0)) << 20;
  ThreadPool pool(unsigned(state.range(1)));
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  const size_t chunk = (bytes + pool.threadCount() - 1) / pool.threadCount();
  for (auto _ : state) {
    pool.parallelFor(bytes, chunk, [&](size_t begin, size_t end) {
      std::memcpy(dst.data() + begin, src.data() + begin, end - begin);
    });
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(2 * bytes));
}
BENCHMARK(BM_StreamCopy)
    ->Args({256, 1})
    ->Args({256, 2})
    ->ArgNames({"MiB", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The machine's own two-thread ceiling for streaming reads: each iteration sums one array on one thread, then two
// arrays of the same size at once on the pool's two threads (one each), and `scaling` = 2 · one-thread time /
// two-thread time. At L2 and L3 sizes this is the most two threads can gain on any loop that streams its data
// (the fast path's deltas: 14 MB on the 20k demo); one pass after the other in every iteration, so that the
// machine's drift cancels out of the ratio.
// Eight independent 16-byte accumulators, so that the loop is bound by loads, not by the adds' latency.
float sumFloats(const std::vector<float>& values) {
  using V = float __attribute__((vector_size(16)));
  V acc[8] = {};
  const size_t vectors = values.size() / 4;
  for (size_t i = 0; i + 8 <= vectors; i += 8) {
    for (int k = 0; k < 8; ++k) {
      V v;
      std::memcpy(&v, &values[(i + size_t(k)) * 4], sizeof v);
      acc[k] += v;
    }
  }
  V total = acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];
  return total[0] + total[1] + total[2] + total[3];
}

void BM_ReadScaling(benchmark::State& state) {
  const size_t floats = (size_t(state.range(0)) << 10) / sizeof(float);
  ThreadPool pool(2);
  std::vector<std::vector<float>> arrays(2, std::vector<float>(floats, 1.0f));
  const int passes = int(std::max<size_t>(1, (size_t(256) << 20) / (floats * sizeof(float))));  // ≥ 256 MiB per thread
  double one = 0.0, two = 0.0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    for (int p = 0; p < passes; ++p) benchmark::DoNotOptimize(sumFloats(arrays[0]));
    one += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Both threads start together (the worker's wake-up is not the memory system's); the slower one counts.
    double each[2] = {0.0, 0.0};
    std::atomic<int> arrived{0};
    pool.parallelFor(2, 1, [&](size_t begin, size_t) {
      arrived.fetch_add(1);
      while (arrived.load() < 2) {
      }
      const auto own_start = std::chrono::steady_clock::now();
      for (int p = 0; p < passes; ++p) benchmark::DoNotOptimize(sumFloats(arrays[begin]));
      each[begin] = std::chrono::duration<double>(std::chrono::steady_clock::now() - own_start).count();
    });
    two += std::max(each[0], each[1]);
  }
  const double bytes = double(state.iterations()) * passes * double(floats * sizeof(float));
  state.counters["one_thread_GBps"] = bytes / one / 1e9;
  state.counters["two_threads_GBps"] = 2.0 * bytes / two / 1e9;
  state.counters["scaling"] = 2.0 * one / two;
}
BENCHMARK(BM_ReadScaling)
    ->Arg(256)
    ->Arg(2048)
    ->Arg(8192)
    ->Arg(65536)
    ->ArgName("KiB")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace morphkit

BENCHMARK_MAIN();
