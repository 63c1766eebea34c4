// SPDX-License-Identifier: MIT
// loader.cpp — the load flow, .gltf / .glb → morphkit::Asset: the file mapped or read, the GLB split, the JSON
// parsed (simdjson DOM, then parser.cpp's parseDocument), buffers and images resolved, compressed geometry
// decoded, then validated (validate.cpp) once.
#include <algorithm>
#include <memory>
#include <string>

#include "compression.h"
#include "container.h"
#include "document_edit.h"
#include "gltf_fields.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/files.h"
#include "morphkit/model/json_syntax.h"
#include "parse_document.h"
#include "uri.h"
#include "validate_internal.h"

namespace morphkit {

using namespace gltf_detail;

namespace {

// `owner`, when given, holds `bytes` followed by at least SIMDJSON_PADDING readable bytes (loadAsset reads a
// .gltf that way): the JSON is then parsed in place instead of copied, and a .gltf file's bytes are released as
// soon as the DOM holds what it needs. A file of one huge data: URI peaks at about twice its size, not five times.
// `file`, when given, is `bytes` as loadAsset got them (morphkit/model/files.h mapFile): when it is a view of the
// mapped .glb, buffers[0] becomes a slice of it instead of a copy of the BIN chunk. A GLB's JSON chunk is parsed in
// place when at least SIMDJSON_PADDING bytes of the file follow it (the BIN chunk's), else copied.
Expected<Asset> loadFromMemory(std::span<const uint8_t> bytes, const std::filesystem::path& base_dir,
                               const LoadOptions& options, std::vector<uint8_t>* owner = nullptr,
                               const BufferBytes* file = nullptr) {
  Asset asset;
  asset.base_dir = base_dir;
  asset.keep_skin_weights = options.keep_skin_weights;
  GlbParts glb;
  const bool is_glb = isGlb(bytes);
  std::span<const uint8_t> json = bytes;
  if (is_glb) {
    auto parts = splitGlb(bytes);
    if (!parts) return parts.error();
    glb = parts.value();
    json = glb.json;
    if (file) glb.file = *file;
  }
  simdjson::dom::parser parser;
  const uint8_t* end = owner ? owner->data() + owner->size() : bytes.data() + bytes.size();
  const bool padded = size_t(end - (json.data() + json.size())) >= simdjson::SIMDJSON_PADDING;
  simdjson::padded_string copy;
  if (!padded) copy = simdjson::padded_string(reinterpret_cast<const char*>(json.data()), json.size());
  const uint8_t* text = padded ? json.data() : reinterpret_cast<const uint8_t*>(copy.data());
  element doc;
  if (auto error = parser.parse(text, json.size(), false).get(doc); error != simdjson::SUCCESS) {
    std::string message = jsonErrorWhere(std::string_view(reinterpret_cast<const char*>(json.data()), json.size())) +
                          (is_glb ? "GLB JSON chunk" : "JSON") + ": " + simdjson::error_message(error);
    // Text that does not even start like JSON is most likely a GLB with a damaged header: say so.
    size_t first = 0;
    while (first < json.size() &&
           (json[first] == ' ' || json[first] == '\t' || json[first] == '\r' || json[first] == '\n'))
      ++first;
    if (!is_glb && (first == json.size() || json[first] != '{')) {
      message += " (and not a GLB either: no 'glTF' magic, glTF 2.0 §4.4.2)";
    }
    return fail(Error::kInvalidJson, message);
  }
  object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS) {
    return fail(Error::kInvalidGltf, "the top-level JSON value must be an object (glTF 2.0 §5.17)");
  }
  CompressedData compressed;
  std::vector<std::string_view> data_uris;
  MORPHKIT_TRY(parseDocument(root, asset, compressed, data_uris));
  // The writer's copy of the document, without the data: URIs it never writes back (document_edit.h).
  const std::string_view json_text(reinterpret_cast<const char*>(json.data()), json.size());
  const bool data_uri =
      std::any_of(data_uris.begin(), data_uris.end(), [](std::string_view u) { return !u.empty(); }) ||
      std::any_of(asset.images.begin(), asset.images.end(), [](const Image& image) { return isDataUri(image.uri); });
  asset.source_json = data_uri ? gltf_detail::writerSourceJson(json_text) : std::string(json_text);
  if (!is_glb) {  // the DOM holds every string now; a GLB still needs its BIN chunk
    copy = simdjson::padded_string();
    if (owner) std::vector<uint8_t>().swap(*owner);
  }
  const std::vector<uint8_t> placeholders = meshoptPlaceholders(asset, compressed, is_glb && glb.has_bin);
  MORPHKIT_TRY(resolveBuffers(asset, is_glb ? &glb : nullptr, data_uris, options, placeholders));
  MORPHKIT_TRY(resolveImages(asset, options));
  // The budget (morphkit/model/budget.h) before decompression too: what the accessors will decode to is known from
  // the JSON, so an over-budget file is refused before its compressed streams are expanded. (Uncompressed files
  // meet it inside validateAsset, after the structural rules, whose messages are more precise.)
  const bool compressed_geometry =
      !compressed.draco.empty() || std::any_of(compressed.meshopt_views.begin(), compressed.meshopt_views.end(),
                                               [](const MeshoptView& v) { return v.present; });
  if (compressed_geometry) MORPHKIT_TRY(checkBudget(estimateCost(asset), options.budget));
  // Compressed geometry becomes plain bytes before the validation pass, which then checks it like any other.
  MORPHKIT_TRY(decodeMeshopt(asset, compressed, placeholders, options));
  MORPHKIT_TRY(decodeDraco(asset, compressed, options));
  MORPHKIT_TRY(validateAsset(asset, options.budget));  // the budget again, then the rules that read data
  validate_detail::noteIgnoredSamplers(asset);
  return asset;
}

Expected<Asset> loadFromFile(const std::filesystem::path& path, const LoadOptions& options) {
  std::filesystem::path base = path.parent_path();
  if (base.empty()) base = ".";
  if (options.map_files) {
    // A .glb is mapped and its BIN chunk stays in the mapping (zero copy). A small file comes back read, not
    // mapped (mapFile's kMapMinBytes) and is loaded from those bytes. A mapped .gltf is dropped and read below
    // instead, to be parsed in place and released early like any .gltf.
    auto file = mapFile(path, options.max_buffer_bytes);
    if (!file) return file.error();
    if (!file->isView() || isGlb(*file)) {
      auto asset = loadFromMemory(file->span(), base, options, nullptr, &file.value());
      if (asset) asset->path = path;
      return asset;
    }
  }
  auto bytes = readFile(path, options.max_buffer_bytes, simdjson::SIMDJSON_PADDING);
  if (!bytes) return bytes.error();
  const size_t size = bytes->size();
  if (isGlb(*bytes)) {
    // A .glb read, not mapped, is held like a mapping: one shared block that buffers[0] is a slice of, so its BIN
    // chunk is not copied out either (on a machine whose page faults are slow, reading is the faster of the two:
    // "Zero-copy loading" in the journal, git show 94131b8:docs/PERFORMANCE.md).
    auto block = std::make_shared<const std::vector<uint8_t>>(std::move(bytes).value());
    const BufferBytes file = BufferBytes::view(block, std::span<const uint8_t>(block->data(), size));
    auto asset = loadFromMemory(file.span(), base, options, nullptr, &file);
    if (asset) asset->path = path;
    return asset;
  }
  bytes->resize(size + simdjson::SIMDJSON_PADDING);  // within the reserved capacity: no copy
  auto asset = loadFromMemory(std::span<const uint8_t>(bytes->data(), size), base, options, &bytes.value());
  if (asset) asset->path = path;
  return asset;
}

}  // namespace

Expected<Asset> loadAssetFromMemory(std::span<const uint8_t> bytes, const std::filesystem::path& base_dir,
                                    const LoadOptions& options) {
  return catchOutOfMemory("loading", [&] { return loadFromMemory(bytes, base_dir, options); });
}

Expected<Asset> loadAsset(const std::filesystem::path& path, const LoadOptions& options) {
  return catchOutOfMemory("loading", [&] { return loadFromFile(path, options); });
}

}  // namespace morphkit
