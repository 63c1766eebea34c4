// SPDX-License-Identifier: MIT
// morphkit/pack/sliced_sparse.h — the sparse layout as the compute kernel reads it (docs/LAYOUTS.md §3c): the CSR
// records of packDeltas(kSparse) sliced per tile of `tile_vertices` vertices (the kernel's workgroup). A tile's block
// holds as many slots as its longest vertex has records; slot j holds the j-th record of each of the tile's vertices,
// word-major (word w of lane l at (j · words + w) · tile_vertices + l), so a warp reads consecutive words; lanes with
// fewer records get kSlicedAbsentTarget as their target word.
#pragma once
#include <cstdint>
#include <vector>

#include "morphkit/model/error.h"
#include "morphkit/pack/packed_deltas.h"

namespace morphkit {

inline constexpr uint32_t kSlicedAbsentTarget = 0xFFFFFFFFu;  // the kernel's MORPH_ABSENT

struct SlicedSparse {
  uint32_t tile_vertices = 0;
  uint32_t record_words = 0;    // 1 (the target index) + the format's stride
  std::vector<uint32_t> tiles;  // the first word of each tile's block, then the end
  std::vector<uint32_t> words;
};

// Slices a kSparse PackedDeltas. Fails with kTooLarge when the words would reach `max_words` (the kernel indexes
// them with 32 bits), kInvalidArgument when `packed` is not sparse or tile_vertices is 0.
Expected<SlicedSparse> sliceSparse(const PackedDeltas& packed, uint32_t tile_vertices, uint64_t max_words);

// Decoder: target `target`'s deltas as vertex_count × (record_words − 1) floats (zeros where no record), equal to
// unpackTargetDeltas of the PackedDeltas it was sliced from.
std::vector<float> unpackSlicedTargetDeltas(const SlicedSparse& sliced, uint32_t vertex_count, uint32_t target);

}  // namespace morphkit
