// SPDX-License-Identifier: MIT
// module.cpp — `morphkit._morphkit`, the pybind11 extension behind the `morphkit` Python package
// (python/morphkit/__init__.py re-exports it; python/morphkit/_morphkit.pyi types it; docs/PYTHON.md).
//
// Rules kept here: arrays are allocated once, as NumPy arrays, and filled in place (no per-vertex Python
// objects); the GIL is released around loading, posing and rendering; a morphkit Failure becomes the
// morphkit.Error subclass for its code (python/morphkit/_errors.py) carrying the one-line message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "morphkit/animation.h"
#include "morphkit/capture.h"
#include "morphkit/gltf.h"
#include "morphkit/gpu.h"
#include "morphkit/gpu_pose.h"
#include "morphkit/inspect.h"
#include "morphkit/io.h"
#include "morphkit/pose.h"
#include "morphkit/pose_arrays.h"
#include "morphkit/render.h"
#include "morphkit/text.h"
#include "morphkit/version.h"
#include "morphkit/weight_files.h"
#include "morphkit/weights.h"
#include "python_module.h"

namespace py = pybind11;

namespace morphkit::python {

// A Failure on its way to Python; thrown only inside this extension, translated at the pybind11 boundary.
struct FailureException : std::exception {
  Failure failure;
  explicit FailureException(Failure f) : failure(std::move(f)) {}
  const char* what() const noexcept override { return failure.message.c_str(); }
};

void raise(const Failure& failure, const std::string& where) {
  throw FailureException(Failure{failure.code, where.empty() ? failure.message : where + ": " + failure.message});
}

namespace {

// ---- Asset ----

struct GpuState {  // a Vulkan context and the uploaded primitives, made on the first pose(device="gpu")
  VulkanContext* context = nullptr;
  GpuPose* pose = nullptr;
  uint32_t scene = kNone;
  ~GpuState() {
    if (context) destroyGpuPose(*context, pose);
    destroyVulkanContext(context);
  }
};

struct PyAsset {
  std::string path;
  Asset asset;       // never moves: PosePrepared and renderers point at it
  std::mutex mutex;  // guards the caches below; posing itself runs outside it on const data
  std::vector<std::pair<uint32_t, std::unique_ptr<PosePrepared>>> prepared;  // per requested scene
  std::mutex gpu_mutex;  // one GPU pose at a time per asset (one queue)
  std::unique_ptr<GpuState> gpu;

  const PosePrepared& preparedFor(uint32_t scene) {
    std::lock_guard lock(mutex);
    for (auto& [key, p] : prepared) {
      if (key == scene) return *p;
    }
    auto p = std::make_unique<PosePrepared>(take(preparePose(asset, scene), path));
    prepared.emplace_back(scene, std::move(p));
    return *prepared.back().second;
  }
};
using AssetPtr = std::shared_ptr<PyAsset>;

AssetPtr load(const py::object& path_like, bool allow_external_paths, bool read_files) {
  // str or os.PathLike; kept as given for the messages (the CLI's "FILE: <where>: <what>").
  const std::string path = py::module_::import("os").attr("fspath")(path_like).cast<std::string>();
  auto result = std::make_shared<PyAsset>();
  result->path = path;
  Expected<Asset> loaded = fail(Error::kIo, "");
  {
    py::gil_scoped_release release;
    LoadOptions options;
    options.allow_external_paths = allow_external_paths;
    options.map_files = !read_files;
    loaded = loadAsset(path, options);
  }
  result->asset = take(std::move(loaded), path);
  return result;
}

// anim: None, an index or a name.
uint32_t resolveAnimation(const PyAsset& a, const py::object& anim) {
  if (anim.is_none()) return kNone;
  if (py::isinstance<py::str>(anim)) {
    const std::string name = anim.cast<std::string>();
    for (uint32_t i = 0; i < a.asset.animations.size(); ++i) {
      if (a.asset.animations[i].name == name) return i;
    }
    raise(fail(Error::kInvalidArgument, "animations: none is named \"" + name + "\""), a.path);
  }
  if (py::isinstance<py::bool_>(anim) || !py::isinstance<py::int_>(anim)) {
    raise(fail(Error::kInvalidArgument, "anim: expected None, an index or a name"), a.path);
  }
  const long long index = anim.cast<long long>();
  if (index < 0 || size_t(index) >= a.asset.animations.size()) {
    raise(fail(Error::kInvalidArgument, "animations[" + std::to_string(index) + "]: no such animation (the asset has " +
                                            std::to_string(a.asset.animations.size()) + ")"),
          a.path);
  }
  return uint32_t(index);
}

uint32_t resolveScene(const py::object& scene) {
  if (scene.is_none()) return kNone;
  const long long s = scene.cast<long long>();
  if (s < 0 || s >= (long long)kNone) raise(fail(Error::kInvalidArgument, "scene: expected None or an index >= 0"));
  return uint32_t(s);
}

struct AnimationInfo {
  uint32_t index = 0;
  std::string name;
  double duration = 0;
};

// ---- pose ----

struct PyPosedPrimitive {
  uint32_t node = 0, mesh = 0, primitive = 0;
  bool skinned = false;
  py::array_t<float> positions, weights;
  py::object normals;  // float32 array or None
};
struct PyPoseResult {
  py::array_t<double> times;
  std::optional<uint32_t> animation;
  uint32_t scene = 0;
  std::string device;
  std::vector<PyPosedPrimitive> primitives;
};

NameMatch nameMatch(bool ignore_case) {
  return ignore_case ? NameMatch::kCaseInsensitive : NameMatch::kExact;
}

// weights={name: value}: every mesh target carrying the name (mesh.extras.targetNames) takes the value, on top of
// the animation or rest weights (WeightInputs::overrides, morphkit/weights.h). An unknown name raises with the
// closest names, as the CLI's --weights does.
std::vector<WeightOverride> weightOverrides(const PyAsset& a, const py::object& weights, NameMatch match) {
  std::vector<WeightOverride> out;
  if (weights.is_none()) return out;
  if (!py::isinstance<py::dict>(weights))
    raise(fail(Error::kInvalidArgument, "weights: expected None or a dict {name: value}"), a.path);
  for (auto item : weights.cast<py::dict>()) {
    if (!py::isinstance<py::str>(item.first))
      raise(fail(Error::kInvalidArgument, "weights: keys must be target names (str)"), a.path);
    WeightOverride entry;
    entry.name = item.first.cast<std::string>();
    entry.value = item.second.cast<float>();
    if (!std::isfinite(entry.value))
      raise(fail(Error::kInvalidArgument, "weights: " + quote(entry.name) + ": not finite"), a.path);
    if (Expected<std::vector<TargetRef>> refs = resolveOverride(a.asset, entry, match); !refs)
      raise(refs.error(), a.path);
    out.push_back(std::move(entry));
  }
  return out;
}

void checkDeviceAndPath(const std::string& device, const std::string& path, bool positions_only) {
  if (device != "cpu" && device != "gpu")
    raise(fail(Error::kInvalidArgument, "device: expected \"cpu\" or \"gpu\", not \"" + device + "\""));
  if (path != "fast" && path != "reference")
    raise(fail(Error::kInvalidArgument, "path: expected \"fast\" or \"reference\", not \"" + path + "\""));
  if (positions_only && device != "cpu") raise(fail(Error::kInvalidArgument, "positions_only: runs on device=\"cpu\""));
}

std::vector<double> timesFrom(const py::object& times_in) {
  using Times = py::array_t<double, py::array::c_style | py::array::forcecast>;
  Times times = Times::ensure(times_in);
  if (!times || times.ndim() != 1) raise(fail(Error::kInvalidArgument, "times: expected a 1-D sequence of seconds"));
  std::vector<double> out(times.data(), times.data() + times.shape(0));
  for (size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) raise(fail(Error::kInvalidArgument, "times[" + std::to_string(i) + "]: not finite"));
  }
  return out;
}

// Poses `time_values` with `inputs` (weights by name, a capture track) on top of `animation` (or the rest pose).
PyPoseResult poseFrames(const AssetPtr& a, uint32_t animation, const std::vector<double>& time_values,
                        const WeightInputs& inputs, const std::string& device, const std::string& path, uint32_t scene,
                        unsigned threads, bool positions_only) {
  const size_t frames = time_values.size();
  const PosePrepared& prepared = a->preparedFor(scene);

  // The output arrays, allocated once; each frame is copied in as it is posed.
  PyPoseResult result;
  result.times = py::array_t<double>(py::ssize_t(frames));
  std::copy(time_values.begin(), time_values.end(), result.times.mutable_data());
  if (animation != kNone) result.animation = animation;
  result.scene = prepared.scene;
  result.device = device;
  std::vector<PoseArrayView> views;
  for (const PoseArrayShape& shape : poseArrayShapes(prepared)) {
    PyPosedPrimitive p;
    p.node = shape.node;
    p.mesh = shape.mesh;
    p.primitive = shape.primitive;
    p.skinned = shape.skinned;
    const std::vector<py::ssize_t> dims{py::ssize_t(frames), py::ssize_t(shape.vertex_count), 3};
    p.positions = py::array_t<float>(dims);
    p.weights = py::array_t<float>(std::vector<py::ssize_t>{py::ssize_t(frames), py::ssize_t(shape.target_count)});
    PoseArrayView view;
    view.positions = std::span<float>(p.positions.mutable_data(), size_t(p.positions.size()));
    if (shape.target_count > 0) view.weights = std::span<float>(p.weights.mutable_data(), size_t(p.weights.size()));
    if (shape.has_normals && !positions_only) {
      py::array_t<float> normals(dims);
      view.normals = std::span<float>(normals.mutable_data(), size_t(normals.size()));
      p.normals = std::move(normals);
    } else {
      p.normals = py::none();
    }
    views.push_back(view);
    result.primitives.push_back(std::move(p));
  }
  if (frames == 0) return result;

  Status status = Ok{};
  {
    py::gil_scoped_release release;
    status = [&]() -> Status {
      if (device == "cpu") {
        ThreadPool pool(threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads);
        SamplingContext sampling;
        for (size_t i = 0; i < frames; ++i) {
          PoseOptions options;
          options.animation = animation;
          options.time = time_values[i];
          options.path = path == "fast" ? CpuPath::kFast : CpuPath::kReference;
          options.pool = &pool;
          options.sampling = &sampling;
          options.weights = inputs;
          options.positions_only = positions_only;
          Expected<PoseResult> frame = evaluatePose(prepared, options);
          if (!frame) return frame.error();
          if (Status s = copyPoseFrame(*frame, i, views); !s) return s;
        }
        return Ok{};
      }
      std::lock_guard lock(a->gpu_mutex);
      if (!a->gpu || a->gpu->scene != prepared.scene) {
        a->gpu.reset();
        auto state = std::make_unique<GpuState>();
        Expected<VulkanContext*> context = createVulkanContext();  // MORPHKIT_VALIDATION=1 turns the layer on
        if (!context) return context.error();
        state->context = *context;
        Expected<GpuPose*> gpu_pose = prepareGpuPose(*state->context, prepared);
        if (!gpu_pose) return gpu_pose.error();
        state->pose = *gpu_pose;
        state->scene = prepared.scene;
        a->gpu = std::move(state);
      }
      SamplingContext sampling;
      std::vector<GpuPoseOptions> requests(frames);
      for (size_t i = 0; i < frames; ++i) {
        requests[i].animation = animation;
        requests[i].time = time_values[i];
        requests[i].sampling = &sampling;
        requests[i].weights = inputs;
      }
      // Frames in flight (evaluateGpuPoseFrames): chunks of frames per submission, each copied into the arrays.
      if (Status s =
              evaluateGpuPoseFrames(*a->gpu->context, *a->gpu->pose, requests,
                                    [&](size_t i, PoseResult&& frame) { return copyPoseFrame(frame, i, views); });
          !s)
        return s;
      // As `morphkit --validation`: with the layer on, any message fails the call.
      const std::vector<std::string> messages = gpuValidationMessages(*a->gpu->context);
      if (!messages.empty()) {
        clearGpuValidationMessages(*a->gpu->context);
        return fail(Error::kVulkan, "the validation layer reported " + std::to_string(messages.size()) +
                                        " message(s); first: " + messages[0]);
      }
      return Ok{};
    }();
  }
  if (!status) raise(status.error(), a->path);
  return result;
}

PyPoseResult pose(const AssetPtr& a, const py::object& anim, const py::object& times_in, const py::object& weights,
                  bool ignore_case, const std::string& device, const std::string& path, const py::object& scene_in,
                  unsigned threads, bool positions_only) {
  checkDeviceAndPath(device, path, positions_only);
  const uint32_t animation = resolveAnimation(*a, anim);
  const uint32_t scene = resolveScene(scene_in);
  const std::vector<double> times = timesFrom(times_in);
  WeightInputs inputs;
  inputs.match = nameMatch(ignore_case);
  const std::vector<WeightOverride> overrides = weightOverrides(*a, weights, inputs.match);
  inputs.overrides = overrides;
  return poseFrames(a, animation, times, inputs, device, path, scene, threads, positions_only);
}

// A capture map from a dict ({column: target} or {column: {"target": t, "scale": s}}) or a JSON file's path.
std::optional<CaptureMap> captureMap(const PyAsset& a, const py::object& map) {
  if (map.is_none()) return std::nullopt;
  std::string text;
  std::string where = a.path;
  if (py::isinstance<py::dict>(map)) {
    text = py::module_::import("json").attr("dumps")(map).cast<std::string>();
  } else {
    where = py::module_::import("os").attr("fspath")(map).cast<std::string>();
    Expected<std::vector<uint8_t>> bytes = readFile(where, kMaxWeightsFileBytes);
    if (!bytes) raise(bytes.error(), where);
    text.assign(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  }
  return take(parseCaptureMapJson(text), where);
}

// A face capture (Live Link Face CSV) played on the asset: the CLI's --weights-csv, in Python.
PyPoseResult poseCsv(const AssetPtr& a, const py::object& csv_path, const py::object& times_in, double csv_fps,
                     const py::object& map, const py::object& anim, const py::object& weights, bool ignore_case,
                     const std::string& device, const std::string& path, const py::object& scene_in, unsigned threads,
                     bool positions_only) {
  checkDeviceAndPath(device, path, positions_only);
  const std::string csv_file = py::module_::import("os").attr("fspath")(csv_path).cast<std::string>();
  const uint32_t animation = resolveAnimation(*a, anim);
  const uint32_t scene = resolveScene(scene_in);
  const std::optional<CaptureMap> capture_map = captureMap(*a, map);
  Expected<std::vector<uint8_t>> bytes = readFile(csv_file, kMaxCaptureBytes);
  if (!bytes) raise(bytes.error(), csv_file);
  CaptureCsvOptions csv_options;
  csv_options.fps = csv_fps;
  const CaptureCsv capture =
      take(parseCaptureCsv(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), csv_options),
           csv_file);
  const CaptureMatch match = matchCapture(a->asset, capture, capture_map ? &*capture_map : nullptr);
  if (!match.unknown_map_targets.empty()) {
    raise(fail(Error::kInvalidArgument, "map: " + quote(match.unknown_map_targets.front()) + ": no such target"),
          a->path);
  }
  if (match.track.names.empty()) {
    raise(fail(Error::kInvalidArgument, "no column of " + quote(csv_file) + " matches a target name (map= names them)"),
          a->path);
  }
  // Default times: the capture's own rows.
  const std::vector<double> times =
      times_in.is_none() ? std::vector<double>(capture.times.begin(), capture.times.end()) : timesFrom(times_in);
  WeightInputs inputs;
  inputs.track = &match.track;
  inputs.match = nameMatch(ignore_case);
  const std::vector<WeightOverride> overrides = weightOverrides(*a, weights, inputs.match);
  inputs.overrides = overrides;
  return poseFrames(a, animation, times, inputs, device, path, scene, threads, positions_only);
}

// ---- Renderer ----

struct PyRenderer {
  VulkanContext* context = nullptr;
  RenderOptions options;
  std::string device_name;
  std::mutex mutex;  // one render at a time (one queue)
  AssetPtr asset;    // the asset `renderer` was made for (kept alive by it)
  Renderer* renderer = nullptr;
  uint32_t camera_animation = kNone - 1;  // the clip the camera frames (kNone - 1: not set yet)

  void close() {
    destroyRenderer(renderer);
    renderer = nullptr;
    asset.reset();
    destroyVulkanContext(context);
    context = nullptr;
  }
  ~PyRenderer() { close(); }
};

std::unique_ptr<PyRenderer> makeRenderer(int device, std::pair<uint32_t, uint32_t> size, const std::string& morph_path,
                                         bool shadows, bool prepass, bool validation) {
  auto r = std::make_unique<PyRenderer>();
  if (size.first == 0 || size.second == 0 || size.first > 8192 || size.second > 8192) {
    raise(fail(Error::kInvalidArgument, "size: expected (width, height) with 1..8192 each"));
  }
  std::optional<MorphPath> parsed = parseMorphPath(morph_path);
  if (!parsed) raise(fail(Error::kInvalidArgument, "morph_path: expected vertex, compute or auto"));
  r->options.width = size.first;
  r->options.height = size.second;
  r->options.morph_path = *parsed;
  r->options.shadows = shadows;
  r->options.depth_prepass = prepass;
  Expected<VulkanContext*> context = fail(Error::kNoDevice, "");
  {
    py::gil_scoped_release release;
    GpuContextOptions options;
    options.device_index = device;
    options.validation = validation;
    context = createVulkanContext(options);
  }
  r->context = take(std::move(context));
  r->device_name = gpuDeviceInfo(*r->context).name;
  return r;
}

// frames: None (the whole clip at fps, as `morphkit render`), or a sequence of frame indices at fps.
std::vector<uint32_t> resolveFrames(const Asset& asset, uint32_t animation, const py::object& frames, double fps) {
  std::vector<uint32_t> out;
  if (frames.is_none()) {
    const double clip = animation == kNone ? 0.0 : animationDuration(asset, animation);
    const uint32_t count = std::max<uint32_t>(1, uint32_t(std::floor(clip * fps + 1e-9)) + 1);
    for (uint32_t f = 0; f < count; ++f) out.push_back(f);
    return out;
  }
  for (py::handle item : frames) {
    const long long f = item.cast<long long>();
    if (f < 0 || f > 10000000) raise(fail(Error::kInvalidArgument, "frames: indices must be 0..10000000"));
    out.push_back(uint32_t(f));
  }
  return out;
}

py::array_t<uint8_t> render(PyRenderer& r, const AssetPtr& a, const py::object& anim, const py::object& frames_in,
                            double fps) {
  if (!r.context) raise(fail(Error::kInvalidArgument, "Renderer: closed"));
  if (!(fps > 0.0 && fps <= 1000.0)) raise(fail(Error::kInvalidArgument, "fps: expected 0 < fps <= 1000"));
  const uint32_t animation = resolveAnimation(*a, anim);
  const std::vector<uint32_t> frames = resolveFrames(a->asset, animation, frames_in, fps);
  py::array_t<uint8_t> pixels(std::vector<py::ssize_t>{py::ssize_t(frames.size()), py::ssize_t(r.options.height),
                                                       py::ssize_t(r.options.width), 4});
  uint8_t* out = pixels.mutable_data();
  const size_t frame_bytes = size_t(r.options.width) * r.options.height * 4;
  Status status = Ok{};
  {
    py::gil_scoped_release release;
    std::lock_guard lock(r.mutex);
    status = [&]() -> Status {
      if (r.asset != a) {  // a renderer is made for one asset; keep it while the same asset comes back
        destroyRenderer(r.renderer);
        r.renderer = nullptr;
        r.asset = a;
        r.camera_animation = kNone - 1;
        Expected<Renderer*> created = createRenderer(*r.context, a->asset, r.options);
        if (!created) {
          r.asset.reset();
          return created.error();
        }
        r.renderer = *created;
      }
      if (r.camera_animation != animation) {  // the auto camera of `morphkit render`: the whole clip
        Expected<Bounds> bounds = clipBounds(a->asset, r.options.scene, animation);
        if (!bounds) return bounds.error();
        setRendererCamera(*r.renderer, frameBounds(*bounds, float(r.options.width) / float(r.options.height)), *bounds);
        r.camera_animation = animation;
      }
      for (size_t i = 0; i < frames.size(); ++i) {
        RenderFrameInput input;
        input.animation = animation;
        input.time = frames[i] / fps;
        Expected<RenderedImage> image = renderFrame(*r.renderer, input);
        if (!image) return image.error();
        if (image->rgba.size() != frame_bytes) return fail(Error::kVulkan, "renderFrame: unexpected image size");
        std::memcpy(out + i * frame_bytes, image->rgba.data(), frame_bytes);
      }
      return Ok{};
    }();
  }
  if (!status) raise(status.error(), a->path);
  return pixels;
}

}  // namespace
}  // namespace morphkit::python

PYBIND11_MODULE(_morphkit, m) {
  using namespace morphkit;
  using namespace morphkit::python;
  m.doc() = "morphkit: glTF 2.0 morph targets and skinning on the CPU and the GPU (Vulkan), as NumPy arrays.";
  m.attr("__version__") = MORPHKIT_VERSION_STRING;  // project(VERSION), the one place the version lives

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const FailureException& e) {
      py::object cls = py::module_::import("morphkit._errors").attr("error_class")(errorName(e.failure.code));
      PyErr_SetString(cls.ptr(), e.failure.message.c_str());
    }
  });

  py::class_<AnimationInfo>(m, "AnimationInfo",
                            "One animation of an asset: its index, name (may be empty) and duration in seconds.")
      .def_readonly("index", &AnimationInfo::index)
      .def_readonly("name", &AnimationInfo::name)
      .def_readonly("duration", &AnimationInfo::duration)
      .def("__repr__", [](const AnimationInfo& a) {
        return "AnimationInfo(index=" + std::to_string(a.index) + ", name='" + a.name +
               "', duration=" + std::to_string(a.duration) + ")";
      });

  py::class_<PyPosedPrimitive>(m, "PosedPrimitive", "One posed (node, mesh, primitive) over every frame, world space.")
      .def_readonly("node", &PyPosedPrimitive::node)
      .def_readonly("mesh", &PyPosedPrimitive::mesh)
      .def_readonly("primitive", &PyPosedPrimitive::primitive)
      .def_readonly("skinned", &PyPosedPrimitive::skinned)
      .def_readonly("positions", &PyPosedPrimitive::positions, "float32 (frames, vertices, 3)")
      .def_readonly("normals", &PyPosedPrimitive::normals, "float32 (frames, vertices, 3), or None without NORMAL")
      .def_readonly("weights", &PyPosedPrimitive::weights, "float32 (frames, targets): the morph weights used")
      .def_property_readonly("name",
                             [](const PyPosedPrimitive& p) { return posedPrimitiveName(p.node, p.mesh, p.primitive); })
      .def("__repr__", [](const PyPosedPrimitive& p) {
        return "PosedPrimitive(node=" + std::to_string(p.node) + ", mesh=" + std::to_string(p.mesh) +
               ", primitive=" + std::to_string(p.primitive) + ", frames=" + std::to_string(p.positions.shape(0)) +
               ", vertices=" + std::to_string(p.positions.shape(1)) + ")";
      });

  py::class_<PyPoseResult>(m, "PoseResult", "Posed vertices of every (node, primitive) of a scene at several times.")
      .def_readonly("times", &PyPoseResult::times, "float64 (frames,): seconds")
      .def_readonly("animation", &PyPoseResult::animation, "the animation index, or None for the rest pose")
      .def_readonly("scene", &PyPoseResult::scene)
      .def_readonly("device", &PyPoseResult::device)
      .def_readonly("primitives", &PyPoseResult::primitives, "sorted by node, mesh, primitive")
      .def("__len__", [](const PyPoseResult& r) { return r.primitives.size(); })
      .def("__getitem__", [](const PyPoseResult& r, size_t i) {
        if (i >= r.primitives.size()) throw py::index_error();
        return r.primitives[i];
      });

  py::class_<PyAsset, AssetPtr>(m, "Asset", "A loaded, validated glTF 2.0 asset. Made by morphkit.load().")
      .def_readonly("path", &PyAsset::path)
      .def(
          "info",
          [](const PyAsset& a) { return py::module_::import("json").attr("loads")(inspectJson(a.asset, a.path)); },
          "The data of `morphkit inspect --json` as a dict (schema in docs/CLI.md).")
      .def_property_readonly(
          "target_names", [](const PyAsset& a) { return targetNameList(a.asset); },
          "Distinct morph target names (mesh.extras.targetNames), in mesh then target order.")
      .def_property_readonly(
          "animations",
          [](const PyAsset& a) {
            std::vector<AnimationInfo> out;
            for (uint32_t i = 0; i < a.asset.animations.size(); ++i)
              out.push_back({i, a.asset.animations[i].name, animationDuration(a.asset, i)});
            return out;
          },
          "The asset's animations in file order.")
      .def("pose", &pose, py::arg("anim") = py::none(), py::arg("times") = std::vector<double>{0.0},
           py::arg("weights") = py::none(), py::arg("ignore_case") = false, py::arg("device") = "cpu",
           py::arg("path") = "fast", py::arg("scene") = py::none(), py::arg("threads") = 1u,
           py::arg("positions_only") = false,
           "Morph, then skin, every (node, primitive) of a scene at each time. See morphkit/_morphkit.pyi.")
      .def("pose_csv", &poseCsv, py::arg("capture"), py::kw_only(), py::arg("times") = py::none(),
           py::arg("csv_fps") = 60.0, py::arg("map") = py::none(), py::arg("anim") = py::none(),
           py::arg("weights") = py::none(), py::arg("ignore_case") = false, py::arg("device") = "cpu",
           py::arg("path") = "fast", py::arg("scene") = py::none(), py::arg("threads") = 1u,
           py::arg("positions_only") = false,
           "Play a face capture (Live Link Face CSV) on the asset: weights by column name at each time (default: the "
           "capture's rows). See morphkit/_morphkit.pyi.")
      .def("__repr__", [](const PyAsset& a) { return "<morphkit.Asset '" + a.path + "'>"; });

  m.def("load", &load, py::arg("path"), py::kw_only(), py::arg("allow_external_paths") = false,
        py::arg("read_files") = false,
        "Load and validate a .gltf or .glb file (mapped; read_files=True reads it into memory instead, the CLI's "
        "--read-files). Raises a morphkit.Error subclass on bad input.");

  py::class_<PyRenderer>(m, "Renderer", "A headless Vulkan renderer of one size on one device.")
      .def(py::init(&makeRenderer), py::arg("device") = -1, py::arg("size") = std::pair<uint32_t, uint32_t>{256, 256},
           py::kw_only(), py::arg("morph_path") = "auto", py::arg("shadows") = true, py::arg("prepass") = true,
           py::arg("validation") = false)
      .def_property_readonly("device_name", [](const PyRenderer& r) { return r.device_name; })
      .def_property_readonly("size",
                             [](const PyRenderer& r) {
                               return std::pair<uint32_t, uint32_t>{r.options.width, r.options.height};
                             })
      .def("render", &render, py::arg("asset"), py::arg("anim") = py::none(), py::arg("frames") = py::none(),
           py::arg("fps") = 30.0,
           "Render frames (indices at fps; default the whole clip) to uint8 RGBA (frames, height, width, 4), sRGB, top "
           "row first.")
      .def("validation_messages",
           [](const PyRenderer& r) {
             return r.context ? gpuValidationMessages(*r.context) : std::vector<std::string>();
           })
      .def("close",
           [](PyRenderer& r) {
             py::gil_scoped_release release;
             std::lock_guard lock(r.mutex);
             r.close();
           })
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyRenderer& r, py::args) {
        std::lock_guard lock(r.mutex);
        r.close();
      });

  addBatchBindings(m);
}
