// SPDX-License-Identifier: MIT
// The crowd path (RenderOptions::crowd): the copies of each (node, primitive) are one GpuCrowd (src/vk,
// shaders/crowd.comp), so each frame one dispatch per primitive morphs and skins every copy, and each copy's draw
// reads the crowd's output as its vertex buffer (compute-path design §3: no copy, no readback), as the compute path
// does for its batch. The output is in world space with the copy's placement applied: plain mesh.vert, and every copy's
// object uniforms are the same, so the copies of an opaque or masked primitive are one indirect draw (one command per
// copy, each at its copy's vertex offset into one binding of the output); BLEND copies are drawn one by one, sorted.
#include <algorithm>
#include <cstring>

#include "morphkit/vk/gpu_crowd.h"
#include "morphkit/vk/gpu_interop.h"
#include "renderer_state.h"

namespace morphkit {

namespace {

class CrowdPath final : public DeformPath {
 public:
  Status addPrimitive(Renderer& r, uint32_t index) override;
  Status addDraw(Renderer& r, uint32_t draw) override;
  Status finishDraws(Renderer& r) override;
  Status updateDraw(Renderer& r, uint32_t draw, const DrawFrame& frame) override;
  Status recordDispatch(Renderer& r, VkCommandBuffer cmd) override;
  bool dispatches() const override { return !groups_.empty(); }
  Expected<PipelineStages> stages(Renderer& r, const Draw& d, Pass) override {
    return meshStages(*r.ctx, r.mesh_program, d.layout_bits);
  }
  void bind(const Renderer& r, VkCommandBuffer cmd, uint32_t draw, Pass pass) const override {
    bindDeformedDraw(r, cmd, r.draws[draw], draws_[draw].mesh, pass, draws_[draw].output.buffer,
                     draws_[draw].output.offset);
  }
  bool recordDraw(const Renderer& r, VkCommandBuffer cmd, uint32_t draw) const override;
  bool drawnWithAnother(const Renderer& r, uint32_t draw) const override {
    return groups_[draw % groups_.size()].one_draw && r.draws[draw].copy > 0;
  }
  void destroy(VulkanContext& ctx) override;

 private:
  struct DrawState {
    MeshDraw mesh;
    GpuOutputBuffer output;  // this copy's range of its crowd's output
    std::vector<float> weights;
    std::vector<DMat4> joints;
  };
  // One (node, primitive) of the scene: its copies, draws group + copy · per_copy.
  struct Group {
    GpuCrowd* crowd = nullptr;
    std::vector<GpuInstanceState> states;  // the job's input, one per copy
    bool one_draw = false;                 // every copy by one indirect draw (not BLEND, offsets fit)
    GpuBuffer commands;                    // one VkDraw(Indexed)IndirectCommand per copy
    uint32_t pitch_vertices = 0;           // copy i's vertices start at i × pitch_vertices in the output
  };
  Status prepareOneDraw(Renderer& r, uint32_t group);
  std::vector<GpuPrimitive*> primitives_;
  std::vector<DrawState> draws_;
  std::vector<Group> groups_;
};

// Dense f32 deltas whatever chooseDeltaLayout would pick: the crowd kernel stages dense records.
Status CrowdPath::addPrimitive(Renderer& r, uint32_t index) {
  const PrimitiveData& data = r.prepared.primitives[r.primitives[index].data];
  GpuUploadOptions upload;
  upload.layout = DeltaLayout::kDenseF32;
  Expected<GpuPrimitive*> uploaded = uploadGpuPrimitive(*r.ctx, data, upload);
  if (!uploaded)
    return fail(uploaded.error().code, primitiveName(data.mesh, data.primitive) + ": " + uploaded.error().message);
  primitives_.push_back(*uploaded);
  return Ok{};
}

Status CrowdPath::addDraw(Renderer& r, uint32_t index) {
  DrawState& state = draws_.emplace_back();
  return createMeshDraw(r, r.draws[index].layout_bits, {}, state.mesh);
}

Status CrowdPath::finishDraws(Renderer& r) {
  const uint32_t copies = r.options.instances;
  if (draws_.empty()) return Ok{};
  const uint32_t per_copy = uint32_t(draws_.size()) / copies;
  groups_.resize(per_copy);
  for (uint32_t g = 0; g < per_copy; ++g) {
    const Draw& d = r.draws[g];
    GpuCrowdDesc desc;
    desc.primitive = primitives_[d.primitive];
    desc.instance_count = copies;
    desc.skinned = d.skin != kNone;
    desc.joint_count = d.skin != kNone ? uint32_t(r.asset->skins[d.skin].joints.size()) : 0;
    Expected<GpuCrowd*> crowd = createGpuCrowd(*r.ctx, desc);
    const PrimitiveData& data = r.prepared.primitives[r.primitives[d.primitive].data];
    if (!crowd) {
      return fail(crowd.error().code, "--crowd " + std::to_string(copies) + ": " +
                                          primitiveName(data.mesh, data.primitive) + ": " + crowd.error().message);
    }
    groups_[g].crowd = *crowd;
    groups_[g].states.resize(copies);
    for (uint32_t copy = 0; copy < copies; ++copy) {
      Expected<GpuOutputBuffer> output = gpuCrowdOutput(**crowd, copy);
      if (!output) return output.error();
      draws_[copy * per_copy + g].output = *output;
    }
    if (Status s = prepareOneDraw(r, g); !s) return s;
  }
  return Ok{};
}

// The group's indirect commands, written once: copy i at vertex offset i × pitch_vertices, one instance each.
Status CrowdPath::prepareOneDraw(Renderer& r, uint32_t g) {
  Group& group = groups_[g];
  const Draw& d = r.draws[g];
  const PrimitiveGpu& prim = r.primitives[d.primitive];
  const uint32_t copies = r.options.instances;
  const uint64_t pitch = gpuCrowdInfo(*group.crowd).instance_bytes / draws_[g].output.stride;
  const bool fits = pitch * copies <= uint64_t(INT32_MAX);  // vertexOffset is an int32_t
  if (r.materials.materials[d.material].alpha == AlphaMode::kBlend || !fits) return Ok{};
  const bool indexed = prim.index_count > 0;
  const VkDeviceSize bytes =
      VkDeviceSize(copies) * (indexed ? sizeof(VkDrawIndexedIndirectCommand) : sizeof(VkDrawIndirectCommand));
  Expected<GpuBuffer> commands = createBuffer(*r.ctx, bytes, MemoryUse::kUpload, VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);
  if (!commands) return commands.error();
  group.commands = *commands;
  group.pitch_vertices = uint32_t(pitch);
  for (uint32_t copy = 0; copy < copies; ++copy) {
    if (indexed) {
      const VkDrawIndexedIndirectCommand c{prim.index_count, 1, 0, int32_t(copy * pitch), 0};
      std::memcpy(static_cast<uint8_t*>(group.commands.mapped) + copy * sizeof c, &c, sizeof c);
    } else {
      const VkDrawIndirectCommand c{prim.vertex_count, 1, uint32_t(copy * pitch), 0};
      std::memcpy(static_cast<uint8_t*>(group.commands.mapped) + copy * sizeof c, &c, sizeof c);
    }
  }
  group.one_draw = true;
  return Ok{};
}

// At a one-draw group's first copy: every copy, by indirect draws of at most maxDrawIndirectCount commands (one
// draw of each command where the device has no multiDrawIndirect).
bool CrowdPath::recordDraw(const Renderer& r, VkCommandBuffer cmd, uint32_t draw) const {
  const Group& group = groups_[draw % groups_.size()];
  if (!group.one_draw) return false;
  const PrimitiveGpu& prim = r.primitives[r.draws[draw].primitive];
  const bool indexed = prim.index_count > 0;
  const uint32_t stride = indexed ? sizeof(VkDrawIndexedIndirectCommand) : sizeof(VkDrawIndirectCommand);
  const uint32_t copies = r.options.instances;
  const uint32_t per_draw =
      r.ctx->multi_draw_indirect ? std::max(1u, r.ctx->properties.limits.maxDrawIndirectCount) : 1;
  if (indexed) vkCmdBindIndexBuffer(cmd, prim.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
  for (uint32_t first = 0; first < copies; first += per_draw) {
    const uint32_t count = std::min(per_draw, copies - first);
    if (indexed) {
      vkCmdDrawIndexedIndirect(cmd, group.commands.buffer, VkDeviceSize(first) * stride, count, stride);
    } else {
      vkCmdDrawIndirect(cmd, group.commands.buffer, VkDeviceSize(first) * stride, count, stride);
    }
  }
  return true;
}

Status CrowdPath::updateDraw(Renderer& r, uint32_t index, const DrawFrame& frame) {
  const Draw& d = r.draws[index];
  DrawState& state = draws_[index];
  writeObjectUniforms(state.mesh, Mat4{}, Mat4{}, d.features, r.primitives[d.primitive].influence_sets);
  state.weights.assign(frame.weights.begin(), frame.weights.end());
  state.joints.assign(frame.joints.begin(), frame.joints.end());
  const uint32_t per_copy = uint32_t(groups_.size());
  GpuInstanceState& s = groups_[index % per_copy].states[d.copy];
  s.weights = state.weights;
  s.joint_matrices = state.joints;
  s.world = *frame.world;
  return Ok{};
}

// One dispatch per (node, primitive) deforms all its copies, recorded into the frame's command buffer.
Status CrowdPath::recordDispatch(Renderer& r, VkCommandBuffer cmd) {
  for (Group& g : groups_) {
    GpuCrowdJob job;
    job.context = r.ctx;
    job.crowd = g.crowd;
    job.instances = g.states;
    if (Status s = recordGpuCrowdJob(job, cmd); !s) return s;
  }
  if (!groups_.empty()) computeWriteBarrier(*r.ctx, cmd);
  return Ok{};
}

void CrowdPath::destroy(VulkanContext& ctx) {
  for (DrawState& d : draws_) destroyMeshDraw(ctx, d.mesh);
  for (Group& g : groups_) {
    destroyGpuCrowd(ctx, g.crowd);
    destroyBuffer(ctx, g.commands);
  }
  for (GpuPrimitive*& p : primitives_) destroyGpuPrimitive(ctx, p);
  draws_.clear();
  groups_.clear();
  primitives_.clear();
}

}  // namespace

std::unique_ptr<DeformPath> makeCrowdPath() {
  return std::make_unique<CrowdPath>();
}

}  // namespace morphkit
