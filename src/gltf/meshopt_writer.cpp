// SPDX-License-Identifier: MIT
// EXT_meshopt_compression on write (morphkit/gltf/glb_writer.h, GlbWriteOptions): the named views encoded by
// meshoptimizer into the BIN chunk, decoding into a data-less fallback buffer.
#include "meshopt_writer.h"

#include <meshoptimizer.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "morphkit/io/json_writer.h"

namespace morphkit::gltf_detail {
namespace {

size_t padTo4(std::vector<uint8_t>& bytes) {
  bytes.resize(alignUp(bytes.size(), 4), 0);
  return bytes.size();
}

Expected<std::vector<uint8_t>> encodeView(std::span<const uint8_t> bytes, const MeshoptViewEncoding& encoding,
                                          uint32_t index) {
  const std::string where = "bufferViews[" + std::to_string(index) + "]: EXT_meshopt_compression: ";
  const size_t stride = encoding.stride;
  if (encoding.mode == MeshoptMode::kAttributes) {
    if (stride == 0 || stride % 4 != 0 || stride > 256 || bytes.size() % stride != 0) {
      return fail(Error::kInvalidArgument, where +
                                               "ATTRIBUTES needs a stride that is a multiple of 4, at most 256, "
                                               "dividing the view's length");
    }
    const size_t count = bytes.size() / stride;
    std::vector<uint8_t> out(meshopt_encodeVertexBufferBound(count, stride));
    out.resize(meshopt_encodeVertexBuffer(out.data(), out.size(), bytes.data(), count, stride));
    return out;
  }
  if ((stride != 2 && stride != 4) || bytes.size() % (3 * stride) != 0) {
    return fail(Error::kInvalidArgument, where + "TRIANGLES needs 2- or 4-byte indices, a multiple of 3 of them");
  }
  const size_t count = bytes.size() / stride;
  std::vector<uint32_t> indices(count);
  uint32_t vertices = 0;
  for (size_t i = 0; i < count; ++i) {
    if (stride == 2) {
      uint16_t v;
      std::memcpy(&v, bytes.data() + 2 * i, 2);
      indices[i] = v;
    } else {
      std::memcpy(&indices[i], bytes.data() + 4 * i, 4);
    }
    vertices = std::max(vertices, indices[i] + 1);
  }
  meshopt_encodeIndexVersion(1);  // every EXT_meshopt_compression decoder reads version 1
  std::vector<uint8_t> out(meshopt_encodeIndexBufferBound(count, vertices));
  out.resize(meshopt_encodeIndexBuffer(out.data(), out.size(), indices.data(), count));
  return out;
}

}  // namespace

Expected<PackedViews> packViews(const Asset& asset, const GlbWriteOptions& options) {
  PackedViews packed;
  const size_t views = asset.buffer_views.size();
  packed.offset.assign(views, 0);
  packed.encoded_offset.assign(views, 0);
  packed.encoded_length.assign(views, 0);
  packed.encoding.assign(views, nullptr);
  for (const MeshoptViewEncoding& encoding : options.meshopt) {
    if (encoding.view >= views) {
      return fail(Error::kInvalidArgument,
                  "EXT_meshopt_compression: bufferView " + std::to_string(encoding.view) + " does not exist");
    }
    packed.encoding[encoding.view] = &encoding;
  }
  for (size_t i = 0; i < views; ++i) {
    const BufferView& view = asset.buffer_views[i];
    if (view.buffer >= asset.buffers.size() ||
        asset.buffers[view.buffer].data.size() < view.byte_offset + view.byte_length) {
      return fail(Error::kInvalidArgument, "bufferViews[" + std::to_string(i) + "]: its bytes are not in its buffer");
    }
    const std::span<const uint8_t> bytes(asset.buffers[view.buffer].data.data() + view.byte_offset, view.byte_length);
    if (const MeshoptViewEncoding* encoding = packed.encoding[i]) {
      Expected<std::vector<uint8_t>> encoded = encodeView(bytes, *encoding, uint32_t(i));
      if (!encoded) return encoded.error();
      packed.encoded_offset[i] = padTo4(packed.bin);
      packed.encoded_length[i] = encoded->size();
      packed.bin.insert(packed.bin.end(), encoded->begin(), encoded->end());
      packed.fallback_length = alignUp(packed.fallback_length, 4);
      packed.offset[i] = packed.fallback_length;
      packed.fallback_length += view.byte_length;
    } else {
      packed.offset[i] = padTo4(packed.bin);
      packed.bin.insert(packed.bin.end(), bytes.begin(), bytes.end());
    }
  }
  return packed;
}

// buffers and bufferViews of a file with EXT_meshopt_compression views, replacing the fresh document's.
void writePackedViews(JsonTree& document, const Asset& asset, const PackedViews& packed) {
  JsonWriter json;
  json.beginObject();
  json.key("buffers").beginArray();
  json.beginObject().field("byteLength", uint64_t(packed.bin.size())).endObject();
  json.beginObject().field("byteLength", uint64_t(packed.fallback_length));
  json.key("extensions").beginObject().key("EXT_meshopt_compression").beginObject().field("fallback", true);
  json.endObject().endObject().endObject();
  json.endArray();
  json.key("bufferViews").beginArray();
  for (size_t i = 0; i < asset.buffer_views.size(); ++i) {
    const BufferView& view = asset.buffer_views[i];
    const MeshoptViewEncoding* encoding = packed.encoding[i];
    json.beginObject();
    if (!view.name.empty()) json.field("name", std::string_view(view.name));
    json.field("buffer", encoding ? 1 : 0);
    if (packed.offset[i] != 0) json.field("byteOffset", uint64_t(packed.offset[i]));
    json.field("byteLength", uint64_t(view.byte_length));
    if (view.byte_stride != 0) json.field("byteStride", view.byte_stride);
    if (view.target != 0) json.field("target", view.target);
    if (encoding) {
      json.key("extensions").beginObject().key("EXT_meshopt_compression").beginObject();
      json.field("buffer", 0);
      if (packed.encoded_offset[i] != 0) json.field("byteOffset", uint64_t(packed.encoded_offset[i]));
      json.field("byteLength", uint64_t(packed.encoded_length[i]));
      json.field("byteStride", encoding->stride);
      json.field("count", uint64_t(view.byte_length / encoding->stride));
      json.field("mode", encoding->mode == MeshoptMode::kAttributes ? "ATTRIBUTES" : "TRIANGLES");
      json.endObject().endObject();
    }
    json.endObject();
  }
  json.endArray();
  json.endObject();
  Expected<JsonTree> parts = parseJsonTree(json.str());
  if (!parts) return;  // the writer's own JSON always parses
  for (size_t i = 0; i < parts->keys.size(); ++i) document.set(parts->keys[i], parts->values[i]);
}

}  // namespace morphkit::gltf_detail
