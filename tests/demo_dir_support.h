// SPDX-License-Identifier: MIT
// The CLI tests' small demo asset in a fresh folder (600 vertices, 4 targets; animations 0 'talk', 1 'blink',
// 2 'express'; one scene, 'Scene'): what a command under test reads as demo.glb.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <span>

#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/files.h"
#include "test_support.h"

namespace morphkit::test {

inline std::filesystem::path smallDemoDir() {
  auto dir = scratchDir();
  DemoOptions options;
  options.vertices = 600;
  options.targets = 4;
  auto asset = makeDemoAsset(options);
  EXPECT_TRUE(asset.ok());
  auto glb = writeGlb(*asset);
  EXPECT_TRUE(glb.ok());
  EXPECT_TRUE(writeFileAtomic(dir / "demo.glb", std::span<const uint8_t>(*glb)).ok());
  return dir;
}

}  // namespace morphkit::test
