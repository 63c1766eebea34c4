// SPDX-License-Identifier: MIT
// morphkit/io/pose_writers.h — a posed frame as text: the reference JSON schema and Wavefront OBJ. Part of the io
// layer, beside npy.h, so that core (pose.h) computes poses and writes no file format.
#pragma once
#include <span>
#include <string>
#include <string_view>

#include "morphkit/core/pose.h"
#include "morphkit/model/asset.h"

namespace morphkit {

// JSON in the schema of shared/reference/README.md:
// {"model": MODEL, "engine": "morphkit", "cases": [{"anim": null|N, "time": T, "meshes": [{"node", "mesh",
//  "primitive", "skinned", "vertexCount", "weights", "positions", "normals" (null when absent)}]}]}
std::string writePoseJson(std::span<const PoseResult> cases, std::string_view model, bool pretty = false);

// Wavefront OBJ of one case: one `o node<N>_mesh<M>_prim<P>` group per posed primitive with v, vn (when
// present), vt and faces (strips and fans triangulated, lines as `l`, points as `p`). OBJ has one UV set and no
// texture transform, so vt is what the primitive's base-colour texture samples: its TEXCOORD set with its
// KHR_texture_transform applied (from `asset`, the posed file; TEXCOORD_0 as stored without one or without
// `asset`), V flipped to OBJ's bottom-left origin. With `mtllib` (a .mtl file name) the OBJ names it and each
// group with a material uses `usemtl material<N>` (N: the glTF material index; the CLI writes the .mtl).
std::string writePoseObj(const PoseResult& pose, const Asset* asset = nullptr, std::string_view mtllib = {});

}  // namespace morphkit
