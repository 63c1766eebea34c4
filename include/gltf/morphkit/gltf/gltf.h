// SPDX-License-Identifier: MIT
// morphkit/gltf/gltf.h — loading .gltf / .glb files into a validated morphkit::Asset.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "morphkit/model/asset.h"
#include "morphkit/model/budget.h"
#include "morphkit/model/error.h"

namespace morphkit {

struct LoadOptions {
  // URIs may point outside the asset's folder (absolute paths, "..", symlinks) only when true.
  bool allow_external_paths = false;
  // Upper bound on any single buffer/file, a guard against absurd declared sizes.
  size_t max_buffer_bytes = size_t(4) << 30;
  // Skin weights that do not sum to 1 are rescaled per vertex when a primitive is decoded (as three.js and
  // Babylon.js do; see normalizeSkinWeights in morphkit/model/primitive.h). True keeps the stored values instead.
  // Copied to Asset::keep_skin_weights, which every deformation path honours.
  bool keep_skin_weights = false;
  // What decoding and posing the asset may cost (morphkit/model/budget.h), checked before validation reads any data.
  Budget budget;
  // loadAsset maps a .glb and external .bin files read-only (morphkit/model/files.h mapFile) and points Buffer::data
  // into the mapping instead of copying the bytes. False reads them into owned memory (a .glb into one block that
  // buffers[0] is a view of, still without copying the BIN chunk): for files that another process may truncate
  // or rewrite while the Asset lives (a mapped file truncated under it raises SIGBUS when read; docs/SECURITY.md),
  // and on machines whose page faults are slow (docs/PERFORMANCE.md, "Zero-copy loading"). loadAssetFromMemory
  // never maps.
  bool map_files = true;
};

// Loads, resolves buffers, checks the budget and validates (every rule of the validation pass, see
// docs/ARCHITECTURE.md). Errors name the file's object: "accessors[3]: ...". Never throws: running out of memory
// is a kOutOfMemory failure.
Expected<Asset> loadAsset(const std::filesystem::path& path, const LoadOptions& options = {});

// Same from memory (.glb bytes or .gltf JSON text); relative URIs resolve against `base_dir`. The bytes are only
// borrowed for the call: the GLB BIN chunk is copied into buffers[0], so the Asset never points into `bytes`
// (external .bin files are still mapped as by loadAsset, under options.map_files).
Expected<Asset> loadAssetFromMemory(std::span<const uint8_t> bytes, const std::filesystem::path& base_dir,
                                    const LoadOptions& options = {});

// The validation pass alone, for assets built in code (make-demo) or edited after loading. The structural rules
// come first, then `budget` (morphkit/model/budget.h), then the rules that read accessor data.
Status validateAsset(const Asset& asset, const Budget& budget = {});

// The bytes each bufferView of a .glb stores, in view order: its byteLength, or EXT_meshopt_compression's byteLength
// where the view is compressed (what a download carries, as optimize's report counts it). Empty when `glb` is not a
// GLB whose JSON chunk parses.
std::vector<uint64_t> glbStoredViewBytes(std::span<const uint8_t> glb);

}  // namespace morphkit
