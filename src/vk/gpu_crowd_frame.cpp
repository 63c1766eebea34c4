// SPDX-License-Identifier: MIT
// The CPU's part of a crowd frame (morphkit/vk/gpu_crowd.h): per group the targets to walk or stage, per instance its
// active list and its relative matrices, written into the crowd's host-visible buffers before each dispatch.
#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

#include "crowd_shared.h"
#include "gpu_crowd_internal.h"
#include "gpu_internal.h"
#include "morphkit/model/thread_pool.h"
#include "morphkit/pack/active_targets.h"

namespace morphkit {
namespace {

constexpr size_t kMatrixGrain = 64;  // instances per task when a pool prepares the frame's matrices

// One group's part of the frame, built in host memory: the targets whose tile records are staged (the most
// used by the group's instances first, up to `slots`; entry i goes to slot i) and each instance's active targets,
// ascending, each with its slot or CROWD_NOT_STAGED. Groups are independent, so a pool builds them in parallel.
struct GroupLists {
  uint32_t staged = 0, listed = 0;  // staged targets; entries of the group's instances
  uint64_t reads = 0;               // records read per tile: the staged ones once, the others per instance
};
// `work`: 3 × targets words of scratch (use counts, order, slots).
GroupLists buildGroupLists(const GpuCrowdJob& job, uint32_t k, uint32_t* staged_targets, uint32_t* instance_offsets,
                           uint32_t* list, std::span<uint32_t> work) {
  const GpuCrowdInfo& info = job.crowd->info;
  const uint32_t targets = job.crowd->primitive->info.target_count;
  const uint32_t first = k * info.group_size, count = std::min(info.group_size, info.instance_count - first);
  const std::span<uint32_t> uses = work.subspan(0, targets), order = work.subspan(targets, targets),
                            slot = work.subspan(2 * size_t(targets), targets);
  std::fill(uses.begin(), uses.end(), 0u);
  std::fill(slot.begin(), slot.end(), CROWD_NOT_STAGED);
  for (uint32_t i = first; i < first + count; ++i) {
    const float* w = job.instances[i].weights.data();
    for (uint32_t t = 0; t < targets; ++t) uses[t] += activeWeight(w[t], job.epsilon) != 0.0f;
  }
  for (uint32_t t = 0; t < targets; ++t) order[t] = t;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return uses[a] > uses[b]; });
  GroupLists g;
  for (uint32_t s = 0; s < std::min(targets, info.slots) && uses[order[s]] > 0; ++s) {
    slot[order[s]] = s;
    staged_targets[g.staged++] = order[s];
    ++g.reads;
  }
  for (uint32_t i = 0; i < count; ++i) {
    instance_offsets[i] = g.listed;
    const float* weights = job.instances[first + i].weights.data();
    for (uint32_t t = 0; t < targets; ++t) {  // every slot written, kept or not: no branch on random active sets
      const float w = activeWeight(weights[t], job.epsilon);
      uint32_t* e = &list[4 * size_t(g.listed)];
      e[0] = t, e[1] = slot[t], e[3] = 0;
      std::memcpy(&e[2], &w, 4);
      const bool keep = w != 0.0f;
      g.reads += keep && slot[t] == CROWD_NOT_STAGED;
      g.listed += keep;
    }
  }
  return g;
}

// Every group's lists (in parallel when the job lends a pool), then copied once, back to back, into the
// crowd's buffers, which may be write-combined device memory.
void writeActives(const GpuCrowdJob& job) {
  GpuCrowd& crowd = *job.crowd;
  const GpuCrowdInfo& info = crowd.info;
  const uint32_t targets = crowd.primitive->info.target_count;
  const size_t group_entries = size_t(info.group_size) * targets + 1;  // +1: the last slot written and not kept
  std::vector<uint32_t>& scratch = crowd.scratch_entries;
  scratch.resize(size_t(info.groups) * (targets + info.group_size + 4 * group_entries));
  uint32_t* staged_at = scratch.data();
  uint32_t* offsets_at = staged_at + size_t(info.groups) * targets;
  uint32_t* lists_at = offsets_at + size_t(info.groups) * info.group_size;
  std::vector<GroupLists> groups(info.groups);
  parallelFor(job.pool, info.groups, 0, [&](size_t begin, size_t end) {
    std::vector<uint32_t> work(3 * size_t(targets));  // one chunk's scratch
    for (size_t k = begin; k < end; ++k) {
      groups[k] = buildGroupLists(job, uint32_t(k), staged_at + k * targets, offsets_at + k * info.group_size,
                                  lists_at + 4 * k * group_entries, work);
    }
  });
  auto* unions = static_cast<uint32_t*>(crowd.unions.mapped);
  uint32_t* staged_targets = unions + info.groups + 1;
  auto* offsets = static_cast<uint32_t*>(crowd.weights.mapped);
  uint32_t* entries = offsets + crowdEntriesWord(info.instance_count);
  uint32_t staged = 0, listed = 0;
  uint64_t reads = 0;
  for (uint32_t k = 0; k < info.groups; ++k) {
    const GroupLists& g = groups[k];
    const uint32_t first = k * info.group_size, count = std::min(info.group_size, info.instance_count - first);
    unions[k] = staged;
    std::memcpy(staged_targets + staged, staged_at + size_t(k) * targets, 4 * size_t(g.staged));
    for (uint32_t i = 0; i < count; ++i) offsets[first + i] = listed + offsets_at[size_t(k) * info.group_size + i];
    std::memcpy(entries + 4 * size_t(listed), lists_at + 4 * size_t(k) * group_entries, 16 * size_t(g.listed));
    staged += g.staged, listed += g.listed, reads += g.reads;
  }
  unions[info.groups] = staged;
  offsets[info.instance_count] = listed;
  crowd.last_reads = reads;
}

}  // namespace

void writeCrowdFrame(const GpuCrowdJob& job) {
  GpuCrowd& crowd = *job.crowd;
  const GpuCrowdInfo& info = crowd.info;
  writeActives(job);
  auto* matrices = static_cast<float*>(crowd.matrices.mapped);
  parallelFor(job.pool, info.instance_count, kMatrixGrain, [&](size_t begin, size_t end) {
    std::vector<Mat4> m(info.matrix_count);  // one chunk's scratch: one allocation per chunk, not per instance
    for (size_t i = begin; i < end; ++i) {
      const GpuInstanceState& s = job.instances[i];
      relativeMatrices(crowd.primitive->info.pivot, crowd.skinned, s.joint_matrices, s.world, m);
      float* out = matrices + i * info.matrix_count * kCrowdMatrixFloats;
      for (const Mat4& k : m) {  // rows 0-2 of each matrix (the last row is never read)
        for (int r = 0; r < 3; ++r) {
          for (int c = 0; c < 4; ++c) *out++ = k(r, c);
        }
      }
    }
  });
}

}  // namespace morphkit
