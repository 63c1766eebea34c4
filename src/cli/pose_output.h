// SPDX-License-Identifier: MIT
// What `morphkit pose --out` writes: JSON (every time), OBJ with its .mtl, a static GLB (one time), .npy / .npz
// arrays; to a file (the format from its extension, or --format) or to stdout (`--out - --format F`).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/core/pose_arrays.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/output_buffer.h"

namespace morphkit::cli {

struct PoseOutput {
  std::string path;    // "-": stdout; empty: no --out
  std::string format;  // json, obj, glb, npy, npz
  bool arrays() const { return format == "npy" || format == "npz"; }
};

inline constexpr const char* kPoseFormats = "json, obj, glb, npy or npz";

// --out and --format as one PoseOutput. A usage error (exit 2, after its line) for an unknown format, an extension
// that contradicts --format, or `--out -` without --format.
int resolvePoseOutput(const std::string& out, const std::string& format, PoseOutput& output);

// Per posed primitive, (frames, vertices, 3) float32 arrays filled frame by frame (morphkit/core/pose_arrays.h).
struct PoseArrays {
  std::vector<PoseArrayShape> shapes;
  std::vector<OutputBuffer> positions, normals;  // every frame is written before the arrays are read
  std::vector<PoseArrayView> views;
  size_t frames = 0;
  PoseArrays(const PosePrepared& prepared, size_t frame_count, bool positions_only);
};

// .npy: the positions of the one posed primitive; .npz: "<node..>_positions" (+ "_normals") per primitive and
// "times" (float64 seconds). Returns 0 or the exit code after the error line.
int writeArrayOutput(const PoseOutput& out, const PoseArrays& arrays, const std::vector<double>& times);
// The bytes writeArrayOutput writes, as the pieces of the file in order: for "npy" its header and the first
// primitive's positions in place (no copy of the arrays), for "npz" the encoded archive. `bench FILE`'s end-to-end
// row writes the same.
struct EncodedArrays {
  std::vector<uint8_t> owned;                   // the header, or the whole archive
  std::vector<std::span<const uint8_t>> parts;  // into `owned` and the arrays
  uint64_t size() const;
};
Expected<EncodedArrays> encodePoseArrays(std::string_view format, const PoseArrays& arrays,
                                         const std::vector<double>& times);

// JSON, OBJ (+ .mtl and the base-colour images beside a file) or GLB of the posed cases.
int writePoseOutput(const PoseOutput& out, const std::vector<PoseResult>& cases, const std::string& model,
                    const Asset& asset);

}  // namespace morphkit::cli
