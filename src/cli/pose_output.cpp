// SPDX-License-Identifier: MIT
// pose_output.cpp — the files `morphkit pose --out` writes (pose_output.h).
#include "pose_output.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <span>
#include <string_view>
#include <utility>

#include "command.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/io/npy.h"
#include "morphkit/io/pose_writers.h"
#include "morphkit/model/files.h"
#include "output_folder.h"

namespace morphkit::cli {

int resolvePoseOutput(const std::string& out, const std::string& format, PoseOutput& output) {
  output = PoseOutput{out, format};
  if (out.empty()) return format.empty() ? 0 : reportUsage("--format " + format + ": needs --out");
  constexpr std::string_view kKnown[] = {"json", "obj", "glb", "npy", "npz"};
  auto known = [&](std::string_view f) {
    return std::find(std::begin(kKnown), std::end(kKnown), f) != std::end(kKnown);
  };
  if (!format.empty() && !known(format)) return reportUsage("--format " + format + ": expected " + kPoseFormats);
  if (out == "-") {
    if (format.empty())
      return reportUsage(std::string("--out -: give the format with --format (") + kPoseFormats + ")");
    return 0;
  }
  std::string ext = std::filesystem::path(out).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  const std::string from_name = ext.empty() ? std::string() : ext.substr(1);
  if (!known(from_name)) {
    return reportUsage(
        fmt::format("--out {}: unknown format (use .json, .obj, .glb, .npy or .npz, or --out - --format F)", out));
  }
  if (!format.empty() && from_name != format)
    return reportUsage("--out " + out + ": the name's extension contradicts --format " + format);
  output.format = from_name;
  return 0;
}

namespace {

// OUT.obj, OUT.mtl and the images beside them (the OBJ last: once it is there, what it names is too). To stdout
// the OBJ goes alone.
int writeObjOutput(const std::string& out, const PoseResult& pose, const Asset& asset, const std::string& model) {
  if (out == "-") return writeReportedOutput(out, writePoseObj(pose, &asset));
  const std::filesystem::path obj(out);
  const std::string stem = obj.stem().string();
  const PoseMtl mtl = writePoseMtl(pose, asset, stem);
  for (const std::string& warning : mtl.warnings) reportWarning(model + ": " + warning);
  for (const auto& [name, bytes] : mtl.images) {
    if (int code = writeReportedOutput(obj.parent_path() / name, bytes); code != 0) return code;
  }
  if (int code = writeReportedOutput(obj.parent_path() / (stem + ".mtl"), mtl.text); code != 0) return code;
  return writeReportedOutput(obj, writePoseObj(pose, &asset, stem + ".mtl"));
}

}  // namespace

int writeArrayOutput(const PoseOutput& output, const PoseArrays& arrays, const std::vector<double>& times) {
  const std::string& out = output.path;
  if (output.format == "npy" && arrays.shapes.size() != 1) {
    return reportUsage(fmt::format("--out {}: .npy holds one posed primitive and the scene has {}; use .npz", out,
                                   arrays.shapes.size()));
  }
  Expected<EncodedArrays> encoded = encodePoseArrays(output.format, arrays, times);
  if (!encoded) return reportFailure(out, encoded.error());
  return writeReportedOutput(out, std::span<const std::span<const uint8_t>>(encoded->parts));
}

int writePoseOutput(const PoseOutput& output, const std::vector<PoseResult>& cases, const std::string& model,
                    const Asset& asset) {
  const std::string& out = output.path;
  if (output.format == "json") return writeReportedOutput(out, writePoseJson(cases, model));
  if (cases.size() != 1) {
    return reportUsage(
        fmt::format("--out {}: {} holds one pose; give a single --time (or use json)", out, output.format));
  }
  if (output.format == "obj") return writeObjOutput(out, cases[0], asset, model);
  Expected<std::vector<uint8_t>> glb = writePosedGlb(cases[0], asset);
  if (!glb) return reportFailure(out, glb.error());
  return writeReportedOutput(out, std::span<const uint8_t>(*glb));
}

}  // namespace morphkit::cli
