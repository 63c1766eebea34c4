// SPDX-License-Identifier: MIT
// gpu_pose_internal.h — what the one-frame GPU pose (gpu_pose.cpp) and the many-frame stream (gpu_pose_stream.cpp)
// share: the frame step into a group's instance states, and the PoseResult built from deformed vertices. Not
// installed.
#pragma once
#include <functional>
#include <vector>

#include "gpu_internal.h"
#include "morphkit/vk/gpu_pose.h"

namespace morphkit {

// One frame's inputs for a group: the core frame step (the same as evaluatePose, morphkit/core/pose.h), then each
// instance's GpuInstanceState, whose spans point into `core`.
struct PoseFrame {
  FrameState core;
  std::vector<GpuInstanceState> states;
};
Status evaluatePoseFrame(const GpuPose& pose, const GpuPoseOptions& options, PoseFrame& frame);

// The frame's PoseResult (evaluatePose's layout) from each instance's interleaved output vertices (`vertices(i)`:
// instance i's first float, in its primitive's VertexFormat), written into `result` in place: a result reused from
// frame to frame keeps its vectors' capacity (no allocation, no fresh pages). Fails like checkPoseFinite.
Status assembleGpuPose(const GpuPose& pose, const GpuPoseOptions& options, const PoseFrame& frame,
                       const std::function<const float*(size_t instance)>& vertices, PoseResult& result);

}  // namespace morphkit
