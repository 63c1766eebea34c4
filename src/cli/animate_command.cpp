// SPDX-License-Identifier: MIT
// `morphkit animate IN --weights-csv CAPTURE.csv --out OUT.glb [--name capture] [--map MAP.json] [--csv-fps 60]
//  [--ignore-unknown] [--verbose] [--json] [--allow-external-paths]`: bakes a face capture into a new glTF
// animation (one LINEAR weights channel per node whose mesh has matched targets, morphkit/core/weights.h
// bakeWeightTrack), keeps the file's animations, validates and writes OUT.glb atomically.
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>

#include "capture_options.h"
#include "command.h"
#include "morphkit/gltf/animation_pointer.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/model/accessor.h"
#include "morphkit/model/extensions.h"
#include "morphkit/model/files.h"
#include "morphkit/model/primitive.h"
#include "morphkit/model/text.h"
#include "output_folder.h"
#include "weight_options.h"

namespace morphkit::cli {
namespace {

struct AnimateOptions {
  std::string file;
  std::string out;
  std::string name = "capture";
  bool json = false;
  FileAccessFlags file_access;
  WeightOptions weights;
};

// The writer keeps every extension object of IN and declares exactly what it writes (morphkit/gltf/glb_writer.h);
// the compressions the loader decoded are not written back, which the user is told.
void reportDecodedCompression(const Asset& asset, const std::string& file) {
  for (const std::string& name : asset.extensions_used) {
    if (const GltfExtension* row = findGltfExtension(name); row && row->decoded) {
      reportWarning(fmt::format("{}: extensionsUsed '{}': decoded at load, the output is written uncompressed", file,
                                printable(name)));
    }
  }
}

// KHR_draco_mesh_compression is lossy and the loader decoded it: written plain, the decoded attributes must
// satisfy the core rules the compressed file did not have to state exactly — accessor min/max equal to the data
// (§3.6.2.5) and float skin weights summing to 1 (§3.7.3.3). min/max of float accessors are recomputed from the
// data; float WEIGHTS_n that do not sum to 1 are rescaled (normalizeSkinWeights, as every morphkit path and
// three.js already treat them) into new accessors the primitive points at.
void settleDecodedDraco(Asset& asset) {
  for (uint32_t a = 0; a < asset.accessors.size(); ++a) {
    Accessor& accessor = asset.accessors[a];
    if (accessor.min.empty() || accessor.component_type != ComponentType::kFloat || accessor.count == 0) continue;
    const std::vector<float> values = readAccessorFloats(asset, a);
    const size_t components = componentCount(accessor.type);
    accessor.min.assign(components, INFINITY);
    accessor.max.assign(components, -INFINITY);
    for (size_t i = 0; i < values.size(); ++i) {
      accessor.min[i % components] = std::min(accessor.min[i % components], double(values[i]));
      accessor.max[i % components] = std::max(accessor.max[i % components], double(values[i]));
    }
  }
  for (Mesh& mesh : asset.meshes) {
    for (Primitive& primitive : mesh.primitives) {
      std::vector<uint32_t> sets;
      for (uint32_t s = 0;; ++s) {
        const uint32_t w = findAttribute(primitive.attributes, "WEIGHTS_" + std::to_string(s));
        if (w == kNone) break;
        sets.push_back(w);
      }
      const bool all_float = !sets.empty() && std::all_of(sets.begin(), sets.end(), [&](uint32_t w) {
        return asset.accessors[w].component_type == ComponentType::kFloat;
      });
      if (!all_float) continue;
      const uint32_t influences = uint32_t(4 * sets.size());
      const size_t vertices = asset.accessors[sets[0]].count;
      std::vector<float> weights(vertices * influences);
      for (size_t s = 0; s < sets.size(); ++s) {
        const std::vector<float> set = readAccessorFloats(asset, sets[s]);
        for (size_t v = 0; v < vertices; ++v) std::copy_n(&set[4 * v], 4, &weights[v * influences + 4 * s]);
      }
      if (normalizeSkinWeights(weights, influences).rescaled == 0) continue;
      for (size_t s = 0; s < sets.size(); ++s) {
        std::vector<float> set(4 * vertices);
        for (size_t v = 0; v < vertices; ++v) std::copy_n(&weights[v * influences + 4 * s], 4, &set[4 * v]);
        AppendAccessorOptions options;
        options.target = kArrayBuffer;
        const uint32_t fixed = appendAccessor(asset, std::span<const float>(set), AccessorType::kVec4, options);
        for (Attribute& attribute : primitive.attributes) {
          if (attribute.name == "WEIGHTS_" + std::to_string(s)) attribute.accessor = fixed;
        }
      }
    }
  }
}

int run(const AnimateOptions& o) {
  std::string ext = std::filesystem::path(o.out).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext != ".glb" && ext != ".vrm") {  // a .vrm is a .glb with VRM's extension
    return reportUsage("--out " + o.out + ": animate writes a binary glTF (.glb or .vrm)");
  }
  if (o.name.empty()) {
    return reportUsage("--name: must not be empty");
  }
  LoadOptions load;
  o.file_access.applyTo(load);
  Expected<Asset> asset = loadAsset(o.file, load);
  if (!asset) return reportFailure(o.file, asset.error());
  if (std::string ignored = ignoredPointerWarning(*asset); !ignored.empty()) reportWarning(o.file + ": " + ignored);
  for (const Animation& a : asset->animations) {
    if (a.name == o.name) {
      return reportFailure(o.file, fail(Error::kInvalidArgument, "animations: one is already named '" + o.name +
                                                                     "' (choose another with --name)"));
    }
  }
  LoadedWeights weights;
  if (int code = loadWeights(*asset, o.file, o.weights, weights); code != 0) return code;
  BakeReduction reduction;  // --max-error: the fewest keys within the bound (capture_options.h)
  if (int code = reduceForBake(*asset, o.file, o.weights, weights, reduction); code != 0) return code;
  const WeightTrack& track = weights.capture->track;

  const bool draco = std::find(asset->extensions_used.begin(), asset->extensions_used.end(), kDracoExtension) !=
                     asset->extensions_used.end();
  reportDecodedCompression(*asset, o.file);
  if (draco) settleDecodedDraco(*asset);
  for (size_t i = 0; i < asset->images.size(); ++i) {
    const std::string& uri = asset->images[i].uri;
    if (!uri.empty() && !uri.starts_with("data:")) {
      reportWarning(
          fmt::format("{}: images[{}].uri '{}' stays relative: copy it beside {}", o.file, i, printable(uri), o.out));
    }
  }
  Expected<uint32_t> baked = bakeWeightTrack(*asset, track, o.name, NameMatch::kExact);
  if (!baked) return reportFailure(o.file, baked.error());
  // Every producer of an asset goes through the one validation pass (the same as the loader's).
  if (Status valid = validateAsset(*asset); !valid) return reportFailure(o.out, valid.error());
  Expected<std::vector<uint8_t>> glb = writeGlb(*asset);
  if (!glb) return reportFailure(o.out, glb.error());
  Expected<bool> written = writeOutputFile(o.out, std::span<const uint8_t>(*glb));  // the overwrite rule
  if (!written) return reportFailure(o.out, written.error());
  const bool replaced = *written;

  const Animation& animation = asset->animations[*baked];
  const CaptureMatch& capture = *weights.capture;
  const double duration = weightTrackDuration(track);
  if (o.json) {
    JsonWriter json;
    json.beginObject();
    json.field("file", std::string_view(o.file));
    json.field("out", std::string_view(o.out));
    json.field("animation", *baked);
    json.field("name", std::string_view(o.name));
    json.field("channels", uint32_t(animation.channels.size()));
    json.field("keys", uint32_t(track.keys.times.size()));
    reduction.addJson(json);
    json.field("duration", duration);
    json.field("targets", uint32_t(track.names.size()));
    json.field("matchedColumns", uint32_t(capture.matched_columns.size()));
    json.field("unmatchedColumns", uint32_t(capture.unmatched_columns.size() + capture.unused_rotation_columns.size()));
    json.field("unusedRotationColumns", uint32_t(capture.unused_rotation_columns.size()));
    json.field("unmatchedTargets", uint32_t(capture.unmatched_targets.size()));
    json.field("bytes", uint64_t(glb->size()));
    json.field("replaced", replaced);
    json.endObject();
    fmt::print("{}\n", json.str());
  } else {
    fmt::print(
        "{}: animation {} '{}': {} weights channel{}, {} keys over {:.3f} s driving {} target name{}; {} "
        "animation{} in all, {} bytes{}{}\n",
        o.out, *baked, o.name, animation.channels.size(), animation.channels.size() == 1 ? "" : "s",
        track.keys.times.size(), duration, track.names.size(), track.names.size() == 1 ? "" : "s",
        asset->animations.size(), asset->animations.size() == 1 ? "" : "s", glb->size(), replaced ? " (replaced)" : "",
        reduction.describe());
  }
  return 0;
}

const CommandRegistration kAnimateCommand(
    {44, [](CLI::App& app, int& exit_code) {
       auto options = std::make_shared<AnimateOptions>();
       CLI::App* sub =
           app.add_subcommand("animate", "Bake a face capture (Live Link Face CSV) into a glTF weights animation");
       sub->add_option("IN", options->file, "the .gltf or .glb file")->required();
       sub->add_option("-o,--out", options->out, "the .glb file to write (IN's content plus the new animation)")
           ->required();
       sub->add_option("--name", options->name, "name of the new animation")->capture_default_str();
       sub->add_flag("--json", options->json, "print the summary as one JSON object");
       addFileAccessOptions(sub, options->file_access);
       addWeightOptions(*sub, options->weights, kCaptureOptions | kBakeOptions);
       sub->get_option("--weights-csv")->required();
       sub->callback([options, &exit_code] { exit_code = run(*options); });
     }});

}  // namespace
}  // namespace morphkit::cli
