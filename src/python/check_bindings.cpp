// SPDX-License-Identifier: MIT
// check_bindings.cpp — morphkit.check(path, engines=...): `morphkit check --json`'s report as a dict
// (morphkit/check/check.h, docs/CHECK.md), the same library call and the same JSON text the CLI prints.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "morphkit/check/check.h"
#include "morphkit_pyi_docs.h"
#include "python_module.h"

namespace py = pybind11;

namespace morphkit::python {
namespace {

// engines: None (every profile), "three,bevy" / "all", or a list of names.
std::vector<std::string> engineNames(const py::object& engines) {
  std::vector<std::string> names;
  if (engines.is_none()) return names;
  if (py::isinstance<py::str>(engines)) {
    const std::string text = engines.cast<std::string>();
    for (size_t start = 0;;) {
      const size_t comma = text.find(',', start);
      names.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) return names;
      start = comma + 1;
    }
  }
  for (const py::handle item : engines) names.push_back(py::str(item).cast<std::string>());
  return names;
}

py::object check(const py::object& path_like, const py::object& engines, uint32_t times, uint32_t threads,
                 bool allow_external_paths, bool read_files) {
  const std::string path = py::module_::import("os").attr("fspath")(path_like).cast<std::string>();
  if (times < 1) raise(fail(Error::kInvalidArgument, "times " + std::to_string(times) + ": at least 1"), path);
  CheckOptions options;
  options.engines = take(engineProfilesNamed(engineNames(engines), "engines"), path);
  options.times = times;
  Expected<CheckReport> report = fail(Error::kIo, "");
  {
    py::gil_scoped_release release;
    LoadOptions load;
    load.allow_external_paths = allow_external_paths;
    load.map_files = !read_files;
    Expected<Asset> asset = loadAsset(path, load);
    if (asset) {
      ThreadPool pool(threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads);
      options.pool = &pool;
      report = checkAsset(*asset, options);
    } else {
      report = asset.error();
    }
  }
  const std::string json = checkReportJson(take(std::move(report), path));
  return py::module_::import("json").attr("loads")(json);
}

}  // namespace

void addCheckBindings(py::module_& m) {
  m.def("check", &check, py::arg("path"), py::arg("engines") = py::none(), py::kw_only(), py::arg("times") = 10,
        py::arg("threads") = 1, py::arg("allow_external_paths") = false, py::arg("read_files") = false, pyi::kcheck);
}

}  // namespace morphkit::python
