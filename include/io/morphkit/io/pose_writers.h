// SPDX-License-Identifier: MIT
// morphkit/io/pose_writers.h — posed frames as files: the reference JSON schema, Wavefront OBJ with its .mtl, and
// .npy / .npz arrays. Part of the io layer, beside npy.h, so that core (pose.h) computes poses and writes no file
// format; the posed .glb is gltf's (writePosedGlb, morphkit/gltf/glb_writer.h).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/core/pose_arrays.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/output_buffer.h"

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

// The .mtl an OBJ names (`mtllib`): one newmtl per used material (Kd: the base colour factor, d: its alpha) with
// map_Kd naming the base-colour texture's image, which travels as a copy beside the OBJ: <stem>_image<N>.png|.jpg.
struct PoseMtl {
  std::string text;
  std::vector<std::pair<std::string, std::span<const uint8_t>>> images;  // file name beside the OBJ, bytes
  std::vector<std::string> warnings;  // "images[N]: ...; the .mtl names no texture for materials[M]"
};
PoseMtl writePoseMtl(const PoseResult& pose, const Asset& asset, std::string_view stem);

// Per posed primitive, (frames, vertices, 3) float32 arrays filled frame by frame (morphkit/core/pose_arrays.h).
struct PoseArrays {
  std::vector<PoseArrayShape> shapes;
  std::vector<OutputBuffer> positions, normals;  // every frame is written before the arrays are read
  std::vector<PoseArrayView> views;
  size_t frames = 0;
  PoseArrays(const PosePrepared& prepared, size_t frame_count, bool positions_only);
};

// The bytes of `pose --out x.npy|x.npz`, as the pieces of the file in order: for "npy" its header and the first
// primitive's positions in place (no copy of the arrays), for "npz" "<node..>_positions" (+ "_normals") per
// primitive and "times" (float64 seconds), encoded. `bench FILE`'s end-to-end row writes the same.
struct EncodedArrays {
  std::vector<uint8_t> owned;                   // the header, or the whole archive
  std::vector<std::span<const uint8_t>> parts;  // into `owned` and the arrays
  uint64_t size() const;
};
Expected<EncodedArrays> encodePoseArrays(std::string_view format, const PoseArrays& arrays,
                                         const std::vector<double>& times);

}  // namespace morphkit
