// SPDX-License-Identifier: MIT
// morphkit/model/material_features.h — which shading features an asset's materials and primitives use: the material
// extensions (KHR_materials_*), vertex colours, double-sided and alpha modes. One list for `inspect` (text and
// --json, Python's Asset.info()) and for `render`'s warnings about what it does not shade.
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/model/asset.h"

namespace morphkit {

// A material extension morphkit's renderer shades: the registry's shaded material rows (morphkit/model/extensions.h,
// docs/RENDER.md "Materials").
bool isShadedMaterialExtension(std::string_view name);

struct MaterialFeatures {
  // Sorted, each once: the extension names found on materials, "COLOR_0" (a primitive has vertex colours),
  // "doubleSided", "alphaMode MASK", "alphaMode BLEND".
  std::vector<std::string> used;
  // Sorted, each once: material extensions in `used` that the renderer does not shade (transmission, volume, ...).
  std::vector<std::string> unshaded;
};
MaterialFeatures materialFeatures(const Asset& asset);

}  // namespace morphkit
