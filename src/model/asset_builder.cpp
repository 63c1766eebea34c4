// SPDX-License-Identifier: MIT
#include "morphkit/model/asset_builder.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "morphkit/model/accessor.h"

namespace morphkit {
namespace {

size_t alignUp(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

uint32_t appendBufferView(Asset& asset, std::span<const uint8_t> bytes, uint32_t target) {
  if (asset.buffers.empty()) asset.buffers.emplace_back();
  Buffer& buffer = asset.buffers[0];
  std::vector<uint8_t>& data = buffer.data.mutate();  // a loaded (mapped) buffer is copied first
  size_t offset = alignUp(data.size(), 4);
  data.resize(offset + bytes.size(), 0);
  if (!bytes.empty()) std::memcpy(data.data() + offset, bytes.data(), bytes.size());
  buffer.byte_length = data.size();
  BufferView view;
  view.buffer = 0;
  view.byte_offset = offset;
  view.byte_length = bytes.size();
  view.target = target;
  asset.buffer_views.push_back(view);
  return uint32_t(asset.buffer_views.size() - 1);
}

namespace {

template <class T>
constexpr ComponentType componentTypeOf() {
  if constexpr (std::is_same_v<T, float>)
    return ComponentType::kFloat;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return ComponentType::kUnsignedInt;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return ComponentType::kUnsignedShort;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return ComponentType::kUnsignedByte;
  else if constexpr (std::is_same_v<T, int16_t>)
    return ComponentType::kShort;
  else
    return ComponentType::kByte;
}

template <class T>
uint32_t appendTyped(Asset& asset, std::span<const T> values, AccessorType type, const AppendAccessorOptions& options) {
  uint32_t components = componentCount(type);
  Accessor accessor;
  accessor.name = options.name;
  accessor.buffer_view = appendBufferView(
      asset, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()), values.size_bytes()),
      options.target);
  accessor.component_type = componentTypeOf<T>();
  accessor.normalized = options.normalized;
  accessor.count = uint32_t(values.size() / components);
  accessor.type = type;
  if (options.min_max && accessor.count > 0) {
    // §3.6.2.5: min/max are the raw stored values (before normalization), per component.
    accessor.min.assign(components, std::numeric_limits<double>::infinity());
    accessor.max.assign(components, -std::numeric_limits<double>::infinity());
    for (size_t i = 0; i < size_t(accessor.count) * components; ++i) {
      double v = double(values[i]);
      size_t c = i % components;
      accessor.min[c] = std::min(accessor.min[c], v);
      accessor.max[c] = std::max(accessor.max[c], v);
    }
  }
  asset.accessors.push_back(std::move(accessor));
  return uint32_t(asset.accessors.size() - 1);
}

}  // namespace

uint32_t appendAccessor(Asset& asset, std::span<const float> values, AccessorType type,
                        const AppendAccessorOptions& options) {
  return appendTyped(asset, values, type, options);
}
uint32_t appendAccessor(Asset& asset, std::span<const uint32_t> values, AccessorType type,
                        const AppendAccessorOptions& options) {
  return appendTyped(asset, values, type, options);
}
uint32_t appendAccessor(Asset& asset, std::span<const uint16_t> values, AccessorType type,
                        const AppendAccessorOptions& options) {
  return appendTyped(asset, values, type, options);
}
uint32_t appendAccessor(Asset& asset, std::span<const uint8_t> values, AccessorType type,
                        const AppendAccessorOptions& options) {
  return appendTyped(asset, values, type, options);
}
uint32_t appendAccessor(Asset& asset, std::span<const int16_t> values, AccessorType type,
                        const AppendAccessorOptions& options) {
  return appendTyped(asset, values, type, options);
}
uint32_t appendAccessor(Asset& asset, std::span<const int8_t> values, AccessorType type,
                        const AppendAccessorOptions& options) {
  return appendTyped(asset, values, type, options);
}

}  // namespace morphkit
