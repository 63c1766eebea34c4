// SPDX-License-Identifier: MIT
// writePoseMtl (morphkit/io/pose_writers.h): the .mtl beside a posed OBJ and the images it names.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <string>

#include "morphkit/io/pose_writers.h"

namespace morphkit {
namespace {

// ".png" / ".jpg" for a base-colour image an .mtl can name, from its mimeType or URI; "" for anything else (KTX2).
std::string imageExtension(const Image& image) {
  if (image.mime_type == "image/png") return ".png";
  if (image.mime_type == "image/jpeg") return ".jpg";
  std::string ext = std::filesystem::path(image.uri).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg" ? ext : std::string();
}

// The materials the posed primitives use, in first-use order.
std::vector<uint32_t> usedMaterials(const PoseResult& pose, const Asset& asset) {
  std::vector<uint32_t> used;
  for (const PosedPrimitive& m : pose.meshes) {
    const uint32_t material = asset.meshes[m.mesh].primitives[m.primitive].material;
    if (material < asset.materials.size() && std::find(used.begin(), used.end(), material) == used.end())
      used.push_back(material);
  }
  return used;
}

// One newmtl per used material (Kd: the base colour factor, d: its alpha) with map_Kd naming the base-colour
// texture's image, which travels as a copy beside the OBJ: <stem>_image<N>.png|.jpg.
}  // namespace

PoseMtl writePoseMtl(const PoseResult& pose, const Asset& asset, std::string_view stem) {
  PoseMtl mtl;
  mtl.text = "# morphkit pose\n";
  for (uint32_t index : usedMaterials(pose, asset)) {
    const Material& material = asset.materials[index];
    const float* f = material.base_color_factor;
    char line[256];
    std::snprintf(line, sizeof line, "\nnewmtl material%u\nKd %.9g %.9g %.9g\nd %.9g\n", index, double(f[0]),
                  double(f[1]), double(f[2]), double(f[3]));
    mtl.text += line;
    const uint32_t texture = material.base_color_texture.texture;
    if (texture >= asset.textures.size()) continue;
    // An .mtl names PNG or JPEG: EXT_texture_webp's fallback `source`, or the WebP (then warned about) if alone.
    const Texture& t = asset.textures[texture];
    const uint32_t image = t.source != kNone ? t.source : t.webp_source;
    if (image >= asset.images.size()) continue;
    const std::string ext = imageExtension(asset.images[image]);
    Expected<std::span<const uint8_t>> bytes = imageBytes(asset, image);
    if (ext.empty() || !bytes || bytes->empty()) {
      mtl.warnings.push_back("images[" + std::to_string(image) +
                             "]: " + (!bytes ? bytes.error().message : std::string("not a PNG or JPEG")) +
                             "; the .mtl names no texture for materials[" + std::to_string(index) + "]");
      continue;
    }
    const std::string name = std::string(stem) + "_image" + std::to_string(image) + ext;
    mtl.text += "map_Kd " + name + "\n";
    if (std::none_of(mtl.images.begin(), mtl.images.end(), [&](const auto& i) { return i.first == name; }))
      mtl.images.emplace_back(name, *bytes);
  }
  return mtl;
}

}  // namespace morphkit
