// SPDX-License-Identifier: MIT
// capture_bindings.cpp — morphkit.load_capture: a face capture of any format as NumPy arrays (times, weights),
// its channel names and its report (morphkit/gltf/capture_file.h, morphkit/io/capture_signal.h).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "morphkit/gltf/capture_file.h"
#include "morphkit/gltf/weight_files.h"
#include "morphkit/io/capture_signal.h"
#include "morphkit/model/files.h"
#include "morphkit_pyi_docs.h"
#include "python_module.h"

namespace py = pybind11;

namespace morphkit::python {
namespace {

py::tuple loadCaptureFile(const py::object& path_in, const std::string& format, double csv_fps, double capture_fps,
                          uint32_t face, const py::object& scale) {
  const std::string path = py::module_::import("os").attr("fspath")(path_in).cast<std::string>();
  CaptureOptions options;
  if (!parseCaptureFormatName(format, options.format)) {
    raise(fail(Error::kInvalidArgument,
               "format: " + format + " is not one of auto, livelink, csv, mediapipe, a2f, ifacialmocap"));
  }
  if (!(csv_fps > 0.0) || !std::isfinite(csv_fps)) raise(fail(Error::kInvalidArgument, "csv_fps: must be > 0"));
  if (!(capture_fps >= 0.0) || !std::isfinite(capture_fps))
    raise(fail(Error::kInvalidArgument, "capture_fps: must be >= 0"));
  options.timecode_fps = csv_fps;
  options.fps = capture_fps;
  options.face = face;
  float full_scale = 0.0f;
  if (!scale.is_none()) {
    full_scale = scale.cast<float>();
    if (!(full_scale > 0.0f) || !std::isfinite(full_scale)) raise(fail(Error::kInvalidArgument, "scale: must be > 0"));
  }
  Capture capture;
  float detected = 1.0f, largest = 0.0f;
  {
    py::gil_scoped_release release;
    Expected<std::vector<uint8_t>> bytes = readFile(path, kMaxCaptureBytes);
    if (!bytes) {
      py::gil_scoped_acquire acquire;
      raise(bytes.error(), path);
    }
    Expected<Capture> parsed =
        parseCapture(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), options);
    if (!parsed) {
      py::gil_scoped_acquire acquire;
      raise(parsed.error(), path);
    }
    capture = std::move(*parsed);
    detected = detectCaptureScale(capture, &largest);
    if (full_scale == 0.0f) full_scale = detected;
    if (full_scale != 1.0f) scaleCapture(capture, full_scale);
  }
  const size_t rows = capture.rows(), columns = capture.columns.size();
  py::array_t<double> times{py::ssize_t(rows)};
  std::transform(capture.times.begin(), capture.times.end(), times.mutable_data(), [](float t) { return double(t); });
  py::array_t<float> weights(std::vector<py::ssize_t>{py::ssize_t(rows), py::ssize_t(columns)});
  std::memcpy(weights.mutable_data(), capture.values.data(), capture.values.size() * sizeof(float));
  py::dict report;
  report["format"] = std::string(captureFormatName(capture.format));
  report["rows"] = rows;
  report["channels"] = columns;
  report["duration"] = double(capture.times.back());
  report["scale"] = full_scale;
  report["largest_value"] = largest;
  report["skipped_frames"] = capture.skipped_frames;
  report["first_timecode"] = capture.first_timecode;
  return py::make_tuple(times, weights, capture.columns, report);
}

}  // namespace

void addCaptureBindings(py::module_& m) {
  m.def("load_capture", &loadCaptureFile, py::arg("path"), py::arg("format") = "auto", py::kw_only(),
        py::arg("csv_fps") = 60.0, py::arg("capture_fps") = 0.0, py::arg("face") = 0u, py::arg("scale") = py::none(),
        pyi::kload_capture);
}

}  // namespace morphkit::python
