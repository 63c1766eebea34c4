// SPDX-License-Identifier: MIT
// morphkit/model/accessor.h — reading accessor data as the spec defines it (glTF 2.0 §3.6.2, §3.11).
// Every function handles byteStride, sparse substitution (§3.6.2.3), accessors without a bufferView
// (zeros), every componentType, and normalized integers (KHR_mesh_quantization included).
// They require an Asset that passed validation (loadAsset does that).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"

namespace morphkit {

// Converts one stored component to float. Normalized integers use §3.11:
//   i8: max(c/127, -1)  u8: c/255  i16: max(c/32767, -1)  u16: c/65535; unnormalized integers convert exactly.
float componentToFloat(const uint8_t* src, ComponentType type, bool normalized);

// Writes count × componentCount(type) floats into `out` (which must be exactly that size),
// element-major, matrix columns in order and without padding.
void readAccessorFloats(const Asset& asset, uint32_t accessor, std::span<float> out);
std::vector<float> readAccessorFloats(const Asset& asset, uint32_t accessor);

// Integer view for indices and JOINTS_n (components converted unnormalized; floats truncated).
std::vector<uint32_t> readAccessorUints(const Asset& asset, uint32_t accessor);

// Sparse part only, for layouts that keep sparsity (never densified): indices and their values as floats.
struct SparseData {
  std::vector<uint32_t> indices;  // strictly increasing element indices
  std::vector<float> values;      // indices.size() × componentCount(type)
};
SparseData readSparse(const Asset& asset, uint32_t accessor);

// True when every element is zero: no bufferView and no sparse substitution (§3.6.2.3). Such an accessor costs
// nothing in the file whatever its count, so readers skip it rather than decode count zeros.
inline bool accessorIsAllZero(const Accessor& accessor) {
  return accessor.buffer_view == kNone && !accessor.has_sparse;
}

// Bytes the accessor actually occupies in its buffers (dense part + sparse indices and values).
size_t accessorStorageBytes(const Asset& asset, uint32_t accessor);

}  // namespace morphkit
