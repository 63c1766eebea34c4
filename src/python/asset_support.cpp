// SPDX-License-Identifier: MIT
// asset_support.cpp — what Asset.pose, Asset.pose_csv and Renderer.render share (python_module.h): the asset's
// caches, names resolved by the CLI's rules, weights by name and face captures.
#include <pybind11/pybind11.h>

#include <cmath>
#include <optional>
#include <string>

#include "morphkit/core/expressions.h"
#include "morphkit/io/capture_file.h"
#include "morphkit/io/capture_signal.h"
#include "morphkit/io/weight_files.h"
#include "morphkit/model/files.h"
#include "morphkit/model/names.h"
#include "morphkit/model/text.h"
#include "morphkit/vk/gpu.h"
#include "python_module.h"

namespace py = pybind11;

namespace morphkit::python {

GpuState::~GpuState() {
  if (context) destroyGpuPose(*context, pose);
  destroyVulkanContext(context);
}

const PosePrepared& PyAsset::preparedFor(uint32_t scene) {
  std::lock_guard lock(mutex);
  for (auto& [key, p] : prepared) {
    if (key == scene) return *p;
  }
  auto p = std::make_unique<PosePrepared>(take(preparePose(asset, scene), path));
  prepared.emplace_back(scene, std::move(p));
  return *prepared.back().second;
}

uint32_t resolveAnimation(const PyAsset& a, const py::object& anim) {
  if (anim.is_none()) return kNone;
  if (py::isinstance<py::str>(anim)) return take(findAnimationNamed(a.asset, anim.cast<std::string>(), "anim"), a.path);
  if (py::isinstance<py::bool_>(anim) || !py::isinstance<py::int_>(anim)) {
    raise(fail(Error::kInvalidArgument, "anim: expected None, an index or a name"), a.path);
  }
  const long long index = anim.cast<long long>();
  if (index < 0)
    raise(fail(Error::kInvalidArgument, "anim " + std::to_string(index) + ": expected an index >= 0"), a.path);
  return take(findAnimationNamed(a.asset, std::to_string(index), "anim"), a.path);
}

std::vector<WeightOverride> weightOverrides(const PyAsset& a, const py::object& weights, NameMatch match) {
  std::vector<WeightOverride> out;
  std::vector<ExpressionValue> expressions;  // a VRM avatar's expressions by name (morphkit/core/expressions.h)
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
    if (const uint32_t e = findExpression(a.asset, entry.name, match); e != kNone) {
      expressions.push_back({e, entry.value});
      continue;
    }
    if (Expected<std::vector<TargetRef>> refs = resolveOverride(a.asset, entry, match); !refs)
      raise(refs.error(), a.path);
    out.push_back(std::move(entry));
  }
  if (expressions.empty()) return out;
  // As the CLI's --weights: the expressions' target weights first, so a target named directly wins.
  std::vector<WeightOverride> made = take(expressionWeights(a.asset, expressions), a.path);
  made.insert(made.end(), std::make_move_iterator(out.begin()), std::make_move_iterator(out.end()));
  return made;
}

namespace {

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

}  // namespace

std::unique_ptr<LoadedCapture> loadCapture(const PyAsset& a, const py::object& csv_path, double csv_fps,
                                           const py::object& map) {
  const std::string csv_file = py::module_::import("os").attr("fspath")(csv_path).cast<std::string>();
  const std::optional<CaptureMap> capture_map = captureMap(a, map);
  Expected<std::vector<uint8_t>> bytes = readFile(csv_file, kMaxCaptureBytes);
  if (!bytes) raise(bytes.error(), csv_file);
  CaptureOptions options;
  options.timecode_fps = csv_fps;
  auto out = std::make_unique<LoadedCapture>();
  // Any format, by content (morphkit/io/capture_file.h), scaled to 0-1 as the CLI does
  // (morphkit/io/capture_signal.h).
  out->csv = take(parseCapture(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), options),
                  csv_file);
  if (const float scale = detectCaptureScale(out->csv); scale != 1.0f) scaleCapture(out->csv, scale);
  out->match = matchCapture(a.asset, out->csv, capture_map ? &*capture_map : nullptr);
  if (!out->match.unknown_map_targets.empty()) {
    raise(fail(Error::kInvalidArgument, "map: " + quote(out->match.unknown_map_targets.front()) + ": no such target"),
          a.path);
  }
  if (out->match.track.names.empty()) {
    raise(fail(Error::kInvalidArgument, "no column of " + quote(csv_file) + " matches a target name (map= names them)"),
          a.path);
  }
  return out;
}

}  // namespace morphkit::python
