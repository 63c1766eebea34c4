// SPDX-License-Identifier: MIT
// deform_test.cpp — MorphSkinJob (scalar reference) and FastMorphSkinJob on hand-built primitives:
// the morph-then-skin order, fast == reference on random data, poisoned outputs, one validity test per input.
#include "morphkit/core/deform.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "morphkit/model/thread_pool.h"

namespace morphkit {
namespace {

constexpr float kPoison = std::numeric_limits<float>::quiet_NaN();

// Outputs for one primitive, poisoned, with span views the jobs take.
struct Outputs {
  std::vector<float> positions, normals, tangents;
  std::vector<std::vector<float>> texcoords, colors;
  std::vector<std::span<float>> texcoord_spans, color_spans;

  explicit Outputs(const PrimitiveData& p) {
    const size_t n = p.vertex_count;
    positions.assign(3 * n, kPoison);
    if (!p.normal.empty()) normals.assign(3 * n, kPoison);
    if (!p.tangent.empty()) tangents.assign(4 * n, kPoison);
    texcoords.assign(p.texcoords.size(), std::vector<float>(2 * n, kPoison));
    colors.assign(p.colors.size(), std::vector<float>(4 * n, kPoison));
    texcoord_spans.assign(texcoords.begin(), texcoords.end());
    color_spans.assign(colors.begin(), colors.end());
  }
  void attach(MorphSkinJob& job) {
    job.out_positions = positions;
    job.out_normals = normals;
    job.out_tangents = tangents;
    job.out_texcoords = texcoord_spans;
    job.out_colors = color_spans;
  }
};

Mat4 randomMatrix(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), s(0.5f, 2.0f);
  Quat q = normalize(Quat{u(rng), u(rng), u(rng), u(rng)});
  return composeTRS({u(rng) * 3, u(rng) * 3, u(rng) * 3}, q, {s(rng), s(rng), s(rng)});
}

// A random primitive: `targets` targets (some sparse: deltas only in a vertex window), `sets` skin sets.
PrimitiveData randomPrimitive(uint32_t n, uint32_t targets, uint32_t sets, uint32_t joints, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  PrimitiveData p;
  p.vertex_count = n;
  auto fill = [&](std::vector<float>& v, size_t count) {
    v.resize(count);
    for (float& x : v) x = u(rng);
  };
  fill(p.position, 3 * n);
  fill(p.normal, 3 * n);
  fill(p.tangent, 4 * n);
  for (uint32_t v = 0; v < n; ++v) p.tangent[4 * v + 3] = v % 2 ? 1.0f : -1.0f;
  p.texcoords.resize(2);
  for (auto& t : p.texcoords) fill(t, 2 * n);
  p.colors.resize(1);
  fill(p.colors[0], 4 * n);
  p.targets.resize(targets);
  for (uint32_t t = 0; t < targets; ++t) {
    MorphTargetData& d = p.targets[t];
    fill(d.position, 3 * n);
    if (t % 3 != 1) fill(d.normal, 3 * n);  // some targets do not move normals
    if (t % 4 == 0) fill(d.tangent, 3 * n);
    if (t % 5 == 0) {  // sparse-like: a window of vertices only
      const uint32_t lo = n / 3, hi = n / 3 + n / 7;
      for (uint32_t v = 0; v < n; ++v) {
        if (v >= lo && v < hi) continue;
        for (int c = 0; c < 3; ++c) {
          d.position[3 * v + size_t(c)] = 0;
          if (!d.normal.empty()) d.normal[3 * v + size_t(c)] = 0;
        }
      }
    }
    d.texcoords.resize(t % 2 ? 2 : 1);
    fill(d.texcoords[0], 2 * n);
    if (d.texcoords.size() > 1) fill(d.texcoords[1], 2 * n);
    if (t % 3 == 0) {
      d.colors.resize(1);
      fill(d.colors[0], 4 * n);
    }
  }
  if (sets > 0) {
    p.influences = 4 * sets;
    p.joints.resize(size_t(p.influences) * n);
    p.skin_weights.resize(size_t(p.influences) * n);
    std::uniform_int_distribution<uint32_t> j(0, joints - 1);
    std::uniform_real_distribution<float> w(0.0f, 1.0f);
    for (uint32_t v = 0; v < n; ++v) {
      float sum = 0;
      for (uint32_t i = 0; i < p.influences; ++i) {
        p.joints[v * p.influences + i] = j(rng);
        float weight = (i % 3 == 2) ? 0.0f : w(rng);  // some zero weights
        p.skin_weights[v * p.influences + i] = weight;
        sum += weight;
      }
      for (uint32_t i = 0; i < p.influences; ++i) p.skin_weights[v * p.influences + i] /= sum;
    }
  }
  return p;
}

void expectClose(const std::vector<float>& fast, const std::vector<float>& ref, double scale, const char* what) {
  ASSERT_EQ(fast.size(), ref.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double tol = 1e-6 * std::max(scale, double(std::fabs(ref[i])));
    if (!(std::fabs(double(fast[i]) - ref[i]) <= tol) && reported++ < 5) {
      ADD_FAILURE() << what << "[" << i << "]: fast " << fast[i] << ", reference " << ref[i];
    }
  }
}

TEST(MorphSkinJob, MorphsBeforeSkinning) {
  // One vertex p = (1, 0, 0), one target Δ = (0, 1, 0), weight 1, one joint rotating 90° about z.
  // Morph then skin: R·(1, 1, 0) = (-1, 1, 0). Skin then morph would give R·p + Δ = (0, 2, 0).
  PrimitiveData p;
  p.vertex_count = 1;
  p.position = {1, 0, 0};
  p.normal = {1, 0, 0};
  p.targets.resize(1);
  p.targets[0].position = {0, 1, 0};
  p.targets[0].normal = {-1, 1, 0};  // morphed normal (0, 1, 0) → R → (-1, 0, 0)
  p.influences = 4;
  p.joints = {0, 0, 0, 0};
  p.skin_weights = {1, 0, 0, 0};
  const float h = std::sqrt(0.5f);
  const DMat4 joint = composeTRS({}, {0, 0, h, h}, {1, 1, 1});
  std::vector<float> weights{1.0f};
  for (bool fast : {false, true}) {
    Outputs out(p);
    MorphSkinJob job;
    job.primitive = &p;
    job.weights = weights;
    job.joint_matrices = std::span<const DMat4>(&joint, 1);
    job.end = 1;
    out.attach(job);
    PackedTargets packed = packTargets(p);
    FastMorphSkinJob fast_job{job, &packed};
    ASSERT_TRUE(fast ? fast_job.run() : job.run());
    EXPECT_NEAR(out.positions[0], -1.0, 1e-6) << fast;
    EXPECT_NEAR(out.positions[1], 1.0, 1e-6) << fast;
    EXPECT_NEAR(out.positions[2], 0.0, 1e-6) << fast;
    EXPECT_NEAR(out.normals[0], -1.0, 1e-6) << fast;
    EXPECT_NEAR(out.normals[1], 0.0, 1e-6) << fast;
  }
}

TEST(MorphSkinJob, RigidUsesTheNormalMatrixAndKeepsTangentW) {
  // Non-uniform scale (2, 1, 1): a normal (1, 1, 0) must become ∝ (0.5, 1, 0), the tangent (1, -1, 0) ∝ (2, -1, 0).
  PrimitiveData p;
  p.vertex_count = 1;
  p.position = {1, 1, 1};
  p.normal = {1, 1, 0};
  p.tangent = {1, -1, 0, -1};
  std::vector<float> no_weights;
  Mat4 world = composeTRS({0, 0, 10}, {}, {2, 1, 1});
  Outputs out(p);
  MorphSkinJob job;
  job.primitive = &p;
  job.world = world;
  job.end = 1;
  out.attach(job);
  ASSERT_TRUE(job.run());
  EXPECT_NEAR(out.positions[0], 2, 1e-6);
  EXPECT_NEAR(out.positions[2], 11, 1e-6);
  const double n = std::sqrt(1.25);
  EXPECT_NEAR(out.normals[0], 0.5 / n, 1e-6);
  EXPECT_NEAR(out.normals[1], 1.0 / n, 1e-6);
  const double t = std::sqrt(5.0);
  EXPECT_NEAR(out.tangents[0], 2 / t, 1e-6);
  EXPECT_NEAR(out.tangents[1], -1 / t, 1e-6);
  EXPECT_EQ(out.tangents[3], -1.0f);
}

void compareFastWithReference(uint32_t n, uint32_t targets, uint32_t sets, uint32_t seed, ThreadPool* pool) {
  const uint32_t joint_count = 12;
  PrimitiveData p = randomPrimitive(n, targets, sets, joint_count, seed);
  std::mt19937 rng(seed + 1);
  std::vector<DMat4> joints;
  for (uint32_t j = 0; j < joint_count; ++j) joints.push_back(randomMatrix(rng));
  std::vector<float> weights(targets);
  std::uniform_real_distribution<float> w(-1.5f, 1.5f);
  for (uint32_t t = 0; t < targets; ++t) weights[t] = t % 4 == 3 ? 0.0f : w(rng);  // zeros and negatives
  PackedTargets packed = packTargets(p);

  Outputs ref(p), fast(p);
  MorphSkinJob job;
  job.primitive = &p;
  job.weights = weights;
  if (sets > 0) {
    job.joint_matrices = joints;
  } else {
    job.world = randomMatrix(rng);
  }
  job.end = n;
  ref.attach(job);
  ASSERT_TRUE(job.run());

  parallelFor(pool, n, 777, [&](size_t begin, size_t end) {
    MorphSkinJob range = job;
    fast.attach(range);
    range.begin = uint32_t(begin);
    range.end = uint32_t(end);
    FastMorphSkinJob fast_job{range, &packed};
    EXPECT_TRUE(fast_job.run());
  });
  double scale = 0;
  for (float v : ref.positions) scale = std::max(scale, double(std::fabs(v)));
  expectClose(fast.positions, ref.positions, scale, "positions");
  // Normals and tangents are normalized after the morph, which divides the float accumulation error by the
  // morphed length: the tolerance is 1e-6 × the condition (|base| + Σ|wᵢ|·|Δᵢ|) / |base + Σ wᵢ·Δᵢ| per vertex.
  auto directionCheck = [&](const std::vector<float>& got, const std::vector<float>& want,
                            const std::vector<float>& base, size_t stride, auto delta, const char* what) {
    int reported = 0;
    for (uint32_t v = 0; v < n; ++v) {
      double sum[3], bound = 0;
      for (int c = 0; c < 3; ++c) sum[c] = base[stride * v + size_t(c)];
      bound += std::sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
      for (uint32_t t = 0; t < targets; ++t) {
        const std::vector<float>& d = delta(p.targets[t]);
        if (d.empty()) continue;
        double len = 0;
        for (int c = 0; c < 3; ++c) {
          sum[c] += double(weights[t]) * d[3 * v + size_t(c)];
          len += double(d[3 * v + size_t(c)]) * d[3 * v + size_t(c)];
        }
        bound += std::fabs(weights[t]) * std::sqrt(len);
      }
      const double morphed = std::sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
      const double tol = 1e-6 * std::max(1.0, bound / morphed);
      for (size_t c = 0; c < 3; ++c) {
        const size_t i = stride * v + c;
        if (!(std::fabs(double(got[i]) - want[i]) <= tol) && reported++ < 5) {
          ADD_FAILURE() << what << "[" << i << "]: fast " << got[i] << ", reference " << want[i] << " tol " << tol;
        }
      }
    }
  };
  directionCheck(
      fast.normals, ref.normals, p.normal, 3,
      [](const MorphTargetData& d) -> const std::vector<float>& { return d.normal; }, "normals");
  directionCheck(
      fast.tangents, ref.tangents, p.tangent, 4,
      [](const MorphTargetData& d) -> const std::vector<float>& { return d.tangent; }, "tangents");
  for (uint32_t v = 0; v < n; ++v) EXPECT_EQ(fast.tangents[4 * v + 3], ref.tangents[4 * v + 3]);
  for (size_t s = 0; s < ref.texcoords.size(); ++s) expectClose(fast.texcoords[s], ref.texcoords[s], 10.0, "texcoords");
  for (size_t s = 0; s < ref.colors.size(); ++s) expectClose(fast.colors[s], ref.colors[s], 10.0, "colors");
}

TEST(FastMorphSkinJob, MatchesReferenceWithEightInfluences) {
  compareFastWithReference(3000, 20, 2, 11, nullptr);
}

TEST(FastMorphSkinJob, MatchesReferenceRigidManyTargetsThreaded) {
  ThreadPool pool(3);
  compareFastWithReference(2500, 52, 0, 12, &pool);
}

TEST(FastMorphSkinJob, MatchesReferenceFourInfluencesNoTargets) {
  compareFastWithReference(100, 0, 1, 13, nullptr);
}

TEST(MorphSkinJob, WritesOnlyItsRange) {
  PrimitiveData p = randomPrimitive(300, 4, 1, 5, 21);
  std::mt19937 rng(3);
  std::vector<DMat4> joints;
  for (int j = 0; j < 5; ++j) joints.push_back(randomMatrix(rng));
  std::vector<float> weights{0.5f, -0.25f, 0.0f, 2.0f};
  PackedTargets packed = packTargets(p);
  for (bool fast : {false, true}) {
    Outputs out(p);
    MorphSkinJob job;
    job.primitive = &p;
    job.weights = weights;
    job.joint_matrices = joints;
    job.begin = 100;
    job.end = 200;
    out.attach(job);
    FastMorphSkinJob fast_job{job, &packed};
    ASSERT_TRUE(fast ? fast_job.run() : job.run());
    auto check = [&](const std::vector<float>& v, size_t comps, const char* what) {
      for (size_t i = 0; i < v.size(); ++i) {
        const size_t vertex = i / comps;
        const bool inside = vertex >= 100 && vertex < 200;
        EXPECT_EQ(std::isnan(v[i]), !inside) << what << "[" << i << "] fast=" << fast;
      }
    };
    check(out.positions, 3, "positions");
    check(out.normals, 3, "normals");
    check(out.tangents, 4, "tangents");
    check(out.texcoords[1], 2, "texcoords");
    check(out.colors[0], 4, "colors");
  }
}

// One validity test per job: start from a valid job and break each input in turn.
TEST(MorphSkinJob, ValidityBreaksEachInputInTurn) {
  PrimitiveData p = randomPrimitive(10, 2, 1, 3, 5);
  std::vector<DMat4> joints(3);
  std::vector<float> weights{0.5f, 0.5f};
  Outputs out(p);
  MorphSkinJob good;
  good.primitive = &p;
  good.weights = weights;
  good.joint_matrices = joints;
  good.end = 10;
  out.attach(good);
  ASSERT_TRUE(good.validate());
  EXPECT_FALSE(MorphSkinJob{}.validate());

  auto expectInvalid = [&](const char* what, auto&& breakIt) {
    MorphSkinJob job = good;
    PrimitiveData copy = p;
    job.primitive = &copy;
    breakIt(job, copy);
    EXPECT_FALSE(job.validate()) << what;
    EXPECT_FALSE(job.run()) << what;
  };
  std::vector<float> short_weights{0.5f};
  std::vector<float> nan_weights{0.5f, NAN};
  std::vector<float> small(5);
  std::vector<float> extra_normals(30);
  std::vector<std::span<float>> one_texcoord(1, std::span<float>(out.texcoords[0]));
  std::vector<std::span<float>> short_color(1, std::span<float>(small));
  std::vector<DMat4> two_joints(2);
  expectInvalid("null primitive", [](MorphSkinJob& j, PrimitiveData&) { j.primitive = nullptr; });
  expectInvalid("weights size", [&](MorphSkinJob& j, PrimitiveData&) { j.weights = short_weights; });
  expectInvalid("non-finite weight", [&](MorphSkinJob& j, PrimitiveData&) { j.weights = nan_weights; });
  expectInvalid("begin > end", [](MorphSkinJob& j, PrimitiveData&) { j.begin = 5, j.end = 4; });
  expectInvalid("end > vertex_count", [](MorphSkinJob& j, PrimitiveData&) { j.end = 11; });
  expectInvalid("base positions size", [](MorphSkinJob&, PrimitiveData& c) { c.position.pop_back(); });
  expectInvalid("base normals size", [](MorphSkinJob&, PrimitiveData& c) { c.normal.resize(3); });
  expectInvalid("base tangents size", [](MorphSkinJob&, PrimitiveData& c) { c.tangent.resize(4); });
  expectInvalid("base texcoords size", [](MorphSkinJob&, PrimitiveData& c) { c.texcoords[1].resize(2); });
  expectInvalid("base colors size", [](MorphSkinJob&, PrimitiveData& c) { c.colors[0].resize(4); });
  expectInvalid("target position size", [](MorphSkinJob&, PrimitiveData& c) { c.targets[0].position.resize(3); });
  expectInvalid("target normal size", [](MorphSkinJob&, PrimitiveData& c) { c.targets[1].normal.resize(3); });
  expectInvalid("target tangent size", [](MorphSkinJob&, PrimitiveData& c) { c.targets[0].tangent.resize(3); });
  expectInvalid("target texcoord size", [](MorphSkinJob&, PrimitiveData& c) { c.targets[0].texcoords[0].resize(2); });
  expectInvalid("target color sets", [](MorphSkinJob&, PrimitiveData& c) { c.targets[0].colors.resize(2); });
  expectInvalid("out positions", [&](MorphSkinJob& j, PrimitiveData&) { j.out_positions = small; });
  expectInvalid("out normals without input normals", [&](MorphSkinJob& j, PrimitiveData& c) {
    c.normal.clear();
    for (auto& t : c.targets) t.normal.clear();
    j.out_normals = extra_normals;
  });
  expectInvalid("out tangents", [&](MorphSkinJob& j, PrimitiveData&) { j.out_tangents = small; });
  expectInvalid("out texcoord count", [&](MorphSkinJob& j, PrimitiveData&) { j.out_texcoords = one_texcoord; });
  expectInvalid("out color size", [&](MorphSkinJob& j, PrimitiveData&) { j.out_colors = short_color; });
  expectInvalid("joint index out of range", [&](MorphSkinJob& j, PrimitiveData&) { j.joint_matrices = two_joints; });
  expectInvalid("joints without influences", [](MorphSkinJob&, PrimitiveData& c) {
    c.influences = 0;
    c.joints.clear();
    c.skin_weights.clear();
  });
  expectInvalid("skin weights size", [](MorphSkinJob&, PrimitiveData& c) { c.skin_weights.pop_back(); });

  // A joint out of range with weight 0 is harmless; so is one outside [begin, end).
  {
    MorphSkinJob job = good;
    PrimitiveData copy = p;
    copy.joints[0] = 99;
    copy.skin_weights[0] = 0.0f;
    job.primitive = &copy;
    EXPECT_TRUE(job.validate());
    copy.skin_weights[0] = 0.5f;
    EXPECT_FALSE(job.validate());
    job.begin = 1;
    EXPECT_TRUE(job.validate());
  }
}

TEST(FastMorphSkinJob, ValidityBreaksEachInputInTurn) {
  PrimitiveData p = randomPrimitive(10, 2, 1, 3, 5);
  std::vector<DMat4> joints(3);
  std::vector<float> weights{0.5f, 0.5f};
  Outputs out(p);
  FastMorphSkinJob good;
  good.job.primitive = &p;
  good.job.weights = weights;
  good.job.joint_matrices = joints;
  good.job.end = 10;
  out.attach(good.job);
  PackedTargets packed = packTargets(p);
  good.packed = &packed;
  ASSERT_TRUE(good.validate());
  EXPECT_FALSE(FastMorphSkinJob{}.validate());

  FastMorphSkinJob job = good;
  job.packed = nullptr;
  EXPECT_FALSE(job.validate());
  EXPECT_FALSE(job.run());

  PrimitiveData other = randomPrimitive(12, 2, 1, 3, 6);
  PackedTargets wrong = packTargets(other);
  job = good;
  job.packed = &wrong;  // packed from another primitive
  EXPECT_FALSE(job.validate());

  PackedTargets corrupt = packed;
  corrupt.streams[0].offset = corrupt.deltas.size();
  job.packed = &corrupt;
  EXPECT_FALSE(job.validate());

  job = good;
  job.job.end = 11;  // the description itself is checked too
  EXPECT_FALSE(job.validate());

  // The joint check uses packTargets' joints_needed (the whole primitive), so it is O(1) per range.
  EXPECT_EQ(packed.joints_needed, 3u);
  std::vector<DMat4> two_joints(2);
  job = good;
  job.job.joint_matrices = two_joints;
  EXPECT_FALSE(job.validate());
  EXPECT_FALSE(job.run());
}

TEST(ThreadPool, CoversEveryIndexOnceAndNestsInline) {
  for (unsigned threads : {1u, 2u, 4u}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threadCount(), threads);
    for (size_t grain : {size_t(0), size_t(1), size_t(7), size_t(1000)}) {
      std::vector<std::atomic<int>> hits(1000);
      pool.parallelFor(hits.size(), grain, [&](size_t begin, size_t end) {
        EXPECT_LE(end, hits.size());
        for (size_t i = begin; i < end; ++i) hits[i]++;
        pool.parallelFor(2, 1, [](size_t, size_t) {});  // nested: runs inline, no deadlock
      });
      for (auto& h : hits) ASSERT_EQ(h.load(), 1);
    }
    pool.parallelFor(0, 1, [](size_t, size_t) { FAIL(); });
  }
}

TEST(ThreadPool, SharesCoverEveryIndexOnceInChunksOfAtMostTheGrain) {
  for (unsigned threads : {1u, 2u, 3u, 4u}) {
    ThreadPool pool(threads);
    for (size_t count : {size_t(1), size_t(5), size_t(1000), size_t(1537)}) {
      for (size_t grain : {size_t(0), size_t(1), size_t(7), size_t(64), size_t(1000), size_t(5000)}) {
        std::vector<std::atomic<int>> hits(count);
        pool.parallelForShares(count, grain, [&](size_t begin, size_t end) {
          EXPECT_LT(begin, end);
          EXPECT_LE(end, count);
          EXPECT_LE(end - begin, std::max<size_t>(grain, 1));
          for (size_t i = begin; i < end; ++i) hits[i]++;
          pool.parallelForShares(2, 1, [](size_t, size_t) {});  // nested: runs inline, no deadlock
        });
        for (auto& h : hits) ASSERT_EQ(h.load(), 1) << threads << " threads, count " << count << ", grain " << grain;
      }
    }
  }
}

// The worker starts at the front of its own share (the second half, on a multiple of the grain), not next to the
// calling thread's chunk as in-order claiming would: the calling thread holds its first chunk until the worker
// has run one, so the worker's share is still whole when it claims.
TEST(ThreadPool, SharesStartEachThreadOnItsOwnHalf) {
  ThreadPool pool(2);
  const auto caller = std::this_thread::get_id();
  std::atomic<long> worker_first{-1};
  pool.parallelForShares(1000, 64, [&](size_t begin, size_t) {
    if (std::this_thread::get_id() != caller) {
      long none = -1;
      worker_first.compare_exchange_strong(none, long(begin));
    } else if (begin == 0) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (worker_first.load() < 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    }
  });
  EXPECT_EQ(worker_first.load(), 448);  // 1000 / 2 = 500, down to a multiple of 64
}

// Back-to-back batches find the workers spinning, batches after a pause find them asleep; every batch covers
// every index once either way, and a pool destroyed while its workers spin joins them.
TEST(ThreadPool, BatchesWhileWorkersSpinOrSleep) {
  for (unsigned threads : {2u, 3u}) {
    ThreadPool pool(threads);
    for (int batch = 0; batch < 300; ++batch) {
      if (batch % 50 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));  // past the spin
      std::vector<std::atomic<int>> hits(257);
      pool.parallelFor(hits.size(), 16, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) hits[i]++;
      });
      for (auto& h : hits) ASSERT_EQ(h.load(), 1) << "batch " << batch;
    }
  }
}

}  // namespace
}  // namespace morphkit
