// SPDX-License-Identifier: MIT
#include "morphkit/gltf/glb_writer.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "document_edit.h"
#include "json_tree.h"
#include "material_extensions.h"
#include "meshopt_writer.h"
#include "morphkit/io/json_writer.h"
#include "vrm_expressions.h"

namespace morphkit {
namespace {

using gltf_detail::alignUp;

// The writer spells enums as the spec does; the accessor type names and component counts are asset.h's.
const char* interpolationName(Interpolation interpolation) {
  switch (interpolation) {
    case Interpolation::kLinear:
      return "LINEAR";
    case Interpolation::kStep:
      return "STEP";
    case Interpolation::kCubicSpline:
      return "CUBICSPLINE";
  }
  return "LINEAR";
}

const char* pathName(TargetPath path) {
  switch (path) {
    case TargetPath::kTranslation:
      return "translation";
    case TargetPath::kRotation:
      return "rotation";
    case TargetPath::kScale:
      return "scale";
    case TargetPath::kWeights:
      return "weights";
  }
  return "translation";
}

const char* alphaModeName(AlphaMode mode) {
  switch (mode) {
    case AlphaMode::kOpaque:
      return "OPAQUE";
    case AlphaMode::kMask:
      return "MASK";
    case AlphaMode::kBlend:
      return "BLEND";
  }
  return "OPAQUE";
}

void optionalIndex(JsonWriter& json, std::string_view name, uint32_t index) {
  if (index != kNone) json.field(name, index);
}

void optionalName(JsonWriter& json, const std::string& name) {
  if (!name.empty()) json.field("name", std::string_view(name));
}

void indexArray(JsonWriter& json, std::string_view name, const std::vector<uint32_t>& indices) {
  if (indices.empty()) return;
  json.key(name).array(std::span<const uint32_t>(indices));
}

void floatArray(JsonWriter& json, std::string_view name, std::span<const float> numbers) {
  json.key(name).array(numbers);
}

void doubleArray(JsonWriter& json, std::string_view name, const std::vector<double>& numbers) {
  json.key(name).beginArray();
  for (double n : numbers) json.value(n);
  json.endArray();
}

}  // namespace

// textureInfo / normalTextureInfo (scale) / occlusionTextureInfo (strength), glTF 2.0 §5.20, §5.21.
void gltf_detail::textureInfo(JsonWriter& json, std::string_view name, const TextureRef& ref, const char* scale_name) {
  if (ref.texture == kNone) return;
  json.key(name).beginObject();
  json.field("index", ref.texture);
  if (ref.texcoord != 0) json.field("texCoord", ref.texcoord);
  if (scale_name && ref.scale != 1.0f) json.field(scale_name, ref.scale);
  if (ref.has_transform) {  // KHR_texture_transform, as it was read (the caller lists it in extensionsUsed)
    const TextureTransform& t = ref.transform;
    json.key("extensions").beginObject().key("KHR_texture_transform").beginObject();
    if (t.offset[0] != 0 || t.offset[1] != 0) json.key("offset").array(std::span<const float>(t.offset));
    if (t.rotation != 0) json.field("rotation", t.rotation);
    if (t.scale[0] != 1 || t.scale[1] != 1) json.key("scale").array(std::span<const float>(t.scale));
    if (t.texcoord != kNone) json.field("texCoord", t.texcoord);
    json.endObject().endObject();
  }
  json.endObject();
}

namespace {

using gltf_detail::textureInfo;

void writeAttributes(JsonWriter& json, const std::vector<Attribute>& attributes) {
  json.beginObject();
  for (const auto& attribute : attributes) json.field(attribute.name, attribute.accessor);
  json.endObject();
}

bool isIdentity(const DQuat& q) {
  return q.x == 0 && q.y == 0 && q.z == 0 && q.w == 1;
}

// Where each buffer lands in the one merged BIN chunk (§4.4.3.3: a GLB holds a single buffer).
struct BinLayout {
  std::vector<size_t> base;  // byte offset of buffers[i] inside the BIN chunk
  size_t length = 0;         // BIN bytes before the chunk's 4-byte padding
};

// Each buffer starts 16-byte aligned, so every alignment inside a buffer (accessor offsets, §3.6.2.4) is preserved
// after rebasing. One function for the JSON (bufferView offsets) and the GLB writer (where the bytes go).
Expected<BinLayout> layoutBin(const Asset& asset) {
  BinLayout layout;
  layout.base.assign(asset.buffers.size(), 0);
  for (size_t i = 0; i < asset.buffers.size(); ++i) {
    const Buffer& buffer = asset.buffers[i];
    if (buffer.data.size() < buffer.byte_length) {
      return fail(Error::kInvalidArgument, "buffers[" + std::to_string(i) + "]: data holds " +
                                               std::to_string(buffer.data.size()) + " bytes, byteLength is " +
                                               std::to_string(buffer.byte_length));
    }
    layout.length = alignUp(layout.length, 16);
    layout.base[i] = layout.length;
    layout.length += buffer.byte_length;
  }
  return layout;
}

// One writer per top-level glTF property (or a pair of small ones), called by writeGltfJson in the order the file
// has always had, so the output stays byte-for-byte the same. Each writes nothing for an empty array.

// asset, extensionsUsed, extensionsRequired (§3.2, §3.12).
void writeAssetHeader(JsonWriter& json, const Asset& asset) {
  json.key("asset").beginObject();
  json.field("version", "2.0");
  if (!asset.generator.empty()) json.field("generator", std::string_view(asset.generator));
  json.endObject();
  if (!asset.extensions_used.empty())
    json.key("extensionsUsed").array(std::span<const std::string>(asset.extensions_used));
  if (!asset.extensions_required.empty())
    json.key("extensionsRequired").array(std::span<const std::string>(asset.extensions_required));
}

// buffers (the one merged BIN chunk) and the bufferViews rebased into it; a view naming a missing buffer fails.
Status writeBuffersAndViews(JsonWriter& json, const Asset& asset, const BinLayout& bin) {
  if (!asset.buffers.empty()) {
    json.key("buffers").beginArray().beginObject().field("byteLength", uint64_t(bin.length)).endObject().endArray();
  }
  if (asset.buffer_views.empty()) return Ok{};
  json.key("bufferViews").beginArray();
  for (size_t i = 0; i < asset.buffer_views.size(); ++i) {
    const BufferView& view = asset.buffer_views[i];
    if (view.buffer >= asset.buffers.size()) {
      return fail(Error::kInvalidArgument,
                  "bufferViews[" + std::to_string(i) + "]: buffer " + std::to_string(view.buffer) + " does not exist");
    }
    json.beginObject();
    optionalName(json, view.name);
    json.field("buffer", 0);
    size_t offset = bin.base[view.buffer] + view.byte_offset;
    if (offset != 0) json.field("byteOffset", uint64_t(offset));
    json.field("byteLength", uint64_t(view.byte_length));
    if (view.byte_stride != 0) json.field("byteStride", view.byte_stride);
    if (view.target != 0) json.field("target", view.target);
    json.endObject();
  }
  json.endArray();
  return Ok{};
}

// §3.6.2.3: accessor.sparse with its indices and values.
void writeSparse(JsonWriter& json, const SparseAccessor& sparse) {
  json.key("sparse").beginObject();
  json.field("count", sparse.count);
  json.key("indices").beginObject();
  json.field("bufferView", sparse.indices_buffer_view);
  if (sparse.indices_byte_offset != 0) json.field("byteOffset", uint64_t(sparse.indices_byte_offset));
  json.field("componentType", uint32_t(sparse.indices_component_type));
  json.endObject();
  json.key("values").beginObject();
  json.field("bufferView", sparse.values_buffer_view);
  if (sparse.values_byte_offset != 0) json.field("byteOffset", uint64_t(sparse.values_byte_offset));
  json.endObject();
  json.endObject();
}

// accessors (§5.1): the defaults (byteOffset 0, normalized false) are omitted.
void writeAccessors(JsonWriter& json, const Asset& asset) {
  if (asset.accessors.empty()) return;
  json.key("accessors").beginArray();
  for (const Accessor& accessor : asset.accessors) {
    json.beginObject();
    optionalName(json, accessor.name);
    optionalIndex(json, "bufferView", accessor.buffer_view);
    if (accessor.byte_offset != 0) json.field("byteOffset", uint64_t(accessor.byte_offset));
    json.field("componentType", uint32_t(accessor.component_type));
    if (accessor.normalized) json.field("normalized", true);
    json.field("count", accessor.count);
    json.field("type", accessorTypeName(accessor.type));
    if (!accessor.min.empty()) doubleArray(json, "min", accessor.min);
    if (!accessor.max.empty()) doubleArray(json, "max", accessor.max);
    if (accessor.has_sparse) writeSparse(json, accessor.sparse);
    json.endObject();
  }
  json.endArray();
}

// One mesh primitive (§5.24): mode TRIANGLES is the default and omitted.
void writePrimitive(JsonWriter& json, const Primitive& primitive) {
  json.beginObject();
  json.key("attributes");
  writeAttributes(json, primitive.attributes);
  optionalIndex(json, "indices", primitive.indices);
  optionalIndex(json, "material", primitive.material);
  if (primitive.mode != PrimitiveMode::kTriangles) json.field("mode", uint32_t(primitive.mode));
  if (!primitive.targets.empty()) {
    json.key("targets").beginArray();
    for (const MorphTarget& target : primitive.targets) writeAttributes(json, target.attributes);
    json.endArray();
  }
  json.endObject();
}

// meshes (§5.23) with their default weights and target names.
void writeMeshes(JsonWriter& json, const Asset& asset) {
  if (asset.meshes.empty()) return;
  json.key("meshes").beginArray();
  for (const Mesh& mesh : asset.meshes) {
    json.beginObject();
    optionalName(json, mesh.name);
    json.key("primitives").beginArray();
    for (const Primitive& primitive : mesh.primitives) writePrimitive(json, primitive);
    json.endArray();
    if (!mesh.weights.empty()) floatArray(json, "weights", mesh.weights);
    if (!mesh.target_names.empty()) {
      // Not in the core spec, but the de-facto convention (Blender, three.js, Babylon): mesh.extras.targetNames.
      json.key("extras").beginObject();
      json.key("targetNames").array(std::span<const std::string>(mesh.target_names));
      json.endObject();
    }
    json.endObject();
  }
  json.endArray();
}

// nodes (§5.25).
void writeNodes(JsonWriter& json, const Asset& asset) {
  if (asset.nodes.empty()) return;
  json.key("nodes").beginArray();
  for (const Node& node : asset.nodes) {
    json.beginObject();
    optionalName(json, node.name);
    indexArray(json, "children", node.children);
    optionalIndex(json, "mesh", node.mesh);
    optionalIndex(json, "skin", node.skin);
    optionalIndex(json, "camera", node.camera);
    // §3.5.3: a node has either `matrix` or TRS; identity TRS components are omitted.
    if (node.has_matrix) {
      doubleArray(json, "matrix", std::vector<double>(node.matrix.m.begin(), node.matrix.m.end()));
    } else {
      const DVec3& t = node.translation;
      const DQuat& r = node.rotation;
      const DVec3& s = node.scale;
      if (t.x != 0 || t.y != 0 || t.z != 0) doubleArray(json, "translation", {t.x, t.y, t.z});
      if (!isIdentity(r)) doubleArray(json, "rotation", {r.x, r.y, r.z, r.w});
      if (s.x != 1 || s.y != 1 || s.z != 1) doubleArray(json, "scale", {s.x, s.y, s.z});
    }
    if (!node.weights.empty()) floatArray(json, "weights", node.weights);
    json.endObject();
  }
  json.endArray();
}

// skins (§5.28).
void writeSkins(JsonWriter& json, const Asset& asset) {
  if (asset.skins.empty()) return;
  json.key("skins").beginArray();
  for (const Skin& skin : asset.skins) {
    json.beginObject();
    optionalName(json, skin.name);
    optionalIndex(json, "inverseBindMatrices", skin.inverse_bind_matrices);
    optionalIndex(json, "skeleton", skin.skeleton);
    json.key("joints").array(std::span<const uint32_t>(skin.joints));
    json.endObject();
  }
  json.endArray();
}

// One animation (§5.5): channels, then samplers; LINEAR is the default interpolation and omitted.
void writeAnimation(JsonWriter& json, const Animation& animation) {
  json.beginObject();
  optionalName(json, animation.name);
  json.key("channels").beginArray();
  for (const AnimationChannel& channel : animation.channels) {
    json.beginObject();
    json.field("sampler", channel.sampler);
    json.key("target").beginObject();
    optionalIndex(json, "node", channel.node);
    if (channel.pointer.text.empty()) {
      json.field("path", channel.other_path.empty() ? std::string(pathName(channel.path)) : channel.other_path);
    } else {  // KHR_animation_pointer, as it was read (its name stays in extensionsUsed)
      json.field("path", "pointer").key("extensions").beginObject().key("KHR_animation_pointer").beginObject();
      json.field("pointer", channel.pointer.text).endObject().endObject();
    }
    json.endObject();
    json.endObject();
  }
  json.endArray();
  json.key("samplers").beginArray();
  for (const AnimationSampler& sampler : animation.samplers) {
    json.beginObject();
    json.field("input", sampler.input);
    if (sampler.interpolation != Interpolation::kLinear)
      json.field("interpolation", interpolationName(sampler.interpolation));
    json.field("output", sampler.output);
    json.endObject();
  }
  json.endArray();
  json.endObject();
}

// animations, then scenes and the default scene (§5.5, §5.27).
void writeAnimationsAndScenes(JsonWriter& json, const Asset& asset) {
  if (!asset.animations.empty()) {
    json.key("animations").beginArray();
    for (const Animation& animation : asset.animations) writeAnimation(json, animation);
    json.endArray();
  }
  if (!asset.scenes.empty()) {
    json.key("scenes").beginArray();
    for (const Scene& scene : asset.scenes) {
      json.beginObject();
      optionalName(json, scene.name);
      indexArray(json, "nodes", scene.nodes);
      json.endObject();
    }
    json.endArray();
  }
  optionalIndex(json, "scene", asset.scene);
}

// One material (§5.19).
void writeMaterial(JsonWriter& json, const Material& material) {
  json.beginObject();
  optionalName(json, material.name);
  // §3.9.2 metallic-roughness: each factor only when it differs from its default.
  bool base_default = material.base_color_factor[0] == 1 && material.base_color_factor[1] == 1 &&
                      material.base_color_factor[2] == 1 && material.base_color_factor[3] == 1;
  bool pbr = !base_default || material.base_color_texture.texture != kNone || material.metallic_factor != 1.0f ||
             material.roughness_factor != 1.0f || material.metallic_roughness_texture.texture != kNone;
  if (pbr) {
    json.key("pbrMetallicRoughness").beginObject();
    if (!base_default) floatArray(json, "baseColorFactor", material.base_color_factor);
    textureInfo(json, "baseColorTexture", material.base_color_texture, nullptr);
    if (material.metallic_factor != 1.0f) json.field("metallicFactor", material.metallic_factor);
    if (material.roughness_factor != 1.0f) json.field("roughnessFactor", material.roughness_factor);
    textureInfo(json, "metallicRoughnessTexture", material.metallic_roughness_texture, nullptr);
    json.endObject();
  }
  textureInfo(json, "normalTexture", material.normal_texture, "scale");
  textureInfo(json, "occlusionTexture", material.occlusion_texture, "strength");
  textureInfo(json, "emissiveTexture", material.emissive_texture, nullptr);
  if (material.emissive_factor[0] != 0 || material.emissive_factor[1] != 0 || material.emissive_factor[2] != 0)
    floatArray(json, "emissiveFactor", material.emissive_factor);
  if (material.alpha_mode != AlphaMode::kOpaque) json.field("alphaMode", alphaModeName(material.alpha_mode));
  // §3.9.4: alphaCutoff is meaningful (and allowed by the validator) only in MASK mode.
  if (material.alpha_mode == AlphaMode::kMask && material.alpha_cutoff != 0.5f)
    json.field("alphaCutoff", material.alpha_cutoff);
  if (material.double_sided) json.field("doubleSided", true);
  gltf_detail::writeMaterialExtensions(json, material);
  json.endObject();
}

// materials, then textures (§5.19, §5.29).
void writeMaterialsAndTextures(JsonWriter& json, const Asset& asset) {
  if (!asset.materials.empty()) {
    json.key("materials").beginArray();
    for (const Material& material : asset.materials) writeMaterial(json, material);
    json.endArray();
  }
  if (asset.textures.empty()) return;
  json.key("textures").beginArray();
  for (const Texture& texture : asset.textures) {
    json.beginObject();
    optionalIndex(json, "sampler", texture.sampler);
    optionalIndex(json, "source", texture.source);
    // The caller lists KHR_texture_basisu and EXT_texture_webp in extensionsUsed.
    if (texture.basisu_source != kNone || texture.webp_source != kNone) {
      json.key("extensions").beginObject();
      if (texture.basisu_source != kNone)
        json.key("KHR_texture_basisu").beginObject().field("source", texture.basisu_source).endObject();
      if (texture.webp_source != kNone)
        json.key("EXT_texture_webp").beginObject().field("source", texture.webp_source).endObject();
      json.endObject();
    }
    json.endObject();
  }
  json.endArray();
}

// images, then samplers (§5.18, §5.26): a filter of 0 is unset, wrap REPEAT (10497) the default.
void writeImagesAndSamplers(JsonWriter& json, const Asset& asset) {
  if (!asset.images.empty()) {
    json.key("images").beginArray();
    for (const Image& image : asset.images) {
      json.beginObject();
      optionalName(json, image.name);
      if (!image.uri.empty()) json.field("uri", std::string_view(image.uri));
      if (!image.mime_type.empty()) json.field("mimeType", std::string_view(image.mime_type));
      optionalIndex(json, "bufferView", image.buffer_view);
      json.endObject();
    }
    json.endArray();
  }
  if (asset.samplers.empty()) return;
  json.key("samplers").beginArray();
  for (const Sampler& sampler : asset.samplers) {
    json.beginObject();
    if (sampler.mag_filter != 0) json.field("magFilter", sampler.mag_filter);
    if (sampler.min_filter != 0) json.field("minFilter", sampler.min_filter);
    if (sampler.wrap_s != 10497) json.field("wrapS", sampler.wrap_s);
    if (sampler.wrap_t != 10497) json.field("wrapT", sampler.wrap_t);
    json.endObject();
  }
  json.endArray();
}

// cameras (§5.12): §5.13/§5.14: perspective.zfar absent = infinite projection; orthographic.zfar is required.
void writeCameras(JsonWriter& json, const Asset& asset) {
  if (asset.cameras.empty()) return;
  json.key("cameras").beginArray();
  for (const Camera& camera : asset.cameras) {
    json.beginObject();
    if (camera.perspective) {
      json.field("type", "perspective");
      json.key("perspective").beginObject();
      if (camera.aspect_ratio > 0) json.field("aspectRatio", camera.aspect_ratio);
      json.field("yfov", camera.yfov);
      if (camera.zfar > 0) json.field("zfar", camera.zfar);
      json.field("znear", camera.znear);
      json.endObject();
    } else {
      json.field("type", "orthographic");
      json.key("orthographic").beginObject();
      json.field("xmag", camera.xmag);
      json.field("ymag", camera.ymag);
      json.field("zfar", camera.zfar);
      json.field("znear", camera.znear);
      json.endObject();
    }
    json.endObject();
  }
  json.endArray();
}

// The document written from the Asset alone: every object the data model holds.
std::string freshJson(const Asset& asset, const BinLayout& bin, Status& status) {
  JsonWriter json;
  json.beginObject();
  writeAssetHeader(json, asset);
  status = writeBuffersAndViews(json, asset, bin);
  writeAccessors(json, asset);
  writeMeshes(json, asset);
  writeNodes(json, asset);
  writeSkins(json, asset);
  writeAnimationsAndScenes(json, asset);
  writeMaterialsAndTextures(json, asset);
  writeImagesAndSamplers(json, asset);
  writeCameras(json, asset);
  gltf_detail::writeVrmExpressions(json, asset);  // the root "extensions" (VRMC_vrm or VRM), as read
  json.endObject();
  return json.str();
}

}  // namespace

namespace {

using gltf_detail::JsonTree;
using gltf_detail::PackedViews;

Expected<std::string> documentJson(const Asset& asset, const PackedViews* packed) {
  Expected<BinLayout> bin = layoutBin(asset);
  if (!bin) return bin.error();
  Status status = Ok{};
  const std::string fresh_text = freshJson(asset, *bin, status);
  if (!status) return status.error();
  Expected<JsonTree> fresh = gltf_detail::parseJsonTree(fresh_text);
  if (!fresh) return fresh.error();
  JsonTree document = std::move(fresh).value();
  if (packed) gltf_detail::writePackedViews(document, asset, *packed);
  if (!asset.source_json.empty()) {
    Expected<JsonTree> source = gltf_detail::parseJsonTree(asset.source_json);
    if (source && source->isObject()) document = gltf_detail::mergeIntoSource(std::move(source).value(), document);
  }
  gltf_detail::declareExtensions(document, asset);
  JsonWriter json;
  gltf_detail::writeJsonTree(json, document);
  return json.str();
}

// The GLB container (§4.4.3): the JSON chunk padded with spaces, then (when there is one) the BIN chunk of
// `bin_length` bytes, which `fill_bin` writes in place, padded with zeros. The BIN bytes are copied once.
template <typename FillBin>
Expected<std::vector<uint8_t>> assembleGlb(const std::string& json, size_t bin_length, bool has_bin, FillBin fill_bin) {
  size_t json_chunk = alignUp(json.size(), 4);
  size_t bin_chunk = alignUp(bin_length, 4);
  size_t total = 12 + 8 + json_chunk + (has_bin ? 8 + bin_chunk : 0);
  if (total > std::numeric_limits<uint32_t>::max()) {
    return fail(Error::kTooLarge,
                "glb: " + std::to_string(total) + " bytes exceed the 4 GiB GLB limit (glTF 2.0 §4.4.2)");
  }
  std::vector<uint8_t> out;
  out.reserve(total);
  auto put32 = [&out](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));  // GLB is little-endian (§4.4.1)
  };
  put32(0x46546C67u);  // "glTF"
  put32(2);
  put32(uint32_t(total));
  put32(uint32_t(json_chunk));
  put32(0x4E4F534Au);  // "JSON"
  out.insert(out.end(), json.begin(), json.end());
  out.resize(out.size() + (json_chunk - json.size()), uint8_t(' '));
  if (has_bin) {
    put32(uint32_t(bin_chunk));
    put32(0x004E4942u);  // "BIN\0"
    const size_t start = out.size();
    out.resize(start + bin_chunk, 0);
    fill_bin(out.data() + start);
  }
  return out;
}

}  // namespace

Expected<std::string> writeGltfJson(const Asset& asset) {
  return documentJson(asset, nullptr);
}

Expected<std::vector<uint8_t>> writeGlb(const Asset& asset, const GlbWriteOptions& options) {
  if (options.meshopt.empty()) return writeGlb(asset);
  Expected<PackedViews> packed = gltf_detail::packViews(asset, options);
  if (!packed) return packed.error();
  Expected<std::string> json = documentJson(asset, &packed.value());
  if (!json) return json.error();
  return assembleGlb(*json, packed->bin.size(), true,
                     [&](uint8_t* bin) { std::memcpy(bin, packed->bin.data(), packed->bin.size()); });
}

Expected<std::vector<uint8_t>> writeGlb(const Asset& asset) {
  auto json = writeGltfJson(asset);
  if (!json) return json.error();
  Expected<BinLayout> bin = layoutBin(asset);  // the same check writeGltfJson passed
  if (!bin) return bin.error();
  return assembleGlb(*json, bin->length, !asset.buffers.empty(), [&](uint8_t* out) {
    for (size_t i = 0; i < asset.buffers.size(); ++i) {
      const Buffer& buffer = asset.buffers[i];
      if (buffer.byte_length > 0) std::memcpy(out + bin->base[i], buffer.data.data(), buffer.byte_length);
    }
  });
}

}  // namespace morphkit
