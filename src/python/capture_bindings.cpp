// SPDX-License-Identifier: MIT
// capture_bindings.cpp — morphkit.load_capture: a face capture of any format as NumPy arrays (times, weights),
// cleaned like the CLI's --capture (io's cleanCapture), its channel names and its report (morphkit/io/capture_file.h,
// morphkit/io/capture_signal.h).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

#include "morphkit/io/capture_file.h"
#include "morphkit/io/capture_signal.h"
#include "morphkit/model/text.h"
#include "morphkit_pyi_docs.h"
#include "python_module.h"

namespace py = pybind11;

namespace morphkit::python {
namespace {

// neutral=: seconds from the start (a number) or a capture file of the neutral face (a path).
void readNeutral(const py::object& neutral, const CaptureOptions& options, CaptureCleanup& cleanup, Capture& face) {
  if (neutral.is_none()) return;
  if (py::isinstance<py::float_>(neutral) || py::isinstance<py::int_>(neutral)) {
    cleanup.neutral_seconds = neutral.cast<double>();
    if (!(cleanup.neutral_seconds >= 0.0) || !std::isfinite(cleanup.neutral_seconds)) {
      raise(fail(Error::kInvalidArgument, "neutral: seconds must be a finite number >= 0"));
    }
    return;
  }
  const std::string path = py::module_::import("os").attr("fspath")(neutral).cast<std::string>();
  Expected<Capture> parsed = readCaptureFile(path, options);
  if (!parsed) raise(parsed.error(), path);
  face = std::move(*parsed);
  cleanup.neutral_face = &face;
  cleanup.neutral_name = path;
}

py::tuple loadCaptureFile(const py::object& path_in, const std::string& format, double csv_fps, double capture_fps,
                          uint32_t face, const py::object& scale, const py::object& neutral,
                          const std::optional<std::string>& smooth, double offset, double fps) {
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
  CaptureCleanup cleanup;
  if (!scale.is_none()) {
    cleanup.scale = scale.cast<float>();
    if (!(cleanup.scale > 0.0f) || !std::isfinite(cleanup.scale)) {
      raise(fail(Error::kInvalidArgument, "scale: must be > 0"));
    }
  }
  if (smooth) {
    OneEuroParams params;
    if (!parseOneEuro(*smooth, params)) {
      raise(fail(Error::kInvalidArgument,
                 "smooth: expected one-euro or one-euro:MINCUTOFF,BETA (MINCUTOFF > 0, "
                 "BETA >= 0), got " +
                     quote(*smooth)));
    }
    cleanup.smooth = params;
  }
  cleanup.offset_seconds = offset;  // offset and fps are checked by cleanCapture
  cleanup.resample_fps = fps;
  Capture neutral_face;
  readNeutral(neutral, options, cleanup, neutral_face);
  Capture capture;
  CaptureCleanupReport cleaned;
  size_t rows_read = 0;
  double duration_read = 0.0;
  {
    py::gil_scoped_release release;
    Expected<Capture> parsed = readCaptureFile(path, options);
    if (!parsed) {
      py::gil_scoped_acquire acquire;
      raise(parsed.error(), path);
    }
    capture = std::move(*parsed);
    rows_read = capture.rows();
    duration_read = double(capture.times.back());
    Expected<CaptureCleanupReport> report = cleanCapture(capture, cleanup);
    if (!report) {
      py::gil_scoped_acquire acquire;
      raise(report.error(), path);
    }
    cleaned = std::move(*report);
  }
  const size_t rows = capture.rows(), columns = capture.columns.size();
  py::array_t<double> times{py::ssize_t(rows)};
  std::transform(capture.times.begin(), capture.times.end(), times.mutable_data(), [](float t) { return double(t); });
  py::array_t<float> weights(std::vector<py::ssize_t>{py::ssize_t(rows), py::ssize_t(columns)});
  std::memcpy(weights.mutable_data(), capture.values.data(), capture.values.size() * sizeof(float));
  py::dict report;
  report["format"] = std::string(captureFormatName(capture.format));
  report["rows"] = rows_read;
  report["channels"] = columns;
  report["duration"] = duration_read;
  report["scale"] = cleaned.scale;
  report["largest_value"] = cleaned.largest;
  report["skipped_frames"] = capture.skipped_frames;
  report["first_timecode"] = capture.first_timecode;
  report["steps"] = cleaned.steps;
  return py::make_tuple(times, weights, capture.columns, report);
}

}  // namespace

void addCaptureBindings(py::module_& m) {
  m.def("load_capture", &loadCaptureFile, py::arg("path"), py::arg("format") = "auto", py::kw_only(),
        py::arg("csv_fps") = 60.0, py::arg("capture_fps") = 0.0, py::arg("face") = 0u, py::arg("scale") = py::none(),
        py::arg("neutral") = py::none(), py::arg("smooth") = py::none(), py::arg("offset") = 0.0, py::arg("fps") = 0.0,
        pyi::kload_capture);
}

}  // namespace morphkit::python
