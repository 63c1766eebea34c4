// SPDX-License-Identifier: MIT
// Weights from a face capture on the GPU: the compute path (evaluateGpuPose) and the renderer take the same
// weight track as the CPU (evaluateFrame), checked against the CPU reference. The validation layer is on; any
// message fails the test (VulkanTest's TearDown).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "capture_test_util.h"
#include "gltf_test_util.h"
#include "morphkit/core/pose.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/capture.h"
#include "morphkit/render/render.h"
#include "morphkit/vk/gpu_pose.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

CaptureMatch appCapture(const Asset& asset, size_t rows) {
  Expected<Capture> csv = parseCaptureCsv(test::appCsv(rows));
  EXPECT_TRUE(csv.ok()) << csv.error().message;
  return csv ? matchCapture(asset, *csv) : CaptureMatch{};
}

class CaptureGpuTest : public test::VulkanTest {};

float maxDiff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  float m = 0.0f;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

// A CSV in the app's column order drives MorphSkinBlob52 on the GPU as on the CPU reference: the same weights
// (sampled once, on the CPU, by the shared frame step) and vertices within float precision.
TEST_F(CaptureGpuTest, CaptureDrivesMorphSkinBlob52OnTheGpuLikeTheCpu) {
  MORPHKIT_REQUIRE_SHARED();
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<Asset> asset = loadAsset(test::assetsDir() / "MorphSkinBlob52/MorphSkinBlob52.glb");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const CaptureMatch capture = appCapture(*asset, 5);
  ASSERT_EQ(capture.track.names.size(), 52u);
  Expected<PosePrepared> prepared = preparePose(*asset);
  ASSERT_TRUE(prepared.ok());
  GpuUploadOptions upload;
  upload.layout = DeltaLayout::kDenseF32;
  Expected<GpuPose*> gpu = prepareGpuPose(*context_, *prepared, upload);
  ASSERT_TRUE(gpu.ok()) << gpu.error().message;
  SamplingContext cpu_sampling, gpu_sampling;
  const std::vector<float>& keys = capture.track.keys.times;
  for (double time : {double(keys[0]), 0.5 * (keys[1] + keys[2]), double(keys[3]), double(keys[4]) + 1.0}) {
    PoseOptions cpu_options;
    cpu_options.time = time;
    cpu_options.sampling = &cpu_sampling;
    cpu_options.weights.track = &capture.track;
    Expected<PoseResult> cpu = evaluatePose(*prepared, cpu_options);
    ASSERT_TRUE(cpu.ok()) << cpu.error().message;
    GpuPoseOptions gpu_options;
    gpu_options.time = time;
    gpu_options.sampling = &gpu_sampling;
    gpu_options.weights.track = &capture.track;
    Expected<PoseResult> out = evaluateGpuPose(*context_, **gpu, gpu_options);
    ASSERT_TRUE(out.ok()) << out.error().message;
    ASSERT_EQ(out->meshes.size(), cpu->meshes.size());
    const PosedPrimitive& c = cpu->meshes[0];
    const PosedPrimitive& g = out->meshes[0];
    EXPECT_EQ(g.weights, c.weights) << "t=" << time;
    EXPECT_EQ(size_t(std::count(c.weights.begin(), c.weights.end(), 0.0f)), 0u) << "every target driven";
    EXPECT_LE(maxDiff(g.positions, c.positions), 3e-5f) << "t=" << time;  // ~1e-5 of the head's 2.7 diagonal
    EXPECT_LE(maxDiff(g.normals, c.normals), 1e-4f) << "t=" << time;
  }
  destroyGpuPose(*context_, *gpu);
}

// The renderer samples the track through the same frame step: an image rendered with the track equals the image
// rendered with those weights set directly (the renderer's override hook), on both morph paths.
TEST_F(CaptureGpuTest, RendererPlaysTheCaptureLikeTheSameWeightsSetDirectly) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<Asset> asset = test::validated(makeDemoAsset({.targets = 52, .vertices = 3000, .bones = 4}));
  const CaptureMatch capture = appCapture(*asset, 6);
  ASSERT_EQ(capture.track.names.size(), 52u);
  const double time = 0.5 * (capture.track.keys.times[2] + capture.track.keys.times[3]);
  WeightInputs inputs;
  inputs.track = &capture.track;
  PoseOptions cpu_options;
  cpu_options.time = time;
  cpu_options.weights = inputs;
  Expected<PoseResult> cpu = poseAsset(*asset, kNone, cpu_options);
  ASSERT_TRUE(cpu.ok());
  const std::vector<float> weights = cpu->meshes[0].weights;

  for (MorphPath path : {MorphPath::kVertex, MorphPath::kCompute}) {
    RenderOptions options;
    options.width = options.height = 96;
    options.shadow_size = 256;
    options.morph_path = path;
    Expected<Renderer*> renderer = createRenderer(*context_, *asset, options);
    ASSERT_TRUE(renderer.ok()) << renderer.error().message;
    Expected<Bounds> bounds = posedBounds(*asset, kNone, kNone, time, time, 1, inputs);
    ASSERT_TRUE(bounds.ok());
    setRendererCamera(**renderer, frameBounds(*bounds, 1.0f), *bounds);
    RenderFrameInput with_track;
    with_track.time = time;
    with_track.weights = inputs;
    Expected<RenderedImage> a = renderFrame(**renderer, with_track);
    RenderFrameInput direct;
    direct.override_weights = weights;
    Expected<RenderedImage> b = renderFrame(**renderer, direct);
    RenderFrameInput rest;
    Expected<RenderedImage> c = renderFrame(**renderer, rest);
    destroyRenderer(*renderer);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok());
    EXPECT_EQ(a->rgba, b->rgba) << morphPathName(path);
    EXPECT_NE(a->rgba, c->rgba) << morphPathName(path) << ": the capture must change the image";
  }
}

}  // namespace
}  // namespace morphkit
