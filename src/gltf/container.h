// SPDX-License-Identifier: MIT
// The loader's byte-level steps (loader.cpp), apart from its JSON parsing (parser.cpp): the GLB container's chunks
// (glTF 2.0 §4.4) and filling buffers and images from the BIN chunk, data: URIs or files under LoadOptions.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "morphkit/gltf/gltf.h"

namespace morphkit::gltf_detail {

struct GlbParts {
  std::span<const uint8_t> json;
  std::span<const uint8_t> bin;
  bool has_bin = false;
  // The whole file when it is a view (a mapped .glb, morphkit/model/files.h mapFile): buffers[0] then becomes a slice
  // of it, sharing the mapping, instead of a copy of `bin`. Empty for bytes the caller lends (loadAssetFromMemory).
  BufferBytes file;
};

// A file's bytes: mapped (morphkit/model/files.h mapFile) unless !options.map_files, then read.
Expected<BufferBytes> fileBytes(const std::filesystem::path& path, const LoadOptions& options);

bool isGlb(std::span<const uint8_t> bytes);  // starts with the 'glTF' magic
Expected<GlbParts> splitGlb(std::span<const uint8_t> bytes);

// Fills every Buffer::data: the GLB BIN chunk (a view into glb->file when that is a view, else a copy), a data:
// URI (`data_uris[i]`, a view into the parsed JSON), or an external file inside the asset's folder (mapped unless
// !options.map_files). Buffers flagged in `decoded_later` are left empty.
Status resolveBuffers(Asset& asset, const GlbParts* glb, const std::vector<std::string_view>& data_uris,
                      const LoadOptions& options, const std::vector<uint8_t>& decoded_later);
// Fills Image::data for every `uri` image under the buffers' rules, so that no later layer opens a file.
Status resolveImages(Asset& asset, const LoadOptions& options);

}  // namespace morphkit::gltf_detail
