// SPDX-License-Identifier: MIT
// `morphkit pose FILE [--scene N] [--anim N|NAME] [--time S|A:B:STEP[,...]]... [--out OUT.json|.obj|.glb|.npy|.npz]
//                     [--cpu-path reference|fast] [--threads N] [--json] [--allow-external-paths]
//                     [--weights NAME=V,...] [--weights-file W.json] [--weights-csv C.csv [--csv-fps F] [--map
//                     M.json]]`
// Poses every (node, primitive) of a scene on the CPU (morph, then skin; morphkit/core/pose.h) at one or more times
// and prints a summary (with the non-zero weights by name), or writes JSON (the shared/reference schema), OBJ, a static
// .glb of the posed meshes, or (frames, vertices, 3) float32 arrays (.npy: one posed primitive; .npz: every one,
// morphkit/io/npy.h).
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "command.h"
#include "morphkit/core/pose.h"
#include "morphkit/core/pose_arrays.h"
#include "morphkit/gltf/animation_pointer.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/io/npy.h"
#include "morphkit/io/pose_writers.h"
#include "morphkit/model/files.h"
#include "morphkit/model/names.h"
#include "morphkit/model/text.h"
#include "output_folder.h"
#include "pose_output.h"
#include "selection.h"
#include "weight_options.h"
#if HAVE_morphkit_vk
#include "morphkit/vk/gpu_pose.h"
#endif

namespace morphkit::cli {
namespace {

struct PoseCommandOptions {
  std::string file;
  std::string scene;  // index or name; empty: the file's scene (findSceneNamed)
  bool scene_given = false;
  std::string anim;                // empty: the first animation, or rest without one (findAnimation)
  std::vector<std::string> times;  // seconds, or A:B:STEP ranges
  std::string out;                 // a file, or "-" (stdout)
  std::string format;              // --format: json, obj, glb, npy, npz (default: --out's extension)
  std::string cpu_path = "reference";
  uint32_t threads = 0;  // all cores
  bool json = false;
  FileAccessFlags file_access;
  bool keep_skin_weights = false;
  bool positions_only = false;   // CPU: PoseOptions::positions_only
  std::string device = "cpu";    // cpu | gpu | N (a Vulkan device index)
  bool compare = false;          // run both, print the largest differences
  double tolerance = -1;         // --compare: exit 1 when an attribute differs by more (negative: no limit)
  int gpu_index = -1;            // the deprecated --gpu N
  std::string layout = "auto";   // GPU delta layout: auto | dense | f16 | snorm16 | sparse
  float epsilon = 0.0f;          // GPU: targets with |w| <= epsilon are skipped
  uint64_t gpu_memory_mb = 256;  // GPU: posed vertices in flight (GpuPoseStreamOptions::memory_budget)
  BudgetFlags budget;
  WeightOptions weights;  // --weights, --weights-file, --weights-csv, ...
};

// "--time" items: S (seconds) or A:B:STEP, the half-open range A, A+STEP, ... < B (like --frames A:B), each
// time computed as A + k·STEP so long ranges do not drift and split ranges meet exactly.
Expected<std::vector<double>> parseTimes(const std::vector<std::string>& items) {
  constexpr size_t kMaxTimes = 1000000;
  std::vector<double> times;
  std::vector<std::string> split;  // "1,,2" is a mistake, not 1 and 2: CLI11's delimiter would drop the gap
  for (const std::string& given : items) {
    for (size_t start = 0;;) {
      const size_t comma = given.find(',', start);
      split.push_back(given.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (split.back().empty()) return fail(Error::kInvalidArgument, "--time '" + given + "': an empty item");
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  for (const std::string& item : split) {
    const size_t c1 = item.find(':');
    if (c1 == std::string::npos) {
      double t = 0;
      if (!parseFiniteDouble(item, t))
        return fail(Error::kInvalidArgument, "--time " + item + ": not a number of seconds");
      times.push_back(t);
      continue;
    }
    const size_t c2 = item.find(':', c1 + 1);
    double a = 0, b = 0, step = 0;
    if (c2 == std::string::npos || !parseFiniteDouble(std::string_view(item).substr(0, c1), a) ||
        !parseFiniteDouble(std::string_view(item).substr(c1 + 1, c2 - c1 - 1), b) ||
        !parseFiniteDouble(std::string_view(item).substr(c2 + 1), step) || !(step > 0) || !(b > a)) {
      return fail(Error::kInvalidArgument,
                  "--time " + item + ": expected A:B:STEP with A < B and STEP > 0 (half-open)");
    }
    const double count = std::ceil((b - a) / step - 1e-9);
    if (count > double(kMaxTimes - times.size()))
      return fail(Error::kInvalidArgument, "--time " + item + ": more than 1000000 times");
    for (uint64_t k = 0; k < uint64_t(count); ++k) times.push_back(a + double(k) * step);
  }
  if (times.size() > kMaxTimes) return fail(Error::kInvalidArgument, "--time: more than 1000000 times");
  return times;
}

// `playing`: what runs on top of the animation or rest pose (" + weights jawOpen=0.8 + capture c.csv"), or "".
void printSummary(const Asset& asset, const std::vector<PoseResult>& cases, const std::string& playing) {
  for (const PoseResult& c : cases) {
    if (c.animation == kNone) {
      fmt::print("scene {} rest pose{}\n", c.scene, shown(playing));
    } else {
      const std::string& name = asset.animations[c.animation].name;
      fmt::print("scene {} animation {}{}{} t={:.6g}s\n", c.scene, c.animation, name.empty() ? "" : " " + quote(name),
                 shown(playing), c.time);
    }
    for (const PosedPrimitive& m : c.meshes) {
      float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
      for (size_t i = 0; i < m.positions.size(); ++i) {
        lo[i % 3] = std::min(lo[i % 3], m.positions[i]);
        hi[i % 3] = std::max(hi[i % 3], m.positions[i]);
      }
      fmt::print("  node {} mesh {} primitive {}: {} vertices{}  bbox [{:.4g} {:.4g} {:.4g}]..[{:.4g} {:.4g} {:.4g}]\n",
                 m.node, m.mesh, m.primitive, m.vertex_count, m.skinned ? ", skinned" : "", lo[0], lo[1], lo[2], hi[0],
                 hi[1], hi[2]);
      if (m.weights.empty()) continue;
      const size_t active =
          size_t(std::count_if(m.weights.begin(), m.weights.end(), [](float w) { return w != 0.0f; }));
      const std::string listed = nonZeroWeights(asset.meshes[m.mesh], m.weights);
      fmt::print("    weights: {} of {} non-zero{}{}\n", active, m.weights.size(), listed.empty() ? "" : ": ", listed);
    }
  }
}

// Once per run, with the count: the skin weights the loader rescaled to sum 1 (as three.js does; inspect lists
// them per primitive), which change the pose unless --keep-skin-weights.
void noteRescaledSkinWeights(const std::string& file, const PosePrepared& prepared) {
  uint64_t rescaled = 0, primitives = 0;
  for (const PrimitiveData& p : prepared.primitives) {
    rescaled += p.skin_weight_fix.rescaled;
    primitives += p.skin_weight_fix.rescaled > 0 ? 1 : 0;
  }
  if (rescaled == 0) return;
  reportNote(
      fmt::format("{}: skin weights of {} vertices ({} primitive{}) did not sum to 1 and were rescaled "
                  "(--keep-skin-weights uses them as stored)",
                  file, rescaled, primitives, primitives == 1 ? "" : "s"));
}

// Receives each posed frame in time order (index into the times, the pose).
using FrameSink = std::function<Status(size_t, PoseResult&&)>;

Status poseOnCpu(const PosePrepared& prepared, const PoseCommandOptions& options, uint32_t animation,
                 const std::vector<double>& times, const WeightInputs& weights, const FrameSink& sink) {
  const unsigned threads = options.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : options.threads;
  ThreadPool pool(threads);  // the CLI owns the threads; the library only borrows them
  SamplingContext sampling;
  for (size_t i = 0; i < times.size(); ++i) {
    PoseOptions pose;
    pose.animation = animation;
    pose.time = times[i];
    pose.path = options.cpu_path == "fast" ? CpuPath::kFast : CpuPath::kReference;
    pose.pool = &pool;
    pose.sampling = &sampling;
    pose.weights = weights;
    pose.positions_only = options.positions_only;
    Expected<PoseResult> result = evaluatePose(prepared, pose);
    if (!result) return result.error();
    if (Status s = sink(i, std::move(*result)); !s) return s;
  }
  return Ok{};
}

#if HAVE_morphkit_vk
// With `arrays`, each frame goes from the chunk's host memory straight into its slot of the arrays, on the pool's
// threads (copyGpuPoseFrame: no per-frame PoseResult); otherwise `sink` takes each frame's result in order.
Status poseOnGpu(const PosePrepared& prepared, const PoseCommandOptions& options, uint32_t animation,
                 const std::vector<double>& times, const WeightInputs& weights, const FrameSink& sink,
                 PoseArrays* arrays) {
  GpuContextOptions context_options;
  const std::optional<DeviceChoice> device = parseDevice(options.device);
  context_options.device_index = device && device->index >= 0 ? device->index : options.gpu_index;
  Expected<VulkanContext*> context = createVulkanContext(context_options);
  if (!context) return context.error();
  std::unique_ptr<VulkanContext, void (*)(VulkanContext*)> context_owner(
      *context, [](VulkanContext* c) { destroyVulkanContext(c); });
  GpuUploadOptions upload;
  if (const std::optional<DeltaLayout> layout = layoutNamed(options.layout)) upload.layout = *layout;  // else auto
  Expected<GpuPose*> gpu_pose = prepareGpuPose(**context, prepared, upload);
  if (!gpu_pose) return gpu_pose.error();
  VulkanContext* raw_context = *context;
  auto destroy = [raw_context](GpuPose* p) { destroyGpuPose(*raw_context, p); };
  std::unique_ptr<GpuPose, decltype(destroy)> pose_owner(*gpu_pose, destroy);
  SamplingContext sampling;
  std::vector<GpuPoseOptions> frames(times.size());
  for (size_t i = 0; i < times.size(); ++i) {
    frames[i].animation = animation;
    frames[i].time = times[i];
    frames[i].epsilon = options.epsilon;
    frames[i].sampling = &sampling;
    frames[i].weights = weights;
  }
  // Frames in flight: chunks of frames per submission, the next chunk stepped while the GPU runs this one.
  GpuPoseStreamOptions stream;
  stream.memory_budget = options.gpu_memory_mb << 20;
  if (const uint64_t frame_bytes = gpuPoseFrameBytes(**gpu_pose); stream.memory_budget < frame_bytes) {
    return fail(Error::kInvalidArgument,
                fmt::format("--gpu-memory-mb {}: below one frame's output; one frame of this "
                            "pose needs {} bytes ({} MB)",
                            options.gpu_memory_mb, frame_bytes, (frame_bytes + (1 << 20) - 1) >> 20));
  }
  // The host's share of each chunk (frame steps, unpacking, the sink) on every core: one thread is the limit.
  ThreadPool pool(options.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : options.threads);
  stream.pool = &pool;
  if (!arrays) return evaluateGpuPoseFrames(**context, **gpu_pose, frames, sink, stream);
  stream.concurrent_sink = true;
  return evaluateGpuPoseFrameViews(
      **context, **gpu_pose, frames,
      [arrays](size_t i, std::span<const GpuPosedInstance> frame) { return copyGpuPoseFrame(frame, i, arrays->views); },
      stream);
}
#else
Status poseOnGpu(const PosePrepared&, const PoseCommandOptions&, uint32_t, const std::vector<double>&,
                 const WeightInputs&, const FrameSink&, PoseArrays*) {
  return fail(Error::kNoDevice, "this morphkit was built without the Vulkan layer");
}
#endif

struct ComparisonStat {
  const char* attribute = "";
  double abs = 0, rel = 0;
  size_t values = 0;
};

// Largest absolute and relative (to the CPU value's magnitude) difference per attribute, GPU vs CPU, printed as a
// table; returned for --tolerance.
std::vector<ComparisonStat> printComparison(const std::vector<PoseResult>& cpu, const std::vector<PoseResult>& gpu) {
  using Stat = ComparisonStat;
  Stat positions{"position"}, normals{"normal"}, tangents{"tangent"};
  auto accumulate = [](Stat& stat, const std::vector<float>& a, const std::vector<float>& b) {
    size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
      double d = std::abs(double(a[i]) - double(b[i]));
      stat.abs = std::max(stat.abs, d);
      stat.rel = std::max(stat.rel, d / std::max(1e-6, std::abs(double(a[i]))));
    }
    stat.values += n;
  };
  for (size_t c = 0; c < cpu.size() && c < gpu.size(); ++c) {
    for (size_t m = 0; m < cpu[c].meshes.size() && m < gpu[c].meshes.size(); ++m) {
      accumulate(positions, cpu[c].meshes[m].positions, gpu[c].meshes[m].positions);
      accumulate(normals, cpu[c].meshes[m].normals, gpu[c].meshes[m].normals);
      accumulate(tangents, cpu[c].meshes[m].tangents, gpu[c].meshes[m].tangents);
    }
  }
  fmt::print("{:<10} {:>10} {:>14} {:>14}\n", "attribute", "values", "max abs err", "max rel err");
  std::vector<Stat> stats;
  for (const Stat& stat : {positions, normals, tangents}) {
    if (stat.values == 0) continue;
    fmt::print("{:<10} {:>10} {:>14.3g} {:>14.3g}\n", stat.attribute, stat.values, stat.abs, stat.rel);
    stats.push_back(stat);
  }
  return stats;
}

// --compare --tolerance X: exit 1 naming the first attribute whose largest absolute difference exceeds X.
int checkTolerance(const PoseCommandOptions& options, const std::vector<ComparisonStat>& stats) {
  if (options.tolerance < 0) return 0;
  for (const ComparisonStat& stat : stats) {
    if (!(stat.abs <= options.tolerance)) {
      return reportFailure(options.file, fail(Error::kInvalidArgument,
                                              fmt::format("--compare: {} max abs error {:.3g} exceeds --tolerance {:g}",
                                                          stat.attribute, stat.abs, options.tolerance)));
    }
  }
  return 0;
}

int run(const PoseCommandOptions& options, const PoseOutput& output) {
  LoadOptions load;
  options.file_access.applyTo(load);
  load.keep_skin_weights = options.keep_skin_weights;
  load.budget = options.budget.budget();
  Expected<Asset> asset = loadAsset(options.file, load);
  if (!asset) return reportFailure(options.file, asset.error());
  if (std::string ignored = ignoredPointerWarning(*asset); !ignored.empty())
    reportWarning(options.file + ": " + ignored);

  Expected<uint32_t> found = findAnimation(*asset, options.anim, !options.weights.csv.empty());
  if (!found) return reportFailure(options.file, found.error());
  const uint32_t animation = *found;
  Expected<std::vector<double>> parsed_times = parseTimes(options.times);
  if (!parsed_times) {  // a malformed option value: a usage error, like CLI11's own checks
    return reportUsage(parsed_times.error().message);
  }
  const std::vector<double> times = options.times.empty() ? std::vector<double>{0.0} : *parsed_times;
  if (times.empty()) return reportUsage("--time: the ranges hold no time");
  // Every requested time is held at once (JSON output), so the posed budget covers all of them.
  const uint64_t poses = times.size() * (options.compare ? 2 : 1);
  if (Status budget = checkBudget(estimateCost(*asset), load.budget, poses); !budget) {
    return reportFailure(options.file, budget.error());
  }
  LoadedWeights weights;
  if (int code = loadWeights(*asset, options.file, options.weights, weights); code != 0) return code;
  uint32_t scene = kNone;
  if (options.scene_given) {
    Expected<uint32_t> found_scene = findSceneNamed(*asset, options.scene, "--scene");
    if (!found_scene) return reportFailure(options.file, found_scene.error());
    scene = *found_scene;
  }
  Expected<PosePrepared> prepared = preparePose(*asset, scene);
  if (!prepared) return reportFailure(options.file, prepared.error());
  noteRescaledSkinWeights(options.file, *prepared);

  const bool arrays_out = output.arrays();
  std::optional<PoseArrays> arrays;
  if (arrays_out)
    arrays.emplace(*prepared, times.size(), options.positions_only || output.format == "npy");  // .npy: positions only

  // Array outputs take each frame as it is posed (memory: the arrays); the other outputs collect the cases.
  std::vector<PoseResult> cases, cpu_cases;
  auto collect = [&](std::vector<PoseResult>& into, bool copy_to_arrays) -> FrameSink {
    return [&into, &arrays, copy_to_arrays](size_t i, PoseResult&& pose) -> Status {
      if (copy_to_arrays) return copyPoseFrame(pose, i, arrays->views);
      into.push_back(std::move(pose));
      return Ok{};
    };
  };
  const bool on_gpu = parseDevice(options.device).value_or(DeviceChoice{}).gpu;
  const bool gpu = on_gpu || options.compare;
  if (!on_gpu || options.compare) {
    if (Status s =
            poseOnCpu(*prepared, options, animation, times, weights.inputs(), collect(cpu_cases, arrays_out && !gpu));
        !s) {
      return reportFailure(options.file, s.error());
    }
  }
  if (gpu) {
    std::vector<PoseResult> gpu_cases;
    // --compare needs the GPU cases whole; otherwise GPU frames stream into the arrays like CPU ones.
    const bool into_arrays = arrays_out && !options.compare;
    FrameSink sink = collect(gpu_cases, into_arrays);
    if (Status s =
            poseOnGpu(*prepared, options, animation, times, weights.inputs(), sink, into_arrays ? &*arrays : nullptr);
        !s)
      return reportFailure(options.file, s.error());
    if (options.compare) {
      const int within = checkTolerance(options, printComparison(cpu_cases, gpu_cases));
      if (within != 0 || output.path.empty()) return within;
      if (arrays_out) {
        for (size_t i = 0; i < gpu_cases.size(); ++i) {
          if (Status s = copyPoseFrame(gpu_cases[i], i, arrays->views); !s)
            return reportFailure(options.file, s.error());
        }
      }
    }
    cases = std::move(gpu_cases);
  } else {
    cases = std::move(cpu_cases);
  }

  if (arrays_out) return writeArrayOutput(output, *arrays, times);
  if (!output.path.empty()) return writePoseOutput(output, cases, options.file, *asset);
  if (options.json) {
    fmt::print("{}\n", writePoseJson(cases, options.file));
  } else {
    std::string playing;
    if (!weights.overrides.empty()) playing += " + weights " + describeOverrides(weights.overrides);
    if (weights.capture) playing += " + capture " + options.weights.csv;
    printSummary(*asset, cases, playing);
  }
  return 0;
}

const CommandRegistration kPoseCommand(
    {30, [](CLI::App& app, int& exit_code) {
       auto options = std::make_shared<PoseCommandOptions>();
       CLI::App* sub =
           app.add_subcommand("pose", "Morph and skin every mesh of a scene (CPU or GPU) at given animation times");
       sub->add_option("FILE", options->file, "a .gltf or .glb file")->required();
       auto* scene =
           sub->add_option("--scene", options->scene, "scene index or name (default: the file's scene, else 0)");
       addAnimationOption(sub, options->anim,
                          "animation index or name, or rest (default: the first animation; the rest pose without one)");
       sub->add_option(
              "--time", options->times,
              "time(s) in seconds, or A:B:STEP (A, A+STEP, ... < B); repeat or comma-separate for several (default 0)")
           ->expected(1)
           ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
       sub->add_option(
           "-o,--out", options->out,
           "write OUT.json (every time), OUT.obj (+ OUT.mtl) or OUT.glb (one time), OUT.npy (frames × vertices × 3 "
           "float32, one posed primitive) or OUT.npz (every primitive's positions and normals, and the times); - "
           "writes to stdout (with --format)");
       sub->add_option("--format", options->format,
                       std::string("the format of --out: ") + kPoseFormats + " (default: --out's extension)");
       sub->add_option("--cpu-path", options->cpu_path, "reference (scalar, double accumulation) or fast")
           ->check(CLI::IsMember({"reference", "fast"}));
       sub->add_option("--threads", options->threads,
                       "worker threads including the main one: the CPU pose, or the GPU stream's frame steps and "
                       "unpacking (default 0: all cores)")
           ->check(CLI::Range(0u, 256u));
       sub->add_flag("--json", options->json, "print the pose JSON (shared/reference schema) instead of a summary");
       addFileAccessOptions(sub, options->file_access);
       sub->add_flag(
           "--positions-only", options->positions_only,
           "CPU: pose positions only (no normals, tangents, texture coordinates or colors; about 1.8x faster); "
           "outputs .json (normals null), .npy or .npz (no _normals), or the summary");
       sub->add_flag(
           "--keep-skin-weights", options->keep_skin_weights,
           "skin with WEIGHTS_n as stored (default: each vertex rescaled to sum 1, as three.js and Babylon.js do)");
       addDeviceOption(sub, options->device,
                       "cpu (default), gpu (Vulkan compute, the best device; same output) or a Vulkan device index");
       auto* compare =
           sub->add_flag("--compare", options->compare, "run CPU and GPU, print the max abs/rel error per attribute");
       sub->add_option("--tolerance", options->tolerance,
                       "with --compare: exit 1 when an attribute's max abs error exceeds this (for CI)")
           ->check(CLI::Range(0.0, 1e30))
           ->needs(compare);
       auto* gpu_index = sub->add_option("--gpu", options->gpu_index, "deprecated: use --device N")->group("");
       sub->add_option("--layout", options->layout, std::string("GPU delta layout: auto, ") + kLayoutNames)
           ->check(CLI::Validator(
               [](std::string& name) {
                 return name == "auto" || layoutNamed(name) ? std::string()
                                                            : "expected auto, " + std::string(kLayoutNames);
               },
               "LAYOUT"));
       sub->add_option("--epsilon", options->epsilon, "GPU: skip targets with |weight| <= epsilon (default 0)");
       sub->add_option("--gpu-memory-mb", options->gpu_memory_mb,
                       "GPU: posed vertices in flight, MB (default 256): frames are posed in chunks of half of it")
           ->check(CLI::Range(uint64_t(1), uint64_t(1) << 20));
       addBudgetOptions(sub, options->budget);
       addWeightOptions(*sub, options->weights, kOverrideOptions | kCaptureOptions);
       sub->callback([gpu_index, scene, options, &exit_code] {
         options->scene_given = scene->count() > 0;
         if (gpu_index->count() > 0) {
           if (parseDevice(options->device).value_or(DeviceChoice{}).index >= 0) {
             exit_code = reportUsage("--gpu: give the device once, as --device N");
             return;
           }
           reportWarning(fmt::format("--gpu {0} is deprecated; use --device {0}", options->gpu_index));
         }
         PoseOutput output;
         if (int code = resolvePoseOutput(options->out, options->format, output); code != 0) {
           exit_code = code;
           return;
         }
         if (options->positions_only) {
           if (options->compare || parseDevice(options->device).value_or(DeviceChoice{}).gpu ||
               gpu_index->count() > 0) {
             exit_code = reportUsage("--positions-only runs on the CPU (--device cpu, no --compare)");
             return;
           }
           if (output.format == "glb" || output.format == "obj") {
             exit_code =
                 reportUsage(fmt::format("--out {}: --positions-only writes .json, .npy or .npz (a .{} carries normals "
                                         "and texture coordinates)",
                                         options->out, output.format));
             return;
           }
         }
         exit_code = run(*options, output);
       });
     }});

}  // namespace
}  // namespace morphkit::cli
