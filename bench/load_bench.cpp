// SPDX-License-Identifier: MIT
// load_bench.cpp — glTF loading: morphkit (simdjson + one validation pass) against tinygltf 2.7 (Debian's
// libtinygltf-dev, nlohmann::json), in one binary, on the largest shared model (MorphSkinBlob52.glb) and on
// the default make-demo asset (52 targets × 20k vertices, written to a temporary .glb at start-up).
//
// Variants per asset:
//   morphkit/file    loadAsset(path): read + parse + resolve buffers + validate
//   morphkit/memory  loadAssetFromMemory(bytes): the same without the file read
//   tinygltf/file    TinyGLTF::LoadBinaryFromFile
//   tinygltf/memory  TinyGLTF::LoadBinaryFromMemory
// tinygltf gets a no-op image loader (morphkit never decodes images; neither asset has any anyway).
// Counter: bytes = .glb bytes per second. Shared assets come from $MORPHKIT_SHARED_DIR (default ../shared).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "morphkit/demo.h"
#include "morphkit/glb_writer.h"
#include "morphkit/gltf.h"
#include "morphkit/io.h"

#if MORPHKIT_HAVE_TINYGLTF
#include <tiny_gltf.h>
#endif

namespace morphkit {
namespace {

std::filesystem::path sharedDir() {
  const char* dir = std::getenv("MORPHKIT_SHARED_DIR");
  return dir ? std::filesystem::path(dir) : std::filesystem::path("../shared");
}

struct Input {
  std::filesystem::path path;
  std::vector<uint8_t> bytes;
};

Input blob52() {
  Input input;
  input.path = sharedDir() / "assets/gltf/MorphSkinBlob52/MorphSkinBlob52.glb";
  auto bytes = readFile(input.path);
  if (bytes) input.bytes = std::move(bytes).value();
  return input;
}

std::filesystem::path g_demo_path;  // the temporary demo .glb, removed at exit

Input demo() {
  Input input;
  auto asset = makeDemoAsset({});
  if (!asset) return input;
  auto glb = writeGlb(*asset);
  if (!glb) return input;
  input.path = std::filesystem::temp_directory_path() / ("morphkit_load_bench_demo_" + std::to_string(getpid()) + ".glb");
  if (!writeFileAtomic(input.path, std::span<const uint8_t>(*glb))) return input;
  g_demo_path = input.path;
  input.bytes = std::move(glb).value();
  return input;
}

const Input& input(int which) {
  static const Input inputs[2] = {blob52(), demo()};
  return inputs[which];
}

const char* kNames[2] = {"MorphSkinBlob52", "make-demo-default"};

bool ready(benchmark::State& state, const Input& in) {
  if (in.bytes.empty()) {
    state.SkipWithError(("input missing: " + in.path.string()).c_str());
    return false;
  }
  state.SetLabel(kNames[state.range(0)]);
  return true;
}

void finish(benchmark::State& state, const Input& in) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(in.bytes.size()));
}

void BM_MorphkitFile(benchmark::State& state) {
  const Input& in = input(int(state.range(0)));
  if (!ready(state, in)) return;
  for (auto _ : state) {
    auto asset = loadAsset(in.path);
    if (!asset) {
      state.SkipWithError(asset.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(asset->accessors.data());
  }
  finish(state, in);
}

void BM_MorphkitMemory(benchmark::State& state) {
  const Input& in = input(int(state.range(0)));
  if (!ready(state, in)) return;
  for (auto _ : state) {
    auto asset = loadAssetFromMemory(in.bytes, in.path.parent_path());
    if (!asset) {
      state.SkipWithError(asset.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(asset->accessors.data());
  }
  finish(state, in);
}

#if MORPHKIT_HAVE_TINYGLTF
bool noImage(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int, void*) {
  return true;
}

void BM_TinygltfFile(benchmark::State& state) {
  const Input& in = input(int(state.range(0)));
  if (!ready(state, in)) return;
  for (auto _ : state) {
    tinygltf::TinyGLTF loader;
    loader.SetImageLoader(noImage, nullptr);
    tinygltf::Model model;
    std::string error, warning;
    if (!loader.LoadBinaryFromFile(&model, &error, &warning, in.path.string())) {
      state.SkipWithError(error.c_str());
      return;
    }
    benchmark::DoNotOptimize(model.accessors.data());
  }
  finish(state, in);
}

void BM_TinygltfMemory(benchmark::State& state) {
  const Input& in = input(int(state.range(0)));
  if (!ready(state, in)) return;
  for (auto _ : state) {
    tinygltf::TinyGLTF loader;
    loader.SetImageLoader(noImage, nullptr);
    tinygltf::Model model;
    std::string error, warning;
    if (!loader.LoadBinaryFromMemory(&model, &error, &warning, in.bytes.data(), unsigned(in.bytes.size()),
                                     in.path.parent_path().string())) {
      state.SkipWithError(error.c_str());
      return;
    }
    benchmark::DoNotOptimize(model.accessors.data());
  }
  finish(state, in);
}
#endif

BENCHMARK(BM_MorphkitFile)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MorphkitMemory)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
#if MORPHKIT_HAVE_TINYGLTF
BENCHMARK(BM_TinygltfFile)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TinygltfMemory)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
#endif

// Removes the temporary demo .glb when the process exits.
struct Cleanup {
  ~Cleanup() {
    std::error_code ignored;
    if (!g_demo_path.empty()) std::filesystem::remove(g_demo_path, ignored);
  }
} cleanup;

}  // namespace
}  // namespace morphkit

BENCHMARK_MAIN();
