// SPDX-License-Identifier: MIT
// render_bindings.cpp — morphkit.Renderer: headless frames of an asset as one uint8 array, with the camera,
// frame count, weights and capture rules of `morphkit render` (docs/PYTHON.md).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "morphkit/core/animation.h"
#include "morphkit/model/files.h"
#include "morphkit/render/environment.h"
#include "morphkit/render/render.h"
#include "morphkit/vk/gpu.h"
#include "morphkit_pyi_docs.h"
#include "python_module.h"

namespace py = pybind11;

namespace morphkit::python {
namespace {

struct PyRenderer {
  VulkanContext* context = nullptr;
  RenderOptions options;
  std::string device_name;
  std::mutex mutex;  // one render at a time (one queue)
  AssetPtr asset;    // the asset `renderer` was made for (kept alive by it)
  Renderer* renderer = nullptr;
  EnvironmentMaps* environment = nullptr;  // made once, shared by the renderer of every asset
  uint32_t camera_animation = kNone - 1;   // the clip the camera frames (kNone - 1: not set, or set for weights)

  void close() {
    destroyRenderer(renderer);
    renderer = nullptr;
    destroyEnvironmentMaps(environment);
    environment = nullptr;
    asset.reset();
    destroyVulkanContext(context);
    context = nullptr;
  }
  ~PyRenderer() { close(); }
};

// The look keywords, checked as the CLI checks its options (the same parse functions and ranges).
struct LookArgs {
  std::string environment, tone_mapping, light, background;
  double environment_intensity = 1.0, environment_rotation = 0.0, exposure = 0.0;
};

void readLook(const LookArgs& look, RenderOptions& o, HdrImage& image) {
  if (look.environment == "studio") {
    o.environment = EnvironmentKind::kStudio;
  } else if (look.environment == "none") {
    o.environment = EnvironmentKind::kOff;
  } else {
    Expected<std::vector<uint8_t>> bytes = readFile(look.environment, kMaxEnvironmentFileBytes + 1);
    if (!bytes) raise(bytes.error(), look.environment);
    Expected<HdrImage> decoded = decodeRadianceHdr(*bytes);
    if (!decoded) raise(decoded.error(), look.environment);
    image = std::move(*decoded);
    o.environment = EnvironmentKind::kImage;
  }
  if (!(look.environment_intensity >= 0.0 && look.environment_intensity <= 1e4))
    raise(fail(Error::kInvalidArgument, "environment_intensity: expected 0..10000"));
  if (!std::isfinite(look.environment_rotation))
    raise(fail(Error::kInvalidArgument, "environment_rotation: expected a finite angle in degrees"));
  o.environment_intensity = float(look.environment_intensity);
  o.environment_rotation_deg = float(std::fmod(look.environment_rotation, 360.0));
  std::optional<ToneMapping> tone = parseToneMapping(look.tone_mapping);
  if (!tone) raise(fail(Error::kInvalidArgument, "tone_mapping: expected neutral, aces or none"));
  o.tone_mapping = *tone;
  if (!(std::fabs(look.exposure) <= 32.0)) raise(fail(Error::kInvalidArgument, "exposure: expected -32..32 (EV)"));
  o.exposure_ev = float(look.exposure);
  if (look.light != "default" && look.light != "none")
    raise(fail(Error::kInvalidArgument, "light: expected default or none"));
  o.key_light = look.light == "default";
  if (look.background == "transparent") {
    std::fill(std::begin(o.background), std::end(o.background), 0.0f);
  } else if (look.background == "environment") {
    o.background_environment = true;
  } else if (look.background != "opaque" && !parseBackgroundColor(look.background, o.background)) {
    raise(fail(Error::kInvalidArgument,
               "background: expected opaque, transparent, environment or 'R,G,B' (sRGB, 0..255 each)"));
  }
}

std::unique_ptr<PyRenderer> makeRenderer(int device, std::pair<uint32_t, uint32_t> size, const std::string& morph_path,
                                         bool shadows, bool prepass, bool validation, const std::string& environment,
                                         double environment_intensity, double environment_rotation,
                                         const std::string& tone_mapping, double exposure, const std::string& light,
                                         const std::string& background, uint32_t msaa) {
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
  if (msaa != 1 && msaa != 4 && msaa != 8) raise(fail(Error::kInvalidArgument, "msaa: expected 1, 4 or 8"));
  r->options.msaa = msaa;
  HdrImage image;
  readLook(
      LookArgs{environment, tone_mapping, light, background, environment_intensity, environment_rotation, exposure},
      r->options, image);
  Expected<VulkanContext*> context = fail(Error::kNoDevice, "");
  Expected<EnvironmentMaps*> maps = fail(Error::kNoDevice, "");
  {
    py::gil_scoped_release release;
    GpuContextOptions options;
    options.device_index = device;
    options.validation = validation;
    context = createVulkanContext(options);
    if (context) {
      HdrImage studio;
      if (r->options.environment == EnvironmentKind::kStudio) studio = studioEnvironment();
      const HdrImage* source = r->options.environment == EnvironmentKind::kStudio  ? &studio
                               : r->options.environment == EnvironmentKind::kImage ? &image
                                                                                   : nullptr;
      maps = createEnvironmentMaps(**context, source);
    }
  }
  r->context = take(std::move(context));
  r->environment = take(std::move(maps));
  r->options.environment_maps = r->environment;
  r->options.environment_image = nullptr;
  r->device_name = gpuDeviceInfo(*r->context).name;
  return r;
}

// frames: None (the whole clip at fps, as `morphkit render`: the animation or the capture, whichever is longer),
// or a sequence of frame indices at fps.
std::vector<uint32_t> resolveFrames(double clip, bool plays, const py::object& frames, double fps) {
  std::vector<uint32_t> out;
  if (frames.is_none()) {
    const uint32_t count = plays ? std::max<uint32_t>(1, uint32_t(std::floor(clip * fps + 1e-9)) + 1) : 1;
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

// The renderer for `a` (made on first use, kept while the same asset comes back) and its auto camera, framing
// the whole clip with these weights, as `morphkit render` does.
Status prepareRenderer(PyRenderer& r, const AssetPtr& a, uint32_t animation, const WeightInputs& weights) {
  if (r.asset != a) {
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
  const bool weighted = weights.track || !weights.overrides.empty();
  if (r.camera_animation != animation || weighted) {
    Expected<Bounds> bounds = clipBounds(a->asset, r.options.scene, animation, weights);
    if (!bounds) return bounds.error();
    setRendererCamera(*r.renderer, frameBounds(*bounds, float(r.options.width) / float(r.options.height)), *bounds);
    r.camera_animation = weighted ? kNone - 1 : animation;
  }
  return Ok{};
}

py::array_t<uint8_t> render(PyRenderer& r, const AssetPtr& a, const py::object& anim, const py::object& frames_in,
                            double fps, const py::object& weights, const py::object& capture, double csv_fps,
                            const py::object& map, bool ignore_case) {
  if (!r.context) raise(fail(Error::kInvalidArgument, "Renderer: closed"));
  if (!(fps > 0.0 && fps <= 1000.0)) raise(fail(Error::kInvalidArgument, "fps: expected 0 < fps <= 1000"));
  const uint32_t animation = resolveAnimation(*a, anim);
  WeightInputs inputs;
  inputs.match = ignore_case ? NameMatch::kCaseInsensitive : NameMatch::kExact;
  const std::vector<WeightOverride> overrides = weightOverrides(*a, weights, inputs.match);
  inputs.overrides = overrides;
  const std::unique_ptr<LoadedCapture> loaded = capture.is_none() ? nullptr : loadCapture(*a, capture, csv_fps, map);
  if (loaded) inputs.track = &loaded->match.track;
  const double clip = std::max(animation == kNone ? 0.0 : animationDuration(a->asset, animation),
                               loaded ? weightTrackDuration(loaded->match.track) : 0.0);
  const std::vector<uint32_t> frames = resolveFrames(clip, animation != kNone || loaded, frames_in, fps);
  py::array_t<uint8_t> pixels(std::vector<py::ssize_t>{py::ssize_t(frames.size()), py::ssize_t(r.options.height),
                                                       py::ssize_t(r.options.width), 4});
  uint8_t* out = pixels.mutable_data();
  const size_t frame_bytes = size_t(r.options.width) * r.options.height * 4;
  Status status = Ok{};
  {
    py::gil_scoped_release release;
    std::lock_guard lock(r.mutex);
    status = [&]() -> Status {
      if (Status s = prepareRenderer(r, a, animation, inputs); !s) return s;
      return renderFrameSequence(
          *r.renderer, uint32_t(frames.size()),
          [&](uint32_t i) {
            RenderFrameInput input;
            input.animation = animation;
            input.time = frames[i] / fps;
            input.weights = inputs;
            return input;
          },
          [&](uint32_t i, RenderedImage&& image, const RenderStats&) -> Status {
            if (image.rgba.size() != frame_bytes) return fail(Error::kVulkan, "renderFrame: unexpected image size");
            std::memcpy(out + size_t(i) * frame_bytes, image.rgba.data(), frame_bytes);
            return Ok{};
          });
    }();
  }
  if (!status) raise(status.error(), a->path);
  return pixels;
}

}  // namespace

void addRenderBindings(py::module_& m) {
  py::class_<PyRenderer>(m, "Renderer", pyi::kRenderer)
      .def(py::init(&makeRenderer), py::arg("device") = -1, py::arg("size") = std::pair<uint32_t, uint32_t>{256, 256},
           py::kw_only(), py::arg("morph_path") = "auto", py::arg("shadows") = true, py::arg("prepass") = true,
           py::arg("validation") = false, py::arg("environment") = "studio", py::arg("environment_intensity") = 1.0,
           py::arg("environment_rotation") = 0.0, py::arg("tone_mapping") = "neutral", py::arg("exposure") = 0.0,
           py::arg("light") = "default", py::arg("background") = "opaque", py::arg("msaa") = 4u, pyi::kRenderer_init)
      .def_property_readonly("device_name", [](const PyRenderer& r) { return r.device_name; })
      .def_property_readonly("size",
                             [](const PyRenderer& r) {
                               return std::pair<uint32_t, uint32_t>{r.options.width, r.options.height};
                             })
      .def("render", &render, py::arg("asset"), py::arg("anim") = py::none(), py::arg("frames") = py::none(),
           py::arg("fps") = 30.0, py::kw_only(), py::arg("weights") = py::none(), py::arg("capture") = py::none(),
           py::arg("csv_fps") = 60.0, py::arg("map") = py::none(), py::arg("ignore_case") = false,
           pyi::kRenderer_render)
      .def(
          "validation_messages",
          [](const PyRenderer& r) {
            return r.context ? gpuValidationMessages(*r.context) : std::vector<std::string>();
          },
          pyi::kRenderer_validation_messages)
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
}

}  // namespace morphkit::python
