// SPDX-License-Identifier: MIT
// The conventions docs/CLI.md promises for every command: one error line `morphkit: error: ...`, exit 2 for a
// usage error and 1 for a bad input, CLI11's own parse errors included.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "demo_dir_support.h"
#include "gltf_test_util.h"
#include "morphkit/core/pose.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/files.h"
#include "morphkit/vk/gpu.h"
#include "test_support.h"

namespace morphkit {
namespace {

using test::CliRun;

CliRun morphkit(const std::filesystem::path& dir, const std::string& args) {
  return test::runMorphkit(dir, args);
}

// A small demo asset (3 animations: talk, blink, nod).
void writeDemo(const std::filesystem::path& dir, const std::string& name = "demo.glb") {
  test::writeDemoGlb(dir / name);
}

// One triangle whose buffer lives one folder up: `sub/tri.gltf` -> `../tri.bin`.
void writeExternalTriangle(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "sub");
  const float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  std::ofstream(dir / "tri.bin", std::ios::binary).write(reinterpret_cast<const char*>(positions), sizeof positions);
  std::ofstream(dir / "sub/tri.gltf") << R"({"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
    "nodes":[{"mesh":0}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],
    "buffers":[{"uri":"../tri.bin","byteLength":36}],"bufferViews":[{"buffer":0,"byteLength":36}],
    "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}]})";
}

// Exactly one stderr line, with the documented prefix.
void expectOneErrorLine(const CliRun& run) {
  EXPECT_TRUE(run.err.starts_with("morphkit: error: ")) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
}

void expectUsage(const CliRun& run) {
  EXPECT_EQ(run.exit_code, 2) << run.err;
  expectOneErrorLine(run);
}

void expectBadInput(const CliRun& run) {
  EXPECT_EQ(run.exit_code, 1) << run.err;
  expectOneErrorLine(run);
}

TEST(CliConventions, ParseErrorsAreOneLineWithThePrefixAndExitTwo) {
  auto dir = test::scratchDir();
  writeDemo(dir);
  for (const char* args : {"pose", "pose demo.glb --nosuch", "pose demo.glb --scene", "pose demo.glb --cpu-path slow",
                           "--nosuch", "make-demo out.glb --targets abc"}) {
    SCOPED_TRACE(args);
    CliRun run = morphkit(dir, args);
    expectUsage(run);
    EXPECT_EQ(run.err.find("Run with --help"), std::string::npos) << run.err;
  }
  // The hint names the command's own --help.
  CliRun run = morphkit(dir, "pose demo.glb --nosuch");
  EXPECT_NE(run.err.find("--nosuch"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("`morphkit pose --help`"), std::string::npos) << run.err;
}

TEST(CliConventions, NoCommandUnknownCommandAndHelp) {
  auto dir = test::scratchDir();
  CliRun none = morphkit(dir, "");
  expectUsage(none);
  EXPECT_NE(none.err.find("no command given"), std::string::npos) << none.err;
  EXPECT_EQ(none.err.find("A subcommand is required"), std::string::npos) << none.err;

  CliRun unknown = morphkit(dir, "posee x.glb");
  expectUsage(unknown);
  EXPECT_NE(unknown.err.find("unknown command 'posee'"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("pose"), unknown.err.find("'posee'")) << unknown.err;
  EXPECT_NE(unknown.err.find("inspect, "), std::string::npos) << unknown.err;

  // `morphkit help` is `morphkit --help`; `morphkit help pose` is `morphkit pose --help`. The usage line names
  // the program, not the binary's path.
  CliRun help = morphkit(dir, "help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("Usage: morphkit "), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find(test::cliPath().string()), std::string::npos) << help.out;
  EXPECT_EQ(help.out, morphkit(dir, "--help").out);
  CliRun help_pose = morphkit(dir, "help pose");
  EXPECT_EQ(help_pose.exit_code, 0) << help_pose.err;
  EXPECT_NE(help_pose.out.find("Usage: morphkit pose "), std::string::npos) << help_pose.out;
  EXPECT_EQ(help_pose.out, morphkit(dir, "pose --help").out);
  expectUsage(morphkit(dir, "help nosuch"));
}

// `morphkit --help` lists the commands in one chosen order (each registration's own `order`; main refuses two at
// one position), the order docs/CLI.md's "unknown command" line shows too.
TEST(CliConventions, HelpListsTheCommandsInTheirOrder) {
  auto dir = test::scratchDir();
  const std::vector<std::string> expected = {"inspect", "make-demo", "pose",     "check", "render", "view",
                                             "animate", "optimize",  "material", "batch", "bench"};
  CliRun help = morphkit(dir, "--help");
  ASSERT_EQ(help.exit_code, 0) << help.err;
  std::vector<std::string> listed;
  const size_t section = help.out.find("Subcommands:");
  ASSERT_NE(section, std::string::npos) << help.out;
  std::istringstream lines(help.out.substr(section));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line) && line.starts_with("  ")) {
    std::istringstream words(line);
    std::string name;
    words >> name;
    if (std::find(expected.begin(), expected.end(), name) != expected.end()) listed.push_back(name);
  }
  // Commands not built here (view, render, material, batch need Vulkan) are simply absent, in the same order.
  std::vector<std::string> built;
  for (const std::string& name : expected) {
    if (std::find(listed.begin(), listed.end(), name) != listed.end()) built.push_back(name);
  }
  EXPECT_EQ(listed, built) << help.out;
  EXPECT_GE(listed.size(), 5u) << help.out;
  // The unknown-command line lists them in the same order, as docs/CLI.md shows it.
  CliRun unknown = morphkit(dir, "nosuchcommand");
  std::string names;
  for (const std::string& name : listed) names += (names.empty() ? "" : ", ") + name;
  EXPECT_NE(unknown.err.find("(commands: " + names + ")"), std::string::npos) << unknown.err;
  const std::string cli_md = test::slurp(test::sourceDir() / "docs" / "CLI.md");
  std::string all;
  for (const std::string& name : expected) all += (all.empty() ? "" : ", ") + name;
  EXPECT_NE(cli_md.find("(commands: " + all + ")"), std::string::npos);
}

TEST(CliConventions, OutOfRangeOptionValuesAreUsageErrorsWhateverTheValue) {
  auto dir = test::scratchDir();
  writeDemo(dir);
  // make-demo's bounds: -1 and 99999 targets are the same kind of mistake.
  for (const char* args :
       {"make-demo out.glb --targets -1", "make-demo out.glb --targets 99999", "make-demo out.glb --vertices 3",
        "make-demo out.glb --bones 0", "make-demo out.glb --capture-seconds -2"}) {
    SCOPED_TRACE(args);
    expectUsage(morphkit(dir, args));
    EXPECT_FALSE(std::filesystem::exists(dir / "out.glb"));
  }
  // render's option values are checked before any file or device work.
  for (const char* args :
       {"render demo.glb --duration -1", "render demo.glb --size 0x0", "render demo.glb --fps 0",
        "render demo.glb --frames 5:2", "render demo.glb --camera 1,2", "render demo.glb --morph-path x",
        "pose demo.glb --time abc", "pose demo.glb --time 1:0:1", "pose demo.glb --weights jawOpen",
        "pose demo.glb --out p.txt", "bench demo.glb --vertices 10"}) {
    SCOPED_TRACE(args);
    expectUsage(morphkit(dir, args));
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "demo_render"));
}

TEST(CliConventions, BadInputIsOneLineAndExitOne) {
  auto dir = test::scratchDir();
  writeDemo(dir);
  std::ofstream(dir / "broken.gltf") << "{";
  for (const char* args : {"inspect missing.glb", "inspect broken.gltf", "pose broken.gltf", "pose demo.glb --anim 7",
                           "pose demo.glb --anim nosuch", "render broken.gltf --no-video"}) {
    SCOPED_TRACE(args);
    expectBadInput(morphkit(dir, args));
  }
}

TEST(CliConventions, RenderTakesAllowExternalPathsLikePose) {
  auto dir = test::scratchDir();
  writeExternalTriangle(dir);
  // Without the flag both refuse the URI and name the flag.
  for (const char* args : {"pose sub/tri.gltf", "render sub/tri.gltf --size 8x8 --no-video --out r"}) {
    SCOPED_TRACE(args);
    CliRun run = morphkit(dir, args);
    expectBadInput(run);
    EXPECT_NE(run.err.find("--allow-external-paths"), std::string::npos) << run.err;
  }
  EXPECT_EQ(morphkit(dir, "pose sub/tri.gltf --allow-external-paths").exit_code, 0);
  MORPHKIT_REQUIRE_GPU_DEVICE();
  CliRun run = morphkit(dir, "render sub/tri.gltf --allow-external-paths --size 8x8 --no-video --out r");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "r/frame_0000.png"));
}

// --read-files (LoadOptions::map_files = false) changes how the bytes arrive, never what the commands compute; bench
// takes it with FILE only.
TEST(CliConventions, ReadFilesGivesWhatMappingGives) {
  auto dir = test::scratchDir();
  ASSERT_EQ(morphkit(dir, "make-demo demo.glb --vertices 4000 --targets 4 --capture-seconds 0.2").exit_code, 0);
  ASSERT_GT(std::filesystem::file_size(dir / "demo.glb"), 65536u);  // over mapFile's kMapMinBytes: really mapped
  for (const char* command : {"pose demo.glb --time 0.1 --json", "inspect demo.glb --json"}) {
    SCOPED_TRACE(command);
    CliRun mapped = morphkit(dir, command);
    ASSERT_EQ(mapped.exit_code, 0) << mapped.err;
    CliRun read = morphkit(dir, std::string(command) + " --read-files");
    ASSERT_EQ(read.exit_code, 0) << read.err;
    EXPECT_EQ(read.out, mapped.out);
  }
  CliRun bench =
      morphkit(dir, "bench demo.glb --read-files --device cpu --frames 1 --threads 1 --paths reference --json");
  EXPECT_EQ(bench.exit_code, 0) << bench.err;
  expectUsage(morphkit(dir, "bench --read-files --device cpu"));
}

// --anim is resolved by one helper on every command: index, exact name, case-insensitive when unambiguous, 'rest';
// an unknown or ambiguous name lists what the file has.
TEST(CliConventions, AnimationLookupIsSharedCaseInsensitiveAndListsTheNames) {
  auto dir = test::scratchDir();
  writeDemo(dir);
  CliRun exact = morphkit(dir, "pose demo.glb --anim blink --time 0.1 --json");
  ASSERT_EQ(exact.exit_code, 0) << exact.err;
  CliRun folded = morphkit(dir, "pose demo.glb --anim BLINK --time 0.1 --json");
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_EQ(folded.out, exact.out);
  EXPECT_NE(exact.out, morphkit(dir, "pose demo.glb --anim rest --time 0.1 --json").out);  // not the rest pose
  for (const char* args : {"pose demo.glb --anim tlak", "render demo.glb --anim tlak --size 8x8 --no-video",
                           "bench demo.glb --anim tlak --device cpu --frames 1"}) {
    SCOPED_TRACE(args);
    CliRun run = morphkit(dir, args);
    expectBadInput(run);
    EXPECT_NE(run.err.find("--anim 'tlak': no animation of that name; did you mean 'talk'? (the file has 0 'talk', 1 "
                           "'blink', 2 'express'"),
              std::string::npos)
        << run.err;
  }
  CliRun index = morphkit(dir, "pose demo.glb --anim 3");
  expectBadInput(index);
  EXPECT_NE(index.err.find("the file has 0 'talk'"), std::string::npos) << index.err;
  // Two names equal ignoring case: the exact one still wins, a third spelling is ambiguous.
  DemoOptions options;
  options.vertices = 600;
  options.targets = 4;
  auto asset = makeDemoAsset(options);
  ASSERT_TRUE(asset.ok());
  asset->animations[1].name = "TALK";
  asset = test::validated(std::move(asset).value());
  auto glb = writeGlb(*asset);
  ASSERT_TRUE(glb.ok());
  ASSERT_TRUE(writeFileAtomic(dir / "twice.glb", std::span<const uint8_t>(*glb)).ok());
  EXPECT_EQ(morphkit(dir, "pose twice.glb --anim TALK --time 0.1 --json").out,
            morphkit(dir, "pose twice.glb --anim 1 --time 0.1 --json").out);
  CliRun ambiguous = morphkit(dir, "pose twice.glb --anim Talk");
  expectBadInput(ambiguous);
  EXPECT_NE(ambiguous.err.find("2 animations match ignoring case"), std::string::npos) << ambiguous.err;
}

// One default when --anim is absent, on every command (docs/CLI.md): the first animation; the rest pose when the
// file has none or a capture (--weights-csv) plays instead.
TEST(CliConventions, TheDefaultAnimationIsOneRuleOnEveryCommand) {
  auto dir = test::scratchDir();
  ASSERT_EQ(morphkit(dir, "make-demo demo.glb --vertices 600 --targets 4 --capture-seconds 0.2").exit_code, 0);
  writeExternalTriangle(dir);
  CliRun first = morphkit(dir, "pose demo.glb --anim 0 --time 0.1 --json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(morphkit(dir, "pose demo.glb --time 0.1 --json").out, first.out);
  EXPECT_NE(first.out.find("\"anim\":0"), std::string::npos);
  CliRun bench = morphkit(dir, "bench demo.glb --device cpu --frames 1 --threads 1 --paths reference --json");
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(bench.out).get(root), simdjson::SUCCESS);
  EXPECT_EQ(int64_t(root["animation"]["index"]), 0);
  // No animation in the file: the rest pose, on pose and bench alike.
  CliRun still = morphkit(dir, "pose sub/tri.gltf --allow-external-paths --json");
  ASSERT_EQ(still.exit_code, 0) << still.err;
  EXPECT_NE(still.out.find("\"anim\":null"), std::string::npos);
  CliRun still_bench = morphkit(
      dir, "bench sub/tri.gltf --allow-external-paths --device cpu --frames 1 --threads 1 --paths reference --json");
  ASSERT_EQ(still_bench.exit_code, 0) << still_bench.err;
  ASSERT_EQ(parser.parse(still_bench.out).get(root), simdjson::SUCCESS);
  EXPECT_TRUE(root["animation"].is_null());
  // A capture replaces the clip: it plays on the rest pose unless --anim names one.
  EXPECT_EQ(morphkit(dir, "pose demo.glb --weights-csv demo_capture.csv --time 0.1 --json").out,
            morphkit(dir, "pose demo.glb --anim rest --weights-csv demo_capture.csv --time 0.1 --json").out);
  MORPHKIT_REQUIRE_GPU_DEVICE();
  CliRun render = morphkit(dir, "render demo.glb --size 8x8 --frames 0:1 --no-video --no-contact-sheet --out r --json");
  ASSERT_EQ(render.exit_code, 0) << render.err;
  EXPECT_NE(render.out.find("\"animation\":0"), std::string::npos) << render.out;
  CliRun captured = morphkit(dir,
                             "render demo.glb --weights-csv demo_capture.csv --size 8x8 --frames 0:1 --no-video "
                             "--no-contact-sheet --out c --json");
  ASSERT_EQ(captured.exit_code, 0) << captured.err;
  EXPECT_NE(captured.out.find("\"animation\":null"), std::string::npos) << captured.out;
}

// --device cpu|gpu|N everywhere; pose's old --gpu N still works with a warning.
TEST(CliConventions, OneDeviceFlag) {
  auto dir = test::scratchDir();
  writeDemo(dir);
  for (const char* args : {"pose demo.glb --device bogus", "pose demo.glb --device -1", "render demo.glb --device cpu",
                           "render demo.glb --device fast", "bench --device cpu",
                           "bench demo.glb --device cpu --paths gpu", "pose demo.glb --device 0 --gpu 0"}) {
    SCOPED_TRACE(args);
    expectUsage(morphkit(dir, args));
  }
  CliRun old = morphkit(dir, "pose demo.glb --gpu 0");
  EXPECT_EQ(old.exit_code, 0) << old.err;
  EXPECT_EQ(old.err, "morphkit: warning: --gpu 0 is deprecated; use --device 0\n");
  EXPECT_EQ(old.out, morphkit(dir, "pose demo.glb").out);  // --device stays cpu: as before, --gpu alone changes nothing
  CliRun cpu_rows = morphkit(dir, "bench demo.glb --device cpu --frames 1 --threads 1 --repetitions 1 --json");
  ASSERT_EQ(cpu_rows.exit_code, 0) << cpu_rows.err;
  EXPECT_NE(cpu_rows.out.find("\"path\": \"reference\""), std::string::npos) << cpu_rows.out;
  EXPECT_EQ(cpu_rows.out.find("\"path\": \"gpu\""), std::string::npos) << cpu_rows.out;
  MORPHKIT_REQUIRE_GPU_DEVICE();
  CliRun best = morphkit(dir, "pose demo.glb --anim talk --time 0.3 --device gpu --json");
  ASSERT_EQ(best.exit_code, 0) << best.err;
  CliRun first = morphkit(dir, "pose demo.glb --anim talk --time 0.3 --device 0 --json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  CliRun alias = morphkit(dir, "pose demo.glb --anim talk --time 0.3 --device gpu --gpu 0 --json");
  ASSERT_EQ(alias.exit_code, 0) << alias.err;
  EXPECT_EQ(alias.out, first.out);
  EXPECT_NE(morphkit(dir, "render demo.glb --device 0 --frames 0:1 --size 8x8 --no-video --out r").exit_code, 2);
}

// --out creates the folders it needs (none when the command fails first); a file name whose extension contradicts
// what the command writes is refused.
TEST(CliConventions, OutputFoldersAreCreatedAndContradictingExtensionsRefused) {
  auto dir = test::scratchDir();
  writeDemo(dir);
  CliRun posed = morphkit(dir, "pose demo.glb --out nodir/deeper/p.obj");
  ASSERT_EQ(posed.exit_code, 0) << posed.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "nodir/deeper/p.obj"));
  CliRun demo = morphkit(dir, "make-demo made/d.glb --vertices 100 --targets 2 --no-capture");
  ASSERT_EQ(demo.exit_code, 0) << demo.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "made/d.glb"));
  // A file where a folder should be: one line naming the output once, and no folder left behind.
  std::ofstream(dir / "plain") << "x";
  CliRun blocked = morphkit(dir, "pose demo.glb --out plain/p.obj");
  expectBadInput(blocked);
  EXPECT_EQ(blocked.err.find("plain/p.obj"), blocked.err.rfind("plain/p.obj")) << blocked.err;
  CliRun cannot = morphkit(dir, "pose demo.glb --out fresh/p.json --time 0 --scene 0 --max-posed-mb 0");
  EXPECT_EQ(cannot.exit_code, 1) << cannot.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "fresh"));
  for (const char* args : {"make-demo face.gltf --vertices 100 --targets 2 --no-capture", "make-demo face --no-capture",
                           "pose demo.glb --time 0,1 --out newdir/p.obj", "render demo.glb --out clip.mp4",
                           "animate demo.glb --weights-csv c.csv --out newdir/x.gltf"}) {
    SCOPED_TRACE(args);
    expectUsage(morphkit(dir, args));
  }
  for (const char* name : {"face.gltf", "face", "newdir", "clip.mp4"})
    EXPECT_FALSE(std::filesystem::exists(dir / name)) << name;
}

// inspect takes several files (JSON: an array of the single-file objects, a failing file an {file, error} entry).
TEST(CliConventions, InspectTakesSeveralFiles) {
  auto dir = test::scratchDir();
  writeDemo(dir);
  writeDemo(dir, "other.glb");
  CliRun one = morphkit(dir, "inspect demo.glb --json");
  CliRun two = morphkit(dir, "inspect other.glb --json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  CliRun both = morphkit(dir, "inspect demo.glb other.glb --json");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  ASSERT_FALSE(one.out.empty());
  EXPECT_EQ(both.out, "[\n" + one.out.substr(0, one.out.size() - 1) + ",\n" + two.out + "]\n");
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(both.out).get(root), simdjson::SUCCESS);
  EXPECT_EQ(simdjson::dom::array(root).size(), 2u);

  CliRun missing = morphkit(dir, "inspect demo.glb missing.glb --json");
  expectBadInput(missing);
  ASSERT_EQ(parser.parse(missing.out).get(root), simdjson::SUCCESS) << missing.out;
  std::string_view error;
  EXPECT_EQ(root.at(1)["error"].get(error), simdjson::SUCCESS) << missing.out;
  CliRun table = morphkit(dir, "inspect demo.glb missing.glb other.glb");
  EXPECT_EQ(table.exit_code, 1);
  EXPECT_NE(table.out.find("other.glb"), std::string::npos) << table.out;  // the files after a failure still run
}

// inspect --json: materials, images, node names and the rest-pose bounds of the default scene.
TEST(CliConventions, InspectJsonHasMaterialsImagesNodeNamesAndRestBounds) {
  auto dir = test::scratchDir();
  writeDemo(dir);
  CliRun run = morphkit(dir, "inspect demo.glb --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(run.out).get(root), simdjson::SUCCESS);
  auto asset = loadAsset(dir / "demo.glb");
  ASSERT_TRUE(asset.ok());
  simdjson::dom::array names = root["nodeNames"];
  ASSERT_EQ(names.size(), asset->nodes.size());
  for (size_t i = 0; i < asset->nodes.size(); ++i) EXPECT_EQ(std::string_view(names.at(i)), asset->nodes[i].name);
  simdjson::dom::array materials = root["materials"];
  ASSERT_EQ(materials.size(), asset->materials.size());
  EXPECT_EQ(std::string_view(materials.at(0)["name"]), "Skin");
  EXPECT_EQ(std::string_view(materials.at(0)["alphaMode"]), "OPAQUE");
  EXPECT_EQ(simdjson::dom::array(root["images"]).size(), asset->images.size());
  // The bounds are the rest pose's, as pose computes it.
  auto pose = poseAsset(*asset, kNone, PoseOptions{});
  ASSERT_TRUE(pose.ok());
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (const PosedPrimitive& m : pose->meshes) {
    for (size_t i = 0; i < m.positions.size(); ++i) {
      lo[i % 3] = std::min(lo[i % 3], double(m.positions[i]));
      hi[i % 3] = std::max(hi[i % 3], double(m.positions[i]));
    }
  }
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_FLOAT_EQ(float(double(root["bounds"]["min"].at(k))), float(lo[k])) << k;
    EXPECT_FLOAT_EQ(float(double(root["bounds"]["max"].at(k))), float(hi[k])) << k;
    EXPECT_LT(lo[k], hi[k]);
  }
}

// The table groups quantized targets into one line per attribute and lists the target names.
TEST(CliConventions, InspectTableGroupsQuantizedTargetsAndListsNames) {
  MORPHKIT_REQUIRE_SHARED();
  auto dir = test::scratchDir();
  const std::string file = (test::assetsDir() / "MorphSkinBlob52/MorphSkinBlob52_quantized.glb").string();
  CliRun run = morphkit(dir, "inspect '" + file + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.find("targets[1]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("quantized targets 0-51 POSITION: i16 normalized (52 targets)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("quantized targets 0-51 NORMAL: i8 normalized (52 targets)"), std::string::npos) << run.out;
  auto asset = loadAsset(file);
  ASSERT_TRUE(asset.ok());
  ASSERT_EQ(asset->meshes[0].target_names.size(), 52u);
  for (const std::string& name : asset->meshes[0].target_names)
    EXPECT_NE(run.out.find(" " + name), std::string::npos) << name;
  EXPECT_NE(run.out.find("target names:"), std::string::npos) << run.out;
}

// A failed step is exit 1 even after other outputs were written: render when ffmpeg fails.
TEST(CliConventions, RenderFailsWhenFfmpegFails) {
  MORPHKIT_REQUIRE_GPU_DEVICE();
  auto dir = test::scratchDir();
  writeDemo(dir);
  std::filesystem::create_directories(dir / "bin");
  std::ofstream(dir / "bin/ffmpeg") << "#!/bin/sh\nexit 1\n";
  std::filesystem::permissions(dir / "bin/ffmpeg", std::filesystem::perms::owner_all);
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", ((dir / "bin").string() + ":" + path).c_str(), 1);
  CliRun run = morphkit(dir, "render demo.glb --frames 0:2 --size 8x8 --out r");
  setenv("PATH", path.c_str(), 1);
  expectBadInput(run);
  EXPECT_NE(run.err.find("ffmpeg failed"), std::string::npos) << run.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "r/frame_0001.png"));
  EXPECT_FALSE(std::filesystem::exists(dir / "r/animation.mp4"));
}

}  // namespace
}  // namespace morphkit
