// SPDX-License-Identifier: MIT
// npy_test.cpp — morphkit/io/npy.h: .npy headers as NumPy writes them, stored .npz archives, CRC-32.
#include "morphkit/io/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace morphkit {
namespace {

std::string headerOf(const std::vector<uint8_t>& npy) {
  const size_t size = size_t(npy[8]) | size_t(npy[9]) << 8;
  return std::string(reinterpret_cast<const char*>(npy.data()) + 10, size);
}

TEST(Npy, HeaderIsNumpysAndTheDataIs64ByteAligned) {
  std::vector<float> values(2 * 5 * 3);
  for (size_t i = 0; i < values.size(); ++i) values[i] = float(i) * 0.5f;
  const std::vector<uint64_t> shape{2, 5, 3};
  auto npy = encodeNpy(std::span<const float>(values), shape);
  ASSERT_TRUE(npy.ok());
  EXPECT_EQ(std::memcmp(npy->data(), "\x93NUMPY\x01\x00", 8), 0);
  const std::string header = headerOf(*npy);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 5, 3), }", 0), 0u) << header;
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ((10 + header.size()) % 64, 0u);
  EXPECT_EQ(npy->size(), 10 + header.size() + values.size() * 4);
  auto decoded = decodeNpy(*npy);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  EXPECT_EQ(decoded->descr, "<f4");
  EXPECT_EQ(decoded->shape, shape);
  ASSERT_EQ(decoded->data.size(), values.size() * 4);
  EXPECT_EQ(std::memcmp(decoded->data.data(), values.data(), decoded->data.size()), 0);
}

TEST(Npy, OneDimensionalShapeKeepsThePythonTupleComma) {
  const std::vector<double> times{0.0, 0.25, 0.5};
  auto npy = encodeNpy(std::span<const double>(times), std::vector<uint64_t>{3});
  ASSERT_TRUE(npy.ok());
  EXPECT_NE(headerOf(*npy).find("'descr': '<f8'"), std::string::npos);
  EXPECT_NE(headerOf(*npy).find("'shape': (3,)"), std::string::npos) << headerOf(*npy);
}

TEST(Npy, ShapeMustMatchTheValues) {
  std::vector<float> values(7);
  EXPECT_FALSE(encodeNpy(std::span<const float>(values), std::vector<uint64_t>{2, 3}).ok());
  EXPECT_TRUE(encodeNpy(std::span<const float>(values.data(), 0), std::vector<uint64_t>{0, 3}).ok());
}

TEST(Npy, Crc32KnownValues) {
  const std::string check = "123456789";  // the CRC catalogue's check value for CRC-32/ISO-HDLC
  EXPECT_EQ(crc32(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(check.data()), check.size())), 0xCBF43926u);
  EXPECT_EQ(crc32({}), 0u);
  // Continuing a CRC over two pieces equals one pass.
  const auto* bytes = reinterpret_cast<const uint8_t*>(check.data());
  EXPECT_EQ(crc32(std::span<const uint8_t>(bytes + 4, 5), crc32(std::span<const uint8_t>(bytes, 4))), 0xCBF43926u);
}

TEST(Npz, StoredArchiveRoundTripsAndIsDeterministic) {
  std::vector<float> a{1, 2, 3, 4, 5, 6};
  std::vector<double> t{0.5};
  std::vector<NpzEntry> entries;
  entries.push_back({"times", *encodeNpy(std::span<const double>(t), std::vector<uint64_t>{1})});
  entries.push_back(
      {"node0_mesh0_prim0_positions", *encodeNpy(std::span<const float>(a), std::vector<uint64_t>{1, 2, 3})});
  auto zip = encodeNpz(entries);
  ASSERT_TRUE(zip.ok());
  EXPECT_EQ(*zip, *encodeNpz(entries));  // no time stamps: equal arrays, equal bytes
  auto arrays = decodeNpz(*zip);
  ASSERT_TRUE(arrays.ok()) << arrays.error().message;
  ASSERT_EQ(arrays->size(), 2u);
  EXPECT_EQ((*arrays)[0].first, "times");
  EXPECT_EQ((*arrays)[1].first, "node0_mesh0_prim0_positions");
  EXPECT_EQ((*arrays)[1].second.shape, (std::vector<uint64_t>{1, 2, 3}));
  // A flipped byte inside the first array's .npy (after its 30-byte local header and "times.npy") fails the CRC.
  std::vector<uint8_t> bad = *zip;
  bad[30 + 9 + 130] ^= 0x40;
  EXPECT_FALSE(decodeNpz(bad).ok());
}

TEST(Npz, RejectsBadAndRepeatedNames) {
  std::vector<float> a{1};
  auto npy = *encodeNpy(std::span<const float>(a), std::vector<uint64_t>{1});
  EXPECT_FALSE(encodeNpz(std::vector<NpzEntry>{{"../evil", npy}}).ok());
  EXPECT_FALSE(encodeNpz(std::vector<NpzEntry>{{"", npy}}).ok());
  EXPECT_FALSE(encodeNpz(std::vector<NpzEntry>{{"a", npy}, {"a", npy}}).ok());
  auto empty = encodeNpz(std::vector<NpzEntry>{});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 22u);  // the end-of-central-directory record only
  EXPECT_TRUE(decodeNpz(*empty).ok());
}

}  // namespace
}  // namespace morphkit
