// SPDX-License-Identifier: MIT
// KHR_draco_mesh_compression
// (https://github.com/KhronosGroup/glTF/tree/main/extensions/2.0/Khronos/KHR_draco_mesh_compression): each compressed
// primitive is decoded with Draco (Debian's libdraco) at load time; its attribute and index accessors are pointed at
// the decoded bytes (one new buffer, one bufferView per accessor), so the validation pass and everything after it see a
// plain indexed primitive. Morph targets stay plain accessors, as the extension specifies, and index the decoded
// vertices in Draco's point order.
#include <draco/compression/config/compression_shared.h>
#include <draco/compression/decode.h>
#include <draco/compression/point_cloud/point_cloud_decoder.h>
#include <draco/core/varint_decoding.h>
#include <draco/mesh/mesh.h>
#include <draco/metadata/geometry_metadata.h>
#include <draco/metadata/metadata_decoder.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "compression.h"

namespace morphkit::gltf_detail {

namespace {

constexpr const char* kSection = "KHR_draco_mesh_compression";

Failure invalidDraco(const std::string& where, const std::string& what) {
  return fail(Error::kInvalidGltf, where + ": " + what + " (" + kSection + ")");
}

// The distance between decoded elements of an accessor: its element size rounded up to 4 bytes. The decoded data
// is the vertex data the file describes, so it follows glTF 2.0 §3.6.2.4 like any other: "each element of a vertex
// attribute MUST be aligned to 4-byte boundaries inside a bufferView". A normalized i16 VEC3 POSITION (6 bytes, as
// `gltf-transform draco` writes after quantizing) or a u8 VEC3 COLOR_0 is laid out 8 or 4 bytes apart, with a
// byteStride, as a writer of plain glTF would; a load → write round trip then writes a valid file too.
size_t decodedStride(const Accessor& accessor) {
  return (elementSize(accessor.component_type, accessor.type) + 3) & ~size_t(3);
}

// Appends `count` elements converted from the Draco attribute to the accessor's component type, `stride` bytes
// apart (the padding is zero).
template <class T>
bool appendConverted(const draco::PointAttribute& attribute, uint32_t count, uint32_t components, size_t stride,
                     std::vector<uint8_t>& out) {
  const size_t start = out.size();
  out.resize(start + size_t(count) * stride, 0);
  T value[16];
  for (uint32_t p = 0; p < count; ++p) {
    const draco::AttributeValueIndex index = attribute.mapped_index(draco::PointIndex(p));
    if (index.value() >= attribute.size()) return false;  // a corrupt point map
    if (!attribute.ConvertValue<T>(index, int8_t(components), value)) return false;
    std::memcpy(out.data() + start + size_t(p) * stride, value, components * sizeof(T));
  }
  return true;
}

bool appendAttribute(const draco::PointAttribute& attribute, const Accessor& accessor, uint32_t count,
                     std::vector<uint8_t>& out) {
  const uint32_t components = componentCount(accessor.type);
  const size_t stride = decodedStride(accessor);
  switch (accessor.component_type) {
    case ComponentType::kFloat:
      return appendConverted<float>(attribute, count, components, stride, out);
    case ComponentType::kByte:
      return appendConverted<int8_t>(attribute, count, components, stride, out);
    case ComponentType::kUnsignedByte:
      return appendConverted<uint8_t>(attribute, count, components, stride, out);
    case ComponentType::kShort:
      return appendConverted<int16_t>(attribute, count, components, stride, out);
    case ComponentType::kUnsignedShort:
      return appendConverted<uint16_t>(attribute, count, components, stride, out);
    case ComponentType::kUnsignedInt:
      return appendConverted<uint32_t>(attribute, count, components, stride, out);
  }
  return false;
}

// One bufferView of the decoded buffer per accessor, 4-byte aligned (glTF 2.0 §3.6.2.4); `stride` is its
// byteStride (0: tightly packed, for indices and elements whose size is a multiple of 4).
void pointAccessorAt(Asset& asset, uint32_t accessor, uint32_t buffer, size_t offset, size_t length,
                     uint32_t stride = 0) {
  BufferView view;
  view.name = "KHR_draco_mesh_compression decoded";
  view.buffer = buffer;
  view.byte_offset = offset;
  view.byte_length = length;
  view.byte_stride = stride;
  asset.buffer_views.push_back(view);
  Accessor& a = asset.accessors[accessor];
  a.buffer_view = uint32_t(asset.buffer_views.size() - 1);
  a.byte_offset = 0;
}

// The counts a Draco stream declares before its connectivity is decoded. libdraco sizes its corner table and
// vertex arrays from them before it reads a single face, so a 200-byte stream can claim 10^8 faces and take
// gigabytes. Reading them first lets the loader compare them with the accessors, which the budget has already
// bounded. The layout follows the Draco bitstream specification (header, optional metadata, connectivity
// header); the metadata is skipped with libdraco's own decoder so that both read it the same way.
struct DracoCounts {
  uint32_t faces = 0;
  uint32_t vertices = 0;  // edgebreaker: encoded vertices; sequential: points
  bool edgebreaker = false;
};

bool readCount(draco::DecoderBuffer& in, bool fixed_width, uint32_t& out) {
  return fixed_width ? in.Decode(&out) : draco::DecodeVarint(&out, &in);
}

// Nullopt when the stream is too corrupt to read its counts (libdraco then reports the stream itself).
std::optional<DracoCounts> readDracoCounts(const uint8_t* data, size_t size) {
  draco::DecoderBuffer in;
  in.Init(reinterpret_cast<const char*>(data), size);
  draco::DracoHeader header;
  if (!draco::PointCloudDecoder::DecodeHeader(&in, &header).ok()) return std::nullopt;
  if (header.encoder_type != draco::TRIANGULAR_MESH) return std::nullopt;
  const uint16_t version = DRACO_BITSTREAM_VERSION(header.version_major, header.version_minor);
  in.set_bitstream_version(version);
  if (version >= DRACO_BITSTREAM_VERSION(1, 3) && (header.flags & METADATA_FLAG_MASK)) {
    draco::GeometryMetadata metadata;
    draco::MetadataDecoder decoder;
    if (!decoder.DecodeGeometryMetadata(&in, &metadata)) return std::nullopt;
  }
  DracoCounts counts;
  uint32_t ignored = 0;
  if (header.encoder_method == draco::MESH_SEQUENTIAL_ENCODING) {
    const bool fixed = version < DRACO_BITSTREAM_VERSION(2, 2);
    if (!readCount(in, fixed, counts.faces) || !readCount(in, fixed, counts.vertices)) return std::nullopt;
    return counts;
  }
  if (header.encoder_method != draco::MESH_EDGEBREAKER_ENCODING) return std::nullopt;
  counts.edgebreaker = true;
  uint8_t traversal = 0;
  if (!in.Decode(&traversal)) return std::nullopt;
  const bool fixed = version < DRACO_BITSTREAM_VERSION(2, 0);
  if (version < DRACO_BITSTREAM_VERSION(2, 2) && !readCount(in, fixed, ignored)) return std::nullopt;  // new vertices
  if (!readCount(in, fixed, counts.vertices) || !readCount(in, fixed, counts.faces)) return std::nullopt;
  return counts;
}

// The decoded mesh must fill the primitive's accessors exactly (checked after decoding), so a stream that declares
// more faces than the indices accessor holds, or more points than its attributes, can be refused before decoding
// without refusing a valid file. Edgebreaker's encoded vertices are at most its corners.
Status checkDracoCounts(const Asset& asset, const DracoPrimitive& d, const Primitive& primitive, const uint8_t* data,
                        size_t size, const std::string& where) {
  const std::optional<DracoCounts> counts = readDracoCounts(data, size);
  if (!counts) return Ok{};
  const uint64_t index_count = asset.accessors[primitive.indices].count;
  uint64_t point_limit = 0;
  for (const Attribute& mapped : d.attributes) {
    const uint32_t accessor = findAttribute(primitive.attributes, mapped.name);
    if (accessor != kNone && accessor < asset.accessors.size()) {
      point_limit = std::max<uint64_t>(point_limit, asset.accessors[accessor].count);
    }
  }
  const uint64_t vertex_limit = counts->edgebreaker || point_limit == 0 ? index_count : point_limit;
  const std::string stream = "bufferView " + std::to_string(d.buffer_view) + ": the Draco stream declares ";
  if (uint64_t(counts->faces) * 3 > index_count) {
    return invalidDraco(where, stream + std::to_string(counts->faces) + " faces but indices accessor " +
                                   std::to_string(primitive.indices) + " holds " + std::to_string(index_count) +
                                   " indices");
  }
  if (counts->vertices > vertex_limit) {
    return invalidDraco(where, stream + std::to_string(counts->vertices) +
                                   (counts->edgebreaker ? " vertices" : " points") +
                                   " but the primitive's accessors hold " + std::to_string(vertex_limit));
  }
  return Ok{};
}

Expected<std::unique_ptr<draco::Mesh>> decodeMesh(const Asset& asset, const DracoPrimitive& d,
                                                  const Primitive& primitive, const std::string& where) {
  if (d.buffer_view >= asset.buffer_views.size()) {
    return invalidDraco(where + ".bufferView", std::to_string(d.buffer_view) + " is out of range (" +
                                                   std::to_string(asset.buffer_views.size()) + " bufferViews exist)");
  }
  const BufferView& view = asset.buffer_views[d.buffer_view];
  if (view.buffer >= asset.buffers.size()) {
    return invalidDraco(where + ".bufferView",
                        "bufferView " + std::to_string(d.buffer_view) + " refers to a missing buffer");
  }
  const Buffer& buffer = asset.buffers[view.buffer];
  if (view.byte_offset > buffer.data.size() || view.byte_length > buffer.data.size() - view.byte_offset) {
    return invalidDraco(where + ".bufferView", "bufferView " + std::to_string(d.buffer_view) + " exceeds buffer " +
                                                   std::to_string(view.buffer) + " (glTF 2.0 §3.6.1)");
  }
  const uint8_t* stream = buffer.data.data() + view.byte_offset;
  MORPHKIT_TRY(checkDracoCounts(asset, d, primitive, stream, view.byte_length, where));
  draco::DecoderBuffer input;
  input.Init(reinterpret_cast<const char*>(stream), view.byte_length);
  draco::Decoder decoder;
  // Draco reports errors through StatusOr, but a corrupt stream can still make it allocate absurd sizes: an
  // exception must not cross the library boundary.
  try {
    auto decoded = decoder.DecodeMeshFromBuffer(&input);
    if (!decoded.ok()) {
      return invalidDraco(where, "bufferView " + std::to_string(d.buffer_view) +
                                     ": Draco stream is corrupt or unsupported (" +
                                     decoded.status().error_msg_string() + ")");
    }
    std::unique_ptr<draco::Mesh> mesh = std::move(decoded).value();
    if (!mesh)
      return invalidDraco(where, "bufferView " + std::to_string(d.buffer_view) + ": Draco stream holds no mesh");
    return mesh;
  } catch (const std::bad_alloc&) {
    return fail(Error::kOutOfMemory, where + ": bufferView " + std::to_string(d.buffer_view) +
                                         ": Draco ran out of memory decoding the stream (corrupt?)");
  } catch (const std::exception& e) {
    return invalidDraco(where, "bufferView " + std::to_string(d.buffer_view) + ": Draco failed (" + e.what() + ")");
  }
}

Status decodePrimitive(Asset& asset, const DracoPrimitive& d, std::vector<uint8_t>& bytes, uint32_t buffer,
                       std::vector<uint8_t>& claimed) {
  const std::string prim = "meshes[" + std::to_string(d.mesh) + "].primitives[" + std::to_string(d.primitive) + "]";
  const std::string where = prim + ".extensions.KHR_draco_mesh_compression";
  const Primitive& primitive = asset.meshes[d.mesh].primitives[d.primitive];
  if (primitive.indices == kNone)
    return invalidDraco(prim + ".indices", "a Draco-compressed primitive must have indices");
  if (primitive.indices >= asset.accessors.size()) return Ok{};  // the validation pass reports the bad index
  Expected<std::unique_ptr<draco::Mesh>> decoded = decodeMesh(asset, d, primitive, where);
  if (!decoded) return decoded.error();
  const draco::Mesh& mesh = **decoded;
  const uint32_t points = mesh.num_points();

  // Attributes: each one the extension maps must be an attribute of the primitive, and its accessor must agree
  // with the decoded attribute (count = points, components, an integer type for integer accessors).
  for (const Attribute& mapped : d.attributes) {
    const uint32_t accessor_index = findAttribute(primitive.attributes, mapped.name);
    const std::string here = where + ".attributes." + mapped.name;
    if (accessor_index == kNone) return invalidDraco(here, "names an attribute the primitive does not have");
    if (accessor_index >= asset.accessors.size()) return Ok{};  // the validation pass reports the bad index
    if (claimed[accessor_index]) {
      return invalidDraco(
          here, "accessor " + std::to_string(accessor_index) + " is already filled by another Draco primitive");
    }
    const draco::PointAttribute* attribute = mesh.GetAttributeByUniqueId(mapped.accessor);
    if (!attribute)
      return invalidDraco(here, "Draco attribute id " + std::to_string(mapped.accessor) + " is not in the stream");
    const Accessor& accessor = asset.accessors[accessor_index];
    const std::string what = "accessor " + std::to_string(accessor_index) + " (" + accessorTypeName(accessor.type) +
                             " " + componentTypeName(accessor.component_type) + ", count " +
                             std::to_string(accessor.count) + ")";
    if (accessor.count != points) {
      return invalidDraco(here, what + " disagrees with the " + std::to_string(points) + " decoded points");
    }
    if (componentCount(accessor.type) != attribute->num_components() || componentCount(accessor.type) > 16) {
      return invalidDraco(here, what + " disagrees with the decoded attribute's " +
                                    std::to_string(attribute->num_components()) + " components");
    }
    const bool float_source =
        attribute->data_type() == draco::DT_FLOAT32 || attribute->data_type() == draco::DT_FLOAT64;
    if (float_source && accessor.component_type != ComponentType::kFloat) {
      return invalidDraco(here, what + " is an integer type but the decoded attribute is floating point");
    }
    bytes.resize((bytes.size() + 3) & ~size_t(3), 0);
    const size_t offset = bytes.size();
    if (!appendAttribute(*attribute, accessor, points, bytes)) {
      return invalidDraco(here, "decoded values do not fit " + what + " (or the stream's point map is corrupt)");
    }
    const size_t stride = decodedStride(accessor);
    const bool padded = stride != elementSize(accessor.component_type, accessor.type);
    pointAccessorAt(asset, accessor_index, buffer, offset, bytes.size() - offset, padded ? uint32_t(stride) : 0);
    claimed[accessor_index] = 1;
  }

  // Indices: triangles in Draco's face order.
  {
    const Accessor& accessor = asset.accessors[primitive.indices];
    const std::string here = prim + ".indices";
    const size_t count = size_t(mesh.num_faces()) * 3;
    if (accessor.count != count || accessor.type != AccessorType::kScalar) {
      return invalidDraco(here, "accessor " + std::to_string(primitive.indices) + " (" +
                                    accessorTypeName(accessor.type) + ", count " + std::to_string(accessor.count) +
                                    ") disagrees with the " + std::to_string(count) + " decoded indices");
    }
    const uint32_t size = componentSize(accessor.component_type);
    if (accessor.component_type != ComponentType::kUnsignedByte &&
        accessor.component_type != ComponentType::kUnsignedShort &&
        accessor.component_type != ComponentType::kUnsignedInt) {
      return invalidDraco(here, "indices must be unsigned byte, short or int (glTF 2.0 §3.7.2.1)");
    }
    const uint64_t limit = size == 1 ? 0xFFu : size == 2 ? 0xFFFFu : 0xFFFFFFFFu;
    bytes.resize((bytes.size() + 3) & ~size_t(3), 0);
    const size_t offset = bytes.size();
    bytes.resize(offset + count * size);
    for (uint32_t f = 0; f < mesh.num_faces(); ++f) {
      const draco::Mesh::Face& face = mesh.face(draco::FaceIndex(f));
      for (int k = 0; k < 3; ++k) {
        const uint32_t index = face[k].value();
        if (index >= points || index >= limit) {
          return invalidDraco(here, "decoded index " + std::to_string(index) + " does not fit " +
                                        componentTypeName(accessor.component_type) + " or the " +
                                        std::to_string(points) + " points (corrupt stream?)");
        }
        std::memcpy(bytes.data() + offset + (size_t(f) * 3 + size_t(k)) * size, &index, size);  // little-endian host
      }
    }
    pointAccessorAt(asset, primitive.indices, buffer, offset, count * size);
  }
  return Ok{};
}

}  // namespace

Status parseDracoPrimitive(object primitive, const std::string& where, uint32_t mesh, uint32_t index,
                           std::vector<DracoPrimitive>& out) {
  element e;
  object extensions, ext, attributes;
  if (primitive.at_key("extensions").get(e) != simdjson::SUCCESS ||
      e.get_object().get(extensions) != simdjson::SUCCESS ||
      extensions.at_key(kDracoExtension).get(e) != simdjson::SUCCESS) {
    return Ok{};
  }
  const std::string here = where + ".extensions.KHR_draco_mesh_compression";
  if (e.get_object().get(ext) != simdjson::SUCCESS) return fail(Error::kInvalidGltf, here + ": must be an object");
  DracoPrimitive d;
  d.mesh = mesh;
  d.primitive = index;
  MORPHKIT_TRY(readIndex(kGltfError, ext, "bufferView", d.buffer_view, here, true));
  if (ext.at_key("attributes").get(e) != simdjson::SUCCESS || e.get_object().get(attributes) != simdjson::SUCCESS) {
    return invalidDraco(here + ".attributes", "is required and must be an object");
  }
  for (auto field : attributes) {
    uint64_t id;
    if (field.value.get_uint64().get(id) != simdjson::SUCCESS || id >= 0xFFFFFFFFull) {
      return invalidDraco(here + ".attributes." + std::string(field.key), "must be a Draco attribute id");
    }
    d.attributes.push_back({std::string(field.key), uint32_t(id)});
  }
  out.push_back(std::move(d));
  return Ok{};
}

Status decodeDraco(Asset& asset, const CompressedData& data, const LoadOptions& options) {
  if (data.draco.empty()) return Ok{};
  std::vector<uint8_t> bytes;
  const uint32_t buffer = uint32_t(asset.buffers.size());  // the decoded data's buffer, appended at the end
  std::vector<uint8_t> claimed(asset.accessors.size(), 0);
  for (const DracoPrimitive& d : data.draco) {
    MORPHKIT_TRY(decodePrimitive(asset, d, bytes, buffer, claimed));
    if (bytes.size() > options.max_buffer_bytes) {
      return fail(Error::kTooLarge, "KHR_draco_mesh_compression: decoded data exceeds the limit of " +
                                        std::to_string(options.max_buffer_bytes) + " bytes");
    }
  }
  Buffer decoded;
  decoded.name = "KHR_draco_mesh_compression decoded";
  decoded.byte_length = std::max<size_t>(bytes.size(), 1);
  bytes.resize(decoded.byte_length, 0);
  decoded.data = std::move(bytes);
  asset.buffers.push_back(std::move(decoded));
  return Ok{};
}

}  // namespace morphkit::gltf_detail
