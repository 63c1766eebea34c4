// SPDX-License-Identifier: MIT
// The runtimes' decoder table (morphkit/model/runtimes.h; docs/CHECK.md, "Decoders", lists every row with its
// source). Each row was read in the runtime's source at the commit or version named; `verified = false` marks what
// was not. A runtime's missing row is kUnknown: optimize --for does not write that extension.
#include "morphkit/model/runtimes.h"

#include <algorithm>
#include <array>

#include "morphkit/model/extensions.h"

namespace morphkit {
namespace {

using enum Decodes;

constexpr std::string_view kTransform = "KHR_texture_transform";
constexpr std::string_view kBasisu = "KHR_texture_basisu";
constexpr std::string_view kWebp = "EXT_texture_webp";
constexpr std::string_view kPointer = "KHR_animation_pointer";

constexpr std::string_view kThree = "mrdoob/three.js examples/jsm/loaders/GLTFLoader.js @r187 (npm three 0.187.0)";
constexpr RuntimeDecoder kThreeRows[] = {
    {kMeshoptExtension, kYes, "decoded by the MeshoptDecoder the application passes to setMeshoptDecoder", kThree},
    {kMeshQuantizationExtension, kYes, "integer and normalized attributes read as the extension says", kThree},
    {kBasisu, kYes, "decoded by the KTX2Loader the application passes to setKTX2Loader", kThree},
    {kWebp, kYes, "decoded by the browser's image decoder", kThree},
    {kDracoExtension, kYes, "decoded by the DRACOLoader the application passes to setDRACOLoader", kThree},
    {kTransform, kYes, "offset, rotation, scale and texCoord applied per texture", kThree},
    {kPointer, kNo, "three.js has no handler for it (not among GLTFLoader's extensions)", kThree},
};

constexpr std::string_view kBabylon =
    "BabylonJS/Babylon.js packages/dev/loaders/src/glTF/2.0/Extensions/ @9.28.0 (npm @babylonjs/loaders 9.28.0)";
constexpr RuntimeDecoder kBabylonRows[] = {
    {kMeshoptExtension, kYes, "EXT_meshopt_compression.ts (meshoptimizer's decoder, loaded on demand)", kBabylon},
    {kMeshQuantizationExtension, kYes, "KHR_mesh_quantization.ts", kBabylon},
    {kBasisu, kYes, "KHR_texture_basisu.ts (the KTX2 decoder, loaded on demand)", kBabylon},
    {kWebp, kYes, "EXT_texture_webp.ts", kBabylon},
    {kDracoExtension, kYes, "KHR_draco_mesh_compression.ts (the Draco decoder, loaded on demand)", kBabylon},
    {kTransform, kYes, "KHR_texture_transform.ts", kBabylon},
};

constexpr std::string_view kFilamentUtility = "google/filament libs/gltfio/src/Utility.cpp @68ff9dd";
constexpr std::string_view kFilamentResources = "google/filament libs/gltfio/src/ResourceLoader.cpp @e4e24e7";
constexpr std::string_view kFilamentAssets = "google/filament libs/gltfio/src/AssetLoader.cpp @68ff9dd";
constexpr RuntimeDecoder kFilamentRows[] = {
    // google/filament#6183 (2022) was closed as a duplicate of #6075, which added this decoder.
    {kMeshoptExtension, kYes,
     "decodeMeshoptCompression decodes every compressed view with meshoptimizer (ResourceLoader::loadResources)",
     kFilamentUtility},
    {kMeshQuantizationExtension, kYes,
     "integer attributes Filament has no vertex type for are unpacked to floats (requiresConversion)",
     kFilamentUtility},
    {kBasisu, kYes, "the texture's KHR_texture_basisu image goes to the Ktx2Provider (image/ktx2)", kFilamentResources},
    {kWebp, kNo,
     "gltfio does not decode it (getOrCreateTexture reads a texture's basisu image or its source, never the "
     "EXT_texture_webp image)",
     kFilamentResources, true, "those textures get no image, so materials are drawn without them or the load fails"},
    {kDracoExtension, kYes, "decoded with Draco where gltfio is built with GLTFIO_DRACO_SUPPORTED", kFilamentAssets},
    {kTransform, kYes, "a UV matrix per texture (matrixFromUvTransform)", kFilamentAssets},
};

constexpr std::string_view kGodot =
    "godotengine/godot modules/gltf/gltf_document.cpp get_supported_gltf_extensions_hashset @000ae4e";
constexpr std::string_view kGodotRefused =
    "the import is refused (\"required extension ... is not supported. Are you missing a GLTFDocumentExtension "
    "plugin?\")";
constexpr RuntimeDecoder kGodotRows[] = {
    {kMeshoptExtension, kNo,
     "Godot does not decode it (not among GLTFDocument's supported extensions, no built-in GLTFDocumentExtension)",
     kGodot, true, kGodotRefused},
    {kMeshQuantizationExtension, kNo,
     "Godot does not list it as supported (its accessor reader takes normalized integers, but a file that requires "
     "the extension is refused first)",
     kGodot, true, kGodotRefused},
    {kBasisu, kYes, "GLTFDocumentExtensionTextureKTX (extensions/gltf_document_extension_texture_ktx.cpp)", kGodot},
    {kWebp, kYes, "GLTFDocumentExtensionTextureWebP (extensions/gltf_document_extension_texture_webp.cpp)", kGodot},
    {kDracoExtension, kNo, "Godot does not decode it (not among GLTFDocument's supported extensions)", kGodot, true,
     kGodotRefused},
    {kTransform, kYes, "among GLTFDocument's supported extensions", kGodot},
};

constexpr RuntimeDecoder kBevyRows[] = {
    {kMeshoptExtension, kYes, "decode_buffer_views decodes into the fallback buffer with meshoptimizer",
     "bevyengine/bevy crates/bevy_gltf/src/loader/meshopt.rs @0cbb559"},
    {kTransform, kYes, "texture_transform_to_affine2 per texture",
     "bevyengine/bevy crates/bevy_gltf/src/loader/mod.rs @0042c67"},
    // Not read: KHR_mesh_quantization (the gltf crate's ENABLED_EXTENSIONS lacks it), basisu, webp, Draco.
};

constexpr std::string_view kPlayCanvas = "playcanvas/engine src/framework/parsers/ @0aaef5e (v2.22.0-beta.20)";
constexpr RuntimeDecoder kPlayCanvasRows[] = {
    {kMeshoptExtension, kNo,
     "the engine has no meshopt decoder (glb-parser.js createBufferViews reads each view from its buffer; an "
     "application can decode in options.bufferView.processAsync)",
     kPlayCanvas, true,
     "its views read the GLB's binary chunk (a buffer without uri) at the wrong offsets: broken geometry or a failed "
     "load"},
    {kMeshQuantizationExtension, kYes, "glb/gltf-accessor.js dequantizes normalized integers", kPlayCanvas},
    {kBasisu, kYes,
     "glb/extensions/texture-source.js takes the KHR_texture_basisu image; its ktx2 parser needs the Basis transcoder "
     "the application initializes",
     kPlayCanvas},
    {kWebp, kYes, "glb/extensions/texture-source.js takes the EXT_texture_webp image; the browser decodes it",
     kPlayCanvas},
    {kDracoExtension, kYes, "glb/extensions/khr-draco-mesh-compression.js (the Draco decoder module)", kPlayCanvas},
    {kTransform, kYes, "glb/extensions/khr-texture-transform.js", kPlayCanvas},
};

constexpr std::string_view kUniVrm = "vrm-c/UniVRM Packages/UniGLTF/Runtime/UniGLTF/IO/ @42f5cc1 (v0.131.1+38)";
constexpr RuntimeDecoder kUniVrmRows[] = {
    {kMeshoptExtension, kNo,
     "UniGLTF does not decode it (no reader; a view in a buffer without uri other than buffers[0] fails "
     "GltfData.GetBytesFromUri)",
     kUniVrm, true, "the load fails (ArgumentNullException reading the fallback buffer)"},
    {kMeshQuantizationExtension, kNo,
     "UniGLTF reads it in part (MeshIO/PrimitiveExtensions.cs: a base POSITION only as FLOAT or UNSIGNED_SHORT, "
     "TEXCOORD_0 UNSIGNED_SHORT unscaled)",
     kUniVrm, true,
     "signed 16-bit positions fail to load (\"unknown POSITION type\") and normalized 16-bit texture coordinates are "
     "read "
     "unscaled"},
    {kBasisu, kNo,
     "UniGLTF takes the KHR_texture_basisu image only in play mode with ExtensionSupportFlags.IsAllTexturesYFlipped "
     "(default false), else throws (TextureIO/Import/GltfTextureImporter.cs)",
     kUniVrm, true, "the load fails (\"KHR_texture_basisu is only supported with all textures Y-flipped\")",
     "the load fails (\"KHR_texture_basisu is only supported with all textures Y-flipped\")"},
    {kWebp, kNo, "UniGLTF does not decode it (GetImageIndexFromTextureIndex reads the basisu image or source only)",
     kUniVrm},
    {kDracoExtension, kNo, "UniGLTF does not decode it (ImporterContext.UnsupportedExtensions)", kUniVrm, true,
     "the load is refused (UniGLTFNotSupportedException)"},
    {kTransform, kYes, "offset and scale read (GltfTextureImporter.GetTextureOffsetAndScale); rotation is not",
     kUniVrm},
};

constexpr std::array<Runtime, 7> kRuntimes = {{
    {"three", "three.js r187", kThreeRows},
    {"babylon", "Babylon.js 9.28", kBabylonRows},
    {"filament", "Filament gltfio (main @68ff9dd)", kFilamentRows},
    {"godot", "Godot 4 (master @000ae4e)", kGodotRows},
    {"bevy", "Bevy (main @0cbb559)", kBevyRows},
    {"playcanvas", "PlayCanvas engine 2.22", kPlayCanvasRows},
    {"univrm", "UniVRM 0.131 (UniGLTF)", kUniVrmRows},
}};

}  // namespace

std::span<const Runtime> runtimes() {
  return kRuntimes;
}

const Runtime* findRuntime(std::string_view name) {
  const auto* row = std::find_if(kRuntimes.begin(), kRuntimes.end(), [&](const Runtime& r) { return r.name == name; });
  return row == kRuntimes.end() ? nullptr : row;
}

std::string_view runtimeNames() {
  return "three, babylon, filament, godot, bevy, playcanvas, univrm";
}

const RuntimeDecoder* findRuntimeDecoder(const Runtime& runtime, std::string_view extension) {
  for (const RuntimeDecoder& row : runtime.decoders) {
    if (row.extension == extension) return &row;
  }
  return nullptr;
}

Decodes runtimeDecodes(const Runtime& runtime, std::string_view extension) {
  const RuntimeDecoder* row = findRuntimeDecoder(runtime, extension);
  return row ? row->decodes : Decodes::kUnknown;
}

std::string_view missingDecoderEffect(const RuntimeDecoder& row, bool required) {
  if (required && !row.when_required.empty()) return row.when_required;
  if (!required && !row.when_used.empty()) return row.when_used;
  const std::string_view e = row.extension;
  if (!required) {
    // Used, not required: the file carries what a reader without the extension needs (glTF 2.0 §3.12).
    if (e == kMeshoptExtension) return "the uncompressed fallback data loads instead (a larger download)";
    if (e == kDracoExtension) return "the uncompressed fallback geometry is drawn";
    if (e == kBasisu || e == kWebp) return "the fallback image (the texture's source) is drawn instead";
    if (e == kTransform) return "textures are drawn without their offset, rotation and scale";
    if (e == kPointer) return "its pointer channels do not play";
    return "what the extension adds is not shown";
  }
  if (e == kBasisu || e == kWebp) return "those textures have no image it reads: materials drawn without them";
  return "the file fails to load";
}

}  // namespace morphkit
