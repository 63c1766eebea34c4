// SPDX-License-Identifier: MIT
// `morphkit render FILE [--anim N|NAME] [--fps 30] [--duration S | --frames A:B] [--size WxH] [--out DIR]
//  [--force | --resume] [--morph-path vertex|compute|auto] [--camera auto|file|N|EX,EY,EZ:TX,TY,TZ[:FOV]]
//  [--material GRAPH.json] [--json] [--weights NAME=V,...] [--weights-file W.json]
//  [--weights-csv C.csv [--csv-fps F] [--map M.json]]`:
// renders an animation headlessly (morphkit/render/render.h) to PNG frames, a contact sheet and — when ffmpeg is on
// PATH — an MP4. --material draws every primitive with a node material (morphkit/material/node_material.h).
// --weights-csv plays a face capture (on the rest pose unless --anim is given too), its duration at --fps. Safe to
// split across workers: frames are named by their real index, written as they finish (nothing but small contact-sheet
// cells stays in memory), and the auto camera frames the whole clip, so `--frames 0:30` and `--frames 30:60` into one
// folder (the second with --resume) equal one `--frames 0:60`.
#ifdef HAVE_morphkit_render
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "morphkit/core/animation.h"
#include "morphkit/gltf/animation_pointer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/image/frame_writer.h"
#include "morphkit/model/files.h"
#include "morphkit/model/text.h"
#include "morphkit/render/render.h"
#include "morphkit/vk/gpu.h"
#include "output_folder.h"
#include "render_look.h"
#include "render_output.h"
#include "render_summary.h"
#include "selection.h"
#include "weight_options.h"
#if HAVE_morphkit_material
#include "morphkit/material/node_material.h"
#endif

namespace morphkit::cli {
namespace {

struct RenderCommandOptions {
  std::string file;
  std::string anim;  // index or name; empty: 0 when the asset has animations
  double fps = 30.0;
  double duration = -1.0;
  std::string frames;  // "A:B", half-open frame range at --fps
  BudgetFlags budget;
  std::string size = "256x256";
  std::string out;
  std::string morph_path = "auto";
  std::string camera = "auto";
  RenderLookFlags look;  // --environment*, --tone-mapping, --exposure, --light, --background
  std::string material;  // node material graph (JSON); empty: the built-in PBR shaders
  bool no_shadows = false;
  bool keep_skin_weights = false;
  FileAccessFlags file_access;
  bool no_prepass = false;
  bool validation = false;
  std::string device = "gpu";  // gpu | N; cpu is a usage error (rendering needs Vulkan)
  bool json = false;
  bool force = false;   // clear morphkit's outputs in --out first
  bool resume = false;  // keep frames already in --out, render the rest
  bool no_contact_sheet = false;
  bool no_video = false;
  unsigned threads = 0;  // PNG encoders (0: one per core)
  std::string png_compression = "fast";
  uint32_t crowd = 0;        // --crowd N copies (0: none)
  double crowd_spacing = 0;  // 0: from the asset's size
  std::string crowd_offsets = "random";
  WeightOptions weights;  // --weights, --weights-file, --weights-csv, ...
};

constexpr uint32_t kMaxRenderFrames = 100000;  // one render's frames (frame_NNNN.png names, the summary's counts)

// run() in steps. Each step returns 0 to go on, or the exit code after printing its one error line.

// The frames to render: [first, last) at --fps of `animation` (kNone: the rest pose, or a capture alone).
struct FrameRange {
  uint32_t animation = kNone;
  uint32_t first = 0, last = 1;
  double clip_seconds = 0;  // the clip's (or capture's) length, whatever --frames says
  uint32_t count() const { return last - first; }
};

// --camera, parsed before any device work: the file's camera (index `index`, kNone: the scene's first), an
// explicit one, or neither (auto).
struct CameraRequest {
  bool from_file = false;
  uint32_t index = kNone;
  std::optional<RenderCamera> explicit_camera;
};

// The Vulkan objects of one run (none when --resume finds every frame written); the renderer goes first.
struct RenderDevice {
  std::unique_ptr<VulkanContext, void (*)(VulkanContext*)> context{nullptr,
                                                                   [](VulkanContext* c) { destroyVulkanContext(c); }};
  std::unique_ptr<Renderer, void (*)(Renderer*)> renderer{nullptr, destroyRenderer};
  std::optional<RenderCamera> camera;  // the camera the frames use (render --json prints it)
};

// What the frame loop measured: frames rendered and the summed per-frame times.
struct FrameTotals {
  uint32_t rendered = 0;
  double gpu_ms = 0, cpu_ms = 0, morph_ms = 0, wall_ms = 0;
};

// --size, --morph-path, --no-shadows, --no-prepass and --fps: usage errors come before any file is read.
int readRenderOptions(const RenderCommandOptions& o, RenderOptions& options) {
  const size_t x = o.size.find('x');
  if (x == std::string::npos || !parseUint32(std::string_view(o.size).substr(0, x), options.width) ||
      !parseUint32(std::string_view(o.size).substr(x + 1), options.height) || options.width == 0 ||
      options.height == 0 || options.width > 8192 || options.height > 8192) {
    return reportUsage("--size " + o.size + ": expected WxH with 1..8192 each");
  }
  std::optional<MorphPath> path = parseMorphPath(o.morph_path);
  if (!path) return reportUsage("--morph-path " + o.morph_path + ": expected vertex, compute or auto");
  options.morph_path = *path;
  options.shadows = !o.no_shadows;
  options.depth_prepass = !o.no_prepass;
  if (!(o.fps > 0.0 && o.fps <= 1000.0)) return reportUsage("--fps: expected 0 < fps <= 1000");
  if (o.crowd > 0) {
    if (options.morph_path == MorphPath::kVertex || !o.material.empty())
      return reportUsage("--crowd: the crowd kernel deforms the copies (not with --morph-path vertex or --material)");
    if (!parseCrowdOffsets(o.crowd_offsets))
      return reportUsage("--crowd-offsets " + o.crowd_offsets + ": expected random or linear");
    options.instances = o.crowd;
    options.crowd = true;
    // A crowd is vertex-bound: the prepass draws every copy once more and saves no shading (H200, 1000 copies of
    // the 20k face at 1024²: 170 ms per frame with it, 114 without; docs/PERFORMANCE.md).
    options.depth_prepass = false;
  }
  return readLookOptions(o.look, o.no_video, options);
}

// The animation (render plays a clip: without --anim, the first; the rest pose when there is none, and under a
// capture, which plays on the rest pose unless --anim names an animation too; docs/CLI.md), the weights, and the
// frame range: --frames as given, else the clip's (or --duration's) length at --fps.
int resolveFrames(const RenderCommandOptions& o, const Asset& asset, LoadedWeights& weights, FrameRange& frames) {
  Expected<uint32_t> found = findAnimation(asset, o.anim, !o.weights.csv.empty());
  if (!found) return reportFailure(o.file, found.error());
  frames.animation = *found;
  if (int code = loadWeights(asset, o.file, o.weights, weights); code != 0) return code;
  const WeightInputs weight_inputs = weights.inputs();
  const double track = weight_inputs.track ? weightTrackDuration(*weight_inputs.track) : 0.0;
  const uint32_t animation = frames.animation;
  const double clip = std::max(animation == kNone ? 0.0 : animationDuration(asset, animation), track);
  frames.clip_seconds = clip;
  if (!o.frames.empty()) {
    const size_t colon = o.frames.find(':');
    if (colon == std::string::npos || !parseUint32(std::string_view(o.frames).substr(0, colon), frames.first) ||
        !parseUint32(std::string_view(o.frames).substr(colon + 1), frames.last) || frames.last <= frames.first) {
      return reportUsage("--frames " + o.frames + ": expected A:B with A < B (half-open, at --fps)");
    }
    if (frames.last - frames.first > kMaxRenderFrames) {
      return reportUsage(
          fmt::format("--frames {}: {} frames, more than the {} one render writes (split the range "
                      "across runs: --frames A:B, then --resume)",
                      o.frames, frames.last - frames.first, kMaxRenderFrames));
    }
  } else if (animation != kNone || weight_inputs.track) {
    const double duration = o.duration >= 0.0 ? o.duration : clip;
    // In double first: a clip whose last key is 3e38 s (or --duration 1e308) has no uint32_t frame count.
    const double count = std::floor(duration * o.fps + 1e-9) + 1.0;
    if (!(count <= double(kMaxRenderFrames))) {
      const std::string what = o.duration >= 0.0
                                   ? fmt::format("--duration {:g}", duration)
                                   : fmt::format("animations[{}] lasts {:g} s, so it", animation, duration);
      return reportFailure(o.file, fail(Error::kInvalidArgument,
                                        fmt::format("{} needs {:g} frames at {:g} fps, more than {} (use --duration "
                                                    "or --frames)",
                                                    what, count, o.fps, kMaxRenderFrames)));
    }
    frames.last = std::max<uint32_t>(1, uint32_t(count));
  }
  return 0;
}

// --camera: validated before any device work.
int readCameraOption(const std::string& text, CameraRequest& camera) {
  camera.from_file = text == "file" || (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0])) &&
                                        text.find(':') == std::string::npos && text.find(',') == std::string::npos);
  if (camera.from_file) {
    if (text != "file" && !parseUint32(text, camera.index))
      return reportUsage("--camera " + text + ": not a camera index");
  } else if (text != "auto") {
    camera.explicit_camera = parseCamera(text);
    if (!camera.explicit_camera)
      return reportUsage("--camera " + text + ": expected auto, file, N or EX,EY,EZ:TX,TY,TZ[:FOVDEG]");
  }
  return 0;
}

// The output folder, prepared by the --force/--resume policy; `missing` counts the frames still to render.
int prepareOutput(const RenderCommandOptions& o, const FrameRange& frames, std::filesystem::path& out_dir,
                  uint32_t& missing) {
  // --out is a folder: a file's extension there is a mistake (`--out clip.mp4` would make a folder of that name).
  for (const char* ext : {".png", ".mp4", ".gif", ".jpg", ".webm"}) {
    if (hasExtension(o.out, ext))
      return reportUsage("--out " + o.out + ": render writes a folder of frames (and animation.mp4 in it)");
  }
  out_dir = o.out.empty() ? std::filesystem::path(std::filesystem::path(o.file).stem().string() + "_render")
                          : std::filesystem::path(o.out);
  const ExistingOutput policy = o.force    ? ExistingOutput::kForce
                                : o.resume ? ExistingOutput::kResume
                                           : ExistingOutput::kRefuse;
  if (Status s = prepareOutputFolder(out_dir, policy); !s) return reportFailure(out_dir, s.error());
  missing = 0;
  for (uint32_t f = frames.first; f < frames.last; ++f) {
    std::error_code exists_ec;
    if (!o.resume || !std::filesystem::exists(out_dir / frameFileName(f), exists_ec)) ++missing;
  }
  return 0;
}

// The Vulkan context, the renderer and its camera: auto (clipBounds: the whole clip whatever --frames says), the
// file's, or explicit.
int createDevice(const RenderCommandOptions& o, const Asset& asset, RenderOptions options, uint32_t animation,
                 const WeightInputs& weight_inputs, double clip_seconds, const CameraRequest& request,
                 RenderDevice& device) {
  Expected<Bounds> bounds = clipBounds(asset, options.scene, animation, weight_inputs);
  if (!bounds) return reportFailure(o.file, bounds.error());
  if (o.crowd > 0) {  // every copy in its place and at its time offset (docs/RENDER.md "Crowds"), framed together
    CrowdLayout crowd =
        layoutCrowd(o.crowd, float(o.crowd_spacing), *parseCrowdOffsets(o.crowd_offsets), clip_seconds, *bounds);
    options.instance_offsets = std::move(crowd.offsets);
    options.instance_time_offsets = std::move(crowd.time_offsets);
    options.instance_time_wrap = clip_seconds;
    *bounds = crowd.bounds;
  }
  GpuContextOptions context_options;
  context_options.validation = o.validation;
  context_options.device_index = parseDevice(o.device).value_or(DeviceChoice{}).index;
  Expected<VulkanContext*> context = createVulkanContext(context_options);
  if (!context) return reportFailure({}, context.error());
  device.context.reset(*context);
  Expected<Renderer*> created = createRenderer(**context, asset, options);
  if (!created) return reportFailure(o.file, created.error());
  device.renderer.reset(*created);

  RenderCamera camera = frameBounds(*bounds, float(options.width) / float(options.height));
  if (request.from_file) {
    Expected<RenderCamera> file_camera = fileCamera(asset, options.scene, request.index);
    if (!file_camera) return reportFailure(o.file, file_camera.error());
    camera = *file_camera;
  } else if (request.explicit_camera) {
    camera = *request.explicit_camera;
  }
  setRendererCamera(*device.renderer, camera, *bounds);
  device.camera = camera;
  return 0;
}

// The frame loop: each missing frame submitted (kRenderFramesInFlight in flight, so a frame's readback and hand-off
// overlap the next one's GPU work) and, in order, handed to ffmpeg's pipe and to the PNG writer (encoded on its
// threads, written in order), its contact-sheet cell kept when it is one of the picks. Frames already there under
// --resume are skipped (read back only to feed a video).
int renderFrames(const RenderCommandOptions& o, const RenderOptions& options, Renderer* renderer,
                 const FrameRange& frames, const WeightInputs& weight_inputs, const std::filesystem::path& out_dir,
                 ContactCells& sheet, VideoOutput& video, FrameTotals& totals) {
  ProgressBar progress("render", frames.count());
  PngFrameWriter pngs(o.threads, 0, parsePngCompression(o.png_compression).value_or(PngCompression::kFast));
  std::deque<uint32_t> submitted;  // frame numbers in flight, oldest first
  bool writer_failed = false;      // pngs.finish() below says which frame
  // The oldest frame in flight: collected, then to ffmpeg, the contact sheet and the PNG writer. Non-zero: stop.
  auto collectOldest = [&]() -> int {
    const uint32_t f = submitted.front();
    submitted.pop_front();
    RenderStats stats;
    Expected<RenderedImage> image = collectFrame(*renderer, &stats);
    if (!image) return reportFailure(o.file, image.error());
    totals.gpu_ms += stats.gpu_ms;
    totals.cpu_ms += stats.cpu_ms;
    totals.morph_ms += stats.morph_gpu_ms;
    totals.wall_ms += stats.wall_ms;
    if (video.pipe) video.pipe->write(image->rgba);
    keepContactCell(sheet, f, *image);
    if (!pngs.push(out_dir / frameFileName(f), std::move(*image))) {
      writer_failed = true;
      return 0;
    }
    ++totals.rendered;
    progress.update(f - frames.first + 1);
    return 0;
  };
  for (uint32_t f = frames.first; f < frames.last && !writer_failed; ++f) {
    const std::filesystem::path name = out_dir / frameFileName(f);
    std::error_code exists_ec;
    if (o.resume && std::filesystem::exists(name, exists_ec)) {  // written complete (writeFileAtomic)
      if (!video.pipe) continue;
      while (!submitted.empty() && !writer_failed) {  // the video takes frames in order
        if (int code = collectOldest(); code != 0) return code;
      }
      Expected<RenderedImage> kept = readFrameFile(name, options);
      if (!kept) return reportFailure(name, kept.error());
      video.pipe->write(kept->rgba);
      keepContactCell(sheet, f, *kept);
      continue;
    }
    if (!renderer) return reportFailure(name, fail(Error::kIo, "--resume: the frame disappeared while rendering"));
    RenderFrameInput input;
    input.animation = frames.animation;
    input.time = f / o.fps;
    input.weights = weight_inputs;
    if (Status s = submitFrame(*renderer, input); !s) return reportFailure(o.file, s.error());
    submitted.push_back(f);
    if (submitted.size() == kRenderFramesInFlight) {
      if (int code = collectOldest(); code != 0) return code;
    }
  }
  while (!submitted.empty() && !writer_failed) {
    if (int code = collectOldest(); code != 0) return code;
  }
  if (std::optional<FrameWriteFailure> failed = pngs.finish()) return reportFailure(failed->path, failed->failure);
  return 0;
}

// "talk", "rest pose + weights jawOpen=0.8 + capture face.csv": what the frames play.
std::string playingText(const RenderCommandOptions& o, const Asset& asset, uint32_t animation,
                        const LoadedWeights& weights) {
  std::string text = animation == kNone                         ? std::string("rest pose")
                     : asset.animations[animation].name.empty() ? "animation " + std::to_string(animation)
                                                                : asset.animations[animation].name;
  if (!weights.overrides.empty()) text += " + weights " + describeOverrides(weights.overrides);
  if (weights.capture) text += " + capture " + o.weights.csv;
  return text;
}

int run(const RenderCommandOptions& o) {
  RenderOptions options;
  if (int code = readRenderOptions(o, options); code != 0) return code;
#if HAVE_morphkit_material
  std::optional<NodeMaterial> node_material;  // options.node_material points here
  if (!o.material.empty()) {
    Expected<NodeMaterial> loaded = loadNodeMaterial(o.material);  // messages start with the path
    if (!loaded) return reportError(loaded.error().message);
    node_material = std::move(*loaded);
    options.node_material = &*node_material;
  }
#else
  if (!o.material.empty()) return reportError(o.material + ": this build has no node materials (morphkit::material)");
#endif
  HdrImage environment;  // options.environment_image points here
  if (int code = readEnvironment(o.look, options, environment); code != 0) return code;
  LoadOptions load;
  o.file_access.applyTo(load);
  load.keep_skin_weights = o.keep_skin_weights;
  load.budget = o.budget.budget();
  Expected<Asset> asset = loadAsset(o.file, load);
  if (!asset) return reportFailure(o.file, asset.error());
  if (std::string ignored = ignoredPointerWarning(*asset); !ignored.empty()) reportWarning(o.file + ": " + ignored);

  FrameRange frames;
  LoadedWeights weights;  // weight_inputs points into it
  if (int code = resolveFrames(o, *asset, weights, frames); code != 0) return code;
  const WeightInputs weight_inputs = weights.inputs();
  CameraRequest camera;
  if (int code = readCameraOption(o.camera, camera); code != 0) return code;
  std::filesystem::path out_dir;
  uint32_t missing = 0;
  if (int code = prepareOutput(o, frames, out_dir, missing); code != 0) return code;

  // No device work at all when --resume finds every frame written.
  RenderDevice device;
  if (missing > 0) {
    if (int code =
            createDevice(o, *asset, options, frames.animation, weight_inputs, frames.clip_seconds, camera, device);
        code != 0)
      return code;
  }
  static const RendererInfo kNoRenderer{.device = "none (every frame already written)"};
  const RendererInfo& info = device.renderer ? rendererInfo(*device.renderer) : kNoRenderer;

  ContactCells sheet = pickContactCells(frames.first, frames.count(), options.width);
  FrameTotals totals;
  VideoOutput video_out;
  startVideo(o.no_video, o.fps, options, frames.count(), missing, out_dir, video_out);
  if (int code =
          renderFrames(o, options, device.renderer.get(), frames, weight_inputs, out_dir, sheet, video_out, totals);
      code != 0)
    return code;
  std::error_code sheet_ec;
  const bool sheet_existed = std::filesystem::exists(out_dir / "contact_sheet.png", sheet_ec);
  if (int code = writeContactSheet(o.no_contact_sheet, options, out_dir, totals.rendered, sheet); code != 0)
    return code;
  if (int code = finishVideo(video_out); code != 0) return code;
  const std::string& video = video_out.video;
  const std::string& video_note = video_out.note;

  for (const std::string& warning : info.warnings) reportWarning(o.file + ": " + warning);
  if (info.rescaled_skin_vertices > 0) {  // once, as pose says it
    reportNote(
        fmt::format("{}: skin weights of {} vertices did not sum to 1 and were rescaled (--keep-skin-weights "
                    "uses them as stored)",
                    o.file, info.rescaled_skin_vertices));
  }
  // --validation: every message is printed, and any message makes the run fail.
  const std::vector<std::string> messages =
      device.renderer ? rendererValidationMessages(*device.renderer) : std::vector<std::string>();
  for (const std::string& message : messages) reportMessage(message);
  if (!messages.empty())
    return reportError(fmt::format("{}: the validation layer reported {} message(s)", o.file, messages.size()));

  RenderSummary summary;
  summary.file = o.file;
  summary.animation = frames.animation;
  summary.playing = playingText(o, *asset, frames.animation, weights);
  summary.weights = describeOverrides(weights.overrides);
  summary.capture = weights.capture ? o.weights.csv : std::string();
  summary.frames = frames.count();
  summary.first_frame = frames.first;
  summary.rendered = totals.rendered;
  summary.width = options.width;
  summary.height = options.height;
  summary.info = &info;
  summary.gpu_ms = totals.gpu_ms;
  summary.morph_ms = totals.morph_ms;
  summary.cpu_ms = totals.cpu_ms;
  summary.wall_ms = totals.wall_ms;
  summary.out_dir = out_dir.string();
  summary.contact_sheet = !o.no_contact_sheet;
  summary.sheet_kept = sheet_existed && totals.rendered == 0;
  summary.video = video;
  summary.video_note = video_note;
  summary.video_kept = !video.empty() && totals.rendered == 0;
  if (device.camera) summary.camera = cameraText(*device.camera);
  if (o.json)
    printRenderJson(summary);
  else
    printRenderText(summary);
  return 0;
}

const CommandRegistration kRenderCommand(
    {40, [](CLI::App& app, int& exit_code) {
       auto options = std::make_shared<RenderCommandOptions>();
       CLI::App* sub = app.add_subcommand(
           "render", "Render an animation headlessly (Vulkan) to PNG frames, a contact sheet and an MP4");
       sub->add_option("FILE", options->file, "the .gltf or .glb file")->required();
       addAnimationOption(sub, options->anim,
                          "animation index or name, or rest (default: the first; the rest pose when none)");
       sub->add_option("--fps", options->fps, "frames per second")->capture_default_str();
       // Not CLI::NonNegativeNumber: it prints DBL_MAX in full for -1 and lets nan through.
       static const CLI::Validator kSeconds(
           [](std::string& text) {
             double value = 0;
             const bool ok = parseFiniteDouble(text, value) && value >= 0;
             return ok ? std::string() : "expected a number of seconds >= 0, not '" + text + "'";
           },
           "SECONDS");
       auto* duration =
           sub->add_option("--duration", options->duration, "seconds to render (default: the clip's duration)")
               ->check(kSeconds);
       auto* frames = sub->add_option("--frames", options->frames, "frame range A:B (half-open, at --fps)");
       duration->excludes(frames);
       addBudgetOptions(sub, options->budget);
       sub->add_option("--size", options->size, "image size WxH")->capture_default_str();
       sub->add_option("-o,--out", options->out,
                       "output folder (default: <file stem>_render); must be empty unless --force/--resume");
       auto* force = sub->add_flag("--force", options->force,
                                   "remove morphkit's outputs (frames, contact sheet, video) from --out first");
       auto* resume = sub->add_flag("--resume", options->resume,
                                    "keep the frames already in --out and render only the missing ones");
       force->excludes(resume);
       sub->add_flag("--no-contact-sheet", options->no_contact_sheet,
                     "write no contact_sheet.png (e.g. one range of a split job)");
       sub->add_flag("--no-video", options->no_video, "write no animation.mp4 even when ffmpeg is on PATH");
       sub->add_option("--crowd", options->crowd,
                       "draw N copies in a grid, each at its own time offset, deformed by the crowd kernel in one "
                       "dispatch")
           ->check(CLI::Range(1u, 100000u));
       sub->add_option("--crowd-spacing", options->crowd_spacing,
                       "metres between copies (default: 1.25 x the asset's width or depth)")
           ->check(CLI::Validator(
               [](std::string& text) {
                 double value = 0;
                 const bool ok = parseFiniteDouble(text, value) && value > 0 && value <= 1e6;
                 return ok ? std::string() : "expected metres, 0 < S <= 1e6, not '" + text + "'";
               },
               "METRES"));
       sub->add_option("--crowd-offsets", options->crowd_offsets,
                       "random | linear: each copy's time offset into the clip (random: a fixed seed)")
           ->capture_default_str();
       sub->add_option("--threads", options->threads,
                       "PNG encoder threads, working while the next frames render (0: one per core)")
           ->check(CLI::Range(0u, 256u))
           ->capture_default_str();
       sub->add_option("--png-compression", options->png_compression,
                       "fast (zlib level 1, Up filter: ~5x faster) | small (libspng's defaults: ~0.75x the bytes)")
           ->check(CLI::IsMember({"fast", "small"}))
           ->capture_default_str();
       sub->add_option("--morph-path", options->morph_path, "vertex | compute | auto (see docs/RENDER.md)")
           ->capture_default_str();
       addLookOptions(sub, options->look);
       sub->add_option("--camera", options->camera, "auto | file | camera index | EX,EY,EZ:TX,TY,TZ[:FOVDEG]")
           ->capture_default_str();
       sub->add_option("--material", options->material,
                       "node material graph (JSON, docs/NODE_MATERIALS.md) for every primitive");
       sub->add_flag(
           "--keep-skin-weights", options->keep_skin_weights,
           "skin with WEIGHTS_n as stored (default: each vertex rescaled to sum 1, as three.js and Babylon.js do)");
       addFileAccessOptions(sub, options->file_access);
       sub->add_flag("--no-shadows", options->no_shadows, "no shadow map");
       sub->add_flag("--no-prepass", options->no_prepass, "no depth prepass");
       sub->add_flag("--validation", options->validation, "enable the Vulkan validation layer");
       addDeviceOption(sub, options->device, "gpu (default: the best Vulkan device) or a Vulkan device index");
       sub->add_flag("--json", options->json, "print the summary as one JSON object");
       addWeightOptions(*sub, options->weights, kOverrideOptions | kCaptureOptions);
       sub->callback([options, &exit_code] {
         if (!parseDevice(options->device).value_or(DeviceChoice{}).gpu) {
           exit_code = reportUsage("--device cpu: render draws with Vulkan; give gpu or a device index");
           return;
         }
         exit_code = run(*options);
       });
     }});

}  // namespace
}  // namespace morphkit::cli
#endif  // HAVE_morphkit_render
