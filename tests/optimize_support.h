// SPDX-License-Identifier: MIT
// optimizeAsset run by a test: the bytes, the report and the output loaded back, or the test's failure.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

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

}  // namespace morphkit::test
