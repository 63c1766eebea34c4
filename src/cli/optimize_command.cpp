// SPDX-License-Identifier: MIT
// `morphkit optimize IN --out OUT.glb [--max-error MM | --max-error-rel F] [--no-meshopt] [--keep-attributes]
// [--keep-nodes] [--skip-pass NAME]... [--simplify R | --lod R1,R2,...] [--simplify-error MM]
// [--textures keep|webp|ktx2] [--texture-size N] [--texture-min-psnr DB] [--for ENGINE] [--[no-]render-check]
// [--json]`
// A smaller .glb within a verified world-space bound of IN at every pose (morphkit/optimize/optimize.h,
// docs/OPTIMIZE.md).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "command.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/text.h"
#include "morphkit/optimize/optimize.h"
#include "optimize_render_check.h"
#include "output_folder.h"

namespace morphkit::cli {
namespace {

struct OptimizeCommandOptions {
  std::string file;
  std::string out;
  double max_error_mm = 0.0;
  double max_error_rel = 0.0;
  bool no_meshopt = false;
  bool keep_attributes = false;
  bool keep_nodes = false;
  std::vector<std::string> skip_passes;
  std::string textures = "keep";
  uint32_t texture_size = 0;
  double texture_min_psnr = kDefaultTextureMinPsnr;
  double simplify_ratio = 0.0;
  double simplify_error_mm = 0.0;
  std::vector<double> lod_ratios;  // --lod: one more file per ratio beside OUT (lodPath)
  std::string for_engine;
  bool json = false;
  uint32_t threads = 0;
  FileAccessFlags file_access;
  BudgetFlags budget;
  std::optional<bool> render_check;  // --render-check / --no-render-check; unset: renderCheckByDefault
};

// One row per texture the textures pass looked at: download bytes and GPU memory before and after, the error.
void printTextures(const OptimizeReport& r) {
  if (r.textures.empty()) return;
  fmt::print("  textures (min PSNR {:.1f} dB)  {:>6} {:>6} {:>11} {:>11} {:>11} {:>11} {:>8} {:>4}\n",
             r.texture_min_psnr, "role", "format", "bytes", "after", "GPU", "GPU after", "PSNR", "max");
  for (const OptimizeTextureReport& t : r.textures) {
    fmt::print("  images[{}] {:<21} {:>6} {:>6} {:>11} {:>11} {:>11} {:>11} {:>8.2f} {:>4}\n", t.image,
               fmt::format("{}x{} -> {}x{}", t.width_before, t.height_before, t.width, t.height), t.role,
               t.format_after, t.bytes_before, t.bytes_after, t.gpu_bytes_before, t.gpu_bytes_after, t.psnr, t.max_abs);
    if (!t.tried.empty()) fmt::print("    tried: {}\n", shown(t.tried));
    if (t.kept) fmt::print("    kept its bytes: {}\n", shown(t.why));
  }
}

void printTable(const OptimizeCommandOptions& o, const std::string& out, const OptimizeReport& r) {
  const uint64_t input_bytes = r.input_bytes;
  const double per_metre = r.diagonal > 0 ? 1000.0 / r.diagonal : 0.0;
  fmt::print("{}: {} -> {} bytes ({:.1f} %), bound {:.4g} mm ({:.3g} mm/m of the {:.4g} m diagonal)\n", shown(out),
             input_bytes, r.output_bytes, input_bytes ? 100.0 * double(r.output_bytes) / double(input_bytes) : 0.0,
             r.bound * 1000.0, r.bound * per_metre, r.diagonal);
  fmt::print("  {:<16} {:>6} {:>12} {:>10} {:>10}\n", "poses", "count", "max mm", "mm/m", "normal deg");
  for (const OptimizeError& e : r.errors) {
    fmt::print("  {:<16} {:>6} {:>12.5f} {:>10.4f} {:>10.3f}\n", e.category, e.poses, e.max_distance * 1000.0,
               e.max_distance * per_metre, e.max_normal_deg);
  }
  if (!r.worst.empty()) fmt::print("  worst: {}\n", shown(r.worst));
  if (!r.surface_errors.empty()) fmt::print("  {:<16} {:>6} {:>12} {:>10}\n", "surfaces", "count", "max mm", "mm/m");
  for (const OptimizeError& e : r.surface_errors) {
    fmt::print("  {:<16} {:>6} {:>12.5f} {:>10.4f}\n", e.category, e.poses, e.max_distance * 1000.0,
               e.max_distance * per_metre);
    if (!e.worst.empty()) fmt::print("    worst: {}\n", shown(e.worst));
  }
  fmt::print("  {:<16} {:>12} {:>12}\n", "bytes", "before", "after");
  const std::pair<const char*, uint64_t OptimizeParts::*> rows[] = {{"targets", &OptimizeParts::targets},
                                                                    {"base geometry", &OptimizeParts::base},
                                                                    {"animation", &OptimizeParts::animation},
                                                                    {"images", &OptimizeParts::images},
                                                                    {"other", &OptimizeParts::other}};
  for (const auto& [name, field] : rows) fmt::print("  {:<16} {:>12} {:>12}\n", name, r.before.*field, r.after.*field);
  for (const OptimizePassReport& pass : r.passes) {
    if (!pass.ran) {
      fmt::print("  pass {}: skipped\n", pass.name);
      continue;
    }
    fmt::print("  pass {}: {} change{}, {} input bytes removed\n", pass.name, pass.changes.size(),
               pass.changes.size() == 1 ? "" : "s", pass.bytes_removed);
    for (const std::string& change : pass.changes) fmt::print("    {}\n", shown(change));
  }
  printTextures(r);
  if (!r.runtime.name.empty()) {
    fmt::print("  for {} ({}): {}\n", r.runtime.name, r.runtime.engine,
               r.runtime.changes.empty() ? "every extension it needs is decoded there" : "");
    for (const std::string& change : r.runtime.changes) fmt::print("    {}\n", shown(change));
  }
  printRenderDiff(r);
  for (const std::string& note : r.notes) reportNote(o.file + ": " + note);
}

// A file optimize would write that is IN itself (OUT, or a level of detail beside it).
bool isInput(const std::string& file, const std::string& out) {
  std::error_code ec;
  return std::filesystem::exists(out, ec) && std::filesystem::equivalent(file, out, ec);
}

// A file that came out larger than IN: an already-compressed or tiny input. The user is told rather than left to
// find out.
void warnIfLarger(const std::string& out, uint64_t bytes, uint64_t input_bytes) {
  if (input_bytes > 0 && bytes > input_bytes) {
    reportWarning(
        fmt::format("{}: {} bytes, more than IN's {}: an already-compressed or tiny input gains nothing "
                    "at this bound (a looser --max-error may help)",
                    out, bytes, input_bytes));
  }
}

int run(const OptimizeCommandOptions& o) {
  if (!hasExtension(o.out, ".glb")) return reportUsage("--out " + o.out + ": optimize writes a binary glTF (.glb)");
  if (std::isnan(o.max_error_mm) || std::isnan(o.max_error_rel)) return reportUsage("--max-error: not a number");
  if (o.simplify_error_mm > 0 && o.simplify_ratio == 0 && o.lod_ratios.empty()) {
    return reportUsage("--simplify-error: needs --simplify or --lod");
  }
  if (isInput(o.file, o.out))
    return reportUsage("--out " + o.out + ": is IN itself; write the optimized file beside it");
  for (size_t n = 1; n <= o.lod_ratios.size(); ++n) {
    if (isInput(o.file, lodPath(o.out, n))) {
      return reportUsage("--lod: level " + std::to_string(n) + " would be written to " + lodPath(o.out, n) +
                         ", which is IN itself; choose another --out");
    }
  }
  OptimizeOptions options;
  options.max_error_mm = o.max_error_mm;
  options.max_error_rel = o.max_error_rel;
  options.meshopt = !o.no_meshopt;
  options.keep_attributes = o.keep_attributes;
  options.keep_nodes = o.keep_nodes;
  options.skip_passes = o.skip_passes;
  options.textures = o.textures == "webp"   ? TextureFormat::kWebp
                     : o.textures == "ktx2" ? TextureFormat::kKtx2
                                            : TextureFormat::kKeep;
  options.texture_size = o.texture_size;
  options.texture_min_psnr = o.texture_min_psnr;
  options.simplify_ratio = o.simplify_ratio;
  options.simplify_error_mm = o.simplify_error_mm;
  options.for_engine = o.for_engine;
  // --for and the options it contradicts (--textures webp for a runtime without WebP) are usage errors, before loading.
  if (Expected<const Runtime*> runtime = optimizeRuntime(options); !runtime)
    return reportUsage(runtime.error().message);
  LoadOptions load;
  o.file_access.applyTo(load);
  load.budget = o.budget.budget();
  Expected<Asset> asset = loadAsset(o.file, load);
  if (!asset) return reportFailure(o.file, asset.error());
  ThreadPool pool(o.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : o.threads);
  options.pool = &pool;
  OptimizeReport report;
  Expected<std::vector<uint8_t>> glb = fail(Error::kIo, "");
  {
    ProgressBar bar("optimize", 100);
    options.progress = [&bar](std::string_view, double done) { bar.update(size_t(done * 100.0)); };
    glb = optimizeAsset(*asset, options, report);
    bar.finish();
  }
  if (!glb) return reportFailure(o.file, glb.error());
  // Every level is made before any file is written: a level that fails leaves nothing behind.
  std::vector<OptimizeLevel> levels;
  if (!o.lod_ratios.empty()) {
    ProgressBar bar("levels of detail", 100);
    options.progress = [&bar](std::string_view, double done) { bar.update(size_t(done * 100.0)); };
    Expected<std::vector<OptimizeLevel>> made = optimizeLevels(*asset, options, o.lod_ratios, o.out);
    bar.finish();
    if (!made) return reportFailure(o.file, made.error());
    levels = std::move(*made);
  }
  if (int code = writeReportedOutput(o.out, std::span<const uint8_t>(*glb)); code != 0) return code;
  warnIfLarger(o.out, glb->size(), report.input_bytes);
  for (const OptimizeLevel& level : levels) {
    if (int code = writeReportedOutput(level.out, std::span<const uint8_t>(level.glb)); code != 0) return code;
  }
  if (int code = runRenderCheck(o.render_check, options, *asset, o.out, load, report); code != 0) return code;
  if (o.json) {
    fmt::print("{}\n", optimizeReportJson(report, o.file, o.out, levels));
    return 0;
  }
  printTable(o, o.out, report);
  for (const OptimizeLevel& level : levels) {
    fmt::print("level of detail {} (ratio {:g}):\n", &level - levels.data() + 1, level.ratio);
    printTable(o, level.out, level.report);
  }
  return 0;
}

const CommandRegistration kOptimizeCommand(
    {46, [](CLI::App& app, int& exit_code) {
       auto options = std::make_shared<OptimizeCommandOptions>();
       CLI::App* sub = app.add_subcommand(
           "optimize", "Compress a glTF (quantization + meshopt), verified within a bound at every pose");
       sub->add_option("IN", options->file, "the .gltf or .glb file")->required();
       sub->add_option("-o,--out", options->out, "the .glb file to write")->required();
       auto* mm = sub->add_option("--max-error", options->max_error_mm,
                                  "largest vertex distance from IN at any pose, in millimetres of world space");
       mm->check(CLI::PositiveNumber);
       auto* rel = sub->add_option("--max-error-rel", options->max_error_rel,
                                   "the bound as a fraction of the rest pose's bounding-box diagonal (default 2e-4)");
       rel->check(CLI::PositiveNumber);
       mm->excludes(rel);
       sub->add_flag("--no-meshopt", options->no_meshopt, "quantization alone (no EXT_meshopt_compression)");
       sub->add_flag("--keep-attributes", options->keep_attributes,
                     "keep every vertex attribute, also a TEXCOORD_n or TANGENT no material reads");
       sub->add_flag("--keep-nodes", options->keep_nodes,
                     "add no node (an unskinned mesh whose node cannot carry its dequantization keeps floats)");
       std::string pass_names;
       for (const char* name : kOptimizePassNames) pass_names += std::string(pass_names.empty() ? "" : ", ") + name;
       sub->add_option("--skip-pass", options->skip_passes,
                       "do not run this pass (repeatable; for measuring each alone): " + pass_names)
           ->check(
               CLI::IsMember(std::vector<std::string>(std::begin(kOptimizePassNames), std::end(kOptimizePassNames))));
       sub->add_option("--textures", options->textures,
                       "what to store the textures materials sample as: keep (their bytes), webp (EXT_texture_webp) "
                       "or ktx2 (KHR_texture_basisu, through basisu); no fallback image")
           ->check(CLI::IsMember({"keep", "webp", "ktx2"}));
       sub->add_option("--texture-size", options->texture_size,
                       "the largest side a texture keeps, in texels (larger ones resampled, the aspect kept)")
           ->check(CLI::Range(1u, 16384u));
       sub->add_option("--texture-min-psnr", options->texture_min_psnr,
                       fmt::format("a texture whose encoding decodes below this PSNR keeps its bytes (dB, default {})",
                                   kDefaultTextureMinPsnr))
           ->check(CLI::Range(1.0, 200.0));
       const CLI::Validator in_unit_interval(
           [](std::string& text) -> std::string {
             const double ratio = std::strtod(text.c_str(), nullptr);
             return ratio > 0 && ratio <= 1 ? "" : text + " is not in (0, 1]";
           },
           "(0, 1]");
       auto* simplify = sub->add_option("--simplify", options->simplify_ratio,
                                        "keep this fraction of each mesh's triangles, in (0, 1]; collapses priced "
                                        "at the rest pose, every target and animation poses");
       simplify->check(in_unit_interval);
       sub->add_option("--lod", options->lod_ratios,
                       "levels of detail: also write OUT's stem.lodN.glb for each ratio R1,R2,... (the fraction of "
                       "triangles each keeps), beside OUT at full detail")
           ->delimiter(',')
           ->check(in_unit_interval)
           ->excludes(simplify);
       sub->add_option("--simplify-error", options->simplify_error_mm,
                       "stop simplifying before a collapse error above this, in millimetres of world space (with "
                       "--simplify or --lod)")
           ->check(CLI::Validator(
               [](std::string& text) -> std::string {
                 return std::strtod(text.c_str(), nullptr) > 0 ? "" : text + " is not a positive number";
               },
               "> 0"));
       sub->add_option("--for", options->for_engine,
                       fmt::format("write only the extensions this runtime decodes ({}; docs/CHECK.md lists "
                                   "what each decodes)",
                                   runtimeNames()));
       auto* check = sub->add_flag_callback(
           "--render-check", [options] { options->render_check = true; },
           "render IN and OUT at a few verified poses and report the pixel "
           "difference (unasked with --textures webp; fails without a device)");
       check->excludes(sub->add_flag_callback(
           "--no-render-check", [options] { options->render_check = false; },
           "skip the render check --textures webp runs unasked"));
       sub->add_flag("--json", options->json, "print the report as one JSON object");
       sub->add_option("--threads", options->threads, "threads for the verification (0, the default: all cores)")
           ->check(CLI::Range(0u, 256u));
       addFileAccessOptions(sub, options->file_access);
       addBudgetOptions(sub, options->budget);
       sub->callback([options, &exit_code] { exit_code = run(*options); });
     }});

}  // namespace
}  // namespace morphkit::cli
