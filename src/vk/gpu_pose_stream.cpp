// SPDX-License-Identifier: MIT
// evaluateGpuPoseFrames and evaluateGpuPoseFrameViews (morphkit/vk/gpu_pose.h): many frames through the GPU without a
// round trip per frame; the first unpacks each frame into a PoseResult, the second hands over views of the chunk's
// host memory (copyGpuPoseFrame copies them into arrays).
//
// A chunk of K frames is one group of K × I instances (I: the pose's instances, frame k's at k·I … k·I + I − 1), run
// by the pose's own pipeline, so each instance is computed by exactly the code and specialization that
// evaluateGpuPose uses: the same bits. Its output is copied into a host-visible buffer in the same submission. Two
// chunk slots alternate; the host waits for a slot only when it comes round again.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gpu_internal.h"
#include "gpu_pose_internal.h"
#include "morphkit/model/finite.h"
#include "morphkit/vk/gpu_interop.h"
#include "morphkit/vk/gpu_pose.h"
#include "vk_context.h"

namespace morphkit {
namespace {

constexpr uint32_t kSlots = 2;

// One chunk in flight: its group (K copies of the pose's instances), its readback buffer, its submission, and the
// frames it holds.
struct ChunkSlot {
  GpuMorphGroup* group = nullptr;
  GpuBuffer readback;
  InFlightSubmission submission;
  size_t first_frame = 0, frame_count = 0;
  std::vector<PoseFrame> frames;  // the frame steps, kept until the results are assembled (their weights move there)
  std::vector<GpuInstanceState> states;
};

void destroySlot(VulkanContext& context, ChunkSlot& slot) {
  destroyInFlightSubmission(context, slot.submission);  // waits first
  destroyBuffer(context, slot.readback);
  destroyGpuMorphGroup(context, slot.group);
  slot = ChunkSlot{};
}

// The pose's instance descriptions, `frames` times over.
std::vector<GpuInstanceDesc> chunkDescs(const GpuPose& pose, uint32_t frames) {
  const PosePrepared& prepared = *pose.prepared;
  const Asset& asset = *prepared.asset;
  std::vector<GpuInstanceDesc> descs;
  descs.reserve(size_t(frames) * prepared.instances.size());
  for (uint32_t k = 0; k < frames; ++k) {
    for (const PosePrepared::Instance& inst : prepared.instances) {
      GpuInstanceDesc d;
      d.primitive = pose.primitives[inst.data];
      d.skinned = inst.skinned;
      d.joint_count = d.skinned ? uint32_t(asset.skins[asset.nodes[inst.node].skin].joints.size()) : 0;
      descs.push_back(d);
    }
  }
  return descs;
}

Status createSlot(VulkanContext& context, const GpuPose& pose, uint32_t frames, ChunkSlot& slot) {
  const std::vector<GpuInstanceDesc> descs = chunkDescs(pose, frames);
  Expected<GpuMorphGroup*> group = createGpuMorphGroupSharingPipeline(context, descs, *pose.group);
  if (!group) return group.error();
  slot.group = *group;
  Expected<GpuBuffer> readback = createBuffer(context, gpuMorphGroupOutputBytes(*slot.group), MemoryUse::kReadback);
  if (!readback) return readback.error();
  slot.readback = *readback;
  return createInFlightSubmission(context, slot.submission);
}

// The first failure of a parallel loop over frames, by frame index, so the error returned is the one a single thread
// would have met first.
class FirstFailure {
 public:
  void record(size_t frame, const Status& status) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failure_ || frame < frame_) {
      frame_ = frame;
      failure_ = status.error();
    }
    failed_.store(true, std::memory_order_relaxed);
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }  // the other runs stop early
  Status status() const { return failure_ ? Status(*failure_) : Status(Ok{}); }

 private:
  std::mutex mutex_;
  size_t frame_ = 0;
  std::optional<Failure> failure_;
  std::atomic<bool> failed_{false};
};

// Frames [0, count) on the pool in runs of about count / threads (each run one call of `run(begin, end)`).
void forFrameRuns(ThreadPool* pool, size_t count, const std::function<void(size_t, size_t)>& run) {
  const size_t threads = pool ? pool->threadCount() : 1;
  parallelFor(pool, count, (count + threads - 1) / threads, run);
}

// Steps the chunk's frames on the CPU (on the pool when there is one: each run of frames with its own sampling
// cursors, which only speed up the key search), writes their states into the slot's group and submits its
// dispatch and the copy of its output into the readback buffer.
Status submitChunk(VulkanContext& context, const GpuPose& pose, std::span<const GpuPoseOptions> requests,
                   ThreadPool* pool, ChunkSlot& slot) {
  const size_t instances = pose.prepared->instances.size();
  const size_t capacity = gpuMorphGroupOutputBytes(*slot.group) / std::max<uint64_t>(gpuPoseFrameBytes(pose), 1);
  slot.frames.resize(slot.frame_count);
  slot.states.resize(capacity * instances);
  FirstFailure failure;
  forFrameRuns(pool, slot.frame_count, [&](size_t begin, size_t end) {
    SamplingContext cursors;
    for (size_t k = begin; k < end && !failure.failed(); ++k) {
      GpuPoseOptions request = requests[slot.first_frame + k];
      if (pool && request.sampling) request.sampling = &cursors;
      if (Status s = evaluatePoseFrame(pose, request, slot.frames[k]); !s) failure.record(k, s);
    }
  });
  if (Status s = failure.status(); !s) return s;
  for (size_t k = 0; k < capacity; ++k) {
    // A last partial chunk: the frames past it repeat its last frame (their output is never read).
    const size_t source = std::min(k, slot.frame_count - 1);
    std::copy(slot.frames[source].states.begin(), slot.frames[source].states.end(),
              slot.states.begin() + k * instances);
  }
  if (Status s = beginInFlight(context, slot.submission, "evaluateGpuPoseFrames"); !s) return s;
  GpuMorphJob job;
  job.context = &context;
  job.group = slot.group;
  job.instances = slot.states;
  job.epsilon = requests[slot.first_frame].epsilon;
  VkCommandBuffer cmd = slot.submission.cmd;
  if (Status s = recordGpuMorphJob(job, cmd); !s) return s;
  VkMemoryBarrier to_copy{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  to_copy.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  to_copy.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &to_copy, 0,
                       nullptr, 0, nullptr);
  const VkBufferCopy region{0, 0, slot.frame_count * gpuPoseFrameBytes(pose)};
  vkCmdCopyBuffer(cmd, gpuMorphGroupBuffer(*slot.group).buffer, slot.readback.buffer, 1, &region);
  VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0,
                       nullptr);
  return submitInFlight(context, slot.submission, "evaluateGpuPoseFrames");
}

// Runs `each(k, run)` for every frame k of a chunk of `count` — on the pool's threads in runs of frames when there is
// a pool (`run` numbers the run, at most `count` of them), else on this thread — then, unless `concurrent`,
// `ordered(k)` on this thread in frame order. Without a pool the two alternate frame by frame. The first failure by
// frame index is returned.
Status forChunkFrames(ThreadPool* pool, size_t count, bool concurrent,
                      const std::function<Status(size_t k, size_t run)>& each,
                      const std::function<Status(size_t k)>& ordered) {
  if (!pool) {
    for (size_t k = 0; k < count; ++k) {
      if (Status s = each(k, 0); !s) return s;
      if (!concurrent) {
        if (Status s = ordered(k); !s) return s;
      }
    }
    return Ok{};
  }
  std::atomic<size_t> next_run{0};
  FirstFailure failure;
  forFrameRuns(pool, count, [&](size_t begin, size_t end) {
    const size_t run = next_run.fetch_add(1);
    for (size_t k = begin; k < end && !failure.failed(); ++k) {
      if (Status s = each(k, run); !s) failure.record(k, s);
    }
  });
  if (Status s = failure.status(); !s) return s;
  for (size_t k = 0; !concurrent && k < count; ++k) {
    if (Status s = ordered(k); !s) return s;
  }
  return Ok{};
}

// Instance i of frame k of the slot's chunk, where the copy left it in host memory.
const float* chunkVertices(const ChunkSlot& slot, size_t instances, size_t k, size_t i) {
  const auto* bytes = static_cast<const uint8_t*>(slot.readback.mapped);
  return reinterpret_cast<const float*>(bytes + gpuMorphGroupOutput(*slot.group, uint32_t(k * instances + i))->offset);
}

// Frame k of the slot's chunk where the copy left it, every float checked finite; a bad value is named as
// checkPoseFinite names it (the instance unpacked once, on this rare path).
Status chunkFrameView(const GpuPose& pose, const GpuPoseOptions& request, const ChunkSlot& slot, size_t k,
                      std::vector<GpuPosedInstance>& out) {
  const PosePrepared& prepared = *pose.prepared;
  const size_t instances = prepared.instances.size();
  out.resize(instances);
  for (size_t i = 0; i < instances; ++i) {
    const PosePrepared::Instance& inst = prepared.instances[i];
    GpuPosedInstance& view = out[i];
    view.vertices = chunkVertices(slot, instances, k, i);
    view.format = pose.primitives[inst.data]->info.vertex;
    view.vertex_count = prepared.primitives[inst.data].vertex_count;
    view.weights = slot.frames[k].core.instances[i].weights;
    if (anyNonFinite(std::span<const float>(view.vertices, size_t(view.vertex_count) * view.format.stride))) {
      PoseResult named;
      if (Status s = assembleGpuPose(
              pose, request, slot.frames[k], [&](size_t j) { return chunkVertices(slot, instances, k, j); }, named);
          !s)
        return s;
    }
  }
  return Ok{};
}

// Where a chunk's frames are unpacked: one result per frame for an ordered sink, one per run of frames for a
// concurrent one. Kept from chunk to chunk so their vectors' capacity is reused (no fresh pages per frame).
struct ChunkResults {
  std::vector<PoseResult> results;
};

// The slot's chunk unpacked into results and handed to the sink (evaluateGpuPoseFrames).
Status deliverResults(const GpuPose& pose, std::span<const GpuPoseOptions> requests,
                      const GpuPoseStreamOptions& options, ChunkSlot& slot,
                      const std::function<Status(size_t, PoseResult&&)>& sink, ChunkResults& scratch) {
  const size_t instances = pose.prepared->instances.size();
  ThreadPool* pool = options.pool;
  const bool concurrent = pool && options.concurrent_sink;
  // Ordered: result k holds frame k until the sink takes it. Concurrent: each run of frames has its own result, so
  // the same few are reused chunk after chunk.
  scratch.results.resize(std::max(scratch.results.size(), pool ? slot.frame_count : size_t(1)));
  auto resultFor = [&](size_t k, size_t run) -> PoseResult& {
    return scratch.results[concurrent ? run : pool ? k : 0];
  };
  return forChunkFrames(
      pool, slot.frame_count, concurrent,
      [&](size_t k, size_t run) -> Status {
        PoseResult& into = resultFor(k, run);
        Status s = assembleGpuPose(
            pose, requests[slot.first_frame + k], slot.frames[k],
            [&](size_t i) { return chunkVertices(slot, instances, k, i); }, into);
        if (s && concurrent) s = sink(slot.first_frame + k, std::move(into));
        return s;
      },
      // A sink that keeps the result moves it; one that only reads it leaves its vectors for the next chunk.
      [&](size_t k) { return sink(slot.first_frame + k, std::move(resultFor(k, 0))); });
}

// The slot's chunk handed to a view sink (evaluateGpuPoseFrameViews): no unpacking.
Status deliverViews(const GpuPose& pose, std::span<const GpuPoseOptions> requests, const GpuPoseStreamOptions& options,
                    ChunkSlot& slot, const GpuPoseViewSink& sink) {
  ThreadPool* pool = options.pool;
  const bool concurrent = pool && options.concurrent_sink;
  // One per frame with a pool (concurrent: one per run, which are at most the frames), else one reused.
  std::vector<std::vector<GpuPosedInstance>> views(pool ? slot.frame_count : 1);
  auto viewFor = [&](size_t k, size_t run) -> std::vector<GpuPosedInstance>& {
    return views[concurrent ? run : pool ? k : 0];
  };
  return forChunkFrames(
      pool, slot.frame_count, concurrent,
      [&](size_t k, size_t run) -> Status {
        std::vector<GpuPosedInstance>& view = viewFor(k, run);
        Status s = chunkFrameView(pose, requests[slot.first_frame + k], slot, k, view);
        if (s && concurrent) s = sink(slot.first_frame + k, view);
        return s;
      },
      [&](size_t k) { return sink(slot.first_frame + k, viewFor(k, 0)); });
}

// The chunk loop of both entry points: two slots alternate; `deliver(slot)` hands a finished chunk over.
Status streamChunks(VulkanContext& context, GpuPose& pose, std::span<const GpuPoseOptions> frames,
                    const GpuPoseStreamOptions& options, GpuPoseStreamStats* stats,
                    const std::function<Status(ChunkSlot&)>& deliver) {
  const uint64_t frame_bytes = gpuPoseFrameBytes(pose);
  if (options.memory_budget < frame_bytes) {
    return fail(Error::kInvalidArgument, "GPU memory budget " + std::to_string(options.memory_budget) +
                                             " bytes is below one frame's output: one frame needs " +
                                             std::to_string(frame_bytes) + " bytes");
  }
  if (frames.empty()) return Ok{};
  for (const GpuPoseOptions& f : frames) {
    if (!(f.epsilon == frames[0].epsilon)) {  // a chunk's frames share one job
      return fail(Error::kInvalidArgument, "evaluateGpuPoseFrames: every frame must have the same epsilon");
    }
  }
  // A frame's output bytes are a multiple of 256 (each instance aligned), so K frames of a chunk sit back to back.
  uint64_t per_chunk = std::max<uint64_t>(1, options.memory_budget / kSlots / std::max<uint64_t>(frame_bytes, 1));
  if (options.max_chunk_frames > 0) per_chunk = std::min<uint64_t>(per_chunk, options.max_chunk_frames);
  const uint32_t chunk_frames = uint32_t(std::min<uint64_t>(per_chunk, frames.size()));
  const size_t chunks = (frames.size() + chunk_frames - 1) / chunk_frames;
  ChunkSlot slots[kSlots];
  Status status = Ok{};
  for (uint32_t s = 0; s < std::min<size_t>(kSlots, chunks) && status; ++s) {
    status = createSlot(context, pose, chunk_frames, slots[s]);
  }
  // Waits for the slot's chunk, then hands it over.
  auto finish = [&](ChunkSlot& slot) -> Status {
    if (Status s = waitInFlight(context, slot.submission, "evaluateGpuPoseFrames"); !s) return s;
    Status s = deliver(slot);
    slot.frame_count = 0;
    return s;
  };
  for (size_t c = 0; c < chunks && status; ++c) {
    ChunkSlot& slot = slots[c % kSlots];
    if (slot.frame_count > 0) status = finish(slot);  // chunk c − 2
    if (!status) break;
    slot.first_frame = c * chunk_frames;
    slot.frame_count = std::min<size_t>(chunk_frames, frames.size() - slot.first_frame);
    status = submitChunk(context, pose, frames, options.pool, slot);
  }
  for (size_t c = chunks > kSlots ? chunks - kSlots : 0; c < chunks && status; ++c) {  // the last chunks, in order
    ChunkSlot& slot = slots[c % kSlots];
    if (slot.frame_count > 0) status = finish(slot);
  }
  for (ChunkSlot& slot : slots) destroySlot(context, slot);
  if (stats) {
    stats->frame_bytes = frame_bytes;
    stats->chunk_frames = chunk_frames;
    stats->chunks = uint32_t(chunks);
    stats->gpu_microseconds = std::nan("");
  }
  return status;
}

}  // namespace

uint64_t gpuPoseFrameBytes(const GpuPose& pose) {
  return gpuMorphGroupOutputBytes(*pose.group);
}

Status evaluateGpuPoseFrames(VulkanContext& context, GpuPose& pose, std::span<const GpuPoseOptions> frames,
                             const std::function<Status(size_t frame, PoseResult&& result)>& sink,
                             const GpuPoseStreamOptions& options, GpuPoseStreamStats* stats) {
  ChunkResults scratch;
  return streamChunks(context, pose, frames, options, stats,
                      [&](ChunkSlot& slot) { return deliverResults(pose, frames, options, slot, sink, scratch); });
}

Status evaluateGpuPoseFrameViews(VulkanContext& context, GpuPose& pose, std::span<const GpuPoseOptions> frames,
                                 const GpuPoseViewSink& sink, const GpuPoseStreamOptions& options,
                                 GpuPoseStreamStats* stats) {
  return streamChunks(context, pose, frames, options, stats,
                      [&](ChunkSlot& slot) { return deliverViews(pose, frames, options, slot, sink); });
}

Status copyGpuPoseFrame(std::span<const GpuPosedInstance> instances, size_t frame, std::span<const PoseArrayView> out) {
  if (out.size() != instances.size()) {
    return fail(Error::kInvalidArgument, "copyGpuPoseFrame: " + std::to_string(out.size()) + " views for " +
                                             std::to_string(instances.size()) + " posed primitives");
  }
  // Every view checked before any is written (copyPoseFrame's rule).
  for (size_t m = 0; m < out.size(); ++m) {
    const GpuPosedInstance& p = instances[m];
    const PoseArrayView& v = out[m];
    const size_t stride = size_t(p.vertex_count) * 3;
    const bool positions_ok = stride > 0
                                  ? v.positions.size() % stride == 0 && (frame + 1) * stride <= v.positions.size()
                                  : v.positions.empty();
    const bool normals_ok =
        v.normals.empty() || (p.format.normal != kLayoutAbsent && v.normals.size() == v.positions.size());
    const bool weights_ok =
        v.weights.empty() || (!p.weights.empty() && (frame + 1) * p.weights.size() <= v.weights.size());
    if (!positions_ok || !normals_ok || !weights_ok) {
      return fail(Error::kInvalidArgument, "copyGpuPoseFrame: instance " + std::to_string(m) +
                                               ": the arrays do not hold frame " + std::to_string(frame));
    }
  }
  for (size_t m = 0; m < out.size(); ++m) {
    const GpuPosedInstance& p = instances[m];
    const PoseArrayView& v = out[m];
    const uint32_t stride = p.format.stride;
    float* positions = v.positions.data() + frame * size_t(p.vertex_count) * 3;
    float* normals = v.normals.empty() ? nullptr : v.normals.data() + frame * size_t(p.vertex_count) * 3;
    for (uint32_t i = 0; i < p.vertex_count; ++i) {
      const float* vertex = p.vertices + size_t(i) * stride;
      std::memcpy(positions + size_t(i) * 3, vertex, 3 * sizeof(float));
      if (normals) std::memcpy(normals + size_t(i) * 3, vertex + p.format.normal, 3 * sizeof(float));
    }
    if (!v.weights.empty())
      std::copy(p.weights.begin(), p.weights.end(), v.weights.begin() + long(frame * p.weights.size()));
  }
  return Ok{};
}

}  // namespace morphkit
