// SPDX-License-Identifier: MIT
// The one validation pass over cross-object invariants (cgltf/glTF-Validator style). Runs after buffers are
// resolved; once it passes, every index is in range and every accessor read stays inside its buffer.
// Each message cites the glTF 2.0 section whose rule it enforces.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "morphkit/accessor.h"
#include "morphkit/gltf.h"
#include "morphkit/text.h"

namespace morphkit {

namespace {

std::string at(const char* array, size_t i) { return std::string(array) + "[" + std::to_string(i) + "]"; }

Failure invalid(const std::string& where, const std::string& what) { return fail(Error::kInvalidGltf, where + ": " + what); }

Status checkIndex(uint32_t index, size_t size, const std::string& where, const char* what) {
  if (index == kNone || index < size) return Ok{};
  return invalid(where, std::string(what) + " " + std::to_string(index) + " is out of range (" + std::to_string(size) +
                            " exist; glTF 2.0 §3.3: indices MUST be in range)");
}

// A required reference: kNone (possible in assets built in code) is an error too, never dereferenced.
Status checkRequiredIndex(uint32_t index, size_t size, const std::string& where, const char* what) {
  if (index == kNone) return invalid(where, std::string(what) + " is required but missing");
  return checkIndex(index, size, where, what);
}

#define TRY(expr)                            \
  do {                                       \
    auto status_ = (expr);                   \
    if (!status_) return status_.error();    \
  } while (0)

bool hasExtension(const Asset& asset, const char* name) {
  return std::find(asset.extensions_used.begin(), asset.extensions_used.end(), name) != asset.extensions_used.end();
}

Status validateBufferViews(const Asset& asset) {
  for (size_t i = 0; i < asset.buffer_views.size(); ++i) {
    const BufferView& view = asset.buffer_views[i];
    std::string where = at("bufferViews", i);
    TRY(checkRequiredIndex(view.buffer, asset.buffers.size(), where + ".buffer", "buffer"));
    if (view.byte_length == 0) return invalid(where + ".byteLength", "must be at least 1 (glTF 2.0 §5.11)");
    size_t buffer_length = asset.buffers[view.buffer].byte_length;
    // Overflow-safe form of byteOffset + byteLength <= buffer.byteLength.
    if (view.byte_offset > buffer_length || view.byte_length > buffer_length - view.byte_offset) {
      return invalid(where, "byteOffset " + std::to_string(view.byte_offset) + " + byteLength " +
                                std::to_string(view.byte_length) + " exceeds buffer " + std::to_string(view.buffer) +
                                " (" + std::to_string(buffer_length) + " bytes; glTF 2.0 §3.6.1)");
    }
    if (view.byte_stride != 0 && (view.byte_stride < 4 || view.byte_stride > 252 || view.byte_stride % 4 != 0)) {
      return invalid(where + ".byteStride", std::to_string(view.byte_stride) +
                                                " must be a multiple of 4 in [4, 252] (glTF 2.0 §3.6.2.4)");
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
  TRY(checkRequiredIndex(sparse.indices_buffer_view, asset.buffer_views.size(), here + ".indices.bufferView", "bufferView"));
  TRY(checkRequiredIndex(sparse.values_buffer_view, asset.buffer_views.size(), here + ".values.bufferView", "bufferView"));
  if (sparse.indices_component_type != ComponentType::kUnsignedByte &&
      sparse.indices_component_type != ComponentType::kUnsignedShort &&
      sparse.indices_component_type != ComponentType::kUnsignedInt) {
    return invalid(here + ".indices.componentType", "must be UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT (glTF 2.0 §5.3)");
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
                                                      "; a sparse accessor's bufferView MUST NOT (glTF 2.0 " + section + ")");
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
    if (index_size == 1) value = p[i];
    else if (index_size == 2) value = uint32_t(p[2 * i]) | uint32_t(p[2 * i + 1]) << 8;
    else value = uint32_t(p[4 * i]) | uint32_t(p[4 * i + 1]) << 8 | uint32_t(p[4 * i + 2]) << 16 | uint32_t(p[4 * i + 3]) << 24;
    if (value >= accessor.count) {
      return invalid(here + ".indices", "index " + std::to_string(value) + " at " + std::to_string(i) +
                                            " is >= accessor.count " + std::to_string(accessor.count) + " (glTF 2.0 §3.6.2.3)");
    }
    if (i > 0 && value <= previous) {
      return invalid(here + ".indices", "indices must be strictly increasing; index " + std::to_string(i) +
                                            " is " + std::to_string(value) + " (glTF 2.0 §3.6.2.3)");
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
    TRY(scan(base, view.byte_stride ? view.byte_stride : element, accessor.count, ""));
  }
  if (accessor.has_sparse) {
    const BufferView& view = asset.buffer_views[accessor.sparse.values_buffer_view];
    const uint8_t* base = asset.buffers[view.buffer].data.data() + view.byte_offset + accessor.sparse.values_byte_offset;
    TRY(scan(base, element, accessor.sparse.count, "sparse value "));
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
    TRY(checkIndex(accessor.buffer_view, asset.buffer_views.size(), where + ".bufferView", "bufferView"));
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
        return invalid(where + ".byteOffset", "accessor and bufferView offsets must be multiples of the component size " +
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
      return fail(Error::kTooLarge, where + ".count: " + std::to_string(accessor.count) + " " +
                                        accessorTypeName(accessor.type) +
                                        " elements without a bufferView would decode to more than " +
                                        std::to_string(zero_fill_limit) + " bytes (4 x the " + std::to_string(present) +
                                        " buffer bytes present, at least 16 MiB)");
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
    if (accessor.has_sparse) TRY(validateSparse(asset, accessor, where));
    TRY(checkFinite(asset, accessor, where));
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
    if (!is_float && !(quantized && small_int)) return bad("must be FLOAT unless KHR_mesh_quantization is used (glTF 2.0 §3.7.2.1)");
  } else if (name == "TANGENT") {
    if (!type_is({is_target ? AccessorType::kVec3 : AccessorType::kVec4})) {
      return bad(is_target ? "target TANGENT deltas must be VEC3 (glTF 2.0 §3.7.2.2)" : "must be VEC4 (glTF 2.0 §3.7.2.1)");
    }
    if (!is_float && !(quantized && small_int)) return bad("must be FLOAT unless KHR_mesh_quantization is used (glTF 2.0 §3.7.2.1)");
  } else if (base == "TEXCOORD") {
    if (!type_is({AccessorType::kVec2})) return bad("must be VEC2 (glTF 2.0 §3.7.2.1)");
    if (!is_float && !unorm && !(quantized && small_int)) return bad("must be FLOAT or normalized u8/u16 (glTF 2.0 §3.7.2.1)");
  } else if (base == "COLOR") {
    if (!type_is({AccessorType::kVec3, AccessorType::kVec4})) return bad("must be VEC3 or VEC4 (glTF 2.0 §3.7.2.1)");
    if (!is_float && !unorm && !(quantized && small_int)) return bad("must be FLOAT or normalized u8/u16 (glTF 2.0 §3.7.2.1)");
  } else if (base == "JOINTS" && !is_target) {
    if (!type_is({AccessorType::kVec4}) || (c != ComponentType::kUnsignedByte && c != ComponentType::kUnsignedShort) || a.normalized) {
      return bad("must be VEC4 unsigned byte or short (glTF 2.0 §3.7.2.1)");
    }
  } else if (base == "WEIGHTS" && !is_target) {
    if (!type_is({AccessorType::kVec4})) return bad("must be VEC4 (glTF 2.0 §3.7.2.1)");
    if (!is_float && !unorm) return bad("must be FLOAT or normalized u8/u16 (glTF 2.0 §3.7.2.1)");
  }
  return Ok{};
}

// §3.6.2.4: "each element of a vertex attribute MUST be aligned to 4-byte boundaries inside a bufferView (i.e.,
// accessor.byteOffset and bufferView.byteStride MUST be multiples of 4)". Without a byteStride the elements are
// packed at their own size, which must then be a multiple of 4 too (a tightly packed u8 VEC3 is not aligned).
Status checkVertexAlignment(const Asset& asset, uint32_t index, const std::string& where) {
  const Accessor& a = asset.accessors[index];
  if (a.buffer_view == kNone) return Ok{};
  const BufferView& view = asset.buffer_views[a.buffer_view];
  const size_t stride = view.byte_stride ? view.byte_stride : elementSize(a.component_type, a.type);
  if (a.byte_offset % 4 != 0) {
    return invalid(where, "accessor " + std::to_string(index) + " byteOffset " + std::to_string(a.byte_offset) +
                              " is not a multiple of 4 (glTF 2.0 §3.6.2.4: vertex attribute elements MUST be aligned to 4 bytes)");
  }
  if (stride % 4 != 0) {
    return invalid(where, "accessor " + std::to_string(index) + " elements are " + std::to_string(stride) +
                              " bytes apart (bufferView " + std::to_string(a.buffer_view) +
                              " has no byteStride), not a multiple of 4 (glTF 2.0 §3.6.2.4: vertex attribute elements "
                              "MUST be aligned to 4 bytes; give the bufferView a byteStride)");
  }
  return Ok{};
}

// Per-accessor facts that several rules need, computed at most once per accessor: a file with many
// primitives, nodes or samplers sharing one large accessor must not be re-read for each of them.
class AccessorCache {
 public:
  explicit AccessorCache(const Asset& asset) : asset_(asset), max_value_(asset.accessors.size()), times_(asset.accessors.size()) {}

  // Largest integer component (indices, JOINTS_n).
  uint32_t maxValue(uint32_t accessor) {
    auto& slot = max_value_[accessor];
    if (!slot.known) {
      for (uint32_t v : readAccessorUints(asset_, accessor)) slot.value = std::max(slot.value, v);
      slot.known = true;
    }
    return slot.value;
  }

  // Key-time rule of §3.11 (time[0] >= 0, strictly increasing); an empty message when it holds.
  const std::string& keyTimeProblem(uint32_t accessor) {
    auto& slot = times_[accessor];
    if (!slot.known) {
      slot.known = true;
      std::vector<float> times = readAccessorFloats(asset_, accessor);
      for (size_t k = 0; k < times.size(); ++k) {
        if (!(times[k] >= 0.0f)) {
          slot.problem = "key time " + std::to_string(times[k]) + " at " + std::to_string(k) +
                         " is negative or NaN (glTF 2.0 §5.8: time[0] >= 0)";
          break;
        }
        if (k > 0 && !(times[k] > times[k - 1])) {
          slot.problem = "key times must be strictly increasing; key " + std::to_string(k) + " (" +
                         std::to_string(times[k]) + ") is not after key " + std::to_string(k - 1) + " (glTF 2.0 §5.8)";
          break;
        }
      }
    }
    return slot.problem;
  }

 private:
  struct MaxSlot {
    bool known = false;
    uint32_t value = 0;
  };
  struct TimeSlot {
    bool known = false;
    std::string problem;
  };
  const Asset& asset_;
  std::vector<MaxSlot> max_value_;
  std::vector<TimeSlot> times_;
};

// §3.7.2.1: the largest value of the index component type is reserved (primitive restart).
uint32_t restartValue(ComponentType type) {
  switch (type) {
    case ComponentType::kUnsignedByte: return 0xFFu;
    case ComponentType::kUnsignedShort: return 0xFFFFu;
    default: return 0xFFFFFFFFu;
  }
}

Status validateMeshes(const Asset& asset, AccessorCache& cache) {
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const Mesh& mesh = asset.meshes[m];
    std::string mesh_where = at("meshes", m);
    if (mesh.primitives.empty()) return invalid(mesh_where + ".primitives", "must not be empty (glTF 2.0 §5.23)");
    size_t targets = mesh.primitives[0].targets.size();
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& primitive = mesh.primitives[p];
      std::string where = mesh_where + ".primitives[" + std::to_string(p) + "]";
      if (primitive.attributes.empty()) return invalid(where + ".attributes", "must not be empty (glTF 2.0 §5.24)");
      if (uint32_t(primitive.mode) > uint32_t(PrimitiveMode::kTriangleFan)) {
        return invalid(where + ".mode", "must be 0..6 (glTF 2.0 §5.24)");
      }
      uint32_t vertex_count = kNone;
      for (const Attribute& attribute : primitive.attributes) {
        std::string here = where + ".attributes." + printable(attribute.name);
        TRY(checkRequiredIndex(attribute.accessor, asset.accessors.size(), here, "accessor"));
        TRY(checkAttributeFormat(asset, attribute.name, attribute.accessor, false, here));
        TRY(checkVertexAlignment(asset, attribute.accessor, here));
        uint32_t count = asset.accessors[attribute.accessor].count;
        if (vertex_count == kNone) vertex_count = count;
        if (count != vertex_count) {
          return invalid(here, "count " + std::to_string(count) + " differs from the other attributes' " +
                                   std::to_string(vertex_count) + " (glTF 2.0 §3.7.2.1: all attributes MUST have the same count)");
        }
      }
      TRY(checkIndex(primitive.material, asset.materials.size(), where + ".material", "material"));
      if (primitive.indices != kNone) {
        TRY(checkIndex(primitive.indices, asset.accessors.size(), where + ".indices", "accessor"));
        const Accessor& indices = asset.accessors[primitive.indices];
        if (indices.type != AccessorType::kScalar ||
            (indices.component_type != ComponentType::kUnsignedByte &&
             indices.component_type != ComponentType::kUnsignedShort &&
             indices.component_type != ComponentType::kUnsignedInt) || indices.normalized) {
          return invalid(where + ".indices", "must be a SCALAR unsigned byte/short/int accessor (glTF 2.0 §3.7.2.1)");
        }
        uint32_t largest = cache.maxValue(primitive.indices);
        if (largest == restartValue(indices.component_type)) {
          return invalid(where + ".indices", "contains " + std::to_string(largest) +
                                                 ", the primitive restart value of its component type (glTF 2.0 §3.7.2.1: MUST NOT)");
        }
        if (largest >= vertex_count) {
          return invalid(where + ".indices", "index " + std::to_string(largest) + " is >= the vertex count " +
                                                 std::to_string(vertex_count) + " (glTF 2.0 §3.7.2.1)");
        }
      }
      if (primitive.targets.size() != targets) {
        return invalid(where + ".targets", "has " + std::to_string(primitive.targets.size()) + " morph targets but primitive 0 has " +
                                               std::to_string(targets) + " (glTF 2.0 §3.7.2.2: all primitives MUST have the same number of targets)");
      }
      for (size_t t = 0; t < primitive.targets.size(); ++t) {
        for (const Attribute& attribute : primitive.targets[t].attributes) {
          std::string here = where + ".targets[" + std::to_string(t) + "]." + printable(attribute.name);
          TRY(checkRequiredIndex(attribute.accessor, asset.accessors.size(), here, "accessor"));
          TRY(checkAttributeFormat(asset, attribute.name, attribute.accessor, true, here));
          TRY(checkVertexAlignment(asset, attribute.accessor, here));
          uint32_t count = asset.accessors[attribute.accessor].count;
          if (count != vertex_count) {
            return invalid(here, "count " + std::to_string(count) + " differs from the primitive's vertex count " +
                                     std::to_string(vertex_count) + " (glTF 2.0 §3.7.2.2)");
          }
        }
      }
    }
    if (!mesh.weights.empty() && mesh.weights.size() != targets) {
      return invalid(mesh_where + ".weights", "has " + std::to_string(mesh.weights.size()) + " weights for " +
                                                  std::to_string(targets) + " morph targets (glTF 2.0 §5.23: one per target)");
    }
  }
  return Ok{};
}

// §3.5.2: the node hierarchy MUST be a set of disjoint strict trees: no node with two parents, no cycles.
// Iterative (no recursion), linear in the number of nodes: a 100k-deep chain is fine.
Status validateNodeForest(const Asset& asset) {
  std::vector<uint32_t> parent(asset.nodes.size(), kNone);
  for (size_t n = 0; n < asset.nodes.size(); ++n) {
    for (uint32_t child : asset.nodes[n].children) {
      TRY(checkRequiredIndex(child, asset.nodes.size(), at("nodes", n) + ".children", "node"));
      if (child == n) return invalid(at("nodes", n) + ".children", "node is its own child (glTF 2.0 §3.5.2: no cycles)");
      if (parent[child] != kNone) {
        return invalid(at("nodes", child), "has two parents, nodes " + std::to_string(parent[child]) + " and " +
                                               std::to_string(n) + " (glTF 2.0 §3.5.2: the hierarchy MUST be a set of disjoint strict trees)");
      }
      parent[child] = uint32_t(n);
    }
  }
  // With single parents, a cycle is a parent chain that never reaches a root; walk with visit marks.
  std::vector<uint8_t> state(asset.nodes.size(), 0);  // 0 unseen, 1 on current chain, 2 reaches a root
  std::vector<uint32_t> chain;
  for (size_t start = 0; start < asset.nodes.size(); ++start) {
    chain.clear();
    uint32_t n = uint32_t(start);
    while (n != kNone && state[n] == 0) {
      state[n] = 1;
      chain.push_back(n);
      n = parent[n];
    }
    if (n != kNone && state[n] == 1) {
      return invalid(at("nodes", n), "is part of a cycle in the node hierarchy (glTF 2.0 §3.5.2: no cycles)");
    }
    for (uint32_t c : chain) state[c] = 2;
  }
  for (size_t s = 0; s < asset.scenes.size(); ++s) {
    for (uint32_t root : asset.scenes[s].nodes) {
      TRY(checkRequiredIndex(root, asset.nodes.size(), at("scenes", s) + ".nodes", "node"));
      if (parent[root] != kNone) {
        return invalid(at("scenes", s) + ".nodes", "node " + std::to_string(root) +
                                                       " is not a root node (glTF 2.0 §3.5.1: scene.nodes lists root nodes)");
      }
    }
  }
  return checkIndex(asset.scene, asset.scenes.size(), "scene", "scene");
}

Status validateNodes(const Asset& asset) {
  for (size_t n = 0; n < asset.nodes.size(); ++n) {
    const Node& node = asset.nodes[n];
    std::string where = at("nodes", n);
    TRY(checkIndex(node.mesh, asset.meshes.size(), where + ".mesh", "mesh"));
    TRY(checkIndex(node.skin, asset.skins.size(), where + ".skin", "skin"));
    TRY(checkIndex(node.camera, asset.cameras.size(), where + ".camera", "camera"));
    if (node.skin != kNone && node.mesh == kNone) return invalid(where + ".skin", "requires a mesh (glTF 2.0 §5.25)");
    if (!node.weights.empty()) {
      if (node.mesh == kNone) return invalid(where + ".weights", "requires a mesh (glTF 2.0 §5.25)");
      uint32_t targets = targetCount(asset.meshes[node.mesh]);
      if (node.weights.size() != targets) {
        return invalid(where + ".weights", "has " + std::to_string(node.weights.size()) + " weights for mesh " +
                                               std::to_string(node.mesh) + " with " + std::to_string(targets) +
                                               " morph targets (glTF 2.0 §5.25: one per target)");
      }
    }
  }
  return validateNodeForest(asset);
}

Status validateSkins(const Asset& asset, AccessorCache& cache) {
  for (size_t s = 0; s < asset.skins.size(); ++s) {
    const Skin& skin = asset.skins[s];
    std::string where = at("skins", s);
    if (skin.joints.empty()) return invalid(where + ".joints", "must not be empty (glTF 2.0 §5.28)");
    for (uint32_t joint : skin.joints) TRY(checkRequiredIndex(joint, asset.nodes.size(), where + ".joints", "node"));
    TRY(checkIndex(skin.skeleton, asset.nodes.size(), where + ".skeleton", "node"));
    if (skin.inverse_bind_matrices != kNone) {
      TRY(checkIndex(skin.inverse_bind_matrices, asset.accessors.size(), where + ".inverseBindMatrices", "accessor"));
      const Accessor& ibm = asset.accessors[skin.inverse_bind_matrices];
      if (ibm.type != AccessorType::kMat4 || ibm.component_type != ComponentType::kFloat) {
        return invalid(where + ".inverseBindMatrices", "must be a MAT4 FLOAT accessor (glTF 2.0 §5.28)");
      }
      if (ibm.count < skin.joints.size()) {
        return invalid(where + ".inverseBindMatrices", "has " + std::to_string(ibm.count) + " matrices for " +
                                                           std::to_string(skin.joints.size()) +
                                                           " joints (glTF 2.0 §5.28: count MUST be >= the number of joints)");
      }
    }
  }
  // Skinned primitives: JOINTS_0 and WEIGHTS_0 present; JOINTS_n values index skin.joints (§3.7.3.3).
  for (size_t n = 0; n < asset.nodes.size(); ++n) {
    const Node& node = asset.nodes[n];
    if (node.skin == kNone) continue;
    size_t joints = asset.skins[node.skin].joints.size();
    const std::vector<Primitive>& primitives = asset.meshes[node.mesh].primitives;
    for (size_t p = 0; p < primitives.size(); ++p) {
      for (const char* name : {"JOINTS_0", "WEIGHTS_0"}) {
        if (findAttribute(primitives[p].attributes, name) == kNone) {
          return invalid(at("nodes", n), "has skin " + std::to_string(node.skin) + " but meshes[" + std::to_string(node.mesh) +
                                             "].primitives[" + std::to_string(p) + "] has no " + name +
                                             " (glTF 2.0 §3.7.3.3: a skinned mesh MUST have JOINTS_0 and WEIGHTS_0)");
        }
      }
    }
    for (const Primitive& primitive : primitives) {
      for (const Attribute& attribute : primitive.attributes) {
        if (attribute.name.rfind("JOINTS_", 0) != 0) continue;
        uint32_t joint = cache.maxValue(attribute.accessor);
        if (joint >= joints) {
          return invalid(at("nodes", n), "mesh " + std::to_string(node.mesh) + " " + printable(attribute.name) + " uses joint " +
                                             std::to_string(joint) + " but skin " + std::to_string(node.skin) +
                                             " has " + std::to_string(joints) + " joints (glTF 2.0 §3.7.3.3)");
        }
      }
    }
  }
  return Ok{};
}

// §3.11 output formats: translation/scale float; rotation/weights float or normalized 8/16-bit integers.
// KHR_mesh_quantization widens translation/scale to 8/16-bit integers (normalized or not).
bool outputFormatOk(const Asset& asset, const Accessor& output, TargetPath path) {
  ComponentType c = output.component_type;
  if (c == ComponentType::kFloat) return true;
  bool small_int = c == ComponentType::kByte || c == ComponentType::kUnsignedByte || c == ComponentType::kShort ||
                   c == ComponentType::kUnsignedShort;
  if (path == TargetPath::kRotation || path == TargetPath::kWeights) return small_int && output.normalized;
  return small_int && hasExtension(asset, "KHR_mesh_quantization");
}

Status validateAnimations(const Asset& asset, AccessorCache& cache) {
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    const Animation& animation = asset.animations[a];
    std::string anim_where = at("animations", a);
    if (animation.channels.empty()) return invalid(anim_where + ".channels", "must not be empty (glTF 2.0 §5.5)");
    if (animation.samplers.empty()) return invalid(anim_where + ".samplers", "must not be empty (glTF 2.0 §5.5)");
    for (size_t s = 0; s < animation.samplers.size(); ++s) {
      const AnimationSampler& sampler = animation.samplers[s];
      std::string where = anim_where + ".samplers[" + std::to_string(s) + "]";
      TRY(checkRequiredIndex(sampler.input, asset.accessors.size(), where + ".input", "accessor"));
      TRY(checkRequiredIndex(sampler.output, asset.accessors.size(), where + ".output", "accessor"));
      const Accessor& input = asset.accessors[sampler.input];
      if (input.type != AccessorType::kScalar || input.component_type != ComponentType::kFloat) {
        return invalid(where + ".input", "must be a SCALAR FLOAT accessor (glTF 2.0 §5.8)");
      }
      const std::string& problem = cache.keyTimeProblem(sampler.input);
      if (!problem.empty()) return invalid(where + ".input", problem);
      if (sampler.interpolation == Interpolation::kCubicSpline && input.count < 2) {
        return invalid(where, "CUBICSPLINE needs at least 2 keys (glTF 2.0 Appendix C)");
      }
    }
    std::unordered_set<uint64_t> targeted;  // (node, path) pairs: hashed, so many channels stay linear
    for (size_t c = 0; c < animation.channels.size(); ++c) {
      const AnimationChannel& channel = animation.channels[c];
      std::string where = anim_where + ".channels[" + std::to_string(c) + "]";
      TRY(checkRequiredIndex(channel.sampler, animation.samplers.size(), where + ".sampler", "sampler"));
      TRY(checkIndex(channel.node, asset.nodes.size(), where + ".target.node", "node"));
      if (channel.node == kNone) continue;  // §3.11: a channel without a node is ignored
      if (!targeted.insert(uint64_t(channel.node) << 8 | uint64_t(channel.path)).second) {
        return invalid(where + ".target", "node " + std::to_string(channel.node) +
                                              " and path are already targeted in this animation (glTF 2.0 §3.11: MUST NOT)");
      }
      const AnimationSampler& sampler = animation.samplers[channel.sampler];
      const Accessor& input = asset.accessors[sampler.input];
      const Accessor& output = asset.accessors[sampler.output];
      size_t per_key = 1;
      AccessorType expected = AccessorType::kVec3;
      if (channel.path == TargetPath::kRotation) expected = AccessorType::kVec4;
      if (channel.path == TargetPath::kWeights) {
        expected = AccessorType::kScalar;
        uint32_t mesh = asset.nodes[channel.node].mesh;
        if (mesh == kNone || targetCount(asset.meshes[mesh]) == 0) {
          return invalid(where + ".target", "animates weights of node " + std::to_string(channel.node) +
                                                ", which has no mesh with morph targets (glTF 2.0 §3.11: MUST NOT)");
        }
        per_key = targetCount(asset.meshes[mesh]);
      }
      if (output.type != expected) {
        return invalid(where, std::string("sampler output is ") + accessorTypeName(output.type) + " but the path needs " +
                                  accessorTypeName(expected) + " (glTF 2.0 §3.11)");
      }
      if (!outputFormatOk(asset, output, channel.path)) {
        return invalid(where, std::string("sampler output is ") + componentTypeName(output.component_type) +
                                  (output.normalized ? " normalized" : "") +
                                  ", not a component type this path allows (glTF 2.0 §3.11, KHR_mesh_quantization)");
      }
      if (sampler.interpolation == Interpolation::kCubicSpline) per_key *= 3;
      if (size_t(output.count) != size_t(input.count) * per_key) {
        return invalid(where, "sampler " + std::to_string(channel.sampler) + " output count " + std::to_string(output.count) +
                                  " != input count " + std::to_string(input.count) + " x " + std::to_string(per_key) +
                                  " (glTF 2.0 §3.11: x3 for CUBICSPLINE, x targets for weights)");
      }
    }
  }
  return Ok{};
}

Status validateMaterials(const Asset& asset) {
  for (size_t m = 0; m < asset.materials.size(); ++m) {
    const Material& material = asset.materials[m];
    std::string where = at("materials", m);
    const std::pair<const TextureRef*, const char*> refs[] = {
        {&material.base_color_texture, ".pbrMetallicRoughness.baseColorTexture"},
        {&material.metallic_roughness_texture, ".pbrMetallicRoughness.metallicRoughnessTexture"},
        {&material.normal_texture, ".normalTexture"},
        {&material.occlusion_texture, ".occlusionTexture"},
        {&material.emissive_texture, ".emissiveTexture"}};
    for (const auto& [ref, name] : refs) TRY(checkIndex(ref->texture, asset.textures.size(), where + name + ".index", "texture"));
  }
  for (size_t t = 0; t < asset.textures.size(); ++t) {
    TRY(checkIndex(asset.textures[t].sampler, asset.samplers.size(), at("textures", t) + ".sampler", "sampler"));
    TRY(checkIndex(asset.textures[t].source, asset.images.size(), at("textures", t) + ".source", "image"));
    TRY(checkIndex(asset.textures[t].basisu_source, asset.images.size(),
                   at("textures", t) + ".extensions.KHR_texture_basisu.source", "image"));
  }
  for (size_t i = 0; i < asset.images.size(); ++i) {
    const Image& image = asset.images[i];
    TRY(checkIndex(image.buffer_view, asset.buffer_views.size(), at("images", i) + ".bufferView", "bufferView"));
    if ((image.buffer_view == kNone) == image.uri.empty()) {
      return invalid(at("images", i), "must have exactly one of uri and bufferView (glTF 2.0 §5.18)");
    }
  }
  return Ok{};
}

#undef TRY

}  // namespace

Status validateAsset(const Asset& asset, const Budget& budget) {
  for (size_t b = 0; b < asset.buffers.size(); ++b) {
    if (asset.buffers[b].data.size() < asset.buffers[b].byte_length) {
      return fail(Error::kInvalidGltf, at("buffers", b) + ": holds " + std::to_string(asset.buffers[b].data.size()) +
                                           " bytes, fewer than its byteLength " + std::to_string(asset.buffers[b].byte_length));
    }
  }
  // Order matters: each step may rely on the references the steps before it checked.
  if (Status status = validateBufferViews(asset); !status) return status;
  if (Status status = validateAccessors(asset); !status) return status;
  // What decoding and posing will cost, from the structure alone (morphkit/budget.h): before any rule below
  // reads accessor data, so that nothing large is read or decoded for a file over budget.
  if (Status status = checkBudget(estimateCost(asset), budget); !status) return status;
  if (Status status = validateAccessorData(asset); !status) return status;
  AccessorCache cache(asset);
  if (Status status = validateMeshes(asset, cache); !status) return status;
  if (Status status = validateNodes(asset); !status) return status;
  if (Status status = validateSkins(asset, cache); !status) return status;
  if (Status status = validateAnimations(asset, cache); !status) return status;
  if (Status status = validateMaterials(asset); !status) return status;
  return Ok{};
}

}  // namespace morphkit
