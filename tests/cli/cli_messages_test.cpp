// SPDX-License-Identifier: MIT
// The messages of issue #30 ("the first hour of a new user"), each with its exact text: a mistake is named for
// what it is, with what was probably meant, in the one line `morphkit: error: ...` (docs/CLI.md).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "demo_dir_support.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/files.h"
#include "morphkit/model/json_syntax.h"
#include "morphkit/model/names.h"
#include "morphkit/vk/gpu.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::CliRun;

// `args` fails with exit `code` and exactly this one stderr line.
void expectError(const std::filesystem::path& dir, const std::string& args, int code, const std::string& line) {
  SCOPED_TRACE(args);
  CliRun run = test::runMorphkit(dir, args);
  EXPECT_EQ(run.exit_code, code);
  EXPECT_EQ(run.err, "morphkit: error: " + line + "\n");
}

TEST(CliMessages, RenderFrameCapAndDurationSayWhatIsWrong) {
  auto dir = test::smallDemoDir();
  expectError(dir, "render demo.glb --frames 0:100001", 2,
              "--frames 0:100001: 100001 frames, more than the 100000 one render writes (split the range across runs: "
              "--frames A:B, then --resume)");
  expectError(dir, "render demo.glb --frames 5:2", 2, "--frames 5:2: expected A:B with A < B (half-open, at --fps)");
  const std::string help = " (`morphkit render --help` for usage)";
  expectError(dir, "render demo.glb --duration -1", 2,
              "render: --duration: expected a number of seconds >= 0, not '-1'" + help);
  expectError(dir, "render demo.glb --duration nan", 2,
              "render: --duration: expected a number of seconds >= 0, not 'nan'" + help);
  EXPECT_FALSE(std::filesystem::exists(dir / "demo_render"));
}

TEST(CliMessages, UnknownOptionsAndCommandsNameTheClosestOne) {
  auto dir = test::smallDemoDir();
  expectError(dir, "--nosuch", 2, "unknown option '--nosuch' (`morphkit --help` lists the options)");
  expectError(dir, "-v", 2, "unknown option '-v'; did you mean '-V'? (`morphkit --help` lists the options)");
  expectError(dir, "pose demo.glb --tim 1", 2,
              "pose: unknown option '--tim'; did you mean '--time'? (`morphkit pose --help` lists the options)");
  expectError(dir, "pose demo.glb --tim=1", 2,
              "pose: unknown option '--tim'; did you mean '--time'? (`morphkit pose --help` lists the options)");
  expectError(dir, "pose demo.glb extra1 extra2", 2,
              "pose: unexpected arguments 'extra1' 'extra2' (`morphkit pose --help` for usage)");
  CliRun typo = test::runMorphkit(dir, "rendr demo.glb");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_TRUE(typo.err.starts_with("morphkit: error: unknown command 'rendr'; did you mean 'render'? (commands: "))
      << typo.err;
  CliRun far = test::runMorphkit(dir, "xyzzy");
  EXPECT_TRUE(far.err.starts_with("morphkit: error: unknown command 'xyzzy' (commands: ")) << far.err;
}

TEST(CliMessages, VersionOnEveryCommand) {
  auto dir = test::scratchDir();
  const CliRun top = test::runMorphkit(dir, "--version");
  ASSERT_EQ(top.exit_code, 0) << top.err;
  ASSERT_TRUE(top.out.starts_with("morphkit ")) << top.out;
  for (const char* args : {"-V", "pose -V", "render --version", "inspect -V", "batch -V", "make-demo -V"}) {
    SCOPED_TRACE(args);
    const CliRun run = test::runMorphkit(dir, args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, top.out);
  }
}

TEST(CliMessages, NamesGetTheClosestAnimationAndSceneAndEmptyValuesAreRefused) {
  auto dir = test::smallDemoDir();
  const std::string animations = "(the file has 0 'talk', 1 'blink', 2 'express'";
  expectError(dir, "pose demo.glb --anim tlak", 1,
              "demo.glb: --anim 'tlak': no animation of that name; did you mean 'talk'? " + animations +
                  "; 'rest': the rest pose)");
  expectError(dir, "pose demo.glb --anim ''", 2,
              "pose: --anim: expected an index, a name or 'rest', not '' (`morphkit pose --help` for usage)");
  expectError(dir, "render demo.glb --anim ''", 2,
              "render: --anim: expected an index, a name or 'rest', not '' (`morphkit render --help` for usage)");
  // 4294967295 is kNone ("every mesh") inside: as a mesh index it is a name nobody has, never every mesh.
  expectError(
      dir, "pose demo.glb --weights 4294967295:0=1", 1,
      "demo.glb: weights: no target named '4294967295:0' (closest: eyeBlinkLeft, eyeLookInLeft, eyeLookOutLeft) "
      "(--ignore-unknown to skip it)");
  expectError(dir, "pose demo.glb --scene 99999999999999", 1,
              "demo.glb: --scene 99999999999999: no scene of that index (the file has 0 'Scene')");
  expectError(dir, "pose demo.glb --scene Scnee", 1,
              "demo.glb: --scene 'Scnee': no scene of that name; did you mean 'Scene'? (the file has 0 'Scene')");
  EXPECT_EQ(test::runMorphkit(dir, "pose demo.glb --scene scene --json").out,
            test::runMorphkit(dir, "pose demo.glb --scene 0 --json").out);
  expectError(dir, "pose demo.glb --time 1,,2", 2, "--time '1,,2': an empty item");
  expectError(dir, "pose demo.glb --time 1,", 2, "--time '1,': an empty item");
  CliRun two = test::runMorphkit(dir, "pose demo.glb --time 0.5,1 --json");
  EXPECT_EQ(two.exit_code, 0) << two.err;
}

TEST(CliMessages, InspectWarningsNameTheirFile) {
  auto dir = test::smallDemoDir();
  // The demo with its first vertex's skin weights halved: their sum, 0.5, is warned about.
  DemoOptions options;
  options.vertices = 600;
  options.targets = 4;
  auto asset = makeDemoAsset(options);
  ASSERT_TRUE(asset.ok());
  const Primitive& primitive = asset->meshes[0].primitives[0];
  const Accessor& weights = asset->accessors[findAttribute(primitive.attributes, "WEIGHTS_0")];
  ASSERT_EQ(weights.component_type, ComponentType::kFloat);
  const BufferView& view = asset->buffer_views[weights.buffer_view];
  uint8_t* bytes = asset->buffers[view.buffer].data.mutate().data() + view.byte_offset + weights.byte_offset;
  for (int i = 0; i < 4; ++i) {
    float w = 0;
    std::memcpy(&w, bytes + 4 * i, 4);
    w *= 0.5f;
    std::memcpy(bytes + 4 * i, &w, 4);
  }
  auto glb = writeGlb(*asset);
  ASSERT_TRUE(glb.ok());
  ASSERT_TRUE(writeFileAtomic(dir / "off.glb", std::span<const uint8_t>(*glb)).ok());
  CliRun run = test::runMorphkit(dir, "inspect demo.glb off.glb");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.err.starts_with("morphkit: warning: off.glb: meshes[0].primitives[0]: 1 vertices have skin weights"))
      << run.err;
  // pose and render say once, with the count, that they rescaled them.
  CliRun pose = test::runMorphkit(dir, "pose off.glb --time 0.1");
  EXPECT_EQ(pose.exit_code, 0) << pose.err;
  EXPECT_EQ(pose.err,
            "morphkit: note: off.glb: skin weights of 1 vertices (1 primitive) did not sum to 1 and were rescaled "
            "(--keep-skin-weights uses them as stored)\n");
  EXPECT_EQ(test::runMorphkit(dir, "pose off.glb --time 0.1 --keep-skin-weights").err, "");
  MORPHKIT_REQUIRE_GPU_DEVICE();
  CliRun render = test::runMorphkit(dir, "render off.glb --anim rest --size 8x8 --no-video --out r");
  EXPECT_EQ(render.exit_code, 0) << render.err;
  EXPECT_EQ(render.err,
            "morphkit: note: off.glb: skin weights of 1 vertices did not sum to 1 and were rescaled "
            "(--keep-skin-weights uses them as stored)\n");
}

TEST(CliMessages, JsonParseErrorsNameTheLineAndColumn) {
  auto dir = test::smallDemoDir();
  std::ofstream(dir / "job.json") << "{\n  \"assets\": [\"demo.glb\"],\n  \"out\": \"o\"\n  \"chunk\": 4\n}\n";
  CliRun job = test::runMorphkit(dir, "batch job.json");
  EXPECT_EQ(job.exit_code, 1);
  EXPECT_TRUE(job.err.starts_with("morphkit: error: job.json: line 4, column 3: not JSON: ")) << job.err;
  std::ofstream(dir / "w.json") << "{\"jawOpen\": 0.5,,}";
  CliRun weights = test::runMorphkit(dir, "pose demo.glb --weights-file w.json");
  EXPECT_EQ(weights.exit_code, 1);
  EXPECT_TRUE(weights.err.starts_with("morphkit: error: w.json: line 1, column 17: not JSON: ")) << weights.err;
}

TEST(JsonSyntax, FindsTheFirstByteThatBreaksTheGrammar) {
  auto at = [](std::string_view text) {
    const std::optional<TextPosition> p = jsonSyntaxErrorAt(text);
    return p ? std::to_string(p->line) + ":" + std::to_string(p->column) : std::string("none");
  };
  EXPECT_EQ(at(R"({"a": [1, 2.5e3, -0, true, false, null, "x\u00e9\n"]})"), "none");
  EXPECT_EQ(at("{\"a\": 1,}"), "1:9");
  EXPECT_EQ(at("{\n\"a\" 1}"), "2:5");
  EXPECT_EQ(at("[1 2]"), "1:4");
  EXPECT_EQ(at("[01]"), "1:3");
  EXPECT_EQ(at("\"\\q\""), "1:3");
  EXPECT_EQ(at("{\"a\": tru}"), "1:10");
  EXPECT_EQ(at("[1] x"), "1:5");
  EXPECT_EQ(at(""), "1:1");
  EXPECT_EQ(at(std::string(2000, '[')), "1:1025");  // deeper than simdjson's 1024
  EXPECT_EQ(jsonErrorWhere("[1,]"), "line 1, column 4: ");
  EXPECT_EQ(jsonErrorWhere("[1]"), "");
}

TEST(Names, DistanceClosestAndLikelyMeant) {
  EXPECT_EQ(nameDistance("Wakl", "Walk"), 1u);  // a swap of neighbours is one edit
  EXPECT_EQ(nameDistance("jawopen", "JawOpen"), 0u);
  EXPECT_EQ(nameDistance("", "abc"), 3u);
  EXPECT_EQ(closestNames("rendr", {"inspect", "render", "pose"}, 2), (std::vector<std::string>{"render", "pose"}));
  EXPECT_EQ(likelyMeant("--tim", {"--time", "--threads"}), "--time");
  EXPECT_EQ(likelyMeant("Fly", {"Survey", "Walk", "Run"}), "");
  EXPECT_EQ(didYouMean("blnk", {"talk", "blink"}), "; did you mean 'blink'?");
}

}  // namespace
}  // namespace morphkit
