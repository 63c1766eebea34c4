// SPDX-License-Identifier: MIT
// Shared by the extension's source files (src/python): Failure → Python exception, the Asset object, the name
// and weight resolution that pose and render share, and the bindings each file adds.
#pragma once
#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/core/weights.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/capture.h"
#include "morphkit/model/error.h"
#include "morphkit/vk/gpu_pose.h"

namespace morphkit::python {

// Throws a C++ exception that the module's translator turns into the morphkit.Error subclass for the code,
// with "<where>: <message>" (or the message alone) as its text.
[[noreturn]] void raise(const Failure& failure, const std::string& where = {});
template <class T>
T take(Expected<T>&& value, const std::string& where = {}) {
  if (!value) raise(value.error(), where);
  return std::move(*value);
}

struct GpuState {  // a Vulkan context and the uploaded primitives, made on the first pose(device="gpu")
  VulkanContext* context = nullptr;
  GpuPose* pose = nullptr;
  uint32_t scene = kNone;
  ~GpuState();
};

struct PyAsset {
  std::string path;
  Asset asset;       // never moves: PosePrepared and renderers point at it
  std::mutex mutex;  // guards the caches below; posing itself runs outside it on const data
  std::vector<std::pair<uint32_t, std::unique_ptr<PosePrepared>>> prepared;  // per requested scene
  std::mutex gpu_mutex;  // one GPU pose at a time per asset (one queue)
  std::unique_ptr<GpuState> gpu;

  const PosePrepared& preparedFor(uint32_t scene);
};
using AssetPtr = std::shared_ptr<PyAsset>;

// anim: None (the rest pose), an index or a name, by the CLI's rules (findAnimationNamed, morphkit/model/names.h).
uint32_t resolveAnimation(const PyAsset& a, const pybind11::object& anim);

// weights={name: value}: every mesh target carrying the name takes the value (WeightInputs::overrides); an
// unknown name raises with the closest names, as the CLI's --weights does.
std::vector<WeightOverride> weightOverrides(const PyAsset& a, const pybind11::object& weights, NameMatch match);

// A face capture (any format, by content; scaled to 0-1) matched against the asset: the CLI's --capture [--map].
// `match.track` is what WeightInputs::track points at.
struct LoadedCapture {
  Capture csv;
  CaptureMatch match;
};
std::unique_ptr<LoadedCapture> loadCapture(const PyAsset& a, const pybind11::object& csv_path, double csv_fps,
                                           const pybind11::object& map);

void addRenderBindings(pybind11::module_& m);
void addCaptureBindings(pybind11::module_& m);  // morphkit.load_capture
void addBatchBindings(pybind11::module_& m);
void addCheckBindings(pybind11::module_& m);
void addOptimizeBindings(pybind11::module_& m);

}  // namespace morphkit::python
