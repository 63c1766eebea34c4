// SPDX-License-Identifier: MIT
// `morphkit view`'s data: the pack layouts of every posed primitive, and per frame the inputs and the CPU reference.
#include "view_payload.h"

#include <cstring>
#include <span>

#include "morphkit/io/json_writer.h"
#include "morphkit/model/math.h"
#include "morphkit/pack/active_targets.h"
#include "morphkit/pack/band_texture.h"
#include "morphkit/pack/packed_deltas.h"

namespace morphkit::cli {
namespace {

// WebGPU guarantees 8192 (maxTextureDimension2D); the page's adapter may allow more, the layout never needs it.
constexpr uint32_t kMaxTextureDimension = 8192;

template <class T>
void appendBytes(std::vector<uint8_t>& out, std::span<const T> values) {
  out.resize((out.size() + 15) / 16 * 16);  // each array at a multiple of 16 (Float32Array/Uint32Array views)
  const size_t at = out.size();
  out.resize(at + values.size_bytes());
  if (!values.empty()) std::memcpy(out.data() + at, values.data(), values.size_bytes());
}

// {"blob": B, "offset": O, "bytes": N} for an array appended to blob B.
template <class T>
void bufferField(JsonWriter& json, std::string_view name, ViewPayload& payload, ViewBlob blob,
                 std::span<const T> values) {
  std::vector<uint8_t>& out = payload.blobs[blob];
  appendBytes(out, values);
  json.key(name).beginObject();
  json.field("blob", uint32_t(blob));
  json.field("offset", uint64_t(out.size() - values.size_bytes()));
  json.field("bytes", uint64_t(values.size_bytes()));
  json.endObject();
}

void offsetField(JsonWriter& json, std::string_view name, uint32_t offset) {
  json.key(name);
  if (offset == kLayoutAbsent) {
    json.null();
  } else {
    json.value(offset);
  }
}

Status writePrimitive(JsonWriter& json, ViewPayload& payload, const PrimitiveData& p) {
  json.beginObject();
  json.field("mesh", p.mesh).field("primitive", p.primitive).field("vertexCount", p.vertex_count);
  json.field("triangles", p.mode == PrimitiveMode::kTriangles);
  const PackedVertices base = packVertices(p);
  json.key("vertexFormat").beginObject().field("stride", base.format.stride);
  offsetField(json, "normal", base.format.normal);
  offsetField(json, "tangent", base.format.tangent);
  json.endObject();
  bufferField(json, "base", payload, kDrawBlob, std::span<const float>(base.data));
  if (!p.indices.empty()) bufferField(json, "indices", payload, kDrawBlob, std::span<const uint32_t>(p.indices));
  const PackedSkin skin = packSkin(p);
  if (!skin.words.empty()) {
    json.key("skin").beginObject().field("sets", skin.influence_sets).field("joints", skin.joints_needed);
    bufferField(json, "words", payload, kDrawBlob, std::span<const uint32_t>(skin.words));
    json.endObject();
  }
  const uint32_t targets = uint32_t(p.targets.size());
  json.field("targetCount", targets);
  if (targets == 0) {
    json.endObject();
    return Ok{};
  }

  Expected<MorphTextureLayout> layout =
      morphTextureLayout(p.vertex_count, targets, morphBandsPerTarget(p), kMaxTextureDimension);
  if (!layout) return layout.error();
  const std::vector<float> texels = packMorphTexture(p, *layout);
  json.key("texture").beginObject().field("width", layout->tex_width).field("height", layout->height);
  json.field("rowsPerBand", layout->rows_per_band).field("bandsPerTarget", layout->bands_per_target);
  bufferField(json, "data", payload, kDrawBlob, std::span<const float>(texels));
  json.endObject();

  Expected<PackedDeltas> dense = packDeltas(p, DeltaLayout::kDenseF32);
  if (!dense) return dense.error();
  const DeltaFormat& f = dense->format;
  json.key("deltaFormat").beginObject().field("stride", f.stride);
  offsetField(json, "position", f.position);
  offsetField(json, "normal", f.normal);
  offsetField(json, "tangent", f.tangent);
  json.endObject();
  bufferField(json, "dense", payload, kComputeBlob, std::span<const uint8_t>(dense->bytes));
  const F16DeltaError f16 = f16DeltaError(p);
  if (!f16.overflow) {  // past 65504 the f16 layout must not be used (packed_deltas.h)
    Expected<PackedDeltas> half = packDeltas(p, DeltaLayout::kDenseF16);
    if (!half) return half.error();
    bufferField(json, "denseF16", payload, kComputeBlob, std::span<const uint8_t>(half->bytes));
    json.field("f16PositionError", f16.max_abs_position);
  }
  Expected<PackedDeltas> sparse = packDeltas(p, DeltaLayout::kSparse);
  if (!sparse) return sparse.error();
  json.key("sparse").beginObject();
  bufferField(json, "records", payload, kComputeBlob, std::span<const uint8_t>(sparse->bytes));
  bufferField(json, "rows", payload, kComputeBlob, std::span<const uint32_t>(sparse->rows));
  json.endObject();
  json.endObject();
  return Ok{};
}

void appendFloats(std::vector<uint8_t>& out, std::span<const float> values) {
  const size_t at = out.size();
  out.resize(at + values.size_bytes());
  if (!values.empty()) std::memcpy(out.data() + at, values.data(), values.size_bytes());
}

void appendMatrix(std::vector<uint8_t>& out, const DMat4& m) {
  const Mat4 f = toFloat(m);
  appendFloats(out, std::span<const float>(f.m));
}

}  // namespace

Expected<ViewPayload> buildViewPayload(const Asset& asset, const PosePrepared& prepared, const std::string& file_name,
                                       const ViewStart& start) {
  ViewPayload payload;
  // The palette sizes come from one rest frame: they are fixed per skin.
  FrameState state;
  if (Status s = evaluateFrame(prepared, FrameRequest{}, state); !s) return s.error();
  JsonWriter json;
  json.beginObject();
  json.field("file", file_name).field("scene", prepared.scene);
  json.key("targetNames").array(std::span<const std::string>(targetNameList(asset)));
  json.key("animations").beginArray();
  for (size_t a = 0; a < prepared.animations.size(); ++a) {
    json.beginObject().field("name", asset.animations[a].name).field("duration", prepared.animations[a].duration);
    json.endObject();
  }
  json.endArray();
  json.key("capture");
  if (start.capture_duration >= 0) {
    json.beginObject().field("duration", start.capture_duration).endObject();
  } else {
    json.null();
  }
  json.key("start").beginObject();
  json.key("animation");
  if (start.animation == kNone) {
    json.null();
  } else {
    json.value(start.animation);
  }
  json.key("targets").beginArray();
  for (const TargetWeight& w : start.weights) {
    json.beginObject().field("mesh", w.ref.mesh).field("target", w.ref.target).field("value", w.value).endObject();
  }
  json.endArray().endObject();
  json.key("primitives").beginArray();
  for (const PrimitiveData& p : prepared.primitives) {
    if (Status s = writePrimitive(json, payload, p); !s) {
      return fail(s.error().code, "meshes[" + std::to_string(p.mesh) + "].primitives[" + std::to_string(p.primitive) +
                                      "]: " + s.error().message);
    }
  }
  json.endArray();
  json.key("instances").beginArray();
  for (size_t i = 0; i < prepared.instances.size(); ++i) {
    const PosePrepared::Instance& instance = prepared.instances[i];
    const uint32_t matrices = instance.skinned ? uint32_t(state.instances[i].joint_matrices.size()) : 2u;
    payload.matrix_counts.push_back(matrices);
    json.beginObject().field("node", instance.node).field("mesh", instance.mesh);
    json.field("primitive", instance.primitive).field("data", instance.data).field("skinned", instance.skinned);
    json.field("matrices", matrices);
    const Mesh& mesh = asset.meshes[instance.mesh];
    std::vector<std::string> names(prepared.primitives[instance.data].targets.size());
    for (size_t t = 0; t < names.size() && t < mesh.target_names.size(); ++t) names[t] = mesh.target_names[t];
    json.key("targetNames").array(std::span<const std::string>(names));
    json.endObject();
  }
  json.endArray();
  json.key("blobBytes").beginArray().value(uint64_t(payload.blobs[0].size()));
  json.value(uint64_t(payload.blobs[1].size())).endArray();
  json.endObject();
  payload.meta_json = json.str();
  return payload;
}

Expected<std::vector<uint8_t>> buildViewFrame(const PosePrepared& prepared, const FrameRequest& request,
                                              bool reference) {
  FrameState state;
  if (Status s = evaluateFrame(prepared, request, state); !s) return s.error();
  std::vector<uint8_t> out;
  for (size_t i = 0; i < prepared.instances.size(); ++i) {
    const InstanceFrame& frame = state.instances[i];
    appendFloats(out, frame.weights);
    if (prepared.instances[i].skinned) {
      for (const DMat4& m : frame.joint_matrices) appendMatrix(out, m);
    } else {
      appendMatrix(out, frame.world);
      const Mat4 normal = normalMatrix(toFloat(frame.world));
      appendFloats(out, std::span<const float>(normal.m));
    }
  }
  if (!reference) return out;
  PoseOptions pose;
  static_cast<FrameRequest&>(pose) = request;
  pose.positions_only = true;
  Expected<PoseResult> posed = evaluatePose(prepared, pose);
  if (!posed) return posed.error();
  for (const PosedPrimitive& m : posed->meshes) appendFloats(out, m.positions);
  return out;
}

}  // namespace morphkit::cli
