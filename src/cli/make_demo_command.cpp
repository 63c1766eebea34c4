// SPDX-License-Identifier: MIT
// `morphkit make-demo OUT.glb [--targets N] [--vertices N] [--bones N] [--seed N] [--material NAME]
//  [--texture-size N] [--capture-seconds S] [--no-capture] [--animation-pointer] [--vrm|--vrm0] [--json]`: writes the
//  built-in demo asset (morphkit/demo/demo.h, docs/DEMO.md) as a .glb and, beside
// it, a sample face capture OUT_capture.csv that drives its ARKit-named targets (docs/FACE_CAPTURE.md).
#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "morphkit/demo/demo.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/model/files.h"
#include "output_folder.h"

namespace morphkit::cli {
namespace {

struct MakeDemoOptions {
  std::string file;
  // Parsed wide so that a huge number gets makeDemoAsset's "outside 0..4096" message, not an overflow.
  uint64_t targets = DemoOptions{}.targets;
  uint64_t vertices = DemoOptions{}.vertices;
  uint64_t bones = DemoOptions{}.bones;
  uint64_t seed = DemoOptions{}.seed;
  double capture_seconds = DemoCaptureOptions{}.seconds;
  std::string material = demoMaterialName(DemoMaterial::kSkin);
  uint64_t texture_size = DemoOptions{}.texture_size;
  bool texture_size_given = false;  // only the textured material has textures to size
  bool no_capture = false;
  bool animation_pointer = false;  // the weight channels as KHR_animation_pointer channels (useAnimationPointers)
  bool vrm = false, vrm0 = false;  // VRM 1.0 / VRM 0.x expressions (addDemoExpressions)
  bool json = false;
};

// OUT.glb → OUT_capture.csv beside it.
std::filesystem::path capturePath(const std::string& out) {
  std::filesystem::path path(out);
  return path.parent_path() / (path.stem().string() + "_capture.csv");
}

uint32_t saturate(uint64_t value) {
  return value > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max() : uint32_t(value);
}

// CLI11 would wrap "-1" around to 2^64-1 for an unsigned option; refuse it as a usage error instead.
const CLI::Validator kNotNegative(
    [](std::string& text) { return text.starts_with('-') ? std::string("must not be negative") : std::string(); }, "");

int run(const MakeDemoOptions& options) {
  // The file is GLB whatever its name says: a name that says otherwise is refused rather than silently wrong.
  const bool vrm = options.vrm || options.vrm0;
  if (!hasExtension(options.file, ".glb") && !(vrm && hasExtension(options.file, ".vrm")))
    return reportUsage("OUT " + options.file + ": make-demo writes a binary glTF (.glb; .vrm with --vrm/--vrm0)");
  DemoOptions demo;
  demo.targets = saturate(options.targets);
  demo.vertices = saturate(options.vertices);
  demo.bones = saturate(options.bones);
  demo.seed = options.seed;
  for (DemoMaterial m : demoMaterials())
    if (options.material == demoMaterialName(m)) demo.material = m;  // the option's check allows only these
  if (options.texture_size_given && demo.material != DemoMaterial::kTextured)
    return reportUsage("--texture-size: only --material textured has textures");
  demo.texture_size = saturate(options.texture_size);
  // makeDemoAsset refuses only its options (out of range, targets x vertices too large): a usage error.
  auto asset = makeDemoAsset(demo);
  if (!asset) {
    reportFailure({}, asset.error());
    return asset.error().code == Error::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  if (options.animation_pointer) useAnimationPointers(*asset);
  if (vrm) addDemoExpressions(*asset, options.vrm0);
  // Every Asset producer passes the one gate, the generator included (docs/ARCHITECTURE.md, "Validate").
  if (Status valid = validateAsset(*asset); !valid) return reportFailure(options.file, valid.error());
  auto glb = writeGlb(*asset);
  if (!glb) return reportFailure(options.file, glb.error());
  // The sample capture drives the ARKit-named targets (docs/FACE_CAPTURE.md). Both are made in memory first;
  // when the capture cannot be written the asset is removed again, so a failure leaves neither behind.
  std::string capture;
  const std::filesystem::path capture_path = capturePath(options.file);
  if (!options.no_capture) {
    DemoCaptureOptions capture_options;
    capture_options.seconds = options.capture_seconds;
    capture_options.seed = options.seed;
    Expected<std::string> made = makeDemoCapture(capture_options);
    if (!made) {
      reportFailure({}, made.error());
      return made.error().code == Error::kInvalidArgument ? kExitUsage : kExitFailure;
    }
    capture = std::move(*made);
  }
  Expected<bool> written = writeOutputFile(options.file, std::span<const uint8_t>(*glb));  // the overwrite rule
  if (!written) return reportFailure(options.file, written.error());
  const bool replaced = *written;
  if (!options.no_capture) {
    if (Expected<bool> s = writeOutputFile(capture_path, capture); !s) {
      std::error_code ec;
      std::filesystem::remove(options.file, ec);
      return reportFailure(capture_path, s.error());
    }
  }
  const size_t capture_rows = size_t(std::count(capture.begin(), capture.end(), '\n')) - (capture.empty() ? 0 : 1);

  const Primitive& primitive = asset->meshes[0].primitives[0];
  uint32_t vertices = asset->accessors[findAttribute(primitive.attributes, "POSITION")].count;
  uint32_t triangles = asset->accessors[primitive.indices].count / 3;
  uint32_t targets = uint32_t(primitive.targets.size());
  uint32_t bones = uint32_t(asset->skins[0].joints.size());
  if (options.json) {
    JsonWriter json;
    json.beginObject();
    json.field("file", std::string_view(options.file));
    json.field("vertices", vertices);
    json.field("triangles", triangles);
    json.field("targets", targets);
    json.field("bones", bones);
    json.field("animations", uint32_t(asset->animations.size()));
    json.field("seed", uint64_t(options.seed));
    json.field("material", std::string_view(options.material));
    json.key("textureSize");  // the side of the textured material's images; null for the other materials
    if (demo.material == DemoMaterial::kTextured)
      json.value(demo.texture_size);
    else
      json.null();
    json.field("bytes", uint64_t(glb->size()));
    json.key("capture");
    if (options.no_capture)
      json.null();
    else
      json.value(std::string_view(capture_path.string()));
    json.field("captureRows", uint64_t(capture_rows));
    json.field("replaced", replaced);
    json.endObject();
    fmt::print("{}\n", json.str());
  } else {
    std::string material = demo.material == DemoMaterial::kSkin ? "" : ", material " + options.material;
    if (demo.material == DemoMaterial::kTextured) material += fmt::format(" ({0}x{0} textures)", demo.texture_size);
    fmt::print("{}: {} vertices, {} triangles, {} targets, {} bones, {} animations{}, {} bytes{}\n",
               shown(options.file, 1024), vertices, triangles, targets, bones, asset->animations.size(), material,
               glb->size(), replaced ? " (replaced)" : "");
    if (!options.no_capture) {
      fmt::print("{}: face capture, {} rows at 60 fps (Live Link Face layout: 52 blend shapes + 9 rotations)\n",
                 capture_path.string(), capture_rows);
    }
  }
  return 0;
}

const CommandRegistration kMakeDemoCommand(
    {20, [](CLI::App& app, int& exit_code) {
       auto options = std::make_shared<MakeDemoOptions>();
       CLI::App* sub =
           app.add_subcommand("make-demo", "Write the built-in demo asset: a skinned head with facial morph targets");
       sub->add_option("OUT", options->file, "the .glb file to write")->required();
       sub->add_option("--targets", options->targets, "morph targets, 0..4096 (first 52 named like ARKit)")
           ->check(kNotNegative)
           ->capture_default_str();
       sub->add_option("--vertices", options->vertices, "approximate vertex count, 8..5000000")
           ->check(kNotNegative)
           ->capture_default_str();
       sub->add_option("--bones", options->bones, "skin joints in one chain, 1..256")
           ->check(kNotNegative)
           ->capture_default_str();
       sub->add_option("--seed", options->seed, "random seed; same options and seed give identical bytes")
           ->check(kNotNegative)
           ->capture_default_str();
       sub->add_option("--capture-seconds", options->capture_seconds, "length of the sample capture OUT_capture.csv")
           ->capture_default_str();
       std::vector<std::string> materials;
       for (DemoMaterial m : demoMaterials()) materials.push_back(demoMaterialName(m));
       sub->add_option("--material", options->material,
                       "the head's material: skin, metallic, textured, unlit, emissive, ior, specular, clearcoat, "
                       "sheen or vertex-colors (docs/DEMO.md)")
           ->check(CLI::IsMember(materials))
           ->capture_default_str();
       CLI::Option* texture_size =
           sub->add_option("--texture-size", options->texture_size,
                           "--material textured: the side of its three square images, 16..4096 (any whole number)")
               ->check(kNotNegative)
               ->capture_default_str();
       sub->add_flag("--no-capture", options->no_capture, "do not write the sample capture OUT_capture.csv");
       sub->add_flag("--animation-pointer", options->animation_pointer,
                     "write the weight channels as KHR_animation_pointer channels (talk: /nodes/0/weights, blink: "
                     "/meshes/0/weights, express: /nodes/0/weights/{i})");
       CLI::Option* vrm = sub->add_flag("--vrm", options->vrm,
                                        "add VRM 1.0 expressions (VRMC_vrm: every preset + 'smirk') on the ARKit "
                                        "targets; OUT may be .vrm");
       sub->add_flag("--vrm0", options->vrm0, "add VRM 0.x expressions (VRM blendShapeMaster) instead of 1.0's")
           ->excludes(vrm);
       sub->add_flag("--json", options->json, "print the summary as one JSON object");
       sub->callback([options, texture_size, &exit_code] {
         options->texture_size_given = texture_size->count() > 0;
         exit_code = run(*options);
       });
     }});

}  // namespace
}  // namespace morphkit::cli
