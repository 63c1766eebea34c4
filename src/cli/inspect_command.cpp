// SPDX-License-Identifier: MIT
// `morphkit inspect FILE [--json]`: what a glTF file holds, as far as morphing and skinning care.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include "command.h"
#include "morphkit/accessor.h"
#include "morphkit/animation.h"
#include "morphkit/gltf.h"
#include "morphkit/json_writer.h"
#include "morphkit/primitive.h"
#include "morphkit/text.h"
#if HAVE_morphkit_vk
#include "morphkit/gpu_layout.h"
#endif

namespace morphkit::cli {
namespace {

const char* modeName(PrimitiveMode mode) {
  static const char* kNames[] = {"POINTS", "LINES", "LINE_LOOP", "LINE_STRIP", "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN"};
  return kNames[uint32_t(mode)];
}
const char* pathName(TargetPath path) {
  static const char* kNames[] = {"translation", "rotation", "scale", "weights"};
  return kNames[uint32_t(path)];
}
// Non-core paths (extensions such as KHR_animation_pointer) keep their own name: "pointer (ignored)".
std::string channelPathName(const AnimationChannel& channel) {
  return channel.other_path.empty() ? std::string(pathName(channel.path)) : channel.other_path + " (ignored)";
}
const char* interpolationName(Interpolation interpolation) {
  static const char* kNames[] = {"LINEAR", "STEP", "CUBICSPLINE"};
  return kNames[uint32_t(interpolation)];
}

// "f32", "u16", "i8 normalized", "sparse f32"...
std::string encodingOf(const Accessor& a) {
  std::string text = componentTypeName(a.component_type);
  if (a.normalized) text += " normalized";
  if (a.has_sparse) text = std::string(a.buffer_view == kNone ? "sparse " : "sparse-on-dense ") + text;
  return text;
}

bool isQuantized(const Accessor& a) { return a.component_type != ComponentType::kFloat; }

// The texture's KTX2 image (KHR_texture_basisu source, or a `source` that is itself KTX2), or kNone.
uint32_t ktx2Image(const Asset& asset, const Texture& texture) {
  if (texture.basisu_source != kNone) return texture.basisu_source;
  return isKtx2Image(asset, texture.source) ? texture.source : kNone;
}
// Whether `render` can draw it: a source that is not KTX2 (a PNG/JPEG, possibly the basisu fallback).
bool textureDrawable(const Asset& asset, const Texture& texture) {
  return texture.source != kNone && !isKtx2Image(asset, texture.source);
}

// What decodePrimitive's normalizeSkinWeights does to this primitive's WEIGHTS_n (read here without decoding the
// rest of the primitive); `has` is false without skin weights.
struct SkinWeightReport {
  bool has = false;
  SkinWeightFix fix;
};

SkinWeightReport checkSkinWeights(const Asset& asset, const Primitive& primitive) {
  SkinWeightReport report;
  std::vector<std::vector<float>> sets;
  for (uint32_t n = 0;; ++n) {
    uint32_t accessor = findAttribute(primitive.attributes, "WEIGHTS_" + std::to_string(n));
    if (accessor == kNone || findAttribute(primitive.attributes, "JOINTS_" + std::to_string(n)) == kNone) break;
    sets.push_back(readAccessorFloats(asset, accessor));
  }
  if (sets.empty()) return report;
  const size_t vertices = sets[0].size() / 4;
  const uint32_t influences = uint32_t(4 * sets.size());
  std::vector<float> weights(vertices * influences);  // interleaved per vertex, as PrimitiveData::skin_weights
  for (size_t v = 0; v < vertices; ++v) {
    for (size_t s = 0; s < sets.size(); ++s) std::copy_n(&sets[s][v * 4], 4, &weights[v * influences + s * 4]);
  }
  report.has = true;
  report.fix = normalizeSkinWeights(weights, influences);
  return report;
}

// Sums within this of 1 are rescaled silently: lossy encoders (Draco quantizes weights) leave ~1e-4.
constexpr double kWarnSkinWeightSum = 1e-3;

std::string skinWeightWarning(size_t mesh, size_t primitive, const SkinWeightFix& fix) {
  std::string text = fmt::format("meshes[{}].primitives[{}]: {} vertices have skin weights that do not sum to 1 "
                                 "(worst sum {:.6g}); rescaled to sum 1 as three.js and Babylon.js do",
                                 mesh, primitive, fix.rescaled, fix.worst_sum);
  if (fix.zero > 0) text += fmt::format(" ({} all-zero: bound to their first joint)", fix.zero);
  return text + " (--keep-skin-weights keeps them)";
}

struct PrimitiveSummary {
  uint32_t vertex_count = 0, index_count = 0;
  size_t morph_bytes = 0;
  std::vector<std::vector<std::string>> target_attributes;  // per target, sorted
  std::vector<std::string> sparse, quantized;               // "target[3].POSITION: sparse f32"
  SkinWeightReport weights;
  // What the GPU's f16 delta layout would lose against f32 (max abs error per attribute); only with targets.
  bool has_f16 = false;
  float f16_position = 0, f16_normal = 0, f16_tangent = 0, f16_extra = 0;
  bool f16_overflow = false;
};

void measureF16([[maybe_unused]] const Asset& asset, [[maybe_unused]] uint32_t mesh, [[maybe_unused]] uint32_t primitive,
                [[maybe_unused]] PrimitiveSummary& s) {
#if HAVE_morphkit_vk
  Expected<PrimitiveData> data = decodePrimitive(asset, mesh, primitive);
  if (!data || data->targets.empty()) return;
  F16DeltaError error = f16DeltaError(*data);
  s.has_f16 = true;
  s.f16_position = error.max_abs_position;
  s.f16_normal = error.max_abs_normal;
  s.f16_tangent = error.max_abs_tangent;
  s.f16_extra = error.max_abs_extra;
  s.f16_overflow = error.overflow;
#endif
}

PrimitiveSummary summarize(const Asset& asset, const Primitive& primitive) {
  PrimitiveSummary s;
  s.vertex_count = asset.accessors[primitive.attributes.front().accessor].count;
  if (primitive.indices != kNone) s.index_count = asset.accessors[primitive.indices].count;
  for (const Attribute& attribute : primitive.attributes) {
    const Accessor& a = asset.accessors[attribute.accessor];
    if (a.has_sparse) s.sparse.push_back(attribute.name + ": " + encodingOf(a));
    if (isQuantized(a) && attribute.name.rfind("JOINTS_", 0) != 0) s.quantized.push_back(attribute.name + ": " + encodingOf(a));
  }
  for (size_t t = 0; t < primitive.targets.size(); ++t) {
    std::vector<std::string> names;
    for (const Attribute& attribute : primitive.targets[t].attributes) {
      const Accessor& a = asset.accessors[attribute.accessor];
      names.push_back(attribute.name);
      s.morph_bytes += accessorStorageBytes(asset, attribute.accessor);
      std::string label = "targets[" + std::to_string(t) + "]." + attribute.name + ": " + encodingOf(a);
      if (a.has_sparse) s.sparse.push_back(label);
      if (isQuantized(a)) s.quantized.push_back(label);
    }
    std::sort(names.begin(), names.end());
    s.target_attributes.push_back(std::move(names));
  }
  s.weights = checkSkinWeights(asset, primitive);
  return s;
}

// Identical primitives (primitiveIdentity) are summarized once: a file repeating one primitive a thousand times
// must not be decoded a thousand times.
using SummaryCache = std::unordered_map<std::string, PrimitiveSummary>;

const PrimitiveSummary& summaryOf(SummaryCache& cache, const Asset& asset, size_t m, size_t p) {
  const Primitive& primitive = asset.meshes[m].primitives[p];
  auto [it, inserted] = cache.try_emplace(primitiveIdentity(primitive));
  if (inserted) {
    it->second = summarize(asset, primitive);
    if (!primitive.targets.empty()) measureF16(asset, uint32_t(m), uint32_t(p), it->second);
  }
  return it->second;
}

// {"name", "type", "componentType", "normalized", "sparse", "count"} of one attribute's accessor.
void writeAttribute(JsonWriter& json, const Asset& asset, const Attribute& attribute) {
  const Accessor& a = asset.accessors[attribute.accessor];
  json.beginObject().field("name", attribute.name).field("type", accessorTypeName(a.type));
  json.field("componentType", componentTypeName(a.component_type)).field("normalized", a.normalized);
  json.field("sparse", a.has_sparse).field("count", a.count).endObject();
}

void writeJson(const Asset& asset, const std::filesystem::path& file) {
  JsonWriter json(true);
  json.beginObject();
  json.field("file", file.string());
  json.field("generator", asset.generator);
  json.key("extensionsUsed").array(std::span<const std::string>(asset.extensions_used));
  json.key("extensionsRequired").array(std::span<const std::string>(asset.extensions_required));
  json.key("notes").array(std::span<const std::string>(asset.notes));
  json.field("scenes", uint32_t(asset.scenes.size()));
  json.field("nodes", uint32_t(asset.nodes.size()));
  json.key("meshes").beginArray();
  std::vector<std::string> warnings;
  SummaryCache summaries;
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const Mesh& mesh = asset.meshes[m];
    json.beginObject().field("index", uint32_t(m)).field("name", mesh.name);
    json.key("weights").array(std::span<const float>(mesh.weights));
    json.key("targetNames").array(std::span<const std::string>(mesh.target_names));
    json.key("primitives").beginArray();
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& primitive = mesh.primitives[p];
      const PrimitiveSummary& s = summaryOf(summaries, asset, m, p);
      json.beginObject().field("index", uint32_t(p)).field("mode", modeName(primitive.mode));
      json.field("vertexCount", s.vertex_count).field("indexCount", s.index_count);
      json.key("attributes").beginArray();
      for (const Attribute& attribute : primitive.attributes) writeAttribute(json, asset, attribute);
      json.endArray();
      json.field("targetCount", uint32_t(primitive.targets.size()));
      json.key("targets").beginArray();
      for (const auto& names : s.target_attributes) json.array(std::span<const std::string>(names));
      json.endArray();
      json.key("targetAttributes").beginArray();
      for (const MorphTarget& target : primitive.targets) {
        json.beginArray();
        for (const Attribute& attribute : target.attributes) writeAttribute(json, asset, attribute);
        json.endArray();
      }
      json.endArray();
      json.field("morphBytes", uint64_t(s.morph_bytes));
      if (s.has_f16) {
        json.key("f16MaxError").beginObject().field("position", s.f16_position).field("normal", s.f16_normal);
        json.field("tangent", s.f16_tangent).field("extra", s.f16_extra).field("overflow", s.f16_overflow).endObject();
      }
      json.key("sparse").array(std::span<const std::string>(s.sparse));
      json.key("quantized").array(std::span<const std::string>(s.quantized));
      if (s.weights.has) {
        json.key("skinWeights").beginObject().field("rescaled", s.weights.fix.rescaled).field("zero", s.weights.fix.zero);
        json.field("worstSum", s.weights.fix.worst_sum).endObject();
      }
      if (std::abs(s.weights.fix.worst_sum - 1.0) > kWarnSkinWeightSum) warnings.push_back(skinWeightWarning(m, p, s.weights.fix));
      json.endObject();
    }
    json.endArray().endObject();
  }
  json.endArray();
  json.key("skins").beginArray();
  for (size_t s = 0; s < asset.skins.size(); ++s) {
    const Skin& skin = asset.skins[s];
    json.beginObject().field("index", uint32_t(s)).field("name", skin.name).field("joints", uint32_t(skin.joints.size()));
    json.field("inverseBindMatrices", skin.inverse_bind_matrices != kNone);
    json.key("skeleton");
    if (skin.skeleton == kNone) json.null(); else json.value(skin.skeleton);
    json.endObject();
  }
  json.endArray();
  json.key("textures").beginArray();
  for (size_t t = 0; t < asset.textures.size(); ++t) {
    const Texture& texture = asset.textures[t];
    const uint32_t ktx2 = ktx2Image(asset, texture);
    json.beginObject().field("index", uint32_t(t)).key("source");
    if (texture.source == kNone) json.null(); else json.value(texture.source);
    json.field("ktx2", ktx2 != kNone).key("ktx2Image");
    if (ktx2 == kNone) json.null(); else json.value(ktx2);
    json.field("drawable", textureDrawable(asset, texture)).endObject();
  }
  json.endArray();
  json.key("animations").beginArray();
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    const Animation& animation = asset.animations[a];
    json.beginObject().field("index", uint32_t(a)).field("name", animation.name);
    json.field("duration", animationDuration(asset, uint32_t(a)));
    json.key("channels").beginArray();
    for (const AnimationChannel& channel : animation.channels) {
      const AnimationSampler& sampler = animation.samplers[channel.sampler];
      json.beginObject();
      json.key("node");
      if (channel.node == kNone) json.null(); else json.value(channel.node);
      json.field("path", channelPathName(channel)).field("interpolation", interpolationName(sampler.interpolation));
      json.field("sampler", channel.sampler).field("keys", asset.accessors[sampler.input].count);
      const Accessor& output = asset.accessors[sampler.output];
      json.field("outputEncoding", encodingOf(output));
      json.field("outputComponentType", componentTypeName(output.component_type));
      json.field("outputNormalized", output.normalized).field("outputSparse", output.has_sparse);
      json.endObject();
    }
    json.endArray().endObject();
  }
  json.endArray();
  json.key("warnings").array(std::span<const std::string>(warnings));
  json.endObject();
  fmt::print("{}\n", json.str());
}

void writeTable(const Asset& asset, const std::filesystem::path& file) {
  fmt::print("{}  (generator: {})\n", shown(file.string(), 1024), asset.generator.empty() ? "-" : shown(asset.generator, kPrintableMaxBytes));
  if (!asset.extensions_used.empty()) {
    std::string list;
    for (const auto& e : asset.extensions_used) list += (list.empty() ? "" : ", ") + printable(e);
    fmt::print("extensions: {}\n", list);
  }
  for (const auto& note : asset.notes) fmt::print("note: {}\n", shown(note));
  fmt::print("\n{:<14} {:>9} {:>9} {:>8} {:>11}  {}\n", "mesh/prim", "vertices", "indices", "targets", "morph bytes", "attributes");
  std::vector<std::string> warnings;
  SummaryCache summaries;
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const Mesh& mesh = asset.meshes[m];
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& primitive = mesh.primitives[p];
      const PrimitiveSummary& s = summaryOf(summaries, asset, m, p);
      std::string attributes;
      for (const Attribute& attribute : primitive.attributes) attributes += (attributes.empty() ? "" : " ") + printable(attribute.name);
      fmt::print("{:<14} {:>9} {:>9} {:>8} {:>11}  {}\n", fmt::format("{}/{}", m, p), s.vertex_count, s.index_count,
                 primitive.targets.size(), s.morph_bytes, attributes);
      // Targets grouped by the attribute set they move: "targets 0-51 move NORMAL POSITION".
      std::map<std::string, std::vector<size_t>> groups;
      for (size_t t = 0; t < s.target_attributes.size(); ++t) {
        std::string key;
        for (const auto& name : s.target_attributes[t]) key += (key.empty() ? "" : " ") + printable(name);
        groups[key.empty() ? "(nothing)" : key].push_back(t);
      }
      for (const auto& [moved, targets] : groups) {
        fmt::print("{:<14} {} target(s) move {}\n", "", targets.size(), moved);
      }
      for (const auto& line : s.sparse) fmt::print("{:<14} sparse    {}\n", "", shown(line));
      if (s.has_f16) {
        fmt::print("{:<14} f16 deltas: max error position {:.3g}, normal {:.3g}, tangent {:.3g}{}\n", "", s.f16_position,
                   s.f16_normal, s.f16_tangent, s.f16_overflow ? " (OVERFLOW: f16 unusable)" : "");
      }
      for (const auto& line : s.quantized) fmt::print("{:<14} quantized {}\n", "", shown(line));
      if (s.weights.fix.rescaled > 0) {
        fmt::print("{:<14} skin weights: {} vertices rescaled to sum 1 (worst sum {:.6g}, {} all-zero)\n", "",
                   s.weights.fix.rescaled, s.weights.fix.worst_sum, s.weights.fix.zero);
      }
      if (std::abs(s.weights.fix.worst_sum - 1.0) > kWarnSkinWeightSum) warnings.push_back(skinWeightWarning(m, p, s.weights.fix));
    }
    if (!mesh.target_names.empty()) fmt::print("{:<14} target names: {} given\n", "", mesh.target_names.size());
  }
  bool ktx2_heading = false;
  for (size_t t = 0; t < asset.textures.size(); ++t) {
    const Texture& texture = asset.textures[t];
    const uint32_t ktx2 = ktx2Image(asset, texture);
    if (ktx2 == kNone) continue;
    if (!ktx2_heading) fmt::print("\nKTX2 textures (KHR_texture_basisu; posing never needs them):\n");
    ktx2_heading = true;
    fmt::print("  textures[{}]: images[{}] is KTX2; {}\n", t, ktx2,
               textureDrawable(asset, texture) ? fmt::format("render uses the fallback images[{}]", texture.source)
                                              : std::string("no fallback: render draws its materials with their factors"));
  }
  if (!asset.skins.empty()) fmt::print("\nskins:\n");
  for (size_t s = 0; s < asset.skins.size(); ++s) {
    fmt::print("  {} {:<20} {} joints\n", s, asset.skins[s].name.empty() ? "-" : printable(asset.skins[s].name), asset.skins[s].joints.size());
  }
  if (!asset.animations.empty()) fmt::print("\nanimations:\n");
  for (size_t a = 0; a < asset.animations.size(); ++a) {
    const Animation& animation = asset.animations[a];
    std::map<std::string, int> counts;
    for (const AnimationChannel& channel : animation.channels) {
      counts[fmt::format("{} {}", printable(channelPathName(channel)), interpolationName(animation.samplers[channel.sampler].interpolation))]++;
    }
    std::string channels;
    for (const auto& [label, count] : counts) channels += fmt::format("{}{}x {}", channels.empty() ? "" : ", ", count, label);
    fmt::print("  {} {:<20} {:.3f} s  {} channels: {}\n", a, animation.name.empty() ? "-" : printable(animation.name),
               animationDuration(asset, uint32_t(a)), animation.channels.size(), channels);
  }
  for (const auto& warning : warnings) reportWarning(warning);
}

struct InspectOptions {
  std::string file;
  bool json = false;
  bool allow_external_paths = false;
  BudgetFlags budget;
};

const CommandRegistration kRegistration({10, [](CLI::App& app, int& exit_code) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App* sub = app.add_subcommand("inspect", "Show meshes, morph targets, skins and animations of a glTF file");
  sub->add_option("FILE", options->file, "a .gltf or .glb file")->required();
  sub->add_flag("--json", options->json, "machine-readable output (schema in docs/CLI.md)");
  sub->add_flag("--allow-external-paths", options->allow_external_paths, "let URIs point outside the file's folder");
  std::string extensions;
  for (const char* name : supportedExtensions()) extensions += std::string(extensions.empty() ? "" : ", ") + name;
  sub->footer("Supported glTF extensions (docs/CLI.md says what each does): " + extensions +
              ". Other extensions in extensionsRequired are refused; in extensionsUsed only, they are noted and ignored.");
  addBudgetOptions(sub, options->budget);
  sub->callback([options, &exit_code] {
    LoadOptions load;
    load.allow_external_paths = options->allow_external_paths;
    load.budget = options->budget.budget();
    auto asset = loadAsset(options->file, load);
    if (!asset) {
      exit_code = reportFailure(options->file, asset.error());
      return;
    }
    if (options->json) writeJson(*asset, options->file);
    else writeTable(*asset, options->file);
  });
}});

}  // namespace
}  // namespace morphkit::cli
