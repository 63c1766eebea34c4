// SPDX-License-Identifier: MIT
#include "morphkit/model/primitive.h"

#include <cmath>
#include <string>

#include "morphkit/model/accessor.h"

namespace morphkit {

// Attribute sets are numbered densely from 0 (§3.7.2.1: TEXCOORD_0, TEXCOORD_1, ...); stop at the first gap.
static std::vector<uint32_t> attributeSet(const std::vector<Attribute>& attributes, const std::string& prefix) {
  std::vector<uint32_t> set;
  for (uint32_t n = 0;; ++n) {
    uint32_t accessor = findAttribute(attributes, prefix + std::to_string(n));
    if (accessor == kNone) break;
    set.push_back(accessor);
  }
  return set;
}

// COLOR_n may be VEC3 or VEC4; expand to RGBA with `alpha` (1 for colors, 0 for color deltas).
static std::vector<float> readColors(const Asset& asset, uint32_t accessor, float alpha) {
  std::vector<float> raw = readAccessorFloats(asset, accessor);
  if (asset.accessors[accessor].type == AccessorType::kVec4) return raw;
  size_t count = raw.size() / 3;
  std::vector<float> rgba(count * 4);
  for (size_t i = 0; i < count; ++i) {
    rgba[i * 4 + 0] = raw[i * 3 + 0];
    rgba[i * 4 + 1] = raw[i * 3 + 1];
    rgba[i * 4 + 2] = raw[i * 3 + 2];
    rgba[i * 4 + 3] = alpha;
  }
  return rgba;
}

static void readDelta(const Asset& asset, uint32_t accessor, std::vector<float>& dense,
                      std::vector<uint32_t>& sparse_indices, bool& is_sparse) {
  if (accessor == kNone || accessorIsAllZero(asset.accessors[accessor])) return;
  dense = readAccessorFloats(asset, accessor);
  const Accessor& a = asset.accessors[accessor];
  // Only a bufferView-less sparse accessor is "really" sparse: its dense part is all zeros.
  if (a.has_sparse && a.buffer_view == kNone) {
    is_sparse = true;
    sparse_indices = readSparse(asset, accessor).indices;
  }
}

SkinWeightFix normalizeSkinWeights(std::span<float> weights, uint32_t influences) {
  SkinWeightFix fix;
  if (influences == 0) return fix;
  constexpr double kSumTolerance = 1e-6;  // float32 weights written to sum 1 land within ~1e-7 of it
  for (size_t v = 0; v + influences <= weights.size(); v += influences) {
    double sum = 0;  // Manhattan length, as three.js's Vector4.manhattanLength
    for (uint32_t k = 0; k < influences; ++k) sum += std::fabs(double(weights[v + k]));
    if (!(std::fabs(sum - 1.0) > kSumTolerance)) continue;  // NaN sums are left alone too (nothing sensible)
    ++fix.rescaled;
    if (std::fabs(sum - 1.0) > std::fabs(fix.worst_sum - 1.0)) fix.worst_sum = sum;
    if (sum == 0.0) {
      ++fix.zero;
      weights[v] = 1.0f;
      continue;
    }
    const double scale = 1.0 / sum;
    for (uint32_t k = 0; k < influences; ++k) weights[v + k] = float(double(weights[v + k]) * scale);
  }
  return fix;
}

Expected<PrimitiveData> decodePrimitive(const Asset& asset, uint32_t mesh_index, uint32_t primitive_index) {
  if (mesh_index >= asset.meshes.size() || primitive_index >= asset.meshes[mesh_index].primitives.size()) {
    return fail(Error::kInvalidArgument, "meshes[" + std::to_string(mesh_index) + "].primitives[" +
                                             std::to_string(primitive_index) + "]: no such primitive");
  }
  const Primitive& primitive = asset.meshes[mesh_index].primitives[primitive_index];
  std::string where = "meshes[" + std::to_string(mesh_index) + "].primitives[" + std::to_string(primitive_index) + "]";
  uint32_t position = findAttribute(primitive.attributes, "POSITION");
  if (position == kNone) return fail(Error::kInvalidGltf, where + ": has no POSITION attribute; nothing to deform");

  PrimitiveData data;
  data.mesh = mesh_index;
  data.primitive = primitive_index;
  data.mode = primitive.mode;
  data.vertex_count = asset.accessors[position].count;
  data.position = readAccessorFloats(asset, position);
  if (uint32_t normal = findAttribute(primitive.attributes, "NORMAL"); normal != kNone) {
    data.normal = readAccessorFloats(asset, normal);
  }
  if (uint32_t tangent = findAttribute(primitive.attributes, "TANGENT"); tangent != kNone) {
    data.tangent = readAccessorFloats(asset, tangent);
  }
  for (uint32_t accessor : attributeSet(primitive.attributes, "TEXCOORD_")) {
    data.texcoords.push_back(readAccessorFloats(asset, accessor));
  }
  for (uint32_t accessor : attributeSet(primitive.attributes, "COLOR_")) {
    data.colors.push_back(readColors(asset, accessor, 1.0f));
  }

  std::vector<uint32_t> joint_sets = attributeSet(primitive.attributes, "JOINTS_");
  std::vector<uint32_t> weight_sets = attributeSet(primitive.attributes, "WEIGHTS_");
  uint32_t sets = uint32_t(std::min(joint_sets.size(), weight_sets.size()));
  if (sets > 0) {
    data.influences = 4 * sets;
    data.joints.resize(size_t(data.influences) * data.vertex_count);
    data.skin_weights.resize(size_t(data.influences) * data.vertex_count);
    for (uint32_t s = 0; s < sets; ++s) {
      std::vector<uint32_t> joints = readAccessorUints(asset, joint_sets[s]);
      std::vector<float> weights = readAccessorFloats(asset, weight_sets[s]);
      for (uint32_t v = 0; v < data.vertex_count; ++v) {
        for (uint32_t k = 0; k < 4; ++k) {
          size_t dst = size_t(v) * data.influences + s * 4 + k;
          data.joints[dst] = joints[size_t(v) * 4 + k];
          data.skin_weights[dst] = weights[size_t(v) * 4 + k];
        }
      }
    }
    if (!asset.keep_skin_weights) data.skin_weight_fix = normalizeSkinWeights(data.skin_weights, data.influences);
  }
  if (primitive.indices != kNone) data.indices = readAccessorUints(asset, primitive.indices);

  size_t texcoord_sets = data.texcoords.size(), color_sets = data.colors.size();
  for (const MorphTarget& target : primitive.targets) {
    MorphTargetData delta;
    readDelta(asset, findAttribute(target.attributes, "POSITION"), delta.position, delta.position_sparse_indices,
              delta.position_sparse);
    readDelta(asset, findAttribute(target.attributes, "NORMAL"), delta.normal, delta.normal_sparse_indices,
              delta.normal_sparse);
    readDelta(asset, findAttribute(target.attributes, "TANGENT"), delta.tangent, delta.tangent_sparse_indices,
              delta.tangent_sparse);
    // Deltas for attributes the base primitive lacks have nothing to move; drop them.
    if (data.normal.empty()) delta.normal.clear();
    if (data.tangent.empty()) delta.tangent.clear();
    delta.texcoords.resize(texcoord_sets);
    for (size_t n = 0; n < texcoord_sets; ++n) {
      uint32_t accessor = findAttribute(target.attributes, "TEXCOORD_" + std::to_string(n));
      if (accessor != kNone && !accessorIsAllZero(asset.accessors[accessor]))
        delta.texcoords[n] = readAccessorFloats(asset, accessor);
    }
    delta.colors.resize(color_sets);
    for (size_t n = 0; n < color_sets; ++n) {
      uint32_t accessor = findAttribute(target.attributes, "COLOR_" + std::to_string(n));
      if (accessor != kNone && !accessorIsAllZero(asset.accessors[accessor]))
        delta.colors[n] = readColors(asset, accessor, 0.0f);
    }
    data.targets.push_back(std::move(delta));
  }
  return data;
}

std::string primitiveIdentity(const Primitive& primitive) {
  auto list = [](std::string& out, const std::vector<Attribute>& attributes) {
    // Length-prefixed names: "A=1,B" cannot pass for two attributes.
    for (const Attribute& a : attributes)
      out += std::to_string(a.name.size()) + ":" + a.name + "=" + std::to_string(a.accessor) + ",";
  };
  std::string out = std::to_string(uint32_t(primitive.mode)) + "/" + std::to_string(primitive.indices) + "/" +
                    std::to_string(primitive.material) + "/";
  list(out, primitive.attributes);
  for (const MorphTarget& target : primitive.targets) {
    out += "|";
    list(out, target.attributes);
  }
  return out;
}

}  // namespace morphkit
