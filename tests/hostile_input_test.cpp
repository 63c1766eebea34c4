// SPDX-License-Identifier: MIT
// Hostile input (issue 9): each class of the attack report as a regression test, through the CLI where the
// attack goes through the CLI. Files are built here, small and in memory; nothing is read from ../shared.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/harnesses.h"
#include "gltf_test_util.h"
#include "morphkit/animation.h"
#include "morphkit/gltf.h"
#include "morphkit/gpu.h"
#include "test_support.h"
#include "vk_test_support.h"

extern char** environ;

namespace morphkit {
namespace {

namespace fs = std::filesystem;
using test::Bytes;
using test::gltfJson;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

// No byte a terminal acts on except the '\n' ending each line: no ESC, BEL, CR, no C1 (raw or as UTF-8).
::testing::AssertionResult terminalSafe(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    bool bad = (c < 0x20 && c != '\n') || c == 0x7F ||
               (c >= 0x80 && c <= 0x9F && (i == 0 || static_cast<unsigned char>(text[i - 1]) < 0xC0)) ||
               (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F);
    if (bad) return ::testing::AssertionFailure() << "byte 0x" << std::hex << int(c) << " at " << std::dec << i;
  }
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------------------
// Class 1: amplification. Each file is a few kilobytes; each must finish within 200 MB of peak memory or be
// refused by a budget error (one line naming the budget and its flag). Peak memory is the child's ru_maxrss.

struct MeasuredRun {
  int exit_code = -1;
  std::string out, err;
  long max_rss_mb = 0;
};

// Runs the CLI in `dir` with `args`, `env_extra` appended to the environment ("NAME=value"), and reports the
// child's peak resident memory. ASan's quarantine would hold freed memory resident: turned off, so the figure
// is the program's own (plus ASan's shadow, an overestimate).
MeasuredRun runMeasured(const fs::path& dir, const std::vector<std::string>& args, const std::string& asan_extra = "") {
  std::vector<std::string> argv_text = {test::cliPath().string()};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "ASAN_OPTIONS=", 13) != 0) env_text.emplace_back(*e);
  }
  const char* asan = std::getenv("ASAN_OPTIONS");
  env_text.push_back(std::string("ASAN_OPTIONS=") + (asan ? asan : "") + ":quarantine_size_mb=0" + asan_extra);
  std::vector<char*> argv, envp;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  const fs::path out = dir / "measured.out", err = dir / "measured.err";
  pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0 || !std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr))
      _exit(127);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  MeasuredRun run;
  int status = 0;
  struct rusage usage {};
  if (pid > 0 && wait4(pid, &status, 0, &usage) == pid) {
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.max_rss_mb = usage.ru_maxrss / 1024;  // Linux: kilobytes
  }
  run.out = test::slurp(out);
  run.err = test::slurp(err);
  fs::remove(out);
  fs::remove(err);
  // The figures docs/SECURITY.md quotes: `ctest -R HostileAmplification -V`.
  std::string command;
  for (const auto& a : args) command += " " + a;
  std::printf("[measured]%s: exit %d, peak %ld MB\n", command.c_str(), run.exit_code, run.max_rss_mb);
  return run;
}

// The largest VEC3 accessor without a bufferView that validation allows in a file with no buffer: 16 MiB of
// zeros (validate.cpp, kZeroFilledFloorBytes).
constexpr uint32_t kZeroVec3 = (16u << 20) / 12;

std::string zeroAccessor(uint32_t count, const char* type = "VEC3") {
  return "{\"componentType\":5126,\"count\":" + std::to_string(count) + ",\"type\":\"" + type + "\"}";
}

std::string repeat(const std::string& item, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += (i ? "," : "") + item;
  return out;
}

std::string manyPrimitives(size_t n) {
  return gltfJson("\"accessors\":[" + zeroAccessor(kZeroVec3) + "],\"meshes\":[{\"primitives\":[" +
                  repeat("{\"attributes\":{\"POSITION\":0}}", n) +
                  "]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]");
}
std::string manyTargets(size_t n) {
  return gltfJson("\"accessors\":[" + zeroAccessor(kZeroVec3) +
                  "],\"meshes\":[{\"primitives\":[{\"attributes\":"
                  "{\"POSITION\":0},\"targets\":[" +
                  repeat("{\"POSITION\":0}", n) +
                  "]}]}],\"nodes\":[{\"mesh\":0}],"
                  "\"scenes\":[{\"nodes\":[0]}]");
}
// One sparse accessor (a single non-zero element over 16 MiB of zeros) as the POSITION delta of n targets: not
// all-zero, so each target decodes 16 MiB of dense deltas.
std::string manySparseTargets(size_t n) {
  Bytes b;
  b.put<uint32_t>(7);
  b.put<float>({0, 0, 1});
  return gltfJson("\"buffers\":[" + test::bufferJson(b.data) +
                  "],\"bufferViews\":[{\"buffer\":0,\"byteLength\":4},"
                  "{\"buffer\":0,\"byteOffset\":4,\"byteLength\":12}],\"accessors\":[" +
                  zeroAccessor(kZeroVec3) + "," + "{\"componentType\":5126,\"count\":" + std::to_string(kZeroVec3) +
                  ",\"type\":\"VEC3\",\"sparse\":{\"count\":1,"
                  "\"indices\":{\"bufferView\":0,\"componentType\":5125},\"values\":{\"bufferView\":1}}}],"
                  "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[" +
                  repeat("{\"POSITION\":1}", n) + "]}]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]");
}

std::string manyNodes(size_t n) {
  std::string roots;
  for (size_t i = 0; i < n; ++i) roots += (i ? "," : "") + std::to_string(i);
  return gltfJson("\"accessors\":[" + zeroAccessor(kZeroVec3) +
                  "],\"meshes\":[{\"primitives\":[{\"attributes\":"
                  "{\"POSITION\":0}}]}],\"nodes\":[" +
                  repeat("{\"mesh\":0}", n) + "],\"scenes\":[{\"nodes\":[" + roots + "]}]");
}

// Finished (exit 0) or refused by a budget (exit 1, one "budget:" line naming the flag); never more than 200 MB.
void expectBoundedOrRefused(const MeasuredRun& r, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_LT(r.max_rss_mb, 200) << r.err;
  if (r.exit_code == 0) return;
  EXPECT_EQ(r.exit_code, 1) << r.err;
  std::vector<std::string> err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.err;
  EXPECT_NE(err[0].find("budget: "), std::string::npos) << err[0];
  EXPECT_TRUE(err[0].find("--max-decoded-mb") != std::string::npos ||
              err[0].find("--max-posed-mb") != std::string::npos)
      << err[0];
}

TEST(HostileAmplification, AFewKilobytesNeverTakeGigabytes) {
  fs::path dir = test::scratchDir();
  const std::vector<std::pair<std::string, std::string>> files = {{"prims100.gltf", manyPrimitives(100)},
                                                                  {"prims1000.gltf", manyPrimitives(1000)},
                                                                  {"targets1000.gltf", manyTargets(1000)},
                                                                  {"nodes1000.gltf", manyNodes(1000)},
                                                                  {"sparse1000.gltf", manySparseTargets(1000)}};
  for (const auto& [name, json] : files) {
    ASSERT_LT(json.size(), 40'000u);
    test::writeText(dir / name, json);
    for (const char* command : {"inspect", "pose"}) {
      expectBoundedOrRefused(runMeasured(dir, {command, name}), std::string(command) + " " + name);
    }
  }
  // The refusals name the budget; raising it is the documented way through.
  MeasuredRun prims = runMeasured(dir, {"pose", "prims1000.gltf"});
  EXPECT_NE(prims.err.find("over the posed-data budget of 1024 MiB (raise it with --max-posed-mb)"), std::string::npos)
      << prims.err;
  MeasuredRun sparse = runMeasured(dir, {"inspect", "sparse1000.gltf"});
  EXPECT_NE(sparse.err.find("over the decoded-data budget of 8192 MiB (raise it with --max-decoded-mb)"),
            std::string::npos)
      << sparse.err;
  // 1000 targets of all-zero deltas move nothing: posed, not refused.
  MeasuredRun targets = runMeasured(dir, {"pose", "targets1000.gltf"});
  EXPECT_EQ(targets.exit_code, 0) << targets.err;
}

TEST(HostileAmplification, SharedReferencesAreDecodedOnce) {
  // Ten identical primitives over one 16 MiB accessor: inside the budgets, and decoded once. Ten posed copies
  // are the output itself; ten decoded copies (before) would add another 150 MiB.
  fs::path dir = test::scratchDir();
  test::writeText(dir / "prims10.gltf", manyPrimitives(10));
  test::writeText(dir / "prims1.gltf", manyPrimitives(1));
  MeasuredRun one = runMeasured(dir, {"pose", "prims1.gltf"});
  MeasuredRun ten = runMeasured(dir, {"pose", "prims10.gltf"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(ten.exit_code, 0) << ten.err;
  const long posed_mb = 16;  // one more posed copy of the positions per extra primitive
  EXPECT_LT(ten.max_rss_mb - one.max_rss_mb, 9 * posed_mb + 30) << ten.max_rss_mb << " vs " << one.max_rss_mb;
}

TEST(HostileAmplification, ManySkinsCostOnlyWhatTheSceneUses) {
  // 20 skins of 10^5 joints each (all joint 0), one node using skin 0: only that skin's matrices are built.
  fs::path dir = test::scratchDir();
  std::string joints = repeat("0", 100'000);
  std::string skins = repeat("{\"joints\":[" + joints + "]}", 20);
  Bytes b;
  b.put<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});
  b.put<uint8_t>({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  b.put<float>({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0});
  std::string json =
      gltfJson("\"buffers\":[" + test::bufferJson(b.data) +
               "],\"bufferViews\":["
               "{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12},"
               "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":48}],\"accessors\":["
               "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
               "{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
               "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],"
               "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
               "\"nodes\":[{\"mesh\":0,\"skin\":0}],\"scenes\":[{\"nodes\":[0]}],\"skins\":[" +
               skins + "]");
  test::writeText(dir / "skins.gltf", json);
  MeasuredRun r = runMeasured(dir, {"pose", "skins.gltf"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Parsing 2 * 10^6 joint indices costs what it costs (the JSON DOM); the 19 unused skins cost nothing more.
  // Before: every skin's 10^5 inverse bind matrices (6.4 MB each, 128 MB in all) were built.
  EXPECT_LT(r.max_rss_mb, 160) << "peak " << r.max_rss_mb << " MB";
}

// A Draco stream's connectivity header declares its face and vertex counts; libdraco sizes its corner table from
// them before reading a face (a 226-byte stream found by fuzz_draco took 2.2 GB). The loader reads the counts first
// and refuses a stream that declares more than the primitive's accessors hold.
std::vector<uint8_t> dracoStream(uint8_t method, uint32_t first, uint32_t second) {
  std::vector<uint8_t> s = {'D', 'R', 'A', 'C', 'O', 2, 2, 1, method, 0, 0};
  if (method == 1) s.push_back(0);  // edgebreaker: the traversal type
  for (uint32_t value : {first, second}) {
    do {
      s.push_back(uint8_t((value & 0x7F) | (value >= 0x80 ? 0x80 : 0)));
      value >>= 7;
    } while (value);
  }
  s.resize(s.size() + 200, 0);
  return s;
}

void writeDracoGlb(const fs::path& path, const std::vector<uint8_t>& stream) {
  const std::string size = std::to_string(stream.size());
  const std::string json =
      "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_draco_mesh_compression\"],"
      "\"extensionsRequired\":[\"KHR_draco_mesh_compression\"],\"buffers\":[{\"byteLength\":" +
      size +
      "}],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":" +
      size +
      "}],"
      "\"accessors\":[{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[1,1,1]},"
      "{\"componentType\":5125,\"count\":3,\"type\":\"SCALAR\"}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1,\"extensions\":"
      "{\"KHR_draco_mesh_compression\":{\"bufferView\":0,\"attributes\":{\"POSITION\":0}}}}]}],"
      "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}";
  const std::vector<uint8_t> glb = fuzz::glbOf(json, stream.data(), stream.size());
  test::writeText(path, std::string(glb.begin(), glb.end()));
}

TEST(HostileAmplification, ADracoStreamDeclaringMillionsOfFacesIsRefusedBeforeDecoding) {
  fs::path dir = test::scratchDir();
  struct Case {
    const char* file;
    std::vector<uint8_t> stream;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"edgebreaker-faces.glb", dracoStream(1, 3, 100'000'000),
       "declares 100000000 faces but indices accessor 1 holds 3"},
      {"edgebreaker-vertices.glb", dracoStream(1, 100'000'000, 1), "declares 100000000 vertices"},
      {"sequential-faces.glb", dracoStream(0, 100'000'000, 3), "declares 100000000 faces"},
      {"sequential-points.glb", dracoStream(0, 1, 100'000'000),
       "declares 100000000 points but the primitive's accessors hold 3"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    writeDracoGlb(dir / c.file, c.stream);
    MeasuredRun r = runMeasured(dir, {"pose", c.file});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_LT(r.max_rss_mb, 200) << r.err;
    ASSERT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
}

TEST(HostileAmplification, AHugeDataUriPeaksNearTwiceItsSize) {
  // Before: the file, a padded copy, the DOM's copy, Buffer::uri and the decoded bytes were all alive at once
  // (4.6x the file). Now the file is parsed in place and released, and Buffer::uri keeps no payload.
  fs::path dir = test::scratchDir();
  std::vector<uint8_t> payload(30'000'000, 0x41);
  test::writeText(dir / "uri.gltf", gltfJson("\"buffers\":[" + test::bufferJson(payload) + "]"));
  test::writeText(dir / "small.gltf",
                  gltfJson("\"buffers\":[" + test::bufferJson(std::vector<uint8_t>(16, 0x41)) + "]"));
  MeasuredRun small = runMeasured(dir, {"inspect", "small.gltf"});
  MeasuredRun big = runMeasured(dir, {"inspect", "uri.gltf"});
  ASSERT_EQ(small.exit_code, 0) << small.err;
  ASSERT_EQ(big.exit_code, 0) << big.err;
  const long file_mb = long(fs::file_size(dir / "uri.gltf") >> 20);  // 38 MB of base64
  EXPECT_LT(big.max_rss_mb - small.max_rss_mb, 3 * file_mb) << big.max_rss_mb << " MB vs " << small.max_rss_mb;
}

// ---------------------------------------------------------------------------------------------------------
// Class 2: terminal and log injection.

// A JSON string literal holding `raw` (escaped as JSON, so the file carries the raw bytes after parsing).
std::string jsonString(const std::string& raw) {
  std::string out = "\"";
  for (unsigned char c : raw) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

// A triangle with a morph target, a skin and an animation, every name set to `name`.
std::string namedAsset(const std::string& generator, const std::string& name) {
  Bytes b;
  b.put<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});  // POSITION @0
  b.put<float>({0, 1});                       // times @36
  b.put<float>({0, 1});                       // weights @44
  std::string n = jsonString(name);
  return "{\"asset\":{\"version\":\"2.0\",\"generator\":" + jsonString(generator) +
         "},"
         "\"extensionsUsed\":[" +
         n +
         "],"
         "\"buffers\":[" +
         test::bufferJson(b.data) +
         "],"
         "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":8},"
         "{\"buffer\":0,\"byteOffset\":44,\"byteLength\":8}],"
         "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"name\":" +
         n +
         "},"
         "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
         "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}],"
         "\"meshes\":[{\"name\":" +
         n +
         ",\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[{\"POSITION\":0}]}],"
         "\"extras\":{\"targetNames\":[" +
         n +
         "]}}],"
         "\"nodes\":[{\"name\":" +
         n + ",\"mesh\":0},{\"name\":" + n +
         "}],"
         "\"skins\":[{\"name\":" +
         n +
         ",\"joints\":[1]}],"
         "\"animations\":[{\"name\":" +
         n +
         ",\"samplers\":[{\"input\":1,\"output\":2}],"
         "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}},"
         "{\"sampler\":0,\"target\":{\"node\":0,\"path\":" +
         n +
         "}}]}],"
         "\"scenes\":[{\"name\":" +
         n + ",\"nodes\":[0,1]}]}";
}

const std::string kTitleAndClear = "\x1b]0;pwned\x07\x1b[2J\x1b[H";
const std::string kForgedLine = "\nmorphkit: note: all checks passed\r";
const std::string kC1 =
    "\xC2\x9B"
    "31m\xC2\x85\xE2\x80\xA8\xE2\x80\xAE";

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

// ---------------------------------------------------------------------------------------------------------
// A morphed triangle: POSITION, one POSITION target (+z), a weights animation over `times` with `weights`
// (one per key), and extra JSON spliced into the animation and the root.
struct MorphFile {
  std::vector<float> times = {0, 1};
  std::vector<float> weights = {0, 1};
  float delta = 1.0f;
  std::string mesh_weights;     // e.g. "[0.5]"
  std::string extra_accessors;  // appended to "accessors" (indices from 3), data in `extra_bytes`
  std::vector<uint8_t> extra_bytes;
  std::string extra_samplers;  // appended to the animation's samplers (from index 1)
  std::string extra_channels;  // appended to its channels
  std::string root_extra;      // appended to the root object
  std::string interpolation;   // of sampler 0; empty: LINEAR (CUBICSPLINE: 3 weights per key)

  std::string json() const {
    Bytes b;
    b.put<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});              // @0  POSITION (36)
    b.put<float>({0, 0, delta, 0, 0, delta, 0, 0, delta});  // @36 target (36)
    for (float t : times) b.put<float>(t);                  // @72 times
    for (float w : weights) b.put<float>(w);                //     weights
    const size_t weights_at = 72 + 4 * times.size();
    const size_t extra_at = weights_at + 4 * weights.size();
    b.data.insert(b.data.end(), extra_bytes.begin(), extra_bytes.end());
    std::string views =
        "{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":36},"
        "{\"buffer\":0,\"byteOffset\":72,\"byteLength\":" +
        std::to_string(4 * times.size()) +
        "},"
        "{\"buffer\":0,\"byteOffset\":" +
        std::to_string(weights_at) + ",\"byteLength\":" + std::to_string(4 * weights.size()) + "}";
    if (!extra_bytes.empty()) {
      views += ",{\"buffer\":0,\"byteOffset\":" + std::to_string(extra_at) +
               ",\"byteLength\":" + std::to_string(extra_bytes.size()) + "}";
    }
    return gltfJson("\"buffers\":[" + test::bufferJson(b.data) + "],\"bufferViews\":[" + views +
                    "],"
                    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
                    "\"min\":[0,0,0],\"max\":[1,1,0]},"
                    "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
                    "{\"bufferView\":2,\"componentType\":5126,\"count\":" +
                    std::to_string(times.size()) +
                    ",\"type\":\"SCALAR\"},"
                    "{\"bufferView\":3,\"componentType\":5126,\"count\":" +
                    std::to_string(weights.size()) + ",\"type\":\"SCALAR\"}" + extra_accessors +
                    "],"
                    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"targets\":[{\"POSITION\":1}]}]" +
                    (mesh_weights.empty() ? "" : ",\"weights\":" + mesh_weights) +
                    "}],"
                    "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}],\"scene\":0,"
                    "\"animations\":[{\"samplers\":[{\"input\":2,\"output\":3" +
                    (interpolation.empty() ? "" : ",\"interpolation\":\"" + interpolation + "\"") + "}" +
                    extra_samplers +
                    "],"
                    "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}" +
                    extra_channels + "]}]" + root_extra);
  }
};

// One error line naming the file, nothing on stdout, nothing written.
void expectOneErrorLine(const test::CliRun& r, const std::string& file, const std::vector<std::string>& fragments) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  std::vector<std::string> err = lines(r.err);
  ASSERT_EQ(err.size(), 1u) << r.err;
  EXPECT_EQ(err[0].rfind("morphkit: error: " + file + ": ", 0), 0u) << err[0];
  for (const auto& f : fragments)
    EXPECT_NE(err[0].find(f), std::string::npos) << "'" << err[0] << "' lacks '" << f << "'";
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// ---------------------------------------------------------------------------------------------------------
// Class 4: undefined behaviour in render's frame count (UBSan aborts before the fix; Release rendered 1 frame).

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

// ---------------------------------------------------------------------------------------------------------
// Class 5: samplers used only by KHR_animation_pointer channels, or by nothing, are ignored with a note (the file
// is valid: the extension is used, not required).

MorphFile pointerFile() {
  MorphFile file;
  Bytes extra;
  extra.put<float>({0.25f, 0.75f});  // a SCALAR pointer output, 2 keys
  extra.put<float>({1, 2, 3});       // 3 floats for 2 keys: not a multiple
  file.extra_bytes = extra.data;
  file.extra_accessors =
      ",{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"}"
      ",{\"bufferView\":4,\"byteOffset\":8,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"}";
  file.extra_samplers = ",{\"input\":2,\"output\":4},{\"input\":2,\"output\":5}";
  file.extra_channels =
      ",{\"sampler\":1,\"target\":{\"path\":\"pointer\",\"extensions\":{\"KHR_animation_pointer\":"
      "{\"pointer\":\"/materials/0/pbrMetallicRoughness/metallicFactor\"}}}}";
  file.root_extra = ",\"extensionsUsed\":[\"KHR_animation_pointer\"]";
  return file;
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

// ---------------------------------------------------------------------------------------------------------
// Class 6: non-finite keyframes. The rule (docs/SECURITY.md): glTF 2.0 §3.6.2.2 forbids NaN and infinities in
// accessors, so validation refuses them, once, for every path; finite data that overflows during posing is an
// error too. No path prints NaN weights or writes a NaN position.

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
