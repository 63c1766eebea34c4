// SPDX-License-Identifier: MIT
// optimizeAsset run by a test: the bytes, the report and the output loaded back, or the test's failure; and the
// distance between an input and its output at one pose.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/optimize/optimize.h"

namespace morphkit::test {

struct Optimized {
  std::vector<uint8_t> glb;
  OptimizeReport report;
  Asset asset;
};

inline Optimized optimizeOrDie(const Asset& input, const OptimizeOptions& options = {}) {
  Optimized run;
  Expected<std::vector<uint8_t>> glb = optimizeAsset(input, options, run.report);
  EXPECT_TRUE(glb.ok()) << glb.error().message;
  if (!glb) return run;
  run.glb = std::move(glb).value();
  Expected<Asset> loaded = loadAssetFromMemory(run.glb, input.base_dir);
  EXPECT_TRUE(loaded.ok()) << loaded.error().message;
  if (loaded) run.asset = std::move(loaded).value();
  return run;
}

// The largest world-space vertex distance between an input and its optimized output at one pose; `remaps`
// (OptimizeReport::vertex_remap) says which output vertex stands for each input vertex where the weld pass merged them.
inline double poseDistance(const Asset& a, const Asset& b, const PoseOptions& options,
                           const std::vector<std::vector<std::vector<uint32_t>>>& remaps = {}) {
  Expected<PoseResult> pa = poseAsset(a, kNone, options);
  Expected<PoseResult> pb = poseAsset(b, kNone, options);
  EXPECT_TRUE(pa.ok() && pb.ok());
  if (!pa || !pb) return INFINITY;
  double worst = 0;
  for (size_t m = 0; m < pa->meshes.size(); ++m) {
    const PosedPrimitive& x = pa->meshes[m];
    const std::vector<float>& y = pb->meshes[m].positions;
    const bool mapped =
        x.mesh < remaps.size() && x.primitive < remaps[x.mesh].size() && !remaps[x.mesh][x.primitive].empty();
    for (size_t v = 0; v < x.vertex_count; ++v) {
      const size_t w = mapped ? remaps[x.mesh][x.primitive][v] : v;
      if (3 * w + 2 >= y.size()) return INFINITY;
      worst = std::max(worst,
                       std::hypot(double(x.positions[3 * v]) - y[3 * w], double(x.positions[3 * v + 1]) - y[3 * w + 1],
                                  double(x.positions[3 * v + 2]) - y[3 * w + 2]));
    }
  }
  return worst;
}

}  // namespace morphkit::test
