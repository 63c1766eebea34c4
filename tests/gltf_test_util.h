// SPDX-License-Identifier: MIT
// Helpers for tests that build tiny glTF assets in memory: byte buffers, base64 data: URIs, GLB containers,
// and assertions on Expected/Failure. Everything here is written independently of the loader under test.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/gltf/gltf.h"
#include "morphkit/model/error.h"
#include "test_support.h"

namespace morphkit::test {

// Little-endian byte buffer builder (x86/ARM hosts are little-endian, as glTF is).
struct Bytes {
  std::vector<uint8_t> data;

  template <class T>
  Bytes& put(std::initializer_list<T> values) {
    for (T v : values) {
      uint8_t raw[sizeof(T)];
      std::memcpy(raw, &v, sizeof(T));
      data.insert(data.end(), raw, raw + sizeof(T));
    }
    return *this;
  }
  template <class T>
  Bytes& put(T v) {
    return put<T>({v});
  }
  Bytes& raw(std::initializer_list<uint8_t> values) {
    data.insert(data.end(), values.begin(), values.end());
    return *this;
  }
  Bytes& fill(size_t n, uint8_t value) {
    data.insert(data.end(), n, value);
    return *this;
  }
  Bytes& padTo4(uint8_t value = 0) {
    while (data.size() % 4) data.push_back(value);
    return *this;
  }
  size_t size() const { return data.size(); }
};

inline std::string base64(std::span<const uint8_t> bytes) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = uint32_t(bytes[i]) << 16 | uint32_t(bytes[i + 1]) << 8 | bytes[i + 2];
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (bytes.size() - i == 1) {
    uint32_t v = uint32_t(bytes[i]) << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (bytes.size() - i == 2) {
    uint32_t v = uint32_t(bytes[i]) << 16 | uint32_t(bytes[i + 1]) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

inline std::string dataUri(std::span<const uint8_t> bytes) {
  return "data:application/octet-stream;base64," + base64(bytes);
}

// A buffers array entry with a data: URI holding `bytes`.
inline std::string bufferJson(std::span<const uint8_t> bytes) {
  return "{\"byteLength\":" + std::to_string(bytes.size()) + ",\"uri\":\"" + dataUri(bytes) + "\"}";
}

// "{"asset":{"version":"2.0"}, <body>}"
inline std::string gltfJson(std::string_view body) {
  std::string out = "{\"asset\":{\"version\":\"2.0\"}";
  if (!body.empty()) out += ",";
  out += body;
  out += "}";
  return out;
}

// Assembles a GLB (glTF 2.0 §4.4): JSON chunk padded with spaces, optional BIN chunk padded with zeros.
inline std::vector<uint8_t> makeGlb(std::string json, const std::vector<uint8_t>* bin) {
  while (json.size() % 4) json += ' ';
  std::vector<uint8_t> b = bin ? *bin : std::vector<uint8_t>{};
  while (b.size() % 4) b.push_back(0);
  Bytes out;
  uint32_t total = uint32_t(12 + 8 + json.size() + (bin ? 8 + b.size() : 0));
  out.put<uint32_t>({0x46546C67u, 2u, total});
  out.put<uint32_t>({uint32_t(json.size()), 0x4E4F534Au});
  out.data.insert(out.data.end(), json.begin(), json.end());
  if (bin) {
    out.put<uint32_t>({uint32_t(b.size()), 0x004E4942u});
    out.data.insert(out.data.end(), b.begin(), b.end());
  }
  return out.data;
}

inline std::span<const uint8_t> asBytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

inline Expected<Asset> loadJson(std::string_view json, const std::filesystem::path& base_dir = ".",
                                const LoadOptions& options = {}) {
  return loadAssetFromMemory(asBytes(json), base_dir, options);
}

// The one trust gate for fixtures (morphkit/model/contract.h): every Asset a test builds or edits by hand passes
// through here before it reaches morphkit code other than validateAsset itself, as the loader's and make-demo's do. A
// fixture that does not validate fails the test at the caller's line with validateAsset's message (downstream
// MORPHKIT_EXPECTS would otherwise stop the binary on it). Tests whose point is an invalid asset do not use it.
inline Asset validated(Asset asset, std::source_location where = std::source_location::current()) {
  if (Status valid = validateAsset(asset); !valid)
    ADD_FAILURE_AT(where.file_name(), int(where.line())) << "fixture fails validateAsset: " << valid.error().message;
  return asset;
}
// The same for a producer that can fail (makeDemoAsset): its failure fails the test too (an empty Asset back).
inline Asset validated(Expected<Asset> asset, std::source_location where = std::source_location::current()) {
  if (!asset) {
    ADD_FAILURE_AT(where.file_name(), int(where.line())) << "fixture not built: " << asset.error().message;
    return Asset{};
  }
  return validated(std::move(asset).value(), where);
}

inline void writeBytes(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}
inline void writeText(const std::filesystem::path& path, std::string_view text) {
  writeBytes(path, asBytes(text));
}

}  // namespace morphkit::test

// Asserts that `expr` (an Expected) failed with `code` and that its message contains every given fragment.
#define EXPECT_FAILURE(expr, expected_code, ...)                                                             \
  do {                                                                                                       \
    const auto& morphkit_result_ = (expr);                                                                   \
    ASSERT_FALSE(morphkit_result_.ok()) << "expected failure " << ::morphkit::errorName(expected_code);      \
    EXPECT_STREQ(::morphkit::errorName(morphkit_result_.error().code), ::morphkit::errorName(expected_code)) \
        << morphkit_result_.error().message;                                                                 \
    for (const char* fragment : {__VA_ARGS__}) {                                                             \
      EXPECT_NE(morphkit_result_.error().message.find(fragment), std::string::npos)                          \
          << "message '" << morphkit_result_.error().message << "' lacks '" << fragment << "'";              \
    }                                                                                                        \
  } while (0)

#define ASSERT_LOADED(expr)                                                \
  do {                                                                     \
    if (!(expr).ok()) FAIL() << "load failed: " << (expr).error().message; \
  } while (0)
