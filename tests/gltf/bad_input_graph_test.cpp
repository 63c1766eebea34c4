// SPDX-License-Identifier: MIT
// Bad input, second half: absurd sizes of sparse accessors, node graphs (cycles, two parents, deep chains), paths
// escaping the asset folder and the rest of bad_input_test.cpp's families: one clear error, never a crash.
#include <gtest/gtest.h>

#include "bad_input_support.h"

namespace morphkit {
namespace {

TEST(BadNodes, HundredThousandDeepChainLoadsWithoutRecursion) {
  constexpr int kDepth = 100000;
  std::string nodes;
  nodes.reserve(size_t(kDepth) * 20);
  for (int i = 0; i < kDepth; ++i) {
    nodes += i ? "," : "";
    nodes += i + 1 < kDepth ? "{\"children\":[" + std::to_string(i + 1) + "]}" : "{}";
  }
  auto asset = loadJson(nodesJson(nodes));
  ASSERT_LOADED(asset);
  EXPECT_EQ(asset->nodes.size(), size_t(kDepth));
  // The same chain closed into a cycle at the bottom.
  std::string cyclic = mutate(nodesJson(nodes), "{}]", "{\"children\":[1]}]");
  EXPECT_FAILURE(loadJson(cyclic), Error::kInvalidGltf, "nodes[1]");
}

// ---------------------------------------------------------------------------------------------------------
// URIs (§3.3.3 / LoadOptions): nothing outside the asset's folder unless allowed.
TEST(BadUri, PathsEscapingTheAssetFolder) {
  auto root = test::scratchDir();
  auto dir = root / "asset";
  std::filesystem::create_directories(dir / "sub");
  std::vector<uint8_t> four(4, 7);
  test::writeBytes(root / "outside.bin", four);
  test::writeBytes(dir / "inside.bin", four);
  std::filesystem::create_symlink(root / "outside.bin", dir / "link.bin");
  auto withUri = [](const std::string& uri) {
    return gltfJson("\"buffers\":[{\"byteLength\":4,\"uri\":\"" + uri + "\"}]");
  };
  ASSERT_LOADED(loadJson(withUri("inside.bin"), dir));
  ASSERT_LOADED(loadJson(withUri("sub/../inside.bin"), dir));
  std::string absolute = (root / "outside.bin").string();
  EXPECT_FAILURE(loadJson(withUri(absolute), dir), Error::kPathEscapesFolder, "buffers[0].uri", "absolute");
  EXPECT_FAILURE(loadJson(withUri("../outside.bin"), dir), Error::kPathEscapesFolder, "buffers[0].uri", "leaves");
  EXPECT_FAILURE(loadJson(withUri("%2e%2e/outside.bin"), dir), Error::kPathEscapesFolder, "buffers[0].uri", "leaves");
  EXPECT_FAILURE(loadJson(withUri("%2E%2E%2Foutside.bin"), dir), Error::kPathEscapesFolder, "buffers[0].uri");
  EXPECT_FAILURE(loadJson(withUri("sub/../../outside.bin"), dir), Error::kPathEscapesFolder, "buffers[0].uri",
                 "leaves");
  EXPECT_FAILURE(loadJson(withUri("link.bin"), dir), Error::kPathEscapesFolder, "buffers[0].uri", "symlink");
  EXPECT_FAILURE(loadJson(withUri("file:///etc/passwd"), dir), Error::kInvalidGltf, "buffers[0].uri", "scheme");
  EXPECT_FAILURE(loadJson(withUri("bad%zzescape.bin"), dir), Error::kInvalidGltf, "buffers[0].uri", "%-escape");
  EXPECT_FAILURE(loadJson(gltfJson("\"images\":[{\"uri\":\"../x.png\"}]"), dir), Error::kPathEscapesFolder,
                 "images[0].uri");
  // Allowed on request.
  LoadOptions allow;
  allow.allow_external_paths = true;
  ASSERT_LOADED(loadJson(withUri("../outside.bin"), dir, allow));
  ASSERT_LOADED(loadJson(withUri("link.bin"), dir, allow));
  ASSERT_LOADED(loadJson(withUri(absolute), dir, allow));
}

// An image URI goes through the buffers' URI code under the same LoadOptions: the loader reads the image (render
// never opens a file), refuses the same URIs with the same error, and allow_external_paths opens both alike.
TEST(BadUri, ImageUrisFollowTheBufferRules) {
  auto root = test::scratchDir();
  auto dir = root / "asset";
  std::filesystem::create_directories(dir / "sub");
  const std::vector<uint8_t> outside = {1, 2, 3, 4}, inside = {5, 6, 7, 8};
  test::writeBytes(root / "outside.bin", outside);
  test::writeBytes(dir / "inside.bin", inside);
  std::filesystem::create_symlink(root / "outside.bin", dir / "link.bin");
  auto withBuffer = [](const std::string& uri) {
    return gltfJson("\"buffers\":[{\"byteLength\":4,\"uri\":\"" + uri + "\"}]");
  };
  auto withImage = [](const std::string& uri) { return gltfJson("\"images\":[{\"uri\":\"" + uri + "\"}]"); };
  auto afterPrefix = [](const std::string& message, const std::string& prefix) {
    return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : "(no prefix '" + prefix + "') " + message;
  };
  const std::string absolute = (root / "outside.bin").string();
  for (const std::string& uri : {absolute, std::string("../outside.bin"), std::string("%2e%2e/outside.bin"),
                                 std::string("sub/../../outside.bin"), std::string("link.bin"),
                                 std::string("file:///etc/passwd"), std::string("bad%zzescape.bin")}) {
    SCOPED_TRACE(uri);
    Expected<Asset> buffer = loadJson(withBuffer(uri), dir);
    Expected<Asset> image = loadJson(withImage(uri), dir);
    ASSERT_FALSE(buffer.ok());
    ASSERT_FALSE(image.ok());
    EXPECT_STREQ(errorName(image.error().code), errorName(buffer.error().code));
    EXPECT_EQ(afterPrefix(image.error().message, "images[0].uri: "),
              afterPrefix(buffer.error().message, "buffers[0].uri: "));
  }
  // Inside the folder: read by the loader.
  Expected<Asset> asset = loadJson(withImage("sub/../inside.bin"), dir);
  ASSERT_LOADED(asset);
  EXPECT_EQ(asset->images[0].data, inside);
  Expected<std::span<const uint8_t>> bytes = imageBytes(*asset, 0);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  EXPECT_EQ(std::vector<uint8_t>(bytes->begin(), bytes->end()), inside);
  // Allowed on request, for both alike.
  LoadOptions allow;
  allow.allow_external_paths = true;
  for (const std::string& uri : {absolute, std::string("../outside.bin"), std::string("link.bin")}) {
    SCOPED_TRACE(uri);
    ASSERT_LOADED(loadJson(withBuffer(uri), dir, allow));
    Expected<Asset> allowed = loadJson(withImage(uri), dir, allow);
    ASSERT_LOADED(allowed);
    EXPECT_EQ(allowed->images[0].data, outside);
  }
  // A missing file or a bad data: URI is not a load error (only a renderer reads images): imageBytes names it.
  Expected<Asset> missing = loadJson(withImage("missing.png"), dir);
  ASSERT_LOADED(missing);
  EXPECT_FAILURE(imageBytes(*missing, 0), Error::kInvalidArgument, "images[0]", "missing.png");
  Expected<Asset> bad = loadJson(withImage("data:image/png;base64,AA!A"), dir);
  ASSERT_LOADED(bad);
  EXPECT_FAILURE(imageBytes(*bad, 0), Error::kInvalidArgument, "images[0]", "base64");
  // The file size limit applies to images too (an image over it is left unread, like a missing one).
  LoadOptions small;
  small.max_buffer_bytes = 3;
  Expected<Asset> big = loadJson(withImage("inside.bin"), dir, small);
  ASSERT_LOADED(big);
  EXPECT_TRUE(big->images[0].data.empty());
  EXPECT_FAILURE(imageBytes(*big, 0), Error::kInvalidArgument, "images[0]", "inside.bin");
  Expected<Asset> data = loadJson(withImage("data:image/png;base64,AQIDBA=="), dir);
  ASSERT_LOADED(data);
  EXPECT_EQ(data->images[0].data, outside);
}

TEST(BadUri, MissingFileAndBadDataUri) {
  auto dir = test::scratchDir();
  EXPECT_FAILURE(loadJson(gltfJson("\"buffers\":[{\"byteLength\":4,\"uri\":\"missing.bin\"}]"), dir),
                 Error::kFileNotFound, "buffers[0].uri", "missing.bin");
  EXPECT_FAILURE(loadAsset(dir / "nope.gltf"), Error::kFileNotFound, "not found");
  EXPECT_FAILURE(
      loadJson(gltfJson("\"buffers\":[{\"byteLength\":3,\"uri\":\"data:application/octet-stream;base64,AA!A\"}]")),
      Error::kInvalidGltf, "buffers[0].uri", "base64");
  EXPECT_FAILURE(loadJson(gltfJson("\"buffers\":[{\"byteLength\":3,\"uri\":\"data:text/plain,abc\"}]")),
                 Error::kInvalidGltf, "buffers[0].uri", "base64");
  EXPECT_FAILURE(
      loadJson(gltfJson("\"buffers\":[{\"byteLength\":9,\"uri\":\"data:application/octet-stream;base64,AAAA\"}]")),
      Error::kTooLarge, "buffers[0].byteLength");
}

// ---------------------------------------------------------------------------------------------------------
// Morph targets, skins, animations (§3.7.2.2, §3.7.3, §3.11).
TEST(BadMorph, TargetCountsAndWeights) {
  // A second primitive without targets.
  EXPECT_FAILURE(loadJson(mutateBase("\"targets\":[{\"POSITION\":2}]}]",
                                     "\"targets\":[{\"POSITION\":2}]},{\"attributes\":{\"POSITION\":0}}]")),
                 Error::kInvalidGltf, "meshes[0].primitives[1].targets", "same number of targets");
  // A target with no attribute (the schema's minProperties: 1).
  EXPECT_FAILURE(loadJson(mutateBase("\"targets\":[{\"POSITION\":2}]", "\"targets\":[{}]")), Error::kInvalidGltf,
                 "meshes[0].primitives[0].targets[0]", "no attributes");
  // A target accessor with 2 elements against 3 vertices.
  std::string short_target = mutateBase("{\"bufferView\":2,\"componentType\":5126,\"count\":3",
                                        "{\"bufferView\":2,\"componentType\":5126,\"count\":2");
  EXPECT_FAILURE(loadJson(short_target), Error::kInvalidGltf, "meshes[0].primitives[0].targets[0].POSITION", "count 2",
                 "§3.7.2.2");
  EXPECT_FAILURE(loadJson(mutateBase("\"weights\":[0.5]", "\"weights\":[0.5,0.5]")), Error::kInvalidGltf,
                 "meshes[0].weights", "2 weights for 1 morph targets");
  EXPECT_FAILURE(loadJson(mutateBase("{\"mesh\":0,\"skin\":0}", "{\"mesh\":0,\"skin\":0,\"weights\":[]}")),
                 Error::kInvalidGltf, "nodes[0].weights");
  EXPECT_FAILURE(loadJson(mutateBase("{\"mesh\":0,\"skin\":0}", "{\"mesh\":0,\"skin\":0,\"weights\":[1,2,3]}")),
                 Error::kInvalidGltf, "nodes[0].weights", "3 weights");
  EXPECT_FAILURE(loadJson(mutateBase("{\"name\":\"joint\"}", "{\"name\":\"joint\",\"weights\":[1]}")),
                 Error::kInvalidGltf, "nodes[1].weights", "requires a mesh");
  // Attribute counts differ inside one primitive.
  EXPECT_FAILURE(loadJson(mutateBase("{\"bufferView\":7,\"componentType\":5126,\"count\":3",
                                     "{\"bufferView\":7,\"componentType\":5126,\"count\":2")),
                 Error::kInvalidGltf, "meshes[0].primitives[0].attributes.WEIGHTS_0", "same count");
}

TEST(BadSkin, InverseBindMatricesAndJoints) {
  EXPECT_FAILURE(loadJson(mutateBase("\"joints\":[1]", "\"joints\":[1,0]")), Error::kInvalidGltf,
                 "skins[0].inverseBindMatrices", "1 matrices for 2 joints", "§5.28");
  EXPECT_FAILURE(loadJson(mutateBase("\"joints\":[1]", "\"joints\":[]")), Error::kInvalidGltf, "skins[0].joints",
                 "empty");
  EXPECT_FAILURE(loadJson(mutateBase("\"inverseBindMatrices\":5", "\"inverseBindMatrices\":0")), Error::kInvalidGltf,
                 "skins[0].inverseBindMatrices", "MAT4");
  // A JOINTS_0 value beyond skin.joints.
  Bytes bytes = baseBytes();
  bytes.data[160 + 5] = 3;
  std::string json = baseJson(test::bufferJson(bytes.data));
  EXPECT_FAILURE(loadJson(json), Error::kInvalidGltf, "nodes[0]", "JOINTS_0 uses joint 3", "1 joints");
}

// §3.7.3.3: a node with a skin needs JOINTS_0 and WEIGHTS_0 on every primitive of its mesh.
TEST(BadSkin, SkinnedPrimitiveNeedsJointsAndWeights) {
  EXPECT_FAILURE(loadJson(mutateBase("\"JOINTS_0\":6,", "")), Error::kInvalidGltf, "nodes[0]",
                 "meshes[0].primitives[0] has no JOINTS_0", "§3.7.3.3");
  EXPECT_FAILURE(loadJson(mutateBase(",\"WEIGHTS_0\":7", "")), Error::kInvalidGltf, "nodes[0]",
                 "meshes[0].primitives[0] has no WEIGHTS_0", "§3.7.3.3");
  // Without the skin the same primitive is fine (it is just not skinned).
  ASSERT_LOADED(loadJson(mutateBase("{\"mesh\":0,\"skin\":0}", "{\"mesh\":0}")));
}

// §3.6.2.4: vertex attribute elements aligned to 4 bytes (byteOffset and stride multiples of 4).
TEST(BadSize, VertexAttributesAlignedToFourBytes) {
  // JOINTS_0 (u8 VEC4) moved 2 bytes into a 2-byte longer view: component-aligned, not 4-byte aligned.
  std::string shifted =
      mutate(mutateBase("\"byteOffset\":160,\"byteLength\":12", "\"byteOffset\":160,\"byteLength\":14"),
             "{\"bufferView\":6,\"componentType\":5121", "{\"bufferView\":6,\"byteOffset\":2,\"componentType\":5121");
  EXPECT_FAILURE(loadJson(shifted), Error::kInvalidGltf, "meshes[0].primitives[0].attributes.JOINTS_0",
                 "byteOffset 2 is not a multiple of 4", "§3.6.2.4");
  // A tightly packed u8 normalized VEC3 COLOR_0 (3-byte elements, no byteStride).
  std::string color =
      mutate(mutateBase("\"WEIGHTS_0\":7", "\"WEIGHTS_0\":7,\"COLOR_0\":9"),
             "{\"bufferView\":8,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}]",
             "{\"bufferView\":8,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
             "{\"bufferView\":6,\"componentType\":5121,\"normalized\":true,\"count\":3,\"type\":\"VEC3\"}]");
  EXPECT_FAILURE(loadJson(color), Error::kInvalidGltf, "attributes.COLOR_0", "3 bytes apart", "§3.6.2.4");
  // The same data behind a 4-byte byteStride is aligned.
  ASSERT_LOADED(loadJson(mutate(color, "{\"buffer\":0,\"byteOffset\":160,\"byteLength\":12}",
                                "{\"buffer\":0,\"byteOffset\":160,\"byteLength\":12,\"byteStride\":4}")));
}

// A channel on a non-core path (KHR_animation_pointer's "pointer") is ignored, and inspect names it as it is.
TEST(BadAnimation, NonCorePathsAreNamedAndIgnored) {
  const std::string json = mutateBase("{\"node\":1,\"path\":\"translation\"}", "{\"path\":\"pointer\"}");
  Expected<Asset> asset = loadJson(json);
  ASSERT_LOADED(asset);
  const AnimationChannel& channel = asset->animations[0].channels[1];
  EXPECT_EQ(channel.node, kNone);
  EXPECT_EQ(channel.other_path, "pointer");
  const std::filesystem::path dir = test::scratchDir();
  test::writeText(dir / "pointer.gltf", json);
  test::CliRun run = test::runMorphkit(dir, "inspect --json pointer.gltf");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"path\": \"pointer (ignored)\""), std::string::npos) << run.out;
  run = test::runMorphkit(dir, "inspect pointer.gltf");
  EXPECT_NE(run.out.find("1x pointer (ignored) LINEAR"), std::string::npos) << run.out;
}

TEST(BadAnimation, SamplerOutputCounts) {
  // LINEAR translation: 2 keys need 2 VEC3 outputs.
  EXPECT_FAILURE(loadJson(mutateBase("{\"bufferView\":8,\"componentType\":5126,\"count\":2",
                                     "{\"bufferView\":8,\"componentType\":5126,\"count\":1")),
                 Error::kInvalidGltf, "animations[0].channels[1]", "output count 1 != input count 2 x 1");
  // CUBICSPLINE: 2 keys need 6 outputs (in-tangent, value, out-tangent).
  EXPECT_FAILURE(loadJson(mutateBase("{\"input\":3,\"output\":8}",
                                     "{\"input\":3,\"output\":8,\"interpolation\":\"CUBICSPLINE\"}")),
                 Error::kInvalidGltf, "animations[0].channels[1]", "output count 2 != input count 2 x 3");
  // weights × targets: 2 keys × 2 targets = 4 outputs, only 2 present.
  std::string two_targets = mutateBase("\"targets\":[{\"POSITION\":2}]}],\"weights\":[0.5]",
                                       "\"targets\":[{\"POSITION\":2},{\"POSITION\":2}]}],\"weights\":[0.5,0.5]");
  EXPECT_FAILURE(loadJson(two_targets), Error::kInvalidGltf, "animations[0].channels[0]",
                 "output count 2 != input count 2 x 2");
  // weights CUBICSPLINE × 1 target: 2 keys need 6.
  EXPECT_FAILURE(loadJson(mutateBase("{\"input\":3,\"output\":4}",
                                     "{\"input\":3,\"output\":4,\"interpolation\":\"CUBICSPLINE\"}")),
                 Error::kInvalidGltf, "animations[0].channels[0]", "x 3");
  // Wrong output type for the path.
  EXPECT_FAILURE(loadJson(mutateBase("\"node\":1,\"path\":\"translation\"", "\"node\":1,\"path\":\"rotation\"")),
                 Error::kInvalidGltf, "animations[0].channels[1]", "VEC4");
  // The same node and path twice.
  EXPECT_FAILURE(loadJson(mutateBase("\"node\":1,\"path\":\"translation\"", "\"node\":0,\"path\":\"weights\"")),
                 Error::kInvalidGltf, "animations[0].channels[1].target", "already targeted");
  // weights on a node without morph targets.
  EXPECT_FAILURE(loadJson(mutateBase("\"node\":0,\"path\":\"weights\"", "\"node\":1,\"path\":\"weights\"")),
                 Error::kInvalidGltf, "animations[0].channels[0].target", "no mesh with morph targets");
}

TEST(BadAnimation, KeyTimes) {
  auto withTimes = [](float a, float b) {
    Bytes bytes = baseBytes();
    std::memcpy(bytes.data.data() + 80, &a, 4);
    std::memcpy(bytes.data.data() + 84, &b, 4);
    return baseJson(test::bufferJson(bytes.data));
  };
  ASSERT_LOADED(loadJson(withTimes(0.5f, 2.0f)));
  EXPECT_FAILURE(loadJson(withTimes(1.0f, 1.0f)), Error::kInvalidGltf, "animations[0].samplers[0].input",
                 "strictly increasing");
  EXPECT_FAILURE(loadJson(withTimes(1.0f, 0.5f)), Error::kInvalidGltf, "animations[0].samplers[0].input",
                 "strictly increasing");
  EXPECT_FAILURE(loadJson(withTimes(-1.0f, 0.5f)), Error::kInvalidGltf, "animations[0].samplers[0].input", "negative");
  // NaN (and infinite) values are refused for every float accessor, at the accessor (§3.6.2.2).
  EXPECT_FAILURE(loadJson(withTimes(std::nanf(""), 0.5f)), Error::kInvalidGltf, "accessors[3]", "is NaN", "§3.6.2.2");
  EXPECT_FAILURE(loadJson(mutateBase("{\"input\":3,\"output\":4}", "{\"input\":8,\"output\":4}")), Error::kInvalidGltf,
                 "animations[0].samplers[0].input", "SCALAR");
}

// test::validated, the gate every fixture built in code passes (tests/gltf_test_util.h), fails the test with
// validateAsset's message: a primitive without attributes (glTF 2.0 §5.24).
TEST(BadValidate, TheFixtureGateFailsTheTestWithTheValidationMessage) {
  EXPECT_NONFATAL_FAILURE(
      {
        Asset fixture;
        fixture.meshes.resize(1);
        fixture.meshes[0].primitives.resize(1);
        static_cast<void>(test::validated(std::move(fixture)));
      },
      "fixture fails validateAsset: meshes[0].primitives[0].attributes: must not be empty");
}

// The edited copies are deliberately invalid: they reach validateAsset alone, never test::validated.
TEST(BadValidate, CodeBuiltAssetsWithMissingIndicesAreRejectedNotDereferenced) {
  auto asset = loadJson(baseGltf());
  ASSERT_LOADED(asset);
  Asset a = *asset;
  a.meshes[0].primitives[0].attributes[0].accessor = kNone;
  EXPECT_FAILURE(validateAsset(a), Error::kInvalidGltf, "meshes[0].primitives[0].attributes.POSITION");
  Asset b = *asset;
  b.animations[0].samplers[0].input = kNone;
  EXPECT_FAILURE(validateAsset(b), Error::kInvalidGltf, "animations[0].samplers[0].input");
  Asset c = *asset;
  c.accessors[0].has_sparse = true;  // sparse views left at kNone
  c.accessors[0].sparse.count = 1;
  EXPECT_FAILURE(validateAsset(c), Error::kInvalidGltf, "accessors[0].sparse");
  Asset d = *asset;
  d.buffers[0].data.resize(10);
  EXPECT_FAILURE(validateAsset(d), Error::kInvalidGltf, "buffers[0]");
  Asset e = *asset;
  e.buffer_views[0].buffer = kNone;
  EXPECT_FAILURE(validateAsset(e), Error::kInvalidGltf, "bufferViews[0]");
  EXPECT_TRUE(validateAsset(*asset).ok());
}

TEST(BadCli, InvalidFilesGiveExitOneAndOneErrorLine) {
  auto dir = test::scratchDir();
  std::vector<uint8_t> glb = baseGlb();
  std::vector<uint8_t> truncated(glb.begin(), glb.begin() + 100);
  test::writeBytes(dir / "truncated.glb", truncated);
  test::writeText(dir / "cyclic.gltf", nodesJson("{\"children\":[1]},{\"children\":[0]}", "[]"));
  test::writeText(dir / "escape.gltf", gltfJson("\"buffers\":[{\"byteLength\":4,\"uri\":\"../x.bin\"}]"));
  test::writeText(dir / "overrun.gltf",
                  mutateBase("\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},{\"bufferView\":1",
                             "\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},{\"bufferView\":1"));
  for (const char* file : {"truncated.glb", "cyclic.gltf", "escape.gltf", "overrun.gltf", "does-not-exist.glb"}) {
    SCOPED_TRACE(file);
    for (const char* flags : {"", " --json"}) {
      CliResult r = runCli(dir, std::string("inspect ") + file + flags);
      EXPECT_EQ(r.exit_code, 1);
      std::vector<std::string> err = lines(r.err);
      ASSERT_EQ(err.size(), 1u) << r.err;
      EXPECT_EQ(err[0].rfind(std::string("morphkit: error: ") + file + ": ", 0), 0u) << err[0];
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
  CliResult overrun = runCli(dir, "inspect overrun.gltf");
  EXPECT_NE(overrun.err.find("accessors[0]"), std::string::npos) << overrun.err;
}

TEST(BadCli, UsageErrorsExitTwoAndHelpWorksEverywhere) {
  auto dir = test::scratchDir();
  EXPECT_EQ(runCli(dir, "").exit_code, 2);
  EXPECT_EQ(runCli(dir, "inspect").exit_code, 2);  // missing FILE
  EXPECT_EQ(runCli(dir, "inspect a.glb --no-such-flag").exit_code, 2);
  EXPECT_EQ(runCli(dir, "no-such-command").exit_code, 2);
  std::vector<std::string> names = subcommands(dir);
  ASSERT_FALSE(names.empty());
  EXPECT_NE(std::find(names.begin(), names.end(), "inspect"), names.end());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    CliResult help = runCli(dir, name + " --help");
    EXPECT_EQ(help.exit_code, 0) << help.err;
    EXPECT_NE(help.out.find(name), std::string::npos);
    EXPECT_NE(help.out.find("--help"), std::string::npos);
  }
}

// Commands that take an input file and write an output (-o/--output) must fail on bad input without leaving
// the output (or a temporary) behind. Commands whose arguments this generic probe cannot satisfy (usage
// error 2) are skipped.
TEST(BadCli, NoOutputLeftBehindOnBadInput) {
  auto dir = test::scratchDir();
  std::vector<uint8_t> glb = baseGlb();
  std::vector<uint8_t> truncated(glb.begin(), glb.begin() + 100);
  test::writeBytes(dir / "bad.glb", truncated);
  int probed = 0;
  for (const std::string& name : subcommands(dir)) {
    CliResult help = runCli(dir, name + " --help");
    if (help.out.find("--output") == std::string::npos && help.out.find("-o,") == std::string::npos) continue;
    for (const char* flag : {"-o", "--output"}) {
      if (help.out.find(flag) == std::string::npos) continue;
      CliResult r = runCli(dir, name + " bad.glb " + flag + " out.bin");
      if (r.exit_code == 2) continue;
      SCOPED_TRACE(name);
      ++probed;
      EXPECT_EQ(r.exit_code, 1) << r.err;
      std::vector<std::string> err = lines(r.err);
      ASSERT_EQ(err.size(), 1u) << r.err;
      EXPECT_EQ(err[0].rfind("morphkit: error: ", 0), 0u);
      for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        EXPECT_EQ(entry.path().filename().string().rfind("out.bin", 0), std::string::npos)
            << "left behind: " << entry.path();
      }
      break;
    }
  }
  RecordProperty("commands_probed", probed);
}

}  // namespace
}  // namespace morphkit
