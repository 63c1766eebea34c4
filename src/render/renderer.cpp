// SPDX-License-Identifier: MIT
// The headless renderer: createRenderer builds the shared parts (targets, materials, primitives, draws) and hands
// each primitive and draw to the morph path (path_*.cpp); renderFrame runs the frame step, lets the path update
// its draws, and records the passes; submitFrame / collectFrame keep up to kRenderFramesInFlight frames in flight
// (a slot each: command buffer, fence, readback buffer, timestamps). renderer_state.h lists the files.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>

#include "environment_internal.h"
#include "morphkit/contract.h"
#include "morphkit/gpu_crowd.h"
#include "morphkit/node_material.h"
#include "morphkit/scene.h"
#include "renderer_state.h"

namespace morphkit {

using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

float determinant3(const Mat4& m) {
  return m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0)) +
         m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0));
}

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
    // seed's 2-band layout serves (it ignores TANGENT deltas, as the seed says).
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
    // Per node draw: the node uniform block + FrameBlock, the textures + the shadow map, up to 4 feature buffers.
    const uint32_t textures = uint32_t(r.options.node_material->textures.size());
    sizes[0].descriptorCount += 2 * draw_count;
    sizes[1].descriptorCount += 4 * draw_count;
    sizes[3].descriptorCount += (textures + 1) * draw_count;
  }
  VkDescriptorPoolCreateInfo pool{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool.maxSets = draw_count + material_count + frame_sets;
  pool.poolSizeCount = 4;
  pool.pPoolSizes = sizes;
  return checkVk(vkCreateDescriptorPool(r.ctx->device, &pool, nullptr, &r.pool), "vkCreateDescriptorPool");
}

// Every draw's pipeline per pass it is drawn in (winding may change with the pose, so looked up per frame; cached).
using DrawPipelines = std::vector<std::array<VkPipeline, 3>>;
Status drawPipelines(Renderer& r, DrawPipelines& out) {
  out.assign(r.draws.size(), {VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE});
  for (size_t i = 0; i < r.draws.size(); ++i) {
    for (Pass pass : {Pass::kShadow, Pass::kDepth, Pass::kColor}) {
      if (!drawsInPass(r, r.draws[i], pass)) continue;
      Expected<VkPipeline> p = pipelineFor(r, r.draws[i], pass);
      if (!p) return p.error();
      out[i][uint32_t(pass)] = *p;
    }
  }
  return Ok{};
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

// The frame step for every copy (the same as evaluatePose / evaluateGpuPose), then each draw's update by its path.
// Each draw's depth along the view (`camera`) for the back-to-front order of BLEND draws.
// A copy standing at `offset`: every world matrix and joint palette of its frame moved by it (in double, before
// any path rounds them), so every path draws it there.
void placeCopy(Vec3 offset, FrameState& state) {
  DMat4 move;
  move(0, 3) = offset.x;
  move(1, 3) = offset.y;
  move(2, 3) = offset.z;
  for (InstanceFrame& instance : state.instances) instance.world = move * instance.world;
  for (std::vector<DMat4>& palette : state.palettes) {  // InstanceFrame::joint_matrices points into these
    for (DMat4& joint : palette) joint = move * joint;
  }
}

Status updateDraws(Renderer& r, const RenderFrameInput& input, const RenderCamera& camera) {
  const Vec3 forward = normalize(camera.target - camera.eye);
  const Asset& asset = *r.asset;
  size_t draw_index = 0;
  FrameState state;
  for (uint32_t copy = 0; copy < r.options.instances; ++copy) {
    FrameRequest request;
    request.animation = input.animation;
    request.time = input.time + (r.options.instance_time_offsets.empty() ? copy * r.options.instance_time_step
                                                                         : r.options.instance_time_offsets[copy]);
    if (r.options.instance_time_wrap > 0.0) request.time = std::fmod(request.time, r.options.instance_time_wrap);
    request.weights = input.weights;
    if (Status s = evaluateFrame(r.prepared, request, state); !s) return s;
    if (!r.options.instance_offsets.empty()) placeCopy(r.options.instance_offsets[copy], state);
    // Joint and world matrices come in double (scene.h): the compute path takes them so (it keeps the digits far
    // from the origin); the vertex path and node materials upload floats, rounded once here per skin.
    std::vector<std::vector<Mat4>> joints_float(asset.skins.size());
    std::vector<float> weights;
    for (; draw_index < r.draws.size() && r.draws[draw_index].copy == copy; ++draw_index) {
      Draw& d = r.draws[draw_index];
      const InstanceFrame& instance = state.instances[d.instance];
      weights.assign(r.primitives[d.primitive].target_count, 0.0f);
      const std::vector<float>& source = input.override_weights ? *input.override_weights : instance.weights;
      for (size_t k = 0; k < weights.size() && k < source.size(); ++k) weights[k] = source[k];
      DrawFrame frame;
      frame.weights = weights;
      frame.world = &instance.world;
      frame.world_float = toFloat(instance.world);
      if (d.skin != kNone) {
        if (joints_float[d.skin].empty()) joints_float[d.skin] = toFloat(state.palettes[d.skin]);
        frame.joints = instance.joint_matrices;
        frame.joints_float = joints_float[d.skin];
      }
      d.flip = d.skin == kNone && determinant3(frame.world_float) < 0.0f;
      // A skinned primitive's vertices follow its joints: its first joint's matrix places the centre.
      const Mat4& placement = frame.joints_float.empty() ? frame.world_float : frame.joints_float[0];
      d.view_depth = dot(transformPoint(placement, r.primitives[d.primitive].center) - camera.eye, forward);
      if (Status s = r.path->updateDraw(r, uint32_t(draw_index), frame); !s) return s;
    }
  }
  return Ok{};
}

// Records one pass's draws: opaque, then masked, then blended (the last two in the color pass only).
void drawPass(const Renderer& r, const DrawPipelines& pipelines, VkCommandBuffer cmd, Pass pass, uint32_t w,
              uint32_t h) {
  VkViewport viewport{0, 0, float(w), float(h), 0, 1};
  VkRect2D scissor{{0, 0}, {w, h}};
  vkCmdSetViewport(cmd, 0, 1, &viewport);
  vkCmdSetScissor(cmd, 0, 1, &scissor);
  if (pass == Pass::kColor) recordBackground(r, cmd);
  // BLEND draws far to near (glTF 2.0 §3.9.4 leaves the order to the renderer; three.js sorts transparent objects
  // back to front too), by their centre's depth this frame; ties keep the file's order.
  std::vector<uint32_t> order_of, blended;
  for (uint32_t i = 0; i < r.draws.size(); ++i) {
    (r.materials.materials[r.draws[i].material].alpha == AlphaMode::kBlend ? blended : order_of).push_back(i);
  }
  std::stable_sort(blended.begin(), blended.end(),
                   [&](uint32_t a, uint32_t b) { return r.draws[a].view_depth > r.draws[b].view_depth; });
  order_of.insert(order_of.end(), blended.begin(), blended.end());
  for (AlphaMode order : {AlphaMode::kOpaque, AlphaMode::kMask, AlphaMode::kBlend}) {
    if (pass != Pass::kColor && order != AlphaMode::kOpaque) break;
    for (uint32_t i : order_of) {
      const Draw& d = r.draws[i];
      if (r.materials.materials[d.material].alpha != order) continue;
      if (r.path->drawnWithAnother(r, i)) continue;
      const PrimitiveGpu& prim = r.primitives[d.primitive];
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipelines[i][uint32_t(pass)]);
      r.path->bind(r, cmd, i, pass);
      if (r.path->recordDraw(r, cmd, i)) continue;
      if (prim.index_count > 0) {
        vkCmdBindIndexBuffer(cmd, prim.indices.buffer, 0, VK_INDEX_TYPE_UINT32);
        vkCmdDrawIndexed(cmd, prim.index_count, 1, 0, 0, 0);
      } else {
        vkCmdDraw(cmd, prim.vertex_count, 1, 0, 0);
      }
    }
  }
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

namespace {

// The GPU milliseconds between two of a slot's timestamps; NaN when they are missing or out of order.
double slotMilliseconds(const Renderer& r, const uint64_t* ticks, uint32_t from, uint32_t to) {
  if (ticks[to] < ticks[from]) return std::nan("");
  return double(ticks[to] - ticks[from]) * r.ctx->info.timestamp_period_ns / 1e6;
}

}  // namespace

uint32_t framesInFlight(const Renderer& r) {
  return r.in_flight;
}

Status submitFrame(Renderer& r, const RenderFrameInput& input) {
  const Clock::time_point wall_start = Clock::now();
  if (input.animation != kNone && input.animation >= r.prepared.animations.size()) {
    return fail(Error::kInvalidArgument, "animations[" + std::to_string(input.animation) +
                                             "]: no such animation (the asset has " +
                                             std::to_string(r.prepared.animations.size()) + ")");
  }
  if (r.in_flight == kRenderFramesInFlight) {
    return fail(Error::kInvalidArgument, "submitFrame: " + std::to_string(kRenderFramesInFlight) +
                                             " frames in flight already; collectFrame first");
  }
  FrameSlot& slot = r.slots[r.next_submit];
  const uint32_t slot_index = r.next_submit;
  // The per-frame data (frame uniforms, the path's weights, matrices and active lists): with a copy per slot
  // (DeformPath::frameCopies), this slot's copy is free once the slot was collected, so frame n + 1 is written and
  // submitted while frame n runs; with one copy, the frame before this one must be done before any of it is written.
  const bool copies = r.path->frameCopies();
  if (r.in_flight > 0 && !copies) {
    FrameSlot& previous = r.slots[(r.next_submit + kRenderFramesInFlight - 1) % kRenderFramesInFlight];
    if (Status s = waitInFlight(*r.ctx, previous.submission, "submitFrame"); !s) return s;
  }
  r.data_slot = copies ? slot_index : 0;
  slot.stats = RenderStats{};
  const Clock::time_point cpu_start = Clock::now();
  const RenderCamera& camera = input.camera ? *input.camera : r.camera;
  if (Status s = updateDraws(r, input, camera); !s) return s;
  DrawPipelines pipelines;
  if (Status s = drawPipelines(r, pipelines); !s) return s;
  writeFrameUniforms(r.frames[r.data_slot], r.options, camera, r.bounds, *r.environment);

  if (Status s = beginInFlight(*r.ctx, slot.submission, "submitFrame"); !s) return s;
  VkCommandBuffer cmd = slot.submission.cmd;
  const VkQueryPool queries = r.targets.queries;
  const uint32_t first_query = slot_index * kQueriesPerFrame;
  if (queries) {
    vkCmdResetQueryPool(cmd, queries, first_query, kQueriesPerFrame);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, first_query);
  }
  // The path's compute work first (the compute and crowd paths' one dispatch), timed apart from the passes.
  Status recorded = r.path->recordDispatch(r, cmd);
  if (queries) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, first_query + 1);
  if (recorded) {
    recordPasses(cmd, r.targets, r.options, input.readback ? slot.readback.buffer : VK_NULL_HANDLE,
                 [&](VkCommandBuffer c, Pass pass, uint32_t w, uint32_t h) { drawPass(r, pipelines, c, pass, w, h); });
    if (queries) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, first_query + 2);
  }
  slot.stats.cpu_ms = msSince(cpu_start);
  if (!recorded) {  // ended and dropped, never submitted
    (void)vkEndCommandBuffer(cmd);
    return recorded;
  }
  if (Status s = submitInFlight(*r.ctx, slot.submission, "submitFrame"); !s) return s;
  slot.readback_wanted = input.readback;
  r.next_submit = (r.next_submit + 1) % kRenderFramesInFlight;
  ++r.in_flight;
  slot.stats.wall_ms = msSince(wall_start);
  return Ok{};
}

Expected<RenderedImage> collectFrame(Renderer& r, RenderStats* stats) {
  const Clock::time_point wall_start = Clock::now();
  if (r.in_flight == 0) return fail(Error::kInvalidArgument, "collectFrame: no frame in flight");
  FrameSlot& slot = r.slots[r.next_collect];
  const uint32_t slot_index = r.next_collect;
  r.next_collect = (r.next_collect + 1) % kRenderFramesInFlight;
  --r.in_flight;
  if (Status s = waitInFlight(*r.ctx, slot.submission, "collectFrame"); !s) return s.error();
  RenderStats local = slot.stats;
  local.gpu_ms = std::nan("");
  local.morph_gpu_ms = r.path->dispatches() ? std::nan("") : 0.0;
  if (r.targets.queries) {
    uint64_t ticks[kQueriesPerFrame] = {};
    VkResult q =
        vkGetQueryPoolResults(r.ctx->device, r.targets.queries, slot_index * kQueriesPerFrame, kQueriesPerFrame,
                              sizeof ticks, ticks, sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (q == VK_SUCCESS) {
      local.gpu_ms = slotMilliseconds(r, ticks, 1, 2);
      if (r.path->dispatches()) local.morph_gpu_ms = slotMilliseconds(r, ticks, 0, 1);
    }
  }
  RenderedImage image;
  image.width = r.options.width;
  image.height = r.options.height;
  if (slot.readback_wanted) image.rgba = readbackPixels(slot.readback, r.targets.row_pitch, image.width, image.height);
  local.wall_ms += msSince(wall_start);
  if (stats) *stats = local;
  return image;
}

Status renderFrameSequence(Renderer& r, uint32_t count, const FrameInputFunction& input,
                           const FrameSinkFunction& sink) {
  uint32_t collected = 0;
  Status status = Ok{};
  for (uint32_t submitted = 0; collected < count && status;) {
    if (submitted < count && r.in_flight < kRenderFramesInFlight) {
      status = submitFrame(r, input(submitted++));
      continue;
    }
    RenderStats stats;
    Expected<RenderedImage> image = collectFrame(r, &stats);
    status = image ? sink(collected++, std::move(*image), stats) : Status(image.error());
  }
  while (r.in_flight > 0) (void)collectFrame(r, nullptr);  // after a failure: the frames still on the GPU
  return status;
}

Expected<RenderedImage> renderFrame(Renderer& r, const RenderFrameInput& input, RenderStats* stats) {
  if (r.in_flight > 0) {
    return fail(Error::kInvalidArgument,
                "renderFrame: " + std::to_string(r.in_flight) + " frame(s) in flight; collectFrame them first");
  }
  if (Status s = submitFrame(r, input); !s) return s.error();
  return collectFrame(r, stats);
}

}  // namespace morphkit
