// SPDX-License-Identifier: MIT
// Compressed geometry (EXT_meshopt_compression, KHR_draco_mesh_compression): what the loader reads of them from
// the JSON, and the decoders that run at load time, after the buffers are resolved and before the validation
// pass. They write plain bytes into buffers and bufferViews, so the Asset holds uncompressed data and nothing
// downstream knows the file was compressed. Private to morphkit::gltf (meshoptimizer and Draco stay private too).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "gltf_fields.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"
#include "morphkit/model/extensions.h"

namespace morphkit::gltf_detail {

// bufferView.extensions.EXT_meshopt_compression (EXT_meshopt_compression, "JSON schema updates").
struct MeshoptView {
  enum class Mode : uint8_t { kAttributes, kTriangles, kIndices };
  enum class Filter : uint8_t { kNone, kOctahedral, kQuaternion, kExponential };
  bool present = false;
  uint32_t buffer = kNone;  // the buffer holding the compressed bytes
  size_t byte_offset = 0;
  size_t byte_length = 0;  // compressed bytes
  uint32_t byte_stride = 0;
  uint32_t count = 0;  // elements; count × byteStride = the parent bufferView's byteLength
  Mode mode = Mode::kAttributes;
  Filter filter = Filter::kNone;
};

// meshes[m].primitives[p].extensions.KHR_draco_mesh_compression.
struct DracoPrimitive {
  uint32_t mesh = kNone, primitive = kNone;
  uint32_t buffer_view = kNone;       // the compressed mesh
  std::vector<Attribute> attributes;  // glTF attribute name → Draco attribute unique id (in `accessor`)
};

// What the parser collected; indices are the file's.
struct CompressedData {
  std::vector<MeshoptView> meshopt_views;  // one per bufferView (present = false when not compressed)
  std::vector<uint8_t> meshopt_fallback;   // one per buffer: extensions.EXT_meshopt_compression.fallback
  std::vector<DracoPrimitive> draco;
};

// Parsers, called by the loader for each bufferView / buffer / primitive when the extension is in extensionsUsed.
Status parseMeshoptView(object view, const std::string& where, MeshoptView& out);
Status parseMeshoptBuffer(object buffer, const std::string& where, uint8_t& fallback);
Status parseDracoPrimitive(object primitive, const std::string& where, uint32_t mesh, uint32_t index,
                           std::vector<DracoPrimitive>& out);

// Buffers resolveBuffers must not read: meshopt fallback buffers and uri-less placeholders that only compressed
// bufferViews refer to (their bytes come from decoding). One flag per buffer.
std::vector<uint8_t> meshoptPlaceholders(const Asset& asset, const CompressedData& data, bool glb_has_bin);

// Validates every compressed bufferView's extension fields, then decodes it into its parent bufferView's bytes
// (placeholder buffers are allocated to hold exactly their views). Errors name the bufferView.
Status decodeMeshopt(Asset& asset, const CompressedData& data, const std::vector<uint8_t>& placeholders,
                     const LoadOptions& options);

// Decodes each Draco primitive and points its attribute and index accessors at the decoded data (a new buffer
// and bufferViews). The accessors' count, type and componentType must agree with the decoded mesh.
Status decodeDraco(Asset& asset, const CompressedData& data, const LoadOptions& options);

}  // namespace morphkit::gltf_detail
