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
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/image/image.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"
#include "morphkit/model/runtimes.h"
#include "morphkit/model/thread_pool.h"

namespace morphkit {

// The default bound: 2e-4 of the rest pose's bounding-box diagonal (0.2 mm per metre: 0.05 mm on a 25 cm face,
// far below a pixel at any distance a face fills the screen from).
inline constexpr double kDefaultMaxErrorRel = 2e-4;

// What optimize does with the images materials sample (docs/OPTIMIZE.md, "Textures"): keep their bytes, or store
// them as WebP (EXT_texture_webp) or KTX2 (KHR_texture_basisu, through the basisu program), without a fallback.
enum class TextureFormat : uint8_t { kKeep, kWebp, kKtx2 };
const char* textureFormatName(TextureFormat format);  // "keep", "webp", "ktx2"

// The default --texture-min-psnr: 35 dB is an RMS error of 4.5/255. Measured on make-demo --material textured
// (docs/OPTIMIZE.md, "Textures"): WebP's lowest tried quality already gives colour 41 dB, basisu's defaults give
// ETC1S colour 38.7 dB and UASTC normals 35.3 dB; 40 dB would send every KTX2 colour and normal map back to PNG.
inline constexpr double kDefaultTextureMinPsnr = 35.0;

struct OptimizeOptions {
  double max_error_mm = 0.0;     // world-space bound in millimetres (glTF is in metres); 0: use max_error_rel
  double max_error_rel = 0.0;    // bound as a fraction of the rest pose's diagonal; both 0: kDefaultMaxErrorRel
  bool meshopt = true;           // false: quantization alone (KHR_mesh_quantization, no EXT_meshopt_compression)
  bool keep_attributes = false;  // true: no attribute is dropped (the drop-attributes pass changes nothing)
  bool keep_nodes = false;       // true: no node is added (an unskinned mesh that needs one keeps float positions)
  // Passes not to run, by name (kOptimizePassNames): for measuring each pass alone; an unknown name is an error.
  std::vector<std::string> skip_passes;
  TextureFormat textures = TextureFormat::kKeep;  // the textures pass's output format
  uint32_t texture_size = 0;                      // largest side a texture keeps (resampled by role); 0: any
  // A texture whose encoding, decoded, is below this PSNR (dB, against the input at the stored size) keeps its bytes.
  double texture_min_psnr = kDefaultTextureMinPsnr;
  // Levels of detail (docs/OPTIMIZE.md, "Levels of detail"): the fraction of each triangle primitive's triangles to
  // keep, in (0, 1]; 0 or 1: no simplification. Collapses are priced at the rest pose, every target alone and
  // animation poses, and each kept vertex keeps its data exactly.
  double simplify_ratio = 0.0;
  // The largest collapse error the simplification may reach (world space, millimetres); 0: no limit.
  double simplify_error_mm = 0.0;
  // The runtime the file is for (`--for`, a name of morphkit/model/runtimes.h: three, filament, playcanvas, ...): the
  // output holds only the extensions it decodes (no EXT_meshopt_compression, floats instead of KHR_mesh_quantization
  // where it lacks them); empty: any runtime. OptimizeReport::runtime says what it changed.
  std::string for_engine;
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
inline constexpr const char* kOptimizePassNames[] = {
    "drop-attributes", "drop-direction-deltas", "weld", "simplify", "node-dequantization", "textures", "reorder"};

// What one pass did.
struct OptimizePassReport {
  std::string name;
  bool ran = false;                  // false: skipped (OptimizeOptions::skip_passes)
  std::vector<std::string> changes;  // one line per change, naming the object ("meshes[0].primitives[1]: ...")
  // Bytes of the input's accessors (as loaded, before quantization and compression) the pass removed; the passes that
  // change how data is stored rather than what is stored save bytes only through the encoding, and report 0.
  uint64_t bytes_removed = 0;
};

// One image the textures pass looked at: what it held, what it holds now, and the error, measured by decoding
// what was written (docs/OPTIMIZE.md, "Textures").
struct OptimizeTextureReport {
  uint32_t image = 0;         // images[] index (the same in the output)
  std::string name;           // the image's name or URI, may be empty
  std::string role;           // "colour" (sRGB), "data" or "normal" (linear), from the material slots that read it
  std::string used_by;        // the first slot that reads it ("materials[0].normalTexture"), and how many more
  std::string format_before;  // "png", "jpeg"
  std::string format_after;   // "webp", "webp-near-lossless", "webp-lossless", "ktx2-etc1s", "ktx2-uastc";
                              // format_before when kept
  std::string setting;        // the encoder setting written ("lossy q70", "near-lossless 20 (±8)"); empty if kept
  std::string tried;          // every setting tried with its PSNR and bytes, in order, and what was skipped and why
  uint32_t width_before = 0, height_before = 0, width = 0, height = 0;
  uint64_t bytes_before = 0, bytes_after = 0;          // stored (download) bytes
  uint64_t gpu_bytes_before = 0, gpu_bytes_after = 0;  // GPU memory with mips: RGBA8, or the compressed blocks
  double psnr = 0.0;     // dB, the lower of RGB and alpha's (morphkit/image/image.h ImageError); +inf: identical
  uint32_t max_abs = 0;  // the largest channel difference, 1/255
  bool kept = false;     // the original bytes stay (`why` says why)
  std::string why;
};

// What `for_engine` changed (docs/OPTIMIZE.md, "For a runtime").
struct OptimizeRuntimeReport {
  std::string name;                  // empty: no runtime was named
  std::string engine;                // the runtime and version its decoder rows describe
  std::vector<std::string> changes;  // one line per extension not written, and why
  // Extensions the output still uses that the runtime does not decode (kept from the input, e.g. its WebP textures)
  // and those the table has no row for (not confirmed either way).
  std::vector<std::string> undecoded, unconfirmed;
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
  uint32_t attempts = 0;                        // encodings tried: a finer grid follows one that misses the bound
  std::vector<std::string> notes;               // what was kept as it was and why (one line each)
  double texture_min_psnr = 0.0;                // dB, the threshold the textures were held to
  std::vector<OptimizeTextureReport> textures;  // one per image the textures pass looked at (none with keep)
  // With simplify_ratio: per category, the largest two-sided surface distance between the input's and the output's
  // posed triangles (sampled, optimize_detail::surfaceDistance), where the simplification changed a primitive's
  // vertices; `errors` then holds the encoding's error against the simplified mesh.
  std::vector<OptimizeError> surface_errors;
  OptimizeRuntimeReport runtime;  // with for_engine
  // What the user sees (docs/OPTIMIZE.md): input and output rendered at renderCheckPoses and compared pixel by pixel.
  // optimizeAsset does not render (the renderer is a layer above); the CLI's --render-check and Python's
  // render_check fill it after the output is written, and optimizeReportJson writes it as renderDiff.
  std::optional<RenderDifference> render_diff;
};

// The runtime options.for_engine names, or nullptr when it is empty. Fails (kInvalidArgument, one line naming --for)
// for an unknown name, or for options that ask for an extension the runtime does not decode (--textures webp where
// it lacks EXT_texture_webp): a caller checks this before loading anything and treats it as a usage error.
Expected<const Runtime*> optimizeRuntime(const OptimizeOptions& options);

// At most 4 of the verified poses, the same whatever the output: the rest pose; the target whose POSITION deltas
// reach furthest (in its mesh's units) alone at weight 1; and the verified times of the first animation nearest 1/3
// and 2/3 of its clip (a key or a midpoint between keys). Without an animation, the second and third furthest-reaching
// targets take their places; without targets either, the rest pose alone. Fails when the scene does not decode.
Expected<std::vector<LabelledPose>> renderCheckPoses(const Asset& asset);
// The render check's frames: kRenderCheckSize pixels square, the renderer's default look (the studio environment,
// the key light and its shadow, 4× MSAA). It runs unasked when textures are re-encoded as WebP (renderCheckByDefault:
// the one change no bound in metres describes; not KTX2, which morphkit's renderer cannot decode); --render-check /
// render_check=True ask for it anyway, --no-render-check / render_check=False skip it.
inline constexpr uint32_t kRenderCheckSize = 256;
bool renderCheckByDefault(const OptimizeOptions& options);

// Fails (kInvalidArgument) for a bound <= 0 or NaN; (kInvalidGltf) for an asset whose document holds extensions
// that point into buffers morphkit cannot rewrite (EXT_mesh_gpu_instancing, ...); (kInvalidArgument) naming the
// pose and the vertex when no encoding stays within the bound. `report` is filled as far as the work went.
Expected<std::vector<uint8_t>> optimizeAsset(const Asset& input, const OptimizeOptions& options,
                                             OptimizeReport& report);

// The report as one JSON object (`morphkit optimize --json`, Python's morphkit.optimize; docs/OPTIMIZE.md):
// file, out, boundMm, diagonalM, maxDistanceMm, maxDistanceMmPerM, worst, errors[{category, poses, maxDistanceMm,
// maxDistanceMmPerM, maxNormalDeg, worst}], fastPathGapMm, surfaceErrors (after a simplification: the same, less
// maxNormalDeg), before/after {targets, base, animation, images, other, total}, passes[{name, ran, changes,
// bytesRemoved}], inputBytes, outputBytes, attempts, notes, textureMinPsnr, textures[{image, name, role, usedBy,
// formatBefore, formatAfter, setting, tried, widthBefore, heightBefore, width, height, bytesBefore, bytesAfter,
// gpuBytesBefore, gpuBytesAfter, psnr (null: identical), maxAbs, kept, why}], forEngine (null, or {name, engine,
// changes, undecoded, unconfirmed}), and with render_diff, renderDiff {width, height, poses[{pose, meanAbs, p99,
// max}], worstMean, worstP99, worstMax, warnings}.
// With `lods` (optimizeLevels), a "lods" array follows: per level, {ratio} and that level's report fields.
struct OptimizeLevel;
std::string optimizeReportJson(const OptimizeReport& report, std::string_view file, std::string_view out,
                               std::span<const OptimizeLevel> lods = {});

// Levels of detail (`morphkit optimize --lod R1,R2,...`, docs/OPTIMIZE.md "Levels of detail"): one file per ratio
// beside the full one, each simplified to that fraction of its triangles and verified like any output.
struct OptimizeLevel {
  double ratio = 1.0;        // OptimizeOptions::simplify_ratio of this level
  std::string out;           // lodPath(the full file, n)
  std::vector<uint8_t> glb;  // the level's file, not yet written
  OptimizeReport report;
};

// Level n (1, 2, ...) beside the full file `out`: "face.glb" → "face.lod1.glb".
std::string lodPath(std::string_view out, size_t level);

// optimizeAsset once per ratio, options.simplify_ratio set to it (each in (0, 1], else kInvalidArgument before any
// work), in order; nothing is written, so a caller writes every file or none. Fails with the first level that fails,
// naming its ratio.
Expected<std::vector<OptimizeLevel>> optimizeLevels(const Asset& input, const OptimizeOptions& options,
                                                    std::span<const double> ratios, std::string_view out);

}  // namespace morphkit
