// SPDX-License-Identifier: MIT
// The demo asset as the CLI and render tests write it: small by default (600 vertices, 4 targets; animations 0
// 'talk', 1 'blink', 2 'express'; one scene, 'Scene'), in a fresh folder as demo.glb for a command under test.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <span>

#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/files.h"
#include "test_support.h"

namespace morphkit::test {

// The demo asset with `vertices` and `targets` (its animations and scene as always) written as a .glb at `path`.
inline void writeDemoGlb(const std::filesystem::path& path, uint32_t vertices = 600, uint32_t targets = 4) {
  DemoOptions options;
  options.vertices = vertices;
  options.targets = targets;
  auto asset = makeDemoAsset(options);
  ASSERT_TRUE(asset.ok());
  auto glb = writeGlb(*asset);
  ASSERT_TRUE(glb.ok());
  ASSERT_TRUE(writeFileAtomic(path, std::span<const uint8_t>(*glb)).ok());
}

inline std::filesystem::path smallDemoDir() {
  auto dir = scratchDir();
  writeDemoGlb(dir / "demo.glb");
  return dir;
}

}  // namespace morphkit::test
