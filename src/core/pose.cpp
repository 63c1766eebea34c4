// SPDX-License-Identifier: MIT
// pose.cpp — sampling → scene → morph+skin for every (node, primitive) of a scene (the writers: io/pose_writers.cpp).
#include "morphkit/core/pose.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include "morphkit/model/contract.h"
#include "morphkit/model/finite.h"

namespace morphkit {

namespace {

// Vertices per task on `pool` (parallelForShares: each thread walks its own share, then helps with the others').
// No workers: one task. Otherwise one fast-path block, so that a thread that finishes early can take small
// pieces and the threads end together (morph targets cluster in parts of the vertex range, so even shares are
// uneven work: 63 % of the 20k face's work in one half); four blocks when the deltas stream from memory, so that
// a job prefetches the next block for three of its four. Measured on the 20k-vertex demo, 2 threads: 1024-vertex
// shares 0.218–0.231 ms, 2048 0.25–0.26, the previous four in-order tasks per thread 0.242–0.246
// ("Two threads at 20k" in the journal, git show 94131b8:docs/PERFORMANCE.md).
size_t taskGrain(size_t vertices, const PackedTargets& packed, const ThreadPool* pool) {
  if (!pool || pool->threadCount() == 1) return std::max<size_t>(vertices, 1);
  const size_t blocks = FastMorphSkinJob::prefetchesStreams(packed) ? 4 : 1;
  return blocks * FastMorphSkinJob::kBlockVertices;
}

}  // namespace

namespace {

Expected<PosePrepared> prepare(const Asset& asset, uint32_t scene_request) {
  Expected<uint32_t> scene = resolveScene(asset, scene_request);
  if (!scene) return scene.error();
  Expected<SceneState> rest = evaluateScene(asset, *scene);
  if (!rest) return rest.error();

  PosePrepared prepared;
  prepared.asset = &asset;
  prepared.scene = *scene;
  std::vector<uint32_t> nodes = rest->scene_nodes;
  std::sort(nodes.begin(), nodes.end());
  // One PrimitiveData per distinct primitive, shared by every node that instances its mesh and by identical
  // primitives elsewhere (primitiveIdentity): work grows with the data, not with the references to it.
  std::vector<std::vector<uint32_t>> slot(asset.meshes.size());
  std::unordered_map<std::string, uint32_t> by_identity;
  std::vector<uint8_t> skin_used(asset.skins.size(), 0);
  for (uint32_t node : nodes) {
    const uint32_t mesh = asset.nodes[node].mesh;
    if (mesh == kNone) continue;
    MORPHKIT_EXPECTS(mesh < asset.meshes.size());
    if (asset.nodes[node].skin < asset.skins.size()) skin_used[asset.nodes[node].skin] = 1;
    const uint32_t prim_count = uint32_t(asset.meshes[mesh].primitives.size());
    if (slot[mesh].empty()) slot[mesh].assign(prim_count, kNone);
    for (uint32_t p = 0; p < prim_count; ++p) {
      if (slot[mesh][p] == kNone) {
        auto [known, inserted] = by_identity.try_emplace(primitiveIdentity(asset.meshes[mesh].primitives[p]),
                                                         uint32_t(prepared.primitives.size()));
        if (inserted) {
          Expected<PrimitiveData> data = decodePrimitive(asset, mesh, p);
          if (!data) return data.error();
          prepared.packed.push_back(packTargets(*data));
          prepared.primitives.push_back(std::move(*data));
        }
        slot[mesh][p] = known->second;
      }
      const uint32_t skin = asset.nodes[node].skin;
      const bool skinned =
          skin != kNone && skin < asset.skins.size() && prepared.primitives[slot[mesh][p]].influences > 0;
      prepared.instances.push_back(PosePrepared::Instance{node, mesh, p, slot[mesh][p], skinned});
    }
  }
  // Inverse bind matrices of the skins this scene uses (an unused skin of 10^6 joints costs nothing).
  prepared.inverse_bind.resize(asset.skins.size());
  for (uint32_t s = 0; s < asset.skins.size(); ++s) {
    if (skin_used[s]) prepared.inverse_bind[s] = decodeInverseBindMatrices(asset, s);
  }
  for (uint32_t a = 0; a < asset.animations.size(); ++a) {
    Expected<AnimationData> anim = decodeAnimation(asset, a);
    if (!anim) return anim.error();
    prepared.animations.push_back(std::move(*anim));
  }
  return prepared;
}

Expected<SceneState> frame(const PosePrepared& prepared, const FrameRequest& request,
                           CubicTangentScale cubic = CubicTangentScale::kKeyInterval) {
  if (!prepared.asset) return fail(Error::kInvalidArgument, "evaluateFrame: not prepared");
  const Asset& asset = *prepared.asset;
  std::vector<NodePose> pose;
  if (request.animation != kNone) {
    if (request.animation >= prepared.animations.size()) {
      return fail(Error::kInvalidArgument, "animations[" + std::to_string(request.animation) +
                                               "]: no such animation (the asset has " +
                                               std::to_string(prepared.animations.size()) + ")");
    }
    pose.resize(asset.nodes.size());
    AnimationSamplingJob sampling;
    sampling.animation = &prepared.animations[request.animation];
    sampling.time = request.time;
    sampling.context = request.sampling;
    sampling.output = pose;
    sampling.cubic_tangents = cubic;
    if (!sampling.run()) {
      return fail(Error::kInvalidArgument, "animations[" + std::to_string(request.animation) + "]: sampling failed");
    }
  }
  Expected<SceneState> state = evaluateScene(asset, prepared.scene, pose);
  if (!state) return state.error();
  SamplerCursor* cursor = request.sampling ? &request.sampling->weight_track : nullptr;
  if (Status s = applyWeightInputs(asset, request.weights, request.time, cursor, state->weights); !s) return s.error();
  return state;
}

Status frameState(const PosePrepared& prepared, const FrameRequest& request, FrameState& state,
                  CubicTangentScale cubic = CubicTangentScale::kKeyInterval) {
  Expected<SceneState> scene = frame(prepared, request, cubic);
  if (!scene) return scene.error();
  state.scene = std::move(*scene);
  const Asset& asset = *prepared.asset;
  state.instances.resize(prepared.instances.size());
  state.palettes.resize(asset.skins.size());
  std::vector<uint8_t> palette_ready(asset.skins.size(), 0);
  for (size_t i = 0; i < prepared.instances.size(); ++i) {
    const PosePrepared::Instance& inst = prepared.instances[i];
    InstanceFrame& out = state.instances[i];
    const std::vector<float>& weights = state.scene.weights[inst.node];
    out.weights.assign(weights.begin(), weights.end());
    out.weights.resize(prepared.primitives[inst.data].targets.size(), 0.0f);
    out.joint_matrices = {};
    out.world = state.scene.world[inst.node];
    if (!inst.skinned) continue;
    const uint32_t skin = asset.nodes[inst.node].skin;
    if (!palette_ready[skin]) {
      state.palettes[skin] = jointMatrices(asset, state.scene, skin, prepared.inverse_bind[skin]);
      palette_ready[skin] = 1;
    }
    out.joint_matrices = state.palettes[skin];
  }
  return Ok{};
}

// The delta bit of a target attribute name (deform.h), 0 for names no path morphs.
uint32_t deltaBitNamed(std::string_view name) {
  auto set = [&](std::string_view prefix) { return size_t(std::strtoul(name.data() + prefix.size(), nullptr, 10)); };
  if (name == "POSITION") return kPositionDelta;
  if (name == "NORMAL") return kNormalDelta;
  if (name == "TANGENT") return kTangentDelta;
  if (name.starts_with("TEXCOORD_")) return texcoordDelta(set("TEXCOORD_"));
  if (name.starts_with("COLOR_")) return colorDelta(set("COLOR_"));
  return 0;
}

// EngineRules resolved for one primitive: what an engine sees is the file's target attribute *lists* (an all-zero
// accessor decodes to no delta but is still there), so presence is read from the asset, not the decoded data.
DeformRules resolveRules(const EngineRules& rules, const Primitive& primitive, std::vector<uint32_t>& base_as_delta) {
  DeformRules out;
  out.sparse_deltas_ignored = rules.sparse_deltas_ignored;
  out.influence_sets = rules.influence_sets;
  out.kept_weights_as_stored = rules.kept_weights_as_stored;
  std::vector<uint32_t> present;
  uint32_t some = 0, every = primitive.targets.empty() ? 0 : ~0u;
  for (const MorphTarget& target : primitive.targets) {
    uint32_t bits = 0;
    for (const Attribute& a : target.attributes) bits |= deltaBitNamed(a.name);
    present.push_back(bits);
    some |= bits;
    every &= bits;
  }
  out.ignored_deltas = rules.ignored_deltas | (rules.partial_deltas_ignored ? some & ~every : 0u);
  base_as_delta.clear();
  if (rules.missing_delta_is_base) {
    for (uint32_t bits : present) base_as_delta.push_back(some & ~bits & ~out.ignored_deltas);
  }
  out.base_as_delta = base_as_delta;
  return out;
}

// EngineRules' weight switches: targets past the cap, or too small for the engine's kernel, weigh 0.
void applyWeightRules(const EngineRules& rules, std::vector<float>& weights) {
  for (size_t t = 0; t < weights.size(); ++t) {
    if (t >= rules.max_targets || std::abs(weights[t]) <= rules.min_weight) weights[t] = 0.0f;
  }
}

// The posed arrays NaN never leaves (checkPoseFinite), with their names; an array not output is empty.
std::array<std::pair<const std::vector<float>*, const char*>, 3> checkedArrays(const PosedPrimitive& m) {
  return {{{&m.positions, "position"}, {&m.normals, "normal"}, {&m.tangents, "tangent"}}};
}

Status evaluateInto(const PosePrepared& prepared, const PoseOptions& options, PoseResult& result) {
  if (!prepared.asset) return fail(Error::kInvalidArgument, "evaluatePose: not prepared");
  FrameState state;
  if (Status s = frameState(prepared, options, state, options.rules.cubic_tangents); !s) return s.error();
  const bool rules = options.rules.any();
  const CpuPath path = rules ? CpuPath::kReference : options.path;  // only the reference knows the rules
  std::vector<uint32_t> base_as_delta;

  result.scene = prepared.scene;
  result.animation = options.animation;
  result.time = options.time;
  result.meshes.resize(prepared.instances.size());  // a reused result keeps its buffers: no allocation per frame
  std::atomic<bool> non_finite{false};

  for (size_t i = 0; i < prepared.instances.size(); ++i) {
    const PosePrepared::Instance& inst = prepared.instances[i];
    const PrimitiveData& data = prepared.primitives[inst.data];
    PosedPrimitive& out = result.meshes[i];
    // Indices and mode are static: copied only when this slot held another primitive (or nothing) before.
    if (out.node != inst.node || out.mesh != inst.mesh || out.primitive != inst.primitive ||
        out.indices.size() != data.indices.size()) {
      out.indices = data.indices;
    }
    out.node = inst.node;
    out.mesh = inst.mesh;
    out.primitive = inst.primitive;
    out.vertex_count = data.vertex_count;
    out.weights = state.instances[i].weights;
    if (rules) applyWeightRules(options.rules, out.weights);
    out.skinned = inst.skinned;
    out.mode = data.mode;
    const size_t n = data.vertex_count;
    const bool all = !options.positions_only;
    out.positions.resize(3 * n);
    out.normals.resize(all && !data.normal.empty() ? 3 * n : 0);
    out.tangents.resize(all && !data.tangent.empty() ? 4 * n : 0);
    out.texcoords.resize(all ? data.texcoords.size() : 0);
    for (std::vector<float>& t : out.texcoords) t.resize(2 * n);
    out.colors.resize(all ? data.colors.size() : 0);
    for (std::vector<float>& c : out.colors) c.resize(4 * n);
    std::vector<std::span<float>> texcoord_spans(out.texcoords.begin(), out.texcoords.end());
    std::vector<std::span<float>> color_spans(out.colors.begin(), out.colors.end());

    MorphSkinJob job;
    job.primitive = &data;
    job.weights = out.weights;
    job.joint_matrices = state.instances[i].joint_matrices;
    job.world = state.instances[i].world;
    job.out_positions = out.positions;
    job.out_normals = out.normals;
    job.out_tangents = out.tangents;
    job.out_texcoords = texcoord_spans;
    job.out_colors = color_spans;
    job.begin = 0;
    job.end = data.vertex_count;
    if (rules) {
      job.rules =
          resolveRules(options.rules, prepared.asset->meshes[inst.mesh].primitives[inst.primitive], base_as_delta);
    }
    const PackedTargets* packed = &prepared.packed[inst.data];
    // Validated once per primitive here; the range jobs validate again (cheap for the fast path: its joint check
    // is packed->joints_needed, not a scan of every vertex).
    if (path == CpuPath::kFast ? !FastMorphSkinJob{job, packed}.validate() : !job.validate()) {
      return fail(Error::kInvalidArgument, "nodes[" + std::to_string(inst.node) + "] meshes[" +
                                               std::to_string(inst.mesh) + "].primitives[" +
                                               std::to_string(inst.primitive) +
                                               "]: inputs do not fit the deformation job (joint index out of range?)");
    }
    parallelForShares(options.pool, n, taskGrain(n, *packed, options.pool), [&](size_t begin, size_t end) {
      MorphSkinJob range = job;
      range.begin = uint32_t(begin);
      range.end = uint32_t(end);
      if (path == CpuPath::kFast) {
        FastMorphSkinJob fast;
        fast.job = range;
        fast.packed = packed;
        fast.run();
      } else {
        range.run();
      }
      // The NaN check of this range's outputs, on the range's own thread (it was serial work after the frame).
      for (const auto& [values, name] : checkedArrays(out)) {
        const size_t per_vertex = values->size() / std::max<size_t>(n, 1);
        if (anyNonFinite(std::span<const float>(*values).subspan(begin * per_vertex, (end - begin) * per_vertex))) {
          non_finite.store(true, std::memory_order_relaxed);
        }
      }
    });
  }
  // checkPoseFinite names the first bad value; it runs only when a range found one.
  return non_finite.load() ? checkPoseFinite(result) : Status(Ok{});
}

}  // namespace

bool EngineRules::any() const {
  const EngineRules none;
  return max_targets != none.max_targets || min_weight != none.min_weight || ignored_deltas != none.ignored_deltas ||
         partial_deltas_ignored || missing_delta_is_base || sparse_deltas_ignored ||
         influence_sets != none.influence_sets || kept_weights_as_stored || cubic_tangents != none.cubic_tangents;
}

Status checkPoseFinite(const PoseResult& pose) {
  for (const PosedPrimitive& m : pose.meshes) {
    for (const auto& [values, name] : checkedArrays(m)) {
      if (!anyNonFinite(*values)) continue;  // the vectorized scan; the search below only names the value
      auto bad = std::find_if(values->begin(), values->end(), [](float x) { return !std::isfinite(x); });
      if (bad == values->end()) continue;
      const size_t per_vertex = values->size() / std::max<size_t>(1, m.vertex_count);
      return fail(Error::kTooLarge, "nodes[" + std::to_string(m.node) + "] meshes[" + std::to_string(m.mesh) +
                                        "].primitives[" + std::to_string(m.primitive) + "]: posed " + name +
                                        " of vertex " + std::to_string(size_t(bad - values->begin()) / per_vertex) +
                                        " is not finite (weights x deltas or transforms overflow float); not output");
    }
  }
  return Ok{};
}

Expected<PosePrepared> preparePose(const Asset& asset, uint32_t scene) {
  return catchOutOfMemory("preparing the pose", [&] { return prepare(asset, scene); });
}

Expected<SceneState> evaluateFrame(const PosePrepared& prepared, const FrameRequest& request) {
  return catchOutOfMemory("evaluating the frame", [&] { return frame(prepared, request); });
}

Status evaluateFrame(const PosePrepared& prepared, const FrameRequest& request, FrameState& state) {
  return catchOutOfMemory("evaluating the frame", [&] { return frameState(prepared, request, state); });
}

Status evaluatePose(const PosePrepared& prepared, const PoseOptions& options, PoseResult& result) {
  return catchOutOfMemory("posing", [&] { return evaluateInto(prepared, options, result); });
}

Expected<PoseResult> evaluatePose(const PosePrepared& prepared, const PoseOptions& options) {
  PoseResult result;
  if (Status s = evaluatePose(prepared, options, result); !s) return s.error();
  return result;
}

Expected<PoseResult> poseAsset(const Asset& asset, uint32_t scene, const PoseOptions& options) {
  Expected<PosePrepared> prepared = preparePose(asset, scene);
  if (!prepared) return prepared.error();
  return evaluatePose(*prepared, options);
}

}  // namespace morphkit
