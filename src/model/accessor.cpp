// SPDX-License-Identifier: MIT
#include "morphkit/model/accessor.h"

#include <algorithm>
#include <cstring>

namespace morphkit {

template <class T>
static T load(const uint8_t* src) {
  T value;
  std::memcpy(&value, src, sizeof(T));  // unaligned-safe
  return value;
}

float componentToFloat(const uint8_t* src, ComponentType type, bool normalized) {
  switch (type) {
    case ComponentType::kFloat:
      return load<float>(src);
    case ComponentType::kByte: {
      float c = float(load<int8_t>(src));
      return normalized ? std::max(c / 127.0f, -1.0f) : c;
    }
    case ComponentType::kUnsignedByte: {
      float c = float(load<uint8_t>(src));
      return normalized ? c / 255.0f : c;
    }
    case ComponentType::kShort: {
      float c = float(load<int16_t>(src));
      return normalized ? std::max(c / 32767.0f, -1.0f) : c;
    }
    case ComponentType::kUnsignedShort: {
      float c = float(load<uint16_t>(src));
      return normalized ? c / 65535.0f : c;
    }
    case ComponentType::kUnsignedInt: {
      // §3.11 lists no normalized u32; treat as the exact integer either way.
      return float(load<uint32_t>(src));
    }
  }
  return 0.0f;
}

static uint32_t componentToUint(const uint8_t* src, ComponentType type) {
  switch (type) {
    case ComponentType::kUnsignedByte:
      return load<uint8_t>(src);
    case ComponentType::kUnsignedShort:
      return load<uint16_t>(src);
    case ComponentType::kUnsignedInt:
      return load<uint32_t>(src);
    case ComponentType::kByte:
      return uint32_t(int32_t(load<int8_t>(src)));
    case ComponentType::kShort:
      return uint32_t(int32_t(load<int16_t>(src)));
    case ComponentType::kFloat: {
      // Truncate, clamping to [0, 2^32-1] first: converting an out-of-range float to uint32_t is undefined.
      float f = load<float>(src);
      if (!(f > 0.0f)) return 0u;  // negative, zero and NaN
      return f >= 4294967296.0f ? 0xFFFFFFFFu : uint32_t(f);
    }
  }
  return 0;
}

// Byte offset of component `c` inside an element, honoring the matrix column padding of §3.6.2.4.
static uint32_t componentOffset(const Accessor& accessor, uint32_t c) {
  uint32_t size = componentSize(accessor.component_type);
  uint32_t rows = 0;
  switch (accessor.type) {
    case AccessorType::kMat2:
      rows = 2;
      break;
    case AccessorType::kMat3:
      rows = 3;
      break;
    case AccessorType::kMat4:
      rows = 4;
      break;
    default:
      return c * size;
  }
  uint32_t column_bytes = (size * rows + 3u) & ~3u;
  return (c / rows) * column_bytes + (c % rows) * size;
}

// Calls visit(element, const uint8_t* element_bytes) for the dense part, then for sparse values.
template <class Visit>
static void walkElements(const Asset& asset, const Accessor& accessor, Visit&& visit) {
  uint32_t element = elementSize(accessor.component_type, accessor.type);
  if (accessor.buffer_view != kNone) {
    const BufferView& view = asset.buffer_views[accessor.buffer_view];
    const uint8_t* base = asset.buffers[view.buffer].data.data() + view.byte_offset + accessor.byte_offset;
    size_t stride = view.byte_stride ? view.byte_stride : element;
    for (uint32_t i = 0; i < accessor.count; ++i) visit(i, base + i * stride);
  }
  if (accessor.has_sparse) {
    const SparseAccessor& sparse = accessor.sparse;
    const BufferView& index_view = asset.buffer_views[sparse.indices_buffer_view];
    const BufferView& value_view = asset.buffer_views[sparse.values_buffer_view];
    const uint8_t* indices =
        asset.buffers[index_view.buffer].data.data() + index_view.byte_offset + sparse.indices_byte_offset;
    const uint8_t* values =
        asset.buffers[value_view.buffer].data.data() + value_view.byte_offset + sparse.values_byte_offset;
    uint32_t index_size = componentSize(sparse.indices_component_type);
    for (uint32_t i = 0; i < sparse.count; ++i) {
      uint32_t target = componentToUint(indices + size_t(i) * index_size, sparse.indices_component_type);
      if (target < accessor.count) visit(target, values + size_t(i) * element);
    }
  }
}

void readAccessorFloats(const Asset& asset, uint32_t index, std::span<float> out) {
  const Accessor& accessor = asset.accessors[index];
  uint32_t components = componentCount(accessor.type);
  std::fill(out.begin(), out.end(), 0.0f);  // no bufferView: zeros (§3.6.2.3)
  if (out.size() != size_t(accessor.count) * components) return;
  uint32_t offsets[16];
  for (uint32_t c = 0; c < components; ++c) offsets[c] = componentOffset(accessor, c);
  walkElements(asset, accessor, [&](uint32_t i, const uint8_t* src) {
    float* dst = out.data() + size_t(i) * components;
    for (uint32_t c = 0; c < components; ++c) {
      dst[c] = componentToFloat(src + offsets[c], accessor.component_type, accessor.normalized);
    }
  });
}

std::vector<float> readAccessorFloats(const Asset& asset, uint32_t index) {
  const Accessor& accessor = asset.accessors[index];
  std::vector<float> out(size_t(accessor.count) * componentCount(accessor.type));
  readAccessorFloats(asset, index, out);
  return out;
}

std::vector<uint32_t> readAccessorUints(const Asset& asset, uint32_t index) {
  const Accessor& accessor = asset.accessors[index];
  uint32_t components = componentCount(accessor.type);
  std::vector<uint32_t> out(size_t(accessor.count) * components, 0u);
  uint32_t offsets[16];
  for (uint32_t c = 0; c < components; ++c) offsets[c] = componentOffset(accessor, c);
  walkElements(asset, accessor, [&](uint32_t i, const uint8_t* src) {
    uint32_t* dst = out.data() + size_t(i) * components;
    for (uint32_t c = 0; c < components; ++c) dst[c] = componentToUint(src + offsets[c], accessor.component_type);
  });
  return out;
}

SparseData readSparse(const Asset& asset, uint32_t index) {
  const Accessor& accessor = asset.accessors[index];
  SparseData data;
  if (!accessor.has_sparse) return data;
  const SparseAccessor& sparse = accessor.sparse;
  uint32_t components = componentCount(accessor.type);
  uint32_t element = elementSize(accessor.component_type, accessor.type);
  const BufferView& index_view = asset.buffer_views[sparse.indices_buffer_view];
  const BufferView& value_view = asset.buffer_views[sparse.values_buffer_view];
  const uint8_t* indices =
      asset.buffers[index_view.buffer].data.data() + index_view.byte_offset + sparse.indices_byte_offset;
  const uint8_t* values =
      asset.buffers[value_view.buffer].data.data() + value_view.byte_offset + sparse.values_byte_offset;
  uint32_t index_size = componentSize(sparse.indices_component_type);
  data.indices.resize(sparse.count);
  data.values.resize(size_t(sparse.count) * components);
  for (uint32_t i = 0; i < sparse.count; ++i) {
    data.indices[i] = componentToUint(indices + size_t(i) * index_size, sparse.indices_component_type);
    for (uint32_t c = 0; c < components; ++c) {
      data.values[size_t(i) * components + c] = componentToFloat(
          values + size_t(i) * element + componentOffset(accessor, c), accessor.component_type, accessor.normalized);
    }
  }
  return data;
}

size_t accessorStorageBytes(const Asset& asset, uint32_t index) {
  const Accessor& accessor = asset.accessors[index];
  size_t element = elementSize(accessor.component_type, accessor.type);
  size_t bytes = accessor.buffer_view != kNone ? element * accessor.count : 0;
  if (accessor.has_sparse) {
    bytes += size_t(accessor.sparse.count) * (componentSize(accessor.sparse.indices_component_type) + element);
  }
  (void)asset;
  return bytes;
}

}  // namespace morphkit
