// SPDX-License-Identifier: MIT
// `morphkit pose FILE [--scene N] [--anim N|NAME] [--time S[,S...]]... [--out OUT.json|.obj|.glb]
//                     [--cpu-path reference|fast] [--threads N] [--json] [--allow-external-paths]
//                     [--weights NAME=V,...] [--weights-file W.json] [--weights-csv C.csv [--csv-fps F] [--map M.json]]`
// Poses every (node, primitive) of a scene on the CPU (morph, then skin; morphkit/pose.h) at one or more times
// and prints a summary (with the non-zero weights by name), or writes JSON (the shared/reference schema), OBJ or a static .glb of the posed meshes.
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "command.h"
#include "weight_options.h"
#include "morphkit/glb_writer.h"
#include "morphkit/gltf.h"
#include "morphkit/io.h"
#include "morphkit/json_writer.h"
#include "morphkit/pose.h"
#include "morphkit/text.h"
#if HAVE_morphkit_vk
#include "morphkit/gpu_pose.h"
#endif

namespace morphkit::cli {
namespace {

struct PoseCommandOptions {
  std::string file;
  int64_t scene = -1;
  std::string anim;  // empty: rest pose; digits: index; else a name
  std::vector<double> times;
  std::string out;
  std::string cpu_path = "reference";
  uint32_t threads = 1;
  bool json = false;
  bool allow_external_paths = false;
  bool keep_skin_weights = false;
  std::string device = "cpu";    // cpu | gpu
  bool compare = false;          // run both, print the largest differences
  int gpu_index = -1;            // --gpu N
  std::string layout = "auto";   // GPU delta layout: auto | dense | f16 | sparse
  float epsilon = 0.0f;          // GPU: targets with |w| <= epsilon are skipped
  BudgetFlags budget;
  WeightOptions weights;         // --weights, --weights-file, --weights-csv, ...
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
    primitive.attributes.push_back(
        {"POSITION", appendAccessor(asset, std::span<const float>(m.positions), AccessorType::kVec3, position_options)});
    if (!m.normals.empty()) {
      primitive.attributes.push_back(
          {"NORMAL", appendAccessor(asset, std::span<const float>(m.normals), AccessorType::kVec3, vertex_options)});
    }
    if (!m.tangents.empty()) {
      primitive.attributes.push_back(
          {"TANGENT", appendAccessor(asset, std::span<const float>(m.tangents), AccessorType::kVec4, vertex_options)});
    }
    for (size_t s = 0; s < m.texcoords.size(); ++s) {
      primitive.attributes.push_back({"TEXCOORD_" + std::to_string(s),
                                      appendAccessor(asset, std::span<const float>(m.texcoords[s]), AccessorType::kVec2,
                                                     vertex_options)});
    }
    for (size_t s = 0; s < m.colors.size(); ++s) {
      primitive.attributes.push_back({"COLOR_" + std::to_string(s),
                                      appendAccessor(asset, std::span<const float>(m.colors[s]), AccessorType::kVec4,
                                                     vertex_options)});
    }
    if (!m.indices.empty()) {
      AppendAccessorOptions index_options;
      index_options.target = kElementArrayBuffer;
      primitive.indices = appendAccessor(asset, std::span<const uint32_t>(m.indices), AccessorType::kScalar, index_options);
    }
    Mesh mesh;
    mesh.name = "node" + std::to_string(m.node) + "_mesh" + std::to_string(m.mesh) + "_prim" + std::to_string(m.primitive);
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

// The output seam: format chosen by extension; every format goes through writeFileAtomic.
int writePoseOutput(const std::string& out, const std::vector<PoseResult>& cases, const std::string& model,
                    const Asset& asset) {
  const std::string ext = lowerExtension(out);
  if (ext == ".json") {
    Status written = writeFileAtomic(out, writePoseJson(cases, model));
    return written ? 0 : reportFailure(out, written.error());
  }
  if (cases.size() != 1) {
    reportError(fmt::format("--out {}: {} holds one pose; give a single --time (or use .json)", out, ext));
    return kExitUsage;
  }
  if (ext == ".obj") {
    Status written = writeFileAtomic(out, writePoseObj(cases[0], &asset));
    return written ? 0 : reportFailure(out, written.error());
  }
  if (ext == ".glb") {
    Expected<std::vector<uint8_t>> glb = posedGlb(cases[0], asset);
    if (!glb) return reportFailure(out, glb.error());
    Status written = writeFileAtomic(out, std::span<const uint8_t>(*glb));
    return written ? 0 : reportFailure(out, written.error());
  }
  reportError(fmt::format("--out {}: unknown format (use .json, .obj or .glb)", out));
  return kExitUsage;
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
      fmt::print("  node {} mesh {} primitive {}: {} vertices{}  bbox [{:.4g} {:.4g} {:.4g}]..[{:.4g} {:.4g} {:.4g}]\n", m.node,
                 m.mesh, m.primitive, m.vertex_count, m.skinned ? ", skinned" : "", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
      if (m.weights.empty()) continue;
      const size_t active = size_t(std::count_if(m.weights.begin(), m.weights.end(), [](float w) { return w != 0.0f; }));
      const std::string listed = nonZeroWeights(asset.meshes[m.mesh], m.weights);
      fmt::print("    weights: {} of {} non-zero{}{}\n", active, m.weights.size(), listed.empty() ? "" : ": ", listed);
    }
  }
}

Expected<std::vector<PoseResult>> poseOnCpu(const PosePrepared& prepared, const PoseCommandOptions& options,
                                            uint32_t animation, const std::vector<double>& times,
                                            const WeightInputs& weights) {
  const unsigned threads = options.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : options.threads;
  ThreadPool pool(threads);  // the CLI owns the threads; the library only borrows them
  SamplingContext sampling;
  std::vector<PoseResult> cases;
  for (double t : times) {
    PoseOptions pose;
    pose.animation = animation;
    pose.time = t;
    pose.path = options.cpu_path == "fast" ? CpuPath::kFast : CpuPath::kReference;
    pose.pool = &pool;
    pose.sampling = &sampling;
    pose.weights = weights;
    Expected<PoseResult> result = evaluatePose(prepared, pose);
    if (!result) return result.error();
    cases.push_back(std::move(*result));
  }
  return cases;
}

#if HAVE_morphkit_vk
Expected<std::vector<PoseResult>> poseOnGpu(const PosePrepared& prepared, const PoseCommandOptions& options,
                                            uint32_t animation, const std::vector<double>& times,
                                            const WeightInputs& weights) {
  GpuContextOptions context_options;
  context_options.device_index = options.gpu_index;
  Expected<VulkanContext*> context = createVulkanContext(context_options);
  if (!context) return context.error();
  GpuUploadOptions upload;
  if (options.layout == "dense") upload.layout = DeltaLayout::kDenseF32;
  if (options.layout == "f16") upload.layout = DeltaLayout::kDenseF16;
  if (options.layout == "sparse") upload.layout = DeltaLayout::kSparse;
  Expected<GpuPose*> gpu_pose = prepareGpuPose(**context, prepared, upload);
  if (!gpu_pose) {
    destroyVulkanContext(*context);
    return gpu_pose.error();
  }
  std::vector<PoseResult> cases;
  Failure failure{Error::kVulkan, ""};
  bool ok = true;
  SamplingContext sampling;
  for (double t : times) {
    GpuPoseOptions pose;
    pose.animation = animation;
    pose.time = t;
    pose.epsilon = options.epsilon;
    pose.sampling = &sampling;
    pose.weights = weights;
    Expected<PoseResult> result = evaluateGpuPose(**context, **gpu_pose, pose);
    if (!result) {
      failure = result.error();
      ok = false;
      break;
    }
    cases.push_back(std::move(*result));
  }
  destroyGpuPose(**context, *gpu_pose);
  destroyVulkanContext(*context);
  if (!ok) return failure;
  return cases;
}
#else
Expected<std::vector<PoseResult>> poseOnGpu(const PosePrepared&, const PoseCommandOptions&, uint32_t,
                                            const std::vector<double>&, const WeightInputs&) {
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
  load.allow_external_paths = options.allow_external_paths;
  load.keep_skin_weights = options.keep_skin_weights;
  load.budget = options.budget.budget();
  Expected<Asset> asset = loadAsset(options.file, load);
  if (!asset) return reportFailure(options.file, asset.error());
  // Every requested time is held at once (JSON output), so the posed budget covers all of them.
  const uint64_t poses = std::max<size_t>(1, options.times.size()) * (options.compare ? 2 : 1);
  if (Status budget = checkBudget(estimateCost(*asset), load.budget, poses); !budget) {
    return reportFailure(options.file, budget.error());
  }

  uint32_t animation = kNone;
  if (!options.anim.empty()) {
    const bool digits = std::all_of(options.anim.begin(), options.anim.end(), [](unsigned char c) { return std::isdigit(c); });
    if (digits && options.anim.size() < 10) {
      animation = uint32_t(std::stoul(options.anim));
      if (animation >= asset->animations.size()) {
        return reportFailure(options.file, fail(Error::kInvalidArgument, "--anim " + options.anim + ": the file has " +
                                                                             std::to_string(asset->animations.size()) +
                                                                             " animation(s)"));
      }
    } else {
      for (uint32_t a = 0; a < asset->animations.size(); ++a) {
        if (asset->animations[a].name == options.anim) {
          animation = a;
          break;
        }
      }
      if (animation == kNone) {
        return reportFailure(options.file,
                             fail(Error::kInvalidArgument, "--anim \"" + options.anim + "\": no animation of that name"));
      }
    }
  }
  LoadedWeights weights;
  if (int code = loadWeights(*asset, options.file, options.weights, weights); code != 0) return code;
  const uint32_t scene = options.scene < 0 ? kNone : uint32_t(std::min<int64_t>(options.scene, int64_t(kNone) - 1));
  Expected<PosePrepared> prepared = preparePose(*asset, scene);
  if (!prepared) return reportFailure(options.file, prepared.error());

  std::vector<double> times = options.times.empty() ? std::vector<double>{0.0} : options.times;
  std::vector<PoseResult> cases;
  if (options.device == "cpu" || options.compare) {
    Expected<std::vector<PoseResult>> cpu = poseOnCpu(*prepared, options, animation, times, weights.inputs());
    if (!cpu) return reportFailure(options.file, cpu.error());
    cases = std::move(*cpu);
  }
  if (options.device == "gpu" || options.compare) {
    Expected<std::vector<PoseResult>> gpu = poseOnGpu(*prepared, options, animation, times, weights.inputs());
    if (!gpu) return reportFailure(options.file, gpu.error());
    if (options.compare) {
      printComparison(cases, *gpu);
      if (options.out.empty()) return 0;
    }
    cases = std::move(*gpu);
  }

  if (!options.out.empty()) return writePoseOutput(options.out, cases, options.file, *asset);
  if (options.json) {
    fmt::print("{}\n", writePoseJson(cases, options.file));
  } else {
    printSummary(*asset, cases);
  }
  return 0;
}

const CommandRegistration kRegistration({30, [](CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PoseCommandOptions>();
  CLI::App* sub = app.add_subcommand("pose", "Morph and skin every mesh of a scene (CPU or GPU) at given animation times");
  sub->add_option("FILE", options->file, "a .gltf or .glb file")->required();
  sub->add_option("--scene", options->scene, "scene index (default: the file's scene, else 0)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--anim", options->anim, "animation index or name (default: none, the rest pose)");
  sub->add_option("--time", options->times, "time(s) in seconds; repeat or comma-separate for several (default 0)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->delimiter(',');
  sub->add_option("--out", options->out, "write OUT.json (every time), OUT.obj or OUT.glb (one time)");
  sub->add_option("--cpu-path", options->cpu_path, "reference (scalar, double accumulation) or fast")
      ->check(CLI::IsMember({"reference", "fast"}));
  sub->add_option("--threads", options->threads, "worker threads including the main one (0: all cores)")
      ->check(CLI::Range(0u, 256u));
  sub->add_flag("--json", options->json, "print the pose JSON (shared/reference schema) instead of a summary");
  sub->add_flag("--allow-external-paths", options->allow_external_paths, "let URIs point outside the file's folder");
  sub->add_flag("--keep-skin-weights", options->keep_skin_weights,
                "skin with WEIGHTS_n as stored (default: each vertex rescaled to sum 1, as three.js and Babylon.js do)");
  sub->add_option("--device", options->device, "cpu (default) or gpu (Vulkan compute; same output)")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  sub->add_flag("--compare", options->compare, "run CPU and GPU, print the max abs/rel error per attribute");
  sub->add_option("--gpu", options->gpu_index, "Vulkan device index (default: discrete > integrated > CPU)");
  sub->add_option("--layout", options->layout, "GPU delta layout: auto, dense, f16 or sparse")
      ->check(CLI::IsMember({"auto", "dense", "f16", "sparse"}));
  sub->add_option("--epsilon", options->epsilon, "GPU: skip targets with |weight| <= epsilon (default 0)");
  addBudgetOptions(sub, options->budget);
  addWeightOptions(*sub, options->weights, kOverrideOptions | kCaptureOptions);
  sub->callback([options, &exit_code] { exit_code = run(*options); });
}});

}  // namespace
}  // namespace morphkit::cli
