// SPDX-License-Identifier: MIT
// The helpers of bad_input_test.cpp and bad_input_graph_test.cpp (one file until it passed 600 lines).
#pragma once
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/accessor.h"
#include "test_support.h"

// Tracks the largest single heap allocation (malloc or new, any library) through the sanitizer allocator's
// hooks, so a test can prove that absurd declared sizes are refused before anything that large is allocated.
// scripts/test builds with ASan, where the hooks exist; other builds report 0 (the check then holds trivially).
namespace morphkit::test {
inline std::atomic<size_t> g_largest_allocation{0};
inline size_t largestAllocation() {
  return g_largest_allocation.load();
}
inline void resetLargestAllocation() {
  g_largest_allocation = 0;
}
}  // namespace morphkit::test

#if defined(__SANITIZE_ADDRESS__)
// From the sanitizer runtime's public interface (sanitizer/allocator_interface.h, which GCC does not install).
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, size_t),
                                                         void (*free_hook)(const volatile void*));
static void recordAllocation(const volatile void*, size_t size) {
  size_t seen = morphkit::test::g_largest_allocation.load();
  while (size > seen && !morphkit::test::g_largest_allocation.compare_exchange_weak(seen, size)) {
  }
}
static void ignoreFree(const volatile void*) {}
static const int kHooksInstalled = __sanitizer_install_malloc_and_free_hooks(recordAllocation, ignoreFree);
#endif

namespace morphkit {
namespace {

using test::Bytes;
using test::gltfJson;
using test::loadJson;

// ---------------------------------------------------------------------------------------------------------
// The valid base asset: a skinned, morphed, animated, textured triangle. `buffer` is spliced in as the
// buffers[0] entry (a data: URI for .gltf text, a bare byteLength for GLB).
inline Bytes baseBytes() {
  Bytes b;
  b.put<float>({0, 0, 0, 1, 0, 0, 0, 1, 0});                       // @0   POSITION (36)
  b.put<uint16_t>({0, 1, 2}).fill(2, 0);                           // @36  indices (6 + 2)
  b.put<float>({0, 0, 1, 0, 0, 1, 0, 0, 1});                       // @44  target POSITION (36)
  b.put<float>({0, 1});                                            // @80  key times (8)
  b.put<float>({0, 1});                                            // @88  weights output (8)
  b.put<float>({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});  // @96  IBM (64)
  b.put<uint8_t>({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});            // @160 JOINTS_0 (12)
  b.put<float>({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0});              // @172 WEIGHTS_0 (48)
  b.put<float>({0, 0, 0, 1, 2, 3});                                // @220 translation output (24)
  return b;                                                        // 244 bytes
}

inline std::string baseJson(const std::string& buffer) {
  return gltfJson(
      "\"buffers\":[" + buffer +
      "],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6},"
      "{\"buffer\":0,\"byteOffset\":44,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":80,\"byteLength\":8},"
      "{\"buffer\":0,\"byteOffset\":88,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":96,\"byteLength\":64},"
      "{\"buffer\":0,\"byteOffset\":160,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":172,\"byteLength\":48},"
      "{\"buffer\":0,\"byteOffset\":220,\"byteLength\":24}],"
      "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
      "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"},"
      "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
      "{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
      "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
      "{\"bufferView\":5,\"componentType\":5126,\"count\":1,\"type\":\"MAT4\"},"
      "{\"bufferView\":6,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
      "{\"bufferView\":7,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},"
      "{\"bufferView\":8,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":6,\"WEIGHTS_0\":7},\"indices\":1,"
      "\"material\":0,\"targets\":[{\"POSITION\":2}]}],\"weights\":[0.5]}],"
      "\"nodes\":[{\"mesh\":0,\"skin\":0},{\"name\":\"joint\"}],"
      "\"scenes\":[{\"nodes\":[0,1]}],\"scene\":0,"
      "\"skins\":[{\"joints\":[1],\"inverseBindMatrices\":5}],"
      "\"animations\":[{\"samplers\":[{\"input\":3,\"output\":4},{\"input\":3,\"output\":8}],"
      "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}},"
      "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"translation\"}}]}],"
      "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
      "\"textures\":[{\"source\":0}],\"images\":[{\"uri\":\"tex.png\"}]");
}

inline std::string baseGltf() {
  return baseJson(test::bufferJson(baseBytes().data));
}

inline std::vector<uint8_t> baseGlb() {
  std::vector<uint8_t> bin = baseBytes().data;
  return test::makeGlb(baseJson("{\"byteLength\":244}"), &bin);
}

// Replaces exactly one occurrence of `from` (the test fails if it is missing, so mutations cannot go stale).
inline std::string mutate(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "mutation anchor not found: " << from;
  if (at == std::string::npos) return text;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << "mutation anchor not unique: " << from;
  return text.replace(at, from.size(), to);
}

inline std::string mutateBase(const std::string& from, const std::string& to) {
  return mutate(baseGltf(), from, to);
}

inline void putU32(std::vector<uint8_t>& bytes, size_t offset, uint32_t value) {
  std::memcpy(bytes.data() + offset, &value, 4);
}

// ---------------------------------------------------------------------------------------------------------
// Node hierarchy (§3.5.2: disjoint strict trees).
inline std::string nodesJson(const std::string& nodes, const std::string& roots = "[0]") {
  return gltfJson("\"nodes\":[" + nodes + "],\"scenes\":[{\"nodes\":" + roots + "}]");
}

// ---------------------------------------------------------------------------------------------------------
// The CLI: exit codes, one error line, no partial output.
using CliResult = test::CliRun;
using test::slurp;

inline CliResult runCli(const std::filesystem::path& dir, const std::string& args) {
  return test::runMorphkit(dir, args);
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

// Subcommand names from `morphkit --help` (CLI11 lists them under "Subcommands:").
inline std::vector<std::string> subcommands(const std::filesystem::path& dir) {
  CliResult help = runCli(dir, "--help");
  EXPECT_EQ(help.exit_code, 0);
  std::vector<std::string> names;
  bool in_list = false;
  for (const std::string& line : lines(help.out)) {
    if (line.rfind("Subcommands:", 0) == 0) {
      in_list = true;
      continue;
    }
    if (!in_list || line.empty() || line[0] != ' ') continue;
    size_t start = line.find_first_not_of(' ');
    size_t end = line.find(' ', start);
    std::string name = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
    bool plain = !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos;
    if (plain) names.push_back(name);
  }
  return names;
}

}  // namespace
}  // namespace morphkit
