// SPDX-License-Identifier: MIT
// The glTF extension registry (morphkit/model/extensions.h): one row per extension the loader implements.
#include "morphkit/model/extensions.h"

#include <algorithm>

namespace morphkit {
namespace {

using enum ExtensionKind;

// name, kind, decoded, written, required when written, shaded, summary
constexpr GltfExtension kExtensions[] = {
    {kMeshQuantizationExtension, kGeometry, false, true, true, false,
     "8/16-bit attributes, deltas and animation outputs read as the spec says; written by optimize"},
    {kMeshoptExtension, kCompression, true, true, true, false,
     "bufferViews decoded at load (meshoptimizer); written by optimize, whose output needs it"},
    {kDracoExtension, kCompression, true, false, false, false,
     "primitives decoded at load (Draco); written uncompressed"},
    {"KHR_texture_transform", kTexture, false, true, false, true, "offset, rotation, scale and texCoord per texture"},
    {"KHR_texture_basisu", kTexture, false, true, false, false,
     "KTX2 textures kept; render draws their fallback image (no Basis transcoder)"},
    {"EXT_texture_webp", kTexture, false, true, false, true,
     "WebP images decoded (libwebp) and drawn; `source`, when present, is the fallback for other readers"},
    {"KHR_animation_pointer", kAnimation, false, true, false, false,
     "morph-weight pointers play like weights channels; other pointers are listed and ignored"},
    // VRM avatars: of the extension object only the expressions are read (gltf/vrm_expressions.h).
    {"VRMC_vrm", kAvatar, false, true, false, false,
     "VRM 1.0 expressions read, posed by name (--weights happy=1) and written back"},
    {"VRM", kAvatar, false, true, false, false,
     "VRM 0.x blendShapeMaster read as expressions, posed by name and written back"},
    {"KHR_materials_unlit", kMaterial, false, true, false, true, "shaded as three.js's MeshBasicMaterial"},
    {"KHR_materials_emissive_strength", kMaterial, false, true, false, true, "shaded as three.js shades it"},
    {"KHR_materials_ior", kMaterial, false, true, false, true, "shaded as three.js's MeshPhysicalMaterial"},
    {"KHR_materials_specular", kMaterial, false, true, false, true, "shaded as three.js's MeshPhysicalMaterial"},
    {"KHR_materials_clearcoat", kMaterial, false, true, false, true, "shaded as three.js's MeshPhysicalMaterial"},
    {"KHR_materials_sheen", kMaterial, false, true, false, true, "shaded as three.js's MeshPhysicalMaterial"},
};

}  // namespace

std::span<const GltfExtension> gltfExtensions() {
  return kExtensions;
}

const GltfExtension* findGltfExtension(std::string_view name) {
  const auto* row = std::find_if(std::begin(kExtensions), std::end(kExtensions),
                                 [&](const GltfExtension& e) { return e.name == name; });
  return row == std::end(kExtensions) ? nullptr : row;
}

std::string_view extensionHandling(std::string_view name) {
  const GltfExtension* row = findGltfExtension(name);
  if (!row) return "not implemented";
  if (row->decoded) return "decoded at load";
  return row->shaded ? "shaded" : "read";
}

}  // namespace morphkit
