// SPDX-License-Identifier: MIT
// Hostile text: what a file says never reaches a terminal as a control sequence, never forges a second line, and a
// huge value gives a short line with its size. Amplification: hostile_input_test.cpp.
#include <gtest/gtest.h>

#include "hostile_input_support.h"

namespace morphkit {
namespace {

TEST(HostileText, InspectPrintsNoControlSequenceFromTheFile) {
  fs::path dir = test::scratchDir();
  std::string evil = kTitleAndClear + "fake output" + kForgedLine + kC1;  // JSON must be UTF-8: no raw 0xFF here
  test::writeText(dir / "gen.gltf", namedAsset(evil, evil));
  for (const char* flags : {"", " --json"}) {
    SCOPED_TRACE(flags);
    test::CliRun r = test::runMorphkit(dir, std::string("inspect gen.gltf") + flags);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(terminalSafe(r.out));
    EXPECT_TRUE(terminalSafe(r.err));
    EXPECT_EQ(r.out.find("\nmorphkit: note"), std::string::npos) << r.out;
  }
  test::CliRun table = test::runMorphkit(dir, "inspect gen.gltf");
  EXPECT_NE(table.out.find("\\x1b]0;pwned\\x07\\x1b[2J"), std::string::npos) << table.out;  // shown, escaped
  test::CliRun pose = test::runMorphkit(dir, "pose gen.gltf --anim 0 --time 0.5");
  ASSERT_EQ(pose.exit_code, 0) << pose.err;
  EXPECT_TRUE(terminalSafe(pose.out));
}

TEST(HostileText, ALineBreakInAUriCannotForgeASecondLine) {
  fs::path dir = test::scratchDir();
  std::string uri = "missing.bin" + kForgedLine + kTitleAndClear;
  test::writeText(dir / "uri.gltf", gltfJson("\"buffers\":[{\"byteLength\":4,\"uri\":" + jsonString(uri) + "}]"));
  test::CliRun r = test::runMorphkit(dir, "inspect uri.gltf");
  EXPECT_EQ(r.exit_code, 1);
  std::vector<std::string> err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.err;
  EXPECT_EQ(err[0].rfind("morphkit: error: uri.gltf: buffers[0].uri: ", 0), 0u) << err[0];
  EXPECT_NE(err[0].find("missing.bin\\nmorphkit: note: all checks passed\\r"), std::string::npos) << err[0];
  EXPECT_TRUE(terminalSafe(r.err));
}

TEST(HostileText, AHugeUriGivesAShortErrorLineWithItsSize) {
  fs::path dir = test::scratchDir();
  std::string uri(1'000'000, 'u');
  test::writeText(dir / "long.gltf", gltfJson("\"buffers\":[{\"byteLength\":4,\"uri\":\"" + uri + "\"}]"));
  test::CliRun r = test::runMorphkit(dir, "inspect long.gltf");
  EXPECT_EQ(r.exit_code, 1);
  std::vector<std::string> err = lines(r.err);
  ASSERT_EQ(err.size(), 1u);
  EXPECT_LT(err[0].size(), 1024u);
  EXPECT_NE(err[0].find("(1000000 bytes)"), std::string::npos) << err[0];
}

TEST(HostileText, AHostileFileNameIsEscapedToo) {
  fs::path dir = test::scratchDir();
  std::string name = "a\x1b[2Jb.gltf";
  test::writeText(dir / name, "{not json");
  test::CliRun r = test::runMorphkit(dir, "inspect '" + name + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_TRUE(terminalSafe(r.err));
  EXPECT_NE(r.err.find("a\\x1b[2Jb.gltf"), std::string::npos) << r.err;
}

TEST(HostileRender, AnAstronomicalDurationIsAnErrorNotAFrameCountOverflow) {
  fs::path dir = test::scratchDir();
  MorphFile file;
  test::writeText(dir / "a.gltf", file.json());
  test::CliRun r = test::runMorphkit(dir, "render a.gltf --duration 1e308 --out frames");
  expectOneErrorLine(r, "a.gltf", {"--duration 1e+308", "more than 100000"});
  EXPECT_FALSE(fs::exists(dir / "frames"));
  file.times = {0, 3e38f};
  test::writeText(dir / "long.gltf", file.json());
  r = test::runMorphkit(dir, "render long.gltf --out frames");
  expectOneErrorLine(r, "long.gltf", {"animations[0] lasts 3e+38 s", "more than 100000"});
  EXPECT_FALSE(fs::exists(dir / "frames"));
}

TEST(HostileAnimation, PointerOnlyAndUnusedSamplersAreIgnoredWithANote) {
  Expected<Asset> asset = test::loadJson(pointerFile().json());
  ASSERT_LOADED(asset);
  auto has_note = [&](const std::string& fragment) {
    return std::any_of(asset->notes.begin(), asset->notes.end(),
                       [&](const std::string& n) { return n.find(fragment) != std::string::npos; });
  };
  EXPECT_TRUE(has_note("animations[0].samplers[1]: no channel morphkit animates uses it; ignored"));
  EXPECT_TRUE(has_note("animations[0].samplers[2]: no channel morphkit animates uses it; ignored"));
  EXPECT_TRUE(has_note("animations[0].channels[1].target.path: 'pointer' is not a core path"));
  Expected<AnimationData> decoded = decodeAnimation(*asset, 0);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  EXPECT_EQ(decoded->channels.size(), 1u);
  EXPECT_EQ(decoded->samplers[0].components, 1u);
  EXPECT_EQ(decoded->samplers[1].components, 0u);
  EXPECT_EQ(decoded->samplers[2].components, 0u);

  fs::path dir = test::scratchDir();
  test::writeText(dir / "pointer.gltf", pointerFile().json());
  test::CliRun pose = test::runMorphkit(dir, "pose pointer.gltf --anim 0 --time 0.5 --json");
  ASSERT_EQ(pose.exit_code, 0) << pose.err;
  EXPECT_NE(pose.out.find("\"weights\":[0.5]"), std::string::npos) << pose.out;
  test::CliRun inspect = test::runMorphkit(dir, "inspect pointer.gltf");
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("note: animations[0].samplers[1]"), std::string::npos) << inspect.out;
}

TEST(HostileNonFinite, NanKeyframesAreRefusedTheSameWayOnEveryPath) {
  fs::path dir = test::scratchDir();
  MorphFile file;
  file.weights = {std::nanf(""), 0.25f};
  test::writeText(dir / "nan.gltf", file.json());
  EXPECT_FAILURE(test::loadJson(file.json()), Error::kInvalidGltf, "accessors[3]", "is NaN", "§3.6.2.2");
  const std::vector<std::string> why = {"accessors[3]: element 0 component 0 is NaN", "§3.6.2.2"};
  expectOneErrorLine(test::runMorphkit(dir, "pose nan.gltf --anim 0 --time 0.5 --out posed.json"), "nan.gltf", why);
  expectOneErrorLine(test::runMorphkit(dir, "pose nan.gltf --anim 0 --time 0.5 --device gpu --out posed.glb"),
                     "nan.gltf", why);
  expectOneErrorLine(test::runMorphkit(dir, "render nan.gltf --out frames"), "nan.gltf", why);
  expectOneErrorLine(test::runMorphkit(dir, "inspect nan.gltf"), "nan.gltf", why);
  file.weights = {INFINITY, 0.25f};
  test::writeText(dir / "inf.gltf", file.json());
  expectOneErrorLine(test::runMorphkit(dir, "pose inf.gltf --anim 0"), "inf.gltf", {"is infinite", "§3.6.2.2"});
  EXPECT_FALSE(fs::exists(dir / "posed.json"));
  EXPECT_FALSE(fs::exists(dir / "posed.glb"));
  EXPECT_FALSE(fs::exists(dir / "frames"));
}

TEST(HostileNonFinite, FiniteWeightsThatOverflowNeverReachAnOutputFile) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  fs::path dir = test::scratchDir();
  MorphFile file;
  file.weights = {3e38f, 3e38f};  // finite, but 3e38 x delta 10 is not
  file.delta = 10.0f;
  test::writeText(dir / "big.gltf", file.json());
  ASSERT_LOADED(test::loadJson(file.json()));
  const std::vector<std::string> why = {"nodes[0] meshes[0].primitives[0]: posed position of vertex 0 is not finite"};
  expectOneErrorLine(test::runMorphkit(dir, "pose big.gltf --anim 0 --time 0.5 --out big.obj"), "big.gltf", why);
  expectOneErrorLine(test::runMorphkit(dir, "pose big.gltf --anim 0 --time 0.5 --cpu-path fast --out big.obj"),
                     "big.gltf", why);
  expectOneErrorLine(test::runMorphkit(dir, "pose big.gltf --anim 0 --time 0.5 --device gpu --out big.glb"), "big.gltf",
                     why);
  EXPECT_FALSE(fs::exists(dir / "big.obj"));
  EXPECT_FALSE(fs::exists(dir / "big.glb"));
  // A CUBICSPLINE between finite keys can overflow the weight itself (tangents scale with the key interval):
  // the same error on every path, before any vertex is computed.
  file = MorphFile();
  file.interpolation = "CUBICSPLINE";
  file.times = {0, 100};
  file.weights = {0, 0, 3e38f, 0, 1, 0};  // (in-tangent, value, out-tangent) per key
  test::writeText(dir / "cubic.gltf", file.json());
  const std::vector<std::string> weight = {"nodes[0]: morph weight 0 is not finite"};
  expectOneErrorLine(test::runMorphkit(dir, "pose cubic.gltf --anim 0 --time 50"), "cubic.gltf", weight);
  expectOneErrorLine(test::runMorphkit(dir, "pose cubic.gltf --anim 0 --time 50 --device gpu"), "cubic.gltf", weight);
  expectOneErrorLine(test::runMorphkit(dir, "render cubic.gltf --fps 1 --frames 50:51 --out frames"), "cubic.gltf",
                     weight);
}

}  // namespace
}  // namespace morphkit
