// SPDX-License-Identifier: MIT
// morphkit/core/pose.h — "pose an asset": every (node, primitive) of a scene, morphed and skinned on the CPU at an
// animation time, in world space. This is what `morphkit pose` prints and what every GPU path is checked against.
//
// Pipeline per case: AnimationSamplingJob (animation.h) → evaluateScene (scene.h: world transforms, weights
// animated > node > mesh > 0, joint matrices) → MorphSkinJob / FastMorphSkinJob (deform.h) per primitive,
// split into vertex ranges over an optional caller-owned ThreadPool.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/core/animation.h"
#include "morphkit/core/deform.h"
#include "morphkit/core/scene.h"
#include "morphkit/core/weights.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"
#include "morphkit/model/primitive.h"
#include "morphkit/model/thread_pool.h"

namespace morphkit {

enum class CpuPath : uint8_t { kReference, kFast };

// One posed (node, primitive). Arrays are in the order of the primitive's POSITION accessor, world space.
struct PosedPrimitive {
  uint32_t node = kNone, mesh = kNone, primitive = kNone;
  bool skinned = false;  // node has a skin and the primitive has JOINTS_n/WEIGHTS_n
  uint32_t vertex_count = 0;
  std::vector<float> weights;                 // the morph weights used (target count long; empty without targets)
  std::vector<float> positions;               // 3 × vertex_count
  std::vector<float> normals;                 // 3 × vertex_count, unit length; empty when the primitive has none
  std::vector<float> tangents;                // 4 × vertex_count (w = handedness); empty when none
  std::vector<std::vector<float>> texcoords;  // [set] 2 × vertex_count (morphed)
  std::vector<std::vector<float>> colors;     // [set] 4 × vertex_count (morphed)
  std::vector<uint32_t> indices;              // as in the file; empty when non-indexed
  PrimitiveMode mode = PrimitiveMode::kTriangles;
};

struct PoseResult {
  uint32_t scene = kNone;
  uint32_t animation = kNone;  // kNone: rest pose (no animation)
  double time = 0.0;
  std::vector<PosedPrimitive> meshes;  // sorted by node, mesh, primitive; a mesh instanced twice appears twice
};

// Everything decoded once per (asset, scene) so posing many times costs only sampling + deformation.
// Holds a pointer to the asset: the asset must outlive it.
struct PosePrepared {
  struct Instance {
    uint32_t node = kNone, mesh = kNone, primitive = kNone;
    uint32_t data = 0;     // index into primitives / packed
    bool skinned = false;  // §3.7.3: the node has a skin and the primitive JOINTS_n/WEIGHTS_n; decided here, once
  };
  const Asset* asset = nullptr;
  uint32_t scene = kNone;
  std::vector<Instance> instances;              // sorted by node, mesh, primitive
  std::vector<PrimitiveData> primitives;        // one per distinct primitive (primitiveIdentity)
  std::vector<PackedTargets> packed;            // packTargets(primitives[i])
  std::vector<std::vector<Mat4>> inverse_bind;  // per skin; empty for skins no node of the scene uses
  std::vector<AnimationData> animations;        // per asset animation
};

// `scene` kNone: asset.scene, else 0. Fails when the scene does not exist or a primitive/animation does not decode.
Expected<PosePrepared> preparePose(const Asset& asset, uint32_t scene = kNone);

// A pose named for a report: optimize's render check chooses them (renderCheckPoses), the renderer draws them
// (compareRenders, morphkit/render/render_compare.h). A frame request's animation and time, overrides on top.
struct LabelledPose {
  std::string label;                      // "rest", "meshes[0] target 3 'jawOpen' alone at weight 1", ...
  uint32_t animation = kNone;             // kNone: no animation plays
  double time = 0.0;                      // seconds into `animation`
  std::vector<WeightOverride> overrides;  // on top (the rest pose and a target alone set every weight)
};

// One frame of a prepared scene: the step every consumer shares (CPU pose, GPU pose, renderer). Samples
// `animation` at `time`, evaluates the scene (transforms, joint inputs, weights animated > node > mesh > 0),
// then applies `weights` (morphkit/core/weights.h: the track at `time`, then the overrides).
struct FrameRequest {
  uint32_t animation = kNone;           // kNone: rest pose
  double time = 0.0;                    // seconds
  SamplingContext* sampling = nullptr;  // optional cursor cache (animation samplers and the weight track)
  WeightInputs weights;                 // optional weights from outside the file
};
// Fails (kInvalidArgument) for an animation index out of range or an override naming no target.
Expected<SceneState> evaluateFrame(const PosePrepared& prepared, const FrameRequest& request);

// What one frame gives each posed instance, in prepared.instances order: what every deformation path consumes.
struct InstanceFrame {
  std::vector<float> weights;             // one per morph target of the instance's primitive
  std::span<const DMat4> joint_matrices;  // skinned: its skin's palette, world(joint)·IBM (into FrameState::palettes)
  DMat4 world{};                          // rigid: the node's world matrix (§3.7.3: a skinned mesh ignores it)
};
struct FrameState {
  SceneState scene;
  std::vector<InstanceFrame> instances;
  std::vector<std::vector<DMat4>> palettes;  // per skin; built only for the skins the instances use
};
// evaluateFrame, then each instance's weights and palette or world matrix. `state` is caller-owned and reused
// from frame to frame: once sized, a frame reallocates none of its per-instance vectors.
Status evaluateFrame(const PosePrepared& prepared, const FrameRequest& request, FrameState& state);

// An engine's documented deviations from the glTF rules, as switches (`morphkit check`'s profiles, src/check,
// docs/CHECK.md). Every switch off, the default, is the glTF pose, bit for bit; any switch on poses with the scalar
// reference (the fast path knows none of them).
struct EngineRules {
  static constexpr uint32_t kNoLimit = UINT32_MAX;
  uint32_t max_targets = kNoLimit;      // targets from this index on move nothing (a loader that drops them)
  float min_weight = 0.0f;              // targets with |weight| <= this move nothing (a kernel that skips them)
  uint32_t ignored_deltas = 0;          // delta bits (deform.h: kNormalDelta, texcoordDelta(1), ...) never morphed
  bool partial_deltas_ignored = false;  // an attribute some target of the primitive lacks is morphed by none
  bool missing_delta_is_base = false;   // a target lacking an attribute another target has adds w · base value
  bool sparse_deltas_ignored = false;   // deltas stored as sparse accessors move nothing
  uint32_t influence_sets = kNoLimit;   // skinning reads the first N JOINTS_n/WEIGHTS_n sets
  bool kept_weights_as_stored = false;  // after dropping sets, the kept weights are not rescaled to sum 1
  CubicTangentScale cubic_tangents = CubicTangentScale::kKeyInterval;  // CUBICSPLINE tangent scaling
  bool any() const;                                                    // some switch is on
};

// A pose request is a frame request plus how to deform it on the CPU.
struct PoseOptions : FrameRequest {
  CpuPath path = CpuPath::kReference;
  ThreadPool* pool = nullptr;  // optional, owned by the caller
  // Posed positions only: normals, tangents, texture coordinates and colors are neither computed nor output (their
  // arrays are empty). For picking, collision and bounds, the work three.js's CPU path does; positions are
  // bit-identical to a full pose's.
  bool positions_only = false;
  EngineRules rules;  // an engine profile's deviations (default none: the glTF pose)
};

Expected<PoseResult> evaluatePose(const PosePrepared& prepared, const PoseOptions& options);
// The same into a caller-kept result, for playback: its buffers are reused (resized, not reallocated, when it
// held a pose of the same `prepared`), so a frame allocates no vertex arrays. On failure `result` is unspecified.
Status evaluatePose(const PosePrepared& prepared, const PoseOptions& options, PoseResult& result);
// NaN never leaves a pose: evaluatePose and the GPU's evaluateGpuPose fail (kTooLarge, "nodes[N] meshes[M]
// .primitives[P]: ...") when a posed position, normal or tangent is not finite. Validation already refuses
// non-finite data in the file (glTF 2.0 §3.6.2.2); finite data can still overflow float (weights × deltas,
// huge transforms). Exposed so every producer of a PoseResult applies the same rule.
Status checkPoseFinite(const PoseResult& pose);

// preparePose + evaluatePose.
Expected<PoseResult> poseAsset(const Asset& asset, uint32_t scene, const PoseOptions& options);

}  // namespace morphkit
