// SPDX-License-Identifier: MIT
// Zero-copy loading (issue 12 goal 6): loadAsset maps a .glb or .bin and points Buffer::data into the mapping;
// BufferBytes owns or views bytes and copies on write. Where the bytes live is checked against the kernel's own
// list of mappings (/proc/self/maps), not against anything the loader reports.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/accessor.h"
#include "morphkit/model/buffer_bytes.h"
#include "morphkit/model/files.h"

namespace morphkit {
namespace {

// The file mapped at `address` in this process ("" when the address is not in a file mapping), with " (deleted)"
// as the kernel appends it once the file's last name is gone.
std::string mappedFileAt(const void* address) {
  std::ifstream maps("/proc/self/maps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx", &begin, &end) != 2 || at < begin || at >= end) continue;
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode;
    std::getline(fields >> std::ws, path);
    return path;
  }
  return "";
}

std::vector<uint8_t> fileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `count` distinct floats, larger than kMapMinBytes for count >= 16384.
std::vector<uint8_t> floatBytes(size_t count) {
  std::vector<uint8_t> bytes(count * 4);
  for (size_t i = 0; i < count; ++i) {
    const float v = float(i % 1000) * 0.25f - 7.0f;
    std::memcpy(bytes.data() + 4 * i, &v, 4);
  }
  return bytes;
}

std::string floatAccessorJson(size_t count, const std::string& buffer) {
  const std::string length = std::to_string(count * 4);
  return test::gltfJson("\"buffers\":[" + buffer + "],\"bufferViews\":[{\"buffer\":0,\"byteLength\":" + length +
                        "}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":" +
                        std::to_string(count) + ",\"type\":\"SCALAR\"}]");
}

constexpr size_t kFloats = 65536;  // 256 KiB: mapped

// A GLB of kFloats floats in `dir`; returns its path. The BIN chunk starts right after the JSON chunk.
std::filesystem::path writeGlb(const std::filesystem::path& dir, std::vector<uint8_t>* bin_out = nullptr) {
  std::vector<uint8_t> bin = floatBytes(kFloats);
  const auto path = dir / "big.glb";
  const std::string buffer = "{\"byteLength\":" + std::to_string(bin.size()) + "}";
  test::writeBytes(path, test::makeGlb(floatAccessorJson(kFloats, buffer), &bin));
  if (bin_out) *bin_out = bin;
  return path;
}

bool endsWith(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(MappedLoad, GlbBinChunkIsAViewIntoTheMappedFileWithTheFilesBytes) {
  const auto dir = test::scratchDir();
  std::vector<uint8_t> bin;
  const auto path = writeGlb(dir, &bin);
  auto asset = loadAsset(path);
  ASSERT_LOADED(asset);
  const BufferBytes& data = asset->buffers[0].data;
  EXPECT_TRUE(data.isView());
  EXPECT_EQ(mappedFileAt(data.data()), std::filesystem::canonical(path).string());
  // The BIN chunk's data follows the 12-byte header, the JSON chunk and the BIN chunk's 8-byte header.
  const std::vector<uint8_t> file = fileBytes(path);
  uint32_t json_length;
  std::memcpy(&json_length, file.data() + 12, 4);
  const size_t bin_offset = 12 + 8 + json_length + 8;
  ASSERT_EQ(data.size(), bin.size());
  EXPECT_EQ(0, std::memcmp(data.data(), file.data() + bin_offset, bin.size()));
  EXPECT_EQ(data, bin);
  const auto values = readAccessorFloats(*asset, 0);
  ASSERT_EQ(values.size(), kFloats);
  EXPECT_EQ(values[4001], float(1) * 0.25f - 7.0f);

  // map_files = false: the same bytes, read into memory, in no file mapping; the BIN chunk is still not copied
  // out: buffers[0] is a view into the block the file was read into, right after the JSON chunk.
  LoadOptions read;
  read.map_files = false;
  auto loaded_read = loadAsset(path, read);
  ASSERT_LOADED(loaded_read);
  const BufferBytes& read_data = loaded_read->buffers[0].data;
  EXPECT_TRUE(read_data.isView());
  const std::string region = mappedFileAt(read_data.data());  // anonymous ("" or "[heap]"), never a file
  EXPECT_TRUE(region.empty() || region.front() == '[') << region;
  EXPECT_EQ(read_data, data);
  Asset copy = *loaded_read;  // shares the block
  loaded_read = fail(Error::kIo, "dropped");
  EXPECT_EQ(copy.buffers[0].data, bin);
  EXPECT_TRUE(validateAsset(copy));
}

TEST(MappedLoad, TheAssetAndItsCopiesOutliveTheFilesName) {
  const auto dir = test::scratchDir();
  const auto path = writeGlb(dir);
  auto loaded = loadAsset(path);
  ASSERT_LOADED(loaded);
  Asset copy = *loaded;  // shares the mapping
  EXPECT_EQ(copy.buffers[0].data.data(), loaded->buffers[0].data.data());
  loaded = fail(Error::kIo, "dropped");  // the original Asset is gone; the copy holds the mapping
  std::filesystem::rename(path, dir / "renamed.glb");
  EXPECT_EQ(mappedFileAt(copy.buffers[0].data.data()), std::filesystem::canonical(dir / "renamed.glb").string());
  std::filesystem::remove(dir / "renamed.glb");
  EXPECT_TRUE(endsWith(mappedFileAt(copy.buffers[0].data.data()), " (deleted)"));
  const auto values = readAccessorFloats(copy, 0);
  ASSERT_EQ(values.size(), kFloats);
  EXPECT_EQ(values[kFloats - 1], float((kFloats - 1) % 1000) * 0.25f - 7.0f);
  EXPECT_TRUE(validateAsset(copy));
}

// Whether any file mapping of this process is of `name` (as /proc/self/maps words it, " (deleted)" included).
bool mappedAnywhere(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (endsWith(line, " " + name)) return true;
  }
  return false;
}

// A repeated load of the same file reuses its mapping (pages already in the page tables: docs/PERFORMANCE.md,
// "Repeated loads") and reads what a fresh mapping would: the file's current bytes, after an in-place rewrite too;
// a file replaced by rename is mapped afresh, and a deleted one is let go at the next mapFile call.
TEST(MappedLoad, ALoadedFileStaysMappedForItsNextLoadAndShowsItsCurrentBytes) {
  const auto dir = test::scratchDir();
  std::vector<uint8_t> bin;
  const auto path = writeGlb(dir, &bin);
  const std::string name = std::filesystem::canonical(path).string();
  const uint8_t* first = nullptr;
  {
    auto asset = loadAsset(path);
    ASSERT_LOADED(asset);
    first = asset->buffers[0].data.data();
  }
  EXPECT_EQ(mappedFileAt(first), name);  // kept after the Asset is gone
  auto again = loadAsset(path);
  ASSERT_LOADED(again);
  EXPECT_EQ(again->buffers[0].data.data(), first);
  EXPECT_EQ(again->buffers[0].data, bin);

  // Rewritten in place, same size: the kept mapping is reused and shows the new bytes.
  std::vector<uint8_t> file = fileBytes(path);
  const size_t bin_offset = file.size() - bin.size();
  const float changed = 123.5f;
  std::memcpy(file.data() + bin_offset, &changed, 4);
  {
    std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
    out.write(reinterpret_cast<const char*>(file.data()), std::streamsize(file.size()));
  }
  auto rewritten = loadAsset(path);
  ASSERT_LOADED(rewritten);
  EXPECT_EQ(rewritten->buffers[0].data.data(), first);
  EXPECT_EQ(readAccessorFloats(*rewritten, 0)[0], changed);

  // Replaced by rename (a new inode): mapped afresh, the new bytes.
  const float replaced = -9.25f;
  std::memcpy(file.data() + bin_offset, &replaced, 4);
  ASSERT_TRUE(writeFileAtomic(path, std::span<const uint8_t>(file)));
  auto renamed = loadAsset(path);
  ASSERT_LOADED(renamed);
  EXPECT_EQ(readAccessorFloats(*renamed, 0)[0], replaced);
  EXPECT_EQ(readAccessorFloats(*again, 0)[0], changed);  // the earlier Assets keep the old inode's bytes

  // Deleted while nothing holds it: gone from the process at the next mapFile call.
  again = fail(Error::kIo, "dropped");
  rewritten = fail(Error::kIo, "dropped");
  renamed = fail(Error::kIo, "dropped");
  std::filesystem::remove(path);
  EXPECT_TRUE(mappedAnywhere(name + " (deleted)"));
  std::filesystem::create_directories(dir / "other");
  ASSERT_TRUE(mapFile(writeGlb(dir / "other")));
  EXPECT_FALSE(mappedAnywhere(name + " (deleted)"));
}

TEST(MappedLoad, ExternalBinIsMappedAndCutToByteLengthWithoutACopy) {
  const auto dir = test::scratchDir();
  std::vector<uint8_t> bin = floatBytes(kFloats + 100);  // 400 bytes more than byteLength
  test::writeBytes(dir / "data.bin", bin);
  const std::string json =
      floatAccessorJson(kFloats, "{\"byteLength\":" + std::to_string(kFloats * 4) + ",\"uri\":\"data.bin\"}");
  test::writeText(dir / "model.gltf", json);
  auto asset = loadAsset(dir / "model.gltf");
  ASSERT_LOADED(asset);
  const BufferBytes& data = asset->buffers[0].data;
  EXPECT_TRUE(data.isView());
  EXPECT_EQ(mappedFileAt(data.data()), std::filesystem::canonical(dir / "data.bin").string());
  ASSERT_EQ(data.size(), kFloats * 4);
  EXPECT_EQ(0, std::memcmp(data.data(), bin.data(), data.size()));
  // loadAssetFromMemory borrows only the JSON text: the .bin beside it is mapped all the same.
  auto from_memory = test::loadJson(json, dir);
  ASSERT_LOADED(from_memory);
  EXPECT_TRUE(from_memory->buffers[0].data.isView());
}

TEST(MappedLoad, FromMemoryTheGlbBinChunkIsCopiedNeverBorrowed) {
  const auto dir = test::scratchDir();
  std::vector<uint8_t> glb = fileBytes(writeGlb(dir));
  auto asset = loadAssetFromMemory(glb, dir);
  ASSERT_LOADED(asset);
  EXPECT_FALSE(asset->buffers[0].data.isView());
  const uint8_t* data = asset->buffers[0].data.data();
  EXPECT_FALSE(data >= glb.data() && data < glb.data() + glb.size());
  std::fill(glb.begin(), glb.end(), uint8_t(0xFF));  // the caller's bytes change: the Asset does not
  EXPECT_TRUE(validateAsset(*asset));
}

TEST(MappedLoad, ASmallFileIsReadNotMapped) {
  const auto dir = test::scratchDir();
  std::vector<uint8_t> bin = floatBytes(16);
  test::writeBytes(dir / "small.glb", test::makeGlb(floatAccessorJson(16, "{\"byteLength\":64}"), &bin));
  ASSERT_LT(std::filesystem::file_size(dir / "small.glb"), kMapMinBytes);
  auto asset = loadAsset(dir / "small.glb");
  ASSERT_LOADED(asset);
  EXPECT_FALSE(asset->buffers[0].data.isView());
  EXPECT_EQ(asset->buffers[0].data, bin);
}

TEST(MappedLoad, TruncatedFilesFailCleanly) {
  const auto dir = test::scratchDir();
  const std::vector<uint8_t> whole = fileBytes(writeGlb(dir));
  // A GLB cut inside its BIN chunk (still above kMapMinBytes, so mapped): the header's length is checked.
  test::writeBytes(dir / "cut.glb", std::span<const uint8_t>(whole.data(), whole.size() - 5000));
  EXPECT_FAILURE(loadAsset(dir / "cut.glb"), Error::kInvalidGlb, "truncated");
  // A GLB cut in its JSON chunk.
  test::writeBytes(dir / "header.glb", std::span<const uint8_t>(whole.data(), 30));
  EXPECT_FAILURE(loadAsset(dir / "header.glb"), Error::kInvalidGlb, "GLB");
  // An external .bin shorter than byteLength: refused before it is mapped or read.
  test::writeBytes(dir / "short.bin", floatBytes(kFloats - 1));
  const std::string buffer = "{\"byteLength\":" + std::to_string(kFloats * 4) + ",\"uri\":\"short.bin\"}";
  test::writeText(dir / "short.gltf", floatAccessorJson(kFloats, buffer));
  EXPECT_FAILURE(loadAsset(dir / "short.gltf"), Error::kTooLarge, "buffers[0].byteLength", "short.bin");
  // The CLI: one line, exit 1.
  const test::CliRun run = test::runMorphkit(dir, "inspect cut.glb");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.find("morphkit: error: cut.glb: "), 0u) << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
}

TEST(MappedLoad, WritingALoadedBufferCopiesItAndLeavesTheFileAlone) {
  const auto dir = test::scratchDir();
  const auto path = writeGlb(dir);
  const std::vector<uint8_t> before = fileBytes(path);
  auto asset = loadAsset(path);
  ASSERT_LOADED(asset);
  ASSERT_TRUE(asset->buffers[0].data.isView());
  const std::vector<uint8_t> extra = {1, 2, 3, 4};
  appendBufferView(*asset, extra, 0);  // a writer: copies the mapped buffer, then grows it
  EXPECT_FALSE(asset->buffers[0].data.isView());
  EXPECT_EQ(asset->buffers[0].data.size(), kFloats * 4 + 4);
  EXPECT_EQ(fileBytes(path), before);
  EXPECT_TRUE(validateAsset(*asset));
}

// The validation scans that read every byte of a mapped file (typed, branch-free loops) still find the one bad
// value and name it as before: the last element of a long run, and a strided view.
TEST(ValidationScans, NonFiniteValuesAreFoundAndNamedInPackedAndStridedData) {
  std::vector<uint8_t> packed = floatBytes(10000);
  const float nan = std::nanf("");
  std::memcpy(packed.data() + 4 * 9999, &nan, 4);
  EXPECT_FAILURE(test::loadJson(floatAccessorJson(10000, test::bufferJson(packed))), Error::kInvalidGltf,
                 "accessors[0]: element 9999 component 0 is NaN");
  std::vector<uint8_t> strided = floatBytes(16 * 4);  // 16 VEC3 elements, 16 bytes apart
  const float inf = std::numeric_limits<float>::infinity();
  std::memcpy(strided.data() + 16 * 5 + 8, &inf, 4);   // element 5, component 2
  std::memcpy(strided.data() + 16 * 7 + 12, &inf, 4);  // padding between elements: not data, never checked
  const std::string json = test::gltfJson(
      "\"buffers\":[" + test::bufferJson(strided) +
      "],\"bufferViews\":[{\"buffer\":0,\"byteLength\":256,"
      "\"byteStride\":16}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":16,\"type\":\"VEC3\"}]");
  EXPECT_FAILURE(test::loadJson(json), Error::kInvalidGltf, "accessors[0]: element 5 component 2 is infinite");
  std::vector<uint8_t> padding_only = floatBytes(16 * 4);
  std::memcpy(padding_only.data() + 16 * 7 + 12, &inf, 4);
  const std::string ok = test::gltfJson(
      "\"buffers\":[" + test::bufferJson(padding_only) +
      "],\"bufferViews\":[{\"buffer\":0,\"byteLength\":256,"
      "\"byteStride\":16}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":16,\"type\":\"VEC3\"}]");
  ASSERT_LOADED(test::loadJson(ok));
}

TEST(ValidationScans, TheLargestIndexIsFoundForEveryIndexType) {
  // Three vertices; six indices whose last is out of range, as u8, u16 and u32.
  for (const auto& [type, size] : {std::pair{5121, 1}, std::pair{5123, 2}, std::pair{5125, 4}}) {
    std::vector<uint8_t> bytes = floatBytes(9);  // POSITION: 3 × VEC3
    const uint32_t indices[6] = {0, 1, 2, 2, 1, 7};
    for (uint32_t index : indices) {
      for (int b = 0; b < size; ++b) bytes.push_back(uint8_t(index >> (8 * b)));
    }
    while (bytes.size() % 4) bytes.push_back(0);
    const std::string json =
        test::gltfJson("\"buffers\":[" + test::bufferJson(bytes) +
                       "],\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},"
                       "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":" +
                       std::to_string(6 * size) +
                       "}],"
                       "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
                       "\"min\":[-7,-6.75,-6.5],\"max\":[-5.5,-5.25,-5]},"
                       "{\"bufferView\":1,\"componentType\":" +
                       std::to_string(type) +
                       ",\"count\":6,\"type\":\"SCALAR\"}],"
                       "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}]");
    EXPECT_FAILURE(test::loadJson(json), Error::kInvalidGltf, "indices", "index 7 is >= the vertex count 3");
  }
}

TEST(BufferBytes, ViewsShareTheirKeeperAndCopyOnWrite) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::vector<uint8_t>{1, 2, 3, 4, 5, 6});
  BufferBytes view = BufferBytes::view(owner, *owner);
  EXPECT_TRUE(view.isView());
  EXPECT_EQ(view.data(), owner->data());
  EXPECT_EQ(owner.use_count(), 2);
  BufferBytes slice = view.slice(2, 3);  // a view of the same bytes
  EXPECT_TRUE(slice.isView());
  EXPECT_EQ(slice.data(), owner->data() + 2);
  EXPECT_EQ(slice, (std::vector<uint8_t>{3, 4, 5}));
  EXPECT_EQ(owner.use_count(), 3);
  slice.resize(2);  // shrinking stays a view
  EXPECT_TRUE(slice.isView());
  EXPECT_EQ(slice, (std::vector<uint8_t>{3, 4}));
  slice.mutate()[0] = 9;  // copy on write: the owner's bytes are untouched, its keeper released
  EXPECT_FALSE(slice.isView());
  EXPECT_EQ(slice, (std::vector<uint8_t>{9, 4}));
  EXPECT_EQ((*owner)[2], 3);
  EXPECT_EQ(owner.use_count(), 2);
  view.resize(8, 7);  // growing copies
  EXPECT_FALSE(view.isView());
  EXPECT_EQ(view, (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 7}));
  EXPECT_EQ(owner.use_count(), 1);
  // Owned bytes behave as a vector: a slice copies.
  BufferBytes owned = std::vector<uint8_t>{5, 6, 7};
  EXPECT_FALSE(owned.slice(1, 10).isView());
  EXPECT_EQ(owned.slice(1, 10), (std::vector<uint8_t>{6, 7}));
  EXPECT_TRUE(BufferBytes::view(nullptr, *owner).empty());  // a view without a keeper would dangle
}

}  // namespace
}  // namespace morphkit
