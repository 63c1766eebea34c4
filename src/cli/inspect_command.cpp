// SPDX-License-Identifier: MIT
// `morphkit inspect FILE... [--json]`: what glTF files hold, as far as morphing and skinning care. The data comes
// from morphkit/io/inspect.h (the same builder as the Python package's Asset.info()).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "command.h"
#include "morphkit/core/animation.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/inspect.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/model/extensions.h"
#include "morphkit/model/material_features.h"
#include "morphkit/model/text.h"

namespace morphkit::cli {
namespace {

// "0-3,7,9-51": target indices as ranges.
std::string indexRanges(const std::vector<size_t>& indices) {
  std::string text;
  for (size_t i = 0; i < indices.size();) {
    size_t j = i;
    while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += j == i ? std::to_string(indices[i]) : fmt::format("{}-{}", indices[i], indices[j]);
    i = j + 1;
  }
  return text;
}

// Sparse and quantized morph-target accessors, one line per (attribute, encoding) instead of one per target:
// "targets 0-51 POSITION: i16 normalized (52 targets)". The base attributes' lines stay as they are.
void printTargetEncodings(const Asset& asset, const Primitive& primitive) {
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> sparse, quantized;
  for (size_t t = 0; t < primitive.targets.size(); ++t) {
    for (const Attribute& attribute : primitive.targets[t].attributes) {
      const Accessor& a = asset.accessors[attribute.accessor];
      const auto key = std::make_pair(printable(attribute.name), accessorEncoding(a));
      if (a.has_sparse) sparse[key].push_back(t);
      if (a.component_type != ComponentType::kFloat) quantized[key].push_back(t);
    }
  }
  for (const auto& [label, groups] : {std::pair{"sparse   ", &sparse}, std::pair{"quantized", &quantized}}) {
    for (const auto& [key, targets] : *groups) {
      fmt::print("{:<14} {} targets {} {}: {} ({} target{})\n", "", label, indexRanges(targets), key.first, key.second,
                 targets.size(), targets.size() == 1 ? "" : "s");
    }
  }
}

// "target names: jawOpen, eyeBlinkLeft, ..." wrapped at about 100 columns.
void printTargetNames(const Mesh& mesh) {
  std::string line = fmt::format("{:<14} target names:", "");
  for (size_t t = 0; t < mesh.target_names.size(); ++t) {
    const std::string name =
        fmt::format(" {}{}", printable(mesh.target_names[t], 64), t + 1 < mesh.target_names.size() ? "," : "");
    if (line.size() + name.size() > 110) {
      fmt::print("{}\n", line);
      line = std::string(28, ' ');
    }
    line += name;
  }
  fmt::print("{}\n", line);
}

// "material features:" what the materials and primitives use (morphkit/model/material_features.h), and the ones render
// does not shade.
void printMaterialFeatures(const Asset& asset) {
  const MaterialFeatures features = materialFeatures(asset);
  if (features.used.empty()) return;
  std::string line;
  for (const std::string& name : features.used) line += (line.empty() ? "" : ", ") + printable(name, 64);
  fmt::print("material features: {}\n", line);
  line.clear();
  for (const std::string& name : features.unshaded) line += (line.empty() ? "" : ", ") + printable(name, 64);
  if (!line.empty()) fmt::print("not shaded by render: {}\n", line);
}

// "materials:" one line each (base colour, the textures it samples, alpha mode), then "textures:" with the image
// each one shows: what travels with a posed OBJ or GLB, and what render draws.
void printMaterialsAndTextures(const Asset& asset) {
  if (!asset.materials.empty()) fmt::print("\nmaterials:\n");
  for (size_t m = 0; m < asset.materials.size(); ++m) {
    const Material& material = asset.materials[m];
    std::string textures;
    for (const auto& [slot, ref] : {std::pair{"baseColor", &material.base_color_texture},
                                    {"metallicRoughness", &material.metallic_roughness_texture},
                                    {"normal", &material.normal_texture},
                                    {"occlusion", &material.occlusion_texture},
                                    {"emissive", &material.emissive_texture}}) {
      if (ref->texture != kNone) textures += fmt::format("{}{} {}", textures.empty() ? "" : ", ", slot, ref->texture);
    }
    constexpr const char* kAlpha[] = {"OPAQUE", "MASK", "BLEND"};
    const float* c = material.base_color_factor;
    std::string extensions;
    for (const std::string& name : material.extensions) extensions += "; " + printable(name, 64);
    fmt::print("  {} {:<20} baseColor {:.3g} {:.3g} {:.3g} {:.3g}; textures: {}; {}{}{}\n", m,
               material.name.empty() ? "-" : printable(material.name), c[0], c[1], c[2], c[3],
               textures.empty() ? "none" : textures, kAlpha[size_t(material.alpha_mode) % 3],
               material.double_sided ? ", double-sided" : "", extensions);
  }
  printMaterialFeatures(asset);
  if (!asset.textures.empty()) fmt::print("\ntextures:\n");
  for (size_t t = 0; t < asset.textures.size(); ++t) {
    const Texture& texture = asset.textures[t];
    const uint32_t source = texture.webp_source != kNone ? texture.webp_source : texture.source;
    if (source >= asset.images.size()) {
      fmt::print("  {} no image\n", t);
      continue;
    }
    const Image& image = asset.images[source];
    const std::string where = image.buffer_view != kNone       ? fmt::format("bufferViews[{}]", image.buffer_view)
                              : image.uri.starts_with("data:") ? std::string("data: URI")
                                                               : printable(image.uri);
    fmt::print("  {} images[{}] {} {}{}\n", t, source, image.name.empty() ? "-" : printable(image.name), where,
               image.mime_type.empty() ? "" : " (" + printable(image.mime_type) + ")");
  }
}

void writeTable(const Asset& asset, const std::filesystem::path& file) {
  fmt::print("{}  (generator: {})\n", shown(file.string(), 1024),
             asset.generator.empty() ? "-" : shown(asset.generator, kPrintableMaxBytes));
  if (!asset.extensions_used.empty()) {
    std::string list;
    for (const auto& e : asset.extensions_used) {
      list += (list.empty() ? "" : ", ") + printable(e) + " (" + std::string(extensionHandling(e)) + ")";
    }
    fmt::print("extensions: {}\n", list);
  }
  for (const auto& note : asset.notes) fmt::print("note: {}\n", shown(note));
  fmt::print("\n{:<14} {:>9} {:>9} {:>8} {:>11}  {}\n", "mesh/prim", "vertices", "indices", "targets", "morph bytes",
             "attributes");
  PrimitiveSummaryCache summaries;
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const Mesh& mesh = asset.meshes[m];
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& primitive = mesh.primitives[p];
      const PrimitiveSummary& s = summaryOf(summaries, asset, uint32_t(m), uint32_t(p));
      std::string attributes;
      for (const Attribute& attribute : primitive.attributes)
        (attributes += attributes.empty() ? "" : " ") += printable(attribute.name);
      fmt::print("{:<14} {:>9} {:>9} {:>8} {:>11}  {}\n", fmt::format("{}/{}", m, p), s.vertex_count, s.index_count,
                 primitive.targets.size(), s.morph_bytes, attributes);
      // Targets grouped by the attribute set they move: "targets 0-51 move NORMAL POSITION".
      std::map<std::string, std::vector<size_t>> groups;
      for (size_t t = 0; t < s.target_attributes.size(); ++t) {
        std::string key;
        for (const auto& name : s.target_attributes[t]) (key += key.empty() ? "" : " ") += printable(name);
        groups[key.empty() ? "(nothing)" : key].push_back(t);
      }
      for (const auto& [moved, targets] : groups) {
        fmt::print("{:<14} {} target(s) move {}\n", "", targets.size(), moved);
      }
      for (const auto& line : s.sparse) {
        if (!line.starts_with("targets[")) fmt::print("{:<14} sparse    {}\n", "", shown(line));
      }
      if (s.has_f16) {
        fmt::print("{:<14} f16 deltas: max error position {:.3g}, normal {:.3g}, tangent {:.3g}{}\n", "",
                   s.f16_position, s.f16_normal, s.f16_tangent, s.f16_overflow ? " (OVERFLOW: f16 unusable)" : "");
        fmt::print("{:<14} snorm16 deltas: max error position {:.3g}, normal {:.3g}, tangent {:.3g}{}\n", "",
                   s.snorm16_position, s.snorm16_normal, s.snorm16_tangent,
                   s.snorm16_non_finite ? " (NON-FINITE delta: snorm16 unusable)" : "");
      }
      for (const auto& line : s.quantized) {
        if (!line.starts_with("targets[")) fmt::print("{:<14} quantized {}\n", "", shown(line));
      }
      printTargetEncodings(asset, primitive);
      if (s.skin_weights.rescaled > 0) {
        fmt::print("{:<14} skin weights: {} vertices rescaled to sum 1 (worst sum {:.6g}, {} all-zero)\n", "",
                   s.skin_weights.rescaled, s.skin_weights.worst_sum, s.skin_weights.zero);
      }
    }
    if (!mesh.target_names.empty()) printTargetNames(mesh);
  }
  printMaterialsAndTextures(asset);
  bool ktx2_heading = false;
  for (size_t t = 0; t < asset.textures.size(); ++t) {
    const Texture& texture = asset.textures[t];
    const uint32_t ktx2 = textureKtx2Image(asset, texture);
    if (ktx2 == kNone) continue;
    if (!ktx2_heading) fmt::print("\nKTX2 textures (KHR_texture_basisu; posing never needs them):\n");
    ktx2_heading = true;
    fmt::print("  textures[{}]: images[{}] is KTX2; {}\n", t, ktx2,
               textureDrawable(asset, texture)
                   ? fmt::format("render uses the fallback images[{}]", texture.source)
                   : std::string("no fallback: render draws its materials with their factors"));
  }
  if (!asset.skins.empty()) fmt::print("\nskins:\n");
  for (size_t s = 0; s < asset.skins.size(); ++s) {
    fmt::print("  {} {:<20} {} joints\n", s, asset.skins[s].name.empty() ? "-" : printable(asset.skins[s].name),
               asset.skins[s].joints.size());
  }
  if (!asset.animations.empty()) fmt::print("\nanimations:\n");
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    const Animation& animation = asset.animations[a];
    std::map<std::string, int> counts;
    for (const AnimationChannel& channel : animation.channels) {
      counts[fmt::format("{} {}", printable(channelPathName(channel)),
                         interpolationName(animation.samplers[channel.sampler].interpolation))]++;
    }
    std::string channels;
    for (const auto& [label, count] : counts)
      channels += fmt::format("{}{}x {}", channels.empty() ? "" : ", ", count, label);
    fmt::print("  {} {:<20} {:.3f} s  {} channels: {}\n", a, animation.name.empty() ? "-" : printable(animation.name),
               animationDuration(asset, uint32_t(a)), animation.channels.size(), channels);
  }
  if (!asset.vrm.version.empty()) fmt::print("\nVRM {} expressions:\n", asset.vrm.version);
  for (const std::string& line : describeExpressions(asset)) fmt::print("  {}\n", line);
  // Each warning names its file: with several files the table's heading is far above.
  for (const auto& warning : inspectWarnings(asset)) reportWarning(file.string() + ": " + warning);
}

// FILE, or "-": the bytes of a .glb or .gltf from stdin (relative URIs resolve against the current folder).
Expected<Asset> loadInput(const std::string& file, const LoadOptions& load) {
  if (file != "-") return loadAsset(file, load);
  constexpr size_t kMaxStdinBytes = size_t(4) << 30;
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> chunk(size_t(1) << 16);
  for (size_t n; (n = std::fread(chunk.data(), 1, chunk.size(), stdin)) > 0;) {
    if (bytes.size() + n > kMaxStdinBytes) return fail(Error::kTooLarge, "stdin holds more than 4 GiB");
    bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + long(n));
  }
  if (std::ferror(stdin)) return fail(Error::kIo, "cannot read stdin");
  return loadAssetFromMemory(bytes, ".", load);
}

struct InspectOptions {
  std::vector<std::string> files;
  bool json = false;
  FileAccessFlags file_access;
  BudgetFlags budget;
};

// Every file in turn: a failing one is its error line (and, with --json and several files, an entry
// {"file", "error"}); the others are still reported; exit 1 when any failed. One file: one JSON object; several:
// an array in the order given.
int inspectFiles(const InspectOptions& options) {
  LoadOptions load;
  options.file_access.applyTo(load);
  load.budget = options.budget.budget();
  const bool array = options.files.size() > 1;
  int code = 0;
  if (options.json && array) fmt::print("[\n");
  for (size_t i = 0; i < options.files.size(); ++i) {
    const std::string& file = options.files[i];
    Expected<Asset> asset = loadInput(file, load);
    if (!asset) code = reportFailure(file, asset.error());
    if (options.json) {
      std::string entry;
      if (asset) {
        entry = inspectJson(*asset, file);
      } else if (array) {
        JsonWriter json(true);
        json.beginObject().field("file", std::string_view(file)).field("error", asset.error().message).endObject();
        entry = json.str();
      }
      if (!entry.empty()) fmt::print("{}{}\n", entry, array && i + 1 < options.files.size() ? "," : "");
    } else if (asset) {
      if (i > 0) fmt::print("\n");
      writeTable(*asset, file);
    }
  }
  if (options.json && array) fmt::print("]\n");
  return code;
}

const CommandRegistration kInspectCommand(
    {10, [](CLI::App& app, int& exit_code) {
       auto options = std::make_shared<InspectOptions>();
       CLI::App* sub = app.add_subcommand("inspect", "Show meshes, morph targets, skins and animations of a glTF file");
       sub->add_option("FILE", options->files, "one or more .gltf or .glb files (-: read one from stdin)")->required();
       sub->add_flag("--json", options->json, "machine-readable output (schema in docs/CLI.md)");
       addFileAccessOptions(sub, options->file_access);
       std::string extensions;
       for (const GltfExtension& e : gltfExtensions()) {
         extensions += "\n  " + std::string(e.name) + ": " + std::string(e.summary);
       }
       sub->footer("Supported glTF extensions (docs/CLI.md says more):" + extensions +
                   "\nOther extensions in extensionsRequired are refused; in extensionsUsed only, they are noted and "
                   "ignored (the writers keep their objects).");
       addBudgetOptions(sub, options->budget);
       sub->callback([options, &exit_code] { exit_code = inspectFiles(*options); });
     }});

}  // namespace
}  // namespace morphkit::cli
