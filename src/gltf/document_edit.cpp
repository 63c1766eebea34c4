// SPDX-License-Identifier: MIT
// The glTF writer's edit of a loaded file's document: the Asset's fresh objects merged into the input's JSON, and
// the extensions the result holds declared (morphkit/gltf/glb_writer.h).
#include "document_edit.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "morphkit/io/json_writer.h"
#include "morphkit/model/extensions.h"

namespace morphkit {
namespace gltf_detail {
namespace {

// Each field the Asset owns comes from the fresh object (or goes, when the fresh one lacks it); the rest of `kept`
// (names, extras, extensions the data model does not hold) stays as the input had it.
void takeFields(JsonTree& kept, const JsonTree& fresh, std::initializer_list<std::string_view> fields) {
  for (std::string_view field : fields) {
    if (const JsonTree* value = fresh.find(field)) {
      kept.set(field, *value);
    } else {
      kept.erase(field);
    }
  }
}

// Element-wise merge of an array of objects: the first min(n, m) merged, objects the Asset added written fresh,
// objects it removed dropped.
template <typename Merge>
void mergeArray(JsonTree& kept, const JsonTree& fresh, std::string_view key, Merge merge) {
  const JsonTree* fresh_array = fresh.find(key);
  JsonTree* kept_array = kept.find(key);
  if (!fresh_array) {
    kept.erase(key);
    return;
  }
  if (!kept_array || !kept_array->isArray()) {
    kept.set(key, *fresh_array);
    return;
  }
  std::vector<JsonTree>& items = kept_array->items;
  items.resize(std::min(items.size(), fresh_array->items.size()));
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].isObject()) {
      merge(items[i], fresh_array->items[i]);
    } else {
      items[i] = fresh_array->items[i];
    }
  }
  for (size_t i = items.size(); i < fresh_array->items.size(); ++i) items.push_back(fresh_array->items[i]);
}

// The loader decoded KHR_draco_mesh_compression (the registry's rows that are not written); the written primitive
// holds plain accessors.
void mergePrimitive(JsonTree& kept, const JsonTree& fresh) {
  takeFields(kept, fresh, {"attributes", "indices", "material", "mode", "targets"});
  if (JsonTree* extensions = kept.find("extensions")) {
    for (const GltfExtension& row : gltfExtensions()) {
      if (!row.written) extensions->erase(std::string(row.name));
    }
    if (extensions->keys.empty()) kept.erase("extensions");
  }
}

void mergeMesh(JsonTree& kept, const JsonTree& fresh) {
  mergeArray(kept, fresh, "primitives", mergePrimitive);
}

void mergeAnimation(JsonTree& kept, const JsonTree& fresh) {
  mergeArray(kept, fresh, "channels", [](JsonTree& channel, const JsonTree& f) {
    takeFields(channel, f, {"sampler", "target"});
  });
  mergeArray(kept, fresh, "samplers", [](JsonTree& sampler, const JsonTree& f) {
    takeFields(sampler, f, {"input", "interpolation", "output"});
  });
}

// Every extension object in the document (extras are user data, not extensions), in document order.
void collectExtensionNames(const JsonTree& tree, std::vector<std::string>& names) {
  if (tree.isArray()) {
    for (const JsonTree& item : tree.items) collectExtensionNames(item, names);
    return;
  }
  if (!tree.isObject()) return;
  for (size_t i = 0; i < tree.keys.size(); ++i) {
    const std::string& key = tree.keys[i];
    const JsonTree& value = tree.values[i];
    if (key == "extras") continue;
    if (key == "extensions" && value.isObject()) {
      for (const std::string& name : value.keys) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      }
    }
    collectExtensionNames(value, names);
  }
}

bool needsQuantization(const Asset& asset) {
  for (const Animation& animation : asset.animations) {  // integer translation / scale keys (core allows none)
    for (const AnimationChannel& channel : animation.channels) {
      if (channel.path != TargetPath::kTranslation && channel.path != TargetPath::kScale) continue;
      if (channel.sampler >= animation.samplers.size()) continue;
      const uint32_t output = animation.samplers[channel.sampler].output;
      if (output < asset.accessors.size() && asset.accessors[output].component_type != ComponentType::kFloat)
        return true;
    }
  }
  for (const Mesh& mesh : asset.meshes) {
    for (const Primitive& primitive : mesh.primitives) {
      for (const Attribute& a : primitive.attributes) {
        if (a.accessor < asset.accessors.size() &&
            attributeNeedsQuantization(a.name, asset.accessors[a.accessor], false))
          return true;
      }
      for (const MorphTarget& target : primitive.targets) {
        for (const Attribute& a : target.attributes) {
          if (a.accessor < asset.accessors.size() &&
              attributeNeedsQuantization(a.name, asset.accessors[a.accessor], true))
            return true;
        }
      }
    }
  }
  return false;
}

// A cursor over JSON text that a parser has accepted: values are skipped by their first character, not checked.
struct JsonCursor {
  std::string_view text;
  size_t at = 0;

  bool more() const { return at < text.size(); }
  char peek() {
    while (more() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) ++at;
    return more() ? text[at] : '\0';
  }
  // At a '"': past its closing quote (one found by memchr, not escaped by an odd run of backslashes).
  void skipString() {
    ++at;
    while (more()) {
      const void* hit = std::memchr(text.data() + at, '"', text.size() - at);
      if (!hit) {
        at = text.size();
        return;
      }
      const size_t quote = size_t(static_cast<const char*>(hit) - text.data());
      size_t backslashes = 0;
      while (quote - backslashes > at && text[quote - backslashes - 1] == '\\') ++backslashes;
      at = quote + 1;
      if (backslashes % 2 == 0) return;
    }
  }
  void skipValue() {
    const char first = peek();
    if (first == '"') return skipString();
    if (first != '{' && first != '[') {  // a number, true, false or null
      while (more() && std::string_view(",}] \t\n\r").find(text[at]) == std::string_view::npos) ++at;
      return;
    }
    int depth = 0;
    do {
      const char c = text[at];
      if (c == '"') {
        skipString();
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') --depth;
      ++at;
    } while (more() && depth > 0);
  }
  // The members of the object at the cursor: `member(key)` with the cursor at the value, which it must pass.
  template <typename Member>
  void members(Member member) {
    if (peek() != '{') return skipValue();
    ++at;
    while (peek() == '"') {
      const size_t start = at;
      skipString();
      const std::string_view key = text.substr(start + 1, at - start - 2);  // the raw key: enough for ASCII names
      if (peek() == ':') ++at;
      member(key);
      if (peek() == ',') ++at;
    }
    if (peek() == '}') ++at;
  }
  template <typename Item>
  void items(Item item) {
    if (peek() != '[') return skipValue();
    ++at;
    while (more() && peek() != ']') {
      const size_t before = at;
      item();
      if (peek() == ',' || at == before) ++at;
    }
    if (peek() == ']') ++at;
  }
};

}  // namespace

std::string writerSourceJson(std::string_view json) {
  std::vector<std::pair<size_t, size_t>> cut;  // [begin, end) of each uri string, quotes included
  JsonCursor cursor{json};
  cursor.members([&](std::string_view key) {
    if (key != "buffers" && key != "images") return cursor.skipValue();
    cursor.items([&] {
      cursor.members([&](std::string_view field) {
        if (field != "uri" || cursor.peek() != '"') return cursor.skipValue();
        const size_t begin = cursor.at;
        cursor.skipString();
        cut.emplace_back(begin, cursor.at);
      });
    });
  });
  std::string out;
  size_t kept = json.size();
  for (const auto& [begin, end] : cut) kept -= end - begin - 2;
  out.reserve(kept);
  size_t from = 0;
  for (const auto& [begin, end] : cut) {
    out.append(json.substr(from, begin - from));
    out += "\"\"";
    from = end;
  }
  out.append(json.substr(from));
  return out;
}

// The input document with the Asset's data written into it: the Asset owns the binary data and every field that
// points into it (buffers, bufferViews, accessors, primitives' accessors, skins, animation channels and samplers,
// images' storage); objects it appended are written whole; everything else is the input's JSON as it was.
JsonTree mergeIntoSource(JsonTree source, const JsonTree& fresh) {
  for (std::string_view whole : {"buffers", "bufferViews", "accessors"}) {
    if (const JsonTree* value = fresh.find(whole)) {
      source.set(whole, *value);
    } else {
      source.erase(whole);
    }
  }
  mergeArray(source, fresh, "meshes", mergeMesh);
  // The hierarchy and transforms are the Asset's (optimize moves a mesh into a new child node, or folds a
  // dequantization into a node's transform); a node's name, camera, extras and extensions stay the source's.
  mergeArray(source, fresh, "nodes", [](JsonTree& node, const JsonTree& f) {
    takeFields(node, f, {"children", "mesh", "skin", "matrix", "translation", "rotation", "scale", "weights"});
  });
  mergeArray(source, fresh, "skins", [](JsonTree& skin, const JsonTree& f) {
    takeFields(skin, f, {"inverseBindMatrices", "skeleton", "joints"});
  });
  mergeArray(source, fresh, "animations", mergeAnimation);
  mergeArray(source, fresh, "images", [](JsonTree& image, const JsonTree& f) {
    takeFields(image, f, {"uri", "mimeType", "bufferView"});
  });
  for (size_t i = 0; i < fresh.keys.size(); ++i) {  // what the source document lacks comes from the Asset
    if (!source.find(fresh.keys[i])) source.set(fresh.keys[i], fresh.values[i]);
  }
  return source;
}

// The writer declares exactly what it wrote: every extension object present, plus KHR_mesh_quantization when an
// attribute's encoding needs it (that extension has no object of its own). Required: what the input required of
// those, and every registry row that is required when written (morphkit/model/extensions.h): KHR_mesh_quantization
// (an engine without it would misread the attributes), EXT_meshopt_compression (the fallback buffer has no data).
void declareExtensions(JsonTree& document, const Asset& asset) {
  std::vector<std::string> present;
  collectExtensionNames(document, present);
  const bool quantized = needsQuantization(asset);
  std::vector<std::string> used;
  auto add = [](std::vector<std::string>& list, const std::string& name) {
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  };
  for (const std::string& name : asset.extensions_used) {  // the input's order first
    if (std::find(present.begin(), present.end(), name) != present.end()) add(used, name);
  }
  for (const std::string& name : present) add(used, name);
  if (quantized) add(used, std::string(kMeshQuantizationExtension));
  std::vector<std::string> required;
  for (const std::string& name : asset.extensions_required) {
    if (std::find(used.begin(), used.end(), name) != used.end()) add(required, name);
  }
  for (const GltfExtension& row : gltfExtensions()) {  // in the registry's order
    const std::string name(row.name);
    if (row.required_when_written && std::find(used.begin(), used.end(), name) != used.end()) add(required, name);
  }
  auto list = [](const std::vector<std::string>& names) {
    JsonTree array = JsonTree::array();
    for (const std::string& name : names) array.items.push_back(JsonTree::string(name));
    return array;
  };
  if (used.empty()) {
    document.erase("extensionsUsed");
  } else {
    document.set("extensionsUsed", list(used));
  }
  if (required.empty()) {
    document.erase("extensionsRequired");
  } else {
    document.set("extensionsRequired", list(required));
  }
}

}  // namespace gltf_detail

bool attributeNeedsQuantization(std::string_view name, const Accessor& accessor, bool morph_target) {
  const ComponentType type = accessor.component_type;
  if (type == ComponentType::kFloat) return false;
  const bool normalized = accessor.normalized;
  auto starts = [&](std::string_view prefix) { return name.substr(0, prefix.size()) == prefix; };
  if (name == "POSITION" || name == "NORMAL" || name == "TANGENT") return true;
  if (starts("TEXCOORD_") || starts("COLOR_")) {  // §3.7.2.1 and §3.7.2.2
    if (!normalized) return true;
    if (type == ComponentType::kUnsignedByte || type == ComponentType::kUnsignedShort) return false;
    return !(morph_target && (type == ComponentType::kByte || type == ComponentType::kShort));
  }
  if (starts("JOINTS_")) return type != ComponentType::kUnsignedByte && type != ComponentType::kUnsignedShort;
  if (starts("WEIGHTS_")) {
    return !(normalized && (type == ComponentType::kUnsignedByte || type == ComponentType::kUnsignedShort));
  }
  return false;  // application-specific attributes (_NAME) have no rule
}

std::string documentParts(const Asset& source, std::span<const std::string_view> keys) {
  if (source.source_json.empty()) return {};
  Expected<gltf_detail::JsonTree> document = gltf_detail::parseJsonTree(source.source_json);
  if (!document || !document->isObject()) return {};
  gltf_detail::JsonTree parts = gltf_detail::JsonTree::object();
  for (std::string_view key : keys) {
    if (const gltf_detail::JsonTree* value = document->find(key)) parts.set(key, *value);
  }
  JsonWriter json;
  gltf_detail::writeJsonTree(json, parts);
  return json.str();
}

}  // namespace morphkit
