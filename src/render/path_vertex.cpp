// SPDX-License-Identifier: MIT
// The vertex path (band-texture path): every pass's vertex shader morphs from a per-primitive rgba32float band texture
// (morph_texture.cpp) and skins from the skin stream. A draw reads its weights either from the band-texture design's
// 32-byte uniform (≤ 4 targets, 2 bands) or from an active list in a storage buffer (MSH_MORPH_ACTIVE_LIST).
#include <cstring>

#include "morphkit/pack/active_targets.h"
#include "renderer_state.h"

namespace morphkit {

namespace rs = render;

// The active list is written straight from the pack module's ActiveTarget list (morphkit/pack/active_targets.h).
static_assert(sizeof(ActiveTarget) == sizeof(rs::MorphActiveEntry) &&
              offsetof(ActiveTarget, target) == offsetof(rs::MorphActiveEntry, target) &&
              offsetof(ActiveTarget, weight) == offsetof(rs::MorphActiveEntry, weight));

namespace {

class VertexPath final : public DeformPath {
 public:
  Status addPrimitive(Renderer& r, uint32_t index) override;
  Status addDraw(Renderer& r, uint32_t draw) override;
  Status updateDraw(Renderer& r, uint32_t draw, const DrawFrame& frame) override;
  Expected<PipelineStages> stages(Renderer& r, const Draw& d, Pass) override {
    return meshStages(*r.ctx, r.mesh_program, d.layout_bits);
  }
  void bind(const Renderer& r, VkCommandBuffer cmd, uint32_t draw, Pass pass) const override {
    bindMeshDraw(r, cmd, r.draws[draw], draws_[draw].mesh, pass);
    VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(cmd, 0, 1, &r.primitives[r.draws[draw].primitive].vertices.buffer, &offset);
  }
  void destroy(VulkanContext& ctx) override;

 private:
  struct PrimitiveState {
    GpuBuffer skin;             // the skin stream (packSkin), when the primitive has JOINTS_0/WEIGHTS_0
    GpuImage morph_texture;     // the band texture, when it has targets
    MorphTextureLayout layout;  // of morph_texture: 2 bands per target (seed) or 3 with tangent deltas
  };
  struct DrawState {
    MeshDraw mesh;
    GpuBuffer joints;  // float joint matrices (MSH_HAS_SKIN)
    GpuBuffer morph;   // the band-texture design's MorphUniforms, or the active list (MSH_MORPH_ACTIVE_LIST)
  };
  std::vector<PrimitiveState> primitives_;
  std::vector<DrawState> draws_;
};

Status VertexPath::addPrimitive(Renderer& r, uint32_t index) {
  PrimitiveState& state = primitives_.emplace_back();
  const PrimitiveGpu& gpu = r.primitives[index];
  const PrimitiveData& data = r.prepared.primitives[gpu.data];
  if (gpu.influence_sets > 0) {
    PackedSkin skin = packSkin(data);
    Expected<GpuBuffer> sb = createBuffer(*r.ctx, skin.words.size() * 4, MemoryUse::kDevice);
    if (!sb) return sb.error();
    state.skin = *sb;
    if (Status s = uploadToBuffer(*r.ctx, state.skin, 0, skin.words.data(), skin.words.size() * 4); !s) return s;
  }
  if (gpu.target_count == 0) return Ok{};
  // One texture serves both variants: the design's shader reads bands 2i and 2i+1, so the design's layout (2 bands) is
  // used unless tangent bands are needed, in which case only the active-list variant can read it.
  const uint32_t bands = gpu.tangent_deltas ? 3 : 2;
  Expected<MorphTextureLayout> layout =
      morphTextureLayout(gpu.vertex_count, gpu.target_count, bands, r.ctx->properties.limits.maxImageDimension2D);
  if (!layout)
    return fail(layout.error().code, primitiveName(data.mesh, data.primitive) + ": " + layout.error().message);
  state.layout = *layout;
  std::vector<float> texels = packMorphTexture(data, *layout);
  Expected<GpuImage> image = uploadImage(*r.ctx, layout->tex_width, layout->height, VK_FORMAT_R32G32B32A32_SFLOAT,
                                         texels.data(), texels.size() * 4);
  if (!image) return image.error();
  state.morph_texture = *image;
  return Ok{};
}

Status VertexPath::addDraw(Renderer& r, uint32_t index) {
  Draw& d = r.draws[index];
  DrawState& state = draws_.emplace_back();
  const PrimitiveGpu& prim = r.primitives[d.primitive];
  const PrimitiveState& pstate = primitives_[d.primitive];
  if (d.skin != kNone) d.features |= MSH_HAS_SKIN;
  if (prim.target_count > 0) {
    d.features |= MSH_HAS_MORPH_TARGETS;
    if (prim.target_count > MSH_SEED_MAX_TARGETS || prim.tangent_deltas || r.options.force_active_list ||
        pstate.layout.bands_per_target != 2) {
      d.features |= MSH_MORPH_ACTIVE_LIST;
      ++r.info.morph_draws_active_list;
    } else {
      ++r.info.morph_draws_seed;
    }
  }
  d.layout_bits = d.features & MSH_LAYOUT_MASK;
  std::vector<MeshBinding> bindings;
  if (d.features & MSH_HAS_SKIN) {
    Expected<GpuBuffer> joints =
        createBuffer(*r.ctx, sizeof(float) * 16 * r.asset->skins[d.skin].joints.size(), MemoryUse::kUpload);
    if (!joints) return joints.error();
    state.joints = *joints;
    bindings.push_back({VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, pstate.skin.buffer, VK_NULL_HANDLE});
    bindings.push_back({VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, state.joints.buffer, VK_NULL_HANDLE});
  }
  if (d.features & MSH_HAS_MORPH_TARGETS) {
    const bool list = (d.features & MSH_MORPH_ACTIVE_LIST) != 0;
    const VkDeviceSize bytes = list ? sizeof(rs::MorphActiveHeader) + sizeof(rs::MorphActiveEntry) * prim.target_count
                                    : sizeof(rs::MorphUniforms);
    Expected<GpuBuffer> morph =
        createBuffer(*r.ctx, bytes, MemoryUse::kUpload, list ? 0 : VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
    if (!morph) return morph.error();
    state.morph = *morph;
    auto* bytes_ptr = static_cast<uint8_t*>(state.morph.mapped);
    if (list) {
      rs::MorphActiveHeader h{0, pstate.layout.tex_width, pstate.layout.rows_per_band, pstate.layout.bands_per_target};
      std::memcpy(bytes_ptr, &h, sizeof h);
    } else {
      // Band-texture path initialization step 6: initial weights + immutable layout params, all 32 bytes once.
      const std::vector<float>& initial = r.asset->meshes[r.prepared.instances[d.instance].mesh].weights;
      std::vector<float> w(prim.target_count, 0.0f);
      for (size_t k = 0; k < w.size() && k < initial.size(); ++k) w[k] = initial[k];
      initMorphUniform(std::span<uint8_t>(bytes_ptr, sizeof(rs::MorphUniforms)), pstate.layout, w);
    }
    bindings.push_back({VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, VK_NULL_HANDLE, pstate.morph_texture.view});
    bindings.push_back({list ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                        state.morph.buffer, VK_NULL_HANDLE});
  }
  return createMeshDraw(r, d.layout_bits, bindings, state.mesh);
}

Status VertexPath::updateDraw(Renderer& r, uint32_t index, const DrawFrame& frame) {
  const Draw& d = r.draws[index];
  DrawState& state = draws_[index];
  const bool skinned = d.skin != kNone;  // skinned vertices are in world space already
  writeObjectUniforms(state.mesh, skinned ? Mat4{} : frame.world_float,
                      skinned ? Mat4{} : normalMatrix(frame.world_float), d.features,
                      r.primitives[d.primitive].influence_sets);
  if (d.features & MSH_HAS_SKIN)
    std::memcpy(state.joints.mapped, frame.joints_float.data(), frame.joints_float.size_bytes());
  if (d.features & MSH_MORPH_ACTIVE_LIST) {
    auto* bytes = static_cast<uint8_t*>(state.morph.mapped);
    // The buffer holds target_count entries after the header (prepare); the one active rule fills them.
    auto* entries = reinterpret_cast<ActiveTarget*>(bytes + sizeof(rs::MorphActiveHeader));
    const uint32_t count =
        buildActiveTargets(frame.weights, 0.0f, std::span<ActiveTarget>(entries, frame.weights.size()));
    std::memcpy(bytes, &count, sizeof count);  // header.count; the layout fields never change
  } else if (d.features & MSH_HAS_MORPH_TARGETS) {
    // Band-texture path per-frame update: the first 16 bytes (vec4 weights) only.
    writeMorphWeights(std::span<uint8_t>(static_cast<uint8_t*>(state.morph.mapped), sizeof(rs::MorphUniforms)),
                      frame.weights);
  }
  return Ok{};
}

void VertexPath::destroy(VulkanContext& ctx) {
  for (DrawState& d : draws_) {
    destroyMeshDraw(ctx, d.mesh);
    destroyBuffer(ctx, d.joints);
    destroyBuffer(ctx, d.morph);
  }
  for (PrimitiveState& p : primitives_) {
    destroyBuffer(ctx, p.skin);
    destroyImage(ctx, p.morph_texture);
  }
  draws_.clear();
  primitives_.clear();
}

}  // namespace

std::unique_ptr<DeformPath> makeVertexPath() {
  return std::make_unique<VertexPath>();
}

}  // namespace morphkit
