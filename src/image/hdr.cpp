// SPDX-License-Identifier: MIT
// Radiance RGBE (.hdr) decoding and encoding (morphkit/image/hdr.h). CPU-only and pure.
#include "morphkit/image/hdr.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>

namespace morphkit {
namespace {

constexpr float kHalfMax = 65504.0f;  // the largest finite half float: the GPU maps are rgba16f

Failure notHdr(const std::string& what) {
  return fail(Error::kInvalidArgument, "not a Radiance HDR file: " + what);
}

// One header line (without its '\n') at `pos`; false at the end of the bytes.
bool nextLine(std::span<const uint8_t> bytes, size_t& pos, std::string_view& line) {
  if (pos >= bytes.size()) return false;
  const auto* begin = reinterpret_cast<const char*>(bytes.data()) + pos;
  const size_t limit = std::min<size_t>(bytes.size() - pos, 4096);  // a header line longer than this is not one
  const void* nl = std::memchr(begin, '\n', limit);
  if (!nl) return false;
  line = std::string_view(begin, size_t(static_cast<const char*>(nl) - begin));
  pos += line.size() + 1;
  return true;
}

float rgbeChannel(uint8_t mantissa, uint8_t exponent) {
  if (exponent == 0) return 0.0f;
  return std::min(std::ldexp(float(mantissa), int(exponent) - 128) / 255.0f, kHalfMax);
}

// New-style run-length scanline (2, 2, width high, width low, then each of the four components as runs).
bool readRleScanline(std::span<const uint8_t> bytes, size_t& pos, uint32_t width, uint8_t* rgbe) {
  for (int c = 0; c < 4; ++c) {
    uint32_t x = 0;
    while (x < width) {
      if (pos >= bytes.size()) return false;
      uint32_t count = bytes[pos++];
      if (count > 128) {  // a run: one byte repeated
        count -= 128;
        if (count > width - x || pos >= bytes.size()) return false;
        const uint8_t value = bytes[pos++];
        for (uint32_t k = 0; k < count; ++k) rgbe[(x++) * 4 + c] = value;
      } else {  // literal bytes
        if (count == 0 || count > width - x || bytes.size() - pos < count) return false;
        for (uint32_t k = 0; k < count; ++k) rgbe[(x++) * 4 + c] = bytes[pos++];
      }
    }
  }
  return true;
}

}  // namespace

Expected<HdrImage> decodeRadianceHdr(std::span<const uint8_t> bytes) {
  if (bytes.size() > kMaxEnvironmentFileBytes) {
    return fail(Error::kTooLarge, std::to_string(bytes.size()) + " bytes, more than the " +
                                      std::to_string(kMaxEnvironmentFileBytes >> 20) + " MiB an environment may have");
  }
  size_t pos = 0;
  std::string_view line;
  if (!nextLine(bytes, pos, line) || (line != "#?RADIANCE" && line != "#?RGBE")) {
    return notHdr("the first line is not #?RADIANCE or #?RGBE");
  }
  // Header lines up to the empty line; the only one that matters is FORMAT.
  while (true) {
    if (!nextLine(bytes, pos, line)) return notHdr("truncated header (no empty line before the resolution)");
    if (line.empty()) break;
    if (line.starts_with("FORMAT=") && line != "FORMAT=32-bit_rle_rgbe") {
      return notHdr("unsupported " + std::string(line.substr(0, 64)) + " (only 32-bit_rle_rgbe)");
    }
  }
  if (!nextLine(bytes, pos, line)) return notHdr("truncated: no resolution line");
  unsigned long height = 0, width = 0;
  char tail = 0;
  const std::string resolution(line.substr(0, 64));
  if (std::sscanf(resolution.c_str(), "-Y %lu +X %lu%c", &height, &width, &tail) != 2) {
    return notHdr("resolution line '" + resolution + "' is not '-Y H +X W' (the only orientation accepted)");
  }
  if (width == 0 || height == 0) return notHdr("empty image " + resolution);
  if (width > kMaxEnvironmentWidth || height > kMaxEnvironmentHeight) {
    return fail(Error::kTooLarge, std::to_string(width) + "×" + std::to_string(height) + " is larger than the " +
                                      std::to_string(kMaxEnvironmentWidth) + "×" +
                                      std::to_string(kMaxEnvironmentHeight) + " an environment may be");
  }
  HdrImage image;
  image.width = uint32_t(width);
  image.height = uint32_t(height);
  image.rgb.resize(size_t(width) * height * 3);
  std::vector<uint8_t> rgbe(size_t(width) * 4);
  for (uint32_t y = 0; y < image.height; ++y) {
    const bool rle = width >= 8 && width < 32768 && bytes.size() - pos >= 4 && bytes[pos] == 2 && bytes[pos + 1] == 2 &&
                     (bytes[pos + 2] & 0x80) == 0;
    if (rle) {
      if (((uint32_t(bytes[pos + 2]) << 8) | bytes[pos + 3]) != width) {
        return notHdr("scanline " + std::to_string(y) + " declares another width");
      }
      pos += 4;
      if (!readRleScanline(bytes, pos, image.width, rgbe.data())) {
        return notHdr("truncated or broken run-length scanline " + std::to_string(y));
      }
    } else {
      if (bytes.size() - pos < rgbe.size()) return notHdr("truncated at scanline " + std::to_string(y));
      std::memcpy(rgbe.data(), bytes.data() + pos, rgbe.size());
      if (rgbe[0] == 1 && rgbe[1] == 1 && rgbe[2] == 1) return notHdr("old-style run-length scanlines");
      pos += rgbe.size();
    }
    float* row = image.rgb.data() + size_t(y) * width * 3;
    for (uint32_t x = 0; x < image.width; ++x) {
      for (int c = 0; c < 3; ++c) row[x * 3 + c] = rgbeChannel(rgbe[x * 4 + c], rgbe[x * 4 + 3]);
    }
  }
  return image;
}

std::vector<uint8_t> encodeRadianceHdr(const HdrImage& image, bool run_length) {
  const std::string header = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y " + std::to_string(image.height) + " +X " +
                             std::to_string(image.width) + "\n";
  std::vector<uint8_t> out(header.begin(), header.end());
  std::vector<uint8_t> rgbe(size_t(image.width) * 4);
  for (uint32_t y = 0; y < image.height; ++y) {
    for (uint32_t x = 0; x < image.width; ++x) {
      const float* p = &image.rgb[(size_t(y) * image.width + x) * 3];
      const float m = std::max({p[0], p[1], p[2]});
      uint8_t* e = &rgbe[size_t(x) * 4];
      if (!(m > 1e-32f)) {
        e[0] = e[1] = e[2] = e[3] = 0;
        continue;
      }
      int exponent = 0;
      std::frexp(m, &exponent);  // m = f · 2^exponent, f in [0.5, 1)
      const float scale = std::ldexp(255.0f, -exponent);
      for (int c = 0; c < 3; ++c) e[c] = uint8_t(std::clamp(std::lround(std::max(p[c], 0.0f) * scale), 0l, 255l));
      e[3] = uint8_t(std::clamp(exponent + 128, 0, 255));
    }
    const bool rle = run_length && image.width >= 8 && image.width < 32768;
    if (!rle) {
      out.insert(out.end(), rgbe.begin(), rgbe.end());
      continue;
    }
    out.insert(out.end(), {2, 2, uint8_t(image.width >> 8), uint8_t(image.width & 0xFF)});
    for (int c = 0; c < 4; ++c) {
      uint32_t x = 0;
      while (x < image.width) {
        uint32_t run = 1;
        while (x + run < image.width && run < 127 && rgbe[(x + run) * 4 + c] == rgbe[x * 4 + c]) ++run;
        if (run >= 3) {
          out.push_back(uint8_t(128 + run));
          out.push_back(rgbe[x * 4 + c]);
          x += run;
          continue;
        }
        // Literals up to the next run of 3 (or 128 bytes).
        uint32_t count = 0;
        while (x + count < image.width && count < 128) {
          const uint32_t k = x + count;
          if (k + 2 < image.width && rgbe[k * 4 + c] == rgbe[(k + 1) * 4 + c] &&
              rgbe[k * 4 + c] == rgbe[(k + 2) * 4 + c])
            break;
          ++count;
        }
        if (count == 0) count = 1;
        out.push_back(uint8_t(count));
        for (uint32_t k = 0; k < count; ++k) out.push_back(rgbe[(x + k) * 4 + c]);
        x += count;
      }
    }
  }
  return out;
}

}  // namespace morphkit
