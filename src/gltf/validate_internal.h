// SPDX-License-Identifier: MIT
// What the validation pass's files share (validate.cpp: meshes, nodes, skins, animations, materials;
// validate_accessors.cpp: bufferViews and accessors, their structure and their data).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "morphkit/gltf/gltf.h"

#define VALIDATE_TRY(expr)                \
  do {                                    \
    auto status_ = (expr);                \
    if (!status_) return status_.error(); \
  } while (0)

namespace morphkit::validate_detail {

inline std::string at(const char* array, size_t i) {
  return std::string(array) + "[" + std::to_string(i) + "]";
}

inline Failure invalid(const std::string& where, const std::string& what) {
  return fail(Error::kInvalidGltf, where + ": " + what);
}

inline Status checkIndex(uint32_t index, size_t size, const std::string& where, const char* what) {
  if (index == kNone || index < size) return Ok{};
  return invalid(where, std::string(what) + " " + std::to_string(index) + " is out of range (" + std::to_string(size) +
                            " exist; glTF 2.0 §3.3: indices MUST be in range)");
}

// A required reference: kNone (possible in assets built in code) is an error too, never dereferenced.
inline Status checkRequiredIndex(uint32_t index, size_t size, const std::string& where, const char* what) {
  if (index == kNone) return invalid(where, std::string(what) + " is required but missing");
  return checkIndex(index, size, where, what);
}

inline bool hasExtension(const Asset& asset, const char* name) {
  return std::find(asset.extensions_used.begin(), asset.extensions_used.end(), name) != asset.extensions_used.end();
}

// validate_accessors.cpp, in validateAsset's order: structure, then (after the budget) the reads.
Status validateBufferViews(const Asset& asset);
Status validateAccessors(const Asset& asset);
Status validateAccessorData(const Asset& asset);  // sparse indices and the finite-value scan
// §3.7.2.1 attribute formats (and KHR_mesh_quantization's wider set when the asset uses it).
Status checkAttributeFormat(const Asset& asset, const std::string& name, uint32_t index, bool is_target,
                            const std::string& where);

// KHR_animation_pointer's rules (animation_pointer.cpp), after validateAnimations checked every channel's sampler:
// a morph-weight pointer names an existing node (with a mesh with targets) or mesh and a weight below the target
// count; the output is SCALAR, input count × weights (× 3 for CUBICSPLINE); no property is targeted twice in one
// animation (one pointer twice, an array and one of its elements, a pointer and a core "weights" channel). Each
// error names the channel and the pointer.
Status validateAnimationPointers(const Asset& asset);

// VRM expressions (vrm_expressions.cpp): every morphTargetBind names an existing node with a mesh (1.0) or mesh
// (0.x) and one of its morph targets.
Status validateVrmExpressions(const Asset& asset);

// After validation: a note in asset.notes for each animation sampler no animated channel uses (§3.11: such
// channels and samplers are ignored, not checked against a path they lack).
void noteIgnoredSamplers(Asset& asset);

}  // namespace morphkit::validate_detail
