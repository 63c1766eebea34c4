// SPDX-License-Identifier: MIT
// Posed positions only (PoseOptions::positions_only; a job with empty normal/tangent/texcoord/color outputs): the
// skipped attributes are neither computed nor output, and the positions are bit-identical to a full pose's, on the
// reference and the fast path, skinned and rigid.
#include <gtest/gtest.h>

#include <vector>

#include "morphkit/core/deform.h"
#include "morphkit/core/pose.h"
#include "morphkit/demo/demo.h"
#include "morphkit/pack/packed_targets.h"

namespace morphkit {
namespace {

PrimitiveData demoPrimitive(uint32_t vertices, uint32_t targets) {
  DemoOptions demo;
  demo.vertices = vertices;
  demo.targets = targets;
  Expected<Asset> asset = makeDemoAsset(demo);
  EXPECT_TRUE(asset) << asset.error().message;
  Expected<PosePrepared> prepared = preparePose(*asset);
  EXPECT_TRUE(prepared) << prepared.error().message;
  return prepared->primitives.at(0);
}

TEST(PositionsOnly, JobSkipsEveryOtherOutputAndKeepsPositionsBitForBit) {
  const PrimitiveData p = demoPrimitive(600, 12);
  ASSERT_FALSE(p.normal.empty());
  ASSERT_FALSE(p.tangent.empty());
  ASSERT_FALSE(p.texcoords.empty());
  const PackedTargets packed = packTargets(p);
  std::vector<float> weights(p.targets.size());
  for (size_t t = 0; t < weights.size(); ++t) weights[t] = t % 3 == 0 ? 0.0f : 0.1f * float(t % 7);
  std::vector<DMat4> joints(4);
  for (size_t j = 0; j < joints.size(); ++j) {
    joints[j] = DMat4{};
    joints[j](0, 3) = 0.25 * double(j);
    joints[j](1, 1) = 1.0 + 0.1 * double(j);
  }
  const size_t n = p.vertex_count;
  for (bool fast : {false, true}) {
    for (bool skinned : {true, false}) {
      SCOPED_TRACE(std::string(fast ? "fast" : "reference") + (skinned ? ", skinned" : ", rigid"));
      std::vector<float> full_pos(3 * n), full_nrm(3 * n), full_tan(4 * n), only_pos(3 * n);
      std::vector<std::vector<float>> uv(p.texcoords.size(), std::vector<float>(2 * n));
      std::vector<std::span<float>> uv_spans(uv.begin(), uv.end());
      MorphSkinJob full;
      full.primitive = &p;
      full.weights = weights;
      if (skinned) full.joint_matrices = joints;
      full.world = joints[1];
      full.end = uint32_t(n);
      full.out_positions = full_pos;
      full.out_normals = full_nrm;
      full.out_tangents = full_tan;
      full.out_texcoords = uv_spans;
      MorphSkinJob only = full;
      only.out_positions = only_pos;
      only.out_normals = {};
      only.out_tangents = {};
      only.out_texcoords = {};
      ASSERT_TRUE(only.validate());
      const auto run = [&](const MorphSkinJob& job) { return fast ? FastMorphSkinJob{job, &packed}.run() : job.run(); };
      ASSERT_TRUE(run(full));
      ASSERT_TRUE(run(only));
      EXPECT_EQ(only_pos, full_pos);
    }
  }
}

// Outputs that exist must still fit: a normal output for a primitive without normals stays invalid.
TEST(PositionsOnly, AnOutputThePrimitiveLacksIsStillInvalid) {
  PrimitiveData p = demoPrimitive(200, 2);
  p.normal.clear();
  for (MorphTargetData& t : p.targets) t.normal.clear();
  std::vector<float> weights(p.targets.size(), 0.5f), pos(3 * p.vertex_count), nrm(3 * p.vertex_count);
  MorphSkinJob job;
  job.primitive = &p;
  job.weights = weights;
  job.world = DMat4{};
  job.end = p.vertex_count;
  job.out_positions = pos;
  job.out_normals = nrm;
  EXPECT_FALSE(job.validate());
  job.out_normals = {};
  EXPECT_TRUE(job.validate());
}

TEST(PositionsOnly, PoseLeavesTheOtherArraysEmpty) {
  DemoOptions demo;
  demo.vertices = 800;
  demo.targets = 20;
  Expected<Asset> asset = makeDemoAsset(demo);
  ASSERT_TRUE(asset) << asset.error().message;
  Expected<PosePrepared> prepared = preparePose(*asset);
  ASSERT_TRUE(prepared) << prepared.error().message;
  for (CpuPath path : {CpuPath::kReference, CpuPath::kFast}) {
    PoseOptions options;
    options.path = path;
    options.animation = 0;
    options.time = 0.37;
    Expected<PoseResult> full = evaluatePose(*prepared, options);
    ASSERT_TRUE(full) << full.error().message;
    options.positions_only = true;
    PoseResult only;
    ASSERT_TRUE(evaluatePose(*prepared, options, only));
    ASSERT_EQ(only.meshes.size(), full->meshes.size());
    for (size_t m = 0; m < only.meshes.size(); ++m) {
      EXPECT_EQ(only.meshes[m].positions, full->meshes[m].positions);
      EXPECT_FALSE(full->meshes[m].normals.empty());
      EXPECT_TRUE(only.meshes[m].normals.empty());
      EXPECT_TRUE(only.meshes[m].tangents.empty());
      EXPECT_TRUE(only.meshes[m].texcoords.empty());
      EXPECT_TRUE(only.meshes[m].colors.empty());
      EXPECT_EQ(only.meshes[m].indices, full->meshes[m].indices);
    }
    // The same result object posed fully again gets its arrays back (playback may switch).
    options.positions_only = false;
    ASSERT_TRUE(evaluatePose(*prepared, options, only));
    EXPECT_EQ(only.meshes[0].normals, full->meshes[0].normals);
  }
}

}  // namespace
}  // namespace morphkit
