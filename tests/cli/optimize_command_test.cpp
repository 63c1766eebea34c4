// SPDX-License-Identifier: MIT
// `morphkit optimize`'s simplification options on the command line (docs/OPTIMIZE.md "Levels of detail", docs/CLI.md):
// --lod writes one verified file per level beside OUT, and every bad ratio or limit is a usage error (exit 2, one
// line, nothing written).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "demo_dir_support.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/files.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::CliRun;

size_t triangles(const std::filesystem::path& file) {
  Expected<Asset> asset = loadAsset(file);
  EXPECT_TRUE(asset.ok()) << file;
  if (!asset) return 0;
  size_t count = 0;
  for (const Mesh& mesh : asset->meshes) {
    for (const Primitive& primitive : mesh.primitives) {
      if (primitive.indices != kNone) count += asset->accessors[primitive.indices].count / 3;
    }
  }
  return count;
}

TEST(OptimizeCommand, LodWritesOneVerifiedFilePerLevelBesideOut) {
  const auto dir = test::smallDemoDir();
  CliRun run = test::runMorphkit(dir, "optimize demo.glb --out face.glb --lod 0.5,0.25 --json --no-progress");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* written : {"face.glb", "face.lod1.glb", "face.lod2.glb"}) {
    EXPECT_NE(run.err.find(std::string("wrote ") + written), std::string::npos) << run.err;
  }
  const size_t full = triangles(dir / "face.glb");
  const size_t half = triangles(dir / "face.lod1.glb");
  const size_t quarter = triangles(dir / "face.lod2.glb");
  EXPECT_GT(full, 0u);
  EXPECT_LE(half, full / 2 + 1);
  EXPECT_GT(half, quarter);
  EXPECT_LE(quarter, full / 4 + 1);

  simdjson::dom::parser parser;
  simdjson::dom::element report = parser.parse(run.out);
  simdjson::dom::array lods = report["lods"].get_array();
  ASSERT_EQ(lods.size(), 2u);
  const double ratios[] = {0.5, 0.25};
  size_t n = 0;
  for (simdjson::dom::element level : lods) {
    EXPECT_EQ(double(level["ratio"]), ratios[n]);
    EXPECT_EQ(std::string_view(level["out"]), n == 0 ? "face.lod1.glb" : "face.lod2.glb");
    // Each level is verified like any output: the encoding within the bound, the simplification measured as surfaces.
    EXPECT_LE(double(level["maxDistanceMm"]), double(level["boundMm"]));
    EXPECT_GT(level["surfaceErrors"].get_array().size(), 0u);
    ++n;
  }
  EXPECT_TRUE(report["surfaceErrors"].error() == simdjson::NO_SUCH_FIELD);  // the full file is not simplified
}

TEST(OptimizeCommand, BadSimplifyRatiosAndLimitsAreUsageErrors) {
  const auto dir = test::smallDemoDir();
  const char* bad[] = {
      "--simplify 0",
      "--simplify 1.5",
      "--simplify nan",
      "--simplify -0.5",
      "--simplify 0.5 --simplify-error 0",
      "--simplify 0.5 --simplify-error -1",
      "--simplify-error 1",
      "--lod 0.5,0",
      "--lod 0.5,nan",
      "--lod 2",
      "--lod 0.5 --simplify 0.5",
  };
  for (const char* options : bad) {
    CliRun run = test::runMorphkit(dir, std::string("optimize demo.glb --out o.glb ") + options);
    EXPECT_EQ(run.exit_code, 2) << options << ": " << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << options << ": " << run.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "o.glb")) << options;
    EXPECT_FALSE(std::filesystem::exists(dir / "o.lod1.glb")) << options;
  }
}

// A level that would land on IN itself (IN named like a level of OUT) is refused before any work.
TEST(OptimizeCommand, ALevelThatWouldReplaceInIsRefused) {
  const auto dir = test::smallDemoDir();
  std::filesystem::copy_file(dir / "demo.glb", dir / "face.lod1.glb");
  CliRun run = test::runMorphkit(dir, "optimize face.lod1.glb --out face.glb --lod 0.5");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("is IN itself"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "face.glb"));
}

}  // namespace
}  // namespace morphkit
