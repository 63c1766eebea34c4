// SPDX-License-Identifier: MIT
// VRM avatars' expressions in the glTF JSON (Asset::vrm, morphkit/model/asset.h): VRMC_vrm 1.0 `expressions` and VRM
// 0.x `blendShapeMaster`, read (parser.cpp calls it) and written back (glb_writer.cpp calls it); their rules are
// validateVrmExpressions (validate_internal.h). Private to morphkit::gltf.
#pragma once
#include "gltf_fields.h"
#include "morphkit/io/json_writer.h"

namespace morphkit::gltf_detail {

// Reads extensions.VRMC_vrm.expressions (preferred when both are present) or extensions.VRM.blendShapeMaster into
// asset.vrm, JSON types and the specification's value rules only (weights in range, override names, preset
// names); bind indices are validation's. A file with neither leaves asset.vrm empty.
Status parseVrmExpressions(object root, Asset& asset);

// The root "extensions" member with the expressions as read (VRMC_vrm with specVersion "1.0", or VRM with
// blendShapeMaster), when asset.vrm has a version; nothing otherwise.
void writeVrmExpressions(JsonWriter& json, const Asset& asset);

}  // namespace morphkit::gltf_detail
