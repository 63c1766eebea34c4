// SPDX-License-Identifier: MIT
// morphkit/model/asset_builder.h — appending bufferViews and accessors to an in-memory morphkit::Asset, for code that
// makes or edits assets (make-demo, baked animation channels, tests). Writing the result is glb_writer.h's job.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "morphkit/model/asset.h"

namespace morphkit {

// They append to asset.buffers[0] (created, empty, when the asset has no buffer). Each new bufferView
// starts at a 4-byte aligned offset (glTF 2.0 §3.6.2.4: accessor offsets must be multiples of the
// component size; vertex attributes need 4-byte alignment), tightly packed (byteStride unset).

// bufferView.target values (glTF 2.0 §3.6.1).
inline constexpr uint32_t kArrayBuffer = 34962;
inline constexpr uint32_t kElementArrayBuffer = 34963;

struct AppendAccessorOptions {
  std::string name;
  uint32_t target = 0;      // bufferView.target: kArrayBuffer for vertex attributes, kElementArrayBuffer for indices
  bool min_max = false;     // store per-component min/max (required for POSITION and animation inputs, §3.6.2.5)
  bool normalized = false;  // integer data only (§3.11)
};

// Appends raw bytes as a new bufferView; returns its index.
uint32_t appendBufferView(Asset& asset, std::span<const uint8_t> bytes, uint32_t target = 0);

// Appends `values` (element-major, values.size() must be a multiple of componentCount(type)) as a new
// bufferView + accessor; returns the accessor index. The component type follows the span's element type:
// float → FLOAT, uint32_t → UNSIGNED_INT, uint16_t → UNSIGNED_SHORT, uint8_t → UNSIGNED_BYTE,
// int16_t → SHORT, int8_t → BYTE. min/max, when asked for, are computed exactly from the stored values.
uint32_t appendAccessor(Asset& asset, std::span<const float> values, AccessorType type,
                        const AppendAccessorOptions& options = {});
uint32_t appendAccessor(Asset& asset, std::span<const uint32_t> values, AccessorType type,
                        const AppendAccessorOptions& options = {});
uint32_t appendAccessor(Asset& asset, std::span<const uint16_t> values, AccessorType type,
                        const AppendAccessorOptions& options = {});
uint32_t appendAccessor(Asset& asset, std::span<const uint8_t> values, AccessorType type,
                        const AppendAccessorOptions& options = {});
uint32_t appendAccessor(Asset& asset, std::span<const int16_t> values, AccessorType type,
                        const AppendAccessorOptions& options = {});
uint32_t appendAccessor(Asset& asset, std::span<const int8_t> values, AccessorType type,
                        const AppendAccessorOptions& options = {});

}  // namespace morphkit
