// SPDX-License-Identifier: MIT
// morphkit/gltf/glb_writer.h — serializing a morphkit::Asset to a binary glTF (.glb, glTF 2.0 §4.4),
// Part of morphkit::gltf, beside the reader. The builder helpers that append accessors are asset_builder.h.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/asset_builder.h"  // the builders, for the code that makes an asset and then writes it
#include "morphkit/model/error.h"

namespace morphkit {

// Serializes `asset` to .glb bytes (glTF 2.0 §4.4):
//   12-byte header (magic "glTF", version 2, total length), a JSON chunk padded with spaces (0x20) to a
//   multiple of 4 bytes, then — when the asset has at least one buffer — one BIN chunk padded with zeros.
// Every buffer's bytes (`data`, first `byte_length` bytes) are merged into that single BIN chunk, each
// starting at a 16-byte aligned offset, and bufferViews are rebased onto buffer 0, so the output has
// exactly one buffer without a uri (§4.4.3.3). Buffer `uri`s and names are dropped.
// Fields are written only when they differ from the glTF default (empty arrays, kNone indices, identity
// TRS, mode TRIANGLES, ...), so a load → write → load round trip reproduces the same Asset fields.
// `mesh.target_names` goes to `mesh.extras.targetNames`. `asset.path`, `base_dir` and `notes` are not written.
// **An asset loaded from a file is written back as an edit of that file's document** (`Asset::source_json`):
// the Asset owns the binary data and every field that points into it (buffers, bufferViews, accessors, the
// primitives' attributes/indices/targets/material/mode, skins, animation channels and samplers, images' uri /
// mimeType / bufferView, nodes' children / mesh / skin / transform / weights); objects appended after loading are
// written from the Asset; everything else — names, extras, materials with every extension, node and root
// extensions — is the input's JSON as it was.
// An asset built in code (no source_json) is written from its fields alone.
// The writer declares exactly what it writes: extensionsUsed lists every extension object in the output plus
// KHR_mesh_quantization when an attribute's encoding needs it (attributeNeedsQuantization); extensionsRequired
// keeps what the input required of those, and KHR_mesh_quantization whenever it is used. The compressions the
// loader decoded (EXT_meshopt_compression, KHR_draco_mesh_compression) are not written back.
// Image URIs are written as they are (relative ones still resolve against the folder the .glb is written to, so
// callers writing elsewhere should embed or copy the images).
// The writer checks only what it needs to produce well-formed bytes (buffer indices, buffer data sizes,
// the 4 GiB GLB size limit); it does not run the validation pass — use validateAsset (morphkit/gltf/gltf.h).
// Errors: kInvalidArgument "<object>[i]: <what>", kTooLarge when the GLB would exceed 2^32-1 bytes.
Expected<std::vector<uint8_t>> writeGlb(const Asset& asset);

// One posed frame (`pose --out x.glb`) as a static .glb: a mesh and node per posed primitive with world-space
// attributes, no skin and no morph targets, and the source's materials, textures, samplers and images as its
// document has them (every extension kept and declared; images in bufferViews copied).
Expected<std::vector<uint8_t>> writePosedGlb(const PoseResult& pose, const Asset& source);

// EXT_meshopt_compression on write (https://github.com/KhronosGroup/glTF/tree/main/extensions/2.0/Vendor/
// EXT_meshopt_compression): the views named here are stored encoded by meshoptimizer in the BIN chunk and decode
// into a second, data-less buffer marked `fallback` (so the extension is required). ATTRIBUTES needs a stride that
// is a multiple of 4 and at most 256; TRIANGLES needs 2- or 4-byte indices, a multiple of 3 of them.
enum class MeshoptMode : uint8_t { kAttributes, kTriangles };
struct MeshoptViewEncoding {
  uint32_t view = kNone;
  MeshoptMode mode = MeshoptMode::kAttributes;
  uint32_t stride = 0;  // bytes per element as the decoder writes them (bufferView.byteStride or the element size)
};
struct GlbWriteOptions {
  std::vector<MeshoptViewEncoding> meshopt;  // empty: plain bufferViews
};
// With meshopt views, every bufferView is packed on its own (4-byte aligned; bytes no view covers are not written).
Expected<std::vector<uint8_t>> writeGlb(const Asset& asset, const GlbWriteOptions& options);

// Whether an attribute stored as `accessor` needs KHR_mesh_quantization: core glTF allows float everywhere,
// normalized u8/u16 TEXCOORD_n, COLOR_n and WEIGHTS_n, u8/u16 JOINTS_n, and normalized i8/i16 TEXCOORD_n and COLOR_n
// deltas in morph targets (glTF 2.0 §3.7.2.1, §3.7.2.2); application-specific attributes have no rule.
bool attributeNeedsQuantization(std::string_view name, const Accessor& accessor, bool morph_target);

// The top-level members `keys` of `source`'s document (Asset::source_json), as a document of their own: the
// source_json of an asset built from parts of another, so those parts are written as the source had them
// (`pose --out x.glb` keeps the materials, textures, samplers and images with every extension and extras).
// Empty when `source` has no document.
std::string documentParts(const Asset& source, std::span<const std::string_view> keys);

// The JSON chunk text alone (no padding) that writeGlb would embed, for debugging and tests.
Expected<std::string> writeGltfJson(const Asset& asset);

}  // namespace morphkit
