// SPDX-License-Identifier: MIT
// Crowds (morphkit/gpu_crowd.h, shaders/crowd.comp) against the per-instance paths, on lavapipe with validation on.
//
// What each comparison claims:
//   - crowd vs crowd with other group sizes, and vs a crowd of one instance: BIT-IDENTICAL (memcmp). Each
//     instance's morph sum is one `precise` fma chain over the ascending union of its group; a zero weight adds
//     exactly nothing, so sharing a group with other instances cannot change a bit.
//   - kernels v2 and v3 (crowd2.comp) vs v1 (crowd.comp): BIT-IDENTICAL (memcmp), at every group size: they compute
//     the same morphAdd chain per instance and the same skinning, origin and output calls, one instance per
//     invocation; their palettes (3×4 rows in shared memory, or the mat4s in memory when they do not fit) hold
//     the same floats, and v2's staged records are the records v3 and v1 load. Kernel v4 (crowd4.comp) likewise:
//     its staged records are copies of the loaded ones, its other records are loaded as v1 loads them.
//   - crowd vs GpuMorphJob (morph.comp, one instance per workgroup): within float tolerance, not bit-identical.
//     morph.comp sums the active targets in two interleaved partial sums and lets the driver contract w·Δ + s;
//     the crowd sums one fma chain. Bound: positions 1e-6 × the bounding-box diagonal (10× tighter than vs the
//     CPU), normals/tangents 2e-6 (a few ulps of unit vectors, after renormalization), texcoords/colors 1e-6.
//     f16 deltas are the same halves in both kernels, so the bound does not grow with the f16 error.
//   - crowd vs the CPU reference MorphSkinJob: the bounds of tests/vk_morph_test.cpp (positions 1e-5 × diagonal,
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

#include "morphkit/deform.h"
#include "morphkit/gpu_crowd.h"
#include "morphkit/gpu_interop.h"
#include "morphkit/thread_pool.h"
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
                                         uint32_t joints, uint32_t group, CrowdKernel kernel = CrowdKernel::kV1) {
  GpuCrowdDesc desc{gp, uint32_t(c.states.size()), skinned, skinned ? joints : 0, group, kernel};
  Expected<GpuCrowd*> crowd = createGpuCrowd(context, desc);
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
  const std::vector<std::vector<float>> crowd = runCrowd(*context_, *gp, c, skinned, joints, 0);
  ASSERT_EQ(crowd.size(), instances);
  // Kernels v2, v3 and v4 at their default group size: the same bits as v1, so every bound below holds for all.
  for (CrowdKernel kernel : {CrowdKernel::kV2, CrowdKernel::kV3, CrowdKernel::kV4}) {
    const std::vector<std::vector<float>> other = runCrowd(*context_, *gp, c, skinned, joints, 0, kernel);
    ASSERT_EQ(other.size(), instances);
    for (uint32_t i = 0; i < instances; ++i) {
      EXPECT_EQ(std::memcmp(other[i].data(), crowd[i].data(), 4 * crowd[i].size()), 0)
          << crowdKernelName(kernel) << " vs v1, instance " << i;
    }
  }

  // The per-instance kernel over the same instances, in one batch.
  std::vector<GpuInstanceDesc> descs(instances, GpuInstanceDesc{*gp, skinned, skinned ? joints : 0});
  Expected<GpuBatch*> batch = createGpuBatch(*context_, descs);
  ASSERT_TRUE(batch) << batch.error().message;
  GpuMorphJob job{context_, *batch, c.states};
  ASSERT_TRUE(job.run());
  const GpuPrimitiveInfo& info = gpuPrimitiveInfo(**gp);
  const F16DeltaError f16 = f16DeltaError(p);
  for (uint32_t i = 0; i < instances; ++i) {
    const std::string what = std::string(deltaLayoutName(layout)) + " instance " + std::to_string(i);
    PrimitiveData got;
    unpackVertices(info.vertex, info.vertex_count, crowd[i].data(), got);
    Expected<PrimitiveData> per_instance = readGpuBatchVertices(*context_, **batch, i);
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
  destroyGpuBatch(*context_, *batch);
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

// The group size changes which instances share a workgroup, never a bit of any instance's output: group sizes
// 1 (one instance at a time), 5 (a partial last group, position + normal only) and the default (16 and 4: partial
// too), over two frames with different active sets (the unions grow and shrink), and a crowd of a single instance.
TEST_F(VulkanTest, CrowdGroupSizeDoesNotChangeBits) {
  MORPHKIT_REQUIRE_GPU(context_);
  for (Shape shape : {Shape::kPositionNormal, Shape::kAllAttributes}) {
    const PrimitiveData p = crowdPrimitive(shape, true, 70);  // 70 targets: more than one shared-memory slice
    GpuUploadOptions upload;
    upload.layout = DeltaLayout::kDenseF32;
    Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, upload);
    ASSERT_TRUE(gp) << gp.error().message;
    // One crowd per group size (one pipeline each, the slow part on lavapipe), reused over the frames.
    const std::vector<uint32_t> groups =
        shape == Shape::kPositionNormal ? std::vector<uint32_t>{1, 5, 0} : std::vector<uint32_t>{1, 0};
    std::vector<GpuCrowd*> crowds;
    for (uint32_t group : groups) {
      Expected<GpuCrowd*> crowd = createGpuCrowd(*context_, {*gp, 37, true, 6, group, CrowdKernel::kV1});
      ASSERT_TRUE(crowd) << crowd.error().message;
      crowds.push_back(*crowd);
    }
    EXPECT_EQ(gpuCrowdInfo(*crowds.back()).group_size, shape == Shape::kPositionNormal ? 16u : 4u);
    // Kernels v2 and v3 at their default (16 warps for both shapes, palettes staged; 70 targets: several slices)
    // and at a size with a partial last group, compared with v1 one instance at a time.
    const bool pn = shape == Shape::kPositionNormal;
    for (const auto& [kernel, group] : {std::pair{CrowdKernel::kV2, 0u}, std::pair{CrowdKernel::kV2, pn ? 5u : 3u},
                                        std::pair{CrowdKernel::kV3, pn ? 0u : 3u}}) {
      Expected<GpuCrowd*> crowd = createGpuCrowd(*context_, {*gp, 37, true, 6, group, kernel});
      ASSERT_TRUE(crowd) << crowd.error().message;
      crowds.push_back(*crowd);
      if (group == 0) {
        EXPECT_EQ(gpuCrowdInfo(**crowd).group_size, 16u);
      }
      EXPECT_TRUE(gpuCrowdInfo(**crowd).palette_shared);
      EXPECT_LT(gpuCrowdInfo(**crowd).slice, 70u);
    }
    // Kernel v4 in one group (the default, 37 instances), in groups of 5 (a partial last group) and one instance at
    // a time. Lavapipe's 32 KiB of shared memory stage fewer than the 70 targets, so instances read some records
    // from shared memory and the others from memory.
    for (uint32_t group : {0u, 5u, 1u}) {
      Expected<GpuCrowd*> crowd = createGpuCrowd(*context_, {*gp, 37, true, 6, group, CrowdKernel::kV4});
      ASSERT_TRUE(crowd) << crowd.error().message;
      crowds.push_back(*crowd);
      EXPECT_EQ(gpuCrowdInfo(**crowd).group_size, group == 0 ? 37u : group);
      EXPECT_GE(gpuCrowdInfo(**crowd).slots, 1u);
      EXPECT_LT(gpuCrowdInfo(**crowd).slots, 70u);
    }
    Expected<GpuCrowd*> single = createGpuCrowd(*context_, {*gp, 1, true, 6});  // the default kernel, v4
    ASSERT_TRUE(single) << single.error().message;
    for (uint32_t frame = 0; frame < 2; ++frame) {
      const Crowd c = makeCrowd(37, 70, true, 6, frame);
      const std::vector<std::vector<float>> one = runCrowd(*context_, crowds[0], c);
      ASSERT_EQ(one.size(), 37u);
      for (size_t k = 1; k < crowds.size(); ++k) {
        const std::vector<std::vector<float>> grouped = runCrowd(*context_, crowds[k], c);
        ASSERT_EQ(grouped.size(), 37u);
        for (uint32_t i = 0; i < 37; ++i) {
          EXPECT_EQ(std::memcmp(grouped[i].data(), one[i].data(), 4 * one[i].size()), 0)
              << crowdKernelName(gpuCrowdInfo(*crowds[k]).kernel) << " group " << gpuCrowdInfo(*crowds[k]).group_size
              << " frame " << frame << " instance " << i;
        }
      }
      Crowd alone;
      alone.states = {c.states[9]};
      const std::vector<std::vector<float>> out = runCrowd(*context_, *single, alone);
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(std::memcmp(out[0].data(), one[9].data(), 4 * one[9].size()), 0) << "a crowd of one, frame " << frame;
    }
    for (GpuCrowd* crowd : crowds) destroyGpuCrowd(*context_, crowd);
    destroyGpuCrowd(*context_, *single);
    destroyGpuPrimitive(*context_, *gp);
  }
}

// v4 stages f16 records of an even stride as stored (two halves a word, so a budget holds twice the slots of f32)
// and odd strides as floats; either way the instances get v1's bits, from shared memory and from memory (a budget
// smaller than the targets).
TEST_F(VulkanTest, Crowd4StagesHalvesOfEvenF16RecordsWithV1Bits) {
  MORPHKIT_REQUIRE_GPU(context_);
  for (Shape shape : {Shape::kPositionNormal, Shape::kAllAttributes}) {
    const PrimitiveData p = crowdPrimitive(shape, true);
    GpuUploadOptions upload;
    upload.layout = DeltaLayout::kDenseF16;
    Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, upload);
    ASSERT_TRUE(gp) << gp.error().message;
    const uint32_t stride = gpuPrimitiveInfo(**gp).delta.stride;
    const uint32_t words = stride % 2 == 0 ? stride / 2 : stride;
    constexpr uint32_t kTile = 32;  // v4's vertex tile (GpuCrowdInfo::tile_vertices)
    const Crowd c = makeCrowd(37, uint32_t(p.targets.size()), true, 6, 1);
    const std::vector<std::vector<float>> v1 = runCrowd(*context_, *gp, c, true, 6, 0, CrowdKernel::kV1);
    ASSERT_EQ(v1.size(), 37u);
    for (uint32_t slots : {3u, 0u}) {  // 3 of the 20 targets staged, then the default budget
      GpuCrowdDesc desc{*gp, 37, true, 6, 8, CrowdKernel::kV4};
      desc.shared_budget = slots * words * 4ull * kTile;
      Expected<GpuCrowd*> crowd = createGpuCrowd(*context_, desc);
      ASSERT_TRUE(crowd) << crowd.error().message;
      const GpuCrowdInfo& info = gpuCrowdInfo(**crowd);
      EXPECT_EQ(info.tile_vertices, kTile);
      EXPECT_EQ(info.shared_bytes, uint64_t(info.slots) * words * 4 * kTile) << "stride " << stride;
      if (slots > 0) {
        EXPECT_EQ(info.slots, slots) << "stride " << stride;
      }
      const std::vector<std::vector<float>> v4 = runCrowd(*context_, *crowd, c);
      ASSERT_EQ(v4.size(), 37u);
      for (uint32_t i = 0; i < 37; ++i) {
        EXPECT_EQ(std::memcmp(v4[i].data(), v1[i].data(), 4 * v1[i].size()), 0)
            << "stride " << stride << " slots " << info.slots << " instance " << i;
      }
      destroyGpuCrowd(*context_, *crowd);
    }
    destroyGpuPrimitive(*context_, *gp);
  }
}

// Kernel v2 with palettes too large for shared memory reads them from memory, with the same bits as v1; and v2 on
// a primitive without morph targets (no union) and with rigid instances.
TEST_F(VulkanTest, Crowd2PalettesFromMemoryWhenTheyDoNotFit) {
  MORPHKIT_REQUIRE_GPU(context_);
  const PrimitiveData p = crowdPrimitive(Shape::kPositionNormal, true, 9);
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, {.layout = DeltaLayout::kDenseF32});
  ASSERT_TRUE(gp) << gp.error().message;
  const uint32_t joints = 2000;  // 16 × 2000 × 48 B of palettes: more than any device's workgroup shared memory
  const Crowd c = makeCrowd(11, 9, true, joints, 1);
  const std::vector<std::vector<float>> v1 = runCrowd(*context_, *gp, c, true, joints, 1);
  ASSERT_EQ(v1.size(), 11u);
  for (CrowdKernel kernel : {CrowdKernel::kV2, CrowdKernel::kV3, CrowdKernel::kV4}) {
    Expected<GpuCrowd*> crowd = createGpuCrowd(*context_, {*gp, 11, true, joints, 0, kernel});
    ASSERT_TRUE(crowd) << crowd.error().message;
    EXPECT_FALSE(gpuCrowdInfo(**crowd).palette_shared);
    EXPECT_EQ(gpuCrowdInfo(**crowd).kernel, kernel);
    const std::vector<std::vector<float>> out = runCrowd(*context_, *crowd, c);
    destroyGpuCrowd(*context_, *crowd);
    ASSERT_EQ(out.size(), 11u);
    for (uint32_t i = 0; i < 11; ++i) {
      EXPECT_EQ(std::memcmp(out[i].data(), v1[i].data(), 4 * v1[i].size()), 0)
          << crowdKernelName(kernel) << " instance " << i;
    }
  }
  destroyGpuPrimitive(*context_, *gp);
}

// A primitive without morph targets: the crowd only skins (no union, no delta buffer), still matching the CPU.
TEST_F(VulkanTest, CrowdOfAPrimitiveWithoutTargetsSkinsOnly) {
  MORPHKIT_REQUIRE_GPU(context_);
  PrimitiveData p = crowdPrimitive(Shape::kPositionNormal, true, 1);
  p.targets.clear();
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, {.layout = DeltaLayout::kDenseF32});
  ASSERT_TRUE(gp) << gp.error().message;
  const Crowd c = makeCrowd(3, 0, true, 6, 0);
  for (CrowdKernel kernel : {CrowdKernel::kV1, CrowdKernel::kV2, CrowdKernel::kV3, CrowdKernel::kV4}) {
    const std::vector<std::vector<float>> out = runCrowd(*context_, *gp, c, true, 6, 0, kernel);
    ASSERT_EQ(out.size(), 3u);
    for (uint32_t i = 0; i < 3; ++i) {
      PrimitiveData got;
      unpackVertices(gpuPrimitiveInfo(**gp).vertex, p.vertex_count, out[i].data(), got);
      const PrimitiveData cpu = cpuReference(p, {}, c.palettes[i], DMat4{});
      expectClose(got, cpu, {1e-5f * bboxDiagonal(cpu.position), 1e-4f, 1e-5f},
                  std::string(crowdKernelName(kernel)) + " instance " + std::to_string(i));
    }
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
  refused({*gp, 3, true, 6, kMaxCrowdGroup + 1, CrowdKernel::kV1}, Error::kInvalidArgument, "group_size 33");
  refused({*gp, 4000000000u, true, 6}, Error::kTooLarge, "4000000000 instances");  // checked before allocating
  refused({*gp, 3, true, 6, 0, CrowdKernel(7)}, Error::kInvalidArgument, "kernel 7 is not a crowd kernel");
  refused({*gp, 3, true, 1, 0, CrowdKernel::kV2}, Error::kInvalidArgument, "1 joints");
  refused({*gp, 40, true, 6, kMaxCrowdGroup + 1, CrowdKernel::kV2}, Error::kInvalidArgument, "group_size 33");
  refused({*gp, 4000000000u, true, 6, 0, CrowdKernel::kV2}, Error::kTooLarge, "4000000000 instances");
  refused({*gp, 3, false, 0, 0, CrowdKernel(5)}, Error::kInvalidArgument, "kernel 5 is not a crowd kernel");
  refused({*gp, 40, true, 6, kMaxCrowdGroup + 1, CrowdKernel::kV3}, Error::kInvalidArgument, "group_size 33");
  refused({*gp, 3, true, 1, 0, CrowdKernel::kV4}, Error::kInvalidArgument, "1 joints");
  refused({*gp, 4000000000u, true, 6, 0, CrowdKernel::kV4}, Error::kTooLarge, "4000000000 instances");
  refused({*gp, 3, true, 6, 0, CrowdKernel::kV4, 64}, Error::kTooLarge, "rows 64 (kernel v4) needs 2048 invocations");
  {  // v4 takes any group size: the instances that share one staging of a tile
    Expected<GpuCrowd*> v4 = createGpuCrowd(*context_, {*gp, 40, true, 6, kMaxCrowdGroup + 1, CrowdKernel::kV4});
    ASSERT_TRUE(v4) << v4.error().message;
    EXPECT_EQ(gpuCrowdInfo(**v4).group_size, kMaxCrowdGroup + 1);
    EXPECT_EQ(gpuCrowdInfo(**v4).groups, 2u);
    EXPECT_EQ(gpuCrowdInfo(**v4).slots, 4u);  // every target fits
    destroyGpuCrowd(*context_, *v4);
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

// Kernel v5 (crowd5.comp, the matrix units): where the device offers VK_NV_cooperative_matrix, each instance within
// float tolerance of v1 and of the CPU reference, for f32 deltas (FP16 hi + lo) and f16 deltas, skinned and rigid,
// with target counts of one and more than four K steps (20 and 70, padded to 32 and 80), 37 instances (a partial
// 16-instance tile) and 300 vertices (a partial 16-vertex tile); a non-finite delta refused. Elsewhere (lavapipe)
// the kernel is refused, naming the extension. Either way, records with TANGENT deltas are refused first.
TEST_F(VulkanTest, Crowd5MatchesV1WithinToleranceOrIsRefusedWithoutMatrixUnits) {
  MORPHKIT_REQUIRE_GPU(context_);
  const bool units = gpuDeviceInfo(*context_).cooperative_matrix;
  {
    const PrimitiveData all = crowdPrimitive(Shape::kAllAttributes, true, 4);
    Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, all, {.layout = DeltaLayout::kDenseF32});
    ASSERT_TRUE(gp);
    Expected<GpuCrowd*> c = createGpuCrowd(*context_, {*gp, 3, true, 6, 0, CrowdKernel::kV5});
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, Error::kInvalidArgument);
    EXPECT_NE(c.error().message.find("TANGENT"), std::string::npos) << c.error().message;
    destroyGpuPrimitive(*context_, *gp);
  }
  for (const uint32_t targets : {20u, 70u}) {
    for (const DeltaLayout layout : {DeltaLayout::kDenseF32, DeltaLayout::kDenseF16}) {
      for (const bool skinned : {true, false}) {
        const std::string what =
            std::string(deltaLayoutName(layout)) + (skinned ? " skinned " : " rigid ") + std::to_string(targets);
        const PrimitiveData p = crowdPrimitive(Shape::kPositionNormal, skinned, targets);
        Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, {.layout = layout});
        ASSERT_TRUE(gp) << gp.error().message;
        const uint32_t instances = 37, joints = 6;
        const Crowd c = makeCrowd(instances, targets, skinned, joints, 3);
        if (!units) {
          Expected<GpuCrowd*> refused =
              createGpuCrowd(*context_, {*gp, instances, skinned, skinned ? joints : 0, 0, CrowdKernel::kV5});
          ASSERT_FALSE(refused) << what;
          EXPECT_EQ(refused.error().code, Error::kInvalidArgument);
          EXPECT_NE(refused.error().message.find("VK_NV_cooperative_matrix"), std::string::npos)
              << refused.error().message;
          destroyGpuPrimitive(*context_, *gp);
          continue;
        }
        const std::vector<std::vector<float>> v1 = runCrowd(*context_, *gp, c, skinned, joints, 0);
        const std::vector<std::vector<float>> v5 = runCrowd(*context_, *gp, c, skinned, joints, 0, CrowdKernel::kV5);
        ASSERT_EQ(v5.size(), instances) << what;
        const GpuPrimitiveInfo& info = gpuPrimitiveInfo(**gp);
        for (uint32_t i = 0; i < instances; ++i) {
          PrimitiveData got, want;
          unpackVertices(info.vertex, info.vertex_count, v5[i].data(), got);
          unpackVertices(info.vertex, info.vertex_count, v1[i].data(), want);
          const PrimitiveData cpu = cpuReference(p, c.weights[i], c.palettes[i], c.states[i].world);
          const float diagonal = std::max(bboxDiagonal(cpu.position), 1e-6f);
          // v1's bound against GpuMorphJob, times four: v5's operands carry 22 bits (FP16 hi + lo) and the matrix
          // units sum in their own order.
          expectClose(got, want, {4e-6f * diagonal, 8e-6f, 4e-6f},
                      what + " instance " + std::to_string(i) + " v5 vs v1");
        }
        destroyGpuPrimitive(*context_, *gp);
      }
    }
  }
  if (!units) return;
  {  // 200 f32 targets: a 16-vertex tile's hi and lo planes need 12 × 16 × 216 halves (81 KiB), beyond 64 KiB
    const PrimitiveData wide = crowdPrimitive(Shape::kPositionNormal, true, 200);
    Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, wide, {.layout = DeltaLayout::kDenseF32});
    ASSERT_TRUE(gp) << gp.error().message;
    Expected<GpuCrowd*> refused = createGpuCrowd(*context_, {*gp, 3, true, 6, 0, CrowdKernel::kV5});
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, Error::kTooLarge);
    EXPECT_NE(refused.error().message.find("bytes of shared memory"), std::string::npos) << refused.error().message;
    destroyGpuPrimitive(*context_, *gp);
  }
  PrimitiveData bad = crowdPrimitive(Shape::kPositionNormal, true, 4);
  bad.targets[2].position[7] = INFINITY;
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, bad, {.layout = DeltaLayout::kDenseF32});
  ASSERT_TRUE(gp) << gp.error().message;
  Expected<GpuCrowd*> refused = createGpuCrowd(*context_, {*gp, 3, true, 6, 0, CrowdKernel::kV5});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("not finite"), std::string::npos) << refused.error().message;
  destroyGpuPrimitive(*context_, *gp);
}

// A pool lent to the job prepares the frame (v4's per-group lists, every instance's matrices) on several threads
// and writes the same buffers: the outputs are bit-identical with and without it, for v4 and v1, over groups
// that split unevenly across the threads. The host time of the preparation is reported after a run.
TEST_F(VulkanTest, CrowdFramePreparedOnAPoolGivesTheSameBits) {
  MORPHKIT_REQUIRE_GPU(context_);
  const PrimitiveData p = crowdPrimitive(Shape::kPositionNormal, true, 70);
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, {.layout = DeltaLayout::kDenseF32});
  ASSERT_TRUE(gp) << gp.error().message;
  const Crowd c = makeCrowd(37, 70, true, 6, 1);
  ThreadPool pool(3);
  for (const auto& [kernel, group] :
       {std::pair{CrowdKernel::kV4, 5u}, std::pair{CrowdKernel::kV4, 0u}, std::pair{CrowdKernel::kV1, 4u}}) {
    Expected<GpuCrowd*> crowd = createGpuCrowd(*context_, {*gp, 37, true, 6, group, kernel});
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
          << crowdKernelName(kernel) << " group " << group << " instance " << i;
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
  const std::vector<std::vector<float>> ran = runCrowd(*context_, *gp, c, true, 6, 0);
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

// The benchmark engine at a tiny size: every row runs under validation, the crowd agrees with the batch kernel
// on the compared instances, and each group reads fewer delta bytes than the per-instance walk.
TEST_F(VulkanTest, CrowdBenchRuns) {
  MORPHKIT_REQUIRE_GPU(context_);
  GpuCrowdBenchOptions options;
  options.instances = 20;
  options.vertices = 200;
  options.targets = 12;
  options.active = 3;
  options.joints = 8;
  options.groups = {1, 8};
  options.repetitions = 1;
  options.copy_bytes = 1 << 20;
  Expected<GpuCrowdBenchReport> report = runGpuCrowdBench(*context_, options);
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->rows.size(), 9u);  // kernels v1, v2, v3, v4 (the default) × groups 1 and 8, then the batch
  EXPECT_EQ(report->rows[0].variant, "crowd_g1");
  EXPECT_EQ(report->rows[1].variant, "crowd_g8");
  EXPECT_EQ(report->rows[2].variant, "crowd2_g1");
  EXPECT_EQ(report->rows[3].variant, "crowd2_g8");
  EXPECT_EQ(report->rows[4].variant, "crowd3_g1");
  EXPECT_EQ(report->rows[5].variant, "crowd3_g8");
  EXPECT_EQ(report->rows[6].variant, "crowd4_g1");
  EXPECT_EQ(report->rows[7].variant, "crowd4_g8");
  EXPECT_EQ(report->rows[8].variant, "batch");
  EXPECT_TRUE(std::isnan(report->rows[8].host_microseconds));
  EXPECT_EQ(report->output_bytes, 20u * 200u * 6u * 4u);
  // g1 walks exactly each instance's own targets (the batch kernel's reads, with whole tiles); g8 shares them.
  EXPECT_EQ(report->rows[0].delta_read_bytes, 20u * 3u * 256u * 24u);
  EXPECT_LT(report->rows[1].delta_read_bytes, report->rows[0].delta_read_bytes);
  // v2 walks the same unions over 128-vertex workgroups (two here, 256 vertex slots as v1's four tiles of 64).
  EXPECT_EQ(report->rows[2].delta_read_bytes, report->rows[0].delta_read_bytes);
  EXPECT_EQ(report->rows[3].delta_read_bytes, report->rows[1].delta_read_bytes);
  // v4 stages, per 32-vertex tile (7 of them) and group, the group's targets: one instance's 3 at g1, fewer than
  // 8 × 3 at g8 (every target fits the shared memory here).
  EXPECT_EQ(report->rows[6].delta_read_bytes, 20u * 3u * 224u * 24u);
  EXPECT_LT(report->rows[7].delta_read_bytes, report->rows[6].delta_read_bytes);
  for (size_t k = 0; k < 8; ++k) {
    EXPECT_GE(report->rows[k].max_diff_vs_batch, 0.0);
    EXPECT_LE(report->rows[k].max_diff_vs_batch, 1e-5);
    EXPECT_EQ(report->rows[k].same_bits_as_v1, k < 2 ? -1 : 1) << report->rows[k].variant;
    // Registers per invocation where the driver reports them (VK_KHR_pipeline_executable_properties; lavapipe does
    // not), else -1; the same for every row of one device.
    EXPECT_TRUE(report->rows[k].registers == -1 || report->rows[k].registers > 0) << report->rows[k].registers;
    EXPECT_EQ(report->rows[k].registers < 0, report->rows[0].registers < 0);
    EXPECT_GE(report->rows[k].host_microseconds, 0.0) << report->rows[k].variant;  // a crowd's frame preparation
  }
  const std::string table = gpuCrowdBenchTable(*report);
  EXPECT_NE(table.find("crowd_g8"), std::string::npos);
  EXPECT_NE(table.find("crowd2_g8"), std::string::npos);
  EXPECT_NE(gpuCrowdBenchJson(*report).find("\"sameBitsAsV1\":true"), std::string::npos);
  EXPECT_NE(gpuCrowdBenchJson(*report).find("\"deltaReadBytes\""), std::string::npos);
}

// The CLI's --crowd-kernel: the chosen kernels' rows in one process, each v2/v3 row with the same bits as v1 on
// this device; an unknown kernel and --crowd-kernel without --crowd are usage errors.
TEST(CrowdBenchCommand, CrowdKernelFlagPicksTheRows) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto dir = test::scratchDir();
  test::CliRun run = test::runMorphkit(dir,
                                       "bench --crowd 6 --vertices 100 --targets 5 --active 2 --crowd-groups 4 "
                                       "--crowd-kernel v1,v3 --repetitions 1 --copy-mib 1 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(run.out).get(root), simdjson::SUCCESS) << run.out;
  simdjson::dom::array rows = root["rows"].get_array();
  ASSERT_EQ(rows.size(), 3u) << run.out;
  EXPECT_EQ(std::string_view(rows.at(0)["variant"].get_string()), "crowd_g4");
  EXPECT_EQ(std::string_view(rows.at(1)["variant"].get_string()), "crowd3_g4");
  EXPECT_EQ(std::string_view(rows.at(1)["kernel"].get_string()), "v3");
  EXPECT_TRUE(bool(rows.at(1)["sameBitsAsV1"].get_bool()));
  EXPECT_GE(uint64_t(root["crowd"]["hostThreads"].get_uint64()), 1u);
  EXPECT_GE(double(rows.at(1)["hostMicroseconds"].get_double()), 0.0);
  EXPECT_EQ(std::string_view(rows.at(2)["variant"].get_string()), "batch");
  run = test::runMorphkit(dir, "bench --crowd 6 --crowd-kernel v6");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("v6 not in {v1,v2,v3,v4,v5}"), std::string::npos) << run.err;
  // v5 runs where the device has the matrix units (its row: 6 instances round up to one 16-instance group) and is
  // refused, naming the extension, elsewhere (lavapipe).
  run = test::runMorphkit(dir,
                          "bench --crowd 6 --vertices 100 --targets 5 --active 2 --crowd-kernel v5 --repetitions 1 "
                          "--copy-mib 1 --json");
  if (run.exit_code == 0) {
    ASSERT_EQ(parser.parse(run.out).get(root), simdjson::SUCCESS) << run.out;
    EXPECT_EQ(std::string_view(root["rows"].get_array().at(0)["variant"].get_string()), "crowd5_g16") << run.out;
    EXPECT_TRUE(bool(root["device"]["cooperativeMatrix"].get_bool())) << run.out;
  } else {
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_NE(run.err.find("needs VK_NV_cooperative_matrix"), std::string::npos) << run.err;
  }
  run = test::runMorphkit(dir, "bench --crowd 6 --crowd-kernel v1,v4 --crowd-groups 64");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--crowd-groups 64 exceeds 32 (kernels v1-v3"), std::string::npos) << run.err;
  // A shared budget of 0 is the default (12 KiB): "12,0" times one v4 row, not two alike.
  run = test::runMorphkit(dir,
                          "bench --crowd 6 --vertices 100 --targets 5 --active 2 --crowd-kernel v4 "
                          "--crowd-shared-kib 12,0 --repetitions 1 --copy-mib 1 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(parser.parse(run.out).get(root), simdjson::SUCCESS) << run.out;
  EXPECT_EQ(root["rows"].get_array().size(), 2u) << run.out;                // v4, then the batch
  for (const char* bad : {"--crowd-rows 33", "--crowd-shared-kib 2000"}) {  // beyond 1024 invocations / 1 MiB
    run = test::runMorphkit(dir, std::string("bench --crowd 6 --crowd-kernel v4 ") + bad);
    EXPECT_EQ(run.exit_code, 2) << bad;
    EXPECT_NE(run.err.find(std::string(bad).substr(0, std::string(bad).find(' '))), std::string::npos) << run.err;
  }
  run = test::runMorphkit(dir, "bench --crowd-rows 8");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--crowd-rows, --crowd-shared-kib and --crowd-executables need --crowd"), std::string::npos)
      << run.err;
  run = test::runMorphkit(dir, "bench --crowd-kernel v2");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--crowd-kernel needs --crowd"), std::string::npos) << run.err;
}

// --crowd-executables DIR: one report per crowd row where the driver offers VK_KHR_pipeline_executable_properties
// (the H200's does), else a message saying it reports nothing (lavapipe); the table is printed either way.
TEST(CrowdBenchCommand, CrowdExecutablesWritesTheDriversReportOrSaysThereIsNone) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  const auto dir = test::scratchDir();
  test::CliRun run = test::runMorphkit(dir,
                                       "bench --crowd 6 --vertices 100 --targets 5 --active 2 --crowd-kernel v4 "
                                       "--repetitions 1 --copy-mib 1 --crowd-executables reports");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("crowd4_g"), std::string::npos) << run.out;
  std::vector<std::filesystem::path> reports;
  if (std::filesystem::exists(dir / "reports")) {
    for (const auto& entry : std::filesystem::directory_iterator(dir / "reports")) reports.push_back(entry.path());
  }
  if (reports.empty()) {
    EXPECT_NE(run.err.find("--crowd-executables: the device reports nothing"), std::string::npos) << run.err;
  } else {
    ASSERT_EQ(reports.size(), 1u);  // the v4 row; the batch row has no crowd pipeline
    EXPECT_EQ(reports[0].filename().string().rfind("crowd4_g", 0), 0u) << reports[0];
    EXPECT_NE(test::slurp(reports[0]).find("executable 0: "), std::string::npos);
  }
  // A folder that cannot be created (a file is in the way): exit 1 before anything is timed, naming the folder.
  std::ofstream(dir / "blocker") << "not a folder";
  run = test::runMorphkit(dir,
                          "bench --crowd 6 --vertices 100 --targets 5 --active 2 --crowd-kernel v4 "
                          "--repetitions 1 --copy-mib 1 --crowd-executables blocker/reports");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("blocker/reports"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("cannot create the folder"), std::string::npos) << run.err;
  EXPECT_EQ(run.out.find("crowd4_g"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace morphkit
