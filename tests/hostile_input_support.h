// SPDX-License-Identifier: MIT
// The helpers of hostile_input_test.cpp and hostile_text_test.cpp (one file until it passed 600 lines).
#pragma once
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
#include "morphkit/core/animation.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/vk/gpu.h"
#include "test_support.h"
#include "vk_test_support.h"

extern char** environ;

namespace morphkit {
namespace {

namespace fs = std::filesystem;
using test::Bytes;
using test::gltfJson;

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

// No byte a terminal acts on except the '\n' ending each line: no ESC, BEL, CR, no C1 (raw or as UTF-8).
inline ::testing::AssertionResult terminalSafe(const std::string& text) {
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
inline MeasuredRun runMeasured(const fs::path& dir, const std::vector<std::string>& args,
                               const std::string& asan_extra = "") {
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

inline std::string zeroAccessor(uint32_t count, const char* type = "VEC3") {
  return "{\"componentType\":5126,\"count\":" + std::to_string(count) + ",\"type\":\"" + type + "\"}";
}

inline std::string repeat(const std::string& item, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += (i ? "," : "") + item;
  return out;
}

inline std::string manyPrimitives(size_t n) {
  return gltfJson("\"accessors\":[" + zeroAccessor(kZeroVec3) + "],\"meshes\":[{\"primitives\":[" +
                  repeat("{\"attributes\":{\"POSITION\":0}}", n) +
                  "]}],\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]");
}
inline std::string manyTargets(size_t n) {
  return gltfJson("\"accessors\":[" + zeroAccessor(kZeroVec3) +
                  "],\"meshes\":[{\"primitives\":[{\"attributes\":"
                  "{\"POSITION\":0},\"targets\":[" +
                  repeat("{\"POSITION\":0}", n) +
                  "]}]}],\"nodes\":[{\"mesh\":0}],"
                  "\"scenes\":[{\"nodes\":[0]}]");
}
// One sparse accessor (a single non-zero element over 16 MiB of zeros) as the POSITION delta of n targets: not
// all-zero, so each target decodes 16 MiB of dense deltas.
inline std::string manySparseTargets(size_t n) {
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

inline std::string manyNodes(size_t n) {
  std::string roots;
  for (size_t i = 0; i < n; ++i) roots += (i ? "," : "") + std::to_string(i);
  return gltfJson("\"accessors\":[" + zeroAccessor(kZeroVec3) +
                  "],\"meshes\":[{\"primitives\":[{\"attributes\":"
                  "{\"POSITION\":0}}]}],\"nodes\":[" +
                  repeat("{\"mesh\":0}", n) + "],\"scenes\":[{\"nodes\":[" + roots + "]}]");
}

// Finished (exit 0) or refused by a budget (exit 1, one "budget:" line naming the flag); never more than 200 MB.
inline void expectBoundedOrRefused(const MeasuredRun& r, const std::string& what) {
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

// A Draco stream's connectivity header declares its face and vertex counts; libdraco sizes its corner table from
// them before reading a face (a 226-byte stream found by fuzz_draco took 2.2 GB). The loader reads the counts first
// and refuses a stream that declares more than the primitive's accessors hold.
inline std::vector<uint8_t> dracoStream(uint8_t method, uint32_t first, uint32_t second) {
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

inline void writeDracoGlb(const fs::path& path, const std::vector<uint8_t>& stream) {
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

// ---------------------------------------------------------------------------------------------------------
// Class 2: terminal and log injection.

// A JSON string literal holding `raw` (escaped as JSON, so the file carries the raw bytes after parsing).
inline std::string jsonString(const std::string& raw) {
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
inline std::string namedAsset(const std::string& generator, const std::string& name) {
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
inline void expectOneErrorLine(const test::CliRun& r, const std::string& file,
                               const std::vector<std::string>& fragments) {
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

// ---------------------------------------------------------------------------------------------------------
// Class 5: samplers used only by KHR_animation_pointer channels, or by nothing, are ignored with a note (the file
// is valid: the extension is used, not required).

inline MorphFile pointerFile() {
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

// ---------------------------------------------------------------------------------------------------------
// Class 6: non-finite keyframes. The rule (docs/SECURITY.md): glTF 2.0 §3.6.2.2 forbids NaN and infinities in
// accessors, so validation refuses them, once, for every path; finite data that overflows during posing is an
// error too. No path prints NaN weights or writes a NaN position.

}  // namespace
}  // namespace morphkit
