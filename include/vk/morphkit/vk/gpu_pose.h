// SPDX-License-Identifier: MIT
// morphkit/vk/gpu_pose.h — "pose an asset" on the GPU: the same PoseResult as morphkit/core/pose.h's CPU path, with
// every (node, primitive) of the scene deformed by one batched morph + skin dispatch (morphkit/vk/gpu.h).
// Animation sampling, scene evaluation and joint matrices run on the CPU exactly as in evaluatePose (evaluateFrame).
#pragma once
#include <cstdint>
#include <functional>
#include <span>

#include "morphkit/core/pose.h"
#include "morphkit/core/pose_arrays.h"
#include "morphkit/model/error.h"
#include "morphkit/model/thread_pool.h"
#include "morphkit/pack/packed_deltas.h"
#include "morphkit/vk/gpu.h"

namespace morphkit {

struct GpuPose;  // GPU primitives for a PosePrepared and one group with an instance per (node, primitive)

// Uploads every primitive of `prepared` and builds the group. `prepared` (and its asset) must outlive the
// GpuPose. Fails like uploadGpuPrimitive / createGpuMorphGroup (e.g. a joint index beyond its skin's joints).
Expected<GpuPose*> prepareGpuPose(VulkanContext& context, const PosePrepared& prepared,
                                  const GpuUploadOptions& upload = {});
void destroyGpuPose(VulkanContext& context, GpuPose* pose);  // null is fine

// A frame request (morphkit/core/pose.h: animation, time, sampling cursors, outside weights) plus the GPU's options.
struct GpuPoseOptions : FrameRequest {
  float epsilon = 0.0f;  // morph targets with |w| <= epsilon are skipped
};

// Poses on the GPU and reads the vertices back. Same contract and layout as evaluatePose (world space,
// sorted by node, mesh, primitive, weights echoed); results match the CPU reference within float precision.
Expected<PoseResult> evaluateGpuPose(VulkanContext& context, GpuPose& pose, const GpuPoseOptions& options);
// GPU time of the last evaluateGpuPose dispatch in µs (NaN without timestamps).
double lastGpuPoseMicroseconds(const GpuPose& pose);

// ---- Many frames, pipelined ----
// Frames are posed in chunks: a chunk's frames share one dispatch (one group of the pose's instances per frame, run
// by the pose's own pipeline) and one copy into host memory, under one fence. Two chunks are in flight: while the
// GPU deforms one, the CPU steps the next chunk's frames and hands the previous chunk's results to the sink.
struct GpuPoseStreamOptions {
  // Posed vertices in flight, bytes: each of the two chunks holds budget / 2 of frames (at least one). A budget below
  // one frame's output is an error that names the bytes one frame needs.
  uint64_t memory_budget = uint64_t(256) << 20;
  uint32_t max_chunk_frames = 0;  // > 0: at most this many frames per chunk (tests: chunks of 1, partial chunks)
  // Optional threads (the caller's; the library starts none) for the host's share of a chunk: stepping its frames
  // and unpacking their output into results. Without them one thread does both, and at 20k vertices it is the
  // limit: the GPU and the copy take 5 % of a frame (docs/PERFORMANCE.md). The results are the same bits.
  ThreadPool* pool = nullptr;
  // With a pool: the sink may be called from the pool's threads, for several frames at once and in any order
  // within a chunk (chunks stay in order). For a sink that writes frame k into its own slot of an array; the
  // default calls it on the calling thread, in frame order.
  bool concurrent_sink = false;
};
struct GpuPoseStreamStats {
  uint64_t frame_bytes = 0;     // one frame's output on the device (every instance, aligned)
  uint32_t chunk_frames = 0;    // frames per chunk (the last may hold fewer)
  uint32_t chunks = 0;          // submissions
  double gpu_microseconds = 0;  // the chunks' dispatches and copies, from timestamps (NaN without them)
};
// Poses frames[0..n) and calls sink(k, result) for each, in frame order (see concurrent_sink), with the result
// evaluateGpuPose gives for frames[k], bit for bit. A failing frame step, a non-finite result or a failing sink stops
// the stream (the frames not yet handed over are dropped) and its error is returned.
Status evaluateGpuPoseFrames(VulkanContext& context, GpuPose& pose, std::span<const GpuPoseOptions> frames,
                             const std::function<Status(size_t frame, PoseResult&& result)>& sink,
                             const GpuPoseStreamOptions& options = {}, GpuPoseStreamStats* stats = nullptr);

// The same frames without unpacking them: the sink reads each frame's vertices where the chunk's copy left them in
// host memory (one instance per PosePrepared::instances entry, interleaved as the GPU wrote them), valid during the
// call only. Every float is checked finite first (the CPU path's rule and message). For callers that take a few
// attributes (copyGpuPoseFrame: arrays) or the interleaved vertices as they are: no per-frame PoseResult, no copy of
// the indices. The vertices are the ones evaluateGpuPoseFrames unpacks, bit for bit.
struct GpuPosedInstance {
  const float* vertices = nullptr;  // vertex_count × format.stride floats (morphkit/pack/packed_deltas.h VertexFormat)
  VertexFormat format;
  uint32_t vertex_count = 0;
  std::span<const float> weights;  // the frame's morph weights (as PosedPrimitive::weights)
};
using GpuPoseViewSink = std::function<Status(size_t frame, std::span<const GpuPosedInstance> instances)>;
Status evaluateGpuPoseFrameViews(VulkanContext& context, GpuPose& pose, std::span<const GpuPoseOptions> frames,
                                 const GpuPoseViewSink& sink, const GpuPoseStreamOptions& options = {},
                                 GpuPoseStreamStats* stats = nullptr);
// copyPoseFrame's arrays (positions, normals, weights; one view per instance) filled from a frame's views: the same
// values as copyPoseFrame of the unpacked result, with the same checks before anything is written.
Status copyGpuPoseFrame(std::span<const GpuPosedInstance> instances, size_t frame, std::span<const PoseArrayView> out);

// One frame's output bytes on the device: what GpuPoseStreamOptions::memory_budget is counted in.
uint64_t gpuPoseFrameBytes(const GpuPose& pose);

// preparePose + prepareGpuPose + evaluateGpuPose + cleanup: the GPU twin of poseAsset().
Expected<PoseResult> poseAssetGpu(VulkanContext& context, const Asset& asset, uint32_t scene,
                                  const GpuPoseOptions& options, const GpuUploadOptions& upload = {});

}  // namespace morphkit
