// SPDX-License-Identifier: MIT
// materialFeatures: the shading features in use, from the parsed materials and the primitives' attributes.
#include "morphkit/model/material_features.h"

#include <algorithm>

namespace morphkit {

namespace {

constexpr const char* kShaded[] = {"KHR_materials_unlit",    "KHR_materials_emissive_strength", "KHR_materials_ior",
                                   "KHR_materials_specular", "KHR_materials_clearcoat",         "KHR_materials_sheen"};

void sortUnique(std::vector<std::string>& names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
}

}  // namespace

std::span<const char* const> shadedMaterialExtensions() {
  return kShaded;
}

bool isShadedMaterialExtension(std::string_view name) {
  return std::any_of(std::begin(kShaded), std::end(kShaded), [&](const char* s) { return name == s; });
}

MaterialFeatures materialFeatures(const Asset& asset) {
  MaterialFeatures out;
  for (const Material& material : asset.materials) {
    for (const std::string& name : material.extensions) {
      out.used.push_back(name);
      if (!isShadedMaterialExtension(name)) out.unshaded.push_back(name);
    }
    if (material.double_sided) out.used.push_back("doubleSided");
    if (material.alpha_mode == AlphaMode::kMask) out.used.push_back("alphaMode MASK");
    if (material.alpha_mode == AlphaMode::kBlend) out.used.push_back("alphaMode BLEND");
  }
  for (const Mesh& mesh : asset.meshes) {
    for (const Primitive& primitive : mesh.primitives) {
      for (const Attribute& attribute : primitive.attributes)
        if (attribute.name == "COLOR_0") out.used.push_back("COLOR_0");
    }
  }
  sortUnique(out.used);
  sortUnique(out.unshaded);
  return out;
}

}  // namespace morphkit
