// SPDX-License-Identifier: MIT
// The crowd path (RenderOptions::crowd): the copies of each (node, primitive) are one GpuCrowd (src/vk,
// shaders/crowd.comp), so each frame one dispatch per primitive morphs and skins every copy, and each copy's draw
// binds its range of the crowd's output as its vertex buffer (seed 003 §3: no copy, no readback), as the compute
// path does for its batch. The output is in world space with the copy's placement applied: plain mesh.vert.
#include "morphkit/gpu_crowd.h"
#include "morphkit/gpu_interop.h"
#include "renderer_state.h"

namespace morphkit {

namespace {

class CrowdPath final : public DeformPath {
 public:
  Status addPrimitive(Renderer& r, uint32_t index) override;
  Status addDraw(Renderer& r, uint32_t draw) override;
  Status finishDraws(Renderer& r) override;
  Status updateDraw(Renderer& r, uint32_t draw, const DrawFrame& frame) override;
  Status dispatch(Renderer& r, RenderStats& stats) override;
  Expected<PipelineStages> stages(Renderer& r, const Draw& d, Pass) override {
    return meshStages(*r.ctx, r.mesh_program, d.layout_bits);
  }
  void bind(const Renderer& r, VkCommandBuffer cmd, uint32_t draw, Pass pass) const override {
    bindDeformedDraw(r, cmd, r.draws[draw], draws_[draw].mesh, pass, draws_[draw].output.buffer,
                     draws_[draw].output.offset);
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
  };
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
  }
  return Ok{};
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

// One dispatch per (node, primitive) deforms all its copies (GpuCrowdJob, its own submission).
Status CrowdPath::dispatch(Renderer& r, RenderStats& stats) {
  double us = 0;
  for (Group& g : groups_) {
    GpuCrowdJob job;
    job.context = r.ctx;
    job.crowd = g.crowd;
    job.instances = g.states;
    if (Status s = job.run(); !s) return s;
    us += lastCrowdDispatchMicroseconds(*g.crowd);
  }
  stats.morph_gpu_ms = us / 1000.0;
  return Ok{};
}

void CrowdPath::destroy(VulkanContext& ctx) {
  for (DrawState& d : draws_) destroyMeshDraw(ctx, d.mesh);
  for (Group& g : groups_) destroyGpuCrowd(ctx, g.crowd);
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
