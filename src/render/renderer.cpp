// SPDX-License-Identifier: MIT
// The headless renderer: createRenderer builds the shared parts (targets, materials, primitives, draws) and hands
// each primitive and draw to the morph path (path_*.cpp); destroyRenderer frees them. The frames themselves are
// frame.cpp's. renderer_state.h lists the files.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "environment_internal.h"
#include "morphkit/core/scene.h"
#include "morphkit/material/node_material.h"
#include "morphkit/model/contract.h"
#include "morphkit/vk/gpu_crowd.h"
#include "renderer_state.h"

namespace morphkit {

namespace {

// The static vertices and indices of every primitive, then the path's own per-primitive state.
Status createPrimitives(Renderer& r) {
  for (uint32_t i = 0; i < r.prepared.primitives.size(); ++i) {
    PrimitiveData& data = r.prepared.primitives[i];
    if (r.options.ignore_morph_targets) data.targets.clear();
    const std::string where = primitiveName(data.mesh, data.primitive);
    PrimitiveGpu& gpu = r.primitives.emplace_back();
    gpu.data = i;
    gpu.vertex_count = data.vertex_count;
    gpu.target_count = uint32_t(data.targets.size());
    if (data.vertex_count == 0) return fail(Error::kInvalidArgument, where + ": no vertices");
    Bounds box;
    for (size_t v = 0; v + 2 < data.position.size(); v += 3) {
      const Vec3 p{data.position[v], data.position[v + 1], data.position[v + 2]};
      box.min = {std::min(box.min.x, p.x), std::min(box.min.y, p.y), std::min(box.min.z, p.z)};
      box.max = {std::max(box.max.x, p.x), std::max(box.max.y, p.y), std::max(box.max.z, p.z)};
    }
    if (!box.empty()) gpu.center = (box.min + box.max) * 0.5f;
    PackedVertices packed = packVertices(data);
    gpu.format = packed.format;
    Expected<GpuBuffer> vb =
        createBuffer(*r.ctx, packed.data.size() * 4, MemoryUse::kDevice, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
    if (!vb) return vb.error();
    gpu.vertices = *vb;
    if (Status s = uploadToBuffer(*r.ctx, gpu.vertices, 0, packed.data.data(), packed.data.size() * 4); !s) return s;
    if (!data.indices.empty()) {
      // validate.cpp checked every index against the vertex count (the one gate); debug builds restate it.
      for ([[maybe_unused]] uint32_t index : data.indices) MORPHKIT_EXPECTS(index < data.vertex_count);
      Expected<GpuBuffer> ib =
          createBuffer(*r.ctx, data.indices.size() * 4, MemoryUse::kDevice, VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
      if (!ib) return ib.error();
      gpu.indices = *ib;
      if (Status s = uploadToBuffer(*r.ctx, gpu.indices, 0, data.indices.data(), data.indices.size() * 4); !s) return s;
      gpu.index_count = uint32_t(data.indices.size());
    }
    const PackedSkin skin = packSkin(data);
    gpu.influence_sets = skin.influence_sets;
    gpu.joints_needed = skin.joints_needed;
    for (const MorphTargetData& t : data.targets) gpu.tangent_deltas |= !t.tangent.empty();
    // Tangent deltas matter only where a normal map uses the tangent frame (glTF 2.0 §3.9.3); elsewhere the
    // seed's 2-band layout serves (it ignores TANGENT deltas, as the band-texture design says).
    const uint32_t material = r.asset->meshes[data.mesh].primitives[data.primitive].material;
    const bool normal_mapped =
        material != kNone && material < r.asset->materials.size() && r.materials.materials[material].normal_texture;
    gpu.tangent_deltas = gpu.tangent_deltas && gpu.format.tangent != kLayoutAbsent && normal_mapped;
    if (Status s = r.path->addPrimitive(r, i); !s) return s;
  }
  return Ok{};
}

// One draw per (copy, instance) except LINE_LOOP; the path adds its state and feature bits to each.
Status createDraws(Renderer& r) {
  const Asset& asset = *r.asset;
  for (uint32_t copy = 0; copy < r.options.instances; ++copy) {
    for (uint32_t i = 0; i < r.prepared.instances.size(); ++i) {
      const PosePrepared::Instance& inst = r.prepared.instances[i];
      const PrimitiveGpu& prim = r.primitives[inst.data];
      const Primitive& gltf = asset.meshes[inst.mesh].primitives[inst.primitive];
      if (gltf.mode == PrimitiveMode::kLineLoop) {
        if (copy == 0) r.info.warnings.push_back("meshes[" + std::to_string(inst.mesh) + "]: LINE_LOOP is not drawn");
        continue;
      }
      Draw d;
      d.instance = i;
      d.copy = copy;
      d.primitive = inst.data;
      d.material = gltf.material != kNone && gltf.material < asset.materials.size() ? gltf.material
                                                                                    : uint32_t(asset.materials.size());
      if (inst.skinned) {  // decided once by preparePose (§3.7.3), as for the CPU and GPU poses
        const uint32_t skin = asset.nodes[inst.node].skin;
        d.skin = skin;
        if (prim.joints_needed > asset.skins[skin].joints.size()) {
          return fail(Error::kInvalidGltf, "nodes[" + std::to_string(inst.node) + "]: skin " + std::to_string(skin) +
                                               " has " + std::to_string(asset.skins[skin].joints.size()) +
                                               " joints, JOINTS_0 uses " + std::to_string(prim.joints_needed));
        }
      }
      if (prim.format.normal != kLayoutAbsent) d.features |= MSH_HAS_NORMALS;
      if (prim.format.tangent != kLayoutAbsent) d.features |= MSH_HAS_TANGENTS;
      if (prim.format.texcoord_sets >= 1) d.features |= MSH_HAS_UV0;
      if (prim.format.texcoord_sets >= 2) d.features |= MSH_HAS_UV1;
      if (prim.format.color_sets >= 1) d.features |= MSH_HAS_COLOR0;
      d.layout_bits = d.features & MSH_LAYOUT_MASK;
      r.info.max_targets = std::max(r.info.max_targets, prim.target_count);
      r.draws.push_back(d);
      if (Status s = r.path->addDraw(r, uint32_t(r.draws.size() - 1)); !s) return s;
    }
  }
  if (Status s = r.path->finishDraws(r); !s) return s;
  r.info.draws = uint32_t(r.draws.size());
  return Ok{};
}

// Sized for the worst case of every draw's set.
Status createDescriptorPool(Renderer& r) {
  const uint32_t draw_count = uint32_t(r.prepared.instances.size()) * r.options.instances;
  const uint32_t material_count = uint32_t(r.asset->materials.size()) + 1;
  // The frame sets, one per frame slot: each its uniform block, the shadow map and the environment's two maps.
  const uint32_t frame_sets = kRenderFramesInFlight;
  VkDescriptorPoolSize sizes[4] = {
      {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2 * draw_count + material_count + frame_sets},
      {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3 * draw_count + 1},
      {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, draw_count + 1},
      {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, MAT_TEXTURE_COUNT * material_count + 3 * frame_sets}};
  if (r.options.node_material) {
    // Per node draw: the node uniform block + FrameBlock, the textures + the shadow map + the environment's two
    // maps, up to 4 feature buffers.
    const uint32_t textures = uint32_t(r.options.node_material->textures.size());
    sizes[0].descriptorCount += 2 * draw_count;
    sizes[1].descriptorCount += 4 * draw_count;
    sizes[3].descriptorCount += (textures + 3) * draw_count;
  }
  VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool.maxSets = draw_count + material_count + frame_sets;
  pool.poolSizeCount = 4;
  pool.pPoolSizes = sizes;
  return checkVk(vkCreateDescriptorPool(r.ctx->device, &pool, nullptr, &r.pool), "vkCreateDescriptorPool");
}

// The image-based light: the caller's shared maps, or maps of the studio / the image / none made here.
Status createEnvironment(Renderer& r) {
  if (r.options.environment_maps) {
    r.environment = r.options.environment_maps;
    return Ok{};
  }
  const RenderOptions& o = r.options;
  if (o.environment == EnvironmentKind::kImage && !o.environment_image) {
    return fail(Error::kInvalidArgument, "createRenderer: EnvironmentKind::kImage without environment_image");
  }
  HdrImage studio;
  const HdrImage* image = nullptr;
  if (o.environment == EnvironmentKind::kStudio) {
    studio = studioEnvironment();
    image = &studio;
  } else if (o.environment == EnvironmentKind::kImage) {
    image = o.environment_image;
  }
  Expected<EnvironmentMaps*> maps = createEnvironmentMaps(*r.ctx, image);
  if (!maps) return maps.error();
  r.own_environment = *maps;
  r.environment = *maps;
  return Ok{};
}

// Each frame slot's command buffer and fence, and its readback buffer (row_pitch × height).
Status createFrameSlots(Renderer& r) {
  for (FrameSlot& slot : r.slots) {
    if (Status s = createInFlightSubmission(*r.ctx, slot.submission); !s) return s;
    Expected<GpuBuffer> readback =
        createBuffer(*r.ctx, VkDeviceSize(r.targets.row_pitch) * r.options.height, MemoryUse::kReadback);
    if (!readback) return readback.error();
    slot.readback = *readback;
  }
  return Ok{};
}

Status createParts(Renderer& r) {
  if (Status s = createDescriptorPool(r); !s) return s;
  if (Status s = createMeshProgram(*r.ctx, r.mesh_program); !s) return s;
  if (Status s = createRenderTargets(*r.ctx, r.options, r.targets); !s) return s;
  if (Status s = createFrameSlots(r); !s) return s;
  if (Status s = createEnvironment(r); !s) return s;
  r.info.msaa = uint32_t(r.targets.samples);
  if (r.info.msaa != r.options.msaa) {
    r.info.warnings.push_back("--msaa " + std::to_string(r.options.msaa) + ": the device (" + r.ctx->info.name +
                              ") supports at most " + std::to_string(r.info.msaa) + " samples here; using " +
                              std::to_string(r.info.msaa));
  }
  if (Status s = createSamplers(r); !s) return s;
  if (Status s = createFrameResources(r); !s) return s;
  if (Status s = createBackground(r); !s) return s;
  if (Status s = createMaterials(r); !s) return s;
  if (Status s = createPrimitives(r); !s) return s;
  if (Status s = createDraws(r); !s) return s;
  // Default camera: framed on the rest pose.
  Expected<Bounds> bounds = posedBounds(*r.asset, r.prepared.scene, kNone, 0, 0, 1);
  if (!bounds) return bounds.error();
  r.bounds = *bounds;
  r.camera = frameBounds(r.bounds, float(r.options.width) / float(r.options.height));
  // Pipelines up front so the first frame's timing is not pipeline compilation.
  DrawPipelines pipelines;
  return drawPipelines(r, pipelines);
}

}  // namespace

// A crowd's posed vertices, refused before anything is allocated when one crowd's output buffer or all of them
// exceed what the device allows (the bytes named).
Status checkCrowdFits(const Renderer& r) {
  const GpuDeviceInfo& device = r.ctx->info;
  uint64_t total = 0;
  for (const PosePrepared::Instance& inst : r.prepared.instances) {
    const PrimitiveData& data = r.prepared.primitives[inst.data];
    const uint64_t per_copy = gpuCrowdInstanceBytes(data.vertex_count, vertexFormat(data).stride);
    const uint64_t bytes = per_copy * r.options.instances;
    total += bytes;
    if (device.max_allocation_bytes > 0 && bytes > device.max_allocation_bytes) {
      return fail(Error::kTooLarge, "crowd of " + std::to_string(r.options.instances) + ": " +
                                        primitiveName(inst.mesh, inst.primitive) + " needs " + std::to_string(bytes) +
                                        " bytes of posed vertices in one buffer, the device allows " +
                                        std::to_string(device.max_allocation_bytes));
    }
  }
  if (device.device_local_bytes > 0 && total > device.device_local_bytes) {
    return fail(Error::kTooLarge, "crowd of " + std::to_string(r.options.instances) + ": the posed vertices need " +
                                      std::to_string(total) + " bytes, the device has " +
                                      std::to_string(device.device_local_bytes));
  }
  return Ok{};
}

// ---- Public API ----
Expected<Renderer*> createRenderer(VulkanContext& context, const Asset& asset, const RenderOptions& options) {
  if (options.width == 0 || options.height == 0 || options.width > 8192 || options.height > 8192) {
    return fail(Error::kInvalidArgument, "createRenderer: size " + std::to_string(options.width) + "×" +
                                             std::to_string(options.height) + " outside 1..8192");
  }
  if (options.shadows && (options.shadow_size == 0 || options.shadow_size > 8192)) {
    return fail(Error::kInvalidArgument, "createRenderer: shadow size outside 1..8192");
  }
  if (!(options.environment_intensity >= 0.0f && options.environment_intensity <= 1e4f) ||
      !std::isfinite(options.environment_rotation_deg) || !(std::fabs(options.exposure_ev) <= 32.0f)) {
    return fail(Error::kInvalidArgument,
                "createRenderer: environment intensity outside 0..10000, a non-finite rotation or exposure outside "
                "-32..32 EV");
  }
  if (options.msaa != 1 && options.msaa != 4 && options.msaa != 8) {
    return fail(Error::kInvalidArgument,
                "createRenderer: msaa " + std::to_string(options.msaa) + ": expected 1, 4 or 8");
  }
  for (const auto& [count, what] : {std::pair{options.instance_offsets.size(), "instance_offsets"},
                                    std::pair{options.instance_time_offsets.size(), "instance_time_offsets"}}) {
    if (count != 0 && count != std::max(options.instances, 1u)) {
      return fail(Error::kInvalidArgument, "createRenderer: " + std::to_string(count) + " " + what + " for " +
                                               std::to_string(std::max(options.instances, 1u)) + " instances");
    }
  }
  if (options.crowd && (options.morph_path == MorphPath::kVertex || options.node_material)) {
    return fail(Error::kInvalidArgument,
                "createRenderer: a crowd is deformed by the crowd kernel: not with the vertex path or a node material");
  }
  if (!context.queue_has_graphics) {
    return fail(Error::kNoDevice, "createRenderer: the device's queue (" + context.info.name + ") cannot do graphics");
  }
  Expected<PosePrepared> prepared = preparePose(asset, options.scene);
  if (!prepared) return prepared.error();

  auto* r = new Renderer();
  r->ctx = &context;
  r->asset = &asset;
  r->options = options;
  r->options.instances = std::max(options.instances, 1u);
  r->prepared = std::move(*prepared);
  r->info.device = context.info.name;
  r->info.passes = 1 + (options.shadows ? 1 : 0) + (options.depth_prepass ? 1 : 0);

  uint32_t max_targets = 0;
  for (const PrimitiveData& p : r->prepared.primitives) {
    max_targets = std::max<uint32_t>(max_targets, uint32_t(p.targets.size()));
    r->info.rescaled_skin_vertices += p.skin_weight_fix.rescaled;
  }
  if (options.ignore_morph_targets) max_targets = 0;
  MorphPath path = options.morph_path;
  if (path == MorphPath::kAuto)
    path = options.crowd ? MorphPath::kCompute : chooseMorphPath(r->info.passes, max_targets);
  if (options.node_material) {
    path = MorphPath::kVertex;  // node draws morph and skin in the node program's vertex shader
    Expected<std::unique_ptr<DeformPath>> node = makeNodePath(context, *options.node_material);
    if (!node) {
      destroyRenderer(r);
      return node.error();
    }
    r->path = std::move(*node);
  } else {
    r->path = options.crowd ? makeCrowdPath() : path == MorphPath::kCompute ? makeComputePath() : makeVertexPath();
  }
  r->info.crowd = options.crowd ? r->options.instances : 0;
  if (Status s = options.crowd ? checkCrowdFits(*r) : Status(Ok{}); !s) {
    destroyRenderer(r);
    return s.error();
  }
  r->info.path = path;
  r->info.frame_copies = r->path->frameCopies() ? kRenderFramesInFlight : 1;
  if (Status s = createParts(*r); !s) {
    destroyRenderer(r);
    return s.error();
  }
  return r;
}

// Each part frees what it created (also after a failure half-way); the pool frees every descriptor set.
void destroyRenderer(Renderer* r) {
  if (!r) return;
  VulkanContext& ctx = *r->ctx;
  vkDeviceWaitIdle(ctx.device);
  for (FrameSlot& slot : r->slots) {
    slot.submission.pending = false;  // the device is idle: nothing left to wait for
    destroyInFlightSubmission(ctx, slot.submission);
    destroyBuffer(ctx, slot.readback);
  }
  destroyPipelineCache(ctx, r->pipelines);
  destroyBackground(ctx, r->background);
  if (r->path) r->path->destroy(ctx);
  for (PrimitiveGpu& p : r->primitives) {
    destroyBuffer(ctx, p.vertices);
    destroyBuffer(ctx, p.indices);
  }
  destroyMaterialSet(ctx, r->materials);
  for (FrameResources& frame : r->frames) destroyBuffer(ctx, frame.ubo);
  destroyRenderTargets(ctx, r->targets);
  destroyEnvironmentMaps(r->own_environment);
  destroyMeshProgram(ctx, r->mesh_program);
  vkDestroyDescriptorPool(ctx.device, r->pool, nullptr);
  delete r;
}

const RendererInfo& rendererInfo(const Renderer& renderer) {
  return renderer.info;
}

void setRendererCamera(Renderer& renderer, const RenderCamera& camera, std::optional<Bounds> shadow_bounds) {
  renderer.camera = camera;
  if (shadow_bounds && !shadow_bounds->empty()) renderer.bounds = *shadow_bounds;
}

std::vector<std::string> rendererValidationMessages(const Renderer& renderer) {
  return gpuValidationMessages(*renderer.ctx);
}

}  // namespace morphkit
