// SPDX-License-Identifier: MIT
// morphkit/optimize/optimize.h — morph-aware compression of a glTF with a verified error bound (docs/OPTIMIZE.md).
// The optimize layer (morphkit::optimize), on gltf's reader and writer and core's posing.
//
// optimizeAsset first runs named passes over a copy of the document, in a fixed order, each reporting what it
// changed (OptimizePassReport; docs/OPTIMIZE.md, "Passes"): attributes nothing reads dropped, direction deltas that
// are zero everywhere dropped, vertices identical in everything welded, unskinned meshes given a dequantizing node.
// Then it writes a smaller .glb: every attribute and every morph target quantized (KHR_mesh_quantization) on a grid of
// its own chosen from the bound, then EXT_meshopt_compression; animations, node hierarchy, names, materials, images,
// extras and every other extension kept as the input has them (the writer edits the input's document,
// morphkit/gltf/glb_writer.h). It then loads its own output and poses both files on the CPU fast path in world space, a
// sample also on the reference path (OptimizeReport::fast_gap) — the rest pose, every target alone at weight 1, the
// default weights, every animation at every key time, every midpoint between keys and the clip end — and fails,
// returning no bytes, when a vertex of any pose is further than the bound from the input's.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"
#include "morphkit/model/thread_pool.h"

namespace morphkit {

// The default bound: 2e-4 of the rest pose's bounding-box diagonal (0.2 mm per metre: 0.05 mm on a 25 cm face,
// far below a pixel at any distance a face fills the screen from).
inline constexpr double kDefaultMaxErrorRel = 2e-4;

struct OptimizeOptions {
  double max_error_mm = 0.0;     // world-space bound in millimetres (glTF is in metres); 0: use max_error_rel
  double max_error_rel = 0.0;    // bound as a fraction of the rest pose's diagonal; both 0: kDefaultMaxErrorRel
  bool meshopt = true;           // false: quantization alone (KHR_mesh_quantization, no EXT_meshopt_compression)
  bool keep_attributes = false;  // true: no attribute is dropped (the drop-attributes pass changes nothing)
  bool keep_nodes = false;       // true: no node is added (an unskinned mesh that needs one keeps float positions)
  // Passes not to run, by name (kOptimizePassNames): for measuring each pass alone; an unknown name is an error.
  std::vector<std::string> skip_passes;
  // Levels of detail (docs/OPTIMIZE.md, "Levels of detail"): the fraction of each triangle primitive's triangles to
  // keep, in (0, 1]; 0 or 1: no simplification. Collapses are priced at the rest pose, every target alone and
  // animation poses, and each kept vertex keeps its data exactly.
  double simplify_ratio = 0.0;
  // The largest collapse error the simplification may reach (world space, millimetres); 0: no limit.
  double simplify_error_mm = 0.0;
  ThreadPool* pool = nullptr;  // optional, owned by the caller: the verification's poses split across it
  // Called between steps with a short description and the fraction done (0..1); may be empty.
  std::function<void(std::string_view step, double done)> progress;
};

// The largest difference between input and output over one category of poses.
struct OptimizeError {
  std::string category;         // "rest", "targets", "default weights", "animations"
  uint32_t poses = 0;           // poses compared
  double max_distance = 0.0;    // metres, world space
  double max_normal_deg = 0.0;  // largest angle between input and output normals (degrees)
  std::string worst;            // where max_distance is: the pose and the vertex
};

// Stored bytes of the parts of a file: bufferView bytes by what uses them (a compressed view counts its encoded
// bytes; the input counts what its views hold after loading, i.e. decoded).
struct OptimizeParts {
  uint64_t targets = 0;    // morph target deltas (dense, or sparse indices and values)
  uint64_t base = 0;       // base vertex attributes and indices
  uint64_t animation = 0;  // animation key times and values
  uint64_t images = 0;     // images stored in bufferViews
  uint64_t other = 0;      // inverse bind matrices and anything else
};

// The passes, in the order they run (docs/OPTIMIZE.md, "Passes").
inline constexpr const char* kOptimizePassNames[] = {"drop-attributes", "drop-direction-deltas", "weld", "simplify",
                                                     "node-dequantization"};

// What one pass did.
struct OptimizePassReport {
  std::string name;
  bool ran = false;                  // false: skipped (OptimizeOptions::skip_passes)
  std::vector<std::string> changes;  // one line per change, naming the object ("meshes[0].primitives[1]: ...")
  // Bytes of the input's accessors (as loaded, before quantization and compression) the pass removed; the passes that
  // change how data is stored rather than what is stored save bytes only through the encoding, and report 0.
  uint64_t bytes_removed = 0;
};

struct OptimizeReport {
  double bound = 0.0;                 // metres
  double diagonal = 0.0;              // metres, the rest pose's world-space bounding box
  std::vector<OptimizeError> errors;  // one per category that has poses
  double max_distance = 0.0;          // over every category
  std::string worst;                  // its pose and vertex
  // Poses are verified on the fast multi-threaded path; a sample (the first of each category, every 16th, and the
  // worst) also on the reference path. The largest distance between the two paths' vertices on that sample (metres):
  // a pose passes when its distance plus twice this is within the bound.
  double fast_gap = 0.0;
  OptimizeParts before, after;
  // The input's size on disk: its .gltf or .glb file plus the .bin and image files it names (data: URIs are inside
  // the file already); 0 for an asset not loaded from a file.
  uint64_t input_bytes = 0;
  uint64_t output_bytes = 0;
  std::vector<OptimizePassReport> passes;  // one per kOptimizePassNames entry, in order
  // Per mesh, per primitive: the output vertex of each input vertex, where the weld pass merged vertices (empty where
  // the primitive's vertices kept their order), for a caller that keeps per-vertex data of its own.
  std::vector<std::vector<std::vector<uint32_t>>> vertex_remap;
  uint32_t attempts = 0;           // encodings tried: a finer grid follows one that misses the bound
  std::vector<std::string> notes;  // what was kept as it was and why (one line each)
  // With simplify_ratio: per category, the largest two-sided surface distance between the input's and the output's
  // posed triangles (sampled, optimize_detail::surfaceDistance), where the simplification changed a primitive's
  // vertices; `errors` then holds the encoding's error against the simplified mesh.
  std::vector<OptimizeError> surface_errors;
};

// Fails (kInvalidArgument) for a bound <= 0 or NaN; (kInvalidGltf) for an asset whose document holds extensions
// that point into buffers morphkit cannot rewrite (EXT_mesh_gpu_instancing, ...); (kInvalidArgument) naming the
// pose and the vertex when no encoding stays within the bound. `report` is filled as far as the work went.
Expected<std::vector<uint8_t>> optimizeAsset(const Asset& input, const OptimizeOptions& options,
                                             OptimizeReport& report);

// The report as one JSON object (`morphkit optimize --json`, Python's morphkit.optimize; docs/OPTIMIZE.md):
// file, out, boundMm, diagonalM, maxDistanceMm, maxDistanceMmPerM, worst, errors[{category, poses, maxDistanceMm,
// maxDistanceMmPerM, maxNormalDeg, worst}], fastPathGapMm, surfaceErrors (after a simplification: the same, less
// maxNormalDeg), before/after {targets, base, animation, images, other, total}, passes[{name, ran, changes,
// bytesRemoved}], inputBytes, outputBytes, attempts, notes.
std::string optimizeReportJson(const OptimizeReport& report, std::string_view file, std::string_view out);

}  // namespace morphkit
