// SPDX-License-Identifier: MIT
// materialFeatures: the shading features in use, from the parsed materials and the primitives' attributes.
#include "morphkit/model/material_features.h"

#include <algorithm>

#include "morphkit/model/extensions.h"

namespace morphkit {

namespace {

void sortUnique(std::vector<std::string>& names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
}

}  // namespace

bool isShadedMaterialExtension(std::string_view name) {
  const GltfExtension* row = findGltfExtension(name);
  return row && row->kind == ExtensionKind::kMaterial && row->shaded;
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
