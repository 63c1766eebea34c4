// SPDX-License-Identifier: MIT
// `morphkit view FILE [--port N] [--no-open] [--scene N] [--anim N|NAME|rest] [--weights NAME=V,...]
//                     [--capture C.csv ...]`
// Loads and validates FILE, packs every posed primitive with src/pack and serves a WebGPU page (web/) that draws it
// with the WGSL module: a slider per target, the animations and the capture on a timeline, the vertex/compute
// switch, and the largest distance of the GPU pose from the CPU reference (docs/VIEW.md). The last line on stdout
// is the URL to open; the server runs until Ctrl-C.
#include <fmt/core.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "morphkit/core/pose.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/names.h"
#include "selection.h"
#include "view_payload.h"
#include "view_server.h"
#include "weight_options.h"

extern char** environ;

namespace morphkit::cli {
namespace {

struct ViewOptions {
  std::string file;
  std::string scene;
  bool scene_given = false;
  std::string anim;
  int port = 8765;
  bool no_open = false;
  FileAccessFlags file_access;
  BudgetFlags budget;
  WeightOptions weights;
};

// Best effort: the URL is printed either way, so a failure here is a note, not an error.
void openBrowser(const std::string& url) {
  const char* argv[] = {"xdg-open", url.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "xdg-open", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
    reportNote("view: could not start xdg-open; open the URL below by hand (--no-open skips this)");
  }
}

int run(const ViewOptions& options) {
  LoadOptions load;
  options.file_access.applyTo(load);
  load.budget = options.budget.budget();
  Expected<Asset> asset = loadAsset(options.file, load);
  if (!asset) return reportFailure(options.file, asset.error());
  LoadedWeights weights;
  if (int code = loadWeights(*asset, options.file, options.weights, weights); code != 0) return code;
  uint32_t scene = kNone;
  if (options.scene_given) {
    Expected<uint32_t> found = findSceneNamed(*asset, options.scene, "--scene");
    if (!found) return reportFailure(options.file, found.error());
    scene = *found;
  }
  Expected<uint32_t> animation = findAnimation(*asset, options.anim, weights.capture.has_value());
  if (!animation) return reportFailure(options.file, animation.error());
  Expected<PosePrepared> prepared = preparePose(*asset, scene);
  if (!prepared) return reportFailure(options.file, prepared.error());
  if (prepared->instances.empty()) {
    return reportFailure(options.file, fail(Error::kInvalidArgument, "view: the scene has no mesh to show"));
  }

  ViewStart start;
  start.animation = *animation;
  for (const WeightOverride& w : weights.overrides) {
    if (!w.name.empty()) {
      start.weights.push_back(w);
    } else {
      reportWarning(fmt::format("view: --weights by target index ({}) is ignored: the sliders go by name", w.target));
    }
  }
  if (weights.capture) start.capture_duration = weightTrackDuration(weights.capture->track);
  const std::string name = std::filesystem::path(options.file).filename().string();
  Expected<ViewPayload> payload = buildViewPayload(*asset, *prepared, name, start);
  if (!payload) return reportFailure(options.file, payload.error());

  ViewContent content;
  content.prepared = &*prepared;
  content.payload = std::move(*payload);
  content.capture = weights.capture ? &weights.capture->track : nullptr;
  content.match = weights.match;
  const std::string token = newViewToken();
  Status served = serveView(content, token, options.port, [&](int port) {
    const std::string url = fmt::format("http://127.0.0.1:{}/{}/", port, token);
    fmt::print("morphkit view: serving {} on 127.0.0.1:{} (Ctrl-C stops it)\n", shown(name), port);
    fmt::print("{}\n", url);  // the last line: the URL, token included (docs/VIEW.md)
    std::fflush(stdout);
    if (!options.no_open) openBrowser(url);
  });
  if (!served) return reportFailure(options.file, served.error());
  return 0;
}

const CommandRegistration kViewCommand(
    {42, [](CLI::App& app, int& exit_code) {
       auto options = std::make_shared<ViewOptions>();
       CLI::App* sub = app.add_subcommand(
           "view", "Serve a WebGPU blend-shape viewer of FILE on 127.0.0.1 (sliders, timeline, vertex/compute paths)");
       sub->add_option("FILE", options->file, "a .gltf or .glb file")->required();
       sub->add_option("--port", options->port, "the port on 127.0.0.1 (default 8765; 0: any free port)")
           ->check(CLI::Range(0, 65535));
       sub->add_flag("--no-open", options->no_open, "do not start a browser (xdg-open); just print the URL");
       auto* scene = sub->add_option("--scene", options->scene, "scene index or name (default: the file's scene)");
       addAnimationOption(sub, options->anim,
                          "the animation on the timeline at start, index, name or rest (default: the first)");
       addFileAccessOptions(sub, options->file_access);
       addBudgetOptions(sub, options->budget);
       addWeightOptions(*sub, options->weights, kOverrideOptions | kCaptureOptions);
       sub->callback([scene, options, &exit_code] {
         options->scene_given = scene->count() > 0;
         exit_code = run(*options);
       });
     }});

}  // namespace
}  // namespace morphkit::cli
