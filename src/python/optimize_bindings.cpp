// SPDX-License-Identifier: MIT
// optimize_bindings.cpp — morphkit.optimize(path, out, ...): `morphkit optimize --json`'s work and report
// (morphkit/optimize/optimize.h, docs/OPTIMIZE.md): the same library call, the same refusals, the same JSON text.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "morphkit/gltf/gltf.h"
#include "morphkit/model/files.h"
#include "morphkit/optimize/optimize.h"
#include "morphkit_pyi_docs.h"
#include "python_module.h"
#include "render_check.h"

namespace py = pybind11;

namespace morphkit::python {
namespace {

double bound(const py::object& value) {
  return value.is_none() ? 0.0 : value.cast<double>();
}

py::object optimize(const py::object& path_like, const py::object& out_like, const py::object& max_error_mm,
                    const py::object& max_error_rel, bool meshopt, bool keep_attributes, bool keep_nodes,
                    const std::vector<std::string>& skip_passes, const std::string& textures, uint32_t texture_size,
                    double texture_min_psnr, const py::object& simplify, const py::object& simplify_error_mm,
                    const std::vector<double>& lod, const py::object& for_engine, bool allow_external_paths,
                    const py::object& render_check) {
  py::module_ os = py::module_::import("os");
  const std::string path = os.attr("fspath")(path_like).cast<std::string>();
  const std::string out = os.attr("fspath")(out_like).cast<std::string>();
  OptimizeOptions options;
  options.max_error_mm = bound(max_error_mm);
  options.max_error_rel = bound(max_error_rel);
  options.meshopt = meshopt;
  options.keep_attributes = keep_attributes;
  options.keep_nodes = keep_nodes;
  options.skip_passes = skip_passes;
  options.texture_size = texture_size;
  options.texture_min_psnr = texture_min_psnr;
  auto refuse = [&](const std::string& what) { raise(fail(Error::kInvalidArgument, what), out); };
  if (textures == "webp" || textures == "ktx2") {
    options.textures = textures == "webp" ? TextureFormat::kWebp : TextureFormat::kKtx2;
  } else if (textures != "keep") {
    refuse("textures '" + textures + "': one of keep, webp, ktx2");
  }
  if (!(texture_min_psnr > 0)) refuse("texture_min_psnr must be a positive number of dB");
  if (!for_engine.is_none()) options.for_engine = for_engine.cast<std::string>();
  if (Expected<const Runtime*> runtime = optimizeRuntime(options); !runtime) refuse(runtime.error().message);
  for (const py::object* given : {&max_error_mm, &max_error_rel}) {
    if (!given->is_none() && !(given->cast<double>() > 0)) refuse("the error bound must be a positive number");
  }
  if (!max_error_mm.is_none() && !max_error_rel.is_none()) refuse("give max_error_mm or max_error_rel, not both");
  options.simplify_ratio = bound(simplify);
  options.simplify_error_mm = bound(simplify_error_mm);
  if (!simplify.is_none() && !(options.simplify_ratio > 0 && options.simplify_ratio <= 1)) {
    refuse("simplify must be in (0, 1]");
  }
  for (double ratio : lod) {
    if (!(ratio > 0 && ratio <= 1)) refuse("every lod ratio must be in (0, 1]");
  }
  if (!simplify.is_none() && !lod.empty()) refuse("give simplify or lod, not both");
  if (!simplify_error_mm.is_none() && !(options.simplify_error_mm > 0 && options.simplify_error_mm < INFINITY)) {
    refuse("simplify_error_mm must be a positive number");
  }
  if (!simplify_error_mm.is_none() && simplify.is_none() && lod.empty())
    refuse("simplify_error_mm needs simplify or lod");
  std::error_code ec;
  auto isInput = [&](const std::string& file) {
    return std::filesystem::exists(file, ec) && std::filesystem::equivalent(path, file, ec);
  };
  if (isInput(out)) refuse("out is the input itself; write the optimized file beside it");
  for (size_t n = 1; n <= lod.size(); ++n) {
    if (isInput(lodPath(out, n))) refuse("level " + std::to_string(n) + " would replace the input; choose another out");
  }
  const std::optional<bool> requested =
      render_check.is_none() ? std::nullopt : std::optional<bool>(render_check.cast<bool>());
  // An existing out is replaced atomically (writeFileAtomic), as the CLI replaces its files (docs/CLI.md).
  OptimizeReport report;
  std::vector<OptimizeLevel> levels;
  Expected<std::vector<uint8_t>> glb = fail(Error::kIo, "");
  {
    py::gil_scoped_release release;
    LoadOptions load;
    load.allow_external_paths = allow_external_paths;
    Expected<Asset> asset = loadAsset(path, load);
    ThreadPool pool(std::max(1u, std::thread::hardware_concurrency()));
    options.pool = &pool;
    glb = asset ? optimizeAsset(*asset, options, report) : Expected<std::vector<uint8_t>>(asset.error());
    // Every level is made before any file is written: a level that fails leaves nothing behind.
    if (glb && !lod.empty()) {
      Expected<std::vector<OptimizeLevel>> made = optimizeLevels(*asset, options, lod, out);
      if (made) {
        levels = std::move(*made);
      } else {
        glb = made.error();
      }
    }
    if (glb) {
      if (Status written = writeFileAtomic(out, std::span<const uint8_t>(*glb)); !written) glb = written.error();
    }
    for (const OptimizeLevel& level : levels) {
      if (!glb) break;
      if (Status written = writeFileAtomic(level.out, std::span<const uint8_t>(level.glb)); !written) {
        glb = written.error();
      }
    }
    if (glb) {
      if (Status checked = renderCheck(requested, options, *asset, out, load, report); !checked) glb = checked.error();
    }
  }
  take(std::move(glb), path);
  return py::module_::import("json").attr("loads")(optimizeReportJson(report, path, out, levels));
}

}  // namespace

void addOptimizeBindings(py::module_& m) {
  m.def("optimize", &optimize, py::arg("path"), py::arg("out"), py::kw_only(), py::arg("max_error_mm") = py::none(),
        py::arg("max_error_rel") = py::none(), py::arg("meshopt") = true, py::arg("keep_attributes") = false,
        py::arg("keep_nodes") = false, py::arg("skip_passes") = std::vector<std::string>(),
        py::arg("textures") = "keep", py::arg("texture_size") = 0u,
        py::arg("texture_min_psnr") = kDefaultTextureMinPsnr, py::arg("simplify") = py::none(),
        py::arg("simplify_error_mm") = py::none(), py::arg("lod") = std::vector<double>(),
        py::arg("for_engine") = py::none(), py::arg("allow_external_paths") = false,
        py::arg("render_check") = py::none(), pyi::koptimize);
}

}  // namespace morphkit::python
