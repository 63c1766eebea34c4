// SPDX-License-Identifier: MIT
// pose.cpp — sampling → scene → morph+skin for every (node, primitive) of a scene; JSON and OBJ writers.
#include "morphkit/pose.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>
#include <unordered_map>

#include "morphkit/contract.h"
#include "morphkit/finite.h"
#include "morphkit/json_writer.h"

namespace morphkit {

namespace {

// Vertices per task on `pool` (parallelForShares: each thread walks its own share, then helps with the others').
// No workers: one task. Otherwise one fast-path block, so that a thread that finishes early can take small
// pieces and the threads end together (morph targets cluster in parts of the vertex range, so even shares are
// uneven work: 63 % of the 20k face's work in one half); four blocks when the deltas stream from memory, so that
// a job prefetches the next block for three of its four. Measured on the 20k-vertex demo, 2 threads: 1024-vertex
// shares 0.218–0.231 ms, 2048 0.25–0.26, the previous four in-order tasks per thread 0.242–0.246
// (docs/PERFORMANCE.md, "Two threads at 20k").
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

Expected<SceneState> frame(const PosePrepared& prepared, const FrameRequest& request) {
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

Status frameState(const PosePrepared& prepared, const FrameRequest& request, FrameState& state) {
  Expected<SceneState> scene = frame(prepared, request);
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

// The posed arrays NaN never leaves (checkPoseFinite), with their names; an array not output is empty.
std::array<std::pair<const std::vector<float>*, const char*>, 3> checkedArrays(const PosedPrimitive& m) {
  return {{{&m.positions, "position"}, {&m.normals, "normal"}, {&m.tangents, "tangent"}}};
}

Status evaluateInto(const PosePrepared& prepared, const PoseOptions& options, PoseResult& result) {
  if (!prepared.asset) return fail(Error::kInvalidArgument, "evaluatePose: not prepared");
  FrameState state;
  if (Status s = frameState(prepared, options, state); !s) return s.error();

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
    const PackedTargets* packed = &prepared.packed[inst.data];
    // Validated once per primitive here; the range jobs validate again (cheap for the fast path: its joint check
    // is packed->joints_needed, not a scan of every vertex).
    if (options.path == CpuPath::kFast ? !FastMorphSkinJob{job, packed}.validate() : !job.validate()) {
      return fail(Error::kInvalidArgument, "nodes[" + std::to_string(inst.node) + "] meshes[" +
                                               std::to_string(inst.mesh) + "].primitives[" +
                                               std::to_string(inst.primitive) +
                                               "]: inputs do not fit the deformation job (joint index out of range?)");
    }
    parallelForShares(options.pool, n, taskGrain(n, *packed, options.pool), [&](size_t begin, size_t end) {
      MorphSkinJob range = job;
      range.begin = uint32_t(begin);
      range.end = uint32_t(end);
      if (options.path == CpuPath::kFast) {
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

std::string writePoseJson(std::span<const PoseResult> cases, std::string_view model, bool pretty) {
  JsonWriter w(pretty);
  w.beginObject();
  w.field("model", model);
  w.field("engine", "morphkit");
  w.key("cases").beginArray();
  for (const PoseResult& c : cases) {
    w.beginObject();
    w.key("anim");
    if (c.animation == kNone) {
      w.null();
    } else {
      w.value(c.animation);
    }
    w.field("time", c.time);
    w.key("meshes").beginArray();
    for (const PosedPrimitive& m : c.meshes) {
      w.beginObject();
      w.field("node", m.node);
      w.field("mesh", m.mesh);
      w.field("primitive", m.primitive);
      w.field("skinned", m.skinned);
      w.field("vertexCount", m.vertex_count);
      w.key("weights").array(std::span<const float>(m.weights));
      w.key("positions").array(std::span<const float>(m.positions));
      w.key("normals");
      if (m.normals.empty()) {
        w.null();
      } else {
        w.array(std::span<const float>(m.normals));
      }
      w.endObject();
    }
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return w.str();
}

namespace {

// The UVs an OBJ of this primitive carries: the base-colour texture's set and transform (see writePoseObj).
struct ObjUv {
  uint32_t set = 0;
  std::array<float, 6> m{1, 0, 0, 0, 1, 0};
};

ObjUv objUv(const Asset* asset, const PosedPrimitive& posed) {
  ObjUv uv;
  if (!asset || posed.mesh >= asset->meshes.size() || posed.primitive >= asset->meshes[posed.mesh].primitives.size()) {
    return uv;
  }
  const uint32_t material = asset->meshes[posed.mesh].primitives[posed.primitive].material;
  if (material >= asset->materials.size()) return uv;
  const TextureRef& ref = asset->materials[material].base_color_texture;
  if (ref.texture == kNone) return uv;
  uv.set = textureCoordinateSet(ref);
  uv.m = textureTransformMatrix(ref);
  return uv;
}

void appendf(std::string& out, const char* format, double a, double b, double c) {
  char buffer[128];
  int len = std::snprintf(buffer, sizeof(buffer), format, a, b, c);
  if (len > 0) out.append(buffer, size_t(std::min(len, int(sizeof(buffer) - 1))));
}

}  // namespace

std::string writePoseObj(const PoseResult& pose, const Asset* asset, std::string_view mtllib) {
  std::string out = "# morphkit pose\n";
  if (!mtllib.empty()) out += "mtllib " + std::string(mtllib) + "\n";
  size_t v_base = 1, vt_base = 1, vn_base = 1;  // OBJ indices are global and 1-based
  for (const PosedPrimitive& m : pose.meshes) {
    out += "o node" + std::to_string(m.node) + "_mesh" + std::to_string(m.mesh) + "_prim" +
           std::to_string(m.primitive) + "\n";
    if (!mtllib.empty() && asset && m.mesh < asset->meshes.size() &&
        m.primitive < asset->meshes[m.mesh].primitives.size()) {
      const uint32_t material = asset->meshes[m.mesh].primitives[m.primitive].material;
      if (material < asset->materials.size()) out += "usemtl material" + std::to_string(material) + "\n";
    }
    const size_t n = m.vertex_count;
    for (size_t v = 0; v < n; ++v)
      appendf(out, "v %.9g %.9g %.9g\n", m.positions[3 * v], m.positions[3 * v + 1], m.positions[3 * v + 2]);
    const ObjUv uv = objUv(asset, m);
    const bool has_vt = uv.set < m.texcoords.size();
    const bool has_vn = !m.normals.empty();
    if (has_vt) {
      const std::vector<float>& t = m.texcoords[uv.set];
      for (size_t v = 0; v < n; ++v) {
        const double s = t[2 * v], r = t[2 * v + 1];
        const double u2 = double(uv.m[0]) * s + double(uv.m[1]) * r + double(uv.m[2]);
        const double v2 = double(uv.m[3]) * s + double(uv.m[4]) * r + double(uv.m[5]);
        char buffer[96];
        int len = std::snprintf(buffer, sizeof(buffer), "vt %.9g %.9g\n", u2, 1.0 - v2);
        if (len > 0) out.append(buffer, size_t(len));
      }
    }
    if (has_vn) {
      for (size_t v = 0; v < n; ++v)
        appendf(out, "vn %.9g %.9g %.9g\n", m.normals[3 * v], m.normals[3 * v + 1], m.normals[3 * v + 2]);
    }
    auto ref = [&](uint32_t i) {
      std::string s = std::to_string(v_base + i);
      if (has_vt || has_vn) {
        s += '/';
        if (has_vt) s += std::to_string(vt_base + i);
      }
      if (has_vn) {
        s += '/';
        s += std::to_string(vn_base + i);
      }
      return s;
    };
    std::vector<uint32_t> idx = m.indices;
    if (idx.empty()) {
      idx.resize(n);
      for (uint32_t i = 0; i < n; ++i) idx[i] = i;
    }
    auto tri = [&](uint32_t a, uint32_t b, uint32_t c) {
      if (a >= n || b >= n || c >= n) return;
      out += "f " + ref(a) + " " + ref(b) + " " + ref(c) + "\n";
    };
    switch (m.mode) {
      case PrimitiveMode::kTriangles:
        for (size_t i = 0; i + 2 < idx.size(); i += 3) tri(idx[i], idx[i + 1], idx[i + 2]);
        break;
      case PrimitiveMode::kTriangleStrip:  // glTF 2.0 §3.7.2.1: keep the winding of every second triangle
        for (size_t i = 0; i + 2 < idx.size(); ++i) {
          if (i % 2 == 0) {
            tri(idx[i], idx[i + 1], idx[i + 2]);
          } else {
            tri(idx[i + 1], idx[i], idx[i + 2]);
          }
        }
        break;
      case PrimitiveMode::kTriangleFan:
        for (size_t i = 1; i + 1 < idx.size(); ++i) tri(idx[0], idx[i], idx[i + 1]);
        break;
      case PrimitiveMode::kLines:
        for (size_t i = 0; i + 1 < idx.size(); i += 2) {
          if (idx[i] >= n || idx[i + 1] >= n) continue;
          out += "l ";
          out += std::to_string(v_base + idx[i]);
          out += ' ';
          out += std::to_string(v_base + idx[i + 1]);
          out += '\n';
        }
        break;
      case PrimitiveMode::kLineStrip:
      case PrimitiveMode::kLineLoop: {
        std::string line = "l";
        for (uint32_t i : idx) {
          if (i >= n) continue;
          line += ' ';
          line += std::to_string(v_base + i);
        }
        if (m.mode == PrimitiveMode::kLineLoop && !idx.empty() && idx[0] < n) {
          line += ' ';
          line += std::to_string(v_base + idx[0]);
        }
        out += line;
        out += '\n';
        break;
      }
      case PrimitiveMode::kPoints: {
        std::string line = "p";
        for (uint32_t i : idx) {
          if (i >= n) continue;
          line += ' ';
          line += std::to_string(v_base + i);
        }
        out += line;
        out += '\n';
        break;
      }
    }
    v_base += n;
    if (has_vt) vt_base += n;
    if (has_vn) vn_base += n;
  }
  return out;
}

}  // namespace morphkit
