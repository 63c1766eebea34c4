// SPDX-License-Identifier: MIT
// The textures pass (docs/OPTIMIZE.md, "Textures"): each image a material samples is given a role from the slots that
// read it, resampled to --texture-size, encoded as WebP or KTX2 by role, decoded back and held to --texture-min-psnr
// against the input at the stored size; one that misses keeps its bytes. The new image replaces the texture's source
// through EXT_texture_webp or KHR_texture_basisu, with no fallback (the point is a smaller file), so the extension
// is required.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "morphkit/image/basisu.h"
#include "morphkit/image/image.h"
#include "optimize_passes.h"
#include "texture_codecs.h"

namespace morphkit {

const char* textureFormatName(TextureFormat format) {
  switch (format) {
    case TextureFormat::kKeep:
      return "keep";
    case TextureFormat::kWebp:
      return "webp";
    case TextureFormat::kKtx2:
      return "ktx2";
  }
  return "keep";
}

namespace optimize_detail {
namespace {

// Which material slots read an image, and so what its texels mean.
struct ImageUse {
  TextureRole role = TextureRole::kColour;
  std::string first_slot;
  uint32_t slots = 0;
  bool compressed = false;  // a texture reading it already has a KTX2 or WebP source: left as it is
};

std::map<uint32_t, ImageUse> imageUses(const Asset& asset) {
  std::map<uint32_t, ImageUse> uses;
  for (size_t m = 0; m < asset.materials.size(); ++m) {
    const Material& material = asset.materials[m];
    const std::pair<const TextureRef*, TextureRole> slots[] = {
        {&material.base_color_texture, TextureRole::kColour},
        {&material.emissive_texture, TextureRole::kColour},
        {&material.sheen.color_texture, TextureRole::kColour},
        {&material.specular.color_texture, TextureRole::kColour},
        {&material.normal_texture, TextureRole::kNormal},
        {&material.clearcoat.normal_texture, TextureRole::kNormal},
        {&material.metallic_roughness_texture, TextureRole::kData},
        {&material.occlusion_texture, TextureRole::kData},
        {&material.specular.texture, TextureRole::kData},
        {&material.clearcoat.texture, TextureRole::kData},
        {&material.clearcoat.roughness_texture, TextureRole::kData},
        {&material.sheen.roughness_texture, TextureRole::kData},
    };
    const char* names[] = {
        "baseColorTexture", "emissiveTexture",        "sheenColorTexture",         "specularColorTexture",
        "normalTexture",    "clearcoatNormalTexture", "metallicRoughnessTexture",  "occlusionTexture",
        "specularTexture",  "clearcoatTexture",       "clearcoatRoughnessTexture", "sheenRoughnessTexture"};
    for (size_t s = 0; s < std::size(slots); ++s) {
      const uint32_t t = slots[s].first->texture;
      if (t >= asset.textures.size()) continue;
      const Texture& texture = asset.textures[t];
      if (texture.source == kNone) continue;
      ImageUse& use = uses[texture.source];
      if (use.slots == 0) use.first_slot = "materials[" + std::to_string(m) + "]." + names[s];
      use.role = std::max(use.role, slots[s].second);  // normal over data over colour
      use.compressed = use.compressed || texture.basisu_source != kNone || texture.webp_source != kNone;
      ++use.slots;
    }
  }
  return uses;
}

const char* signatureFormat(std::span<const uint8_t> b) {
  if (b.size() >= 4 && b[0] == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G') return "png";
  if (b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return "jpeg";
  if (b.size() >= 12 && std::equal(b.begin(), b.begin() + 4, "RIFF") &&
      std::equal(b.begin() + 8, b.begin() + 12, "WEBP"))
    return "webp";
  if (b.size() >= 6 && b[0] == 0xAB && b[1] == 'K' && b[2] == 'T' && b[3] == 'X' && b[4] == ' ' && b[5] == '2')
    return "ktx2";
  return "unknown";
}

// One image's work, done apart from the others (in parallel on the options' pool).
struct TextureJob {
  uint32_t image = 0;
  ImageUse use;
  OptimizeTextureReport row;
  EncodedTexture encoded;
  Status status = Ok{};
};

std::string where(const Asset& asset, uint32_t image) {
  std::string label = "images[" + std::to_string(image) + "]";
  if (!asset.images[image].name.empty()) label += " '" + asset.images[image].name + "'";
  return label;
}

void runJob(const Asset& asset, const OptimizeOptions& options, const std::filesystem::path& basisu, TextureJob& job) {
  OptimizeTextureReport& row = job.row;
  const std::string at = where(asset, job.image);
  Expected<std::span<const uint8_t>> bytes = imageBytes(asset, job.image);
  if (!bytes) {
    job.status = bytes.error();
    return;
  }
  row.format_before = row.format_after = signatureFormat(*bytes);
  row.bytes_before = row.bytes_after = bytes->size();
  Expected<DecodedImage> decoded = decodeImage(*bytes);
  if (!decoded) {
    job.status = fail(decoded.error().code, at + ": " + decoded.error().message);
    return;
  }
  row.width_before = row.width = decoded->width;
  row.height_before = row.height = decoded->height;
  row.gpu_bytes_before = row.gpu_bytes_after = rgba8MipBytes(decoded->width, decoded->height);
  const DecodedImage reference = resampleTexture(*decoded, options.texture_size, job.use.role);
  const bool resized = reference.width != decoded->width || reference.height != decoded->height;
  if (options.textures == TextureFormat::kKeep && !resized) {
    row.kept = true;
    row.psnr = INFINITY;
    row.why = "keep: no larger than --texture-size";
    return;
  }
  Expected<EncodedTexture> encoded = EncodedTexture{};
  if (options.textures == TextureFormat::kWebp) {
    encoded = encodeWebpTexture(reference, job.use.role, options.texture_min_psnr);
  } else if (options.textures == TextureFormat::kKtx2) {
    encoded = encodeKtx2Texture(reference, job.use.role, basisu, at);
  } else {  // keep, resized: the new size as lossless PNG
    Expected<std::vector<uint8_t>> png =
        encodePng(reference.rgba, reference.width, reference.height, PngCompression::kSmall);
    if (!png) {
      job.status = png.error();
      return;
    }
    encoded->bytes = std::move(png).value();
    encoded->format = "png";
    encoded->setting = "lossless PNG";
    encoded->mime_type = "image/png";
    encoded->decoded = reference;
    encoded->gpu_bytes = rgba8MipBytes(reference.width, reference.height);
  }
  if (!encoded) {
    job.status = encoded.error();
    return;
  }
  Expected<ImageError> error = measureImageError(reference, encoded->decoded);
  if (!error) {
    job.status = fail(error.error().code, at + ": " + error.error().message);
    return;
  }
  row.psnr = error->psnr;
  row.max_abs = error->max_abs;
  row.tried = encoded->tried;
  char text[160];
  if (error->psnr < options.texture_min_psnr) {
    std::snprintf(text, sizeof text, "%s PSNR %.2f dB is below --texture-min-psnr %.2f dB", encoded->format.c_str(),
                  error->psnr, options.texture_min_psnr);
  } else if (!resized && options.textures != TextureFormat::kKtx2 && encoded->bytes.size() >= bytes->size()) {
    std::snprintf(text, sizeof text, "%s is not smaller (%zu bytes, the input %zu)", encoded->format.c_str(),
                  encoded->bytes.size(), bytes->size());
  } else {
    text[0] = 0;
  }
  if (text[0]) {
    row.kept = true;
    row.why = text;
    return;
  }
  row.format_after = encoded->format;
  row.setting = encoded->setting;
  row.width = reference.width;
  row.height = reference.height;
  row.bytes_after = encoded->bytes.size();
  row.gpu_bytes_after = encoded->gpu_bytes;
  job.encoded = std::move(encoded).value();
}

void addExtension(std::vector<std::string>& list, const char* name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.emplace_back(name);
}

// The image now holds `encoded`; every texture that sampled it reads it through the format's extension, with no
// fallback source.
void storeImage(Asset& asset, uint32_t index, EncodedTexture& encoded, TextureFormat format) {
  Image& image = asset.images[index];
  image.data = std::move(encoded.bytes);
  image.mime_type = encoded.mime_type;
  image.buffer_view = kNone;
  image.uri.clear();
  image.data_error.clear();
  if (format == TextureFormat::kKeep) return;
  const char* extension = format == TextureFormat::kWebp ? "EXT_texture_webp" : "KHR_texture_basisu";
  for (Texture& texture : asset.textures) {
    if (texture.source != index) continue;
    (format == TextureFormat::kWebp ? texture.webp_source : texture.basisu_source) = index;
    texture.source = kNone;
  }
  addExtension(asset.extensions_used, extension);
  addExtension(asset.extensions_required, extension);
}

std::string changeLine(const Asset& asset, const OptimizeTextureReport& row) {
  char text[256];
  std::snprintf(text, sizeof text,
                ": %s %s %u×%u %llu bytes -> %s (%s) %u×%u %llu bytes, PSNR %.2f dB, largest difference %u",
                row.role.c_str(), row.format_before.c_str(), row.width_before, row.height_before,
                static_cast<unsigned long long>(row.bytes_before), row.format_after.c_str(), row.setting.c_str(),
                row.width, row.height, static_cast<unsigned long long>(row.bytes_after), row.psnr, row.max_abs);
  return where(asset, row.image) + text;
}

}  // namespace

void encodeTextures(PassDocument& document, const OptimizeOptions& options, OptimizePassReport& report) {
  if (options.textures == TextureFormat::kKeep && options.texture_size == 0) return;
  Asset& asset = document.asset;
  std::filesystem::path basisu;
  if (options.textures == TextureFormat::kKtx2) {
    Expected<std::filesystem::path> found = findBasisu();
    if (!found) {
      document.status = fail(found.error().code, "optimize --textures ktx2: " + found.error().message);
      return;
    }
    basisu = *found;
  }
  std::vector<TextureJob> jobs;
  for (const auto& [image, use] : imageUses(asset)) {
    if (use.compressed || image >= asset.images.size() || isKtx2Image(asset, image)) continue;
    TextureJob job;
    job.image = image;
    job.use = use;
    job.row.image = image;
    job.row.name = asset.images[image].name.empty() ? asset.images[image].uri : asset.images[image].name;
    job.row.role = textureRoleName(use.role);
    job.row.used_by = use.first_slot;
    if (use.slots > 1) job.row.used_by += " and " + std::to_string(use.slots - 1) + " more";
    jobs.push_back(std::move(job));
  }
  auto work = [&](size_t begin, size_t end) {
    for (size_t j = begin; j < end; ++j) runJob(asset, options, basisu, jobs[j]);
  };
  if (options.pool) {
    options.pool->parallelFor(jobs.size(), 1, work);
  } else {
    work(0, jobs.size());
  }
  for (TextureJob& job : jobs) {
    if (!job.status) {
      document.status = job.status;
      return;
    }
  }
  for (TextureJob& job : jobs) {
    if (!job.row.kept && job.row.format_after != "unknown" && !job.encoded.bytes.empty()) {
      storeImage(asset, job.image, job.encoded, options.textures);
      report.changes.push_back(changeLine(asset, job.row));
    }
    document.textures.push_back(std::move(job.row));
  }
}

}  // namespace optimize_detail
}  // namespace morphkit
