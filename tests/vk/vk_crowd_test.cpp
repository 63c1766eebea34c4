// SPDX-License-Identifier: MIT
// Crowds (morphkit/vk/gpu_crowd.h, shaders/crowd.comp) against the per-instance paths, on lavapipe with validation on.
//
// What each comparison claims:
//   - crowd vs crowd with other group sizes, rows and shared-memory budgets, and vs a crowd of one instance:
//     BIT-IDENTICAL (memcmp). Each instance's morph sum is one `precise` fma chain over its own active targets in
//     ascending order; a staged record is a copy of the loaded one, so where a record comes from (shared memory or
//     memory) cannot change a bit, nor can sharing a group with other instances.
//   - crowd vs GpuMorphJob (morph.comp, one instance per workgroup): within float tolerance, not bit-identical.
//     morph.comp sums the active targets in two interleaved partial sums and lets the driver contract w·Δ + s;
//     the crowd sums one fma chain. Bound: positions 1e-6 × the bounding-box diagonal (10× tighter than vs the
//     CPU), normals/tangents 2e-6 (a few ulps of unit vectors, after renormalization), texcoords/colors 1e-6.
//     f16 deltas are the same halves in both kernels, so the bound does not grow with the f16 error.
//   - crowd vs the CPU reference MorphSkinJob: the bounds of tests/vk/vk_morph_test.cpp (positions 1e-5 × diagonal,
//     unit vectors 1e-4; f16 adds Σ|w|·f16DeltaError·√3).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_crowd_internal.h"
#include "morphkit/core/deform.h"
#include "morphkit/model/thread_pool.h"
#include "morphkit/vk/gpu_crowd.h"
#include "morphkit/vk/gpu_interop.h"
#include "morphkit_bench/gpu_bench.h"
#include "vk_interop_support.h"
#include "vk_synthetic.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

using test::VulkanTest;

float bboxDiagonal(const std::vector<float>& xyz) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < xyz.size(); ++i)
    lo[i % 3] = std::min(lo[i % 3], xyz[i]), hi[i % 3] = std::max(hi[i % 3], xyz[i]);
  return std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                   (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

// Largest |a − b|; NaN anywhere (unwritten output) counts as infinite.
float maxDiff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  float m = 0.0f;
  for (size_t i = 0; i < a.size(); ++i) {
    const float d = std::fabs(a[i] - b[i]);
    if (!(d <= m)) m = std::isnan(d) ? INFINITY : d;
  }
  return m;
}

// The CPU reference (MorphSkinJob) for one instance, unpacked like readGpuCrowdVertices.
PrimitiveData cpuReference(const PrimitiveData& p, std::span<const float> weights, std::span<const DMat4> joints,
                           const DMat4& world) {
  PrimitiveData d;
  const size_t n = p.vertex_count;
  d.position.assign(3 * n, NAN);
  if (!p.normal.empty()) d.normal.assign(3 * n, NAN);
  if (!p.tangent.empty()) d.tangent.assign(4 * n, NAN);
  d.texcoords.assign(p.texcoords.size(), std::vector<float>(2 * n, NAN));
  d.colors.assign(p.colors.size(), std::vector<float>(4 * n, NAN));
  std::vector<std::span<float>> tc(d.texcoords.begin(), d.texcoords.end()), co(d.colors.begin(), d.colors.end());
  MorphSkinJob job;
  job.primitive = &p;
  job.weights = weights;
  job.joint_matrices = joints;
  job.world = world;
  job.begin = 0;
  job.end = p.vertex_count;
  job.out_positions = d.position;
  job.out_normals = d.normal;
  job.out_tangents = d.tangent;
  job.out_texcoords = tc;
  job.out_colors = co;
  EXPECT_TRUE(job.run());
  return d;
}

struct Tolerance {
  float position, unit, extra;
};

void expectClose(const PrimitiveData& got, const PrimitiveData& want, const Tolerance& tol, const std::string& what) {
  EXPECT_LE(maxDiff(got.position, want.position), tol.position) << what << " positions";
  EXPECT_LE(maxDiff(got.normal, want.normal), tol.unit) << what << " normals";
  EXPECT_LE(maxDiff(got.tangent, want.tangent), tol.unit) << what << " tangents";
  ASSERT_EQ(got.texcoords.size(), want.texcoords.size()) << what;
  for (size_t k = 0; k < want.texcoords.size(); ++k)
    EXPECT_LE(maxDiff(got.texcoords[k], want.texcoords[k]), tol.extra) << what;
  ASSERT_EQ(got.colors.size(), want.colors.size()) << what;
  for (size_t k = 0; k < want.colors.size(); ++k) EXPECT_LE(maxDiff(got.colors[k], want.colors[k]), tol.extra) << what;
}

enum class Shape { kPositionNormal, kAllAttributes };

PrimitiveData crowdPrimitive(Shape shape, bool skinned, uint32_t targets = 20) {
  test::SyntheticOptions o;
  o.vertices = 300;  // 4 full tiles of 64 and a partial one
  o.targets = targets;
  o.region = 0.4f;
  o.influence_sets = skinned ? 2 : 0;
  o.seed = 77;
  PrimitiveData p = test::syntheticPrimitive(o);
  if (shape == Shape::kPositionNormal) {  // the face of issue 12: POSITION + NORMAL deltas
    p.tangent.clear();
    p.texcoords.clear();
    p.colors.clear();
    for (MorphTargetData& t : p.targets) t.tangent.clear(), t.texcoords.clear(), t.colors.clear();
  }
  return p;
}

// 37 instances: #0 has no active target, #1 every target, the others 1..7 targets of their own choosing, each
// with its own palette (or world matrix). `frame` varies the choice.
struct Crowd {
  std::vector<std::vector<float>> weights;
  std::vector<std::vector<DMat4>> palettes;
  std::vector<GpuInstanceState> states;
};

Crowd makeCrowd(uint32_t instances, uint32_t targets, bool skinned, uint32_t joints, uint32_t frame) {
  Crowd c;
  c.weights.resize(instances);
  c.palettes.resize(instances);
  c.states.resize(instances);
  test::Lcg rng{1000 + frame};
  std::vector<uint32_t> order(targets);
  for (uint32_t i = 0; i < instances; ++i) {
    std::vector<float>& w = c.weights[i];
    w.assign(targets, 0.0f);
    const uint32_t active = i == 0 ? 0 : i == 1 ? targets : std::min(targets, 1 + (i + frame) % 7);
    std::iota(order.begin(), order.end(), 0u);
    for (uint32_t k = 0; k < active; ++k) {
      std::swap(order[k], order[k + uint32_t(rng.next() * float(targets - k)) % (targets - k)]);
      w[order[k]] = rng.signedNext() * 1.2f;
      if (w[order[k]] == 0.0f) w[order[k]] = 0.5f;
    }
    c.states[i].weights = w;
    if (skinned) {
      c.palettes[i] = test::syntheticJoints(joints, 5000 + 31 * frame + i);
      c.states[i].joint_matrices = c.palettes[i];
    } else {
      c.states[i].world = test::syntheticJoints(1, 7000 + 31 * frame + i)[0];
    }
  }
  return c;
}

// Runs `crowd` over `c` and returns every instance's raw output.
std::vector<std::vector<float>> runCrowd(VulkanContext& context, GpuCrowd* crowd, const Crowd& c) {
  std::vector<std::vector<float>> out;
  GpuCrowdJob job{&context, crowd, c.states};
  Status s = job.run();
  EXPECT_TRUE(s) << s.error().message;
  for (uint32_t i = 0; s && i < c.states.size(); ++i) {
    Expected<std::vector<float>> raw = readGpuCrowdOutput(context, *crowd, i);
    EXPECT_TRUE(raw);
    if (raw) out.push_back(std::move(*raw));
  }
  return out;
}

// The same with a crowd made for the occasion.
std::vector<std::vector<float>> runCrowd(VulkanContext& context, GpuPrimitive* gp, const Crowd& c, bool skinned,
                                         uint32_t joints, const GpuCrowdTuning& tuning = {}) {
  GpuCrowdDesc desc{gp, uint32_t(c.states.size()), skinned, skinned ? joints : 0};
  Expected<GpuCrowd*> crowd = createGpuCrowd(context, desc, tuning);
  EXPECT_TRUE(crowd) << crowd.error().message;
  if (!crowd) return {};
  std::vector<std::vector<float>> out = runCrowd(context, *crowd, c);
  destroyGpuCrowd(context, *crowd);
  return out;
}

class VkCrowdTest : public VulkanTest, public ::testing::WithParamInterface<std::tuple<Shape, DeltaLayout, bool>> {};

TEST_P(VkCrowdTest, MatchesBatchAndCpuReference) {
  MORPHKIT_REQUIRE_GPU(context_);
  const auto [shape, layout, skinned] = GetParam();
  const PrimitiveData p = crowdPrimitive(shape, skinned);
  GpuUploadOptions upload;
  upload.layout = layout;
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, upload);
  ASSERT_TRUE(gp) << gp.error().message;
  const uint32_t instances = 37, joints = 6, targets = uint32_t(p.targets.size());
  const Crowd c = makeCrowd(instances, targets, skinned, joints, 0);
  const std::vector<std::vector<float>> crowd = runCrowd(*context_, *gp, c, skinned, joints);
  ASSERT_EQ(crowd.size(), instances);
  // The per-instance kernel over the same instances, in one batch.
  std::vector<GpuInstanceDesc> descs(instances, GpuInstanceDesc{*gp, skinned, skinned ? joints : 0});
  Expected<GpuMorphGroup*> batch = createGpuMorphGroup(*context_, descs);
  ASSERT_TRUE(batch) << batch.error().message;
  GpuMorphJob job{context_, *batch, c.states};
  ASSERT_TRUE(job.run());
  const GpuPrimitiveInfo& info = gpuPrimitiveInfo(**gp);
  const F16DeltaError f16 = f16DeltaError(p);
  for (uint32_t i = 0; i < instances; ++i) {
    const std::string what = std::string(deltaLayoutName(layout)) + " instance " + std::to_string(i);
    PrimitiveData got;
    unpackVertices(info.vertex, info.vertex_count, crowd[i].data(), got);
    Expected<PrimitiveData> per_instance = readGpuMorphGroupVertices(*context_, **batch, i);
    ASSERT_TRUE(per_instance);
    const PrimitiveData cpu = cpuReference(p, c.weights[i], c.palettes[i], c.states[i].world);
    const float diagonal = std::max(bboxDiagonal(cpu.position), 1e-6f);
    expectClose(got, *per_instance, {1e-6f * diagonal, 2e-6f, 1e-6f}, what + " vs GpuMorphJob");
    Tolerance vs_cpu{1e-5f * diagonal, 1e-4f, 1e-5f};
    if (layout == DeltaLayout::kDenseF16) {
      float sum = 0.0f;
      for (float w : c.weights[i]) sum += std::fabs(w);
      vs_cpu.position += sum * f16.max_abs_position * std::sqrt(3.0f) * 1.5f;
      vs_cpu.unit += 2.0f * sum * std::max(f16.max_abs_normal, f16.max_abs_tangent) * std::sqrt(3.0f) * 4.0f;
      vs_cpu.extra += sum * f16.max_abs_extra;
    }
    expectClose(got, cpu, vs_cpu, what + " vs CPU");
  }
  destroyGpuMorphGroup(*context_, *batch);
  destroyGpuPrimitive(*context_, *gp);
}

INSTANTIATE_TEST_SUITE_P(Shapes, VkCrowdTest,
                         ::testing::Values(std::make_tuple(Shape::kPositionNormal, DeltaLayout::kDenseF32, true),
                                           std::make_tuple(Shape::kPositionNormal, DeltaLayout::kDenseF16, true),
                                           std::make_tuple(Shape::kAllAttributes, DeltaLayout::kDenseF32, true),
                                           std::make_tuple(Shape::kAllAttributes, DeltaLayout::kDenseF16, false)),
                         [](const auto& param_info) {
                           return std::string(std::get<0>(param_info.param) == Shape::kPositionNormal ? "pn_"
                                                                                                      : "all_") +
                                  deltaLayoutName(std::get<1>(param_info.param)) +
                                  (std::get<2>(param_info.param) ? "_skinned" : "_rigid");
                         });

// The tuning changes which instances share a workgroup and where a record is read from, never a bit of any
// instance's output: one group of all 37 instances (the default), groups of 5 (a partial last group) and of 8, 4 rows
// instead of the default, and shared-memory budgets of one slot (every other record from memory), three, and the
// default, over two frames with different active sets, and a crowd of a single instance. f16 records of an even
// stride are staged as stored (two halves a word: a budget holds twice the slots of f32), odd strides as floats.
TEST_F(VulkanTest, CrowdTuningDoesNotChangeBits) {
  MORPHKIT_REQUIRE_GPU(context_);
  // Both record strides and both layouts, crossed: each pair compiles five crowd pipelines (about 11 s under ASan
  // on lavapipe), so the two other pairings are left out.
  for (const auto& [shape, layout] : {std::pair{Shape::kPositionNormal, DeltaLayout::kDenseF32},
                                      std::pair{Shape::kAllAttributes, DeltaLayout::kDenseF16}}) {
    const PrimitiveData p = crowdPrimitive(shape, true, 70);  // 70 targets: more than the budget stages
    GpuUploadOptions upload;
    upload.layout = layout;
    Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, upload);
    ASSERT_TRUE(gp) << gp.error().message;
    const uint32_t stride = gpuPrimitiveInfo(**gp).delta.stride;
    const uint32_t words = layout == DeltaLayout::kDenseF16 && stride % 2 == 0 ? stride / 2 : stride;
    constexpr uint32_t kTile = 32;  // the crowd's vertex tile (GpuCrowdInfo::tile_vertices)
    const uint64_t slot_bytes = uint64_t(words) * 4 * kTile;
    const std::vector<GpuCrowdTuning> tunings = {{0, 0, 0}, {5, 0, 0}, {0, 4, slot_bytes}, {8, 0, 3 * slot_bytes}};
    std::vector<GpuCrowd*> crowds;  // one pipeline each (the slow part on lavapipe), reused over the frames
    for (const GpuCrowdTuning& tuning : tunings) {
      Expected<GpuCrowd*> crowd = createGpuCrowd(*context_, {*gp, 37, true, 6}, tuning);
      ASSERT_TRUE(crowd) << crowd.error().message;
      const GpuCrowdInfo& info = gpuCrowdInfo(**crowd);
      EXPECT_EQ(info.group_size, tuning.group_size == 0 ? 37u : tuning.group_size);
      EXPECT_EQ(info.tile_vertices, kTile);
      EXPECT_EQ(info.shared_bytes, uint64_t(info.slots) * slot_bytes) << "stride " << stride;
      if (tuning.shared_budget > 0) {
        EXPECT_EQ(info.slots, tuning.shared_budget / slot_bytes);
      }
      EXPECT_LT(info.slots, 70u);
      crowds.push_back(*crowd);
    }
    Expected<GpuCrowd*> single = createGpuCrowd(*context_, {*gp, 1, true, 6});
    ASSERT_TRUE(single) << single.error().message;
    for (uint32_t frame = 0; frame < 2; ++frame) {
      const Crowd c = makeCrowd(37, 70, true, 6, frame);
      const std::vector<std::vector<float>> first = runCrowd(*context_, crowds[0], c);
      ASSERT_EQ(first.size(), 37u);
      for (size_t k = 1; k < crowds.size(); ++k) {
        const std::vector<std::vector<float>> other = runCrowd(*context_, crowds[k], c);
        ASSERT_EQ(other.size(), 37u);
        for (uint32_t i = 0; i < 37; ++i) {
          EXPECT_EQ(std::memcmp(other[i].data(), first[i].data(), 4 * first[i].size()), 0)
              << deltaLayoutName(layout) << " stride " << stride << " tuning " << k << " frame " << frame
              << " instance " << i;
        }
      }
      Crowd alone;
      alone.states = {c.states[9]};
      const std::vector<std::vector<float>> out = runCrowd(*context_, *single, alone);
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(std::memcmp(out[0].data(), first[9].data(), 4 * first[9].size()), 0)
          << "a crowd of one, frame " << frame;
    }
    for (GpuCrowd* crowd : crowds) destroyGpuCrowd(*context_, crowd);
    destroyGpuCrowd(*context_, *single);
    destroyGpuPrimitive(*context_, *gp);
  }
}

// A primitive without morph targets: the crowd only skins (no union, no delta buffer), still matching the CPU.
TEST_F(VulkanTest, CrowdOfAPrimitiveWithoutTargetsSkinsOnly) {
  MORPHKIT_REQUIRE_GPU(context_);
  PrimitiveData p = crowdPrimitive(Shape::kPositionNormal, true, 1);
  p.targets.clear();
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, {.layout = DeltaLayout::kDenseF32});
  ASSERT_TRUE(gp) << gp.error().message;
  const Crowd c = makeCrowd(3, 0, true, 6, 0);
  const std::vector<std::vector<float>> out = runCrowd(*context_, *gp, c, true, 6);
  ASSERT_EQ(out.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    PrimitiveData got;
    unpackVertices(gpuPrimitiveInfo(**gp).vertex, p.vertex_count, out[i].data(), got);
    const PrimitiveData cpu = cpuReference(p, {}, c.palettes[i], DMat4{});
    expectClose(got, cpu, {1e-5f * bboxDiagonal(cpu.position), 1e-4f, 1e-5f}, "instance " + std::to_string(i));
  }
  destroyGpuPrimitive(*context_, *gp);
}

TEST_F(VulkanTest, CrowdBadArgumentsFailClearly) {
  MORPHKIT_REQUIRE_GPU(context_);
  const PrimitiveData p = crowdPrimitive(Shape::kPositionNormal, true, 4);
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, {.layout = DeltaLayout::kDenseF32});
  ASSERT_TRUE(gp);
  Expected<GpuPrimitive*> sparse = uploadGpuPrimitive(*context_, p, {.layout = DeltaLayout::kSparse});
  ASSERT_TRUE(sparse);
  Expected<GpuPrimitive*> snorm = uploadGpuPrimitive(*context_, p, {.layout = DeltaLayout::kDenseSnorm16});
  ASSERT_TRUE(snorm);
  auto refused = [&](const GpuCrowdDesc& d, Error code, const std::string& needle) {
    Expected<GpuCrowd*> c = createGpuCrowd(*context_, d);
    ASSERT_FALSE(c) << needle;
    EXPECT_EQ(c.error().code, code) << c.error().message;
    EXPECT_NE(c.error().message.find(needle), std::string::npos) << c.error().message;
  };
  refused({nullptr, 3, true, 6}, Error::kInvalidArgument, "no primitive");
  refused({*gp, 0, true, 6}, Error::kInvalidArgument, "instance_count is 0");
  refused({*sparse, 3, true, 6}, Error::kInvalidArgument, "sparse");
  refused({*snorm, 3, true, 6}, Error::kInvalidArgument, "deltas are dense_snorm16");  // crowd.comp reads f32/f16 only
  refused({*gp, 3, true, 1}, Error::kInvalidArgument, "1 joints");
  refused({*gp, 4000000000u, true, 6}, Error::kTooLarge, "4000000000 instances");  // checked before allocating
  {
    Expected<GpuCrowd*> c = createGpuCrowd(*context_, {*gp, 3, true, 6}, {0, 64, 0});
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, Error::kTooLarge);
    EXPECT_NE(c.error().message.find("rows 64 needs 2048 invocations"), std::string::npos) << c.error().message;
  }
  {  // any group size: the instances that share one staging of a tile
    Expected<GpuCrowd*> big = createGpuCrowd(*context_, {*gp, 40, true, 6}, {33, 0, 0});
    ASSERT_TRUE(big) << big.error().message;
    EXPECT_EQ(gpuCrowdInfo(**big).group_size, 33u);
    EXPECT_EQ(gpuCrowdInfo(**big).groups, 2u);
    EXPECT_EQ(gpuCrowdInfo(**big).slots, 4u);  // every target fits
    destroyGpuCrowd(*context_, *big);
  }

  Expected<GpuCrowd*> crowd = createGpuCrowd(*context_, {*gp, 3, true, 6});
  ASSERT_TRUE(crowd) << crowd.error().message;
  Crowd c = makeCrowd(3, 4, true, 6, 0);
  auto jobFails = [&](const GpuCrowdJob& job, const std::string& needle) {
    EXPECT_FALSE(job.validate()) << needle;
    Status s = job.run();
    ASSERT_FALSE(s) << needle;
    EXPECT_EQ(s.error().code, Error::kInvalidArgument);
    EXPECT_NE(s.error().message.find(needle), std::string::npos) << s.error().message;
  };
  GpuCrowdJob job{context_, *crowd, c.states};
  EXPECT_TRUE(job.validate());
  jobFails({context_, nullptr, c.states}, "no crowd");
  jobFails({context_, *crowd, std::span(c.states).first(2)}, "2 instance states for a crowd of 3");
  const std::vector<float> five(5, 0.1f);
  c.states[1].weights = five;
  jobFails(job, "instances[1]: 5 weights, the primitive has 4 targets");
  c.states[1].weights = c.weights[1];
  c.states[2].joint_matrices = std::span(c.palettes[2]).first(5);
  jobFails(job, "instances[2]: 5 joint matrices");
  c.states[2].joint_matrices = c.palettes[2];
  job.epsilon = NAN;
  jobFails(job, "epsilon");
  job.epsilon = 0.0f;
  EXPECT_TRUE(job.run());
  Expected<std::vector<float>> out = readGpuCrowdOutput(*context_, **crowd, 3);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("out of range"), std::string::npos);
  destroyGpuCrowd(*context_, *crowd);
  destroyGpuCrowd(*context_, nullptr);
  destroyGpuPrimitive(*context_, *gp);
  destroyGpuPrimitive(*context_, *sparse);
  destroyGpuPrimitive(*context_, *snorm);
}

// A pool lent to the job prepares the frame (the per-group lists, every instance's matrices) on several threads
// and writes the same buffers: the outputs are bit-identical with and without it, over groups that split unevenly
// across the threads. The host time of the preparation is reported after a run.
TEST_F(VulkanTest, CrowdFramePreparedOnAPoolGivesTheSameBits) {
  MORPHKIT_REQUIRE_GPU(context_);
  const PrimitiveData p = crowdPrimitive(Shape::kPositionNormal, true, 70);
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, {.layout = DeltaLayout::kDenseF32});
  ASSERT_TRUE(gp) << gp.error().message;
  const Crowd c = makeCrowd(37, 70, true, 6, 1);
  ThreadPool pool(3);
  for (uint32_t group : {5u, 0u, 4u}) {
    Expected<GpuCrowd*> crowd = createGpuCrowd(*context_, {*gp, 37, true, 6}, {group, 0, 0});
    ASSERT_TRUE(crowd) << crowd.error().message;
    EXPECT_TRUE(std::isnan(lastCrowdHostMicroseconds(**crowd)));
    const std::vector<std::vector<float>> alone = runCrowd(*context_, *crowd, c);
    GpuCrowdJob job{context_, *crowd, c.states};
    job.pool = &pool;
    ASSERT_TRUE(job.run());
    EXPECT_GE(lastCrowdHostMicroseconds(**crowd), 0.0);
    for (uint32_t i = 0; i < 37; ++i) {
      Expected<std::vector<float>> pooled = readGpuCrowdOutput(*context_, **crowd, i);
      ASSERT_TRUE(pooled);
      ASSERT_EQ(alone.size(), 37u);
      EXPECT_EQ(std::memcmp(pooled->data(), alone[i].data(), 4 * alone[i].size()), 0)
          << " group " << group << " instance " << i;
    }
    destroyGpuCrowd(*context_, *crowd);
  }
  destroyGpuPrimitive(*context_, *gp);
}

// recordGpuCrowdJob in the caller's command buffer writes the bits GpuCrowdJob::run writes; gpuCrowdOutput
// describes each instance's range of the one output buffer.
TEST_F(VulkanTest, RecordedCrowdEqualsRunAndDescribesItsOutput) {
  MORPHKIT_REQUIRE_GPU(context_);
  const PrimitiveData p = crowdPrimitive(Shape::kPositionNormal, true, 6);
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, {.layout = DeltaLayout::kDenseF32});
  ASSERT_TRUE(gp);
  const Crowd c = makeCrowd(5, 6, true, 6, 3);
  const std::vector<std::vector<float>> ran = runCrowd(*context_, *gp, c, true, 6);
  ASSERT_EQ(ran.size(), 5u);
  Expected<GpuCrowd*> crowd = createGpuCrowd(*context_, {*gp, 5, true, 6});
  ASSERT_TRUE(crowd);
  test::CallerFrame frame(*context_);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  ASSERT_EQ(vkBeginCommandBuffer(frame.cmd, &begin), VK_SUCCESS);
  EXPECT_FALSE(recordGpuCrowdJob({context_, *crowd, std::span(c.states).first(4)}, frame.cmd));
  EXPECT_FALSE(recordGpuCrowdJob({context_, *crowd, c.states}, VK_NULL_HANDLE));
  ASSERT_TRUE(recordGpuCrowdJob({context_, *crowd, c.states}, frame.cmd));
  const GpuOutputSync sync = gpuOutputSync(kReadByTransfer);
  const VkBufferMemoryBarrier barrier = gpuOutputBarrier(*gpuCrowdOutput(**crowd, 0), kReadByTransfer);
  vkCmdPipelineBarrier(frame.cmd, sync.src_stage, sync.dst_stage, 0, 0, nullptr, 1, &barrier, 0, nullptr);
  ASSERT_EQ(vkEndCommandBuffer(frame.cmd), VK_SUCCESS);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &frame.cmd;
  ASSERT_EQ(vkQueueSubmit(context_->queue, 1, &submit, VK_NULL_HANDLE), VK_SUCCESS);
  ASSERT_EQ(vkQueueWaitIdle(context_->queue), VK_SUCCESS);
  for (uint32_t i = 0; i < 5; ++i) {
    Expected<std::vector<float>> out = readGpuCrowdOutput(*context_, **crowd, i);
    ASSERT_TRUE(out);
    EXPECT_EQ(std::memcmp(out->data(), ran[i].data(), 4 * ran[i].size()), 0) << "instance " << i;
    Expected<GpuOutputBuffer> range = gpuCrowdOutput(**crowd, i);
    ASSERT_TRUE(range);
    EXPECT_EQ(range->offset, i * gpuCrowdInfo(**crowd).instance_bytes);
    EXPECT_EQ(range->offset % 256, 0u);
    EXPECT_EQ(range->size, 300u * 24u);
    EXPECT_EQ(range->stride, 24u);
    EXPECT_EQ(range->normal_offset, 12u);
    EXPECT_EQ(range->tangent_offset, kLayoutAbsent);
  }
  EXPECT_FALSE(gpuCrowdOutput(**crowd, 5));
  destroyGpuCrowd(*context_, *crowd);
  destroyGpuPrimitive(*context_, *gp);
}

// The benchmark engine at a tiny size: both rows run under validation, the crowd agrees with the batch kernel on
// the compared instances, and reads fewer delta bytes than the per-instance walk.
TEST_F(VulkanTest, CrowdBenchRuns) {
  MORPHKIT_REQUIRE_GPU(context_);
  GpuCrowdBenchOptions options;
  options.instances = 20;
  options.vertices = 200;
  options.targets = 12;
  options.active = 3;
  options.joints = 8;
  options.repetitions = 1;
  options.copy_bytes = 1 << 20;
  Expected<GpuCrowdBenchReport> report = runGpuCrowdBench(*context_, options);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->rows.size(), 2u);
  const GpuCrowdBenchRow& crowd = report->rows[0];
  EXPECT_EQ(crowd.variant, "crowd");
  EXPECT_EQ(crowd.group_size, 20u);  // every instance in one group (the default group is larger)
  EXPECT_EQ(report->rows[1].variant, "batch");
  EXPECT_TRUE(std::isnan(report->rows[1].host_microseconds));
  EXPECT_EQ(report->output_bytes, 20u * 200u * 6u * 4u);
  // The batch walks each instance's own 3 targets over 256 vertex slots (four tiles of 64); the crowd stages the
  // group's targets once per 32-vertex tile (7 of them): at most the 12 targets, fewer bytes.
  EXPECT_EQ(report->rows[1].delta_read_bytes, 20u * 3u * 200u * 24u);
  EXPECT_LE(crowd.delta_read_bytes, 12u * 224u * 24u);
  EXPECT_GE(crowd.max_diff_vs_batch, 0.0);
  EXPECT_LE(crowd.max_diff_vs_batch, 1e-5);
  // Registers per invocation where the driver reports them (VK_KHR_pipeline_executable_properties; lavapipe does
  // not), else -1.
  EXPECT_TRUE(crowd.registers == -1 || crowd.registers > 0) << crowd.registers;
  EXPECT_GE(crowd.host_microseconds, 0.0);  // the frame preparation
  const std::string table = gpuCrowdBenchTable(*report);
  EXPECT_NE(table.find("crowd"), std::string::npos);
  EXPECT_NE(gpuCrowdBenchJson(*report).find("\"deltaReadBytes\""), std::string::npos);
  EXPECT_TRUE(gpuValidationMessages(*context_).empty());
}

// The CLI: `bench --crowd N` prints the crowd and batch rows; the removed kernel-tuning options are usage errors.
TEST(CrowdBenchCommand, CrowdRowsAndNoTuningKnobs) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto dir = test::scratchDir();
  test::CliRun run = test::runMorphkit(
      dir, "bench --crowd 6 --vertices 100 --targets 5 --active 2 --repetitions 1 --json --validation");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(run.out).get(root), simdjson::SUCCESS) << run.out;
  simdjson::dom::array rows = root["rows"].get_array();
  ASSERT_EQ(rows.size(), 2u) << run.out;
  EXPECT_EQ(std::string_view(rows.at(0)["variant"].get_string()), "crowd");
  EXPECT_EQ(std::string_view(rows.at(1)["variant"].get_string()), "batch");
  EXPECT_LE(double(rows.at(0)["maxDiffVsBatch"].get_double()), 1e-5);
  for (const char* knob : {"--crowd-kernel v4", "--crowd-groups 8", "--crowd-rows 8", "--copy-mib 1"}) {
    run = test::runMorphkit(dir, std::string("bench --crowd 6 ") + knob);
    EXPECT_EQ(run.exit_code, 2) << knob;
  }
}

}  // namespace
}  // namespace morphkit
