// SPDX-License-Identifier: MIT
// Crowds: one primitive × many instances, a vertex tile's records staged once per group of instances
// (morphkit/vk/gpu_crowd.h, shaders/crowd.comp).
#include "morphkit/vk/gpu_crowd.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>

#include "crowd_shared.h"
#include "gpu_crowd_internal.h"
#include "gpu_internal.h"
#include "morphkit/vk/gpu_interop.h"
#include "morphkit_spirv/crowd.h"
#include "vk_context.h"

namespace morphkit {
namespace {

uint32_t ceilDiv(uint64_t a, uint64_t b) {
  return uint32_t((a + b - 1) / b);
}

// Words per staged record: f16 deltas of an even stride are staged as stored, two halves a word, which halves the
// morph loop's shared-memory reads and doubles the slots a budget holds (4 % on the H200); odd strides put a
// record's halves across word boundaries, so they are staged as floats like f32.
bool stagesHalves(const GpuPrimitiveInfo& p) {
  return p.layout == DeltaLayout::kDenseF16 && p.target_count > 0 && p.delta.stride > 0 && p.delta.stride % 2 == 0;
}
uint32_t stagedWords(const GpuPrimitiveInfo& p, uint32_t sums) {
  return stagesHalves(p) ? p.delta.stride / 2 : sums;
}

// The specialization constants of crowd.comp (crowd_shared.h CROWD_SC_*), in id order.
std::vector<uint32_t> specialization(const GpuPrimitiveInfo& p, const GpuCrowdInfo& info, bool skinned) {
  std::vector<uint32_t> c(CROWD_SC_COUNT);
  const bool targets = p.target_count > 0 && p.delta.stride > 0;
  c[CROWD_SC_GROUP] = info.group_size;
  c[CROWD_SC_VERTEX_STRIDE] = p.vertex.stride;
  c[CROWD_SC_VERTEX_NORMAL] = p.vertex.normal;
  c[CROWD_SC_VERTEX_TANGENT] = p.vertex.tangent;
  c[CROWD_SC_VERTEX_EXTRA] = p.vertex.extra;
  c[CROWD_SC_DELTA_STRIDE] = targets ? p.delta.stride : 0;
  c[CROWD_SC_DELTA_POSITION] = targets ? p.delta.position : MORPH_ABSENT;
  c[CROWD_SC_DELTA_NORMAL] = targets ? p.delta.normal : MORPH_ABSENT;
  c[CROWD_SC_DELTA_TANGENT] = targets ? p.delta.tangent : MORPH_ABSENT;
  c[CROWD_SC_DELTA_EXTRA] = targets ? p.delta.extra : MORPH_ABSENT;
  c[CROWD_SC_DELTA_EXTRA_COUNT] = targets ? p.delta.extra_count : 0;
  c[CROWD_SC_DELTA_F16] = p.layout == DeltaLayout::kDenseF16 ? 1 : 0;
  c[CROWD_SC_SKINNED] = skinned ? 1 : 0;
  c[CROWD_SC_INFLUENCE_SETS] = skinned ? p.influence_sets : 0;
  c[CROWD_SC_SUMS] = std::max(c[CROWD_SC_DELTA_STRIDE], 1u);
  c[CROWD_SC_ROWS] = std::max(info.rows, 1u);
  c[CROWD_SC_SLOTS] = std::max(info.slots, 1u);
  c[CROWD_SC_STAGED_WORDS] = stagedWords(p, c[CROWD_SC_SUMS]);
  c[CROWD_SC_STAGE_HALVES] = stagesHalves(p) ? 1 : 0;
  return c;
}

Status createPipeline(VulkanContext& context, GpuCrowd& crowd) {
  const std::vector<uint32_t> values = specialization(crowd.primitive->info, crowd.info, crowd.skinned);
  std::vector<VkSpecializationMapEntry> entries(values.size());
  for (uint32_t i = 0; i < entries.size(); ++i) entries[i] = {i, 4 * i, 4};
  VkSpecializationInfo info{};
  info.mapEntryCount = uint32_t(entries.size());
  info.pMapEntries = entries.data();
  info.dataSize = values.size() * 4;
  info.pData = values.data();
  return createComputePipeline(context, gpu::spirv::kCrowd, sizeof(gpu::spirv::kCrowd), sizeof(gpu::CrowdPush),
                               crowd.pipeline, &info);
}

// Rows of CROWD_TILE invocations walk the group's instances; the slots fill the shared-memory budget.
Status planWorkgroup(const VkPhysicalDeviceLimits& limits, const GpuCrowdDesc& d, const GpuCrowdTuning& tuning,
                     const GpuPrimitiveInfo& p, GpuCrowdInfo& info) {
  uint32_t rows = tuning.rows ? tuning.rows : kCrowdDefaultRows;
  while (tuning.rows == 0 && rows > 1 &&
         (rows * CROWD_TILE > limits.maxComputeWorkGroupInvocations || rows > limits.maxComputeWorkGroupSize[1])) {
    rows /= 2;
  }
  if (uint64_t(rows) * CROWD_TILE > limits.maxComputeWorkGroupInvocations || rows > limits.maxComputeWorkGroupSize[1]) {
    return fail(Error::kTooLarge, "createGpuCrowd: rows " + std::to_string(rows) + " needs " +
                                      std::to_string(uint64_t(rows) * CROWD_TILE) +
                                      " invocations per workgroup, the device allows " +
                                      std::to_string(limits.maxComputeWorkGroupInvocations));
  }
  info.rows = rows;
  info.group_size = std::min(tuning.group_size ? tuning.group_size : kCrowdDefaultGroup, d.instance_count);
  const uint64_t budget = std::min<uint64_t>(tuning.shared_budget ? tuning.shared_budget : kCrowdDefaultSharedBudget,
                                             limits.maxComputeSharedMemorySize);
  const uint32_t sums = std::max(p.target_count > 0 ? p.delta.stride : 0u, 1u);
  const uint32_t words = stagedWords(p, sums);
  info.slots = p.target_count > 0 && p.delta.stride > 0 ? crowdSlots(words, p.target_count, budget) : 0;
  info.shared_bytes = 4ull * std::max(info.slots, 1u) * words * CROWD_TILE;
  info.tile_vertices = CROWD_TILE;
  return Ok{};
}

// The active lists: instance_count + 1 offsets padded to 4 words, then at most one uvec4 per (instance, target),
// and 3 of slack (crowd.comp loads a list four entries at a time).
uint64_t activesBytes(uint32_t instances, uint32_t targets) {
  return 4 * crowdEntriesWord(instances) + 16ull * (uint64_t(instances) * targets + 3);
}

Status checkDesc(const GpuCrowdDesc& d) {
  const std::string where = "createGpuCrowd: ";
  if (!d.primitive) return fail(Error::kInvalidArgument, where + "no primitive");
  const GpuPrimitiveInfo& p = d.primitive->info;
  if (d.instance_count == 0)
    return fail(Error::kInvalidArgument, where + "instance_count is 0 (a crowd has at least one instance)");
  if (p.target_count > 0 && p.delta.stride > 0 && p.layout != DeltaLayout::kDenseF32 &&
      p.layout != DeltaLayout::kDenseF16) {
    return fail(Error::kInvalidArgument, where + "the primitive's deltas are " + deltaLayoutName(p.layout) +
                                             "; the crowd kernel reads dense_f32 and dense_f16 "
                                             "(upload with GpuUploadOptions::layout = kDenseF32 or kDenseF16)");
  }
  if (d.skinned && p.influence_sets == 0) {
    return fail(Error::kInvalidArgument, where + "skinned but the primitive has no JOINTS_n/WEIGHTS_n");
  }
  if (d.skinned && d.joint_count < std::max(p.joints_needed, 1u)) {
    return fail(Error::kInvalidArgument, where + std::to_string(d.joint_count) +
                                             " joints, but the primitive references joint " +
                                             std::to_string(p.joints_needed == 0 ? 0 : p.joints_needed - 1));
  }
  return Ok{};
}

// Sizes and limits, checked before anything is allocated.
Status planCrowd(const VulkanContext& context, const GpuCrowdDesc& d, const GpuCrowdTuning& tuning,
                 GpuCrowdInfo& info) {
  if (Status s = checkDesc(d); !s) return s;
  const std::string where = "createGpuCrowd: ";
  const GpuPrimitiveInfo& p = d.primitive->info;
  const VkPhysicalDeviceLimits& limits = context.properties.limits;
  info.instance_count = d.instance_count;
  if (Status s = planWorkgroup(limits, d, tuning, p, info); !s) return s;
  if (info.shared_bytes > limits.maxComputeSharedMemorySize) {
    return fail(Error::kTooLarge, where + "the staged records need " + std::to_string(info.shared_bytes) +
                                      " bytes of shared memory, the device has " +
                                      std::to_string(limits.maxComputeSharedMemorySize));
  }
  info.groups = ceilDiv(d.instance_count, info.group_size);
  info.tiles = ceilDiv(p.vertex_count, info.tile_vertices);
  if (info.tiles > limits.maxComputeWorkGroupCount[0] || info.groups > limits.maxComputeWorkGroupCount[1]) {
    return fail(Error::kTooLarge, where + std::to_string(d.instance_count) + " instances: " +
                                      std::to_string(info.tiles) + " vertex tiles × " + std::to_string(info.groups) +
                                      " instance groups exceed maxComputeWorkGroupCount (" +
                                      std::to_string(limits.maxComputeWorkGroupCount[0]) + ", " +
                                      std::to_string(limits.maxComputeWorkGroupCount[1]) + ")");
  }
  info.matrix_count = relativeMatrixCount(d.skinned, d.joint_count);
  info.instance_bytes = gpuCrowdInstanceBytes(p.vertex_count, p.vertex.stride);
  info.output_bytes = info.instance_bytes * d.instance_count;  // < 2^32 instances × < 2^40 bytes: no overflow
  const uint64_t max = context.max_allocation ? context.max_allocation : UINT64_MAX;
  const uint64_t matrices = uint64_t(d.instance_count) * info.matrix_count * 4 * kCrowdMatrixFloats;
  const uint64_t weights = activesBytes(info.instance_count, p.target_count);
  for (const auto& [what, bytes] : {std::pair<const char*, uint64_t>{"output", info.output_bytes},
                                    {"matrices", matrices},
                                    {"active lists", weights}}) {
    if (bytes > max) {
      return fail(Error::kTooLarge, where + std::to_string(d.instance_count) + " instances: the " + what + " buffer (" +
                                        std::to_string(bytes) + " bytes) exceeds maxMemoryAllocationSize " +
                                        std::to_string(max));
    }
  }
  return Ok{};
}

}  // namespace

uint32_t crowdSlots(uint32_t record_words, uint32_t targets, uint64_t shared_limit) {
  const uint64_t slot_bytes = 4ull * std::max(record_words, 1u) * CROWD_TILE;
  return uint32_t(std::clamp<uint64_t>(shared_limit / slot_bytes, 1, std::max(targets, 1u)));
}

Expected<GpuCrowd*> createGpuCrowd(VulkanContext& context, const GpuCrowdDesc& desc) {
  return createGpuCrowd(context, desc, GpuCrowdTuning{});
}

Expected<GpuCrowd*> createGpuCrowd(VulkanContext& context, const GpuCrowdDesc& desc, const GpuCrowdTuning& tuning) {
  GpuCrowdInfo info;
  if (Status s = planCrowd(context, desc, tuning, info); !s) return s.error();
  auto* crowd = new GpuCrowd();
  crowd->info = info;
  crowd->primitive = desc.primitive;
  crowd->skinned = desc.skinned;
  crowd->joint_count = desc.joint_count;
  auto failWith = [&](const Failure& f) -> Expected<GpuCrowd*> {
    destroyGpuCrowd(context, crowd);
    return f;
  };
  const uint64_t targets = desc.primitive->info.target_count;
  const struct {
    GpuBuffer* buffer;
    uint64_t bytes;
    MemoryUse use;
    VkBufferUsageFlags usage;
  } buffers[] = {
      {&crowd->unions, 4 * (info.groups + 1 + info.groups * targets), MemoryUse::kUpload, 0},
      {&crowd->weights, activesBytes(info.instance_count, uint32_t(targets)), MemoryUse::kUpload, 0},
      {&crowd->matrices, uint64_t(info.instance_count) * info.matrix_count * 4 * kCrowdMatrixFloats, MemoryUse::kUpload,
       0},
      {&crowd->output, info.output_bytes, MemoryUse::kDevice, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT},
  };
  for (const auto& b : buffers) {
    Expected<GpuBuffer> created = createBuffer(context, b.bytes, b.use, b.usage);
    if (!created) return failWith(created.error());
    *b.buffer = *created;
  }
  std::memset(crowd->unions.mapped, 0, size_t(crowd->unions.size));
  if (Status s = createPipeline(context, *crowd); !s) return failWith(s.error());
  return crowd;
}

void destroyGpuCrowd(VulkanContext& context, GpuCrowd* crowd) {
  if (!crowd) return;
  destroyBuffer(context, crowd->unions);
  destroyBuffer(context, crowd->weights);
  destroyBuffer(context, crowd->matrices);
  destroyBuffer(context, crowd->output);
  destroyComputePipeline(context, crowd->pipeline);
  delete crowd;
}

const GpuCrowdInfo& gpuCrowdInfo(const GpuCrowd& crowd) {
  return crowd.info;
}

Status checkGpuCrowdJob(const GpuCrowdJob& job) {
  auto bad = [](const std::string& what) { return Status(fail(Error::kInvalidArgument, "GpuCrowdJob: " + what)); };
  if (!job.context) return bad("no context");
  if (!job.crowd) return bad("no crowd");
  if (!(job.epsilon >= 0.0f)) return bad("epsilon must be >= 0");
  const GpuCrowd& crowd = *job.crowd;
  if (job.instances.size() != crowd.info.instance_count) {
    return bad(std::to_string(job.instances.size()) + " instance states for a crowd of " +
               std::to_string(crowd.info.instance_count));
  }
  const uint32_t targets = crowd.primitive->info.target_count;
  for (size_t i = 0; i < job.instances.size(); ++i) {
    const GpuInstanceState& s = job.instances[i];
    const std::string where = "instances[" + std::to_string(i) + "]: ";
    if (s.weights.size() != targets) {
      return bad(where + std::to_string(s.weights.size()) + " weights, the primitive has " + std::to_string(targets) +
                 " targets");
    }
    const size_t joints = crowd.skinned ? crowd.joint_count : 0;
    if (s.joint_matrices.size() != joints) {
      return bad(where + std::to_string(s.joint_matrices.size()) + " joint matrices, the crowd takes " +
                 std::to_string(joints) + (crowd.skinned ? "" : " (rigid: the world matrix places it)"));
    }
  }
  return Ok{};
}

bool GpuCrowdJob::validate() const {
  return bool(checkGpuCrowdJob(*this));
}

namespace {

void recordCrowdDispatch(const GpuCrowd& crowd, VkCommandBuffer cmd) {
  const GpuPrimitive& p = *crowd.primitive;
  gpu::CrowdPush push{};
  push.base_address = p.vertices.address;
  push.delta_address = p.deltas.address;
  push.skin_address = p.skin.address;
  push.union_address = crowd.unions.address;
  push.weights_address = crowd.weights.address;
  push.matrices_address = crowd.matrices.address;
  push.output_address = crowd.output.address;
  push.instance_bytes = crowd.info.instance_bytes;
  push.vertex_count = p.info.vertex_count;
  push.target_count = p.info.target_count;
  push.instance_count = crowd.info.instance_count;
  push.matrix_count = crowd.info.matrix_count;
  push.groups = crowd.info.groups;
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, crowd.pipeline.pipeline);
  vkCmdPushConstants(cmd, crowd.pipeline.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
  vkCmdDispatch(cmd, crowd.info.tiles, crowd.info.groups, 1);
}

}  // namespace

Status GpuCrowdJob::run() const {
  if (Status s = checkGpuCrowdJob(*this); !s) return s;
  static_assert(sizeof(Mat4) == 64, "matrices are copied as 16 floats");
  const auto host_start = std::chrono::steady_clock::now();
  writeCrowdFrame(*this);
  crowd->last_host_us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - host_start).count();
  Expected<double> us = submitTimedCompute(
      *context, [&](VkCommandBuffer cmd) { recordCrowdDispatch(*crowd, cmd); }, "GpuCrowdJob");
  if (!us) return us.error();
  crowd->last_us = *us;
  return Ok{};
}

double lastCrowdDispatchMicroseconds(const GpuCrowd& crowd) {
  return crowd.last_us;
}
double lastCrowdHostMicroseconds(const GpuCrowd& crowd) {
  return crowd.last_host_us;
}
int64_t crowdPipelineRegisters(VulkanContext& context, const GpuCrowd& crowd) {
  return pipelineRegisters(context, crowd.pipeline.pipeline);
}

std::string crowdPipelineReport(VulkanContext& context, const GpuCrowd& crowd) {
  return pipelineReport(context, crowd.pipeline.pipeline);
}
uint64_t lastCrowdRecordReads(const GpuCrowd& crowd) {
  return crowd.last_reads;
}

Expected<std::vector<float>> readGpuCrowdOutput(VulkanContext& context, const GpuCrowd& crowd, uint32_t instance) {
  if (instance >= crowd.info.instance_count) {
    return fail(Error::kInvalidArgument, "readGpuCrowdOutput: instance " + std::to_string(instance) +
                                             " out of range (" + std::to_string(crowd.info.instance_count) +
                                             " instances)");
  }
  const GpuPrimitiveInfo& p = crowd.primitive->info;
  std::vector<float> out(size_t(p.vertex_count) * p.vertex.stride);
  Status s =
      downloadFromBuffer(context, crowd.output, instance * crowd.info.instance_bytes, out.data(), out.size() * 4);
  if (!s) return s.error();
  return out;
}

Expected<PrimitiveData> readGpuCrowdVertices(VulkanContext& context, const GpuCrowd& crowd, uint32_t instance) {
  Expected<std::vector<float>> raw = readGpuCrowdOutput(context, crowd, instance);
  if (!raw) return raw.error();
  const GpuPrimitiveInfo& info = crowd.primitive->info;
  PrimitiveData out;
  unpackVertices(info.vertex, info.vertex_count, raw->data(), out);
  return out;
}

// ---- Engine interop (morphkit/vk/gpu_interop.h) ----
Status recordGpuCrowdJob(const GpuCrowdJob& job, VkCommandBuffer cmd) {
  if (Status s = checkGpuCrowdJob(job); !s) return s;
  if (cmd == VK_NULL_HANDLE) return fail(Error::kInvalidArgument, "recordGpuCrowdJob: no command buffer");
  writeCrowdFrame(job);
  recordCrowdDispatch(*job.crowd, cmd);
  return Ok{};
}

uint64_t gpuCrowdInstanceBytes(uint64_t vertex_count, uint32_t vertex_stride_floats) {
  const uint64_t pitch = std::lcm<uint64_t>(kOutputAlignment, std::max<uint64_t>(vertex_stride_floats, 1) * 4);
  return (vertex_count * vertex_stride_floats * 4 + pitch - 1) / pitch * pitch;
}

Expected<GpuOutputBuffer> gpuCrowdOutput(const GpuCrowd& crowd, uint32_t instance) {
  if (instance >= crowd.info.instance_count) {
    return fail(Error::kInvalidArgument, "gpuCrowdOutput: instance " + std::to_string(instance) + " out of range (" +
                                             std::to_string(crowd.info.instance_count) + " instances)");
  }
  const GpuPrimitiveInfo& info = crowd.primitive->info;
  auto bytes = [](uint32_t floats) { return floats == kLayoutAbsent ? kLayoutAbsent : floats * 4; };
  GpuOutputBuffer out;
  out.buffer = crowd.output.buffer;
  out.offset = instance * crowd.info.instance_bytes;
  out.size = VkDeviceSize(info.vertex_count) * info.vertex.stride * 4;
  out.vertex_count = info.vertex_count;
  out.stride = info.vertex.stride * 4;
  out.position_offset = 0;
  out.normal_offset = bytes(info.vertex.normal);
  out.tangent_offset = bytes(info.vertex.tangent);
  out.extra_offset = bytes(info.vertex.extra);
  out.texcoord_sets = info.vertex.texcoord_sets;
  out.color_sets = info.vertex.color_sets;
  return out;
}

}  // namespace morphkit
