// SPDX-License-Identifier: MIT
#include "morphkit/pack/sliced_sparse.h"

#include <algorithm>
#include <cstring>

namespace morphkit {

Expected<SlicedSparse> sliceSparse(const PackedDeltas& packed, uint32_t tile_vertices, uint64_t max_words) {
  if (packed.layout != DeltaLayout::kSparse || tile_vertices == 0 || packed.rows.size() != packed.vertex_count + 1u)
    return fail(Error::kInvalidArgument, "sliceSparse: not a sparse layout, or no tile size");
  const uint32_t vertex_count = packed.vertex_count;
  SlicedSparse out;
  out.tile_vertices = tile_vertices;
  out.record_words = 1 + packed.format.stride;
  const uint32_t tile_count = (vertex_count + tile_vertices - 1) / tile_vertices;
  out.tiles.reserve(size_t(tile_count) + 1);
  uint64_t total = 0;
  for (uint32_t t = 0; t < tile_count; ++t) {
    out.tiles.push_back(uint32_t(total));
    uint32_t slots = 0;
    const uint32_t end = uint32_t(std::min<uint64_t>(vertex_count, uint64_t(t + 1) * tile_vertices));
    for (uint32_t v = t * tile_vertices; v < end; ++v) slots = std::max(slots, packed.rows[v + 1] - packed.rows[v]);
    total += uint64_t(slots) * out.record_words * tile_vertices;
    if (total >= max_words)
      return fail(Error::kTooLarge,
                  "sliceSparse: the sliced sparse records exceed the kernel's 32-bit element indexing");
  }
  out.tiles.push_back(uint32_t(total));
  out.words.assign(size_t(total), 0);
  for (uint32_t v = 0; v < vertex_count; ++v) {
    const uint32_t tile = v / tile_vertices, lane = v % tile_vertices;
    const uint32_t slots = (out.tiles[tile + 1] - out.tiles[tile]) / (out.record_words * tile_vertices);
    const uint32_t count = packed.rows[v + 1] - packed.rows[v];
    for (uint32_t j = 0; j < slots; ++j) {
      const size_t slot = out.tiles[tile] + size_t(j) * out.record_words * tile_vertices + lane;
      if (j >= count) {
        out.words[slot] = kSlicedAbsentTarget;
        continue;
      }
      const uint8_t* record = packed.bytes.data() + (size_t(packed.rows[v]) + j) * out.record_words * 4;
      for (uint32_t w = 0; w < out.record_words; ++w)
        std::memcpy(&out.words[slot + size_t(w) * tile_vertices], record + 4 * w, 4);
    }
  }
  return out;
}

std::vector<float> unpackSlicedTargetDeltas(const SlicedSparse& sliced, uint32_t vertex_count, uint32_t target) {
  const uint32_t stride = sliced.record_words - 1;
  std::vector<float> out(size_t(vertex_count) * stride, 0.0f);
  for (uint32_t v = 0; v < vertex_count; ++v) {
    const uint32_t tile = v / sliced.tile_vertices, lane = v % sliced.tile_vertices;
    const uint32_t block = sliced.record_words * sliced.tile_vertices;
    const uint32_t slots = (sliced.tiles[tile + 1] - sliced.tiles[tile]) / block;
    for (uint32_t j = 0; j < slots; ++j) {
      const size_t slot = sliced.tiles[tile] + size_t(j) * block + lane;
      if (sliced.words[slot] != target) continue;
      for (uint32_t w = 0; w < stride; ++w)
        std::memcpy(&out[size_t(v) * stride + w], &sliced.words[slot + size_t(w + 1) * sliced.tile_vertices], 4);
    }
  }
  return out;
}

}  // namespace morphkit
