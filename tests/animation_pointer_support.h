// SPDX-License-Identifier: MIT
// The pair of files KHR_animation_pointer's tests pose (animation_pointer_test.cpp on the CPU,
// vk_animation_pointer_test.cpp on the GPU): the demo asset with "weights" channels, and the same asset with those
// channels rewritten as pointer channels (useAnimationPointers), each written as GLB and loaded back.
#pragma once
#include <gtest/gtest.h>

#include "gltf_test_util.h"
#include "morphkit/core/pose.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"

namespace morphkit::test {

struct PointerPair {
  Asset plain, pointer;
};

inline Expected<Asset> throughGlb(const Asset& asset) {
  Expected<std::vector<uint8_t>> glb = writeGlb(asset);
  if (!glb) return glb.error();
  return loadAssetFromMemory(*glb, ".");
}

inline PointerPair pointerPair() {
  Asset demo = validated(makeDemoAsset({.targets = 12, .vertices = 400, .bones = 4}));
  Asset rewritten = demo;
  useAnimationPointers(rewritten);
  Expected<Asset> plain = throughGlb(demo), pointer = throughGlb(validated(std::move(rewritten)));
  EXPECT_TRUE(plain) << plain.error().message;
  EXPECT_TRUE(pointer) << pointer.error().message;
  if (!plain || !pointer) return {};
  return {std::move(*plain), std::move(*pointer)};
}

// Times inside every key interval of the demo's clips and at keys, so each interpolation is exercised.
inline std::vector<double> pointerPoseTimes() {
  return {0.0, 0.13, 0.25, 0.55, 0.61, 1.0, 1.45, 1.9, 2.37, 3.3};
}

inline void expectSamePositions(const PoseResult& a, const PoseResult& b, const std::string& what) {
  ASSERT_EQ(a.meshes.size(), b.meshes.size()) << what;
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    ASSERT_EQ(a.meshes[m].positions.size(), b.meshes[m].positions.size()) << what;
    size_t differ = 0;
    for (size_t i = 0; i < a.meshes[m].positions.size(); ++i)
      differ += a.meshes[m].positions[i] != b.meshes[m].positions[i];
    EXPECT_EQ(differ, 0u) << what << " mesh " << m;
    EXPECT_EQ(a.meshes[m].weights, b.meshes[m].weights) << what << " mesh " << m;
  }
}

}  // namespace morphkit::test
