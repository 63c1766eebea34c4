// SPDX-License-Identifier: MIT
// The texture pass's resampling, WebP and KTX2 encodings (texture_codecs.h).
#include "texture_codecs.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <span>

#include "morphkit/model/files.h"

extern char** environ;

namespace morphkit::optimize_detail {

const char* textureRoleName(TextureRole role) {
  switch (role) {
    case TextureRole::kColour:
      return "colour";
    case TextureRole::kData:
      return "data";
    case TextureRole::kNormal:
      return "normal";
  }
  return "data";
}

namespace {

float srgbToLinear(float c) {
  return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}
float linearToSrgb(float c) {
  return c <= 0.0031308f ? c * 12.92f : 1.055f * std::pow(c, 1.0f / 2.4f) - 0.055f;
}

// One output sample's source taps: a tent as wide as the scale (at least one texel) around its centre, clamped at
// the edges, weights summing to 1.
struct Taps {
  uint32_t first = 0;
  std::vector<float> weights;
};
std::vector<Taps> tentTaps(uint32_t from, uint32_t to) {
  const double scale = double(from) / double(to);
  const double radius = std::max(1.0, scale);
  std::vector<Taps> taps(to);
  for (uint32_t o = 0; o < to; ++o) {
    const double centre = (o + 0.5) * scale;
    const int64_t lo = std::max<int64_t>(0, int64_t(std::floor(centre - radius)));
    const int64_t hi = std::min<int64_t>(from - 1, int64_t(std::ceil(centre + radius)));
    taps[o].first = uint32_t(lo);
    double sum = 0;
    for (int64_t s = lo; s <= hi; ++s) {
      const double w = std::max(0.0, 1.0 - std::abs(s + 0.5 - centre) / radius);
      taps[o].weights.push_back(float(w));
      sum += w;
    }
    for (float& w : taps[o].weights) w = float(w / (sum > 0 ? sum : 1.0));
  }
  return taps;
}

}  // namespace

DecodedImage resampleTexture(const DecodedImage& image, uint32_t largest, TextureRole role) {
  const uint32_t w = image.width, h = image.height;
  if (largest == 0 || std::max(w, h) <= largest) return image;
  const double s = double(largest) / double(std::max(w, h));
  const uint32_t ow = std::max<uint32_t>(1, uint32_t(std::lround(w * s)));
  const uint32_t oh = std::max<uint32_t>(1, uint32_t(std::lround(h * s)));
  // Texels as floats: colour in linear light (a box of sRGB values averages too dark), alpha and data as stored.
  std::array<float, 256> decode;
  for (int v = 0; v < 256; ++v) decode[v] = role == TextureRole::kColour ? srgbToLinear(v / 255.0f) : v / 255.0f;
  std::vector<float> source(size_t(w) * h * 4);
  for (size_t i = 0; i < source.size(); ++i) source[i] = i % 4 == 3 ? image.rgba[i] / 255.0f : decode[image.rgba[i]];
  const std::vector<Taps> xs = tentTaps(w, ow), ys = tentTaps(h, oh);
  std::vector<float> rows(size_t(ow) * h * 4, 0.0f);  // horizontal pass first
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < ow; ++x) {
      float* dst = &rows[(size_t(y) * ow + x) * 4];
      for (size_t t = 0; t < xs[x].weights.size(); ++t) {
        const float* src = &source[(size_t(y) * w + xs[x].first + t) * 4];
        for (int c = 0; c < 4; ++c) dst[c] += xs[x].weights[t] * src[c];
      }
    }
  }
  DecodedImage out;
  out.width = ow;
  out.height = oh;
  out.rgba.resize(size_t(ow) * oh * 4);
  for (uint32_t y = 0; y < oh; ++y) {
    for (uint32_t x = 0; x < ow; ++x) {
      float texel[4] = {0, 0, 0, 0};
      for (size_t t = 0; t < ys[y].weights.size(); ++t) {
        const float* src = &rows[(size_t(ys[y].first + t) * ow + x) * 4];
        for (int c = 0; c < 4; ++c) texel[c] += ys[y].weights[t] * src[c];
      }
      if (role == TextureRole::kNormal) {  // averaged unit vectors are shorter: back to length 1
        float n[3], length = 0;
        for (int c = 0; c < 3; ++c) {
          n[c] = texel[c] * 2.0f - 1.0f;
          length += n[c] * n[c];
        }
        if (length > 1e-12f) {
          for (int c = 0; c < 3; ++c) texel[c] = n[c] / std::sqrt(length) * 0.5f + 0.5f;
        }
      }
      for (int c = 0; c < 4; ++c) {
        float v = std::clamp(texel[c], 0.0f, 1.0f);
        if (c < 3 && role == TextureRole::kColour) v = linearToSrgb(v);
        out.rgba[(size_t(y) * ow + x) * 4 + c] = uint8_t(std::lround(v * 255.0f));
      }
    }
  }
  return out;
}

uint64_t rgba8MipBytes(uint32_t width, uint32_t height) {
  uint64_t bytes = 0;
  for (uint32_t w = width, h = height;; w = std::max(1u, w / 2), h = std::max(1u, h / 2)) {
    bytes += uint64_t(w) * h * 4;
    if (w == 1 && h == 1) break;
  }
  return bytes;
}

uint64_t blockMipBytes(uint32_t width, uint32_t height, uint32_t block_bytes) {
  uint64_t bytes = 0;
  for (uint32_t w = width, h = height;; w = std::max(1u, w / 2), h = std::max(1u, h / 2)) {
    bytes += uint64_t((w + 3) / 4) * ((h + 3) / 4) * block_bytes;
    if (w == 1 && h == 1) break;
  }
  return bytes;
}

namespace {

bool opaque(const DecodedImage& image) {
  for (size_t i = 3; i < image.rgba.size(); i += 4) {
    if (image.rgba[i] != 255) return false;
  }
  return true;
}

}  // namespace

double chromaCeilingPsnr(const DecodedImage& image) {
  // RGB to Y, B−Y and R−Y (BT.601 weights, as libwebp's), B−Y and R−Y averaged over each 2×2 block, back to RGB.
  const uint32_t w = image.width, h = image.height;
  DecodedImage round_trip = image;
  for (uint32_t y = 0; y < h; y += 2) {
    for (uint32_t x = 0; x < w; x += 2) {
      float luma[4], u = 0, v = 0;
      size_t at[4];
      int n = 0;
      for (uint32_t dy = 0; dy < 2 && y + dy < h; ++dy) {
        for (uint32_t dx = 0; dx < 2 && x + dx < w; ++dx, ++n) {
          at[n] = (size_t(y + dy) * w + x + dx) * 4;
          const uint8_t* p = &image.rgba[at[n]];
          luma[n] = 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2];
          u += p[2] - luma[n];
          v += p[0] - luma[n];
        }
      }
      u /= float(n);
      v /= float(n);
      for (int i = 0; i < n; ++i) {
        const float r = luma[i] + v, b = luma[i] + u, g = (luma[i] - 0.299f * r - 0.114f * b) / 0.587f;
        uint8_t* q = &round_trip.rgba[at[i]];
        q[0] = uint8_t(std::lround(std::clamp(r, 0.0f, 255.0f)));
        q[1] = uint8_t(std::lround(std::clamp(g, 0.0f, 255.0f)));
        q[2] = uint8_t(std::lround(std::clamp(b, 0.0f, 255.0f)));
      }
    }
  }
  Expected<ImageError> error = measureImageError(image, round_trip);
  return error ? error->psnr_rgb : 0.0;
}

namespace {

// One encoder setting of the WebP search.
struct WebpSetting {
  bool lossless = false;
  float quality = 0;  // lossy: 0-100; lossless: the effort (75)
  int near_lossless = 100;
  bool sharp_yuv = false;
};

std::string settingName(const WebpSetting& s) {
  char text[48];
  if (!s.lossless) {
    std::snprintf(text, sizeof text, "lossy q%.0f%s", s.quality, s.sharp_yuv ? " sharp YUV" : "");
  } else if (s.near_lossless < 100) {
    std::snprintf(text, sizeof text, "near-lossless %d (±%u)", s.near_lossless, webpNearLosslessBound(s.near_lossless));
  } else {
    std::snprintf(text, sizeof text, "lossless");
  }
  return text;
}

}  // namespace

Expected<EncodedTexture> encodeWebpTexture(const DecodedImage& image, TextureRole role, double min_psnr) {
  // The smallest setting whose decoded result meets min_psnr, the file growing with the quality (measured in
  // docs/OPTIMIZE.md, "Textures"). Lossy WebP stores colour as 4:2:0 YUV: fine for colour; data channels
  // (occlusion, roughness, metal) are unrelated and a normal map's X and Y bleed into each other through the chroma,
  // so data and normal maps go on to near-lossless (a bounded error per channel) and end lossless.
  static constexpr float kColour[] = {70, 80, 90, 95};
  static constexpr float kData[] = {70, 80, 90, 100};
  static constexpr float kNormal[] = {50, 60, 70, 80, 90, 100};  // with sharp YUV
  static constexpr int kNearLossless[] = {0, 20, 40, 60, 80};    // channel bound 16, 8, 4, 2, 1
  // Measured on the demo's normal map: each level's PSNR sits 2.8 to 9.4 dB above its worst case
  // 20·log10(255 / bound), and the levels are 3.7 to 5.3 dB apart.
  static constexpr double kNearLosslessAboveWorst = 6.0;
  static constexpr double kNextLevelStep = 5.0;
  // Lossy quality 100 decodes within 0.2 dB of the 4:2:0 round trip alone on the demo's normal and data maps; with
  // sharp YUV (normal maps: 1.5-2 dB better than plain at the same bytes) 2.1 dB above it.
  const double chroma_margin = role == TextureRole::kNormal ? 3.0 : 1.0;
  const std::span<const float> qualities = role == TextureRole::kColour ? std::span<const float>(kColour)
                                           : role == TextureRole::kData ? std::span<const float>(kData)
                                                                        : std::span<const float>(kNormal);
  EncodedTexture best, last;
  bool found = false;
  std::string tried;
  // Encodes with `setting`, decodes it back, measures it; keeps the smallest that passes. Returns its PSNR.
  auto attempt = [&](const WebpSetting& setting) -> Expected<double> {
    WebpOptions options;
    options.lossless = setting.lossless;
    options.quality = setting.quality;
    options.method = setting.lossless ? 2 : 4;  // lossless: the same size as 4 (±0.01 %), faster; lossy: smaller
    options.near_lossless = setting.near_lossless;
    options.sharp_yuv = setting.sharp_yuv;
    Expected<std::vector<uint8_t>> bytes = encodeWebp(image.rgba, image.width, image.height, options);
    if (!bytes) return bytes.error();
    Expected<DecodedImage> decoded = decodeImage(*bytes);
    if (!decoded) return decoded.error();
    Expected<ImageError> error = measureImageError(image, *decoded);
    if (!error) return error.error();
    char text[96];
    std::snprintf(text, sizeof text, "%s%s %.2f dB %zu bytes", tried.empty() ? "" : "; ", settingName(setting).c_str(),
                  error->psnr, bytes->size());
    tried += text;
    last.bytes = std::move(bytes).value();
    last.decoded = std::move(decoded).value();
    last.format = !setting.lossless ? "webp" : setting.near_lossless < 100 ? "webp-near-lossless" : "webp-lossless";
    last.setting = settingName(setting);
    if (error->psnr >= min_psnr && (!found || last.bytes.size() < best.bytes.size())) {
      best = last;
      found = true;
    }
    return error->psnr;
  };
  const double ceiling = role == TextureRole::kColour ? INFINITY : chromaCeilingPsnr(image);
  bool lossy = ceiling + chroma_margin >= min_psnr;
  const bool sharp = role == TextureRole::kNormal;
  if (!lossy) {
    char text[96];
    std::snprintf(text, sizeof text, "lossy skipped (4:2:0 alone %.2f dB)", ceiling);
    tried = text;
  } else if (role != TextureRole::kColour) {  // near the ceiling: the top quality first, the rest only if it passes
    Expected<double> psnr = attempt({.lossless = false, .quality = qualities.back(), .sharp_yuv = sharp});
    if (!psnr) return psnr.error();
    lossy = *psnr >= min_psnr;
  }
  for (size_t q = 0; lossy && q < qualities.size() - (role == TextureRole::kColour ? 0 : 1); ++q) {
    Expected<double> psnr = attempt({.lossless = false, .quality = qualities[q], .sharp_yuv = sharp});
    if (!psnr) return psnr.error();
    if (*psnr >= min_psnr) break;
  }
  if (!found && role != TextureRole::kColour) {
    // Near-lossless from the level expected to be the smallest that passes: one step more aggressive while the
    // margin exceeds a step, less aggressive while it misses, lossless when every level misses. A near-lossless
    // encoding costs about as much as a lossless one (4-7 s at 2048² here), so the start matters.
    size_t i = 0;
    while (i + 1 < std::size(kNearLossless) &&
           20.0 * std::log10(255.0 / webpNearLosslessBound(kNearLossless[i])) + kNearLosslessAboveWorst < min_psnr) {
      ++i;
    }
    Expected<double> psnr = attempt({.lossless = true, .quality = 75, .near_lossless = kNearLossless[i]});
    if (!psnr) return psnr.error();
    if (*psnr >= min_psnr) {
      // An identical result (+inf) means near-lossless did nothing (libwebp chose a palette): no level will.
      while (i > 0 && std::isfinite(*psnr) && *psnr - min_psnr > kNextLevelStep) {
        psnr = attempt({.lossless = true, .quality = 75, .near_lossless = kNearLossless[--i]});
        if (!psnr) return psnr.error();
      }
    } else {
      while (!found && ++i < std::size(kNearLossless)) {
        psnr = attempt({.lossless = true, .quality = 75, .near_lossless = kNearLossless[i]});
        if (!psnr) return psnr.error();
      }
      if (!found) {
        psnr = attempt({.lossless = true, .quality = 75});
        if (!psnr) return psnr.error();
      }
    }
  }
  EncodedTexture out = found ? std::move(best) : std::move(last);
  out.tried = std::move(tried);
  out.mime_type = "image/webp";
  out.gpu_bytes = rgba8MipBytes(image.width, image.height);  // decoded to RGBA8, mips made by the runtime
  return out;
}

namespace {

// A folder of our own under the system's temporary folder, removed with everything in it when this goes.
class TempFolder {
 public:
  TempFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "morphkit-ktx2-XXXXXX").string();
    if (::mkdtemp(pattern.data())) path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs `args` (args[0] the program) in `folder`, its output into folder/log.txt; the exit status, or -1 when it did
// not start or did not exit normally.
int runIn(const std::filesystem::path& folder, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, folder.c_str());  // basisu -unpack writes into its folder
  const std::string log = (folder / "log.txt").string();
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  pid_t waited = -1;
  do {
    waited = ::waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);
  return waited > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The log's last line, for an error message.
std::string lastLogLine(const std::filesystem::path& folder) {
  std::ifstream in(folder / "log.txt");
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last.empty() ? "no output" : last;
}

}  // namespace

Expected<EncodedTexture> encodeKtx2Texture(const DecodedImage& image, TextureRole role,
                                           const std::filesystem::path& basisu, const std::string& where) {
  TempFolder folder;
  if (folder.path().empty()) return fail(Error::kIo, where + ": cannot make a temporary folder for basisu");
  Expected<std::vector<uint8_t>> png = encodePng(image.rgba, image.width, image.height, PngCompression::kFast);
  if (!png) return png.error();
  if (Status s = writeFileAtomic(folder.path() / "in.png", std::span<const uint8_t>(*png)); !s) return s.error();
  const bool uastc = role != TextureRole::kColour;
  std::vector<std::string> args = {basisu.string(), "-ktx2"};
  if (uastc) {
    args.insert(args.end(), {"-uastc", "-uastc_level", "2", "-linear"});
  } else {
    args.insert(args.end(), {"-q", "128"});
  }
  args.insert(args.end(), {"-mipmap", "-output_file", "out.ktx2", "in.png"});
  const int encoded = runIn(folder.path(), args);
  if (encoded != 0) {
    return fail(Error::kIo, where + ": " + basisu.string() + " failed (" +
                                (encoded < 0 ? std::string("did not run") : "exit " + std::to_string(encoded)) +
                                "): " + lastLogLine(folder.path()));
  }
  EncodedTexture out;
  Expected<std::vector<uint8_t>> bytes = readFile(folder.path() / "out.ktx2");
  if (!bytes) return bytes.error();
  out.bytes = std::move(bytes).value();
  out.format = uastc ? "ktx2-uastc" : "ktx2-etc1s";
  out.setting = uastc ? "uastc level 2, mipmaps" : "etc1s q128, mipmaps";
  out.mime_type = "image/ktx2";
  out.has_mips = true;
  // Read back through basisu's own transcoder (no KTX2 decoder is packaged in Debian): the BC7 level 0 file it
  // writes among every other target format.
  if (const int unpacked = runIn(folder.path(), {basisu.string(), "-unpack", "-no_ktx", "out.ktx2"}); unpacked != 0) {
    return fail(Error::kIo, where + ": " + basisu.string() + " -unpack failed: " + lastLogLine(folder.path()));
  }
  Expected<std::vector<uint8_t>> level0 = readFile(folder.path() / "out_unpacked_rgba_BC7_RGBA_0_0000.png");
  if (!level0) return level0.error();
  Expected<DecodedImage> decoded = decodeImage(*level0);
  if (!decoded) return decoded.error();
  out.decoded = std::move(decoded).value();
  // On the GPU: UASTC transcodes to BC7 or ASTC 4×4 (16 bytes a block); ETC1S to BC1/ETC1 (8) when opaque, else
  // BC3/ETC2 RGBA (16).
  out.gpu_bytes = blockMipBytes(image.width, image.height, uastc || !opaque(image) ? 16 : 8);
  return out;
}

}  // namespace morphkit::optimize_detail
