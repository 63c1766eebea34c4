// SPDX-License-Identifier: MIT
// The drop-attributes pass: vertex attributes nothing reads leave the file (gltfpack drops them too, unless -kv). A
// TEXCOORD_n no texture of the primitive's material samples, and a TANGENT when the material has no normal map; their
// morph-target deltas go with them. Kept with --keep-attributes, and whenever a material could read more than
// morphkit sees: an extension whose textures it does not parse, or material variants.
#include <algorithm>
#include <set>
#include <string>

#include "optimize_passes.h"

namespace morphkit::optimize_detail {
namespace {

// The six KHR_materials extensions Material holds every texture of (morphkit/model/asset.h); any other on a material
// may sample a TEXCOORD_n or need tangents morphkit cannot see.
constexpr std::string_view kParsedMaterialExtensions[] = {"KHR_materials_unlit",     "KHR_materials_emissive_strength",
                                                          "KHR_materials_ior",       "KHR_materials_specular",
                                                          "KHR_materials_clearcoat", "KHR_materials_sheen",
                                                          "KHR_texture_transform"};

bool materialFullyKnown(const Material& material) {
  return std::all_of(material.extensions.begin(), material.extensions.end(), [](const std::string& name) {
    return std::find(std::begin(kParsedMaterialExtensions), std::end(kParsedMaterialExtensions), name) !=
           std::end(kParsedMaterialExtensions);
  });
}

std::vector<const TextureRef*> textures(const Material& m) {
  return {&m.base_color_texture,       &m.metallic_roughness_texture, &m.normal_texture,
          &m.occlusion_texture,        &m.emissive_texture,           &m.specular.texture,
          &m.specular.color_texture,   &m.clearcoat.texture,          &m.clearcoat.roughness_texture,
          &m.clearcoat.normal_texture, &m.sheen.color_texture,        &m.sheen.roughness_texture};
}

// What a primitive's material reads: the TEXCOORD sets its textures sample, and whether it needs tangents.
struct MaterialReads {
  bool everything = false;  // a material morphkit cannot see into: keep every attribute
  std::set<uint32_t> texcoords;
  bool tangents = false;
};

MaterialReads materialReads(const Asset& asset, uint32_t material) {
  MaterialReads reads;
  if (material == kNone) return reads;  // the default material samples nothing
  if (material >= asset.materials.size() || !materialFullyKnown(asset.materials[material])) {
    reads.everything = true;
    return reads;
  }
  const Material& m = asset.materials[material];
  for (const TextureRef* ref : textures(m)) {
    if (ref->texture != kNone) reads.texcoords.insert(textureCoordinateSet(*ref));
  }
  reads.tangents = m.normal_texture.texture != kNone || m.clearcoat.normal_texture.texture != kNone;
  return reads;
}

bool unread(const std::string& name, const MaterialReads& reads) {
  if (name == "TANGENT") return !reads.tangents;
  if (name.rfind("TEXCOORD_", 0) != 0) return false;
  const std::string set = name.substr(9);
  if (set.empty() || !std::all_of(set.begin(), set.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  return !reads.texcoords.count(uint32_t(std::stoul(set)));
}

}  // namespace

void dropUnreadAttributes(PassDocument& document, const OptimizeOptions& options, OptimizePassReport& report) {
  if (options.keep_attributes) return;
  Asset& asset = document.asset;
  // Material variants (KHR_materials_variants) swap a primitive's material at run time: any of them may sample.
  const bool variants = std::find(asset.extensions_used.begin(), asset.extensions_used.end(),
                                  "KHR_materials_variants") != asset.extensions_used.end();
  if (variants) return;
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    for (uint32_t p = 0; p < asset.meshes[m].primitives.size(); ++p) {
      Primitive& primitive = asset.meshes[m].primitives[p];
      const MaterialReads reads = materialReads(asset, primitive.material);
      if (reads.everything) continue;
      std::vector<std::string> dropped;
      for (const Attribute& attribute : primitive.attributes) {
        if (unread(attribute.name, reads)) dropped.push_back(attribute.name);
      }
      if (dropped.empty()) continue;
      auto gone = [&](const Attribute& a) {
        return std::find(dropped.begin(), dropped.end(), a.name) != dropped.end();
      };
      std::erase_if(primitive.attributes, gone);
      for (MorphTarget& target : primitive.targets) std::erase_if(target.attributes, gone);
      std::string line = primitiveLabel(asset, m, p) + ": dropped";
      for (const std::string& name : dropped) line += " " + name;
      line += primitive.material == kNone
                  ? " (the default material reads none)"
                  : " (no texture or normal map of materials[" + std::to_string(primitive.material) + "] reads it)";
      report.changes.push_back(std::move(line));
    }
  }
}

}  // namespace morphkit::optimize_detail
