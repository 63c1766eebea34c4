// SPDX-License-Identifier: MIT
// GPU morph + skin (shaders/morph.comp) against the CPU reference MorphSkinJob (morphkit/core/deform.h) and
// poseAsset (morphkit/core/pose.h). Tolerances (from shared/reference/README.md):
//   positions ≤ 1e-5 × the primitive's bounding-box diagonal, normals/tangents ≤ 1e-4 absolute;
//   f16 deltas add what f16 loses: Σ|wᵢ| × f16DeltaError().max_abs_* × √3 (× 2 for unit vectors, whose
//   renormalization can double an error) — the bound is computed per case, not hard-coded.
//   snorm16 deltas get no widening: they are held to the f32 bounds (its error, ≤ scale / 65534 per component,
//   measured at ≤ 0.15 of them on the shared models and the make-demo face; docs/PERFORMANCE.md, goal 3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "gpu_internal.h"
#include "morphkit/core/deform.h"
#include "morphkit/core/pose.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/vk/gpu_pose.h"
#include "vk_synthetic.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

using test::VulkanTest;

struct Deformed {
  std::vector<float> positions, normals, tangents, texcoord, color;
};

// The CPU reference for one instance.
Deformed cpuReference(const PrimitiveData& p, std::span<const float> weights, std::span<const DMat4> joints,
                      const DMat4& world) {
  Deformed d;
  const size_t n = p.vertex_count;
  d.positions.assign(3 * n, NAN);
  if (!p.normal.empty()) d.normals.assign(3 * n, NAN);
  if (!p.tangent.empty()) d.tangents.assign(4 * n, NAN);
  std::vector<std::vector<float>> texcoords(p.texcoords.size(), std::vector<float>(2 * n, NAN));
  std::vector<std::vector<float>> colors(p.colors.size(), std::vector<float>(4 * n, NAN));
  std::vector<std::span<float>> tc(texcoords.begin(), texcoords.end()), co(colors.begin(), colors.end());
  MorphSkinJob job;
  job.primitive = &p;
  job.weights = weights;
  job.joint_matrices = joints;
  job.world = world;
  job.begin = 0;
  job.end = p.vertex_count;
  job.out_positions = d.positions;
  job.out_normals = d.normals;
  job.out_tangents = d.tangents;
  job.out_texcoords = tc;
  job.out_colors = co;
  EXPECT_TRUE(job.run());
  if (!texcoords.empty()) d.texcoord = texcoords[0];
  if (!colors.empty()) d.color = colors[0];
  return d;
}

float bboxDiagonal(const std::vector<float>& xyz) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < xyz.size(); ++i)
    lo[i % 3] = std::min(lo[i % 3], xyz[i]), hi[i % 3] = std::max(hi[i % 3], xyz[i]);
  if (xyz.empty()) return 0.0f;
  return std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                   (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

// Largest |a - b| (NaN anywhere counts as infinite, so unwritten output shows).
float maxDiff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  float m = 0.0f;
  for (size_t i = 0; i < a.size(); ++i) {
    const float d = std::fabs(a[i] - b[i]);
    if (!(d <= m)) m = std::isnan(d) ? INFINITY : d;
  }
  return m;
}

struct Tolerance {
  float position, unit, extra;
};

// `scale`: a bound on how much the node/joint transforms stretch a delta.
Tolerance tolerance(const PrimitiveData& p, DeltaLayout layout, std::span<const float> weights,
                    const std::vector<float>& reference_positions, float scale = 1.5f) {
  Tolerance t{1e-5f * std::max(bboxDiagonal(reference_positions), 1e-6f), 1e-4f, 1e-5f};
  if (layout == DeltaLayout::kDenseF16) {
    float sum = 0.0f;
    for (float w : weights) sum += std::fabs(w);
    const F16DeltaError e = f16DeltaError(p);
    t.position += sum * e.max_abs_position * std::sqrt(3.0f) * scale;
    t.unit += 2.0f * sum * std::max(e.max_abs_normal, e.max_abs_tangent) * std::sqrt(3.0f) * 4.0f;
    t.extra += sum * e.max_abs_extra;
  }
  return t;
}

void expectMatches(const PrimitiveData& p, DeltaLayout layout, std::span<const float> weights, const Deformed& cpu,
                   const PrimitiveData& gpu, const std::string& what) {
  const Tolerance tol = tolerance(p, layout, weights, cpu.positions);
  EXPECT_LE(maxDiff(gpu.position, cpu.positions), tol.position) << what << " positions";
  EXPECT_LE(maxDiff(gpu.normal, cpu.normals), tol.unit) << what << " normals";
  EXPECT_LE(maxDiff(gpu.tangent, cpu.tangents), tol.unit) << what << " tangents";
  if (!cpu.texcoord.empty()) {
    EXPECT_LE(maxDiff(gpu.texcoords.at(0), cpu.texcoord), tol.extra) << what << " texcoords";
  }
  if (!cpu.color.empty()) {
    EXPECT_LE(maxDiff(gpu.colors.at(0), cpu.color), tol.extra) << what << " colors";
  }
}

// Deforms `instances` copies of `p` (own weights and joints each) in one batch and checks each. `every_target`: the
// inactive targets get a weight too small to move a vertex, so the active list holds every target.
// `f32_step`: the dense f32 loop's targets per iteration (2 or 4; 0: createGpuMorphGroup's automatic choice, which is
// 4 for every mesh this small); `f16_step` the dense f16 loop's (4 or 8; 0: automatic, 8 for these one-layout
// batches).
void checkBatch(VulkanContext& context, const PrimitiveData& p, DeltaLayout layout, bool skinned, uint32_t instances,
                uint32_t active_every, bool every_target = false, uint32_t f32_step = 0, uint32_t f16_step = 0) {
  GpuUploadOptions upload;
  upload.layout = layout;
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(context, p, upload);
  ASSERT_TRUE(gp) << gp.error().message;
  EXPECT_EQ(gpuPrimitiveInfo(**gp).layout, layout);
  const uint32_t joints = 6;
  std::vector<GpuInstanceDesc> descs(instances, GpuInstanceDesc{*gp, skinned, skinned ? joints : 0});
  Expected<GpuMorphGroup*> batch = createGpuMorphGroupWithStep(context, descs, f32_step, f16_step);
  ASSERT_TRUE(batch) << batch.error().message;
  std::vector<std::vector<float>> weights(instances);
  std::vector<std::vector<DMat4>> palettes(instances);
  std::vector<GpuInstanceState> states(instances);
  for (uint32_t i = 0; i < instances; ++i) {
    weights[i] = test::syntheticWeights(uint32_t(p.targets.size()), active_every, 100 + i);
    if (every_target) {
      for (float& w : weights[i]) w = w == 0.0f ? 1e-30f : w;
    }
    states[i].weights = weights[i];
    if (skinned) {
      palettes[i] = test::syntheticJoints(joints, 200 + i);
      states[i].joint_matrices = palettes[i];
    } else {
      states[i].world = test::syntheticJoints(1, 300 + i)[0];
    }
  }
  GpuMorphJob job;
  job.context = &context;
  job.group = *batch;
  job.instances = states;
  Status s = job.run();
  ASSERT_TRUE(s) << s.error().message;
  for (uint32_t i = 0; i < instances; ++i) {
    Expected<PrimitiveData> out = readGpuMorphGroupVertices(context, **batch, i);
    ASSERT_TRUE(out) << out.error().message;
    Deformed cpu = cpuReference(p, weights[i], palettes[i], states[i].world);
    expectMatches(p, layout, weights[i], cpu, *out,
                  std::string(deltaLayoutName(layout)) + " instance " + std::to_string(i));
  }
  destroyGpuMorphGroup(context, *batch);
  destroyGpuPrimitive(context, *gp);
}

class VkMorphLayoutTest : public VulkanTest, public ::testing::WithParamInterface<std::tuple<DeltaLayout, bool>> {};

TEST_P(VkMorphLayoutTest, MatchesCpuReference) {
  MORPHKIT_REQUIRE_GPU(context_);
  const auto [layout, skinned] = GetParam();
  test::SyntheticOptions o;
  o.vertices = 300;
  o.targets = 12;
  o.influence_sets = skinned ? 2 : 0;
  checkBatch(*context_, test::syntheticPrimitive(o), layout, skinned, 3, 2);
}

INSTANTIATE_TEST_SUITE_P(Layouts, VkMorphLayoutTest,
                         ::testing::Combine(::testing::Values(DeltaLayout::kDenseF32, DeltaLayout::kDenseF16,
                                                              DeltaLayout::kDenseSnorm16, DeltaLayout::kSparse),
                                            ::testing::Bool()),
                         [](const auto& param_info) {
                           return std::string(deltaLayoutName(std::get<0>(param_info.param))) +
                                  (std::get<1>(param_info.param) ? "_skinned" : "_rigid");
                         });

// The kernel's fast loops (position + normal: f32, f16, snorm16; position only: f32) and the generic loop, each with an
// odd number of active targets (the two-targets-per-iteration tail) and more than one workgroup's slice of
// the active list (> 64 active targets staged in shared memory in turn), against the CPU reference.
enum class RecordShape { kPositionNormal, kPositionOnly, kPositionNormalTangent };

PrimitiveData shapedPrimitive(RecordShape shape, uint32_t vertices, uint32_t targets) {
  test::SyntheticOptions o;
  o.vertices = vertices;
  o.targets = targets;
  o.region = 0.5f;
  o.attributes = shape != RecordShape::kPositionOnly;
  PrimitiveData p = test::syntheticPrimitive(o);
  p.texcoords.clear();
  p.colors.clear();
  for (MorphTargetData& t : p.targets) t.texcoords.clear(), t.colors.clear();
  if (shape == RecordShape::kPositionNormal) {
    p.tangent.clear();
    for (MorphTargetData& t : p.targets) t.tangent.clear();
  }
  return p;
}

TEST_F(VulkanTest, EveryRecordShapeAndActiveListLength) {
  MORPHKIT_REQUIRE_GPU(context_);
  for (RecordShape shape :
       {RecordShape::kPositionNormal, RecordShape::kPositionOnly, RecordShape::kPositionNormalTangent}) {
    const PrimitiveData p = shapedPrimitive(shape, 100, 150);
    const Expected<DeltaFormat> f = deltaFormat(p);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->stride, shape == RecordShape::kPositionNormal ? 6u : shape == RecordShape::kPositionOnly ? 3u : 9u);
    SCOPED_TRACE("stride " + std::to_string(f->stride));
    for (DeltaLayout layout : {DeltaLayout::kDenseF32, DeltaLayout::kDenseF16, DeltaLayout::kDenseSnorm16}) {
      checkBatch(*context_, p, layout, true, 2, 1);        // 150 active: three shared-memory slices, even
      checkBatch(*context_, p, layout, false, 2, 2);       // 75 active: odd
      checkBatch(*context_, p, layout, true, 1, 2, true);  // every target walked
    }
    // The dense f32 loop at 2 targets per step (the large-dispatch pipeline): remainders 0 and 1 of each slice.
    SCOPED_TRACE("f32, 2 targets per step");
    checkBatch(*context_, p, DeltaLayout::kDenseF32, true, 2, 1, false, 2);
    checkBatch(*context_, p, DeltaLayout::kDenseF32, false, 2, 2, false, 2);
    checkBatch(*context_, p, DeltaLayout::kDenseF32, true, 1, 2, true, 2);
    // The dense f16 loop at 4 targets per step (a batch that also holds other layouts).
    SCOPED_TRACE("f16, 4 targets per step");
    checkBatch(*context_, p, DeltaLayout::kDenseF16, true, 2, 1, false, 0, 4);
    checkBatch(*context_, p, DeltaLayout::kDenseF16, false, 2, 2, false, 0, 4);
    checkBatch(*context_, p, DeltaLayout::kDenseF16, true, 1, 2, true, 0, 4);
  }
}

// The dispatch grid: every group launched, rows no wider than MORPH_MAX_GROUPS_X, fewer than y idle groups.
TEST(DispatchGrid, CoversEveryGroupWithFewIdleOnes) {
  EXPECT_EQ(dispatchGrid(0).x * dispatchGrid(0).y, 0u);
  for (uint64_t groups : {uint64_t(1), uint64_t(64), uint64_t(65535), uint64_t(65536), uint64_t(313000),
                          uint64_t(524288), uint64_t(65535) * 65535}) {
    const DispatchGrid grid = dispatchGrid(groups);
    const uint64_t launched = uint64_t(grid.x) * grid.y;
    EXPECT_LE(grid.x, uint32_t(MORPH_MAX_GROUPS_X)) << groups;
    EXPECT_LE(grid.y, uint32_t(MORPH_MAX_GROUPS_X)) << groups;
    EXPECT_GE(launched, groups) << groups;
    EXPECT_LT(launched - groups, uint64_t(grid.y)) << groups;
  }
  EXPECT_EQ(dispatchGrid(524288).x, 58255u);  // a 2 GiB copy: 9 rows, 7 idle groups (full-width rows: 65527)
}

TEST_F(VulkanTest, F32TargetsPerStepIsTwoOrFour) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<GpuMorphGroup*> batch = createGpuMorphGroupWithStep(*context_, {}, 3);
  ASSERT_FALSE(batch);
  EXPECT_EQ(batch.error().code, Error::kInvalidArgument);
  EXPECT_NE(batch.error().message.find("2 or 4"), std::string::npos) << batch.error().message;
  batch = createGpuMorphGroupWithStep(*context_, {}, 0, 5);
  ASSERT_FALSE(batch);
  EXPECT_NE(batch.error().message.find("f16 targets per step must be 4 or 8"), std::string::npos)
      << batch.error().message;
}

TEST_F(VulkanTest, ThousandTwentyFourTargets) {
  MORPHKIT_REQUIRE_GPU(context_);
  test::SyntheticOptions o;
  o.vertices = 128;
  o.targets = 1024;
  o.region = 0.1f;
  o.attributes = false;
  const PrimitiveData p = test::syntheticPrimitive(o);
  checkBatch(*context_, p, DeltaLayout::kDenseF32, true, 1, 3);        // 342 active targets
  checkBatch(*context_, p, DeltaLayout::kDenseF32, true, 1, 3, true);  // every target walked
  checkBatch(*context_, p, DeltaLayout::kSparse, true, 1, 1);
}

TEST_F(VulkanTest, BatchOfHundredInstancesOfMixedPrimitives) {
  MORPHKIT_REQUIRE_GPU(context_);
  // Three primitives (skinned dense, rigid sparse, skinned f16), 100 instances interleaved, one dispatch.
  test::SyntheticOptions a, b, c;
  a.vertices = 70, a.targets = 5, a.seed = 11;
  b.vertices = 130, b.targets = 9, b.influence_sets = 0, b.seed = 12;
  c.vertices = 64, c.targets = 3, c.influence_sets = 1, c.seed = 13;
  const PrimitiveData prims[3] = {test::syntheticPrimitive(a), test::syntheticPrimitive(b),
                                  test::syntheticPrimitive(c)};
  const DeltaLayout layouts[3] = {DeltaLayout::kDenseF32, DeltaLayout::kSparse, DeltaLayout::kDenseF16};
  GpuPrimitive* gpu[3] = {};
  for (int k = 0; k < 3; ++k) {
    GpuUploadOptions upload;
    upload.layout = layouts[k];
    Expected<GpuPrimitive*> up = uploadGpuPrimitive(*context_, prims[k], upload);
    ASSERT_TRUE(up) << up.error().message;
    gpu[k] = *up;
  }
  const uint32_t count = 100;
  std::vector<GpuInstanceDesc> descs;
  for (uint32_t i = 0; i < count; ++i) descs.push_back({gpu[i % 3], i % 3 != 1, i % 3 != 1 ? 6u : 0u});
  Expected<GpuMorphGroup*> batch = createGpuMorphGroup(*context_, descs);
  ASSERT_TRUE(batch) << batch.error().message;
  std::vector<std::vector<float>> weights(count);
  std::vector<std::vector<DMat4>> palettes(count);
  std::vector<GpuInstanceState> states(count);
  for (uint32_t i = 0; i < count; ++i) {
    weights[i] = test::syntheticWeights(uint32_t(prims[i % 3].targets.size()), 1 + i % 2, 1000 + i);
    states[i].weights = weights[i];
    if (i % 3 != 1) {
      palettes[i] = test::syntheticJoints(6, 2000 + i);
      states[i].joint_matrices = palettes[i];
    } else {
      states[i].world = test::syntheticJoints(1, 3000 + i)[0];
    }
  }
  GpuMorphJob job{context_, *batch, states};
  Status s = job.run();
  ASSERT_TRUE(s) << s.error().message;
  for (uint32_t i = 0; i < count; ++i) {
    Expected<PrimitiveData> out = readGpuMorphGroupVertices(*context_, **batch, i);
    ASSERT_TRUE(out);
    const PrimitiveData& p = prims[i % 3];
    expectMatches(p, layouts[i % 3], weights[i], cpuReference(p, weights[i], palettes[i], states[i].world), *out,
                  "instance " + std::to_string(i));
  }
  destroyGpuMorphGroup(*context_, *batch);
  for (GpuPrimitive* g : gpu) destroyGpuPrimitive(*context_, g);
}

TEST_F(VulkanTest, ZeroActiveTargetsAndIncrementalUpdates) {
  MORPHKIT_REQUIRE_GPU(context_);
  test::SyntheticOptions o;
  o.vertices = 200;
  o.targets = 16;
  const PrimitiveData p = test::syntheticPrimitive(o);
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, {});
  ASSERT_TRUE(gp);
  GpuInstanceDesc desc{*gp, true, 6};
  Expected<GpuMorphGroup*> batch = createGpuMorphGroup(*context_, std::span(&desc, 1));
  ASSERT_TRUE(batch);
  const std::vector<DMat4> palette = test::syntheticJoints(6, 5);
  // Frame sequence: zero weights; weights under epsilon; many active; fewer active; back to zero.
  std::vector<std::vector<float>> frames = {std::vector<float>(16, 0.0f), std::vector<float>(16, 0.001f),
                                            test::syntheticWeights(16, 1, 7), test::syntheticWeights(16, 5, 8),
                                            std::vector<float>(16, 0.0f)};
  const uint32_t expected_active[] = {0, 0, 16, 4, 0};
  for (size_t f = 0; f < frames.size(); ++f) {
    GpuInstanceState state;
    state.weights = frames[f];
    state.joint_matrices = palette;
    GpuMorphJob job{context_, *batch, std::span(&state, 1)};
    job.epsilon = 0.01f;
    Status s = job.run();
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(lastActiveCount(**batch, 0), expected_active[f]) << "frame " << f;
    // The reference sees the weights the epsilon keeps.
    std::vector<float> kept = frames[f];
    for (float& w : kept) w = std::fabs(w) > 0.01f ? w : 0.0f;
    Expected<PrimitiveData> out = readGpuMorphGroupVertices(*context_, **batch, 0);
    ASSERT_TRUE(out);
    expectMatches(p, gpuPrimitiveInfo(**gp).layout, kept, cpuReference(p, kept, palette, Mat4{}), *out,
                  "frame " + std::to_string(f));
  }
  destroyGpuMorphGroup(*context_, *batch);
  destroyGpuPrimitive(*context_, *gp);
}

TEST_F(VulkanTest, InvalidJobsAreRefused) {
  MORPHKIT_REQUIRE_GPU(context_);
  test::SyntheticOptions o;
  o.vertices = 10;
  o.targets = 2;
  const PrimitiveData p = test::syntheticPrimitive(o);
  Expected<GpuPrimitive*> gp = uploadGpuPrimitive(*context_, p, {});
  ASSERT_TRUE(gp);
  // Too few joints for the primitive's joint indices.
  GpuInstanceDesc few{*gp, true, 1};
  Expected<GpuMorphGroup*> bad = createGpuMorphGroup(*context_, std::span(&few, 1));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Error::kInvalidArgument);
  GpuInstanceDesc desc{*gp, true, 6};
  Expected<GpuMorphGroup*> batch = createGpuMorphGroup(*context_, std::span(&desc, 1));
  ASSERT_TRUE(batch);
  const std::vector<float> weights(2, 0.5f), wrong_weights(3, 0.5f);
  const std::vector<DMat4> palette(6), short_palette(5);
  GpuInstanceState state{weights, palette, {}};
  EXPECT_FALSE(GpuMorphJob{}.validate());
  GpuMorphJob job{context_, *batch, std::span(&state, 1)};
  EXPECT_TRUE(job.validate());
  state.weights = wrong_weights;
  EXPECT_FALSE(job.validate());
  Status s = job.run();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, Error::kInvalidArgument);
  state.weights = weights;
  state.joint_matrices = short_palette;
  EXPECT_FALSE(job.validate());
  job.epsilon = -1.0f;
  state.joint_matrices = palette;
  EXPECT_FALSE(job.validate());
  destroyGpuMorphGroup(*context_, *batch);
  destroyGpuPrimitive(*context_, *gp);
}

// Every shared model, rest pose + each animation at the reference times (shared/reference/README.md):
// GPU (default layout choice, and each forced layout for morph models) vs the CPU reference poseAsset.
TEST_F(VulkanTest, SharedModelsMatchCpuPose) {
  MORPHKIT_REQUIRE_SHARED();
  MORPHKIT_REQUIRE_GPU(context_);
  size_t models = 0;
  for (const std::filesystem::path& file : test::sharedModelFiles()) {
    Expected<Asset> asset = loadAsset(file);
    if (!asset) continue;  // invalid-on-purpose files are the loader tests' business
    Expected<PosePrepared> prepared = preparePose(*asset);
    if (!prepared) continue;
    ++models;
    const bool big = std::any_of(prepared->primitives.begin(), prepared->primitives.end(),
                                 [](const PrimitiveData& d) { return d.vertex_count > 5000; });
    bool has_targets = false;
    for (const auto& d : prepared->primitives) has_targets |= !d.targets.empty();
    std::vector<std::optional<DeltaLayout>> layouts = {std::nullopt};
    if (has_targets) {
      layouts.insert(layouts.end(), {DeltaLayout::kDenseF32, DeltaLayout::kDenseF16, DeltaLayout::kDenseSnorm16,
                                     DeltaLayout::kSparse});
    }
    // The CPU reference once per case; every layout is compared with it.
    std::vector<std::pair<uint32_t, double>> cases = {{kNone, 0.0}};
    for (uint32_t a = 0; a < prepared->animations.size(); ++a) {
      const double d = prepared->animations[a].duration;
      std::vector<double> times = big ? std::vector<double>{0.37 * d, 0.81 * d, d + 0.25}
                                      : std::vector<double>{0.0, 0.37 * d, 0.5 * d, 0.81 * d, d, d + 0.25};
      for (double t : times) cases.push_back({a, t});
    }
    std::vector<PoseResult> cpu_cases;
    for (const auto& [anim, time] : cases) {
      PoseOptions cpu_options;
      cpu_options.animation = anim;
      cpu_options.time = time;
      Expected<PoseResult> cpu = evaluatePose(*prepared, cpu_options);
      ASSERT_TRUE(cpu) << cpu.error().message;
      cpu_cases.push_back(std::move(*cpu));
    }
    for (const auto& layout : layouts) {
      GpuUploadOptions upload;
      upload.layout = layout;
      Expected<GpuPose*> gpu = prepareGpuPose(*context_, *prepared, upload);
      ASSERT_TRUE(gpu) << file << ": " << gpu.error().message;
      for (size_t k = 0; k < cases.size(); ++k) {
        const auto& [anim, time] = cases[k];
        const PoseResult& cpu = cpu_cases[k];
        GpuPoseOptions gpu_options;
        gpu_options.animation = anim;
        gpu_options.time = time;
        Expected<PoseResult> out = evaluateGpuPose(*context_, **gpu, gpu_options);
        ASSERT_TRUE(out) << out.error().message;
        ASSERT_EQ(out->meshes.size(), cpu.meshes.size());
        for (size_t m = 0; m < cpu.meshes.size(); ++m) {
          const PosedPrimitive& c = cpu.meshes[m];
          const PosedPrimitive& g = out->meshes[m];
          const PrimitiveData& data = prepared->primitives[prepared->instances[m].data];
          const DeltaLayout used = layout ? *layout : chooseDeltaLayout(data);
          // f16 errors grow with the node/joint transform's scale: estimate it from the bounding boxes.
          const float scale = 2.0f * bboxDiagonal(c.positions) / std::max(bboxDiagonal(data.position), 1e-12f);
          Tolerance tol =
              tolerance(data, data.targets.empty() ? DeltaLayout::kDenseF32 : used, c.weights, c.positions, scale);
          const std::string what = file.filename().string() + " layout " +
                                   (layout ? deltaLayoutName(*layout) : "auto") + " anim " + std::to_string(int(anim)) +
                                   " t=" + std::to_string(time) + " mesh entry " + std::to_string(m);
          EXPECT_EQ(g.node, c.node);
          EXPECT_EQ(g.skinned, c.skinned) << what;
          EXPECT_EQ(g.weights, c.weights) << what;
          EXPECT_LE(maxDiff(g.positions, c.positions), tol.position) << what;
          EXPECT_LE(maxDiff(g.normals, c.normals), tol.unit) << what;
          EXPECT_LE(maxDiff(g.tangents, c.tangents), tol.unit) << what;
        }
      }
      destroyGpuPose(*context_, *gpu);
    }
  }
  EXPECT_GE(models, 10u);
}

}  // namespace
}  // namespace morphkit
