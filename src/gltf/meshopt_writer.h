// SPDX-License-Identifier: MIT
// The GLB writer's EXT_meshopt_compression views (meshopt_writer.cpp). Private to morphkit::gltf.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "json_tree.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"

namespace morphkit::gltf_detail {

inline size_t alignUp(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// The BIN chunk of a file with EXT_meshopt_compression views: each view packed on its own, the encoded ones as
// meshoptimizer's bytes, their decoded layout in the fallback buffer (buffer 1).
struct PackedViews {
  std::vector<uint8_t> bin;
  std::vector<size_t> offset;          // per view: where its bytes start (BIN, or the fallback buffer if encoded)
  std::vector<size_t> encoded_offset;  // per view: where its encoded bytes start in BIN (encoded views only)
  std::vector<size_t> encoded_length;  // 0: stored plain
  std::vector<const MeshoptViewEncoding*> encoding;
  size_t fallback_length = 0;
};

// Every view packed on its own, the encoded ones as meshoptimizer's bytes (a bad request fails naming the view).
Expected<PackedViews> packViews(const Asset& asset, const GlbWriteOptions& options);
// buffers and bufferViews of the packed file, replacing the fresh document's.
void writePackedViews(JsonTree& document, const Asset& asset, const PackedViews& packed);

}  // namespace morphkit::gltf_detail
