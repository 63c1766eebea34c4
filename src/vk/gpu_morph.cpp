// SPDX-License-Identifier: MIT
// GPU primitives, groups and the morph job (morphkit/vk/gpu.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "gpu_internal.h"
#include "morph_shared.h"
#include "morphkit/core/deform.h"
#include "morphkit/pack/active_targets.h"
#include "morphkit/pack/sliced_sparse.h"
#include "morphkit/vk/gpu.h"
#include "morphkit/vk/gpu_interop.h"
#include "morphkit_spirv/morph.h"
#include "morphkit_spirv/morph_storage16.h"
#include "vk_context.h"

namespace morphkit {

// The dense layouts' active list is written straight from the pack module's ActiveTarget list.
static_assert(sizeof(ActiveTarget) == sizeof(gpu::MorphActiveTarget) &&
              offsetof(ActiveTarget, target) == offsetof(gpu::MorphActiveTarget, target) &&
              offsetof(ActiveTarget, weight) == offsetof(gpu::MorphActiveTarget, weight));

// morph.comp indexes a delta buffer with 32-bit element indices (f16/snorm16 elements at worst: 2 bytes), so one
// delta buffer stays below 8 GiB; maxMemoryAllocationSize is smaller on every device we know.
constexpr uint64_t kMaxDeltaBufferBytes = uint64_t(2) << 32;
static_assert(kDeltaTileVertices == MORPH_GROUP_SIZE, "a dense delta tile is one workgroup's vertices");
static_assert(kSlicedAbsentTarget == MORPH_ABSENT, "a sliced sparse lane without a record reads as absent");

struct GpuMorphGroup {
  struct Instance {
    const GpuPrimitive* primitive = nullptr;
    bool skinned = false;
    uint32_t matrix_count = 0;  // joint_count, or 2 (model + normal matrix)
    VkDeviceSize output_offset = 0, output_bytes = 0;
    size_t weights_offset = 0, active_offset = 0, matrices_offset = 0;  // into `dynamic`
    // What the GPU copy holds, so a run writes only what changed.
    std::vector<float> weights;
    std::vector<ActiveTarget> active;
    std::vector<Mat4> matrices;
    bool written = false;
  };
  std::vector<Instance> instances;
  std::vector<gpu::MorphEntry> entries;  // mirror of `table`
  GpuBuffer table;                       // MorphEntry[], host-visible (active_count changes per frame)
  GpuBuffer dynamic;                     // weights, active lists, matrices, host-visible
  GpuBuffer output;                      // deformed vertices, device-local, STORAGE | VERTEX
  ComputePipeline morph;      // morph.comp (16-bit storage variant where the device has it): only groups carry it
  bool owns_pipeline = true;  // false: borrowed from another group (createGpuMorphGroupSharingPipeline)
  uint32_t total_groups = 0;
  uint32_t steps[2] = {2, 4};  // morph.comp's MORPH_SC_F32_TARGETS_PER_STEP, MORPH_SC_F16_TARGETS_PER_STEP
  double last_us = std::nan("");
};

namespace {

size_t alignUp(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

template <class T>
Status uploadVector(VulkanContext& context, const std::vector<T>& data, GpuBuffer& buffer) {
  Expected<GpuBuffer> created = createBuffer(context, data.size() * sizeof(T), MemoryUse::kDevice);
  if (!created) return created.error();
  buffer = *created;
  return uploadToBuffer(context, buffer, 0, data.data(), data.size() * sizeof(T));
}

void destroyPrimitiveBuffers(VulkanContext& context, GpuPrimitive& p) {
  destroyBuffer(context, p.vertices);
  destroyBuffer(context, p.deltas);
  destroyBuffer(context, p.rows);
  destroyBuffer(context, p.skin);
}

bool sameMatrix(const Mat4& a, const Mat4& b) {
  return std::memcmp(a.m.data(), b.m.data(), sizeof(float) * 16) == 0;
}

}  // namespace

Expected<GpuPrimitive*> uploadGpuPrimitive(VulkanContext& context, const PrimitiveData& data,
                                           const GpuUploadOptions& options) {
  const std::string where = "mesh " + std::to_string(data.mesh) + " primitive " + std::to_string(data.primitive);
  if (data.vertex_count == 0 || data.position.size() != size_t(data.vertex_count) * 3) {
    return fail(Error::kInvalidArgument,
                "uploadGpuPrimitive: " + where + ": POSITION must have 3 × vertex_count floats");
  }
  auto* p = new GpuPrimitive();
  GpuPrimitiveInfo& info = p->info;
  info.vertex_count = data.vertex_count;
  info.target_count = uint32_t(data.targets.size());
  float lo[3] = {HUGE_VALF, HUGE_VALF, HUGE_VALF}, hi[3] = {-HUGE_VALF, -HUGE_VALF, -HUGE_VALF};
  for (size_t k = 0; k < data.position.size(); ++k) {
    lo[k % 3] = std::min(lo[k % 3], data.position[k]);
    hi[k % 3] = std::max(hi[k % 3], data.position[k]);
  }
  for (int c = 0; c < 3; ++c) info.pivot[c] = std::isfinite(lo[c] + hi[c]) ? 0.5f * lo[c] + 0.5f * hi[c] : 0.0f;
  PackedVertices vertices = packVertices(data);
  info.vertex = vertices.format;
  auto failWith = [&](const Failure& f) -> Expected<GpuPrimitive*> {
    destroyPrimitiveBuffers(context, *p);
    delete p;
    return f;
  };
  Status s = uploadVector(context, vertices.data, p->vertices);
  if (!s) return failWith(s.error());

  Expected<DeltaFormat> format = deltaFormat(data);
  if (!format) return failWith(format.error());
  info.delta = *format;
  info.layout = options.layout ? *options.layout : chooseDeltaLayout(data, options.sparse_ratio);
  if (info.target_count > 0 && info.delta.stride > 0) {
    if (info.layout == DeltaLayout::kDenseF16 && f16DeltaError(data).overflow) {
      return failWith(
          fail(Error::kInvalidArgument, "uploadGpuPrimitive: " + where + ": a delta exceeds the f16 range (65504)"));
    }
    Expected<PackedDeltas> packed = packDeltas(data, info.layout);
    if (!packed) return failWith(packed.error());
    if (packed->bytes.size() >= kMaxDeltaBufferBytes) {
      return failWith(
          fail(Error::kTooLarge, "uploadGpuPrimitive: " + where + ": " + std::to_string(packed->bytes.size()) +
                                     " bytes of deltas exceed the kernel's 32-bit element indexing (8 GiB)"));
    }
    p->target_bytes = packed->target_bytes;
    info.record_count = packed->record_count;
    if (info.layout == DeltaLayout::kSparse) {
      Expected<SlicedSparse> sliced = sliceSparse(*packed, MORPH_GROUP_SIZE, kMaxDeltaBufferBytes / 4);
      if (!sliced) return failWith(sliced.error());
      info.delta_bytes = 4 * (sliced->words.size() + sliced->tiles.size());
      s = uploadVector(context, sliced->words, p->deltas);
      if (s) s = uploadVector(context, sliced->tiles, p->rows);
    } else {
      info.delta_bytes = packed->bytes.size();
      s = uploadVector(context, packed->bytes, p->deltas);
    }
    if (!s) return failWith(s.error());
  }
  PackedSkin skin = packSkin(data);
  info.influence_sets = skin.influence_sets;
  info.joints_needed = skin.joints_needed;
  if (skin.influence_sets > 0) {
    s = uploadVector(context, skin.words, p->skin);
    if (!s) return failWith(s.error());
  }
  return p;
}

void destroyGpuPrimitive(VulkanContext& context, GpuPrimitive* primitive) {
  if (!primitive) return;
  destroyPrimitiveBuffers(context, *primitive);
  delete primitive;
}

const GpuPrimitiveInfo& gpuPrimitiveInfo(const GpuPrimitive& primitive) {
  return primitive.info;
}

Expected<GpuMorphGroup*> createGpuMorphGroup(VulkanContext& context, std::span<const GpuInstanceDesc> descs) {
  return createGpuMorphGroupWithStep(context, descs, 0, 0);
}

namespace {

Expected<GpuMorphGroup*> createGroup(VulkanContext& context, std::span<const GpuInstanceDesc> descs,
                                     uint32_t f32_targets_per_step, uint32_t f16_targets_per_step,
                                     const GpuMorphGroup* lender) {
  if (f32_targets_per_step != 0 && f32_targets_per_step != 2 && f32_targets_per_step != 4) {
    return fail(Error::kInvalidArgument, "createGpuMorphGroup: f32 targets per step must be 2 or 4 (0: automatic)");
  }
  if (f16_targets_per_step != 0 && f16_targets_per_step != 4 && f16_targets_per_step != 8) {
    return fail(Error::kInvalidArgument, "createGpuMorphGroup: f16 targets per step must be 4 or 8 (0: automatic)");
  }
  auto* group = new GpuMorphGroup();
  auto failWith = [&](const Failure& f) -> Expected<GpuMorphGroup*> {
    destroyGpuMorphGroup(context, group);
    return f;
  };
  size_t dynamic_bytes = 0;
  VkDeviceSize output_bytes = 0;
  uint64_t groups = 0;
  for (size_t i = 0; i < descs.size(); ++i) {
    const GpuInstanceDesc& d = descs[i];
    const std::string where = "createGpuMorphGroup: instances[" + std::to_string(i) + "]";
    if (!d.primitive) return failWith(fail(Error::kInvalidArgument, where + ": no primitive"));
    const GpuPrimitiveInfo& info = d.primitive->info;
    if (d.skinned && info.influence_sets == 0) {
      return failWith(fail(Error::kInvalidArgument, where + ": skinned but the primitive has no JOINTS_n/WEIGHTS_n"));
    }
    if (d.skinned && d.joint_count < std::max(info.joints_needed, 1u)) {
      return failWith(fail(Error::kInvalidArgument, where + ": " + std::to_string(d.joint_count) +
                                                        " joints, but the primitive references joint " +
                                                        std::to_string(info.joints_needed - 1)));
    }
    GpuMorphGroup::Instance inst;
    inst.primitive = d.primitive;
    inst.skinned = d.skinned;
    inst.matrix_count = relativeMatrixCount(d.skinned, d.joint_count);
    inst.weights_offset = dynamic_bytes;
    dynamic_bytes = alignUp(dynamic_bytes + 4 * size_t(info.target_count), 16);
    inst.active_offset = dynamic_bytes;
    dynamic_bytes = alignUp(dynamic_bytes + sizeof(ActiveTarget) * info.target_count, 16);
    inst.matrices_offset = dynamic_bytes;
    dynamic_bytes = alignUp(dynamic_bytes + sizeof(float) * 16 * inst.matrix_count, 16);
    inst.output_offset = output_bytes;
    inst.output_bytes = VkDeviceSize(info.vertex_count) * info.vertex.stride * 4;
    output_bytes = alignUp(size_t(output_bytes + inst.output_bytes), kOutputAlignment);

    gpu::MorphEntry e{};
    e.first_group = uint32_t(groups);
    groups += (info.vertex_count + MORPH_GROUP_SIZE - 1) / MORPH_GROUP_SIZE;
    if (groups > uint64_t(MORPH_MAX_GROUPS_X) * MORPH_MAX_GROUPS_X) {
      return failWith(fail(Error::kTooLarge, "createGpuMorphGroup: too many vertices for one dispatch"));
    }
    e.vertex_count = info.vertex_count;
    e.target_count = info.target_count;
    e.active_count = 0;
    e.flags = uint32_t(info.layout == DeltaLayout::kDenseF32       ? MORPH_LAYOUT_DENSE_F32
                       : info.layout == DeltaLayout::kDenseF16     ? MORPH_LAYOUT_DENSE_F16
                       : info.layout == DeltaLayout::kDenseSnorm16 ? MORPH_LAYOUT_DENSE_SNORM16
                                                                   : MORPH_LAYOUT_SPARSE);
    if (info.target_count > 0 && info.delta.stride > 0) e.flags |= MORPH_FLAG_HAS_TARGETS;
    e.flags |= d.skinned ? MORPH_FLAG_SKINNED : MORPH_FLAG_TRANSFORM;
    e.vertex_stride = info.vertex.stride;
    e.vertex_normal = info.vertex.normal;
    e.vertex_tangent = info.vertex.tangent;
    e.vertex_extra = info.vertex.extra;
    e.delta_stride = info.delta.stride;
    e.delta_position = info.delta.position;
    e.delta_normal = info.delta.normal;
    e.delta_tangent = info.delta.tangent;
    e.delta_extra = info.delta.extra;
    e.delta_extra_count = info.delta.extra_count;
    e.influence_sets = info.influence_sets;
    e.base_address = d.primitive->vertices.address;
    e.delta_address = d.primitive->deltas.address;
    e.rows_address = d.primitive->rows.address;
    e.skin_address = d.primitive->skin.address;
    e.target_bytes = d.primitive->target_bytes;
    group->entries.push_back(e);
    group->instances.push_back(std::move(inst));
  }
  group->total_groups = uint32_t(groups);

  Expected<GpuBuffer> table =
      createBuffer(context, sizeof(gpu::MorphEntry) * group->entries.size(), MemoryUse::kUpload);
  if (!table) return failWith(table.error());
  group->table = *table;
  Expected<GpuBuffer> dynamic = createBuffer(context, dynamic_bytes, MemoryUse::kUpload);
  if (!dynamic) return failWith(dynamic.error());
  group->dynamic = *dynamic;
  std::memset(group->dynamic.mapped, 0, size_t(group->dynamic.size));
  Expected<GpuBuffer> output =
      createBuffer(context, output_bytes, MemoryUse::kDevice, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
  if (!output) return failWith(output.error());
  group->output = *output;

  for (size_t i = 0; i < group->entries.size(); ++i) {
    gpu::MorphEntry& e = group->entries[i];
    const GpuMorphGroup::Instance& inst = group->instances[i];
    e.weights_address = group->dynamic.address + inst.weights_offset;
    e.active_address = group->dynamic.address + inst.active_offset;
    e.matrices_address = group->dynamic.address + inst.matrices_offset;
    e.output_address = group->output.address + inst.output_offset;
  }
  std::memcpy(group->table.mapped, group->entries.data(), sizeof(gpu::MorphEntry) * group->entries.size());
  if (lender) {  // the lender's pipeline and its specialization: the same code, so the same bits
    group->morph = lender->morph;
    group->owns_pipeline = false;
    std::copy(std::begin(lender->steps), std::end(lender->steps), group->steps);
    return group;
  }
  group->steps[0] = f32_targets_per_step != 0                          ? f32_targets_per_step
                    : group->total_groups < MORPH_WIDE_STEP_MAX_GROUPS ? 4u
                                                                       : 2u;
  const bool only_f16 = !descs.empty() && std::all_of(descs.begin(), descs.end(), [](const GpuInstanceDesc& d) {
    return d.primitive && d.primitive->info.layout == DeltaLayout::kDenseF16;
  });
  group->steps[1] = f16_targets_per_step != 0 ? f16_targets_per_step : only_f16 ? 8u : 4u;
  const VkSpecializationMapEntry step_entries[2] = {
      {MORPH_SC_F32_TARGETS_PER_STEP, 0, sizeof(uint32_t)},
      {MORPH_SC_F16_TARGETS_PER_STEP, sizeof(uint32_t), sizeof(uint32_t)}};
  const VkSpecializationInfo specialization{2, step_entries, sizeof group->steps, group->steps};
  const Status pipeline =
      context.info.storage_16bit
          ? createComputePipeline(context, gpu::spirv::kMorphStorage16, sizeof(gpu::spirv::kMorphStorage16),
                                  sizeof(gpu::MorphPush), group->morph, &specialization)
          : createComputePipeline(context, gpu::spirv::kMorph, sizeof(gpu::spirv::kMorph), sizeof(gpu::MorphPush),
                                  group->morph, &specialization);
  if (!pipeline) return failWith(pipeline.error());
  return group;
}

}  // namespace

Expected<GpuMorphGroup*> createGpuMorphGroupWithStep(VulkanContext& context, std::span<const GpuInstanceDesc> descs,
                                                     uint32_t f32_targets_per_step, uint32_t f16_targets_per_step) {
  return createGroup(context, descs, f32_targets_per_step, f16_targets_per_step, nullptr);
}

Expected<GpuMorphGroup*> createGpuMorphGroupSharingPipeline(VulkanContext& context,
                                                            std::span<const GpuInstanceDesc> descs,
                                                            const GpuMorphGroup& lender) {
  return createGroup(context, descs, 0, 0, &lender);
}

const GpuBuffer& gpuMorphGroupBuffer(const GpuMorphGroup& group) {
  return group.output;
}
VkDeviceSize gpuMorphGroupOutputBytes(const GpuMorphGroup& group) {
  return group.output.size;
}

int64_t groupPipelineRegisters(VulkanContext& context, const GpuMorphGroup& group) {
  return pipelineRegisters(context, group.morph.pipeline);
}

void destroyGpuMorphGroup(VulkanContext& context, GpuMorphGroup* group) {
  if (!group) return;
  destroyBuffer(context, group->table);
  destroyBuffer(context, group->dynamic);
  destroyBuffer(context, group->output);
  if (group->owns_pipeline) destroyComputePipeline(context, group->morph);
  delete group;
}

// The matrices block of one instance (docs/LAYOUTS.md §5). Far from the origin a float matrix cannot place a
// small primitive to 1e-5 of its size (a float at 22 is good to 1.9e-6), so the split happens here, in double:
//   origin o = M·pivot (rigid) or the mean of M_j·pivot (skinned), stored as o_hi = float(o), o_lo = float(o − o_hi);
//   each matrix keeps its 3×3 and gets translation float(M·pivot − o), small;
// morph.comp (and crowd.comp) compute M'·(p − pivot) (all small numbers), add o_lo, then o_hi last, rounding once
// at full size.
std::vector<Mat4> relativeMatrices(const float pivot[3], bool skinned, std::span<const DMat4> joints,
                                   const DMat4& world) {
  std::vector<Mat4> out(relativeMatrixCount(skinned, joints.size()));
  relativeMatrices(pivot, skinned, joints, world, out);
  return out;
}

void relativeMatrices(const float pivot[3], bool skinned, std::span<const DMat4> joints, const DMat4& world,
                      std::span<Mat4> out) {
  std::span<const DMat4> sources = skinned ? joints : std::span<const DMat4>(&world, 1);
  const DVec3 origin = splitOrigin(sources, pivot);  // the one origin split (deform.h)
  const float hi[3] = {float(origin.x), float(origin.y), float(origin.z)};
  Mat4& block = out[0];
  block.m = {pivot[0],
             pivot[1],
             pivot[2],
             0,
             hi[0],
             hi[1],
             hi[2],
             0,
             float(origin.x - hi[0]),
             float(origin.y - hi[1]),
             float(origin.z - hi[2]),
             0,
             0,
             0,
             0,
             0};
  for (size_t j = 0; j < sources.size(); ++j) {
    const DMat4& m = sources[j];
    Mat4& relative = out[1 + j];
    relative = toFloat(m);
    const DVec3 r = pivotPlaced(m, pivot);
    relative(0, 3) = float(r.x - origin.x);
    relative(1, 3) = float(r.y - origin.y);
    relative(2, 3) = float(r.z - origin.z);
  }
  if (!skinned) out[2] = normalMatrix(toFloat(world));
}

bool GpuMorphJob::validate() const {
  if (!context || !group || !(epsilon >= 0.0f)) return false;
  if (instances.size() != group->instances.size()) return false;
  for (size_t i = 0; i < instances.size(); ++i) {
    const GpuMorphGroup::Instance& inst = group->instances[i];
    if (instances[i].weights.size() != inst.primitive->info.target_count) return false;
    if (inst.skinned ? instances[i].joint_matrices.size() + 1 != inst.matrix_count
                     : !instances[i].joint_matrices.empty())
      return false;
  }
  return true;
}

namespace {

// Writes the job's weights, active lists and matrices into the group's host-visible memory (only what changed).
// The job is valid.
void writeInstanceData(const GpuMorphJob& job) {
  GpuMorphGroup* group = job.group;
  const std::span<const GpuInstanceState> instances = job.instances;
  const float epsilon = job.epsilon;
  auto* dynamic = static_cast<uint8_t*>(group->dynamic.mapped);
  auto* table = static_cast<gpu::MorphEntry*>(group->table.mapped);
  std::vector<ActiveTarget> active;
  std::vector<Mat4> matrices;  // one instance's relative matrices; its capacity is reused across the instances
  for (size_t i = 0; i < instances.size(); ++i) {
    GpuMorphGroup::Instance& inst = group->instances[i];
    const GpuInstanceState& state = instances[i];
    const uint32_t targets = inst.primitive->info.target_count;
    if (!inst.written) {
      inst.weights.assign(targets, 0.0f);
      inst.active.assign(targets, ActiveTarget{});
    }
    // The one rule (morphkit/pack/active_targets.h): an inactive weight is 0 in the weights array (the sparse layout
    // reads it) and absent from the list (the dense layouts read it); only what changed is written.
    auto* weights = reinterpret_cast<float*>(dynamic + inst.weights_offset);
    for (uint32_t t = 0; t < targets; ++t) {
      const float w = activeWeight(state.weights[t], epsilon);
      if (!inst.written || std::memcmp(&w, &inst.weights[t], 4) != 0) {
        weights[t] = w;
        inst.weights[t] = w;
      }
    }
    buildActiveTargets(state.weights.subspan(0, targets), epsilon, active);
    auto* list = reinterpret_cast<ActiveTarget*>(dynamic + inst.active_offset);
    for (size_t k = 0; k < active.size(); ++k) {
      if (!inst.written || active[k].target != inst.active[k].target ||
          std::memcmp(&active[k].weight, &inst.active[k].weight, 4) != 0) {
        list[k] = active[k];
        inst.active[k] = active[k];
      }
    }
    if (!inst.written || group->entries[i].active_count != active.size()) {
      group->entries[i].active_count = uint32_t(active.size());
      table[i].active_count = uint32_t(active.size());
    }
    matrices.resize(inst.matrix_count);  // validate() checked the job's joints against it
    relativeMatrices(inst.primitive->info.pivot, inst.skinned, state.joint_matrices, state.world, matrices);
    if (inst.matrices.size() != matrices.size()) inst.matrices.assign(matrices.size(), Mat4{});
    auto* gpu_matrices = reinterpret_cast<float*>(dynamic + inst.matrices_offset);
    for (size_t m = 0; m < matrices.size(); ++m) {
      if (!inst.written || !sameMatrix(matrices[m], inst.matrices[m])) {
        std::memcpy(gpu_matrices + 16 * m, matrices[m].m.data(), sizeof(float) * 16);
        inst.matrices[m] = matrices[m];
      }
    }
    inst.written = true;
  }
}

// The dispatch over every instance of the group: bind, push constants, vkCmdDispatch (nothing when empty).
void recordDispatch(const GpuMorphGroup& group, VkCommandBuffer cmd) {
  if (group.total_groups == 0) return;
  const DispatchGrid grid = dispatchGrid(group.total_groups);
  gpu::MorphPush push{};
  push.table_address = group.table.address;
  push.entry_count = uint32_t(group.entries.size());
  push.total_groups = group.total_groups;
  push.groups_x = grid.x;
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, group.morph.pipeline);
  vkCmdPushConstants(cmd, group.morph.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
  vkCmdDispatch(cmd, grid.x, grid.y, 1);
}

}  // namespace

Status GpuMorphJob::run() const {
  if (!validate())
    return fail(Error::kInvalidArgument, "GpuMorphJob: invalid job (weights/matrices do not match the group)");
  writeInstanceData(*this);
  Expected<double> us = submitTimedCompute(
      *context, [&](VkCommandBuffer cmd) { recordDispatch(*group, cmd); }, "GpuMorphJob");
  if (!us) return us.error();
  group->last_us = *us;
  return Ok{};
}

double lastDispatchMicroseconds(const GpuMorphGroup& group) {
  return group.last_us;
}

uint32_t lastActiveCount(const GpuMorphGroup& group, uint32_t instance) {
  return instance < group.entries.size() ? group.entries[instance].active_count : 0;
}

Expected<std::vector<float>> readGpuMorphGroupOutput(VulkanContext& context, const GpuMorphGroup& group,
                                                     uint32_t instance) {
  if (instance >= group.instances.size()) {
    return fail(Error::kInvalidArgument,
                "readGpuMorphGroupOutput: instance " + std::to_string(instance) + " out of range");
  }
  const GpuMorphGroup::Instance& inst = group.instances[instance];
  std::vector<float> out(size_t(inst.output_bytes / 4));
  Status s = downloadFromBuffer(context, group.output, inst.output_offset, out.data(), inst.output_bytes);
  if (!s) return s.error();
  return out;
}

Expected<PrimitiveData> readGpuMorphGroupVertices(VulkanContext& context, const GpuMorphGroup& group,
                                                  uint32_t instance) {
  Expected<std::vector<float>> raw = readGpuMorphGroupOutput(context, group, instance);
  if (!raw) return raw.error();
  const GpuPrimitiveInfo& info = group.instances[instance].primitive->info;
  PrimitiveData out;
  unpackVertices(info.vertex, info.vertex_count, raw->data(), out);
  return out;
}

}  // namespace morphkit

namespace morphkit {

Status recordGpuMorphJob(const GpuMorphJob& job, VkCommandBuffer cmd) {
  if (!job.validate())
    return fail(Error::kInvalidArgument, "recordGpuMorphJob: invalid job (weights/matrices do not match the group)");
  if (cmd == VK_NULL_HANDLE) return fail(Error::kInvalidArgument, "recordGpuMorphJob: no command buffer");
  writeInstanceData(job);
  recordDispatch(*job.group, cmd);
  return Ok{};
}

Expected<GpuOutputBuffer> gpuMorphGroupOutput(const GpuMorphGroup& group, uint32_t instance) {
  if (instance >= group.instances.size()) {
    return fail(Error::kInvalidArgument, "gpuMorphGroupOutput: instance " + std::to_string(instance) +
                                             " out of range (" + std::to_string(group.instances.size()) +
                                             " instances)");
  }
  const GpuMorphGroup::Instance& inst = group.instances[instance];
  const GpuPrimitiveInfo& info = inst.primitive->info;
  auto bytes = [](uint32_t floats) { return floats == kLayoutAbsent ? kLayoutAbsent : floats * 4; };
  GpuOutputBuffer out;
  out.buffer = group.output.buffer;
  out.offset = inst.output_offset;
  out.size = inst.output_bytes;
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

GpuBufferRange gpuMorphGroupOutputRange(const GpuMorphGroup& group, uint32_t instance) {
  if (instance >= group.instances.size()) return {};
  const GpuMorphGroup::Instance& entry = group.instances[instance];
  return {group.output.buffer, entry.output_offset, entry.output_bytes};
}

}  // namespace morphkit
