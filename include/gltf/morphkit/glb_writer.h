// SPDX-License-Identifier: MIT
// morphkit/glb_writer.h — serializing a morphkit::Asset to a binary glTF (.glb, glTF 2.0 §4.4),
// Part of morphkit::gltf, beside the reader. The builder helpers that append accessors are asset_builder.h.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "morphkit/asset.h"
#include "morphkit/asset_builder.h"  // the builders, for the code that makes an asset and then writes it
#include "morphkit/error.h"

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
// The data model keeps two extension objects, written back as they were read: KHR_texture_transform on texture
// references and KHR_texture_basisu's source on textures (the caller lists them in extensionsUsed). Other
// extension objects and extras are not kept, so only their extensionsUsed/extensionsRequired names are written;
// image URIs are written as they are (relative ones still resolve against the folder the
// .glb is written to, so callers writing elsewhere should embed or copy the images).
// The writer checks only what it needs to produce well-formed bytes (buffer indices, buffer data sizes,
// the 4 GiB GLB size limit); it does not run the validation pass — use validateAsset (morphkit/gltf.h).
// Errors: kInvalidArgument "<object>[i]: <what>", kTooLarge when the GLB would exceed 2^32-1 bytes.
Expected<std::vector<uint8_t>> writeGlb(const Asset& asset);

// The JSON chunk text alone (no padding) that writeGlb would embed, for debugging and tests.
Expected<std::string> writeGltfJson(const Asset& asset);

}  // namespace morphkit
