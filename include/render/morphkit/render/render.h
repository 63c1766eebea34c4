// SPDX-License-Identifier: MIT
// morphkit/render/render.h — the headless PBR renderer (morphkit::render) and the pure functions behind it.
//
// Vulkan stays out of this header: a Renderer is a typed handle created on a VulkanContext (morphkit/vk/gpu.h) and
// destroyed before it. Rendering is offscreen (R8G8B8A8_SRGB color + D32 depth), copied to a host-visible buffer
// with an explicit row pitch; the library returns pixels (RGBA8, sRGB-encoded, rows top to bottom), the caller
// writes files (encodePng, morphkit/image/image.h). Nothing throws; failures are Expected/Status with "<where>:
// <what>".
//
// Two morph paths draw the same image (tests/render/render_golden_test.cpp states the tolerance):
//   kVertex  band-texture path: all deltas in one rgba32float 2D texture (morphTextureLayout below), weights in
//            a 32-byte uniform (≤ 4 targets) or — beyond the band-texture design — weights + active list in a storage
//            buffer (any count, tangent bands); the vertex shader morphs, then skins (joint palette in a storage
//            buffer). The same vertex shader runs in every pass (shadow, depth prepass, color).
//   kCompute the Vulkan compute path (morphkit/vk/gpu.h GpuMorphGroup) deforms once per frame; its output buffer is
//            bound directly as the vertex buffer of every pass.
//   kAuto    chooseMorphPath() below (rule derived from bench/render_bench.cpp, see docs/RENDER.md).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/core/weights.h"
#include "morphkit/image/image.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"
#include "morphkit/model/math.h"
#include "morphkit/model/primitive.h"
#include "morphkit/pack/band_texture.h"
#include "morphkit/render/environment.h"

namespace morphkit {

struct VulkanContext;  // morphkit/vk/gpu.h
struct NodeMaterial;   // morphkit/material/node_material.h
struct Renderer;       // pipelines, the scene's GPU resources, offscreen targets (src/render/renderer.cpp)

// The band texture (MorphTextureLayout, packMorphTexture, ...) is in morphkit/pack/band_texture.h.

// Band-texture path "Weights UBO Layout — 32 bytes": {vec4 weights; uint count; uint texWidth; uint rowsPerBand; uint
// pad}. initMorphUniform writes all 32 bytes once; writeMorphWeights is the per-frame update and writes only the first
// 16 bytes (weights beyond `count` are 0). Both need `bytes.size() >= 32` and weights.size() <= 4.
bool initMorphUniform(std::span<uint8_t> bytes, const MorphTextureLayout& layout, std::span<const float> weights);
bool writeMorphWeights(std::span<uint8_t> bytes, std::span<const float> weights);

// ---- Morph path ----
enum class MorphPath : uint8_t { kVertex, kCompute, kAuto };
const char* morphPathName(MorphPath path);  // "vertex", "compute", "auto"
std::optional<MorphPath> parseMorphPath(std::string_view text);
// The auto rule (docs/RENDER.md, from bench/render_bench.cpp): compute when the mesh is drawn in >= 2 passes
// with morph work to share (shadow + color, or prepass + color), or when it has > 4 active targets; vertex
// otherwise (one pass and a mesh of at most 4 targets: the texture fetches cost less than a dispatch + barrier).
MorphPath chooseMorphPath(uint32_t passes, uint32_t max_active_targets);

// ---- Camera ----
struct RenderCamera {
  Vec3 eye{0, 0, 3};
  Vec3 target{0, 0, 0};
  Vec3 up{0, 1, 0};
  float yfov = 0.6f;  // radians (perspective)
  float znear = 0.01f, zfar = 100.0f;
};
struct Bounds {
  Vec3 min{1e30f, 1e30f, 1e30f}, max{-1e30f, -1e30f, -1e30f};
  // A sphere holding every point (posedBounds: the box's centre, radius to the farthest point, so never larger
  // than the box's circumscribed sphere and independent of vertex order). radius < 0: not computed (frameBounds
  // then uses the box's).
  Vec3 sphere_center{0, 0, 0};
  float sphere_radius = -1.0f;
  bool empty() const { return min.x > max.x; }
};
// Morph- and skin-aware bounds: the world-space AABB of the CPU-posed vertices (morphkit/core/pose.h, fast path) of
// `scene` at `samples` times spread evenly over [t0, t1] of `animation` (kNone: the rest pose only).
// `weights` (optional) drives targets on top of the animation, as in PoseOptions.
Expected<Bounds> posedBounds(const Asset& asset, uint32_t scene, uint32_t animation, double t0, double t1,
                             uint32_t samples = 12, const WeightInputs& weights = {});
// The bounds a clip render frames (CLI render, Python Renderer.render, batch tasks): posedBounds over the whole
// clip [0, animationDuration] of `animation` with 24 samples (the rest pose for kNone), whatever frames are then
// rendered, so that split frame ranges match a whole render byte for byte. With a weight track (a face capture)
// the clip lasts as long as the longer of the animation and the track.
Expected<Bounds> clipBounds(const Asset& asset, uint32_t scene, uint32_t animation, const WeightInputs& weights = {});
// A camera that frames `bounds`: the bounding sphere centred, its silhouette filling kFrameFill of the image's
// smaller side at `aspect`, looking from the front (+Z), a little right and above (glTF: +Y up, front faces +Z).
// znear/zfar follow parseCamera's rule (distance / 100, distance · 100), so cameraText() reproduces it exactly.
constexpr float kFrameFill = 0.85f;
RenderCamera frameBounds(const Bounds& bounds, float aspect);
// "EX,EY,EZ:TX,TY,TZ:FOVDEG" (9 significant digits): parseCamera(cameraText(c)) gives the same eye, target and
// field of view (render --json prints the camera used so).
std::string cameraText(const RenderCamera& camera);
// The camera of the first node (scene traversal order) that has camera `camera` (kNone: any camera), in its
// world transform at the rest pose; fails when there is none. Orthographic cameras fail (unsupported).
Expected<RenderCamera> fileCamera(const Asset& asset, uint32_t scene, uint32_t camera = kNone);
// "EX,EY,EZ:TX,TY,TZ[:FOVDEG]" → camera; nullopt when it does not parse.
std::optional<RenderCamera> parseCamera(std::string_view text);

// ---- Crowds (render --crowd) ----
enum class CrowdOffsets : uint8_t { kRandom, kLinear };
std::optional<CrowdOffsets> parseCrowdOffsets(std::string_view text);  // "random", "linear"
struct CrowdLayout {
  std::vector<Vec3> offsets;         // where each copy stands (RenderOptions::instance_offsets)
  std::vector<double> time_offsets;  // seconds into the clip (RenderOptions::instance_time_offsets)
  float spacing = 0;                 // the spacing used
  Bounds bounds;                     // `one` moved over every place: what the camera frames
};
// `count` copies in a grid of ceil(√count) columns on the ground plane (x, z), `spacing` apart (0: 1.25 × the larger
// of `one`'s x and z extents, 1 when that is 0), centred on the origin. Time offsets into a clip of `duration`
// seconds: linear k · duration / count, or random, uniform in [0, duration) from a fixed seed (the same crowd every
// run). `one` is the bounds of a single copy over the whole clip (clipBounds).
CrowdLayout layoutCrowd(uint32_t count, float spacing, CrowdOffsets offsets, double duration, const Bounds& one);

// ---- Look: environment, tone curve, lights, background ----
enum class EnvironmentKind : uint8_t { kStudio, kOff, kImage };  // kOff: "none"
enum class ToneMapping : uint8_t { kNeutral, kAces, kOff };      // kOff: "none"
const char* toneMappingName(ToneMapping tone);                   // "neutral", "aces", "none"
std::optional<ToneMapping> parseToneMapping(std::string_view text);
// "R,G,B" with 0..255 sRGB integers → linear RGB + alpha 1 (the clear colour); false when it does not parse.
bool parseBackgroundColor(std::string_view text, float (&linear_rgba)[4]);

// ---- Renderer ----
struct RenderOptions {
  uint32_t width = 256, height = 256;
  MorphPath morph_path = MorphPath::kAuto;
  bool depth_prepass = true;  // depth-only pass, then color with depth test LESS_OR_EQUAL and no depth writes
  bool shadows = true;        // directional light shadow map
  uint32_t shadow_size = 1024;
  uint32_t scene = kNone;                             // kNone: asset.scene, else 0
  float background[4] = {0.08f, 0.09f, 0.11f, 1.0f};  // linear RGB + alpha
  // Copies of every scene mesh (bench): instance k samples the animation at time + k · instance_time_step and is
  // drawn at the same place; each has its own weights, joints and (compute path) output.
  uint32_t instances = 1;
  double instance_time_step = 0.137;
  // Where copy k stands (added to its world position; empty: every copy at the origin) and the time it plays
  // (input time + instance_time_offsets[k]; empty: + k · instance_time_step). Each holds `instances` entries or none.
  std::vector<Vec3> instance_offsets;
  std::vector<double> instance_time_offsets;
  double instance_time_wrap = 0.0;  // > 0: a copy's time wraps modulo this (a crowd loops its clip)
  // A crowd (render --crowd): the copies of each (node, primitive) are deformed by the crowd kernel
  // (morphkit/vk/gpu_crowd.h), one dispatch per primitive for every copy, each copy drawn from its range of that
  // output. Uses the compute path (kVertex is refused) and no node material.
  bool crowd = false;
  bool force_active_list = false;     // vertex path: use the storage-buffer variant even for ≤ 4 targets (tests)
  bool ignore_morph_targets = false;  // upload no morph data at all (tests: "all-zero weights = no morph data")
  // A node material (morphkit/material/node_material.h) drawn for every primitive instead of the built-in PBR shaders;
  // it must outlive the renderer. Node draws deform in their own vertex shader (morph, then skin): no compute batch and
  // no morph texture; morph_path is ignored (RendererInfo::path reports kVertex).
  const NodeMaterial* node_material = nullptr;

  // Image-based light (morphkit/render/environment.h, docs/RENDER.md "Environment"). kStudio: the built-in studio;
  // kImage: `environment_image` (a decoded .hdr; only read during createRenderer); kOff: no image-based light.
  // `environment_maps`, when set, is used instead of making maps (made once with createEnvironmentMaps, shared
  // by renderers on the same context, outliving them): the cache per environment.
  EnvironmentKind environment = EnvironmentKind::kStudio;
  const HdrImage* environment_image = nullptr;
  const EnvironmentMaps* environment_maps = nullptr;
  float environment_intensity = 1.0f;     // scales the environment's radiance (>= 0)
  float environment_rotation_deg = 0.0f;  // about +Y, as three.js's scene.environmentRotation.y
  ToneMapping tone_mapping = ToneMapping::kNeutral;
  float exposure_ev = 0.0f;             // colours × 2^EV before the tone curve (also with kOff)
  bool key_light = true;                // the directional key light (and its shadow map) on top of the environment
  bool background_environment = false;  // draw the environment behind the model instead of `background`
  // Multisample antialiasing: 1, 4 or 8 samples per pixel (the color pass and the depth prepass; resolved before
  // readback). A device that has fewer uses the largest count it supports (RendererInfo::msaa, and a warning).
  uint32_t msaa = 4;
};

// What the renderer decided, for summaries.
struct RendererInfo {
  MorphPath path = MorphPath::kVertex;   // the resolved path (never kAuto)
  uint32_t draws = 0;                    // draw items (node, primitive, instance)
  uint32_t morph_draws_seed = 0;         // draws using the band-texture design's 32-byte uniform variant
  uint32_t morph_draws_active_list = 0;  // draws using the storage-buffer variant
  uint32_t passes = 1;                   // 1 (color) + shadow + prepass
  uint32_t max_targets = 0;
  uint64_t rescaled_skin_vertices = 0;  // skin weights the decode rescaled to sum 1 (SkinWeightFix::rescaled)
  uint32_t msaa = 1;                    // samples per pixel used
  uint32_t crowd = 0;                   // copies deformed by the crowd kernel (RenderOptions::crowd), else 0
  std::string device;                   // gpuDeviceInfo().name
  std::vector<std::string> warnings;    // e.g. "images[0]: image/jpeg could not be decoded; using the factor"
  // Copies of the per-frame data (uniforms, weights, matrices, deformed outputs): kRenderFramesInFlight on the compute
  // path, whose frame n + 1 is submitted while frame n runs; 1 on the others (submitFrame waits for the frame before).
  uint32_t frame_copies = 1;
};

// Uploads the asset (decoded with preparePose), builds pipelines and targets. The asset must outlive it.
// Fails with kNoDevice when the context's queue cannot do graphics.
Expected<Renderer*> createRenderer(VulkanContext& context, const Asset& asset, const RenderOptions& options);
void destroyRenderer(Renderer* renderer);  // null is fine; before destroyVulkanContext
const RendererInfo& rendererInfo(const Renderer& renderer);

struct RenderFrameInput {
  uint32_t animation = kNone;          // kNone: rest pose
  double time = 0.0;                   // seconds
  std::optional<RenderCamera> camera;  // empty: the camera given by setRendererCamera (default: auto-framed rest pose)
  bool readback = true;                // false: render only (bench)
  WeightInputs weights;                // optional track + overrides (morphkit/core/weights.h), as in PoseOptions
  // Test hook: replaces every mesh's morph weights with these (each mesh takes the first target_count; missing = 0).
  std::optional<std::vector<float>> override_weights;
};
struct RenderStats {
  double cpu_ms = 0;  // CPU: animation sampling, scene evaluation, uniform writes, command recording
  double gpu_ms = 0;  // GPU: the render passes (timestamps; NaN without timestamp support)
  double morph_gpu_ms =
      0;               // GPU: the compute dispatch (compute and crowd paths; 0 for the vertex path; NaN unsupported)
  double wall_ms = 0;  // the caller's time in the renderer for this frame (submit + collect), waits included
};
// `shadow_bounds` (optional) replaces the bounds the light's shadow frustum covers (default: the rest pose).
void setRendererCamera(Renderer& renderer, const RenderCamera& camera,
                       std::optional<Bounds> shadow_bounds = std::nullopt);

// Frames in flight (docs/RENDER.md, "Frames in flight"). submitFrame runs the frame step, records the frame (the
// compute path's dispatch, the passes and the readback copy into one command buffer) and submits it without waiting
// for it; collectFrame waits for the oldest submitted frame and returns its image, in submission order. Up to
// kRenderFramesInFlight frames may be submitted and not yet collected (submitFrame fails with kInvalidArgument beyond
// that). The frame step and uniform writes of frame n + 1 wait for frame n's GPU work (one copy of the per-frame
// data); frame n's readback copy, and whatever the caller does with its image, overlap frame n + 1 on the GPU:
//   submitFrame(0); for n: { if (n + 1 < count) submitFrame(n + 1); image = collectFrame(); use(image); }
// The images equal renderFrame's bit for bit. destroyRenderer drops frames not collected.
constexpr uint32_t kRenderFramesInFlight = 2;
Status submitFrame(Renderer& renderer, const RenderFrameInput& input);
Expected<RenderedImage> collectFrame(Renderer& renderer, RenderStats* stats = nullptr);
uint32_t framesInFlight(const Renderer& renderer);  // submitted, not yet collected
// Frames 0 … count − 1 with frames in flight: `input(i)` gives frame i, `sink(i, image, stats)` takes the images in
// order while the next frame runs on the GPU. Stops at the first failure (the sink's too); frames left in flight are
// collected and dropped.
using FrameInputFunction = std::function<RenderFrameInput(uint32_t frame)>;
using FrameSinkFunction = std::function<Status(uint32_t frame, RenderedImage&& image, const RenderStats& stats)>;
Status renderFrameSequence(Renderer& renderer, uint32_t count, const FrameInputFunction& input,
                           const FrameSinkFunction& sink);
// One frame, waited for: submitFrame then collectFrame (kInvalidArgument while frames are in flight).
Expected<RenderedImage> renderFrame(Renderer& renderer, const RenderFrameInput& input, RenderStats* stats = nullptr);
// Validation messages recorded on the renderer's context (morphkit/vk/gpu.h gpuValidationMessages).
std::vector<std::string> rendererValidationMessages(const Renderer& renderer);

}  // namespace morphkit
