// SPDX-License-Identifier: MIT
// GLB chunks and buffer/image resolution (container.h): the loader's steps that read bytes, not JSON.
#include "container.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>

#include "json_tree.h"
#include "morphkit/model/files.h"
#include "morphkit/model/text.h"
#include "uri.h"

namespace morphkit::gltf_detail {

namespace {

// GLB container (glTF 2.0 §4.4): 12-byte header, then chunks of (length, type, data).
constexpr uint32_t kGlbMagic = 0x46546C67;   // "glTF"
constexpr uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942;   // "BIN\0"

uint32_t readU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

Expected<BufferBytes> fileBytes(const std::filesystem::path& path, const LoadOptions& options) {
  if (options.map_files) return mapFile(path, options.max_buffer_bytes);
  auto bytes = readFile(path, options.max_buffer_bytes);
  if (!bytes) return bytes.error();
  return BufferBytes(std::move(bytes).value());
}

bool isGlb(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && readU32(bytes.data()) == kGlbMagic;
}

Expected<GlbParts> splitGlb(std::span<const uint8_t> bytes) {
  if (bytes.size() < 12)
    return fail(Error::kInvalidGlb, "GLB header: file is " + std::to_string(bytes.size()) +
                                        " bytes, shorter than the 12-byte header (glTF 2.0 §4.4.2)");
  if (readU32(bytes.data()) != kGlbMagic)
    return fail(Error::kInvalidGlb, "GLB header: magic is not 'glTF' (glTF 2.0 §4.4.2)");
  uint32_t version = readU32(bytes.data() + 4);
  if (version != 2)
    return fail(Error::kInvalidGlb, "GLB header: version " + std::to_string(version) + " is not 2 (glTF 2.0 §4.4.2)");
  uint32_t length = readU32(bytes.data() + 8);
  if (length > bytes.size()) {
    return fail(Error::kInvalidGlb, "GLB header: declares " + std::to_string(length) + " bytes but the file has " +
                                        std::to_string(bytes.size()) + " (truncated? glTF 2.0 §4.4.2)");
  }
  GlbParts parts;
  size_t offset = 12;
  int chunk_index = 0;
  while (offset < length) {
    if (length - offset < 8)
      return fail(Error::kInvalidGlb,
                  "GLB chunk " + std::to_string(chunk_index) + ": truncated chunk header (glTF 2.0 §4.4.3)");
    uint32_t chunk_length = readU32(bytes.data() + offset);
    uint32_t chunk_type = readU32(bytes.data() + offset + 4);
    offset += 8;
    if (chunk_length > length - offset) {
      return fail(Error::kInvalidGlb, "GLB chunk " + std::to_string(chunk_index) + ": length " +
                                          std::to_string(chunk_length) +
                                          " runs past the end of the file (glTF 2.0 §4.4.3)");
    }
    std::span<const uint8_t> data = bytes.subspan(offset, chunk_length);
    if (chunk_index == 0) {
      if (chunk_type != kChunkJson)
        return fail(Error::kInvalidGlb, "GLB chunk 0: the first chunk must be JSON (glTF 2.0 §4.4.3.2)");
      parts.json = data;
    } else if (chunk_index == 1 && chunk_type == kChunkBin) {
      parts.bin = data;
      parts.has_bin = true;
    }  // other chunk types are ignored (§4.4.3)
    offset += (size_t(chunk_length) + 3) & ~size_t(3);
    ++chunk_index;
  }
  if (chunk_index == 0) return fail(Error::kInvalidGlb, "GLB: no JSON chunk (glTF 2.0 §4.4.3)");
  return parts;
}

// Fills every Buffer::data: the GLB BIN chunk, a data: URI, or an external file inside the asset's folder.
// Declared lengths are checked against the bytes present before anything of that size is allocated.
// Buffers flagged in `decoded_later` (EXT_meshopt_compression fallbacks and placeholders) are left empty.
Status resolveBuffers(Asset& asset, const GlbParts* glb, const std::vector<std::string_view>& data_uris,
                      const LoadOptions& options, const std::vector<uint8_t>& decoded_later) {
  for (size_t i = 0; i < asset.buffers.size(); ++i) {
    Buffer& buffer = asset.buffers[i];
    std::string where = "buffers[" + std::to_string(i) + "]";
    if (decoded_later[i]) continue;
    if (buffer.byte_length > options.max_buffer_bytes) {
      return fail(Error::kTooLarge, where + ".byteLength: " + std::to_string(buffer.byte_length) +
                                        " bytes exceeds the limit of " + std::to_string(options.max_buffer_bytes));
    }
    if (buffer.uri.empty()) {
      if (i != 0 || !glb || !glb->has_bin) {
        return fail(Error::kInvalidGltf, where +
                                             ": has no uri and is not the GLB-stored buffer (glTF 2.0 §3.6.1.2: only "
                                             "buffers[0], without a uri, refers to the GLB BIN chunk)");
      }
      // §3.6.1.2 / §4.4.3.3: the BIN chunk may be up to 3 bytes longer than byteLength (padding), never shorter.
      if (glb->bin.size() < buffer.byte_length) {
        return fail(Error::kTooLarge, where + ".byteLength: declares " + std::to_string(buffer.byte_length) +
                                          " bytes but the GLB BIN chunk holds " + std::to_string(glb->bin.size()));
      }
      if (glb->file.isView()) {  // no copy: the buffer shares the file's mapping
        buffer.data = glb->file.slice(size_t(glb->bin.data() - glb->file.data()), buffer.byte_length);
      } else {
        buffer.data.assign(glb->bin.begin(), glb->bin.begin() + buffer.byte_length);
      }
      continue;
    }
    if (isDataUri(buffer.uri)) {
      const std::string_view uri = data_uris[i];
      if (dataUriDecodedSize(uri) < buffer.byte_length) {
        return fail(Error::kTooLarge, where + ".byteLength: declares " + std::to_string(buffer.byte_length) +
                                          " bytes but its data: URI is too short to hold them");
      }
      auto decoded = decodeDataUri(uri);
      if (!decoded) return fail(decoded.error().code, where + ".uri: " + decoded.error().message);
      buffer.data = std::move(decoded.value());
    } else {
      auto path = resolveUri(buffer.uri, asset.base_dir, options.allow_external_paths);
      if (!path) return fail(path.error().code, where + ".uri: " + path.error().message);
      std::error_code ec;
      auto size = std::filesystem::file_size(*path, ec);
      if (ec)
        return fail(Error::kFileNotFound,
                    where + ".uri: " + quote(buffer.uri) + " not found (" + printable(path->string()) + ")");
      if (size < buffer.byte_length) {
        return fail(Error::kTooLarge, where + ".byteLength: declares " + std::to_string(buffer.byte_length) +
                                          " bytes but " + quote(buffer.uri) + " has " + std::to_string(size));
      }
      auto bytes = fileBytes(*path, options);
      if (!bytes) return fail(bytes.error().code, where + ".uri: " + quote(buffer.uri) + ": " + bytes.error().message);
      buffer.data = std::move(bytes.value());
    }
    if (buffer.data.size() < buffer.byte_length) {
      return fail(Error::kTooLarge, where + ".byteLength: declares " + std::to_string(buffer.byte_length) +
                                        " bytes but only " + std::to_string(buffer.data.size()) + " are present");
    }
    buffer.data.resize(buffer.byte_length);  // never read past the declared length (a view stays a view)
  }
  return Ok{};
}

// Fills Image::data for every `uri` image with the buffers' rules and options (glTF 2.0 §3.8.3: an image is a
// bufferView or a URI), so that no later layer opens a file. A URI that is refused (outside the folder, a scheme,
// a bad %-escape) fails the load as a buffer's does; a missing file or bad base64 only sets data_error, since the
// image matters to a renderer alone, which warns and draws with the material's factors.
// An encoded image larger than this is not read (the renderer's decoder refuses far smaller ones anyway).
constexpr size_t kMaxImageFileBytes = size_t(256) << 20;

Status resolveImages(Asset& asset, const LoadOptions& options) {
  for (size_t i = 0; i < asset.images.size(); ++i) {
    Image& image = asset.images[i];
    if (image.uri.empty()) continue;
    if (isDataUri(image.uri)) {
      auto decoded = decodeDataUri(image.uri);
      if (decoded)
        image.data = std::move(decoded.value());
      else
        image.data_error = decoded.error().message;
      continue;
    }
    auto path = resolveUri(image.uri, asset.base_dir, options.allow_external_paths);
    if (!path) return fail(path.error().code, "images[" + std::to_string(i) + "].uri: " + path.error().message);
    auto bytes = readFile(*path, std::min(options.max_buffer_bytes, kMaxImageFileBytes));
    if (bytes)
      image.data = std::move(bytes.value());
    else
      image.data_error = quote(image.uri) + ": " + bytes.error().message;
  }
  return Ok{};
}

}  // namespace morphkit::gltf_detail

namespace morphkit {

std::vector<uint64_t> glbStoredViewBytes(std::span<const uint8_t> glb) {
  Expected<gltf_detail::GlbParts> parts = gltf_detail::splitGlb(glb);
  if (!parts) return {};
  Expected<gltf_detail::JsonTree> document = gltf_detail::parseJsonTree(
      std::string_view(reinterpret_cast<const char*>(parts->json.data()), parts->json.size()));
  if (!document) return {};
  const gltf_detail::JsonTree* views = document->find("bufferViews");
  if (!views || !views->isArray()) return {};
  auto number = [](const gltf_detail::JsonTree* value) -> uint64_t {
    if (!value) return 0;
    if (value->kind == gltf_detail::JsonTree::Kind::kUint) return value->uint_value;
    return uint64_t(std::max<int64_t>(0, value->int_value));
  };
  std::vector<uint64_t> stored;
  for (const gltf_detail::JsonTree& view : views->items) {
    uint64_t bytes = number(view.find("byteLength"));
    if (const gltf_detail::JsonTree* extensions = view.find("extensions")) {
      if (const gltf_detail::JsonTree* meshopt = extensions->find("EXT_meshopt_compression")) {
        bytes = number(meshopt->find("byteLength"));
      }
    }
    stored.push_back(bytes);
  }
  return stored;
}

}  // namespace morphkit
