// SPDX-License-Identifier: MIT
// inspect.cpp — the report behind `morphkit inspect` and Asset.info() (moved out of the CLI so both use it).
#include "morphkit/io/inspect.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "morphkit/core/animation.h"
#include "morphkit/core/pose.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/model/accessor.h"
#include "morphkit/model/extensions.h"
#include "morphkit/model/material_features.h"
#include "morphkit/model/primitive.h"
#include "morphkit/pack/packed_deltas.h"

namespace morphkit {
namespace {

bool isQuantized(const Accessor& a) {
  return a.component_type != ComponentType::kFloat;
}

// What decodePrimitive's normalizeSkinWeights does to this primitive's WEIGHTS_n (read here without decoding the
// rest of the primitive).
void checkSkinWeights(const Asset& asset, const Primitive& primitive, PrimitiveSummary& s) {
  std::vector<std::vector<float>> sets;
  for (uint32_t n = 0;; ++n) {
    uint32_t accessor = findAttribute(primitive.attributes, "WEIGHTS_" + std::to_string(n));
    if (accessor == kNone || findAttribute(primitive.attributes, "JOINTS_" + std::to_string(n)) == kNone) break;
    sets.push_back(readAccessorFloats(asset, accessor));
  }
  if (sets.empty()) return;
  const size_t vertices = sets[0].size() / 4;
  const uint32_t influences = uint32_t(4 * sets.size());
  std::vector<float> weights(vertices * influences);  // interleaved per vertex, as PrimitiveData::skin_weights
  for (size_t v = 0; v < vertices; ++v) {
    for (size_t set = 0; set < sets.size(); ++set)
      std::copy_n(&sets[set][v * 4], 4, &weights[v * influences + set * 4]);
  }
  s.has_skin_weights = true;
  s.skin_weights = normalizeSkinWeights(weights, influences);
}

void measureDeltaErrors(const Asset& asset, uint32_t mesh, uint32_t primitive, PrimitiveSummary& s) {
  Expected<PrimitiveData> data = decodePrimitive(asset, mesh, primitive);
  if (!data || data->targets.empty()) return;
  F16DeltaError error = f16DeltaError(*data);
  s.has_f16 = true;
  s.f16_position = error.max_abs_position;
  s.f16_normal = error.max_abs_normal;
  s.f16_tangent = error.max_abs_tangent;
  s.f16_extra = error.max_abs_extra;
  s.f16_overflow = error.overflow;
  const Snorm16DeltaError snorm = snorm16DeltaError(*data);
  s.snorm16_position = snorm.max_abs_position;
  s.snorm16_normal = snorm.max_abs_normal;
  s.snorm16_tangent = snorm.max_abs_tangent;
  s.snorm16_extra = snorm.max_abs_extra;
  s.snorm16_non_finite = snorm.non_finite;
}

std::string skinWeightWarning(uint32_t mesh, uint32_t primitive, const SkinWeightFix& fix) {
  char worst[32];
  std::snprintf(worst, sizeof(worst), "%.6g", fix.worst_sum);
  std::string text = "meshes[" + std::to_string(mesh) + "].primitives[" + std::to_string(primitive) +
                     "]: " + std::to_string(fix.rescaled) +
                     " vertices have skin weights that do not sum to 1 (worst sum " + worst +
                     "); rescaled to sum 1 as three.js and Babylon.js do";
  if (fix.zero > 0) text += " (" + std::to_string(fix.zero) + " all-zero: bound to their first joint)";
  return text + " (--keep-skin-weights keeps them)";
}

bool warnSkinWeights(const PrimitiveSummary& s) {
  return std::abs(s.skin_weights.worst_sum - 1.0) > kWarnSkinWeightSum;
}

// {"name", "type", "componentType", "normalized", "sparse", "count"} of one attribute's accessor.
void writeAttribute(JsonWriter& json, const Asset& asset, const Attribute& attribute) {
  const Accessor& a = asset.accessors[attribute.accessor];
  json.beginObject().field("name", attribute.name).field("type", accessorTypeName(a.type));
  json.field("componentType", componentTypeName(a.component_type)).field("normalized", a.normalized);
  json.field("sparse", a.has_sparse).field("count", a.count).endObject();
}

const char* alphaModeName(AlphaMode mode) {
  return mode == AlphaMode::kMask ? "MASK" : mode == AlphaMode::kBlend ? "BLEND" : "OPAQUE";  // glTF 2.0 §5.19
}

void textureIndex(JsonWriter& json, const char* key, const TextureRef& ref) {
  json.key(key);
  if (ref.texture == kNone)
    json.null();
  else
    json.value(ref.texture);
}

// The default scene's world-space bounds at rest (node TRS, default weights, skinned as bound), or nothing when
// it has no vertices or cannot be posed (glTF 2.0 §3.5.2: the rest pose is the nodes' own transforms).
bool restBounds(const Asset& asset, float lo[3], float hi[3]) {
  Expected<PoseResult> pose = poseAsset(asset, kNone, PoseOptions{});
  if (!pose) return false;
  bool any = false;
  for (int k = 0; k < 3; ++k) lo[k] = INFINITY, hi[k] = -INFINITY;
  for (const PosedPrimitive& m : pose->meshes) {
    for (size_t i = 0; i < m.positions.size(); ++i) {
      lo[i % 3] = std::min(lo[i % 3], m.positions[i]);
      hi[i % 3] = std::max(hi[i % 3], m.positions[i]);
      any = true;
    }
  }
  return any;
}

}  // namespace

const char* primitiveModeName(PrimitiveMode mode) {
  static const char* kNames[] = {"POINTS",    "LINES",          "LINE_LOOP",   "LINE_STRIP",
                                 "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN"};
  return kNames[uint32_t(mode)];
}
const char* targetPathName(TargetPath path) {
  static const char* kNames[] = {"translation", "rotation", "scale", "weights"};
  return kNames[uint32_t(path)];
}
const char* interpolationName(Interpolation interpolation) {
  static const char* kNames[] = {"LINEAR", "STEP", "CUBICSPLINE"};
  return kNames[uint32_t(interpolation)];
}

uint32_t textureKtx2Image(const Asset& asset, const Texture& texture) {
  if (texture.basisu_source != kNone) return texture.basisu_source;
  return isKtx2Image(asset, texture.source) ? texture.source : kNone;
}

bool textureDrawable(const Asset& asset, const Texture& texture) {
  return drawnTextureImage(asset, texture) != kNone;
}

std::string accessorEncoding(const Accessor& a) {
  std::string text = componentTypeName(a.component_type);
  if (a.normalized) text += " normalized";
  if (a.has_sparse) text = std::string(a.buffer_view == kNone ? "sparse " : "sparse-on-dense ") + text;
  return text;
}

PrimitiveSummary summarizePrimitive(const Asset& asset, uint32_t mesh, uint32_t primitive_index) {
  const Primitive& primitive = asset.meshes[mesh].primitives[primitive_index];
  PrimitiveSummary s;
  s.vertex_count = asset.accessors[primitive.attributes.front().accessor].count;
  if (primitive.indices != kNone) s.index_count = asset.accessors[primitive.indices].count;
  for (const Attribute& attribute : primitive.attributes) {
    const Accessor& a = asset.accessors[attribute.accessor];
    if (a.has_sparse) s.sparse.push_back(attribute.name + ": " + accessorEncoding(a));
    if (isQuantized(a) && attribute.name.rfind("JOINTS_", 0) != 0)
      s.quantized.push_back(attribute.name + ": " + accessorEncoding(a));
  }
  for (size_t t = 0; t < primitive.targets.size(); ++t) {
    std::vector<std::string> names;
    for (const Attribute& attribute : primitive.targets[t].attributes) {
      const Accessor& a = asset.accessors[attribute.accessor];
      names.push_back(attribute.name);
      s.morph_bytes += accessorStorageBytes(asset, attribute.accessor);
      std::string label = "targets[" + std::to_string(t) + "]." + attribute.name + ": " + accessorEncoding(a);
      if (a.has_sparse) s.sparse.push_back(label);
      if (isQuantized(a)) s.quantized.push_back(label);
    }
    std::sort(names.begin(), names.end());
    s.target_attributes.push_back(std::move(names));
  }
  checkSkinWeights(asset, primitive, s);
  if (!primitive.targets.empty())
    measureDeltaErrors(asset, mesh, primitive_index, s);  // decoding costs; only for targets
  return s;
}

const PrimitiveSummary& summaryOf(PrimitiveSummaryCache& cache, const Asset& asset, uint32_t mesh, uint32_t primitive) {
  auto [it, inserted] = cache.try_emplace(primitiveIdentity(asset.meshes[mesh].primitives[primitive]));
  if (inserted) it->second = summarizePrimitive(asset, mesh, primitive);
  return it->second;
}

std::string channelPathName(const AnimationChannel& channel) {
  if (channel.other_path.empty()) return targetPathName(channel.path);
  const std::string named =
      channel.pointer.text.empty() ? channel.other_path : channel.other_path + " " + channel.pointer.text;
  return channelPlays(channel) ? named : named + " (ignored)";
}

std::vector<std::string> inspectWarnings(const Asset& asset) {
  std::vector<std::string> warnings;
  PrimitiveSummaryCache summaries;
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    for (uint32_t p = 0; p < asset.meshes[m].primitives.size(); ++p) {
      const PrimitiveSummary& s = summaryOf(summaries, asset, m, p);
      if (warnSkinWeights(s)) warnings.push_back(skinWeightWarning(m, p, s.skin_weights));
    }
  }
  return warnings;
}

namespace {

// One primitive of mesh m: its attributes, targets, morph-data sizes and quantization errors, skin weights.
void writePrimitive(JsonWriter& json, const Asset& asset, const Primitive& primitive, uint32_t m, uint32_t p,
                    const PrimitiveSummary& s, std::vector<std::string>& warnings) {
  json.beginObject().field("index", p).field("mode", primitiveModeName(primitive.mode));
  json.field("vertexCount", s.vertex_count).field("indexCount", s.index_count);
  json.key("attributes").beginArray();
  for (const Attribute& attribute : primitive.attributes) writeAttribute(json, asset, attribute);
  json.endArray();
  json.field("targetCount", uint32_t(primitive.targets.size()));
  json.key("targets").beginArray();
  for (const auto& names : s.target_attributes) json.array(std::span<const std::string>(names));
  json.endArray();
  json.key("targetAttributes").beginArray();
  for (const MorphTarget& target : primitive.targets) {
    json.beginArray();
    for (const Attribute& attribute : target.attributes) writeAttribute(json, asset, attribute);
    json.endArray();
  }
  json.endArray();
  json.field("morphBytes", uint64_t(s.morph_bytes));
  if (s.has_f16) {
    json.key("f16MaxError").beginObject().field("position", s.f16_position).field("normal", s.f16_normal);
    json.field("tangent", s.f16_tangent).field("extra", s.f16_extra).field("overflow", s.f16_overflow).endObject();
    json.key("snorm16MaxError").beginObject().field("position", s.snorm16_position).field("normal", s.snorm16_normal);
    json.field("tangent", s.snorm16_tangent).field("extra", s.snorm16_extra).field("nonFinite", s.snorm16_non_finite);
    json.endObject();
  }
  json.key("sparse").array(std::span<const std::string>(s.sparse));
  json.key("quantized").array(std::span<const std::string>(s.quantized));
  if (s.has_skin_weights) {
    json.key("skinWeights").beginObject().field("rescaled", s.skin_weights.rescaled).field("zero", s.skin_weights.zero);
    json.field("worstSum", s.skin_weights.worst_sum).endObject();
  }
  if (warnSkinWeights(s)) warnings.push_back(skinWeightWarning(m, p, s.skin_weights));
  json.endObject();
}

void writeMeshes(JsonWriter& json, const Asset& asset, std::vector<std::string>& warnings) {
  PrimitiveSummaryCache summaries;
  json.key("meshes").beginArray();
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const Mesh& mesh = asset.meshes[m];
    json.beginObject().field("index", uint32_t(m)).field("name", mesh.name);
    json.key("weights").array(std::span<const float>(mesh.weights));
    json.key("targetNames").array(std::span<const std::string>(mesh.target_names));
    json.key("primitives").beginArray();
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const PrimitiveSummary& s = summaryOf(summaries, asset, uint32_t(m), uint32_t(p));
      writePrimitive(json, asset, mesh.primitives[p], uint32_t(m), uint32_t(p), s, warnings);
    }
    json.endArray().endObject();
  }
  json.endArray();
}

void writeSkins(JsonWriter& json, const Asset& asset) {
  json.key("skins").beginArray();
  for (size_t s = 0; s < asset.skins.size(); ++s) {
    const Skin& skin = asset.skins[s];
    json.beginObject()
        .field("index", uint32_t(s))
        .field("name", skin.name)
        .field("joints", uint32_t(skin.joints.size()));
    json.field("inverseBindMatrices", skin.inverse_bind_matrices != kNone);
    json.key("skeleton");
    if (skin.skeleton == kNone)
      json.null();
    else
      json.value(skin.skeleton);
    json.endObject();
  }
  json.endArray();
}

void writeMaterials(JsonWriter& json, const Asset& asset) {
  json.key("materials").beginArray();
  for (size_t i = 0; i < asset.materials.size(); ++i) {
    const Material& material = asset.materials[i];
    json.beginObject().field("index", uint32_t(i)).field("name", material.name);
    json.key("baseColorFactor").array(std::span<const float>(material.base_color_factor, 4));
    textureIndex(json, "baseColorTexture", material.base_color_texture);
    json.field("metallicFactor", material.metallic_factor).field("roughnessFactor", material.roughness_factor);
    textureIndex(json, "metallicRoughnessTexture", material.metallic_roughness_texture);
    textureIndex(json, "normalTexture", material.normal_texture);
    textureIndex(json, "occlusionTexture", material.occlusion_texture);
    textureIndex(json, "emissiveTexture", material.emissive_texture);
    json.field("alphaMode", alphaModeName(material.alpha_mode)).field("doubleSided", material.double_sided);
    json.key("extensions").array(std::span<const std::string>(material.extensions)).endObject();
  }
  json.endArray();
  // What render shades and what it does not (morphkit/model/material_features.h).
  const MaterialFeatures features = materialFeatures(asset);
  json.key("materialFeatures").beginObject();
  json.key("used").array(std::span<const std::string>(features.used));
  json.key("unshaded").array(std::span<const std::string>(features.unshaded)).endObject();
}

void writeImagesAndTextures(JsonWriter& json, const Asset& asset) {
  json.key("images").beginArray();
  for (size_t i = 0; i < asset.images.size(); ++i) {
    const Image& image = asset.images[i];
    json.beginObject().field("index", uint32_t(i)).field("name", image.name).field("mimeType", image.mime_type);
    // A data: URI is the image itself: its size, not its bytes.
    json.field("uri",
               image.uri.starts_with("data:") ? "data: (" + std::to_string(image.uri.size()) + " bytes)" : image.uri);
    json.key("bufferView");
    if (image.buffer_view == kNone)
      json.null();
    else
      json.value(image.buffer_view);
    json.endObject();
  }
  json.endArray();
  json.key("textures").beginArray();
  for (size_t t = 0; t < asset.textures.size(); ++t) {
    const Texture& texture = asset.textures[t];
    const uint32_t ktx2 = textureKtx2Image(asset, texture);
    json.beginObject().field("index", uint32_t(t)).key("source");
    if (texture.source == kNone)
      json.null();
    else
      json.value(texture.source);
    json.field("ktx2", ktx2 != kNone).key("ktx2Image");
    if (ktx2 == kNone)
      json.null();
    else
      json.value(ktx2);
    json.key("webpImage");
    if (texture.webp_source == kNone)
      json.null();
    else
      json.value(texture.webp_source);
    json.field("drawable", textureDrawable(asset, texture)).endObject();
  }
  json.endArray();
}

void writeAnimations(JsonWriter& json, const Asset& asset) {
  json.key("animations").beginArray();
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    const Animation& animation = asset.animations[a];
    json.beginObject().field("index", uint32_t(a)).field("name", animation.name);
    json.field("duration", animationDuration(asset, uint32_t(a)));
    json.key("channels").beginArray();
    for (const AnimationChannel& channel : animation.channels) {
      const AnimationSampler& sampler = animation.samplers[channel.sampler];
      json.beginObject();
      json.key("node");
      if (channel.node == kNone)
        json.null();
      else
        json.value(channel.node);
      json.field("path", channelPathName(channel)).field("interpolation", interpolationName(sampler.interpolation));
      if (!channel.pointer.text.empty()) json.field("pointer", channel.pointer.text);  // KHR_animation_pointer
      json.field("sampler", channel.sampler).field("keys", asset.accessors[sampler.input].count);
      const Accessor& output = asset.accessors[sampler.output];
      json.field("outputEncoding", accessorEncoding(output));
      json.field("outputComponentType", componentTypeName(output.component_type));
      json.field("outputNormalized", output.normalized).field("outputSparse", output.has_sparse);
      json.endObject();
    }
    json.endArray().endObject();
  }
  json.endArray();
}

}  // namespace

std::string inspectJson(const Asset& asset, std::string_view file) {
  JsonWriter json(true);
  json.beginObject();
  json.field("file", file);
  json.field("generator", asset.generator);
  json.key("extensionsUsed").array(std::span<const std::string>(asset.extensions_used));
  json.key("extensionsRequired").array(std::span<const std::string>(asset.extensions_required));
  json.key("extensionHandling").beginObject();  // what morphkit does with each used one (morphkit/model/extensions.h)
  for (size_t i = 0; i < asset.extensions_used.size(); ++i) {
    const std::string& name = asset.extensions_used[i];
    const auto first = asset.extensions_used.begin() + std::ptrdiff_t(i);
    if (std::find(asset.extensions_used.begin(), first, name) == first) json.field(name, extensionHandling(name));
  }
  json.endObject();
  json.key("notes").array(std::span<const std::string>(asset.notes));
  json.field("scenes", uint32_t(asset.scenes.size()));
  json.field("nodes", uint32_t(asset.nodes.size()));
  json.key("nodeNames").beginArray();
  for (const Node& node : asset.nodes) json.value(std::string_view(node.name));
  json.endArray();
  float lo[3], hi[3];
  json.key("bounds");
  if (restBounds(asset, lo, hi)) {
    json.beginObject()
        .key("min")
        .array(std::span<const float>(lo, 3))
        .key("max")
        .array(std::span<const float>(hi, 3))
        .endObject();
  } else {
    json.null();
  }
  std::vector<std::string> warnings;
  writeMeshes(json, asset, warnings);
  writeSkins(json, asset);
  writeMaterials(json, asset);
  writeImagesAndTextures(json, asset);
  writeAnimations(json, asset);
  writeExpressionsJson(json, asset);
  json.key("warnings").array(std::span<const std::string>(warnings));
  json.endObject();
  return json.str();
}

}  // namespace morphkit
