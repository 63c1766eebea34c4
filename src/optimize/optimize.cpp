// SPDX-License-Identifier: MIT
// morphkit::optimizeAsset (morphkit/optimize/optimize.h): the passes (optimize_passes.cpp), then encode on grids chosen
// from the bound, write, reload, verify every pose; a finer grid when a pose misses the bound, nothing when the finest
// still does.
#include "morphkit/optimize/optimize.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>

#include "morphkit/gltf/gltf.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/model/extensions.h"
#include "morphkit/model/text.h"
#include "optimize_internal.h"
#include "optimize_passes.h"

namespace morphkit {
namespace {

// Extensions whose objects point at accessors or bufferViews that optimize renumbers: their files are refused
// rather than written broken.
constexpr const char* kPointsIntoBuffers[] = {"EXT_mesh_gpu_instancing", "EXT_structural_metadata", "EXT_mesh_features",
                                              "EXT_instance_features", "KHR_gaussian_splatting"};

// The share of the bound 8-bit skin weights may take on their own (their largest error over the verified poses,
// optimize_weights.cpp); beyond it the attempt is not written and 16-bit weights follow (docs/OPTIMIZE.md,
// "Experiments": on MorphSkinBlob52 8-bit weights passing with finer grids made a larger file than 16-bit ones).
constexpr double kSkinWeightShare = 0.25;
// A skinned base vertex whose own error (its targets' roundings included) is within this share of the bound keeps
// its nearest grid point (optimize_positions.cpp; docs/OPTIMIZE.md, "Experiments").
constexpr double kKeepNearestShare = 0.75;

std::string millimetres(double metres) {
  char text[48];
  std::snprintf(text, sizeof text, "%.4g mm", metres * 1000.0);
  return text;
}

// Grid allowances for one attempt, in object space through the largest transform scale: a tenth of the bound for
// the base positions, nine tenths for the targets (which hold most of the bytes), those shared by the weights a
// verified pose reaches (the split measured in docs/OPTIMIZE.md, "Experiments").
optimize_detail::EncodeBudget budgetFor(double bound, const optimize_detail::PoseScale& scale, double factor) {
  const double local = bound / scale.transform_scale * factor;
  optimize_detail::EncodeBudget budget;
  budget.base_position = 0.1 * local;
  budget.base_position_floor = 0.5 * local;
  // Independent roundings add in quadrature: Σ wᵢ·eᵢ grows with √(Σ wᵢ²), not Σ|wᵢ|; the verification, not this
  // estimate, is the guarantee (a pose that misses sends the next attempt to a finer grid).
  budget.target_delta = 0.9 * local / std::max(1.0, std::sqrt(scale.weight_square_sum));
  // A skinned primitive's base and deltas share one grid: a pose's error is the base's rounding plus its weights
  // times its targets', so √(1 + Σw²); the vertices that set the largest error rounded against each other
  // (optimize_positions.cpp) take a third more (docs/OPTIMIZE.md, "Experiments").
  budget.shared_position = 1.35 * local / std::sqrt(1.0 + scale.weight_square_sum);
  // An unskinned mesh on its own grid: the same sum, each vertex at its nearest point (no re-rounding buys more).
  budget.mesh_position = local / std::sqrt(1.0 + scale.weight_square_sum);
  return budget;
}

// The input's size on disk: the file, and the .bin and image files a .gltf names (data: URIs are inside it).
uint64_t inputFileBytes(const Asset& asset) {
  if (asset.path.empty()) return 0;
  std::error_code ec;
  uint64_t bytes = std::filesystem::file_size(asset.path, ec);
  if (ec) return 0;
  auto add = [&](const std::string& uri) {
    if (uri.empty() || uri.starts_with("data:")) return;
    std::error_code missing;
    const uint64_t size = std::filesystem::file_size(asset.base_dir / uri, missing);
    if (!missing) bytes += size;
  };
  for (const Buffer& buffer : asset.buffers) add(buffer.uri);
  for (const Image& image : asset.images) add(image.uri);
  return bytes;
}

// One encoding of a document and the .glb it writes.
struct Written {
  optimize_detail::EncodedAsset encoded;
  std::vector<uint8_t> glb;
};

Expected<Written> encodeAndWrite(const optimize_detail::PassDocument& document,
                                 const optimize_detail::EncodeBudget& budget,
                                 const optimize_detail::EncodeExtensions& extensions, const OptimizeOptions& options,
                                 std::span<const optimize_detail::SkinnedDraw> draws) {
  Expected<optimize_detail::EncodedAsset> encoded =
      optimize_detail::encodeAsset(document, budget, extensions, draws, options.pool);
  if (!encoded) return encoded.error();
  GlbWriteOptions write;
  write.meshopt = encoded->meshopt;
  Expected<std::vector<uint8_t>> glb = writeGlb(encoded->asset, write);
  if (!glb) return glb.error();
  return Written{std::move(*encoded), std::move(*glb)};
}

// What the file takes gzipped at level 9 (zlib's stream: gzip -9's size less its 18-byte wrapper, the same for both
// sides of a comparison).
uint64_t gzipBytes(std::span<const uint8_t> bytes) {
  uLongf size = compressBound(uLong(bytes.size()));
  std::vector<Bytef> out(size);
  if (compress2(out.data(), &size, bytes.data(), uLong(bytes.size()), 9) != Z_OK) return bytes.size();
  return size;
}

// The reorder pass's report line: whether its order stayed, and the two gzipped sizes that decided.
void noteReorder(OptimizeReport& report, uint64_t with, uint64_t without) {
  for (OptimizePassReport& pass : report.passes) {
    if (pass.name != "reorder") continue;
    if (without <= with) {
      pass.changes.push_back("undone: the file gzips to " + std::to_string(with) + " bytes with it, " +
                             std::to_string(without) + " without");
      pass.bytes_removed = 0;
    } else {
      pass.changes.push_back("kept: the file gzips to " + std::to_string(with) + " bytes with it, " +
                             std::to_string(without) + " without");
    }
  }
}

// Why `runtime` gets no `extension`: its decoder row's line, or that no row says it decodes it.
std::string notDecodedWhy(const Runtime& runtime, std::string_view extension) {
  const RuntimeDecoder* row = findRuntimeDecoder(runtime, extension);
  return row ? std::string(row->how) : std::string(runtime.engine) + " is not known to decode it";
}

// The extensions `runtime` lacks, left out of the encoding; each change is a line of the report.
optimize_detail::EncodeExtensions extensionsFor(const Runtime& runtime, const OptimizeOptions& options,
                                                OptimizeRuntimeReport& report) {
  optimize_detail::EncodeExtensions extensions;
  extensions.meshopt = options.meshopt;
  report.name = runtime.name;
  report.engine = runtime.engine;
  if (options.meshopt && runtimeDecodes(runtime, kMeshoptExtension) != Decodes::kYes) {
    extensions.meshopt = false;
    report.changes.push_back(std::string(kMeshoptExtension) + ": not written, " +
                             notDecodedWhy(runtime, kMeshoptExtension) + "; plain bufferViews");
  }
  if (runtimeDecodes(runtime, kMeshQuantizationExtension) != Decodes::kYes) {
    extensions.quantization = false;
    report.changes.push_back(std::string(kMeshQuantizationExtension) + ": not written, " +
                             notDecodedWhy(runtime, kMeshQuantizationExtension) +
                             "; positions, normals, tangents, their deltas and animation keys as floats, the "
                             "node-dequantization pass skipped");
  }
  return extensions;
}

// The output's extensions the runtime does not decode (kept from the input) or has no row for.
void listUndecoded(const Runtime& runtime, const Asset& output, OptimizeRuntimeReport& report,
                   std::vector<std::string>& notes) {
  for (const std::string& used : output.extensions_used) {
    const Decodes decodes = runtimeDecodes(runtime, used);
    if (decodes == Decodes::kNo) {
      report.undecoded.push_back(used);
      notes.push_back("--for " + std::string(runtime.name) + ": the output keeps " + used + " from the input, which " +
                      std::string(runtime.engine) + " does not decode");
    } else if (decodes == Decodes::kUnknown) {
      report.unconfirmed.push_back(used);
    }
  }
}

}  // namespace

Expected<const Runtime*> optimizeRuntime(const OptimizeOptions& options) {
  if (options.for_engine.empty()) return nullptr;
  const Runtime* runtime = findRuntime(options.for_engine);
  if (!runtime) {
    return fail(Error::kInvalidArgument,
                "--for " + quote(options.for_engine) + ": unknown engine (known: " + std::string(runtimeNames()) + ")");
  }
  const std::string_view asked = options.textures == TextureFormat::kWebp   ? "EXT_texture_webp"
                                 : options.textures == TextureFormat::kKtx2 ? "KHR_texture_basisu"
                                                                            : "";
  if (!asked.empty() && runtimeDecodes(*runtime, asked) != Decodes::kYes) {
    const bool ktx2 = runtimeDecodes(*runtime, "KHR_texture_basisu") == Decodes::kYes;
    const bool webp = runtimeDecodes(*runtime, "EXT_texture_webp") == Decodes::kYes;
    const std::string other =
        options.textures == TextureFormat::kWebp ? (ktx2 ? " or ktx2" : "") : (webp ? " or webp" : "");
    return fail(Error::kInvalidArgument, "--for " + std::string(runtime->name) + ": " + std::string(runtime->engine) +
                                             " does not decode " + std::string(asked) + ", which --textures " +
                                             textureFormatName(options.textures) + " writes; use --textures keep" +
                                             other);
  }
  return runtime;
}

Expected<std::vector<uint8_t>> optimizeAsset(const Asset& input, const OptimizeOptions& options,
                                             OptimizeReport& report) {
  report = OptimizeReport{};
  if (std::isnan(options.max_error_mm) || std::isnan(options.max_error_rel) || options.max_error_mm < 0 ||
      options.max_error_rel < 0 || std::isinf(options.max_error_mm) || std::isinf(options.max_error_rel)) {
    return fail(Error::kInvalidArgument, "optimize: the error bound must be a positive number");
  }
  if (!(options.simplify_ratio >= 0 && options.simplify_ratio <= 1) ||
      !(options.simplify_error_mm >= 0 && options.simplify_error_mm < INFINITY)) {
    return fail(Error::kInvalidArgument,
                "optimize: the simplify ratio must be in (0, 1] and its error limit a positive number");
  }
  for (const char* name : kPointsIntoBuffers) {
    for (const std::string& used : input.extensions_used) {
      if (used == name) {
        return fail(Error::kInvalidGltf, "extensionsUsed '" + used +
                                             "': its objects point into accessors or bufferViews, which optimize "
                                             "does not rewrite yet");
      }
    }
  }
  Expected<const Runtime*> runtime = optimizeRuntime(options);
  if (!runtime) return runtime.error();
  optimize_detail::EncodeExtensions extensions;
  extensions.meshopt = options.meshopt;
  // A runtime without KHR_mesh_quantization gets floats, so no node carries a grid either.
  OptimizeOptions pass_options = options;
  if (*runtime) {
    extensions = extensionsFor(**runtime, options, report.runtime);
    if (!extensions.quantization) pass_options.skip_passes.push_back("node-dequantization");
  }
  auto progress = [&](std::string_view step, double done) {
    if (options.progress) options.progress(step, done);
  };
  progress("measuring the rest pose", 0.0);
  Expected<optimize_detail::PoseScale> scale = optimize_detail::measurePoseScale(input);
  if (!scale) return scale.error();
  report.diagonal = scale->diagonal;
  report.bound = options.max_error_mm > 0
                     ? options.max_error_mm / 1000.0
                     : (options.max_error_rel > 0 ? options.max_error_rel : kDefaultMaxErrorRel) * scale->diagonal;
  if (!(report.bound > 0)) {
    return fail(Error::kInvalidArgument,
                "optimize: the rest pose has no extent, so a relative bound is 0; give the bound in millimetres");
  }
  report.before = optimize_detail::inputParts(input);
  report.input_bytes = inputFileBytes(input);
  progress("passes", 0.0);
  Expected<optimize_detail::PassDocument> document = optimize_detail::runPasses(input, pass_options, report.passes);
  if (!document) return document.error();
  report.texture_min_psnr = options.texture_min_psnr;
  report.textures = document->textures;
  // A simplified mesh has other vertices than the input's: the encoding is verified against the simplified one, and
  // the simplification itself as surfaces (optimize_detail::compareSurfaces).
  const bool simplified = document->simplified;
  Expected<std::vector<optimize_detail::SkinnedDraw>> draws = optimize_detail::skinnedDraws(input);
  if (!draws) return draws.error();
  // 8-bit skin weights first, then 16-bit; then finer grids; the last attempt keeps every position and delta as
  // floats.
  struct Attempt {
    double factor;
    bool u8_skin_weights;
  };
  constexpr Attempt kAttempts[] = {{1.0, true}, {1.0, false}, {0.7, false}, {0.35, false}, {0.1, false}, {0.0, false}};
  // 8-bit weights whose own error takes more than a share of the bound leave too little to the grids: not tried.
  // On the passes' document (welded, simplified, reordered), whose vertices the encoding rounds: its roundings are
  // reused there.
  std::vector<optimize_detail::RoundedSkinWeights> u8_weights;
  const bool u8_fits = optimize_detail::skinWeightError(document->asset, *draws, 255.0, options.pool, &u8_weights) <=
                       kSkinWeightShare * report.bound;
  // The reorder pass stays only where the whole file gzips smaller with it: the first attempt encodes the document
  // with and without it and goes on with the smaller.
  const optimize_detail::PassDocument* chosen = &*document;
  for (const Attempt& attempt : kAttempts) {
    if (attempt.u8_skin_weights && !u8_fits) continue;
    progress("encoding", 0.0);
    optimize_detail::EncodeBudget budget = budgetFor(report.bound, *scale, attempt.factor);
    budget.u8_skin_weights = attempt.u8_skin_weights;
    if (chosen == &*document) budget.rounded_u8_weights = u8_weights;
    budget.keep_nearest = kKeepNearestShare * report.bound;
    Expected<Written> written = encodeAndWrite(*chosen, budget, extensions, options, *draws);
    if (!written) return written.error();
    if (document->before_reorder && report.attempts == 0) {
      progress("encoding without the reorder pass", 0.0);
      budget.rounded_u8_weights = {};
      Expected<Written> unreordered = encodeAndWrite(*document->before_reorder, budget, extensions, options, *draws);
      if (!unreordered) return unreordered.error();
      const uint64_t with = gzipBytes(written->glb), without = gzipBytes(unreordered->glb);
      if (without <= with) {
        chosen = document->before_reorder.get();
        written = std::move(unreordered);
      }
      noteReorder(report, with, without);
    }
    const optimize_detail::EncodedAsset& encoded = written->encoded;
    const std::vector<uint8_t>& glb = written->glb;
    ++report.attempts;
    progress("reloading the output", 0.0);
    Expected<Asset> reloaded = loadAssetFromMemory(glb, input.base_dir);
    if (!reloaded) {
      return fail(reloaded.error().code, "optimize: the output does not load back: " + reloaded.error().message);
    }
    // Against the simplified mesh vertex by vertex; otherwise against the input, through the vertex map of the passes
    // that merge or move vertices (weld, reorder).
    const std::vector<std::vector<std::vector<uint32_t>>> no_remap;
    const Asset& reference = simplified ? chosen->asset : input;
    if (Status s = optimize_detail::comparePoses(reference, *reloaded, report.bound, report, options,
                                                 simplified ? no_remap : chosen->vertex_remap);
        !s) {
      return s.error();
    }
    if (report.max_distance + 2.0 * report.fast_gap <= report.bound) {
      if (simplified) {
        if (Status s = optimize_detail::compareSurfaces(input, *reloaded, report, options); !s) return s.error();
      }
      report.after = optimize_detail::outputParts(encoded, glb);
      report.output_bytes = glb.size();
      report.vertex_remap = chosen->vertex_remap;
      report.notes = encoded.notes;
      if (*runtime) listUndecoded(**runtime, *reloaded, report.runtime, report.notes);
      progress("done", 1.0);
      return std::move(written->glb);
    }
  }
  return fail(Error::kInvalidArgument, "optimize: the bound " + millimetres(report.bound) +
                                           " is exceeded: " + millimetres(report.max_distance) + " at " + report.worst +
                                           "; nothing written");
}

namespace {

void partsJson(JsonWriter& json, std::string_view key, const OptimizeParts& p) {
  json.key(key).beginObject();
  json.field("targets", p.targets).field("base", p.base).field("animation", p.animation);
  json.field("images", p.images).field("other", p.other);
  json.field("total", p.targets + p.base + p.animation + p.images + p.other);
  json.endObject();
}

void texturesJson(JsonWriter& json, const OptimizeReport& r) {
  json.field("textureMinPsnr", r.texture_min_psnr);
  json.key("textures").beginArray();
  for (const OptimizeTextureReport& t : r.textures) {
    json.beginObject();
    json.field("image", t.image).field("name", std::string_view(t.name)).field("role", std::string_view(t.role));
    json.field("usedBy", std::string_view(t.used_by)).field("formatBefore", std::string_view(t.format_before));
    json.field("formatAfter", std::string_view(t.format_after)).field("setting", std::string_view(t.setting));
    json.field("tried", std::string_view(t.tried));
    json.field("widthBefore", t.width_before).field("heightBefore", t.height_before);
    json.field("width", t.width).field("height", t.height);
    json.field("bytesBefore", t.bytes_before).field("bytesAfter", t.bytes_after);
    json.field("gpuBytesBefore", t.gpu_bytes_before).field("gpuBytesAfter", t.gpu_bytes_after);
    json.field("psnr", t.psnr).field("maxAbs", t.max_abs);  // an infinite PSNR (identical) writes null
    json.field("kept", t.kept).field("why", std::string_view(t.why));
    json.endObject();
  }
  json.endArray();
}

void runtimeJson(JsonWriter& json, const OptimizeRuntimeReport& r) {
  json.key("forEngine");
  if (r.name.empty()) {
    json.null();
    return;
  }
  json.beginObject();
  json.field("name", std::string_view(r.name)).field("engine", std::string_view(r.engine));
  json.key("changes").array(std::span<const std::string>(r.changes));
  json.key("undecoded").array(std::span<const std::string>(r.undecoded));
  json.key("unconfirmed").array(std::span<const std::string>(r.unconfirmed));
  json.endObject();
}

// One report's fields, inside an object the caller opened.
void reportFields(JsonWriter& json, const OptimizeReport& r, std::string_view file, std::string_view out) {
  const double per_metre = r.diagonal > 0 ? 1000.0 / r.diagonal : 0.0;
  json.field("file", file).field("out", out);
  json.field("boundMm", r.bound * 1000.0).field("diagonalM", r.diagonal);
  json.field("maxDistanceMm", r.max_distance * 1000.0).field("maxDistanceMmPerM", r.max_distance * per_metre);
  json.field("worst", std::string_view(r.worst));
  json.field("fastPathGapMm", r.fast_gap * 1000.0);
  json.key("errors").beginArray();
  for (const OptimizeError& e : r.errors) {
    json.beginObject();
    json.field("category", std::string_view(e.category)).field("poses", e.poses);
    json.field("maxDistanceMm", e.max_distance * 1000.0).field("maxDistanceMmPerM", e.max_distance * per_metre);
    json.field("maxNormalDeg", e.max_normal_deg).field("worst", std::string_view(e.worst));
    json.endObject();
  }
  json.endArray();
  if (!r.surface_errors.empty()) {
    json.key("surfaceErrors").beginArray();
    for (const OptimizeError& e : r.surface_errors) {
      json.beginObject();
      json.field("category", std::string_view(e.category)).field("poses", e.poses);
      json.field("maxDistanceMm", e.max_distance * 1000.0).field("maxDistanceMmPerM", e.max_distance * per_metre);
      json.field("worst", std::string_view(e.worst));
      json.endObject();
    }
    json.endArray();
  }
  partsJson(json, "before", r.before);
  partsJson(json, "after", r.after);
  json.key("passes").beginArray();
  for (const OptimizePassReport& pass : r.passes) {
    json.beginObject();
    json.field("name", std::string_view(pass.name)).field("ran", pass.ran);
    json.key("changes").array(std::span<const std::string>(pass.changes));
    json.field("bytesRemoved", pass.bytes_removed);
    json.endObject();
  }
  json.endArray();
  json.field("inputBytes", r.input_bytes).field("outputBytes", r.output_bytes).field("attempts", r.attempts);
  json.key("notes").array(std::span<const std::string>(r.notes));
  texturesJson(json, r);
  runtimeJson(json, r.runtime);
  if (r.render_diff) optimize_detail::renderDiffJson(json, *r.render_diff);
}

}  // namespace

std::string optimizeReportJson(const OptimizeReport& report, std::string_view file, std::string_view out,
                               std::span<const OptimizeLevel> lods) {
  JsonWriter json;
  json.beginObject();
  reportFields(json, report, file, out);
  if (!lods.empty()) {
    json.key("lods").beginArray();
    for (const OptimizeLevel& level : lods) {
      json.beginObject();
      json.field("ratio", level.ratio);
      reportFields(json, level.report, file, level.out);
      json.endObject();
    }
    json.endArray();
  }
  json.endObject();
  return json.str();
}

std::string lodPath(std::string_view out, size_t level) {
  const std::filesystem::path path(out);
  std::filesystem::path named = path;
  named.replace_filename(path.stem().string() + ".lod" + std::to_string(level) + path.extension().string());
  return named.string();
}

Expected<std::vector<OptimizeLevel>> optimizeLevels(const Asset& input, const OptimizeOptions& options,
                                                    std::span<const double> ratios, std::string_view out) {
  for (double ratio : ratios) {
    if (!(ratio > 0 && ratio <= 1)) {
      return fail(Error::kInvalidArgument, "optimize: a level of detail's ratio must be in (0, 1]");
    }
  }
  std::vector<OptimizeLevel> levels;
  for (size_t n = 0; n < ratios.size(); ++n) {
    OptimizeLevel level;
    level.ratio = ratios[n];
    level.out = lodPath(out, n + 1);
    OptimizeOptions simplified = options;
    simplified.simplify_ratio = ratios[n];
    if (options.progress) {  // the levels one after another on one scale
      simplified.progress = [&options, n, count = ratios.size()](std::string_view step, double done) {
        options.progress(step, (double(n) + done) / double(count));
      };
    }
    Expected<std::vector<uint8_t>> glb = optimizeAsset(input, simplified, level.report);
    if (!glb) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%g", ratios[n]);
      return fail(glb.error().code,
                  "level of detail " + std::to_string(n + 1) + " (ratio " + ratio + "): " + glb.error().message);
    }
    level.glb = std::move(*glb);
    levels.push_back(std::move(level));
  }
  return levels;
}

}  // namespace morphkit
