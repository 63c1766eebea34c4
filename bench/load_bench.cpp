// SPDX-License-Identifier: MIT
// load_bench.cpp — glTF loading: morphkit (simdjson + one validation pass) against tinygltf 2.7 (Debian's
// libtinygltf-dev, nlohmann::json), in one binary, on the largest shared model (MorphSkinBlob52.glb) and on
// the default make-demo asset (52 targets × 20k vertices, written to a temporary .glb at start-up).
//
// Variants per asset:
//   morphkit/file    loadAsset(path): map + parse + resolve buffers (the BIN chunk a view into the mapping) +
//                    validate; from the second iteration on, mapFile hands out the mapping it kept (no fault)
//   morphkit/fileread  the same with LoadOptions::map_files = false: the file read into memory, BIN copied out
//   morphkit/memory  loadAssetFromMemory(bytes): the same without the file read
//   tinygltf/file    TinyGLTF::LoadBinaryFromFile
//   tinygltf/memory  TinyGLTF::LoadBinaryFromMemory
//   FileBytes/map|read/SIZE  a SIZE-byte file brought into memory and every cache line read, by mmap (what mapFile
//                    does for a file of at least kMapMinBytes) or by readFile: where mapping starts to pay
// tinygltf gets a no-op image loader (morphkit never decodes images; neither asset has any anyway).
// Counters: bytes = .glb bytes per second; faults = page faults per load (getrusage minor + major: the per-page
// kernel work that makes mapping slow on some machines, docs/PERFORMANCE.md "Repeated loads"). Shared assets come from
// $MORPHKIT_SHARED_DIR (default ../shared). `load_bench --once KIND FILE` times a single load in a fresh process
// instead (see loadOnce).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/files.h"

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
  input.path =
      std::filesystem::temp_directory_path() / ("morphkit_load_bench_demo_" + std::to_string(getpid()) + ".glb");
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

// This process's page faults so far.
long pageFaults() {
  struct rusage usage;
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt + usage.ru_majflt;
}

bool ready(benchmark::State& state, const Input& in) {
  if (in.bytes.empty()) {
    state.SkipWithError(("input missing: " + in.path.string()).c_str());
    return false;
  }
  state.SetLabel(kNames[state.range(0)]);
  return true;
}

// `faults`: pageFaults() before the loop.
void finish(benchmark::State& state, const Input& in, long faults) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(in.bytes.size()));
  state.counters["faults"] = benchmark::Counter(double(pageFaults() - faults), benchmark::Counter::kAvgIterations);
}

void morphkitFile(benchmark::State& state, bool map_files) {
  const Input& in = input(int(state.range(0)));
  if (!ready(state, in)) return;
  LoadOptions options;
  options.map_files = map_files;
  const long faults = pageFaults();
  for (auto _ : state) {
    auto asset = loadAsset(in.path, options);
    if (!asset) {
      state.SkipWithError(asset.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(asset->accessors.data());
  }
  finish(state, in, faults);
}

void BM_MorphkitFile(benchmark::State& state) {
  morphkitFile(state, true);
}
void BM_MorphkitFileRead(benchmark::State& state) {
  morphkitFile(state, false);
}

void BM_MorphkitMemory(benchmark::State& state) {
  const Input& in = input(int(state.range(0)));
  if (!ready(state, in)) return;
  const long faults = pageFaults();
  for (auto _ : state) {
    auto asset = loadAssetFromMemory(in.bytes, in.path.parent_path());
    if (!asset) {
      state.SkipWithError(asset.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(asset->accessors.data());
  }
  finish(state, in, faults);
}

// Maps or reads a file of state.range(0) bytes, then reads one byte per cache line (the loader reads them all).
void fileBytes(benchmark::State& state, bool map) {
  const size_t size = size_t(state.range(0));
  const auto path = std::filesystem::temp_directory_path() /
                    ("morphkit_load_bench_" + std::to_string(getpid()) + "_" + std::to_string(size) + ".bin");
  std::vector<uint8_t> bytes(size, 1);
  if (!writeFileAtomic(path, std::span<const uint8_t>(bytes))) {
    state.SkipWithError("cannot write the temporary file");
    return;
  }
  for (auto _ : state) {
    uint64_t sum = 0;
    if (map) {
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      ::close(fd);
      for (size_t i = 0; i < size; i += 64) sum += static_cast<const uint8_t*>(p)[i];
      ::munmap(p, size);
    } else {
      auto read = readFile(path);
      for (size_t i = 0; i < size; i += 64) sum += (*read)[i];
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(size));
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
}

void BM_FileBytesMap(benchmark::State& state) {
  fileBytes(state, true);
}
void BM_FileBytesRead(benchmark::State& state) {
  fileBytes(state, false);
}
BENCHMARK(BM_FileBytesMap)->RangeMultiplier(4)->Range(4 << 10, 4 << 20)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FileBytesRead)->RangeMultiplier(4)->Range(4 << 10, 4 << 20)->Unit(benchmark::kMicrosecond);

// The ways a loader can bring in the input's file (args: input, way), then one byte per 4 KiB page read: mmap alone,
// with MAP_POPULATE, with MADV_POPULATE_READ, with MADV_WILLNEED, or read() into a fresh vector. What each costs
// is the machine's page handling, which decides whether mapping or reading is the faster way in
// (docs/PERFORMANCE.md, "Zero-copy loading").
void BM_FileWays(benchmark::State& state) {
  const Input& in = input(int(state.range(0)));
  if (!ready(state, in)) return;
  const int way = int(state.range(1));
  const char* ways[] = {"mmap", "MAP_POPULATE", "MADV_POPULATE_READ", "MADV_WILLNEED", "read"};
  state.SetLabel(std::string(kNames[state.range(0)]) + " " + ways[way]);
  for (auto _ : state) {
    const int fd = ::open(in.path.c_str(), O_RDONLY | O_CLOEXEC);
    const size_t size = in.bytes.size();
    uint64_t sum = 0;
    if (way == 4) {
      std::vector<uint8_t> bytes(size);
      size_t got = 0;
      while (got < size) {
        const ssize_t r = ::read(fd, bytes.data() + got, size - got);
        if (r <= 0) break;
        got += size_t(r);
      }
      for (size_t i = 0; i < got; i += 4096) sum += bytes[i];
    } else {
      auto* p = static_cast<const uint8_t*>(
          ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | (way == 1 ? MAP_POPULATE : 0), fd, 0));
      if (p != MAP_FAILED) {
        if (way == 2) ::madvise(const_cast<uint8_t*>(p), size, 22 /* MADV_POPULATE_READ, Linux 5.14 */);
        if (way == 3) ::madvise(const_cast<uint8_t*>(p), size, MADV_WILLNEED);
        for (size_t i = 0; i < size; i += 4096) sum += p[i];
        ::munmap(const_cast<uint8_t*>(p), size);
      }
    }
    ::close(fd);
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(in.bytes.size()));
}
BENCHMARK(BM_FileWays)
    ->ArgsProduct({{0, 1}, {0, 1, 2, 3, 4}})
    ->ArgNames({"input", "way"})
    ->Unit(benchmark::kMillisecond);

#if MORPHKIT_HAVE_TINYGLTF
bool noImage(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int, void*) {
  return true;
}

void BM_TinygltfFile(benchmark::State& state) {
  const Input& in = input(int(state.range(0)));
  if (!ready(state, in)) return;
  const long faults = pageFaults();
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
  finish(state, in, faults);
}

void BM_TinygltfMemory(benchmark::State& state) {
  const Input& in = input(int(state.range(0)));
  if (!ready(state, in)) return;
  const long faults = pageFaults();
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
  finish(state, in, faults);
}
#endif

BENCHMARK(BM_MorphkitFile)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MorphkitFileRead)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
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

// --once KIND FILE: one load, the first of this process, timed alone (wall µs on stdout). The benchmarks above
// load in a loop, so from the second iteration on a loader that reads the file gets heap pages the previous
// iteration freed and warmed; a tool that loads once (the CLI) takes fresh pages, whose first touch can cost more
// than the load (docs/PERFORMANCE.md, "Zero-copy loading"). KIND: morphkit (mapped), morphkit-read, tinygltf.
int loadOnce(const std::string& kind, const std::string& path) {
  const auto start = std::chrono::steady_clock::now();
  bool ok = false;
  std::string error;
  size_t keep = 0;
  if (kind == "morphkit" || kind == "morphkit-read") {
    LoadOptions options;
    options.map_files = kind == "morphkit";
    auto asset = loadAsset(path, options);
    ok = bool(asset);
    if (asset) keep = asset->accessors.size();
    if (!asset) error = asset.error().message;
#if MORPHKIT_HAVE_TINYGLTF
  } else if (kind == "tinygltf") {
    tinygltf::TinyGLTF loader;
    loader.SetImageLoader(noImage, nullptr);
    tinygltf::Model model;
    std::string warning;
    ok = loader.LoadBinaryFromFile(&model, &error, &warning, path);
    keep = model.accessors.size();
#endif
  } else {
    std::fprintf(stderr, "load_bench --once: unknown loader '%s' (morphkit, morphkit-read, tinygltf)\n", kind.c_str());
    return 2;
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  if (!ok) {
    std::fprintf(stderr, "load_bench --once: %s: %s\n", path.c_str(), error.c_str());
    return 1;
  }
  std::printf("%s %.1f us (%zu accessors)\n", kind.c_str(), us, keep);
  return 0;
}

}  // namespace
}  // namespace morphkit

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--once") return morphkit::loadOnce(argv[2], argv[3]);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
