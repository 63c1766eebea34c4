// SPDX-License-Identifier: MIT
// morphkit/model/extensions.h — the glTF extensions morphkit knows, one row each: what the loader, the writers and
// the renderer do with it. The one list: the parser accepts what is parsed, the material features report what is
// shaded, the writers declare and require from it, `inspect` and `animate` explain files by it. An extension not
// listed is kept as the source has it by the writers and ignored otherwise (refused when required).
#pragma once
#include <span>
#include <string_view>

namespace morphkit {

enum class ExtensionKind { kGeometry, kCompression, kTexture, kMaterial, kAnimation, kAvatar };

struct GltfExtension {
  std::string_view name;
  ExtensionKind kind;
  bool decoded;                // the loader turns it into plain data (a compression)
  bool written;                // the writers write it (kept from the source or made anew); false: a decoded
                               // extension whose data they write plain, its objects dropped
  bool required_when_written;  // a file holding it cannot be read without it: the writers list it as required
  bool shaded;                 // a texture or material extension the renderer draws (docs/RENDER.md)
  std::string_view summary;    // what morphkit does with it, one line (inspect, docs/CLI.md)
};

inline constexpr std::string_view kMeshoptExtension = "EXT_meshopt_compression";
inline constexpr std::string_view kDracoExtension = "KHR_draco_mesh_compression";
inline constexpr std::string_view kMeshQuantizationExtension = "KHR_mesh_quantization";

// Every extension the loader implements (a file that requires one of these loads), in documentation order.
std::span<const GltfExtension> gltfExtensions();
// The row of `name`, or null for an extension morphkit does not implement.
const GltfExtension* findGltfExtension(std::string_view name);
// What morphkit does with `name`, in a word or three for `inspect`: "decoded at load", "shaded", "read", or "not
// implemented" (the writers keep its objects; a file that requires it is refused).
std::string_view extensionHandling(std::string_view name);

}  // namespace morphkit
