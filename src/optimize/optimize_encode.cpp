// SPDX-License-Identifier: MIT
// optimizeAsset's encoder: every accessor of the input rewritten into one new buffer, each vertex attribute and
// each morph target on the coarsest grid its error allowance permits (docs/OPTIMIZE.md, "Grids"). Its bufferViews,
// animations, skins and images: optimize_encode_views.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "morphkit/model/accessor.h"
#include "morphkit/model/asset_builder.h"
#include "optimize_encoder.h"
#include "optimize_grids.h"
#include "optimize_internal.h"

namespace morphkit::optimize_detail {
namespace {

std::string dequantRole(const std::string& role, const Dequant* dequant) {
  return dequant ? role + dequant->role : role;
}

// The grid of an extent (lo, hi per axis): its center, half its largest side, and the coarsest step within
// `allowance` (a vector error), at least the finest 16 bits hold over the extent, or invalid when that finest step
// passes `floor`.
Dequant gridOver(const std::array<double, 6>& box, double allowance, double floor, std::string role) {
  Dequant d;
  d.role = std::move(role);
  if (!(box[0] <= box[3])) return d;
  for (int c = 0; c < 3; ++c) d.center[c] = 0.5 * (box[c] + box[3 + c]);
  d.half = std::max({box[3] - box[0], box[4] - box[1], box[5] - box[2]}) * 0.5;
  const double finest = d.half / 32767.0;
  double step = 2.0 * allowance / kSqrt3;
  if (step < finest) step = finest * kSqrt3 / 2.0 <= floor ? finest : 0.0;
  d.step = step;
  d.valid = d.half > 0 && std::isfinite(d.half) && step > 0 && std::isfinite(step);
  return d;
}

void growBox(std::array<double, 6>& box, std::span<const float> xyz) {
  for (size_t i = 0; i < xyz.size(); ++i) {
    box[i % 3] = std::min(box[i % 3], double(xyz[i]));
    box[3 + i % 3] = std::max(box[3 + i % 3], double(xyz[i]));
  }
}

constexpr std::array<double, 6> kEmptyBox = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};

bool skinnedPrimitive(const Primitive& primitive) {
  return findAttribute(primitive.attributes, "JOINTS_0") != kNone &&
         findAttribute(primitive.attributes, "WEIGHTS_0") != kNone;
}

}  // namespace

// A skin can carry a dequantization when every primitive it skins is drawn by that skin alone.
void OptimizeEncoder::planDequants() {
  const Asset& a = input_;
  mesh_skin_.assign(a.meshes.size(), kNone);
  std::vector<bool> mixed(a.meshes.size(), false);
  for (const Node& node : a.nodes) {
    if (node.mesh == kNone) continue;
    if (node.skin == kNone || (mesh_skin_[node.mesh] != kNone && mesh_skin_[node.mesh] != node.skin)) {
      mixed[node.mesh] = true;
    } else {
      mesh_skin_[node.mesh] = node.skin;
    }
  }
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    if (mixed[m]) mesh_skin_[m] = kNone;
  }
  skin_dequant_.assign(a.skins.size(), Dequant{});
  std::vector<bool> blocked(a.skins.size(), false);
  std::vector<std::array<double, 6>> box(a.skins.size(), kEmptyBox);
  for (const Node& node : a.nodes) {
    if (node.mesh == kNone || node.skin == kNone) continue;
    if (mesh_skin_[node.mesh] != node.skin) {
      blocked[node.skin] = true;  // the skin also draws a mesh another skin or a rigid node draws
      continue;
    }
    for (const Primitive& primitive : a.meshes[node.mesh].primitives) {
      if (!skinnedPrimitive(primitive)) continue;
      if (positionDeltaMissingSomewhere(primitive)) blocked[node.skin] = true;
      const uint32_t position = findAttribute(primitive.attributes, "POSITION");
      if (position == kNone) continue;
      growBox(box[node.skin], readAccessorFloats(a, position));
    }
  }
  for (size_t s = 0; s < a.skins.size(); ++s) {
    if (blocked[s] || !quantize_) continue;  // floats need no grid
    skin_dequant_[s] =
        gridOver(box[s], budget_.shared_position, budget_.base_position_floor, "@skin" + std::to_string(s));
  }
}

// An unskinned mesh with carriers (the node-dequantization pass) gets one grid over its primitives' base positions.
void OptimizeEncoder::planMeshDequants() {
  mesh_dequant_.assign(input_.meshes.size(), Dequant{});
  for (uint32_t m = 0; m < input_.meshes.size(); ++m) {
    if (m >= carriers_.size() || carriers_[m].empty() || !quantize_) continue;
    std::array<double, 6> box = kEmptyBox;
    for (const Primitive& primitive : input_.meshes[m].primitives) {
      growBox(box, readAccessorFloats(input_, findAttribute(primitive.attributes, "POSITION")));
    }
    mesh_dequant_[m] = gridOver(box, budget_.mesh_position, budget_.base_position_floor, "@mesh" + std::to_string(m));
  }
}

// D = translate(center) · scale(step) after each carrier's local transform: L · D (TRS stays TRS, the scale uniform).
void OptimizeEncoder::foldDequantIntoNodes() {
  for (uint32_t m = 0; m < mesh_dequant_.size(); ++m) {
    const Dequant& d = mesh_dequant_[m];
    if (!d.valid) continue;
    for (uint32_t n : carriers_[m]) {
      Node& node = out_.asset.nodes[n];
      DMat4 dequant;
      dequant.m = {d.step, 0, 0, 0, 0, d.step, 0, 0, 0, 0, d.step, 0, d.center[0], d.center[1], d.center[2], 1};
      if (node.has_matrix) {
        node.matrix = node.matrix * dequant;
        continue;
      }
      const DMat4 local = composeTRSDouble(node.translation, node.rotation, node.scale);
      const DVec3 moved{local.m[0] * d.center[0] + local.m[4] * d.center[1] + local.m[8] * d.center[2] + local.m[12],
                        local.m[1] * d.center[0] + local.m[5] * d.center[1] + local.m[9] * d.center[2] + local.m[13],
                        local.m[2] * d.center[0] + local.m[6] * d.center[1] + local.m[10] * d.center[2] + local.m[14]};
      node.translation = moved;
      node.scale = DVec3{node.scale.x * d.step, node.scale.y * d.step, node.scale.z * d.step};
    }
  }
}

const Dequant* OptimizeEncoder::dequantOf(uint32_t mesh, const Primitive& primitive) const {
  if (mesh < mesh_dequant_.size() && mesh_dequant_[mesh].valid) return &mesh_dequant_[mesh];
  const uint32_t skin = mesh_skin_[mesh];
  if (skin == kNone || !skinnedPrimitive(primitive) || !skin_dequant_[skin].valid) return nullptr;
  return &skin_dequant_[skin];
}

// The skinned nodes that draw `primitive` (the output's copy, its accessors being rewritten: the draws name the
// input's by index).
std::vector<const SkinnedDraw*> OptimizeEncoder::drawsOf(uint32_t mesh, const Primitive& primitive) const {
  const uint32_t index = uint32_t(&primitive - out_.asset.meshes[mesh].primitives.data());
  std::vector<const SkinnedDraw*> draws;
  for (const SkinnedDraw& draw : draws_) {
    if (draw.mesh == mesh && draw.primitive == index) draws.push_back(&draw);
  }
  return draws;
}

// A skinned base POSITION: integers on the skin's grid, D = translate(center) · scale(step) in its inverse bind
// matrices; the vertices that set the largest error rounded where their skinned error over the verified poses is
// least, their targets' roundings too (kept in delta_rounding_ for positionDelta).
uint32_t OptimizeEncoder::skinnedBase(uint32_t mesh, const Primitive& primitive, uint32_t accessor,
                                      const Dequant& dequant) {
  const auto key = std::make_pair(accessor, dequantRole("POSITION", &dequant));
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  const uint32_t index = uint32_t(&primitive - out_.asset.meshes[mesh].primitives.data());
  std::vector<DeltaRounding> rounded;
  const std::vector<int16_t> ints =
      roundSkinnedPositions(input_, input_.meshes[mesh].primitives[index], dequant.step, dequant.center,
                            drawsOf(mesh, primitive), budget_.keep_nearest, &rounded, pool_);
  for (const DeltaRounding& d : rounded) {
    const uint32_t a = findAttribute(input_.meshes[mesh].primitives[index].targets[d.target].attributes, "POSITION");
    delta_rounding_[a].push_back(d);
  }
  const uint32_t made =
      addAccessor(packed(std::span<const int16_t>(ints), 3, ComponentType::kShort, false, AccessorType::kVec3, true),
                  ViewPart::kBase, kArrayBuffer, true);
  done_[key] = made;
  return made;
}

// An unskinned mesh's base POSITION: integers on its grid, each vertex at its nearest grid point (its carriers' D
// undoes them).
uint32_t OptimizeEncoder::meshBase(uint32_t accessor, const Dequant& dequant) {
  const auto key = std::make_pair(accessor, dequantRole("POSITION", &dequant));
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  const std::vector<float> values = readAccessorFloats(input_, accessor);
  std::vector<int16_t> ints(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const double q = std::round((double(values[i]) - dequant.center[i % 3]) / dequant.step);
    ints[i] = int16_t(std::clamp(q, -32767.0, 32767.0));
  }
  const uint32_t made =
      addAccessor(packed(std::span<const int16_t>(ints), 3, ComponentType::kShort, false, AccessorType::kVec3, true),
                  ViewPart::kBase, kArrayBuffer, true);
  done_[key] = made;
  return made;
}

uint32_t OptimizeEncoder::baseAttribute(const std::string& name, uint32_t accessor, const Dequant* dequant) {
  if (name != "POSITION") dequant = nullptr;
  const auto key = std::make_pair(accessor, dequantRole(name, dequant));
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  const Accessor& a = input_.accessors[accessor];
  std::vector<float> values = readAccessorFloats(input_, accessor);
  const double allowance = budget_.base_position;
  const std::span<const float> v(values);
  const uint32_t components = componentCount(a.type);
  uint32_t result = kNone;
  auto starts = [&](std::string_view prefix) { return name.compare(0, prefix.size(), prefix) == 0; };
  if (!quantize_ && (name == "POSITION" || name == "NORMAL" || name == "TANGENT")) {
    // Without KHR_mesh_quantization core glTF allows these as floats only (§3.7.2.1).
    result = floatCopy(accessor, ViewPart::kBase, kArrayBuffer, name == "POSITION");
  } else if (name == "POSITION") {
    std::vector<int16_t> grid = snorm16OnGrid(v, allowance);
    // 16 bits are finer than a tenth of the bound allows, but within its floor: the full 16 bits (the base is a
    // fiftieth of the bytes a face's targets take; floats would double it).
    if (grid.empty()) grid = snorm16OnGrid(v, std::max(allowance, budget_.base_position_floor));
    result = grid.empty() ? addAccessor(packed(v, 3, ComponentType::kFloat, false, AccessorType::kVec3, true),
                                        ViewPart::kBase, kArrayBuffer, true)
                          : addAccessor(packed(std::span<const int16_t>(grid), 3, ComponentType::kShort, true,
                                               AccessorType::kVec3, true),
                                        ViewPart::kBase, kArrayBuffer, true);
  } else if ((name == "NORMAL" || name == "TANGENT") && allWithin(v, -1.0f, 1.0f)) {
    std::vector<int8_t> ints = normalizedInts<int8_t>(v, 127.0);
    result = addAccessor(packed(std::span<const int8_t>(ints), components, ComponentType::kByte, true, a.type, false),
                         ViewPart::kBase, kArrayBuffer, true);
  } else if (starts("TEXCOORD_") && allWithin(v, 0.0f, 1.0f)) {
    std::vector<uint16_t> ints(values.size());
    for (size_t i = 0; i < values.size(); ++i) ints[i] = uint16_t(std::lround(double(values[i]) * 65535.0));
    result = addAccessor(
        packed(std::span<const uint16_t>(ints), 2, ComponentType::kUnsignedShort, true, AccessorType::kVec2, false),
        ViewPart::kBase, kArrayBuffer, true);
  } else if (starts("JOINTS_")) {
    const std::vector<uint32_t> joints = readAccessorUints(input_, accessor);
    const uint32_t largest = joints.empty() ? 0 : *std::max_element(joints.begin(), joints.end());
    if (largest < 256) {
      std::vector<uint8_t> small(joints.begin(), joints.end());
      result = addAccessor(
          packed(std::span<const uint8_t>(small), 4, ComponentType::kUnsignedByte, false, AccessorType::kVec4, false),
          ViewPart::kBase, kArrayBuffer, true);
    } else {
      result = rawCopy(accessor, ViewPart::kBase);
    }
  } else if (a.component_type == ComponentType::kFloat || starts("COLOR_") || starts("TEXCOORD_") || name == "NORMAL" ||
             name == "TANGENT") {
    result = floatCopy(accessor, ViewPart::kBase, kArrayBuffer, false);
  } else {
    result = rawCopy(accessor, ViewPart::kBase);
  }
  done_[key] = result;
  return result;
}

// WEIGHTS_n of a primitive: all its sets together, so each vertex's integers keep its sum.
uint32_t OptimizeEncoder::skinWeights(uint32_t mesh, const Primitive& primitive, uint32_t set) {
  const std::vector<uint32_t> sets = weightSets(primitive);
  const auto key = std::make_pair(sets[set], std::string("WEIGHTS"));
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  const uint32_t influences = uint32_t(4 * sets.size());
  const std::vector<float> weights = interleavedWeights(input_, sets);
  const uint32_t index = uint32_t(&primitive - out_.asset.meshes[mesh].primitives.data());
  const std::vector<const SkinnedDraw*> draws = drawsOf(mesh, primitive);
  const Primitive& original = input_.meshes[mesh].primitives[index];
  const double scale = budget_.u8_skin_weights ? 255.0 : 65535.0;
  for (const RoundedSkinWeights& done : budget_.rounded_u8_weights) {  // skinWeightError's, rounded already
    if (budget_.u8_skin_weights && done.mesh == mesh && done.primitive == index) {
      return skinWeightSets<uint8_t>(done.ints, sets, set, ComponentType::kUnsignedByte);
    }
  }
  double largest = 0.0;  // what skinWeightError measured before the attempt
  const std::vector<uint32_t> ints = roundSkinWeights(input_, original, weights, influences, scale, draws,
                                                      budget_.u8_skin_weights ? &largest : nullptr, pool_);
  return budget_.u8_skin_weights ? skinWeightSets<uint8_t>(ints, sets, set, ComponentType::kUnsignedByte)
                                 : skinWeightSets<uint16_t>(ints, sets, set, ComponentType::kUnsignedShort);
}

// Quantized jointly, then split back into one VEC4 accessor per set; returns set `set`'s.
template <class Int>
uint32_t OptimizeEncoder::skinWeightSets(const std::vector<uint32_t>& ints, const std::vector<uint32_t>& sets,
                                         uint32_t set, ComponentType component) {
  const uint32_t influences = uint32_t(4 * sets.size());
  const size_t vertices = ints.size() / influences;
  uint32_t result = kNone;
  for (size_t s = 0; s < sets.size(); ++s) {
    std::vector<Int> part(4 * vertices);
    for (size_t v = 0; v < vertices; ++v) {
      for (size_t i = 0; i < 4; ++i) part[4 * v + i] = Int(ints[v * influences + 4 * s + i]);
    }
    const uint32_t made =
        addAccessor(packed(std::span<const Int>(part), 4, component, true, AccessorType::kVec4, false), ViewPart::kBase,
                    kArrayBuffer, true);
    done_[std::make_pair(sets[s], std::string("WEIGHTS"))] = made;
    if (s == set) result = made;
  }
  return result;
}

// A POSITION delta on its grid (a skinned primitive's: its skin's one grid). Rows that round to zero cost nothing in
// a sparse accessor, and almost nothing dense once meshopt has encoded them: with meshopt the target is dense (the
// gzipped file is smaller than with the sparse ones, even where meshopt's own stream is larger: docs/OPTIMIZE.md,
// "Experiments"), without it the smaller of the two. An all-zero target has no data at all.
uint32_t OptimizeEncoder::positionDelta(uint32_t accessor, uint32_t vertices, const Dequant* dequant,
                                        uint32_t base_accessor) {
  // An unskinned mesh's deltas on its own grid, whose base is rounded to the nearest point (meshBase): a component
  // that moves half a step or more is stored as the difference of the two rounded positions, so the target alone at
  // weight 1 lands on the grid point nearest its exact position (its error is the rest pose's, not the base's plus
  // the delta's); one that rounds to zero on its own stays zero (docs/OPTIMIZE.md, "Experiments").
  const bool absolute = dequant && dequant->role.rfind("@mesh", 0) == 0 && base_accessor != kNone;
  const auto key = std::make_pair(accessor, dequantRole("POSITION_DELTA", dequant) +
                                                (absolute ? "+" + std::to_string(base_accessor) : std::string()));
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  std::vector<float> values = readAccessorFloats(input_, accessor);
  const std::vector<float> base = absolute ? readAccessorFloats(input_, base_accessor) : std::vector<float>();
  std::vector<int16_t> grid;
  if (dequant) {
    // A skin's: rounded on their own, not as (base + delta) on the grid less the base's rounding: a delta small enough
    // to round to zero stays zero, and the animated poses' error is smaller (docs/OPTIMIZE.md, "Experiments"); the
    // vertices skinnedBase re-rounded take its choice.
    grid.resize(values.size());
    for (size_t i = 0; i < values.size() && !grid.empty(); ++i) {
      double m = std::round(double(values[i]) / dequant->step);
      if (absolute && m != 0 && i < base.size()) {
        const double from = double(base[i]) - dequant->center[i % 3];
        m = std::round((from + double(values[i])) / dequant->step) - std::round(from / dequant->step);
      }
      if (m < -32767 || m > 32767)
        grid.clear();  // a delta beyond the skin's extent: floats then
      else
        grid[i] = int16_t(m);
    }
    if (!grid.empty()) {
      if (auto it = delta_rounding_.find(accessor); it != delta_rounding_.end()) {
        for (const DeltaRounding& d : it->second) std::copy_n(d.q, 3, &grid[3 * size_t(d.vertex)]);
      }
    }
    for (float& v : values) v = float(v / dequant->step);
  } else if (quantize_) {
    grid = snorm16OnGrid(values, budget_.target_delta);
  }  // else: floats (core glTF's only delta type, §3.7.2.2)
  const bool normalized = dequant == nullptr;
  uint32_t result = kNone;
  if (grid.empty()) {
    result =
        addAccessor(packed(std::span<const float>(values), 3, ComponentType::kFloat, false, AccessorType::kVec3, true),
                    ViewPart::kTargets, kArrayBuffer, true);
    done_[key] = result;
    return result;
  }
  std::vector<uint32_t> rows;
  for (uint32_t v = 0; v < vertices; ++v) {
    if (grid[3 * v] != 0 || grid[3 * v + 1] != 0 || grid[3 * v + 2] != 0) rows.push_back(v);
  }
  Stream dense =
      packed(std::span<const int16_t>(grid), 3, ComponentType::kShort, normalized, AccessorType::kVec3, true);
  const size_t index_size = vertices <= 65536 ? 2 : 4;
  const size_t sparse_bytes = rows.size() * (index_size + 6);
  if (!rows.empty() && (meshopt_ || dense.bytes.size() <= sparse_bytes)) {
    result = addShared(dense, "POSITION");
  } else {
    // §3.6.2.3: zeros (no bufferView) with the non-zero rows substituted; min/max over the whole result.
    Accessor a;
    a.component_type = ComponentType::kShort;
    a.normalized = normalized;
    a.count = vertices;
    a.type = AccessorType::kVec3;
    a.min = dense.min;
    a.max = dense.max;
    if (a.min.empty()) a.min = a.max = {0, 0, 0};
    if (!rows.empty()) {
      a.has_sparse = true;
      a.sparse.count = uint32_t(rows.size());
      std::vector<uint8_t> index_bytes(rows.size() * index_size);
      std::vector<uint8_t> value_bytes(rows.size() * 6);
      for (size_t i = 0; i < rows.size(); ++i) {
        if (index_size == 2) {
          const uint16_t r = uint16_t(rows[i]);
          std::memcpy(index_bytes.data() + 2 * i, &r, 2);
        } else {
          std::memcpy(index_bytes.data() + 4 * i, &rows[i], 4);
        }
        std::memcpy(value_bytes.data() + 6 * i, &grid[3 * size_t(rows[i])], 6);
      }
      a.sparse.indices_component_type = index_size == 2 ? ComponentType::kUnsignedShort : ComponentType::kUnsignedInt;
      a.sparse.indices_buffer_view = addView(index_bytes, 0, 0, ViewPart::kTargets, false);
      a.sparse.values_buffer_view = addView(value_bytes, 0, 0, ViewPart::kTargets, false);
    }
    out_.asset.accessors.push_back(std::move(a));
    result = uint32_t(out_.asset.accessors.size() - 1);
  }
  done_[key] = result;
  return result;
}

// NORMAL / TANGENT deltas: 8-bit like the base directions when they fit [-1, 1], else kept as floats.
uint32_t OptimizeEncoder::directionDelta(uint32_t accessor) {
  const auto key = std::make_pair(accessor, std::string("DIRECTION_DELTA"));
  if (auto it = done_.find(key); it != done_.end()) return it->second;
  const std::vector<float> values = readAccessorFloats(input_, accessor);
  uint32_t result;
  if (quantize_ && allWithin(values, -1.0f, 1.0f)) {
    std::vector<int8_t> ints = normalizedInts<int8_t>(values, 127.0);
    result = addShared(packed(std::span<const int8_t>(ints), 3, ComponentType::kByte, true, AccessorType::kVec3, false),
                       "DIRECTION");
  } else {
    result = floatCopy(accessor, ViewPart::kTargets, kArrayBuffer, false);
  }
  done_[key] = result;
  return result;
}

// Indices in the input's order: reordering triangles for the vertex cache, or vertices for fetch, made the meshopt
// streams smaller but the gzipped file larger (docs/OPTIMIZE.md, "Experiments").
uint32_t OptimizeEncoder::indices(const Primitive& primitive, uint32_t vertices) {
  std::vector<uint32_t> list = readAccessorUints(input_, primitive.indices);
  const bool triangles = primitive.mode == PrimitiveMode::kTriangles && list.size() % 3 == 0;
  const bool small = vertices < 65535;
  Accessor a;
  a.count = uint32_t(list.size());
  a.type = AccessorType::kScalar;
  std::vector<uint8_t> bytes;
  if (small) {
    a.component_type = ComponentType::kUnsignedShort;
    bytes.resize(list.size() * 2);
    for (size_t i = 0; i < list.size(); ++i) {
      const uint16_t v = uint16_t(list[i]);
      std::memcpy(bytes.data() + 2 * i, &v, 2);
    }
  } else {
    a.component_type = ComponentType::kUnsignedInt;
    bytes.resize(list.size() * 4);
    std::memcpy(bytes.data(), list.data(), bytes.size());
  }
  a.buffer_view = addView(bytes, 0, kElementArrayBuffer, ViewPart::kBase, false);
  if (meshopt_ && triangles && !list.empty()) {
    out_.meshopt.push_back({a.buffer_view, MeshoptMode::kTriangles, small ? 2u : 4u});
  }
  out_.asset.accessors.push_back(std::move(a));
  return uint32_t(out_.asset.accessors.size() - 1);
}

void OptimizeEncoder::encodePrimitive(uint32_t mesh, Primitive& primitive) {
  const Dequant* dequant = dequantOf(mesh, primitive);
  const uint32_t position = findAttribute(primitive.attributes, "POSITION");
  const uint32_t vertices = position != kNone ? input_.accessors[position].count : 0;
  for (Attribute& attribute : primitive.attributes) {
    if (attribute.name.rfind("WEIGHTS_", 0) == 0) {
      attribute.accessor = skinWeights(mesh, primitive, uint32_t(std::stoul(attribute.name.substr(8))));
    } else {
      const bool own_grid = dequant && attribute.name == "POSITION";
      const bool unskinned = own_grid && dequant->role.rfind("@mesh", 0) == 0;
      attribute.accessor = !own_grid   ? baseAttribute(attribute.name, attribute.accessor, dequant)
                           : unskinned ? meshBase(attribute.accessor, *dequant)
                                       : skinnedBase(mesh, primitive, attribute.accessor, *dequant);
    }
  }
  if (primitive.indices != kNone) primitive.indices = indices(primitive, vertices);
  for (MorphTarget& target : primitive.targets) {
    for (Attribute& attribute : target.attributes) {
      if (attribute.name == "POSITION") {
        attribute.accessor = positionDelta(attribute.accessor, vertices, dequant, position);
      } else if (attribute.name == "NORMAL" || attribute.name == "TANGENT") {
        attribute.accessor = directionDelta(attribute.accessor);
      } else {
        attribute.accessor = floatCopy(attribute.accessor, ViewPart::kTargets, kArrayBuffer, false);
      }
    }
  }
}

Expected<EncodedAsset> OptimizeEncoder::run() {
  out_.asset = input_;
  out_.asset.buffers.clear();
  out_.asset.buffer_views.clear();
  out_.asset.accessors.clear();
  planDequants();
  planMeshDequants();
  for (uint32_t m = 0; m < out_.asset.meshes.size(); ++m) {
    for (Primitive& primitive : out_.asset.meshes[m].primitives) encodePrimitive(m, primitive);
  }
  foldDequantIntoNodes();
  encodeAnimations();
  writeShared();
  encodeSkinsAndImages();
  if (out_.asset.buffers.empty()) out_.asset.buffers.emplace_back();
  return std::move(out_);
}

Expected<EncodedAsset> encodeAsset(const PassDocument& document, const EncodeBudget& budget,
                                   const EncodeExtensions& extensions, std::span<const SkinnedDraw> draws,
                                   ThreadPool* pool) {
  return OptimizeEncoder(document, budget, extensions, draws, pool).run();
}

}  // namespace morphkit::optimize_detail
