// SPDX-License-Identifier: MIT
// One frame of the renderer: the frame step for every copy, each draw's update by the morph path, the recording of
// the passes, and the frames in flight (submitFrame / collectFrame keep up to kRenderFramesInFlight frames in
// flight, a slot each: command buffer, fence, readback buffer, timestamps, frame uniforms).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <string>

#include "morphkit/core/scene.h"
#include "renderer_state.h"

namespace morphkit {

using Clock = std::chrono::steady_clock;

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

namespace {

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

float determinant3(const Mat4& m) {
  return m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)) - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0)) +
         m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0));
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
