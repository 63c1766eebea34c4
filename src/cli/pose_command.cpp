// SPDX-License-Identifier: MIT
// `morphkit pose FILE [--scene N] [--anim N|NAME] [--time S|A:B:STEP[,...]]... [--out OUT.json|.obj|.glb|.npy|.npz]
//                     [--cpu-path reference|fast] [--threads N] [--json] [--allow-external-paths]
//                     [--weights NAME=V,...] [--weights-file W.json] [--weights-csv C.csv [--csv-fps F] [--map
//                     M.json]]`
// Poses every (node, primitive) of a scene on the CPU (morph, then skin; morphkit/pose.h) at one or more times
// and prints a summary (with the non-zero weights by name), or writes JSON (the shared/reference schema), OBJ, a static
// .glb of the posed meshes, or (frames, vertices, 3) float32 arrays (.npy: one posed primitive; .npz: every one,
// morphkit/npy.h).
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "command.h"
#include "morphkit/glb_writer.h"
#include "morphkit/gltf.h"
#include "morphkit/io.h"
#include "morphkit/json_writer.h"
#include "morphkit/npy.h"
#include "morphkit/pose.h"
#include "morphkit/pose_arrays.h"
#include "morphkit/text.h"
#include "output_folder.h"
#include "selection.h"
#include "weight_options.h"
#if HAVE_morphkit_vk
#include "morphkit/gpu_pose.h"
#endif

namespace morphkit::cli {
namespace {

struct PoseCommandOptions {
  std::string file;
  int64_t scene = -1;
  std::string anim;                // empty: the first animation, or rest without one (findAnimation)
  std::vector<std::string> times;  // seconds, or A:B:STEP ranges
  std::string out;
  std::string cpu_path = "reference";
  uint32_t threads = 1;
  bool json = false;
  FileAccessFlags file_access;
  bool keep_skin_weights = false;
  bool positions_only = false;  // CPU: PoseOptions::positions_only
  std::string device = "cpu";   // cpu | gpu | N (a Vulkan device index)
  bool compare = false;         // run both, print the largest differences
  int gpu_index = -1;           // the deprecated --gpu N
  std::string layout = "auto";  // GPU delta layout: auto | dense | f16 | snorm16 | sparse
  float epsilon = 0.0f;         // GPU: targets with |w| <= epsilon are skipped
  BudgetFlags budget;
  WeightOptions weights;  // --weights, --weights-file, --weights-csv, ...
};

// The source's materials, textures, samplers and images, copied into `asset` with the same indices: texture
// references keep their KHR_texture_transform (the posed TEXCOORDs are stored as in the file, so the transform
// must travel with them), KTX2 textures their KHR_texture_basisu source. Images stored in bufferViews are copied
// into the new buffer; URIs are kept as they are.
void copyMaterials(const Asset& source, Asset& asset) {
  asset.materials = source.materials;
  asset.textures = source.textures;
  asset.samplers = source.samplers;
  for (const Image& image : source.images) {
    Image copy = image;
    if (image.buffer_view != kNone) {
      const BufferView& view = source.buffer_views[image.buffer_view];
      const uint8_t* begin = source.buffers[view.buffer].data.data() + view.byte_offset;
      copy.buffer_view = appendBufferView(asset, std::span<const uint8_t>(begin, view.byte_length));
    }
    asset.images.push_back(std::move(copy));
  }
  for (const char* name : {"KHR_texture_transform", "KHR_texture_basisu"}) {
    for (const auto* list : {&source.extensions_used, &source.extensions_required}) {
      if (std::find(list->begin(), list->end(), name) == list->end()) continue;
      auto& target = list == &source.extensions_used ? asset.extensions_used : asset.extensions_required;
      target.push_back(name);
    }
  }
}

// A static glTF of posed meshes: one mesh + node per posed primitive, world-space attributes, no skin, no
// morph targets, the source's materials. Built with the glb_writer builder helpers.
Expected<std::vector<uint8_t>> posedGlb(const PoseResult& pose, const Asset& source) {
  Asset asset;
  asset.generator = "morphkit pose";
  asset.scenes.emplace_back();
  asset.scene = 0;
  copyMaterials(source, asset);
  AppendAccessorOptions vertex_options;
  vertex_options.target = kArrayBuffer;
  for (const PosedPrimitive& m : pose.meshes) {
    if (m.vertex_count == 0) continue;
    Primitive primitive;
    primitive.mode = m.mode;
    primitive.material = source.meshes[m.mesh].primitives[m.primitive].material;
    AppendAccessorOptions position_options = vertex_options;
    position_options.min_max = true;  // §3.7.2.1: POSITION needs min/max
    primitive.attributes.push_back({"POSITION", appendAccessor(asset, std::span<const float>(m.positions),
                                                               AccessorType::kVec3, position_options)});
    if (!m.normals.empty()) {
      primitive.attributes.push_back(
          {"NORMAL", appendAccessor(asset, std::span<const float>(m.normals), AccessorType::kVec3, vertex_options)});
    }
    if (!m.tangents.empty()) {
      primitive.attributes.push_back(
          {"TANGENT", appendAccessor(asset, std::span<const float>(m.tangents), AccessorType::kVec4, vertex_options)});
    }
    for (size_t s = 0; s < m.texcoords.size(); ++s) {
      primitive.attributes.push_back(
          {"TEXCOORD_" + std::to_string(s),
           appendAccessor(asset, std::span<const float>(m.texcoords[s]), AccessorType::kVec2, vertex_options)});
    }
    for (size_t s = 0; s < m.colors.size(); ++s) {
      primitive.attributes.push_back(
          {"COLOR_" + std::to_string(s),
           appendAccessor(asset, std::span<const float>(m.colors[s]), AccessorType::kVec4, vertex_options)});
    }
    if (!m.indices.empty()) {
      AppendAccessorOptions index_options;
      index_options.target = kElementArrayBuffer;
      primitive.indices =
          appendAccessor(asset, std::span<const uint32_t>(m.indices), AccessorType::kScalar, index_options);
    }
    Mesh mesh;
    mesh.name =
        "node" + std::to_string(m.node) + "_mesh" + std::to_string(m.mesh) + "_prim" + std::to_string(m.primitive);
    mesh.primitives.push_back(std::move(primitive));
    Node node;
    node.name = mesh.name;
    node.mesh = uint32_t(asset.meshes.size());
    asset.meshes.push_back(std::move(mesh));
    asset.scenes[0].nodes.push_back(uint32_t(asset.nodes.size()));
    asset.nodes.push_back(std::move(node));
  }
  return writeGlb(asset);
}

std::string lowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

// "--time" items: S (seconds) or A:B:STEP, the half-open range A, A+STEP, ... < B (like --frames A:B), each
// time computed as A + k·STEP so long ranges do not drift and split ranges meet exactly.
Expected<std::vector<double>> parseTimes(const std::vector<std::string>& items) {
  constexpr size_t kMaxTimes = 1000000;
  std::vector<double> times;
  auto number = [](std::string_view text, double& out) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size() && std::isfinite(out);
  };
  for (const std::string& item : items) {
    const size_t c1 = item.find(':');
    if (c1 == std::string::npos) {
      double t = 0;
      if (!number(item, t)) return fail(Error::kInvalidArgument, "--time " + item + ": not a number of seconds");
      times.push_back(t);
      continue;
    }
    const size_t c2 = item.find(':', c1 + 1);
    double a = 0, b = 0, step = 0;
    if (c2 == std::string::npos || !number(std::string_view(item).substr(0, c1), a) ||
        !number(std::string_view(item).substr(c1 + 1, c2 - c1 - 1), b) ||
        !number(std::string_view(item).substr(c2 + 1), step) || !(step > 0) || !(b > a)) {
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

// Per posed primitive, (frames, vertices, 3) float32 arrays filled frame by frame (morphkit/pose_arrays.h).
struct PoseArrays {
  std::vector<PoseArrayShape> shapes;
  std::vector<std::vector<float>> positions, normals;
  std::vector<PoseArrayView> views;
  size_t frames = 0;
  PoseArrays(const PosePrepared& prepared, size_t frame_count, bool positions_only)
      : shapes(poseArrayShapes(prepared)), frames(frame_count) {
    for (PoseArrayShape& shape : shapes) {
      shape.has_normals = shape.has_normals && !positions_only;
      positions.emplace_back(frames * shape.vertex_count * 3);
      normals.emplace_back(shape.has_normals ? frames * shape.vertex_count * 3 : 0);
    }
    for (size_t i = 0; i < shapes.size(); ++i) views.push_back({positions[i], normals[i], {}});
  }
};

bool isArrayOutput(const std::string& ext) {
  return ext == ".npy" || ext == ".npz";
}

// .npy: the positions of the one posed primitive; .npz: "<node..>_positions" (+ "_normals") per primitive and
// "times" (float64 seconds).
int writeArrayOutput(const std::string& out, const PoseArrays& arrays, const std::vector<double>& times) {
  auto shapeOf = [&](size_t i) {
    return std::vector<uint64_t>{uint64_t(arrays.frames), uint64_t(arrays.shapes[i].vertex_count), 3};
  };
  Expected<std::vector<uint8_t>> bytes = fail(Error::kInvalidArgument, "");
  if (lowerExtension(out) == ".npy") {
    if (arrays.shapes.size() != 1) {
      return reportUsage(fmt::format("--out {}: .npy holds one posed primitive and the scene has {}; use .npz", out,
                                     arrays.shapes.size()));
    }
    bytes = encodeNpy(std::span<const float>(arrays.positions[0]), shapeOf(0));
  } else {
    std::vector<NpzEntry> entries;
    Expected<std::vector<uint8_t>> time_array =
        encodeNpy(std::span<const double>(times), std::vector<uint64_t>{times.size()});
    if (!time_array) return reportFailure(out, time_array.error());
    entries.push_back({"times", std::move(*time_array)});
    for (size_t i = 0; i < arrays.shapes.size(); ++i) {
      const PoseArrayShape& s = arrays.shapes[i];
      const std::string name = posedPrimitiveName(s.node, s.mesh, s.primitive);
      Expected<std::vector<uint8_t>> p = encodeNpy(std::span<const float>(arrays.positions[i]), shapeOf(i));
      if (!p) return reportFailure(out, p.error());
      entries.push_back({name + "_positions", std::move(*p)});
      if (s.has_normals) {
        Expected<std::vector<uint8_t>> n = encodeNpy(std::span<const float>(arrays.normals[i]), shapeOf(i));
        if (!n) return reportFailure(out, n.error());
        entries.push_back({name + "_normals", std::move(*n)});
      }
    }
    bytes = encodeNpz(entries);
  }
  if (!bytes) return reportFailure(out, bytes.error());
  Status written = writeOutputFile(out, std::span<const uint8_t>(*bytes));
  return written ? 0 : reportFailure(out, written.error());
}

// The output seam: format chosen by extension; every format goes through writeFileAtomic.
int writePoseOutput(const std::string& out, const std::vector<PoseResult>& cases, const std::string& model,
                    const Asset& asset) {
  const std::string ext = lowerExtension(out);
  if (ext == ".json") {
    Status written = writeOutputFile(out, writePoseJson(cases, model));
    return written ? 0 : reportFailure(out, written.error());
  }
  if (cases.size() != 1) {
    return reportUsage(fmt::format("--out {}: {} holds one pose; give a single --time (or use .json)", out, ext));
  }
  if (ext == ".obj") {
    Status written = writeOutputFile(out, writePoseObj(cases[0], &asset));
    return written ? 0 : reportFailure(out, written.error());
  }
  if (ext == ".glb") {
    Expected<std::vector<uint8_t>> glb = posedGlb(cases[0], asset);
    if (!glb) return reportFailure(out, glb.error());
    Status written = writeOutputFile(out, std::span<const uint8_t>(*glb));
    return written ? 0 : reportFailure(out, written.error());
  }
  return reportUsage(fmt::format("--out {}: unknown format (use .json, .obj, .glb, .npy or .npz)", out));
}

void printSummary(const Asset& asset, const std::vector<PoseResult>& cases) {
  for (const PoseResult& c : cases) {
    if (c.animation == kNone) {
      fmt::print("scene {} rest pose\n", c.scene);
    } else {
      const std::string& name = asset.animations[c.animation].name;
      fmt::print("scene {} animation {}{} t={:.6g}s\n", c.scene, c.animation, name.empty() ? "" : " " + quote(name),
                 c.time);
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
Status poseOnGpu(const PosePrepared& prepared, const PoseCommandOptions& options, uint32_t animation,
                 const std::vector<double>& times, const WeightInputs& weights, const FrameSink& sink) {
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
  return evaluateGpuPoseFrames(**context, **gpu_pose, frames, sink);
}
#else
Status poseOnGpu(const PosePrepared&, const PoseCommandOptions&, uint32_t, const std::vector<double>&,
                 const WeightInputs&, const FrameSink&) {
  return fail(Error::kNoDevice, "this morphkit was built without the Vulkan layer");
}
#endif

// Largest absolute and relative (to the CPU value's magnitude) difference per attribute, GPU vs CPU.
void printComparison(const std::vector<PoseResult>& cpu, const std::vector<PoseResult>& gpu) {
  struct Stat {
    double abs = 0, rel = 0;
    size_t values = 0;
  };
  Stat positions, normals, tangents;
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
  for (auto [name, stat] : {std::pair{"position", positions}, {"normal", normals}, {"tangent", tangents}}) {
    if (stat.values == 0) continue;
    fmt::print("{:<10} {:>10} {:>14.3g} {:>14.3g}\n", name, stat.values, stat.abs, stat.rel);
  }
}

int run(const PoseCommandOptions& options) {
  LoadOptions load;
  options.file_access.applyTo(load);
  load.keep_skin_weights = options.keep_skin_weights;
  load.budget = options.budget.budget();
  Expected<Asset> asset = loadAsset(options.file, load);
  if (!asset) return reportFailure(options.file, asset.error());

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
  const uint32_t scene = options.scene < 0 ? kNone : uint32_t(std::min<int64_t>(options.scene, int64_t(kNone) - 1));
  Expected<PosePrepared> prepared = preparePose(*asset, scene);
  if (!prepared) return reportFailure(options.file, prepared.error());

  const bool arrays_out = !options.out.empty() && isArrayOutput(lowerExtension(options.out));
  std::optional<PoseArrays> arrays;
  if (arrays_out) arrays.emplace(*prepared, times.size(), options.positions_only);

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
    FrameSink sink = collect(gpu_cases, arrays_out && !options.compare);
    if (Status s = poseOnGpu(*prepared, options, animation, times, weights.inputs(), sink); !s)
      return reportFailure(options.file, s.error());
    if (options.compare) {
      printComparison(cpu_cases, gpu_cases);
      if (options.out.empty()) return 0;
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

  if (arrays_out) return writeArrayOutput(options.out, *arrays, times);
  if (!options.out.empty()) return writePoseOutput(options.out, cases, options.file, *asset);
  if (options.json) {
    fmt::print("{}\n", writePoseJson(cases, options.file));
  } else {
    printSummary(*asset, cases);
  }
  return 0;
}

const CommandRegistration kRegistration(
    {30, [](CLI::App& app, int& exit_code) {
       auto options = std::make_shared<PoseCommandOptions>();
       CLI::App* sub =
           app.add_subcommand("pose", "Morph and skin every mesh of a scene (CPU or GPU) at given animation times");
       sub->add_option("FILE", options->file, "a .gltf or .glb file")->required();
       sub->add_option("--scene", options->scene, "scene index (default: the file's scene, else 0)")
           ->check(CLI::NonNegativeNumber);
       sub->add_option("--anim", options->anim,
                       "animation index or name, or rest (default: the first animation; the rest pose without one)");
       sub->add_option(
              "--time", options->times,
              "time(s) in seconds, or A:B:STEP (A, A+STEP, ... < B); repeat or comma-separate for several (default 0)")
           ->expected(1)
           ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
           ->delimiter(',');
       sub->add_option(
           "--out", options->out,
           "write OUT.json (every time), OUT.obj or OUT.glb (one time), OUT.npy (frames × vertices × 3 float32, one "
           "posed primitive) or OUT.npz (every primitive's positions and normals, and the times)");
       sub->add_option("--cpu-path", options->cpu_path, "reference (scalar, double accumulation) or fast")
           ->check(CLI::IsMember({"reference", "fast"}));
       sub->add_option("--threads", options->threads, "worker threads including the main one (0: all cores)")
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
       sub->add_flag("--compare", options->compare, "run CPU and GPU, print the max abs/rel error per attribute");
       auto* gpu_index = sub->add_option("--gpu", options->gpu_index, "deprecated: use --device N")->group("");
       sub->add_option("--layout", options->layout, std::string("GPU delta layout: auto, ") + kLayoutNames)
           ->check(CLI::Validator(
               [](std::string& name) {
                 return name == "auto" || layoutNamed(name) ? std::string()
                                                            : "expected auto, " + std::string(kLayoutNames);
               },
               "LAYOUT"));
       sub->add_option("--epsilon", options->epsilon, "GPU: skip targets with |weight| <= epsilon (default 0)");
       addBudgetOptions(sub, options->budget);
       addWeightOptions(*sub, options->weights, kOverrideOptions | kCaptureOptions);
       sub->callback([gpu_index, options, &exit_code] {
         if (gpu_index->count() > 0) {
           if (parseDevice(options->device).value_or(DeviceChoice{}).index >= 0) {
             exit_code = reportUsage("--gpu: give the device once, as --device N");
             return;
           }
           reportWarning(fmt::format("--gpu {0} is deprecated; use --device {0}", options->gpu_index));
         }
         if (options->positions_only) {
           const std::string ext = lowerExtension(options->out);
           if (options->compare || parseDevice(options->device).value_or(DeviceChoice{}).gpu ||
               gpu_index->count() > 0) {
             exit_code = reportUsage("--positions-only runs on the CPU (--device cpu, no --compare)");
             return;
           }
           if (ext == ".glb" || ext == ".obj") {
             exit_code =
                 reportUsage(fmt::format("--out {}: --positions-only writes .json, .npy or .npz (a {} carries normals "
                                         "and texture coordinates)",
                                         options->out, ext));
             return;
           }
         }
         exit_code = run(*options);
       });
     }});

}  // namespace
}  // namespace morphkit::cli
