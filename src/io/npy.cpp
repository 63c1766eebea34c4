// SPDX-License-Identifier: MIT
// npy.cpp — .npy headers and a stored-only ZIP writer for .npz (see morphkit/io/npy.h for the formats).
#include "morphkit/io/npy.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <set>

namespace morphkit {
namespace {

constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr size_t kAlign = 64;  // NumPy pads the header so the data is 64-byte aligned (format.py ARRAY_ALIGN)
constexpr uint64_t kZipLimit = 0xFFFFFFFFull;

void put16(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(uint8_t(v));
  out.push_back(uint8_t(v >> 8));
}
void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
uint32_t get16(std::span<const uint8_t> b, size_t at) {
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8;
}
uint32_t get32(std::span<const uint8_t> b, size_t at) {
  return get16(b, at) | get16(b, at + 2) << 16;
}

// The dict NumPy writes: a 1-tuple needs its trailing comma, "(3,)".
std::string shapeText(std::span<const uint64_t> shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) text += ",";
  return text + ")";
}

// The magic, version, length and the padded dict of a .npy of `values` shaped `shape`.
template <class T>
Expected<std::vector<uint8_t>> header(std::span<const T> values, std::span<const uint64_t> shape, const char* descr) {
  uint64_t count = 1;
  for (uint64_t d : shape) {
    if (d != 0 && count > UINT64_MAX / d) return fail(Error::kInvalidArgument, "encodeNpy: shape overflows");
    count *= d;
  }
  if (count != values.size()) {
    return fail(Error::kInvalidArgument, "encodeNpy: shape " + shapeText(shape) + " holds " + std::to_string(count) +
                                             " values, given " + std::to_string(values.size()));
  }
  std::string dict =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shapeText(shape) + ", }";
  const size_t unpadded = sizeof(kMagic) + 2 + 2 + dict.size() + 1;  // + '\n'
  dict.append((kAlign - unpadded % kAlign) % kAlign, ' ');
  dict += '\n';
  // Sized once and filled with memcpy (GCC 12's -Wstringop-overflow misfires on insert after reserve).
  std::vector<uint8_t> out(sizeof(kMagic) + 4 + dict.size());
  uint8_t* at = out.data();
  std::memcpy(at, kMagic, sizeof(kMagic));
  at += sizeof(kMagic);
  *at++ = 1;  // format version 1.0: the header length is a u16
  *at++ = 0;
  *at++ = uint8_t(dict.size() & 0xFF);  // little-endian u16
  *at++ = uint8_t(dict.size() >> 8);
  std::memcpy(at, dict.data(), dict.size());
  return out;
}

template <class T>
Expected<std::vector<uint8_t>> encode(std::span<const T> values, std::span<const uint64_t> shape, const char* descr) {
  Expected<std::vector<uint8_t>> out = header(values, shape, descr);
  if (!out) return out;
  // The host is little-endian (x86-64, AArch64): the bytes are the '<' layout already.
  static_assert(std::endian::native == std::endian::little);
  const size_t at = out->size();
  out->resize(at + values.size_bytes());
  if (values.size_bytes() > 0) std::memcpy(out->data() + at, values.data(), values.size_bytes());
  return out;
}

bool validEntryName(std::string_view name) {
  if (name.empty() || name.size() > 200) return false;
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-' || c == '.'; });
}

// The value of `key` in the header dict, up to the next top-level ',' or '}' (for 'shape': up to ')').
std::string_view headerValue(std::string_view header, std::string_view key) {
  std::string quoted = "'";
  (quoted += key) += '\'';
  size_t at = header.find(quoted);
  if (at == std::string_view::npos) return {};
  at = header.find(':', at + quoted.size());
  if (at == std::string_view::npos) return {};
  ++at;
  while (at < header.size() && header[at] == ' ') ++at;
  const size_t end = header[at] == '(' ? header.find(')', at) + 1 : header.find_first_of(",}", at);
  if (end == std::string_view::npos || end == 0) return {};
  return header.substr(at, end - at);
}

}  // namespace

uint32_t crc32(std::span<const uint8_t> bytes, uint32_t crc) {
  static const std::array<uint32_t, 256> kTable = [] {
    std::array<uint32_t, 256> table{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    return table;
  }();
  crc = ~crc;
  for (uint8_t b : bytes) crc = kTable[(crc ^ b) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

Expected<std::vector<uint8_t>> encodeNpy(std::span<const float> values, std::span<const uint64_t> shape) {
  return encode(values, shape, "<f4");
}
Expected<std::vector<uint8_t>> encodeNpyHeader(std::span<const float> values, std::span<const uint64_t> shape) {
  return header(values, shape, "<f4");
}

Expected<std::vector<uint8_t>> encodeNpy(std::span<const double> values, std::span<const uint64_t> shape) {
  return encode(values, shape, "<f8");
}

Expected<std::vector<uint8_t>> encodeNpz(std::span<const NpzEntry> entries) {
  std::set<std::string> names;
  uint64_t total = 22;
  for (const NpzEntry& e : entries) {
    if (!validEntryName(e.name) || !names.insert(e.name).second) {
      return fail(Error::kInvalidArgument, "encodeNpz: bad or repeated array name \"" + e.name + "\"");
    }
    if (e.npy.size() > kZipLimit) return fail(Error::kTooLarge, "encodeNpz: " + e.name + " is over 4 GiB (no ZIP64)");
    total += 30 + 46 + 2 * (e.name.size() + 4) + e.npy.size();
  }
  if (total > kZipLimit || entries.size() > 0xFFFF)
    return fail(Error::kTooLarge, "encodeNpz: the archive is over 4 GiB or 65535 entries (no ZIP64)");
  std::vector<uint8_t> out, central;
  out.reserve(size_t(total));
  // Fixed time stamp (1980-01-01 00:00, the DOS epoch) so that equal arrays give equal bytes.
  constexpr uint32_t kDosTime = 0, kDosDate = (1 << 5) | 1;
  for (const NpzEntry& e : entries) {
    const std::string file = e.name + ".npy";
    const uint32_t crc = crc32(e.npy);
    const uint32_t offset = uint32_t(out.size());
    put32(out, 0x04034b50);  // local file header
    put16(out, 20);          // version needed: 2.0
    put16(out, 0);           // flags
    put16(out, 0);           // method: stored
    put16(out, kDosTime);
    put16(out, kDosDate);
    put32(out, crc);
    put32(out, uint32_t(e.npy.size()));
    put32(out, uint32_t(e.npy.size()));
    put16(out, uint32_t(file.size()));
    put16(out, 0);  // extra length
    out.insert(out.end(), file.begin(), file.end());
    out.insert(out.end(), e.npy.begin(), e.npy.end());

    put32(central, 0x02014b50);  // central directory header
    put16(central, 20);          // made by: 2.0, MS-DOS attributes
    put16(central, 20);
    put16(central, 0);
    put16(central, 0);
    put16(central, kDosTime);
    put16(central, kDosDate);
    put32(central, crc);
    put32(central, uint32_t(e.npy.size()));
    put32(central, uint32_t(e.npy.size()));
    put16(central, uint32_t(file.size()));
    put16(central, 0);  // extra
    put16(central, 0);  // comment
    put16(central, 0);  // disk
    put16(central, 0);  // internal attributes
    put32(central, 0);  // external attributes
    put32(central, offset);
    central.insert(central.end(), file.begin(), file.end());
  }
  const uint32_t central_offset = uint32_t(out.size());
  out.insert(out.end(), central.begin(), central.end());
  put32(out, 0x06054b50);  // end of central directory
  put16(out, 0);
  put16(out, 0);
  put16(out, uint32_t(entries.size()));
  put16(out, uint32_t(entries.size()));
  put32(out, uint32_t(central.size()));
  put32(out, central_offset);
  put16(out, 0);  // comment length
  return out;
}

Expected<NpyArray> decodeNpy(std::span<const uint8_t> bytes) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return fail(Error::kInvalidArgument, "npy: no \\x93NUMPY magic");
  if (bytes[6] != 1) return fail(Error::kInvalidArgument, "npy: only format version 1.x is read");
  const size_t header_size = get16(bytes, 8);
  if (10 + header_size > bytes.size()) return fail(Error::kInvalidArgument, "npy: header runs past the end");
  const std::string_view header(reinterpret_cast<const char*>(bytes.data()) + 10, header_size);
  NpyArray array;
  std::string_view descr = headerValue(header, "descr");
  if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'')
    return fail(Error::kInvalidArgument, "npy: no descr");
  array.descr = std::string(descr.substr(1, descr.size() - 2));
  array.fortran_order = headerValue(header, "fortran_order") == "True";
  std::string_view shape = headerValue(header, "shape");
  if (shape.size() < 2 || shape.front() != '(') return fail(Error::kInvalidArgument, "npy: no shape");
  uint64_t count = 1;
  for (size_t at = 1; at < shape.size();) {
    while (at < shape.size() && !std::isdigit(static_cast<unsigned char>(shape[at]))) ++at;
    if (at >= shape.size()) break;
    uint64_t d = 0;
    while (at < shape.size() && std::isdigit(static_cast<unsigned char>(shape[at])))
      d = d * 10 + uint64_t(shape[at++] - '0');
    array.shape.push_back(d);
    count *= d;
  }
  const size_t item = array.descr.size() >= 3 ? size_t(std::atoi(array.descr.c_str() + 2)) : 0;
  if (item == 0 || (bytes.size() - 10 - header_size) != count * item)
    return fail(Error::kInvalidArgument, "npy: data size does not match the shape");
  array.data.assign(bytes.begin() + 10 + long(header_size), bytes.end());
  return array;
}

Expected<std::vector<std::pair<std::string, NpyArray>>> decodeNpz(std::span<const uint8_t> bytes) {
  std::vector<std::pair<std::string, NpyArray>> arrays;
  size_t at = 0;
  while (at + 4 <= bytes.size() && get32(bytes, at) == 0x04034b50) {
    if (at + 30 > bytes.size()) return fail(Error::kInvalidArgument, "npz: truncated local header");
    if (get16(bytes, at + 8) != 0) return fail(Error::kInvalidArgument, "npz: only stored entries are read");
    const uint32_t crc = get32(bytes, at + 14), size = get32(bytes, at + 18);
    const size_t name_size = get16(bytes, at + 26), extra = get16(bytes, at + 28);
    const size_t data = at + 30 + name_size + extra;
    if (data + size > bytes.size()) return fail(Error::kInvalidArgument, "npz: entry runs past the end");
    std::string name(reinterpret_cast<const char*>(bytes.data()) + at + 30, name_size);
    const std::span<const uint8_t> npy = bytes.subspan(data, size);
    if (crc32(npy) != crc) return fail(Error::kInvalidArgument, "npz: " + name + ": CRC-32 mismatch");
    if (name.size() > 4 && name.ends_with(".npy")) name.resize(name.size() - 4);
    Expected<NpyArray> array = decodeNpy(npy);
    if (!array) return fail(Error::kInvalidArgument, name + ": " + array.error().message);
    arrays.emplace_back(std::move(name), std::move(*array));
    at = data + size;
  }
  if (at + 4 > bytes.size() || (get32(bytes, at) != 0x02014b50 && get32(bytes, at) != 0x06054b50))
    return fail(Error::kInvalidArgument, "npz: no central directory after the entries");
  return arrays;
}

}  // namespace morphkit
