// `morphkit animate IN --weights-csv CAPTURE.csv --out OUT.glb [--name capture] [--map MAP.json] [--csv-fps 60]
//  [--ignore-unknown] [--verbose] [--json] [--allow-external-paths]`: bakes a face capture into a new glTF
// animation (one LINEAR weights channel per node whose mesh has matched targets, morphkit/weights.h
// bakeWeightTrack), keeps the file's animations, validates and writes OUT.glb atomically.
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <string>

#include "command.h"
#include "morphkit/glb_writer.h"
#include "morphkit/gltf.h"
#include "morphkit/io.h"
#include "morphkit/json_writer.h"
#include "weight_options.h"

namespace morphkit::cli {
namespace {

struct AnimateOptions {
  std::string file;
  std::string out;
  std::string name = "capture";
  bool json = false;
  bool allow_external_paths = false;
  WeightOptions weights;
};

// The data model keeps no extension objects (morphkit/glb_writer.h), so an extension morphkit does not implement
// would be declared in OUT without its data: drop its name and say so.
void dropUnkeptExtensions(Asset& asset, const std::string& file) {
  const std::span<const char* const> kept = supportedExtensions();
  auto unkept = [&](const std::string& name) {
    return std::none_of(kept.begin(), kept.end(), [&](const char* k) { return name == k; });
  };
  for (const std::string& name : asset.extensions_used) {
    if (unkept(name)) {
      fmt::print(stderr, "morphkit: warning: {}: extensionsUsed '{}': morphkit does not keep its data; not in the output\n",
                 file, printableName(name));
    }
  }
  asset.extensions_used.erase(std::remove_if(asset.extensions_used.begin(), asset.extensions_used.end(), unkept),
                              asset.extensions_used.end());
}

int run(const AnimateOptions& o) {
  std::string ext = std::filesystem::path(o.out).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext != ".glb") {
    fmt::print(stderr, "morphkit: error: --out {}: animate writes a binary glTF (.glb)\n", o.out);
    return kExitUsage;
  }
  if (o.name.empty()) {
    fmt::print(stderr, "morphkit: error: --name: must not be empty\n");
    return kExitUsage;
  }
  LoadOptions load;
  load.allow_external_paths = o.allow_external_paths;
  Expected<Asset> asset = loadAsset(o.file, load);
  if (!asset) return reportFailure(o.file, asset.error());
  for (const Animation& a : asset->animations) {
    if (a.name == o.name) {
      return reportFailure(o.file, fail(Error::kInvalidArgument, "animations: one is already named '" + o.name +
                                                                     "' (choose another with --name)"));
    }
  }
  LoadedWeights weights;
  if (int code = loadWeights(*asset, o.file, o.weights, weights); code != 0) return code;
  const WeightTrack& track = weights.capture->track;

  dropUnkeptExtensions(*asset, o.file);
  for (size_t i = 0; i < asset->images.size(); ++i) {
    const std::string& uri = asset->images[i].uri;
    if (!uri.empty() && !uri.starts_with("data:")) {
      fmt::print(stderr, "morphkit: warning: {}: images[{}].uri '{}' stays relative: copy it beside {}\n", o.file, i,
                 printableName(uri), o.out);
    }
  }
  Expected<uint32_t> baked = bakeWeightTrack(*asset, track, o.name, NameMatch::kExact);
  if (!baked) return reportFailure(o.file, baked.error());
  // Every producer of an asset goes through the one validation pass (the same as the loader's).
  if (Status valid = validateAsset(*asset); !valid) return reportFailure(o.out, valid.error());
  Expected<std::vector<uint8_t>> glb = writeGlb(*asset);
  if (!glb) return reportFailure(o.out, glb.error());
  if (Status written = writeFileAtomic(o.out, std::span<const uint8_t>(*glb)); !written) {
    return reportFailure(o.out, written.error());
  }

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
    json.field("duration", duration);
    json.field("targets", uint32_t(track.names.size()));
    json.field("matchedColumns", uint32_t(capture.matched_columns.size()));
    json.field("unmatchedColumns", uint32_t(capture.unmatched_columns.size() + capture.unused_rotation_columns.size()));
    json.field("unusedRotationColumns", uint32_t(capture.unused_rotation_columns.size()));
    json.field("unmatchedTargets", uint32_t(capture.unmatched_targets.size()));
    json.field("bytes", uint64_t(glb->size()));
    json.endObject();
    fmt::print("{}\n", json.str());
  } else {
    fmt::print("{}: animation {} '{}': {} weights channel{}, {} keys over {:.3f} s driving {} target name{}; {} "
               "animation{} in all, {} bytes\n",
               o.out, *baked, o.name, animation.channels.size(), animation.channels.size() == 1 ? "" : "s",
               track.keys.times.size(), duration, track.names.size(), track.names.size() == 1 ? "" : "s",
               asset->animations.size(), asset->animations.size() == 1 ? "" : "s", glb->size());
  }
  return 0;
}

const CommandRegistration kRegistration({45, [](CLI::App& app, int& exit_code) {
  auto options = std::make_shared<AnimateOptions>();
  CLI::App* sub = app.add_subcommand("animate", "Bake a face capture (Live Link Face CSV) into a glTF weights animation");
  sub->add_option("IN", options->file, "the .gltf or .glb file")->required();
  sub->add_option("--out", options->out, "the .glb file to write (IN's content plus the new animation)")->required();
  sub->add_option("--name", options->name, "name of the new animation")->capture_default_str();
  sub->add_flag("--json", options->json, "print the summary as one JSON object");
  sub->add_flag("--allow-external-paths", options->allow_external_paths, "let URIs point outside the file's folder");
  addWeightOptions(*sub, options->weights, kCaptureOptions);
  sub->get_option("--weights-csv")->required();
  sub->callback([options, &exit_code] { exit_code = run(*options); });
}});

}  // namespace
}  // namespace morphkit::cli
