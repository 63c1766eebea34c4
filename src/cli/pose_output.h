// SPDX-License-Identifier: MIT
// What `morphkit pose --out` writes: JSON (every time), OBJ with its .mtl, a static GLB (one time), .npy / .npz
// arrays; to a file (the format from its extension, or --format) or to stdout (`--out - --format F`).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/pose_writers.h"

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

// .npy: the positions of the one posed primitive; .npz: "<node..>_positions" (+ "_normals") per primitive and
// "times" (float64 seconds). Returns 0 or the exit code after the error line.
int writeArrayOutput(const PoseOutput& out, const PoseArrays& arrays, const std::vector<double>& times);
// JSON, OBJ (+ .mtl and the base-colour images beside a file) or GLB of the posed cases.
int writePoseOutput(const PoseOutput& out, const std::vector<PoseResult>& cases, const std::string& model,
                    const Asset& asset);

}  // namespace morphkit::cli
