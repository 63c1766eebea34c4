// SPDX-License-Identifier: MIT
// morphkit/gpu_pose.h — "pose an asset" on the GPU: the same PoseResult as morphkit/pose.h's CPU path, with
// every (node, primitive) of the scene deformed by one batched morph + skin dispatch (morphkit/gpu.h).
// Animation sampling, scene evaluation and joint matrices run on the CPU exactly as in evaluatePose (evaluateFrame).
#pragma once
#include <cstdint>

#include "morphkit/error.h"
#include "morphkit/gpu.h"
#include "morphkit/pose.h"

namespace morphkit {

struct GpuPose;  // GPU primitives for a PosePrepared and one batch with an instance per (node, primitive)

// Uploads every primitive of `prepared` and builds the batch. `prepared` (and its asset) must outlive the
// GpuPose. Fails like uploadGpuPrimitive / createGpuBatch (e.g. a joint index beyond its skin's joints).
Expected<GpuPose*> prepareGpuPose(VulkanContext& context, const PosePrepared& prepared,
                                  const GpuUploadOptions& upload = {});
void destroyGpuPose(VulkanContext& context, GpuPose* pose);  // null is fine

// A frame request (morphkit/pose.h: animation, time, sampling cursors, outside weights) plus the GPU's options.
struct GpuPoseOptions : FrameRequest {
  float epsilon = 0.0f;  // morph targets with |w| <= epsilon are skipped
};

// Poses on the GPU and reads the vertices back. Same contract and layout as evaluatePose (world space,
// sorted by node, mesh, primitive, weights echoed); results match the CPU reference within float precision.
Expected<PoseResult> evaluateGpuPose(VulkanContext& context, GpuPose& pose, const GpuPoseOptions& options);
// GPU time of the last evaluateGpuPose dispatch in µs (NaN without timestamps).
double lastGpuPoseMicroseconds(const GpuPose& pose);

// preparePose + prepareGpuPose + evaluateGpuPose + cleanup: the GPU twin of poseAsset().
Expected<PoseResult> poseAssetGpu(VulkanContext& context, const Asset& asset, uint32_t scene,
                                  const GpuPoseOptions& options, const GpuUploadOptions& upload = {});

}  // namespace morphkit
