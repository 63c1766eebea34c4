// SPDX-License-Identifier: MIT
// The node-material path (RenderOptions::node_material): one compiled node program for every draw, with its own
// set 0 and no push constants; morphing and skinning happen in the program's vertex shader, reading the feature
// buffers of morphkit/material/node_material.h (createNodeDrawResources) and the primitive's skin stream. Its fragment
// shader lights with the built-in path's lighting.glsl, so the set also holds the frame block, the shadow map and the
// environment's two maps, the descriptors of the built-in frame set.
#include <algorithm>
#include <cstring>

#include "environment_internal.h"
#include "node_material_vk.h"
#include "renderer_state.h"

namespace morphkit {

namespace {

class NodePath final : public DeformPath {
 public:
  NodePath(const NodeMaterial& material) : material_(material) {}
  Status create(VulkanContext& ctx);
  Status addPrimitive(Renderer& r, uint32_t index) override;
  Status addDraw(Renderer& r, uint32_t draw) override;
  Status updateDraw(Renderer& r, uint32_t draw, const DrawFrame& frame) override;
  Expected<PipelineStages> stages(Renderer&, const Draw&, Pass pass) override {
    // A vertex module per pipeline; no specialization constants (node.features is a uniform).
    const NodePipeline pipeline = pass == Pass::kColor   ? NodePipeline::kColor
                                  : pass == Pass::kDepth ? NodePipeline::kDepth
                                                         : NodePipeline::kShadow;
    return PipelineStages{program_.vertex[uint32_t(pipeline)], program_.fragment, program_.layout, false};
  }
  void bind(const Renderer& r, VkCommandBuffer cmd, uint32_t draw, Pass) const override {
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, program_.layout, kNodeMaterialSet, 1,
                            &draws_[draw].set, 0, nullptr);
    VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(cmd, 0, 1, &r.primitives[r.draws[draw].primitive].vertices.buffer, &offset);
  }
  void destroy(VulkanContext& ctx) override;

 private:
  struct DrawState {
    VkDescriptorSet set = VK_NULL_HANDLE;    // the node program's one set
    NodeDrawResources* resources = nullptr;  // the feature buffers
    GpuBuffer ubo;                           // the node uniform block
    GpuBuffer joints;                        // float joint matrices, skinned draws
  };
  Status writeSet(Renderer& r, const Draw& d, DrawState& state);

  const NodeMaterial& material_;
  NodeMaterialPrograms programs_;
  NodeMaterialDevice* device_ = nullptr;
  NodeVkProgram program_;
  std::vector<GpuBuffer> skins_;  // the skin stream per shared primitive (empty without JOINTS_0/WEIGHTS_0)
  std::vector<DrawState> draws_;
};

Status NodePath::create(VulkanContext& ctx) {
  Expected<NodeMaterialPrograms> programs = compileNodeMaterial(material_);
  if (!programs) return programs.error();
  programs_ = std::move(*programs);
  Expected<NodeMaterialDevice*> device = createNodeMaterialDevice(ctx);
  if (!device) return device.error();
  device_ = *device;
  Expected<NodeVkProgram> program = createNodeVkProgram(ctx, programs_);
  if (!program) return program.error();
  program_ = *program;
  return Ok{};
}

Status NodePath::addPrimitive(Renderer& r, uint32_t index) {
  GpuBuffer& skin_buffer = skins_.emplace_back();
  const PrimitiveGpu& gpu = r.primitives[index];
  if (gpu.influence_sets == 0) return Ok{};
  PackedSkin skin = packSkin(r.prepared.primitives[gpu.data]);
  Expected<GpuBuffer> sb = createBuffer(*r.ctx, skin.words.size() * 4, MemoryUse::kDevice);
  if (!sb) return sb.error();
  skin_buffer = *sb;
  return uploadToBuffer(*r.ctx, skin_buffer, 0, skin.words.data(), skin.words.size() * 4);
}

// A node-material draw: its feature resources, node uniform block and the one set, written by binding name
// (the binding contract of morphkit/material/node_material.h).
Status NodePath::addDraw(Renderer& r, uint32_t index) {
  const Draw& d = r.draws[index];
  DrawState& state = draws_.emplace_back();
  const PosePrepared::Instance& inst = r.prepared.instances[d.instance];
  if (d.skin != kNone) {
    Expected<GpuBuffer> joints =
        createBuffer(*r.ctx, sizeof(float) * 16 * r.asset->skins[d.skin].joints.size(), MemoryUse::kUpload);
    if (!joints) return joints.error();
    state.joints = *joints;
  }
  Expected<NodeDrawResources*> resources = createNodeDrawResources(
      *device_, material_, r.prepared.primitives[inst.data], r.asset->meshes[inst.mesh].weights);
  if (!resources)
    return fail(resources.error().code, primitiveName(inst.mesh, inst.primitive) + ": " + resources.error().message);
  state.resources = *resources;
  Expected<GpuBuffer> ubo =
      createBuffer(*r.ctx, material_.uniform_block_bytes, MemoryUse::kUpload, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
  if (!ubo) return ubo.error();
  state.ubo = *ubo;
  std::memset(state.ubo.mapped, 0, material_.uniform_block_bytes);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = r.pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &program_.set_layout;
  if (Status s = checkVk(vkAllocateDescriptorSets(r.ctx->device, &alloc, &state.set), "vkAllocateDescriptorSets(node)");
      !s)
    return s;
  return writeSet(r, d, state);
}

Status NodePath::writeSet(Renderer& r, const Draw& d, DrawState& state) {
  const Asset& asset = *r.asset;
  const PosePrepared::Instance& inst = r.prepared.instances[d.instance];
  const GpuBuffer& skin = skins_[d.primitive];
  const Material* gltf = d.material < asset.materials.size() ? &asset.materials[d.material] : nullptr;
  const std::vector<NodeBinding>& bindings = programs_.glsl.bindings;
  std::vector<VkDescriptorBufferInfo> buffers(bindings.size());
  std::vector<VkDescriptorImageInfo> images(bindings.size());
  std::vector<VkWriteDescriptorSet> writes;
  std::string missing;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const NodeBinding& b = bindings[i];
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                           nullptr,
                           state.set,
                           b.binding,
                           0,
                           1,
                           nodeDescriptorType(b.kind),
                           nullptr,
                           nullptr,
                           nullptr};
    auto useBuffer = [&](VkBuffer buffer, VkDeviceSize offset, VkDeviceSize range) {
      buffers[i] = {buffer, offset, range};
      w.pBufferInfo = &buffers[i];
    };
    const NodeDrawBuffer* feature = nullptr;
    for (const NodeDrawBuffer& fb : state.resources->buffers) {
      if (fb.binding == b.name) feature = &fb;
    }
    const bool skin_binding = b.name == "NodeSkinStream" || b.name == "NodeJointMatrices";
    if (b.name == "NodeUniforms") {
      useBuffer(state.ubo.buffer, 0, VK_WHOLE_SIZE);
    } else if (b.name == "FrameBlock") {
      useBuffer(r.frames[0].ubo.buffer, 0, VK_WHOLE_SIZE);  // one copy: the node path has no frameCopies
    } else if (b.kind == NodeBindingKind::kShadowSampler) {
      images[i] = {r.targets.shadow_sampler, r.targets.shadow.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
      w.pImageInfo = &images[i];
    } else if (b.name == "nodeEnvironmentMap" || b.name == "nodeBrdfTable") {
      // The environment's maps, as the built-in path's frame set holds them: the same light (lighting.glsl).
      images[i] = b.name == "nodeEnvironmentMap" ? environmentMapInfo(*r.environment) : brdfTableInfo(*r.environment);
      w.pImageInfo = &images[i];
    } else if (b.kind == NodeBindingKind::kSampledTexture) {
      const MaterialSet& m = r.materials;
      images[i] = {m.samplers.back(), m.white.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};  // unbound: never read
      const NodeTextureSource src = nodeTextureSource(material_, b.texture, asset, gltf);
      if (src.bound) {
        Expected<const GpuImage*> image =
            src.texture != kNone ? textureImage(r, src.texture, src.srgb) : sourceImage(r, src.image, src.srgb);
        if (image) {
          images[i] = {src.sampler != kNone ? m.samplers[src.sampler] : m.samplers.back(), (*image)->view,
                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        } else {
          warnTexture(r, src.texture, image.error().message + "; materials using it are drawn with their factors");
        }
      }
      w.pImageInfo = &images[i];
    } else if (skin_binding && d.skin != kNone) {
      useBuffer(b.name == "NodeSkinStream" ? skin.buffer : state.joints.buffer, 0, VK_WHOLE_SIZE);
    } else if (feature) {
      useBuffer(feature->buffer, feature->offset, feature->range);
    } else if (skin_binding && skin.buffer) {
      // Skin attributes on a node without a skin: skin_sets is 0, the buffer is never read.
      useBuffer(skin.buffer, 0, VK_WHOLE_SIZE);
    } else {
      missing = b.name;
      continue;
    }
    writes.push_back(w);
  }
  vkUpdateDescriptorSets(r.ctx->device, uint32_t(writes.size()), writes.data(), 0, nullptr);
  if (!missing.empty()) {
    return fail(Error::kInvalidArgument,
                primitiveName(inst.mesh, inst.primitive) + ": node binding '" + missing + "' has no resource");
  }
  return Ok{};
}

Status NodePath::updateDraw(Renderer& r, uint32_t index, const DrawFrame& frame) {
  const Draw& d = r.draws[index];
  DrawState& state = draws_[index];
  const bool skinned = d.skin != kNone;  // skinned vertices are in world space already
  NodeObjectHeader header{};
  const Mat4 model = skinned ? Mat4{} : frame.world_float;
  const Mat4 normal = skinned ? Mat4{} : normalMatrix(frame.world_float);
  std::memcpy(header.model, model.m.data(), sizeof header.model);
  std::memcpy(header.normal_matrix, normal.m.data(), sizeof header.normal_matrix);
  header.features = d.features & (MSH_HAS_NORMALS | MSH_HAS_TANGENTS | MSH_HAS_UV0 | MSH_HAS_UV1);
  header.skin_sets = skinned ? r.primitives[d.primitive].influence_sets : 0;
  const Material* gltf = d.material < r.asset->materials.size() ? &r.asset->materials[d.material] : nullptr;
  const std::vector<uint8_t> bytes = nodeUniformBytes(material_, *r.asset, gltf, header);
  std::memcpy(state.ubo.mapped, bytes.data(), std::min<size_t>(bytes.size(), material_.uniform_block_bytes));
  if (Status s = updateNodeDrawWeights(*state.resources, frame.weights); !s) return s;
  if (skinned) std::memcpy(state.joints.mapped, frame.joints_float.data(), frame.joints_float.size_bytes());
  return Ok{};
}

void NodePath::destroy(VulkanContext& ctx) {
  for (DrawState& d : draws_) {
    if (device_) destroyNodeDrawResources(*device_, d.resources);
    destroyBuffer(ctx, d.ubo);
    destroyBuffer(ctx, d.joints);
  }
  for (GpuBuffer& skin : skins_) destroyBuffer(ctx, skin);
  destroyNodeVkProgram(ctx, program_);
  destroyNodeMaterialDevice(device_);
  device_ = nullptr;
  draws_.clear();
  skins_.clear();
}

}  // namespace

Expected<std::unique_ptr<DeformPath>> makeNodePath(VulkanContext& ctx, const NodeMaterial& material) {
  auto path = std::make_unique<NodePath>(material);
  if (Status s = path->create(ctx); !s) {
    path->destroy(ctx);
    return s.error();
  }
  return std::unique_ptr<DeformPath>(std::move(path));
}

}  // namespace morphkit
