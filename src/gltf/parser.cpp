// SPDX-License-Identifier: MIT
// parser.cpp — a glTF document's JSON (simdjson DOM) → morphkit::Asset's fields (parse_document.h); the load flow
// around it is loader.cpp. Parsing only checks JSON types and required fields; every cross-object rule lives in
// validate.cpp, run once after the buffers are resolved.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

// MORPHKIT_TRY nests inside the forEachObject lambdas; the inner status shadowing the outer one is harmless.
#pragma GCC diagnostic ignored "-Wshadow"
#include "animation_pointer.h"
#include "compression.h"
#include "gltf_fields.h"
#include "material_extensions.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/extensions.h"
#include "morphkit/model/text.h"
#include "parse_document.h"
#include "uri.h"
#include "vrm_expressions.h"

namespace morphkit {

using namespace gltf_detail;

namespace {

// Every extension the loader implements: the registry's rows (morphkit/model/extensions.h; docs/CLI.md says what
// each does).
std::string supportedExtensionList() {
  std::string supported;
  for (const GltfExtension& e : gltfExtensions()) supported += (supported.empty() ? "" : ", ") + std::string(e.name);
  return supported;
}

Status parseAttributes(object o, std::string_view key, std::vector<Attribute>& out, const std::string& where) {
  element e;
  if (o.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
  object attributes;
  if (e.get_object().get(attributes) != simdjson::SUCCESS)
    return fieldError(kGltfError, where, key, "must be an object");
  for (auto field : attributes) {
    uint64_t index;
    if (field.value.get_uint64().get(index) != simdjson::SUCCESS || index >= 0xFFFFFFFFull) {
      return fieldError(kGltfError, where, std::string(key) + "." + printable(field.key), "must be an accessor index");
    }
    out.push_back({std::string(field.key), uint32_t(index)});
  }
  return Ok{};
}

}  // namespace

// KHR_texture_transform on a textureInfo: offset, rotation, scale, texCoord (all optional).
static Status parseTextureTransform(object info, TextureRef& ref, const std::string& where) {
  element e;
  object extensions, ext;
  if (info.at_key("extensions").get(e) != simdjson::SUCCESS || e.get_object().get(extensions) != simdjson::SUCCESS ||
      extensions.at_key("KHR_texture_transform").get(e) != simdjson::SUCCESS) {
    return Ok{};
  }
  const std::string here = where + ".extensions.KHR_texture_transform";
  if (e.get_object().get(ext) != simdjson::SUCCESS) return fail(Error::kInvalidGltf, here + ": must be an object");
  ref.has_transform = true;
  std::vector<float> pair;
  MORPHKIT_TRY(readNumbers(kGltfError, ext, "offset", pair, here, 2));
  if (!pair.empty()) ref.transform.offset[0] = pair[0], ref.transform.offset[1] = pair[1];
  MORPHKIT_TRY(readNumbers(kGltfError, ext, "scale", pair, here, 2));
  if (!pair.empty()) ref.transform.scale[0] = pair[0], ref.transform.scale[1] = pair[1];
  MORPHKIT_TRY(readFloat(kGltfError, ext, "rotation", ref.transform.rotation, here));
  return readIndex(kGltfError, ext, "texCoord", ref.transform.texcoord, here);
}

Status gltf_detail::parseTextureRef(object material, std::string_view key, TextureRef& ref, const std::string& where,
                                    std::string_view scale_key, bool texture_transform) {
  element e;
  if (material.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
  object info;
  std::string here = where + "." + std::string(key);
  if (e.get_object().get(info) != simdjson::SUCCESS) return fail(Error::kInvalidGltf, here + ": must be an object");
  MORPHKIT_TRY(readIndex(kGltfError, info, "index", ref.texture, here, true));
  MORPHKIT_TRY(readIndex(kGltfError, info, "texCoord", ref.texcoord, here));
  if (!scale_key.empty()) MORPHKIT_TRY(readFloat(kGltfError, info, scale_key, ref.scale, here));
  if (texture_transform) MORPHKIT_TRY(parseTextureTransform(info, ref, here));
  return Ok{};
}

namespace {

class Parser {
 public:
  Parser(Asset& asset, CompressedData& compressed) : asset_(asset), compressed_(compressed) {}

  // Per buffer, its data: URI as a view into the parsed JSON (empty for other buffers). Buffer::uri keeps only
  // the part before the payload, so a 200 MB URI is not held twice; valid while the DOM lives.
  std::vector<std::string_view> data_uris;

  Status parse(object root) {
    MORPHKIT_TRY(parseHeader(root));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "buffers", "",
                               [&](object o, const std::string& w) -> Status { return parseBuffer(o, w); }));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "bufferViews", "",
                               [&](object o, const std::string& w) -> Status { return parseBufferView(o, w); }));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "accessors", "",
                               [&](object o, const std::string& w) -> Status { return parseAccessor(o, w); }));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "meshes", "",
                               [&](object o, const std::string& w) -> Status { return parseMesh(o, w); }));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "nodes", "",
                               [&](object o, const std::string& w) -> Status { return parseNode(o, w); }));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "skins", "",
                               [&](object o, const std::string& w) -> Status { return parseSkin(o, w); }));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "animations", "",
                               [&](object o, const std::string& w) -> Status { return parseAnimation(o, w); }));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "scenes", "", [&](object o, const std::string& w) -> Status {
      Scene& scene = asset_.scenes.emplace_back();
      MORPHKIT_TRY(readString(kGltfError, o, "name", scene.name, w));
      return readIndices(kGltfError, o, "nodes", scene.nodes, w);
    }));
    MORPHKIT_TRY(readIndex(kGltfError, root, "scene", asset_.scene, "glTF"));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "materials", "",
                               [&](object o, const std::string& w) -> Status { return parseMaterial(o, w); }));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "textures", "", [&](object o, const std::string& w) -> Status {
      Texture& texture = asset_.textures.emplace_back();
      MORPHKIT_TRY(readIndex(kGltfError, o, "sampler", texture.sampler, w));
      MORPHKIT_TRY(readIndex(kGltfError, o, "source", texture.source, w));
      MORPHKIT_TRY(readTextureSourceExtension(o, w, "KHR_texture_basisu", texture.basisu_source));
      return readTextureSourceExtension(o, w, "EXT_texture_webp", texture.webp_source);
    }));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "images", "", [&](object o, const std::string& w) -> Status {
      Image& image = asset_.images.emplace_back();
      MORPHKIT_TRY(readString(kGltfError, o, "name", image.name, w));
      MORPHKIT_TRY(readString(kGltfError, o, "uri", image.uri, w));
      MORPHKIT_TRY(readString(kGltfError, o, "mimeType", image.mime_type, w));
      return readIndex(kGltfError, o, "bufferView", image.buffer_view, w);
    }));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "samplers", "", [&](object o, const std::string& w) -> Status {
      Sampler& sampler = asset_.samplers.emplace_back();
      MORPHKIT_TRY(readIndex(kGltfError, o, "magFilter", sampler.mag_filter, w));
      MORPHKIT_TRY(readIndex(kGltfError, o, "minFilter", sampler.min_filter, w));
      MORPHKIT_TRY(readIndex(kGltfError, o, "wrapS", sampler.wrap_s, w));
      return readIndex(kGltfError, o, "wrapT", sampler.wrap_t, w);
    }));
    MORPHKIT_TRY(forEachObject(kGltfError, root, "cameras", "",
                               [&](object o, const std::string& w) -> Status { return parseCamera(o, w); }));
    MORPHKIT_TRY(parseVrmExpressions(root, asset_));
    return Ok{};
  }

 private:
  // A texture extension whose one field is the image it stores (KHR_texture_basisu, EXT_texture_webp: "source",
  // required), read when the file lists the extension as used.
  Status readTextureSourceExtension(object texture, const std::string& where, const char* name, uint32_t& source) {
    element ext;
    object extensions, fields;
    if (!uses(name) || texture.at_key("extensions").get(ext) != simdjson::SUCCESS ||
        ext.get_object().get(extensions) != simdjson::SUCCESS || extensions.at_key(name).get(ext) != simdjson::SUCCESS)
      return Ok{};
    const std::string here = where + ".extensions." + name;
    if (ext.get_object().get(fields) != simdjson::SUCCESS)
      return fail(Error::kInvalidGltf, here + ": must be an object");
    return readIndex(kGltfError, fields, "source", source, here, true);
  }

  Status parseHeader(object root) {
    element e;
    object header;
    if (root.at_key("asset").get(e) != simdjson::SUCCESS || e.get_object().get(header) != simdjson::SUCCESS) {
      return fail(Error::kInvalidGltf, "asset: the 'asset' object is required (glTF 2.0 §5.17)");
    }
    std::string version, min_version;
    MORPHKIT_TRY(readString(kGltfError, header, "version", version, "asset", true));
    MORPHKIT_TRY(readString(kGltfError, header, "minVersion", min_version, "asset"));
    MORPHKIT_TRY(readString(kGltfError, header, "generator", asset_.generator, "asset"));
    std::string major = version.substr(0, version.find('.'));
    if (major != "2")
      return fail(Error::kInvalidGltf,
                  "asset.version: " + quote(version) + " is not a glTF 2.x version (glTF 2.0 §3.2)");
    if (!min_version.empty() && min_version != "2.0") {
      return fail(Error::kInvalidGltf, "asset.minVersion: " + quote(min_version) +
                                           " is newer than 2.0, which morphkit implements (glTF 2.0 §3.2)");
    }
    MORPHKIT_TRY(readStrings(root, "extensionsUsed", asset_.extensions_used));
    MORPHKIT_TRY(readStrings(root, "extensionsRequired", asset_.extensions_required));
    for (const auto& name : asset_.extensions_required) {
      if (!findGltfExtension(name)) {
        return fail(Error::kUnsupportedExtension,
                    "extensionsRequired: " + quote(name) +
                        " is not supported by morphkit (glTF 2.0 §3.12; supported: " + supportedExtensionList() + ")");
      }
    }
    for (const auto& name : asset_.extensions_used) {
      if (!findGltfExtension(name))
        asset_.notes.push_back("extensionsUsed: " + quote(name) +
                               " is not supported by morphkit; ignored (used, not required)");
    }
    return Ok{};
  }

  Status readStrings(object root, std::string_view key, std::vector<std::string>& out) {
    element e;
    if (root.at_key(key).get(e) != simdjson::SUCCESS) return Ok{};
    array a;
    if (e.get_array().get(a) != simdjson::SUCCESS)
      return fail(Error::kInvalidGltf, std::string(key) + ": must be an array of strings");
    for (element item : a) {
      std::string_view s;
      if (item.get_string().get(s) != simdjson::SUCCESS)
        return fail(Error::kInvalidGltf, std::string(key) + ": must contain only strings");
      out.emplace_back(s);
    }
    return Ok{};
  }

  Status parseBuffer(object o, const std::string& where) {
    Buffer& buffer = asset_.buffers.emplace_back();
    MORPHKIT_TRY(readString(kGltfError, o, "name", buffer.name, where));
    std::string_view uri;
    element e;
    if (o.at_key("uri").get(e) == simdjson::SUCCESS && e.get_string().get(uri) != simdjson::SUCCESS) {
      return fieldError(kGltfError, where, "uri", "must be a string");
    }
    data_uris.emplace_back(isDataUri(uri) ? uri : std::string_view());
    buffer.uri = isDataUri(uri) ? std::string(uri.substr(0, uri.find(',') + 1)) : std::string(uri);
    MORPHKIT_TRY(readSize(kGltfError, o, "byteLength", buffer.byte_length, where, true));
    if (buffer.byte_length == 0)
      return fieldError(kGltfError, where, "byteLength", "must be at least 1 (glTF 2.0 §5.10)");
    uint8_t& fallback = compressed_.meshopt_fallback.emplace_back(0);
    if (uses(kMeshoptExtension)) MORPHKIT_TRY(parseMeshoptBuffer(o, where, fallback));
    return Ok{};
  }

  Status parseBufferView(object o, const std::string& where) {
    BufferView& view = asset_.buffer_views.emplace_back();
    MORPHKIT_TRY(readString(kGltfError, o, "name", view.name, where));
    MORPHKIT_TRY(readIndex(kGltfError, o, "buffer", view.buffer, where, true));
    MORPHKIT_TRY(readSize(kGltfError, o, "byteOffset", view.byte_offset, where));
    MORPHKIT_TRY(readSize(kGltfError, o, "byteLength", view.byte_length, where, true));
    MORPHKIT_TRY(readIndex(kGltfError, o, "byteStride", view.byte_stride, where));
    MORPHKIT_TRY(readIndex(kGltfError, o, "target", view.target, where));
    MeshoptView& meshopt = compressed_.meshopt_views.emplace_back();
    if (uses(kMeshoptExtension)) MORPHKIT_TRY(parseMeshoptView(o, where, meshopt));
    return Ok{};
  }

  Status parseAccessor(object o, const std::string& where) {
    Accessor& accessor = asset_.accessors.emplace_back();
    MORPHKIT_TRY(readString(kGltfError, o, "name", accessor.name, where));
    MORPHKIT_TRY(readIndex(kGltfError, o, "bufferView", accessor.buffer_view, where));
    MORPHKIT_TRY(readSize(kGltfError, o, "byteOffset", accessor.byte_offset, where));
    uint32_t component = 0;
    MORPHKIT_TRY(readIndex(kGltfError, o, "componentType", component, where, true));
    auto component_type = parseComponentType(component, where);
    if (!component_type) return component_type.error();
    accessor.component_type = *component_type;
    MORPHKIT_TRY(readBool(kGltfError, o, "normalized", accessor.normalized, where));
    MORPHKIT_TRY(readIndex(kGltfError, o, "count", accessor.count, where, true));
    std::string type;
    MORPHKIT_TRY(readString(kGltfError, o, "type", type, where, true));
    auto accessor_type = parseAccessorType(type, where);
    if (!accessor_type) return accessor_type.error();
    accessor.type = *accessor_type;
    MORPHKIT_TRY(readNumbers(kGltfError, o, "min", accessor.min, where));
    MORPHKIT_TRY(readNumbers(kGltfError, o, "max", accessor.max, where));
    element e;
    if (o.at_key("sparse").get(e) == simdjson::SUCCESS) {
      std::string here = where + ".sparse";
      object sparse, indices, values;
      if (e.get_object().get(sparse) != simdjson::SUCCESS)
        return fail(Error::kInvalidGltf, here + ": must be an object");
      accessor.has_sparse = true;
      MORPHKIT_TRY(readIndex(kGltfError, sparse, "count", accessor.sparse.count, here, true));
      if (sparse.at_key("indices").get(e) != simdjson::SUCCESS || e.get_object().get(indices) != simdjson::SUCCESS) {
        return fail(Error::kInvalidGltf, here + ".indices: is required (glTF 2.0 §5.2)");
      }
      MORPHKIT_TRY(
          readIndex(kGltfError, indices, "bufferView", accessor.sparse.indices_buffer_view, here + ".indices", true));
      MORPHKIT_TRY(readSize(kGltfError, indices, "byteOffset", accessor.sparse.indices_byte_offset, here + ".indices"));
      uint32_t index_type = 0;
      MORPHKIT_TRY(readIndex(kGltfError, indices, "componentType", index_type, here + ".indices", true));
      if (index_type != 5121 && index_type != 5123 && index_type != 5125) {
        return fail(
            Error::kInvalidGltf,
            here + ".indices.componentType: must be UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT (glTF 2.0 §5.3)");
      }
      accessor.sparse.indices_component_type = ComponentType(index_type);
      if (sparse.at_key("values").get(e) != simdjson::SUCCESS || e.get_object().get(values) != simdjson::SUCCESS) {
        return fail(Error::kInvalidGltf, here + ".values: is required (glTF 2.0 §5.2)");
      }
      MORPHKIT_TRY(
          readIndex(kGltfError, values, "bufferView", accessor.sparse.values_buffer_view, here + ".values", true));
      MORPHKIT_TRY(readSize(kGltfError, values, "byteOffset", accessor.sparse.values_byte_offset, here + ".values"));
    }
    return Ok{};
  }

  Status parseMesh(object o, const std::string& where) {
    Mesh& mesh = asset_.meshes.emplace_back();
    MORPHKIT_TRY(readString(kGltfError, o, "name", mesh.name, where));
    MORPHKIT_TRY(readNumbers(kGltfError, o, "weights", mesh.weights, where));
    if (has(o, "weights") && mesh.weights.empty())
      return fieldError(kGltfError, where, "weights", "must not be empty (glTF 2.0 §5.23)");
    if (!has(o, "primitives")) return fieldError(kGltfError, where, "primitives", "is required (glTF 2.0 §5.23)");
    MORPHKIT_TRY(forEachObject(kGltfError, o, "primitives", where, [&](object p, const std::string& w) -> Status {
      Primitive& primitive = mesh.primitives.emplace_back();
      MORPHKIT_TRY(parseAttributes(p, "attributes", primitive.attributes, w));
      MORPHKIT_TRY(readIndex(kGltfError, p, "indices", primitive.indices, w));
      MORPHKIT_TRY(readIndex(kGltfError, p, "material", primitive.material, w));
      uint32_t mode = 4;
      MORPHKIT_TRY(readIndex(kGltfError, p, "mode", mode, w));
      if (mode > 6) return fieldError(kGltfError, w, "mode", "must be 0..6 (glTF 2.0 §5.24)");
      primitive.mode = PrimitiveMode(mode);
      if (uses(kDracoExtension)) {
        MORPHKIT_TRY(parseDracoPrimitive(p, w, uint32_t(asset_.meshes.size() - 1), uint32_t(mesh.primitives.size() - 1),
                                         compressed_.draco));
      }
      element targets;
      if (p.at_key("targets").get(targets) == simdjson::SUCCESS) {
        array list;
        if (targets.get_array().get(list) != simdjson::SUCCESS)
          return fieldError(kGltfError, w, "targets", "must be an array");
        size_t t = 0;
        for (element item : list) {
          object target;
          std::string here = w + ".targets[" + std::to_string(t++) + "]";
          if (item.get_object().get(target) != simdjson::SUCCESS)
            return fail(Error::kInvalidGltf, here + ": must be an object");
          MorphTarget& morph = primitive.targets.emplace_back();
          for (auto field : target) {
            uint64_t index;
            if (field.value.get_uint64().get(index) != simdjson::SUCCESS || index >= 0xFFFFFFFFull) {
              return fail(Error::kInvalidGltf, here + "." + printable(field.key) + ": must be an accessor index");
            }
            morph.attributes.push_back({std::string(field.key), uint32_t(index)});
          }
        }
      }
      return Status(Ok{});
    }));
    element extras, names;
    if (o.at_key("extras").get(extras) == simdjson::SUCCESS && extras.is_object() &&
        extras.at_key("targetNames").get(names) == simdjson::SUCCESS) {
      array list;
      if (names.get_array().get(list) == simdjson::SUCCESS) {
        for (element item : list) {
          std::string_view s;
          mesh.target_names.emplace_back(item.get_string().get(s) == simdjson::SUCCESS ? std::string(s)
                                                                                       : std::string());
        }
      }  // extras are application-defined: a malformed targetNames is ignored, not an error
    }
    return Ok{};
  }

  Status parseNode(object o, const std::string& where) {
    Node& node = asset_.nodes.emplace_back();
    MORPHKIT_TRY(readString(kGltfError, o, "name", node.name, where));
    MORPHKIT_TRY(readIndices(kGltfError, o, "children", node.children, where));
    MORPHKIT_TRY(readIndex(kGltfError, o, "mesh", node.mesh, where));
    MORPHKIT_TRY(readIndex(kGltfError, o, "skin", node.skin, where));
    MORPHKIT_TRY(readIndex(kGltfError, o, "camera", node.camera, where));
    MORPHKIT_TRY(readNumbers(kGltfError, o, "weights", node.weights, where));
    if (has(o, "weights") && node.weights.empty())
      return fieldError(kGltfError, where, "weights", "must not be empty (glTF 2.0 §5.25)");
    // Kept in double (scene composition is double); still within float range, as every float consumer (the
    // renderer's uniforms) rounds them once and a larger value would not convert.
    std::vector<double> numbers;
    auto readTransform = [&](std::string_view key, size_t count) -> Status {
      MORPHKIT_TRY(readNumbers(kGltfError, o, key, numbers, where, count));
      for (double v : numbers) {
        if (std::fabs(v) > double(std::numeric_limits<float>::max()))
          return fieldError(kGltfError, where, key, "contains a number out of float range");
      }
      return Ok{};
    };
    if (has(o, "matrix")) {
      MORPHKIT_TRY(readTransform("matrix", 16));
      node.has_matrix = true;
      std::copy(numbers.begin(), numbers.end(), node.matrix.m.begin());
    }
    if (has(o, "translation")) {
      MORPHKIT_TRY(readTransform("translation", 3));
      node.translation = {numbers[0], numbers[1], numbers[2]};
    }
    if (has(o, "rotation")) {
      MORPHKIT_TRY(readTransform("rotation", 4));
      node.rotation = {numbers[0], numbers[1], numbers[2], numbers[3]};
    }
    if (has(o, "scale")) {
      MORPHKIT_TRY(readTransform("scale", 3));
      node.scale = {numbers[0], numbers[1], numbers[2]};
    }
    if (node.has_matrix && (has(o, "translation") || has(o, "rotation") || has(o, "scale"))) {
      return fail(Error::kInvalidGltf,
                  where + ": has both matrix and TRS properties (glTF 2.0 §5.25: matrix MUST NOT be present with TRS)");
    }
    return Ok{};
  }

  Status parseSkin(object o, const std::string& where) {
    Skin& skin = asset_.skins.emplace_back();
    MORPHKIT_TRY(readString(kGltfError, o, "name", skin.name, where));
    MORPHKIT_TRY(readIndex(kGltfError, o, "inverseBindMatrices", skin.inverse_bind_matrices, where));
    MORPHKIT_TRY(readIndex(kGltfError, o, "skeleton", skin.skeleton, where));
    if (!has(o, "joints")) return fieldError(kGltfError, where, "joints", "is required (glTF 2.0 §5.28)");
    MORPHKIT_TRY(readIndices(kGltfError, o, "joints", skin.joints, where));
    return Ok{};
  }

  Status parseAnimation(object o, const std::string& where) {
    Animation& animation = asset_.animations.emplace_back();
    MORPHKIT_TRY(readString(kGltfError, o, "name", animation.name, where));
    MORPHKIT_TRY(forEachObject(kGltfError, o, "samplers", where, [&](object s, const std::string& w) -> Status {
      AnimationSampler& sampler = animation.samplers.emplace_back();
      MORPHKIT_TRY(readIndex(kGltfError, s, "input", sampler.input, w, true));
      MORPHKIT_TRY(readIndex(kGltfError, s, "output", sampler.output, w, true));
      std::string interpolation = "LINEAR";
      MORPHKIT_TRY(readString(kGltfError, s, "interpolation", interpolation, w));
      if (interpolation == "LINEAR")
        sampler.interpolation = Interpolation::kLinear;
      else if (interpolation == "STEP")
        sampler.interpolation = Interpolation::kStep;
      else if (interpolation == "CUBICSPLINE")
        sampler.interpolation = Interpolation::kCubicSpline;
      else
        return fieldError(kGltfError, w, "interpolation",
                          quote(interpolation) + " is not LINEAR, STEP or CUBICSPLINE (glTF 2.0 §5.8)");
      return Status(Ok{});
    }));
    MORPHKIT_TRY(forEachObject(kGltfError, o, "channels", where, [&](object c, const std::string& w) -> Status {
      AnimationChannel& channel = animation.channels.emplace_back();
      MORPHKIT_TRY(readIndex(kGltfError, c, "sampler", channel.sampler, w, true));
      element e;
      object target;
      if (c.at_key("target").get(e) != simdjson::SUCCESS || e.get_object().get(target) != simdjson::SUCCESS) {
        return fail(Error::kInvalidGltf, w + ".target: is required (glTF 2.0 §5.6)");
      }
      MORPHKIT_TRY(readIndex(kGltfError, target, "node", channel.node, w + ".target"));
      std::string path;
      MORPHKIT_TRY(readString(kGltfError, target, "path", path, w + ".target", true));
      if (path == "translation")
        channel.path = TargetPath::kTranslation;
      else if (path == "rotation")
        channel.path = TargetPath::kRotation;
      else if (path == "scale")
        channel.path = TargetPath::kScale;
      else if (path == "weights")
        channel.path = TargetPath::kWeights;
      else {
        // An extension-defined path: only KHR_animation_pointer's morph-weight pointers are ours to animate.
        channel.node = kNone;
        channel.other_path = path;
        if (path == "pointer") MORPHKIT_TRY(parseAnimationPointer(target, w + ".target", channel));
        if (!channelPlays(channel))
          asset_.notes.push_back(w + ".target.path: " + quote(path) + " is not a core path; channel ignored");
      }
      return Status(Ok{});
    }));
    return Ok{};
  }

  Status parseMaterial(object o, const std::string& where) {
    Material& material = asset_.materials.emplace_back();
    MORPHKIT_TRY(readString(kGltfError, o, "name", material.name, where));
    const bool transform = uses("KHR_texture_transform");
    element e;
    object pbr;
    if (o.at_key("pbrMetallicRoughness").get(e) == simdjson::SUCCESS) {
      std::string here = where + ".pbrMetallicRoughness";
      if (e.get_object().get(pbr) != simdjson::SUCCESS) return fail(Error::kInvalidGltf, here + ": must be an object");
      std::vector<float> color;
      MORPHKIT_TRY(readNumbers(kGltfError, pbr, "baseColorFactor", color, here, 4));
      if (!color.empty()) std::copy(color.begin(), color.end(), material.base_color_factor);
      MORPHKIT_TRY(readFloat(kGltfError, pbr, "metallicFactor", material.metallic_factor, here));
      MORPHKIT_TRY(readFloat(kGltfError, pbr, "roughnessFactor", material.roughness_factor, here));
      MORPHKIT_TRY(parseTextureRef(pbr, "baseColorTexture", material.base_color_texture, here, "", transform));
      MORPHKIT_TRY(
          parseTextureRef(pbr, "metallicRoughnessTexture", material.metallic_roughness_texture, here, "", transform));
    }
    MORPHKIT_TRY(parseTextureRef(o, "normalTexture", material.normal_texture, where, "scale", transform));
    MORPHKIT_TRY(parseTextureRef(o, "occlusionTexture", material.occlusion_texture, where, "strength", transform));
    MORPHKIT_TRY(parseTextureRef(o, "emissiveTexture", material.emissive_texture, where, "", transform));
    std::vector<float> emissive;
    MORPHKIT_TRY(readNumbers(kGltfError, o, "emissiveFactor", emissive, where, 3));
    if (!emissive.empty()) std::copy(emissive.begin(), emissive.end(), material.emissive_factor);
    std::string alpha_mode = "OPAQUE";
    MORPHKIT_TRY(readString(kGltfError, o, "alphaMode", alpha_mode, where));
    if (alpha_mode == "OPAQUE")
      material.alpha_mode = AlphaMode::kOpaque;
    else if (alpha_mode == "MASK")
      material.alpha_mode = AlphaMode::kMask;
    else if (alpha_mode == "BLEND")
      material.alpha_mode = AlphaMode::kBlend;
    else
      return fieldError(kGltfError, where, "alphaMode",
                        quote(alpha_mode) + " is not OPAQUE, MASK or BLEND (glTF 2.0 §5.19)");
    MORPHKIT_TRY(readFloat(kGltfError, o, "alphaCutoff", material.alpha_cutoff, where));
    MORPHKIT_TRY(readBool(kGltfError, o, "doubleSided", material.double_sided, where));
    return parseMaterialExtensions(o, material, where, transform);
  }

  Status parseCamera(object o, const std::string& where) {
    Camera& camera = asset_.cameras.emplace_back();
    std::string type;
    MORPHKIT_TRY(readString(kGltfError, o, "type", type, where, true));
    element e;
    object params;
    // The object named after the camera's type, required for it.
    auto typeParams = [&](const char* key, const char* what) -> Status {
      if (o.at_key(key).get(e) != simdjson::SUCCESS || e.get_object().get(params) != simdjson::SUCCESS) {
        return fail(Error::kInvalidGltf, where + "." + key + ": is required for " + what + " camera (glTF 2.0 §5.12)");
      }
      return Ok{};
    };
    if (type == "perspective") {
      camera.perspective = true;
      MORPHKIT_TRY(typeParams("perspective", "a perspective"));
      std::string here = where + ".perspective";
      MORPHKIT_TRY(readFloat(kGltfError, params, "yfov", camera.yfov, here));
      MORPHKIT_TRY(readFloat(kGltfError, params, "aspectRatio", camera.aspect_ratio, here));
      MORPHKIT_TRY(readFloat(kGltfError, params, "znear", camera.znear, here));
      MORPHKIT_TRY(readFloat(kGltfError, params, "zfar", camera.zfar, here));
    } else if (type == "orthographic") {
      camera.perspective = false;
      MORPHKIT_TRY(typeParams("orthographic", "an orthographic"));
      std::string here = where + ".orthographic";
      MORPHKIT_TRY(readFloat(kGltfError, params, "xmag", camera.xmag, here));
      MORPHKIT_TRY(readFloat(kGltfError, params, "ymag", camera.ymag, here));
      MORPHKIT_TRY(readFloat(kGltfError, params, "znear", camera.znear, here));
      MORPHKIT_TRY(readFloat(kGltfError, params, "zfar", camera.zfar, here));
    } else {
      return fieldError(kGltfError, where, "type",
                        quote(type) + " is not perspective or orthographic (glTF 2.0 §5.12)");
    }
    return Ok{};
  }

  bool uses(std::string_view extension) const {
    return std::find(asset_.extensions_used.begin(), asset_.extensions_used.end(), extension) !=
           asset_.extensions_used.end();
  }

  Asset& asset_;
  CompressedData& compressed_;  // compressed-geometry descriptions, decoded after the buffers are resolved
};

}  // namespace

Status gltf_detail::parseDocument(object root, Asset& asset, CompressedData& compressed,
                                  std::vector<std::string_view>& data_uris) {
  Parser parser(asset, compressed);
  MORPHKIT_TRY(parser.parse(root));
  data_uris = std::move(parser.data_uris);
  return Ok{};
}

}  // namespace morphkit
