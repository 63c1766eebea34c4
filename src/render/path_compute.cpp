// SPDX-License-Identifier: MIT
// The compute path: one GpuMorphGroup (src/vk) holds every draw as an instance; each frame one dispatch morphs and
// skins them all, and the batch's output buffer (STORAGE | VERTEX) is bound directly as each draw's vertex buffer after
// the dispatch's barrier (compute-path design §3: no copy, no readback). Every pass then draws the deformed vertices
// with the plain mesh.vert variant. The batch has a copy per frame slot (frameCopies: its weights, matrices, active
// lists and output; the later copies run the first one's pipeline), so frame n + 1 is written and submitted while frame
// n runs.
#include "gpu_internal.h"
#include "morphkit/vk/gpu_interop.h"
#include "renderer_state.h"

namespace morphkit {

namespace {

class ComputePath final : public DeformPath {
 public:
  Status addPrimitive(Renderer& r, uint32_t index) override;
  Status addDraw(Renderer& r, uint32_t draw) override;
  Status finishDraws(Renderer& r) override;
  Status updateDraw(Renderer& r, uint32_t draw, const DrawFrame& frame) override;
  Status recordDispatch(Renderer& r, VkCommandBuffer cmd) override;
  bool dispatches() const override { return batches_[0] != nullptr; }
  bool frameCopies() const override { return true; }
  Expected<PipelineStages> stages(Renderer& r, const Draw& d, Pass) override {
    return meshStages(*r.ctx, r.mesh_program, d.layout_bits);
  }
  void bind(const Renderer& r, VkCommandBuffer cmd, uint32_t draw, Pass pass) const override {
    const GpuBufferRange& output = draws_[draw].outputs[r.data_slot];
    bindDeformedDraw(r, cmd, r.draws[draw], draws_[draw].mesh, pass, output.buffer, output.offset);
  }
  void destroy(VulkanContext& ctx) override;

 private:
  struct DrawState {
    MeshDraw mesh;
    GpuInstanceDesc desc;
    // Where each slot's batch writes this draw's vertices (batch instance = draw index).
    std::array<GpuBufferRange, kRenderFramesInFlight> outputs;
    std::vector<float> weights;  // this frame's, kept alive for the job
    std::vector<DMat4> joints;
  };
  std::vector<GpuPrimitive*> primitives_;  // static data, one per shared primitive
  std::vector<DrawState> draws_;
  std::vector<GpuInstanceState> states_;                         // the job's input, one per draw
  std::array<GpuMorphGroup*, kRenderFramesInFlight> batches_{};  // per frame slot; [0] owns the pipeline
};

Status ComputePath::addPrimitive(Renderer& r, uint32_t index) {
  const PrimitiveData& data = r.prepared.primitives[r.primitives[index].data];
  Expected<GpuPrimitive*> uploaded = uploadGpuPrimitive(*r.ctx, data);
  if (!uploaded)
    return fail(uploaded.error().code, primitiveName(data.mesh, data.primitive) + ": " + uploaded.error().message);
  primitives_.push_back(*uploaded);
  return Ok{};
}

Status ComputePath::addDraw(Renderer& r, uint32_t index) {
  const Draw& d = r.draws[index];  // no path features: mesh.vert draws the deformed vertices as they are
  DrawState& state = draws_.emplace_back();
  state.desc.primitive = primitives_[d.primitive];
  state.desc.skinned = d.skin != kNone;
  state.desc.joint_count = d.skin != kNone ? uint32_t(r.asset->skins[d.skin].joints.size()) : 0;
  if (Status s = createMeshDraw(r, d.layout_bits, {}, state.mesh); !s) return s;
  // The compute output is in world space already: identity model and normal matrices, the same every frame, so
  // written once here (never while a frame in flight reads them).
  writeObjectUniforms(state.mesh, Mat4{}, Mat4{}, d.features, r.primitives[d.primitive].influence_sets);
  return Ok{};
}

Status ComputePath::finishDraws(Renderer& r) {
  states_.resize(draws_.size());
  if (draws_.empty()) return Ok{};
  std::vector<GpuInstanceDesc> descs;
  for (const DrawState& d : draws_) descs.push_back(d.desc);
  for (uint32_t slot = 0; slot < kRenderFramesInFlight; ++slot) {
    Expected<GpuMorphGroup*> batch = slot == 0 ? createGpuMorphGroup(*r.ctx, descs)
                                               : createGpuMorphGroupSharingPipeline(*r.ctx, descs, *batches_[0]);
    if (!batch) return batch.error();
    batches_[slot] = *batch;
    for (uint32_t i = 0; i < draws_.size(); ++i) draws_[i].outputs[slot] = gpuMorphGroupOutputRange(**batch, i);
  }
  return Ok{};
}

Status ComputePath::updateDraw(Renderer&, uint32_t index, const DrawFrame& frame) {
  DrawState& state = draws_[index];
  // Joint and world matrices stay in double: the job keeps the digits far from the origin (docs/LAYOUTS.md §5).
  state.weights.assign(frame.weights.begin(), frame.weights.end());
  state.joints.assign(frame.joints.begin(), frame.joints.end());
  states_[index].weights = state.weights;
  states_[index].joint_matrices = state.joints;
  states_[index].world = *frame.world;
  return Ok{};
}

// One dispatch deforms every draw, recorded into the frame's command buffer before the passes read its output.
Status ComputePath::recordDispatch(Renderer& r, VkCommandBuffer cmd) {
  if (!batches_[0]) return Ok{};
  GpuMorphJob job;
  job.context = r.ctx;
  job.group = batches_[r.data_slot];
  job.instances = states_;
  if (Status s = recordGpuMorphJob(job, cmd); !s) return s;
  computeWriteBarrier(*r.ctx, cmd);
  return Ok{};
}

void ComputePath::destroy(VulkanContext& ctx) {
  for (DrawState& d : draws_) destroyMeshDraw(ctx, d.mesh);
  for (uint32_t slot = kRenderFramesInFlight; slot-- > 0;) destroyGpuMorphGroup(ctx, batches_[slot]);  // lender last
  for (GpuPrimitive*& p : primitives_) destroyGpuPrimitive(ctx, p);
  batches_ = {};
  draws_.clear();
  primitives_.clear();
}

}  // namespace

std::unique_ptr<DeformPath> makeComputePath() {
  return std::make_unique<ComputePath>();
}

}  // namespace morphkit
