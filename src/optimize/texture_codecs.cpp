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

Expected<EncodedTexture> encodeWebpTexture(const DecodedImage& image, TextureRole role, double min_psnr) {
  // The lowest setting whose decoded result meets min_psnr, since the file grows with the quality. Lossy WebP stores
  // colour as 4:2:0 YUV: fine for colour; data channels (occlusion, roughness, metal) are unrelated and a normal
  // map's X and Y bleed into each other through the chroma subsampling, so they start at higher qualities and end
  // lossless when those miss (docs/OPTIMIZE.md, "Textures": lossless normals made the demo 3.5x gltf-transform's).
  struct Setting {
    bool lossless;
    float quality;
  };
  static constexpr Setting kColour[] = {{false, 70}, {false, 80}, {false, 90}, {false, 95}};
  static constexpr Setting kData[] = {{false, 90}, {false, 95}, {true, 100}};
  static constexpr Setting kNormal[] = {{false, 95}, {false, 100}, {true, 100}};
  std::span<const Setting> settings = role == TextureRole::kColour ? std::span<const Setting>(kColour)
                                      : role == TextureRole::kData ? std::span<const Setting>(kData)
                                                                   : std::span<const Setting>(kNormal);
  EncodedTexture out;
  for (const Setting& setting : settings) {
    WebpOptions options;
    options.lossless = setting.lossless;
    options.quality = setting.quality;
    Expected<std::vector<uint8_t>> bytes = encodeWebp(image.rgba, image.width, image.height, options);
    if (!bytes) return bytes.error();
    Expected<DecodedImage> decoded = decodeImage(*bytes);
    if (!decoded) return decoded.error();
    out.bytes = std::move(bytes).value();
    out.decoded = std::move(decoded).value();
    out.format = setting.lossless ? "webp-lossless" : "webp";
    Expected<ImageError> error = measureImageError(image, out.decoded);
    if (error && error->psnr >= min_psnr) break;
  }
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
