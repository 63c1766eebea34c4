// SPDX-License-Identifier: MIT
// batch_run.cpp — planning a batch job into tasks, running one task (posed arrays, rendered frames, the
// done-marker), and the manifest (morphkit/batch/batch.h).
#include <fmt/core.h>
#include <glob.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "morphkit/batch/batch.h"
#include "morphkit/core/animation.h"
#include "morphkit/core/pose.h"
#include "morphkit/core/pose_arrays.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/image/frame_writer.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/io/npy.h"
#include "morphkit/model/files.h"
#include "morphkit/model/output_buffer.h"
#include "morphkit/model/text.h"
#include "morphkit/render/environment.h"
#include "morphkit/render/render.h"
#include "morphkit/vk/gpu.h"
#include "morphkit/vk/gpu_pose.h"
#include "vk_context.h"

namespace morphkit {
namespace {

std::string sanitize(std::string_view text) {
  std::string out;
  for (char c : text)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

bool isPattern(std::string_view text) {
  return text.find_first_of("*?[") != std::string_view::npos;
}

// Every file the job's asset list names, in order, each once. Patterns expand sorted (glob(3)).
std::vector<std::filesystem::path> resolveAssets(const BatchJob& job) {
  std::vector<std::filesystem::path> files;
  std::set<std::string> seen;
  auto add = [&](const std::filesystem::path& path) {
    if (seen.insert(path.lexically_normal().string()).second) files.push_back(path.lexically_normal());
  };
  for (const std::string& entry : job.assets) {
    std::filesystem::path path(entry);
    if (path.is_relative()) path = job.base_dir / path;
    std::error_code ec;
    path = std::filesystem::absolute(path, ec);  // tasks travel to other processes and machines
    if (!isPattern(entry)) {
      add(path);  // a missing file still becomes a task that reports it
      continue;
    }
    glob_t matches{};
    if (glob(path.c_str(), 0, nullptr, &matches) == 0) {
      for (size_t i = 0; i < matches.gl_pathc; ++i) add(matches.gl_pathv[i]);
    }
    globfree(&matches);
  }
  return files;
}

// The deepest folder holding every file.
std::filesystem::path commonFolder(const std::vector<std::filesystem::path>& files) {
  std::filesystem::path common = files.empty() ? std::filesystem::path() : files[0].parent_path();
  for (const auto& f : files) {
    const std::filesystem::path parent = f.parent_path();
    std::filesystem::path shared;
    auto a = common.begin(), b = parent.begin();
    for (; a != common.end() && b != parent.end() && *a == *b; ++a, ++b) shared /= *a;
    common = shared;
  }
  return common;
}

// The file's stem, unless two files share it (Model.gltf and Model.glb, or two Model.gltf in two folders):
// then its path below the folder common to every asset, '/' → '_', extension kept.
std::vector<std::string> assetKeys(const std::vector<std::filesystem::path>& files) {
  std::map<std::string, int> stems;
  for (const auto& f : files) ++stems[f.stem().string()];
  const std::filesystem::path common = commonFolder(files);
  std::vector<std::string> keys;
  for (const auto& f : files) {
    if (stems[f.stem().string()] == 1) {
      keys.push_back(sanitize(f.stem().string()));
      continue;
    }
    std::string key = f.lexically_relative(common).generic_string();
    std::replace(key.begin(), key.end(), '/', '_');
    keys.push_back(sanitize(key));
  }
  return keys;
}

std::string animationKey(const Asset& asset, uint32_t animation) {
  if (animation == kNone) return "rest";
  const std::string& name = asset.animations[animation].name;
  // fmt, not `"_" + …`: GCC 12 at -O3 warns -Wrestrict (a false positive) on that concatenation.
  return name.empty() ? std::to_string(animation) : fmt::format("{}_{}", animation, sanitize(name));
}

std::string rangeTag(uint32_t first, uint32_t last) {
  return fmt::format("f{:04d}-{:04d}", first, last);
}

// How every asset of the job is loaded: mapped (the default) or read (`read_files`).
LoadOptions loadOptions(const BatchJob& job) {
  LoadOptions options;
  options.map_files = !job.read_files;
  return options;
}

std::filesystem::path outDir(const BatchJob& job) {
  std::filesystem::path out(job.out);
  return out.is_relative() ? job.base_dir / out : out;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

namespace {

// The overwrite rule for folders (docs/CLI.md): an `out` holding files would mix two runs' outputs (and the
// manifest would list only one), so it takes "resume" (finish that run) or "force" (write over it).
Status checkOutFolder(const BatchJob& job) {
  if (job.resume || job.force) return Ok{};
  std::filesystem::path out(job.out);
  if (out.is_relative()) out = job.base_dir / out;
  std::error_code ec;
  if (!std::filesystem::is_directory(out, ec)) return Ok{};
  size_t entries = 0;
  for (auto it = std::filesystem::directory_iterator(out, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec))
    ++entries;
  if (entries == 0) return Ok{};
  return fail(Error::kInvalidArgument, "out: '" + printable(job.out) + "' already holds " + std::to_string(entries) +
                                           " entr" + (entries == 1 ? "y" : "ies") +
                                           "; resume (--resume) finishes that run, force (--force) writes over it");
}

}  // namespace

uint32_t defaultBatchWorkers(const BatchJob& job) {
  const bool gpu = job.frames || (job.poses && job.pose_device == "gpu");
  return gpu ? 1u : std::max(1u, std::thread::hardware_concurrency() / 2);
}

Expected<BatchPlan> planBatch(const BatchJob& job) {
  if (Status s = checkOutFolder(job); !s) return s.error();
  BatchPlan plan;
  plan.job = job;
  if (plan.job.workers == 0) plan.job.workers = defaultBatchWorkers(job);
  const std::vector<std::filesystem::path> files = resolveAssets(job);
  if (files.empty()) return fail(Error::kInvalidArgument, "assets: no file matches");
  const std::vector<std::string> keys = assetKeys(files);
  for (size_t i = 0; i < files.size(); ++i) {
    auto addTask = [&](uint32_t animation, std::string animation_key, uint32_t first, uint32_t last,
                       std::string error) {
      BatchTask task;
      task.id = uint32_t(plan.tasks.size());
      task.asset = files[i].string();
      task.asset_key = keys[i];
      task.animation = animation;
      task.animation_key = std::move(animation_key);
      task.first = first;
      task.last = last;
      task.error = std::move(error);
      plan.tasks.push_back(std::move(task));
    };
    Expected<Asset> asset = loadAsset(files[i], loadOptions(job));
    if (!asset) {
      addTask(kNone, "rest", 0, 0, files[i].string() + ": " + asset.error().message);
      continue;
    }
    std::vector<uint32_t> animations;
    if (job.animations.empty()) {
      for (uint32_t a = 0; a < asset->animations.size(); ++a) animations.push_back(a);
      if (animations.empty()) animations.push_back(kNone);
    } else {
      for (const std::string& wanted : job.animations) {
        uint32_t found = kNone;
        const bool digits = !wanted.empty() &&
                            std::all_of(wanted.begin(), wanted.end(), [](unsigned char c) { return std::isdigit(c); });
        for (uint32_t a = 0; a < asset->animations.size(); ++a) {
          if (digits ? std::to_string(a) == wanted : asset->animations[a].name == wanted) found = a;
        }
        if (found == kNone) {
          addTask(kNone, sanitize(wanted), 0, 0,
                  files[i].string() + ": animations: none is " + (digits ? "numbered " : "named ") + wanted);
        } else {
          animations.push_back(found);
        }
      }
    }
    for (uint32_t animation : animations) {
      uint32_t first = 0, last = 1;
      if (job.has_frames) {
        first = job.first_frame;
        last = job.last_frame;
      } else if (animation != kNone) {  // the whole clip, as `morphkit render` counts it
        last = std::max<uint32_t>(1, uint32_t(std::floor(animationDuration(*asset, animation) * job.fps + 1e-9)) + 1);
      }
      for (uint32_t f = first; f < last; f += job.chunk) {
        addTask(animation, animationKey(*asset, animation), f, std::min<uint32_t>(last, f + std::max(job.chunk, 1u)),
                {});
      }
    }
  }
  return plan;
}

// ---- Worker ----

struct BatchWorker {
  std::string asset_path;
  std::unique_ptr<Asset> asset;
  std::unique_ptr<PosePrepared> prepared;
  VulkanContext* context = nullptr;
  int context_device = -2;
  Renderer* renderer = nullptr;
  std::string renderer_key;  // asset + size + morph path + look the renderer was made for
  uint32_t camera_animation = kNone - 1;
  EnvironmentMaps* environment = nullptr;  // made once per environment, shared by the worker's renderers
  std::string environment_key;
  GpuPose* gpu_pose = nullptr;  // pose_device "gpu": the asset's primitives on this worker's context

  void dropRenderer() {
    destroyRenderer(renderer);
    renderer = nullptr;
    renderer_key.clear();
  }
  void dropEnvironment() {
    dropRenderer();
    destroyEnvironmentMaps(environment);
    environment = nullptr;
    environment_key.clear();
  }
  void dropGpuPose() {
    destroyGpuPose(*context, gpu_pose);
    gpu_pose = nullptr;
  }
  ~BatchWorker() {
    if (context) dropGpuPose();
    dropEnvironment();
    destroyVulkanContext(context);
  }

  // The worker's Vulkan context for `device`, made once and kept for every task this process runs.
  Status useContext(int device) {
    if (context && context_device == device) return Ok{};
    if (context) dropGpuPose();
    dropEnvironment();
    destroyVulkanContext(context);
    context = nullptr;
    GpuContextOptions options;  // MORPHKIT_VALIDATION=1 turns the validation layer on
    options.device_index = device;
    Expected<VulkanContext*> created = createVulkanContext(options);
    if (!created) return created.error();
    context = *created;
    context_device = device;
    return Ok{};
  }

  // The asset's GpuPose (pose_device "gpu"), made once per asset.
  Status useGpuPose(const BatchJob& job) {
    if (Status s = useContext(job.device); !s) return s;
    if (gpu_pose) return Ok{};
    Expected<GpuPose*> created = prepareGpuPose(*context, *prepared);
    if (!created) return fail(created.error().code, asset_path + ": " + created.error().message);
    gpu_pose = *created;
    return Ok{};
  }

  // The job's environment maps on this worker's context (the .hdr read relative to the job's folder).
  Status useEnvironment(const BatchJob& job) {
    if (environment && environment_key == job.environment) return Ok{};
    dropEnvironment();
    HdrImage image;
    const HdrImage* source = nullptr;
    if (job.environment == "studio") {
      image = studioEnvironment();
      source = &image;
    } else if (job.environment != "none") {
      const std::filesystem::path path = job.base_dir / job.environment;
      Expected<std::vector<uint8_t>> bytes = readFile(path, kMaxEnvironmentFileBytes + 1);
      if (!bytes) return fail(bytes.error().code, path.string() + ": " + bytes.error().message);
      Expected<HdrImage> decoded = decodeRadianceHdr(*bytes);
      if (!decoded) return fail(decoded.error().code, path.string() + ": " + decoded.error().message);
      image = std::move(*decoded);
      source = &image;
    }
    Expected<EnvironmentMaps*> maps = createEnvironmentMaps(*context, source);
    if (!maps) return maps.error();
    environment = *maps;
    environment_key = job.environment;
    return Ok{};
  }

  Status useAsset(const std::string& path, const LoadOptions& options) {
    if (asset && asset_path == path) return Ok{};
    dropRenderer();  // it and the GPU pose point at the old asset
    if (context) dropGpuPose();
    prepared.reset();
    asset.reset();
    asset_path.clear();
    Expected<Asset> loaded = loadAsset(path, options);
    if (!loaded) return fail(loaded.error().code, path + ": " + loaded.error().message);
    asset = std::make_unique<Asset>(std::move(*loaded));
    Expected<PosePrepared> p = preparePose(*asset);
    if (!p) return fail(p.error().code, path + ": " + p.error().message);
    prepared = std::make_unique<PosePrepared>(std::move(*p));
    asset_path = path;
    return Ok{};
  }

  Status useRenderer(const BatchJob& job, uint32_t animation) {
    if (Status s = useContext(job.device); !s) return s;
    if (Status s = useEnvironment(job); !s) return s;
    const std::string key = fmt::format("{}|{}x{}|{}|{}|{}|{}|{}|{}|{}|{}", asset_path, job.width, job.height,
                                        job.morph_path, job.environment_intensity, job.environment_rotation,
                                        job.tone_mapping, job.exposure, job.light, job.background, job.msaa);
    if (!renderer || renderer_key != key) {
      dropRenderer();
      RenderOptions options;
      options.width = job.width;
      options.height = job.height;
      options.morph_path = parseMorphPath(job.morph_path).value_or(MorphPath::kAuto);
      options.environment_maps = environment;
      options.environment_intensity = float(job.environment_intensity);
      options.environment_rotation_deg = float(std::fmod(job.environment_rotation, 360.0));
      options.tone_mapping = parseToneMapping(job.tone_mapping).value_or(ToneMapping::kNeutral);
      options.exposure_ev = float(job.exposure);
      options.key_light = job.light == "default";
      options.msaa = job.msaa;
      if (job.background == "transparent") {
        std::fill(std::begin(options.background), std::end(options.background), 0.0f);
      } else if (job.background == "environment") {
        options.background_environment = true;
      } else if (job.background != "opaque") {
        parseBackgroundColor(job.background, options.background);  // parseBatchJob checked it
      }
      Expected<Renderer*> created = createRenderer(*context, *asset, options);
      if (!created) return fail(created.error().code, asset_path + ": " + created.error().message);
      renderer = *created;
      renderer_key = key;
      camera_animation = kNone - 1;
    }
    if (camera_animation != animation) {
      Expected<Bounds> bounds = clipBounds(*asset, kNone, animation);  // the camera of `morphkit render`
      if (!bounds) return bounds.error();
      setRendererCamera(*renderer, frameBounds(*bounds, float(job.width) / float(job.height)), *bounds);
      camera_animation = animation;
    }
    return Ok{};
  }
};

BatchWorker* createBatchWorker() {
  return new BatchWorker();
}
void destroyBatchWorker(BatchWorker* worker) {
  delete worker;
}
uint64_t batchWorkerPipelinesCreated(const BatchWorker& worker) {
  return worker.context ? worker.context->pipelines_created : 0;
}

namespace {

// Posed arrays of frames [first, last) at fps: one .npy per primitive and attribute.
Status writePoses(BatchWorker& w, const BatchJob& job, const BatchTask& task, const std::filesystem::path& dir,
                  const std::string& relative_dir, std::vector<std::string>& outputs) {
  const size_t frames = task.last - task.first;
  const std::vector<PoseArrayShape> shapes = poseArrayShapes(*w.prepared);
  std::vector<OutputBuffer> positions, normals;  // every frame is written before they are encoded
  std::vector<PoseArrayView> views;
  for (const PoseArrayShape& s : shapes) {
    positions.emplace_back(frames * s.vertex_count * 3);
    normals.emplace_back(s.has_normals ? frames * s.vertex_count * 3 : 0);
  }
  for (size_t i = 0; i < shapes.size(); ++i) views.push_back({positions[i].span(), normals[i].span(), {}});
  SamplingContext sampling;
  if (job.pose_device == "gpu") {  // every frame of the task through the frames-in-flight stream
    if (Status s = w.useGpuPose(job); !s) return s;
    std::vector<GpuPoseOptions> requests(frames);
    for (uint32_t f = task.first; f < task.last; ++f) {
      requests[f - task.first].animation = task.animation;
      requests[f - task.first].time = f / job.fps;
      requests[f - task.first].sampling = &sampling;
    }
    auto sink = [&](size_t k, std::span<const GpuPosedInstance> frame) { return copyGpuPoseFrame(frame, k, views); };
    if (Status s = evaluateGpuPoseFrameViews(*w.context, *w.gpu_pose, requests, sink); !s) return s;
  }
  for (uint32_t f = task.first; job.pose_device == "cpu" && f < task.last; ++f) {
    PoseOptions options;
    options.animation = task.animation;
    options.time = f / job.fps;
    options.path = CpuPath::kFast;
    options.sampling = &sampling;
    Expected<PoseResult> pose = evaluatePose(*w.prepared, options);
    if (!pose) return pose.error();
    if (Status s = copyPoseFrame(*pose, f - task.first, views); !s) return s;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir / "poses", ec);
  if (ec) return fail(Error::kIo, (dir / "poses").string() + ": cannot create: " + ec.message());
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::vector<uint64_t> shape{frames, shapes[i].vertex_count, 3};
    const std::string stem =
        rangeTag(task.first, task.last) + "_" + posedPrimitiveName(shapes[i].node, shapes[i].mesh, shapes[i].primitive);
    for (int attribute = 0; attribute < 2; ++attribute) {
      const std::span<const float> values = attribute == 0 ? positions[i].span() : normals[i].span();
      if (attribute == 1 && !shapes[i].has_normals) continue;
      const std::string name = stem + (attribute == 0 ? "_positions.npy" : "_normals.npy");
      Expected<std::vector<uint8_t>> npy = encodeNpy(values, shape);
      if (!npy) return npy.error();
      if (Status s = writeFileAtomic(dir / "poses" / name, std::span<const uint8_t>(*npy)); !s) return s;
      outputs.push_back(relative_dir + "/poses/" + name);
    }
  }
  return Ok{};
}

// PNG frames [first, last), named by their real index; with resume, frames already there are kept.
Status writeFrames(BatchWorker& w, const BatchJob& job, const BatchTask& task, const std::filesystem::path& dir,
                   const std::string& relative_dir, unsigned encoder_threads, std::vector<std::string>& outputs,
                   uint32_t& rendered) {
  std::vector<uint32_t> missing;  // the frames to render
  for (uint32_t f = task.first; f < task.last; ++f) {
    const std::string name = fmt::format("frame_{:04d}.png", f);
    std::error_code ec;
    outputs.push_back(relative_dir + "/" + name);
    if (!(job.resume && std::filesystem::exists(dir / name, ec))) missing.push_back(f);  // complete: writeFileAtomic
  }
  if (missing.empty()) return Ok{};
  if (Status s = w.useRenderer(job, task.animation); !s) return s;
  // Frames in flight, and the PNG encodes on `encoder_threads` threads: frame i is encoded and written while the
  // frames after it render (files in frame order, memory bounded: morphkit/image/frame_writer.h).
  PngFrameWriter pngs(std::max(encoder_threads, 1u));
  Status status = renderFrameSequence(
      *w.renderer, uint32_t(missing.size()),
      [&](uint32_t i) {
        RenderFrameInput input;
        input.animation = task.animation;
        input.time = missing[i] / job.fps;
        return input;
      },
      [&](uint32_t i, RenderedImage&& image, const RenderStats&) -> Status {
        if (!pngs.push(dir / fmt::format("frame_{:04d}.png", missing[i]), std::move(image))) {
          return fail(Error::kIo, "the PNG writer stopped");  // finish() below says why
        }
        ++rendered;
        return Ok{};
      });
  if (std::optional<FrameWriteFailure> failed = pngs.finish()) {
    const std::string where = failed->path.empty() ? std::string() : failed->path.string() + ": ";
    return fail(failed->failure.code, where + failed->failure.message);
  }
  if (!status) return status;
  const std::vector<std::string> messages = rendererValidationMessages(*w.renderer);
  if (!messages.empty()) {
    clearGpuValidationMessages(*w.context);
    return fail(Error::kVulkan, "the validation layer reported " + std::to_string(messages.size()) +
                                    " message(s); first: " + messages[0]);
  }
  return Ok{};
}

}  // namespace

BatchTaskResult batchTaskResultFor(const BatchTask& task, std::string_view worker_name) {
  BatchTaskResult result;
  result.id = task.id;
  result.asset = task.asset;
  result.asset_key = task.asset_key;
  result.animation = task.animation;
  result.animation_key = task.animation_key;
  result.first = task.first;
  result.last = task.last;
  result.worker = std::string(worker_name);
  return result;
}

BatchTaskResult runBatchTask(BatchWorker& w, const BatchJob& job, const BatchTask& task, std::string_view worker_name,
                             unsigned encoder_threads) {
  const auto start = std::chrono::steady_clock::now();
  BatchTaskResult result = batchTaskResultFor(task, worker_name);
  if (!task.error.empty()) {
    result.error = task.error;
    return result;
  }
  const std::string relative_dir = task.asset_key + "/" + task.animation_key;
  const std::filesystem::path dir = outDir(job) / task.asset_key / task.animation_key;
  const std::filesystem::path marker = dir / "done" / (rangeTag(task.first, task.last) + ".json");
  std::error_code ec;
  if (job.resume && std::filesystem::exists(marker, ec)) {
    // The marker is written last, after every output: the task is complete. No asset load, no rendering.
    Expected<std::vector<uint8_t>> bytes = readFile(marker, size_t(64) << 20);
    if (bytes) {
      Expected<BatchTaskResult> earlier =
          parseBatchTaskResultJson(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
      if (earlier && earlier->error.empty()) {
        result.outputs = earlier->outputs;
        result.skipped = true;
        result.seconds = secondsSince(start);
        return result;
      }
    }
  }
  Status status = [&]() -> Status {
    std::filesystem::create_directories(dir / "done", ec);
    if (ec) return fail(Error::kIo, dir.string() + ": cannot create: " + ec.message());
    if (Status s = w.useAsset(task.asset, loadOptions(job)); !s) return s;
    if (job.poses) {
      if (Status s = writePoses(w, job, task, dir, relative_dir, result.outputs); !s) return s;
    }
    if (job.frames) {
      if (Status s = writeFrames(w, job, task, dir, relative_dir, encoder_threads, result.outputs, result.rendered); !s)
        return s;
    }
    return Ok{};
  }();
  result.seconds = secondsSince(start);
  if (!status) {
    result.error = status.error().message;
    return result;
  }
  // The marker holds what the task wrote (no timing or worker: equal runs leave equal markers).
  BatchTaskResult stamp = result;
  stamp.seconds = 0;
  stamp.worker.clear();
  stamp.rendered = 0;
  if (Status s = writeFileAtomic(marker, batchTaskResultJson(stamp)); !s) result.error = s.error().message;
  return result;
}

std::string batchManifestJson(const BatchJob& job, std::span<const BatchTaskResult> results) {
  uint32_t failed = 0, skipped = 0, rendered = 0;
  uint64_t frames = 0, outputs = 0;
  double seconds = 0;
  for (const BatchTaskResult& r : results) {
    failed += r.error.empty() ? 0 : 1;
    skipped += r.skipped ? 1 : 0;
    rendered += r.rendered;
    frames += r.last - r.first;
    outputs += r.outputs.size();
    seconds += r.seconds;
  }
  std::string text = "{\"job\":" + batchJobJson(job) + ",\n\"tasks\":[";
  for (size_t i = 0; i < results.size(); ++i) text += (i ? ",\n" : "\n") + batchTaskResultJson(results[i]);
  JsonWriter summary;
  summary.beginObject();
  summary.field("tasks", uint64_t(results.size())).field("failed", failed).field("skipped", skipped);
  summary.field("frames", frames).field("rendered", rendered).field("outputs", outputs).field("task_seconds", seconds);
  summary.endObject();
  text += "],\n\"summary\":" + summary.str() + "}\n";
  return text;
}

Status writeBatchManifest(const BatchJob& job, std::span<const BatchTaskResult> results) {
  std::error_code ec;
  const std::filesystem::path path = outDir(job) / job.manifest;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return fail(Error::kIo, path.parent_path().string() + ": cannot create: " + ec.message());
  return writeFileAtomic(path, batchManifestJson(job, results));
}

}  // namespace morphkit
