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

#include "morphkit/core/animation.h"
#include "morphkit/core/pose.h"
#include "morphkit/core/pose_arrays.h"
#include "morphkit/core/weights.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/capture.h"
#include "morphkit/io/inspect.h"
#include "morphkit/io/weight_files.h"
#include "morphkit/model/files.h"
#include "morphkit/model/names.h"
#include "morphkit/model/text.h"
#include "morphkit/render/render.h"
#include "morphkit/version.h"
#include "morphkit/vk/gpu.h"
#include "morphkit/vk/gpu_pose.h"
#include "morphkit_pyi_docs.h"
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

// scene: None (the file's scene), an index or a name, by the CLI's --scene rules (findSceneNamed).
uint32_t resolveScene(const PyAsset& a, const py::object& scene) {
  if (scene.is_none()) return kNone;
  if (py::isinstance<py::str>(scene)) return take(findSceneNamed(a.asset, scene.cast<std::string>(), "scene"), a.path);
  if (py::isinstance<py::bool_>(scene) || !py::isinstance<py::int_>(scene))
    raise(fail(Error::kInvalidArgument, "scene: expected None, an index or a name"), a.path);
  const long long s = scene.cast<long long>();
  if (s < 0) raise(fail(Error::kInvalidArgument, "scene: expected None, an index >= 0 or a name"), a.path);
  return take(findSceneNamed(a.asset, std::to_string(s), "scene"), a.path);
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

void checkGpuMemory(uint64_t gpu_memory_mb) {
  if (gpu_memory_mb == 0 || gpu_memory_mb > (uint64_t(1) << 20))
    raise(fail(Error::kInvalidArgument, "gpu_memory_mb: expected 1..1048576 (MB of posed vertices in flight)"));
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
                        unsigned threads, bool positions_only, uint64_t gpu_memory_mb) {
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
      // Frames in flight (evaluateGpuPoseFrames): chunks of frames per submission, each copied into the arrays;
      // gpu_memory_mb bounds them (the CLI's --gpu-memory-mb).
      GpuPoseStreamOptions stream;
      stream.memory_budget = gpu_memory_mb << 20;
      if (const uint64_t frame_bytes = gpuPoseFrameBytes(*a->gpu->pose); stream.memory_budget < frame_bytes) {
        return fail(Error::kInvalidArgument, "gpu_memory_mb " + std::to_string(gpu_memory_mb) +
                                                 ": below one frame's output; one frame of this pose needs " +
                                                 std::to_string(frame_bytes) + " bytes");
      }
      // The host's share (frame steps, unpacking, the copy into each frame's slot) on `threads` threads.
      ThreadPool pool(threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads);
      stream.pool = &pool;
      stream.concurrent_sink = true;
      if (Status s = evaluateGpuPoseFrameViews(
              *a->gpu->context, *a->gpu->pose, requests,
              [&](size_t i, std::span<const GpuPosedInstance> frame) { return copyGpuPoseFrame(frame, i, views); },
              stream);
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
                  unsigned threads, bool positions_only, uint64_t gpu_memory_mb) {
  checkDeviceAndPath(device, path, positions_only);
  checkGpuMemory(gpu_memory_mb);
  const uint32_t animation = resolveAnimation(*a, anim);
  const uint32_t scene = resolveScene(*a, scene_in);
  const std::vector<double> times = timesFrom(times_in);
  WeightInputs inputs;
  inputs.match = nameMatch(ignore_case);
  const std::vector<WeightOverride> overrides = weightOverrides(*a, weights, inputs.match);
  inputs.overrides = overrides;
  return poseFrames(a, animation, times, inputs, device, path, scene, threads, positions_only, gpu_memory_mb);
}

// A face capture (Live Link Face CSV) played on the asset: the CLI's --weights-csv, in Python.
PyPoseResult poseCsv(const AssetPtr& a, const py::object& csv_path, const py::object& times_in, double csv_fps,
                     const py::object& map, const py::object& anim, const py::object& weights, bool ignore_case,
                     const std::string& device, const std::string& path, const py::object& scene_in, unsigned threads,
                     bool positions_only, uint64_t gpu_memory_mb) {
  checkDeviceAndPath(device, path, positions_only);
  checkGpuMemory(gpu_memory_mb);
  const uint32_t animation = resolveAnimation(*a, anim);
  const uint32_t scene = resolveScene(*a, scene_in);
  const std::unique_ptr<LoadedCapture> capture = loadCapture(*a, csv_path, csv_fps, map);
  // Default times: the capture's own rows.
  const std::vector<double> times = times_in.is_none()
                                        ? std::vector<double>(capture->csv.times.begin(), capture->csv.times.end())
                                        : timesFrom(times_in);
  WeightInputs inputs;
  inputs.track = &capture->match.track;
  inputs.match = nameMatch(ignore_case);
  const std::vector<WeightOverride> overrides = weightOverrides(*a, weights, inputs.match);
  inputs.overrides = overrides;
  return poseFrames(a, animation, times, inputs, device, path, scene, threads, positions_only, gpu_memory_mb);
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

  py::class_<AnimationInfo>(m, "AnimationInfo", pyi::kAnimationInfo)
      .def_readonly("index", &AnimationInfo::index)
      .def_readonly("name", &AnimationInfo::name)
      .def_readonly("duration", &AnimationInfo::duration, pyi::kAnimationInfo_duration)
      .def("__repr__", [](const AnimationInfo& a) {
        return "AnimationInfo(index=" + std::to_string(a.index) + ", name='" + a.name +
               "', duration=" + std::to_string(a.duration) + ")";
      });

  py::class_<PyPosedPrimitive>(m, "PosedPrimitive", pyi::kPosedPrimitive)
      .def_readonly("node", &PyPosedPrimitive::node)
      .def_readonly("mesh", &PyPosedPrimitive::mesh)
      .def_readonly("primitive", &PyPosedPrimitive::primitive)
      .def_readonly("skinned", &PyPosedPrimitive::skinned)
      .def_readonly("positions", &PyPosedPrimitive::positions, pyi::kPosedPrimitive_positions)
      .def_readonly("normals", &PyPosedPrimitive::normals, pyi::kPosedPrimitive_normals)
      .def_readonly("weights", &PyPosedPrimitive::weights, pyi::kPosedPrimitive_weights)
      .def_property_readonly(
          "name", [](const PyPosedPrimitive& p) { return posedPrimitiveName(p.node, p.mesh, p.primitive); },
          pyi::kPosedPrimitive_name)
      .def("__repr__", [](const PyPosedPrimitive& p) {
        return "PosedPrimitive(node=" + std::to_string(p.node) + ", mesh=" + std::to_string(p.mesh) +
               ", primitive=" + std::to_string(p.primitive) + ", frames=" + std::to_string(p.positions.shape(0)) +
               ", vertices=" + std::to_string(p.positions.shape(1)) + ")";
      });

  py::class_<PyPoseResult>(m, "PoseResult", pyi::kPoseResult)
      .def_readonly("times", &PyPoseResult::times, pyi::kPoseResult_times)
      .def_readonly("animation", &PyPoseResult::animation, pyi::kPoseResult_animation)
      .def_readonly("scene", &PyPoseResult::scene)
      .def_readonly("device", &PyPoseResult::device)
      .def_readonly("primitives", &PyPoseResult::primitives, pyi::kPoseResult_primitives)
      .def("__len__", [](const PyPoseResult& r) { return r.primitives.size(); })
      .def("__getitem__", [](const PyPoseResult& r, size_t i) {
        if (i >= r.primitives.size()) throw py::index_error();
        return r.primitives[i];
      });

  py::class_<PyAsset, AssetPtr>(m, "Asset", pyi::kAsset)
      .def_readonly("path", &PyAsset::path)
      .def(
          "info",
          [](const PyAsset& a) { return py::module_::import("json").attr("loads")(inspectJson(a.asset, a.path)); },
          pyi::kAsset_info)
      .def_property_readonly(
          "target_names", [](const PyAsset& a) { return targetNameList(a.asset); }, pyi::kAsset_target_names)
      .def_property_readonly(
          "animations",
          [](const PyAsset& a) {
            std::vector<AnimationInfo> out;
            for (uint32_t i = 0; i < a.asset.animations.size(); ++i)
              out.push_back({i, a.asset.animations[i].name, animationDuration(a.asset, i)});
            return out;
          },
          pyi::kAsset_animations)
      .def("pose", &pose, py::arg("anim") = py::none(), py::arg("times") = std::vector<double>{0.0},
           py::arg("weights") = py::none(), py::arg("ignore_case") = false, py::arg("device") = "cpu",
           py::arg("path") = "fast", py::arg("scene") = py::none(), py::arg("threads") = 1u,
           py::arg("positions_only") = false, py::arg("gpu_memory_mb") = 256, pyi::kAsset_pose)
      .def("pose_csv", &poseCsv, py::arg("capture"), py::kw_only(), py::arg("times") = py::none(),
           py::arg("csv_fps") = 60.0, py::arg("map") = py::none(), py::arg("anim") = py::none(),
           py::arg("weights") = py::none(), py::arg("ignore_case") = false, py::arg("device") = "cpu",
           py::arg("path") = "fast", py::arg("scene") = py::none(), py::arg("threads") = 1u,
           py::arg("positions_only") = false, py::arg("gpu_memory_mb") = 256, pyi::kAsset_pose_csv)
      .def("__repr__", [](const PyAsset& a) { return "<morphkit.Asset '" + a.path + "'>"; });

  m.def("load", &load, py::arg("path"), py::kw_only(), py::arg("allow_external_paths") = false,
        py::arg("read_files") = false, pyi::kload);

  addRenderBindings(m);
  addCaptureBindings(m);
  addBatchBindings(m);
  addCheckBindings(m);
  addOptimizeBindings(m);
}
