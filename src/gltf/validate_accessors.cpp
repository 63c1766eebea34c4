// SPDX-License-Identifier: MIT
// The validation pass's bufferView and accessor rules (validate_internal.h): ranges and strides, sparse storage,
// then, after the budget, the reads (sparse indices in range and increasing, no NaN or infinity: §3.6.2.2).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "morphkit/model/accessor.h"
#include "morphkit/model/finite.h"
#include "morphkit/model/text.h"
#include "validate_internal.h"

namespace morphkit::validate_detail {

Status validateBufferViews(const Asset& asset) {
  for (size_t i = 0; i < asset.buffer_views.size(); ++i) {
    const BufferView& view = asset.buffer_views[i];
    std::string where = at("bufferViews", i);
    VALIDATE_TRY(checkRequiredIndex(view.buffer, asset.buffers.size(), where + ".buffer", "buffer"));
    if (view.byte_length == 0) return invalid(where + ".byteLength", "must be at least 1 (glTF 2.0 §5.11)");
    size_t buffer_length = asset.buffers[view.buffer].byte_length;
    // Overflow-safe form of byteOffset + byteLength <= buffer.byteLength.
    if (view.byte_offset > buffer_length || view.byte_length > buffer_length - view.byte_offset) {
      return invalid(where, "byteOffset " + std::to_string(view.byte_offset) + " + byteLength " +
                                std::to_string(view.byte_length) + " exceeds buffer " + std::to_string(view.buffer) +
                                " (" + std::to_string(buffer_length) + " bytes; glTF 2.0 §3.6.1)");
    }
    if (view.byte_stride != 0 && (view.byte_stride < 4 || view.byte_stride > 252 || view.byte_stride % 4 != 0)) {
      return invalid(where + ".byteStride",
                     std::to_string(view.byte_stride) + " must be a multiple of 4 in [4, 252] (glTF 2.0 §3.6.2.4)");
    }
  }
  return Ok{};
}

// offset + stride * (count - 1) + element <= length, without overflowing.
bool fits(size_t offset, size_t stride, size_t count, size_t element, size_t length) {
  if (count == 0) return offset <= length;
  if (offset > length || element > length - offset) return false;
  size_t room = length - offset - element;
  return count - 1 == 0 || stride == 0 || (count - 1) <= room / stride;
}

// An accessor without a bufferView reads as count zeros (then sparse values): nothing in the file backs its
// size, so a few bytes of JSON could demand gigabytes. Bound what readAccessorFloats/Uints would allocate
// (count × components × 4 bytes) by what any accessor with a bufferView can reach anyway, 4 × the buffer bytes
// present (u8 → float), with a floor so small sparse-only assets stay valid.
constexpr size_t kZeroFilledFloorBytes = size_t(16) << 20;

size_t bytesPresent(const Asset& asset) {
  size_t total = 0;
  for (const Buffer& buffer : asset.buffers) total += buffer.data.size();
  return total;
}

Status validateSparse(const Asset& asset, const Accessor& accessor, const std::string& where) {
  const SparseAccessor& sparse = accessor.sparse;
  std::string here = where + ".sparse";
  if (sparse.count == 0 || sparse.count > accessor.count) {
    return invalid(here + ".count", std::to_string(sparse.count) + " must be in [1, accessor.count = " +
                                        std::to_string(accessor.count) + "] (glTF 2.0 §3.6.2.3)");
  }
  VALIDATE_TRY(checkRequiredIndex(sparse.indices_buffer_view, asset.buffer_views.size(), here + ".indices.bufferView",
                                  "bufferView"));
  VALIDATE_TRY(checkRequiredIndex(sparse.values_buffer_view, asset.buffer_views.size(), here + ".values.bufferView",
                                  "bufferView"));
  if (sparse.indices_component_type != ComponentType::kUnsignedByte &&
      sparse.indices_component_type != ComponentType::kUnsignedShort &&
      sparse.indices_component_type != ComponentType::kUnsignedInt) {
    return invalid(here + ".indices.componentType",
                   "must be UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT (glTF 2.0 §5.3)");
  }
  const BufferView& index_view = asset.buffer_views[sparse.indices_buffer_view];
  const BufferView& value_view = asset.buffer_views[sparse.values_buffer_view];
  // §5.3 / §5.4: "The referenced buffer view MUST NOT have its target or byteStride properties defined."
  for (const auto& [view, index, name, section] :
       {std::tuple{&index_view, sparse.indices_buffer_view, ".indices", "§5.3"},
        std::tuple{&value_view, sparse.values_buffer_view, ".values", "§5.4"}}) {
    if (view->byte_stride != 0 || view->target != 0) {
      return invalid(here + name + ".bufferView", "bufferView " + std::to_string(index) + " defines " +
                                                      (view->byte_stride != 0 ? "byteStride" : "target") +
                                                      "; a sparse accessor's bufferView MUST NOT (glTF 2.0 " + section +
                                                      ")");
    }
  }
  size_t index_size = componentSize(sparse.indices_component_type);
  if (!fits(sparse.indices_byte_offset, index_size, sparse.count, index_size, index_view.byte_length)) {
    return invalid(here + ".indices", "byteOffset + count * indexSize exceeds bufferView " +
                                          std::to_string(sparse.indices_buffer_view) + " (glTF 2.0 §3.6.2.3)");
  }
  size_t element = elementSize(accessor.component_type, accessor.type);
  if (!fits(sparse.values_byte_offset, element, sparse.count, element, value_view.byte_length)) {
    return invalid(here + ".values", "byteOffset + count * elementSize exceeds bufferView " +
                                         std::to_string(sparse.values_buffer_view) + " (glTF 2.0 §3.6.2.3)");
  }
  // §3.6.2.3: indices strictly increasing and < accessor.count.
  const uint8_t* p = asset.buffers[index_view.buffer].data.data() + index_view.byte_offset + sparse.indices_byte_offset;
  uint64_t previous = 0;
  for (uint32_t i = 0; i < sparse.count; ++i) {
    uint32_t value = 0;
    if (index_size == 1)
      value = p[i];
    else if (index_size == 2)
      value = uint32_t(p[2 * i]) | uint32_t(p[2 * i + 1]) << 8;
    else
      value = uint32_t(p[4 * i]) | uint32_t(p[4 * i + 1]) << 8 | uint32_t(p[4 * i + 2]) << 16 |
              uint32_t(p[4 * i + 3]) << 24;
    if (value >= accessor.count) {
      return invalid(here + ".indices", "index " + std::to_string(value) + " at " + std::to_string(i) +
                                            " is >= accessor.count " + std::to_string(accessor.count) +
                                            " (glTF 2.0 §3.6.2.3)");
    }
    if (i > 0 && value <= previous) {
      return invalid(here + ".indices", "indices must be strictly increasing; index " + std::to_string(i) + " is " +
                                            std::to_string(value) + " (glTF 2.0 §3.6.2.3)");
    }
    previous = value;
  }
  return Ok{};
}

// §3.6.2.2: "Values of NaN, +Infinity, and -Infinity MUST NOT be present." One rule for every float accessor
// (vertex data, deltas, skins, keyframes), checked here once, so no deformation path, CPU or GPU, ever sees one.
Status checkFinite(const Asset& asset, const Accessor& accessor, const std::string& where) {
  if (accessor.component_type != ComponentType::kFloat) return Ok{};
  const size_t components = componentCount(accessor.type);
  const size_t element = elementSize(accessor.component_type, accessor.type);
  auto scan = [&](const uint8_t* base, size_t stride, size_t count, const char* part) -> Status {
    if (!anyNonFinite(base, stride, count, components)) return Ok{};
    // One is there: find the first, element by element, to name it.
    for (size_t i = 0; i < count; ++i) {
      for (size_t c = 0; c < components; ++c) {
        float value;
        std::memcpy(&value, base + i * stride + 4 * c, 4);  // FLOAT matrices have no column padding
        if (!std::isfinite(value)) {
          return invalid(where, std::string(part) + "element " + std::to_string(i) + " component " + std::to_string(c) +
                                    " is " + (std::isnan(value) ? "NaN" : "infinite") +
                                    " (glTF 2.0 §3.6.2.2: NaN and infinities MUST NOT be present)");
        }
      }
    }
    return Ok{};
  };
  if (accessor.buffer_view != kNone) {
    const BufferView& view = asset.buffer_views[accessor.buffer_view];
    const uint8_t* base = asset.buffers[view.buffer].data.data() + view.byte_offset + accessor.byte_offset;
    VALIDATE_TRY(scan(base, view.byte_stride ? view.byte_stride : element, accessor.count, ""));
  }
  if (accessor.has_sparse) {
    const BufferView& view = asset.buffer_views[accessor.sparse.values_buffer_view];
    const uint8_t* base =
        asset.buffers[view.buffer].data.data() + view.byte_offset + accessor.sparse.values_byte_offset;
    VALIDATE_TRY(scan(base, element, accessor.sparse.count, "sparse value "));
  }
  return Ok{};
}

Status validateAccessors(const Asset& asset) {
  const size_t present = bytesPresent(asset);
  const size_t zero_fill_limit = std::max(kZeroFilledFloorBytes, present > SIZE_MAX / 4 ? SIZE_MAX : 4 * present);
  for (size_t i = 0; i < asset.accessors.size(); ++i) {
    const Accessor& accessor = asset.accessors[i];
    std::string where = at("accessors", i);
    if (accessor.count == 0) return invalid(where + ".count", "must be at least 1 (glTF 2.0 §5.1)");
    VALIDATE_TRY(checkIndex(accessor.buffer_view, asset.buffer_views.size(), where + ".bufferView", "bufferView"));
    size_t component = componentSize(accessor.component_type);
    size_t element = elementSize(accessor.component_type, accessor.type);
    if (accessor.normalized &&
        (accessor.component_type == ComponentType::kFloat || accessor.component_type == ComponentType::kUnsignedInt)) {
      return invalid(where + ".normalized", "must not be true for FLOAT or UNSIGNED_INT components (glTF 2.0 §5.1)");
    }
    size_t components = componentCount(accessor.type);
    if ((!accessor.min.empty() && accessor.min.size() != components) ||
        (!accessor.max.empty() && accessor.max.size() != components)) {
      return invalid(where, "min/max must have " + std::to_string(components) + " elements for " +
                                accessorTypeName(accessor.type) + " (glTF 2.0 §5.1)");
    }
    if (accessor.buffer_view != kNone) {
      const BufferView& view = asset.buffer_views[accessor.buffer_view];
      size_t stride = view.byte_stride ? view.byte_stride : element;
      if (accessor.byte_offset % component != 0 || view.byte_offset % component != 0) {
        return invalid(where + ".byteOffset",
                       "accessor and bufferView offsets must be multiples of the component size " +
                           std::to_string(component) + " (glTF 2.0 §3.6.2.4)");
      }
      if (view.byte_stride != 0 && view.byte_stride < element) {
        return invalid(where, "bufferView " + std::to_string(accessor.buffer_view) + " byteStride " +
                                  std::to_string(view.byte_stride) + " is smaller than the element size " +
                                  std::to_string(element) + " (glTF 2.0 §3.6.2.4)");
      }
      if (!fits(accessor.byte_offset, stride, accessor.count, element, view.byte_length)) {
        return invalid(where, "byteOffset + stride * (count - 1) + elementSize exceeds bufferView " +
                                  std::to_string(accessor.buffer_view) + " (" + std::to_string(view.byte_length) +
                                  " bytes for " + std::to_string(accessor.count) + " elements; glTF 2.0 §3.6.2.4)");
      }
    } else if (size_t(accessor.count) * components * sizeof(float) > zero_fill_limit) {
      return fail(Error::kTooLarge,
                  where + ".count: " + std::to_string(accessor.count) + " " + accessorTypeName(accessor.type) +
                      " elements without a bufferView would decode to more than " + std::to_string(zero_fill_limit) +
                      " bytes (4 x the " + std::to_string(present) + " buffer bytes present, at least 16 MiB)");
    }
  }
  return Ok{};
}

// The reads: sparse indices and the finite-value scan. Run after the budget, which bounds them (every accessor
// once), so a thousand accessors aliasing one bufferView cannot make validation itself the amplifier.
Status validateAccessorData(const Asset& asset) {
  for (size_t i = 0; i < asset.accessors.size(); ++i) {
    const Accessor& accessor = asset.accessors[i];
    std::string where = at("accessors", i);
    if (accessor.has_sparse) VALIDATE_TRY(validateSparse(asset, accessor, where));
    VALIDATE_TRY(checkFinite(asset, accessor, where));
  }
  return Ok{};
}

// §3.7.2.1 attribute formats (and KHR_mesh_quantization's wider set when the asset uses it).
Status checkAttributeFormat(const Asset& asset, const std::string& name, uint32_t index, bool is_target,
                            const std::string& where) {
  const Accessor& a = asset.accessors[index];
  bool quantized = hasExtension(asset, "KHR_mesh_quantization");
  ComponentType c = a.component_type;
  bool is_float = c == ComponentType::kFloat;
  bool small_int = c == ComponentType::kByte || c == ComponentType::kUnsignedByte || c == ComponentType::kShort ||
                   c == ComponentType::kUnsignedShort;
  bool unorm = a.normalized && (c == ComponentType::kUnsignedByte || c == ComponentType::kUnsignedShort);
  auto bad = [&](const char* rule) {
    return invalid(where, printable(name) + " accessor " + std::to_string(index) + " is " + accessorTypeName(a.type) +
                              " " + componentTypeName(c) + (a.normalized ? " normalized" : "") + "; " + rule);
  };
  auto type_is = [&](std::initializer_list<AccessorType> types) {
    return std::find(types.begin(), types.end(), a.type) != types.end();
  };
  std::string base = name.substr(0, name.find('_'));
  if (name == "POSITION" || name == "NORMAL") {
    if (!type_is({AccessorType::kVec3})) return bad("must be VEC3 (glTF 2.0 §3.7.2.1)");
    if (!is_float && !(quantized && small_int))
      return bad("must be FLOAT unless KHR_mesh_quantization is used (glTF 2.0 §3.7.2.1)");
  } else if (name == "TANGENT") {
    if (!type_is({is_target ? AccessorType::kVec3 : AccessorType::kVec4})) {
      return bad(is_target ? "target TANGENT deltas must be VEC3 (glTF 2.0 §3.7.2.2)"
                           : "must be VEC4 (glTF 2.0 §3.7.2.1)");
    }
    if (!is_float && !(quantized && small_int))
      return bad("must be FLOAT unless KHR_mesh_quantization is used (glTF 2.0 §3.7.2.1)");
  } else if (base == "TEXCOORD") {
    if (!type_is({AccessorType::kVec2})) return bad("must be VEC2 (glTF 2.0 §3.7.2.1)");
    if (!is_float && !unorm && !(quantized && small_int))
      return bad("must be FLOAT or normalized u8/u16 (glTF 2.0 §3.7.2.1)");
  } else if (base == "COLOR") {
    if (!type_is({AccessorType::kVec3, AccessorType::kVec4})) return bad("must be VEC3 or VEC4 (glTF 2.0 §3.7.2.1)");
    if (!is_float && !unorm && !(quantized && small_int))
      return bad("must be FLOAT or normalized u8/u16 (glTF 2.0 §3.7.2.1)");
  } else if (base == "JOINTS" && !is_target) {
    if (!type_is({AccessorType::kVec4}) || (c != ComponentType::kUnsignedByte && c != ComponentType::kUnsignedShort) ||
        a.normalized) {
      return bad("must be VEC4 unsigned byte or short (glTF 2.0 §3.7.2.1)");
    }
  } else if (base == "WEIGHTS" && !is_target) {
    if (!type_is({AccessorType::kVec4})) return bad("must be VEC4 (glTF 2.0 §3.7.2.1)");
    if (!is_float && !unorm) return bad("must be FLOAT or normalized u8/u16 (glTF 2.0 §3.7.2.1)");
  }
  return Ok{};
}

}  // namespace morphkit::validate_detail
