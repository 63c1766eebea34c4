// SPDX-License-Identifier: MIT
// `morphkit view FILE [--port N] [--no-open] [--scene N] [--anim N|NAME|rest] [--weights NAME=V,...]
//                     [--capture C.csv ...]`
// Loads and validates FILE, packs every posed primitive with src/pack and serves a WebGPU page (web/) that draws it
// with the WGSL module: a slider per target, the animations and the capture on a timeline, the vertex/compute
// switch, and the largest distance of the GPU pose from the CPU reference (docs/VIEW.md). The last line on stdout
// is the URL to open; the server runs until Ctrl-C.
#include <fcntl.h>
#include <fmt/core.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
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

// Best effort: the URL is printed either way, so a failure is one note (xdg-open's own lines, one per browser it
// tried, go to /dev/null). The child gets an empty signal mask (serveView blocks SIGINT/SIGTERM in this thread), and
// a detached thread reaps it: xdg-open may wait for the browser it started.
void openBrowser(const std::string& url) {
  static constexpr const char* kNote = "view: no browser could be opened; open the URL above by hand";
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  for (int fd : {0, 1, 2}) posix_spawn_file_actions_addopen(&files, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
  const char* argv[] = {"xdg-open", url.c_str(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "xdg-open", &files, &attributes, const_cast<char**>(argv), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&files);
  if (spawned != 0) {
    reportNote(kNote);
    return;
  }
  std::thread([pid] {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) reportNote(kNote);
  }).detach();
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
  // Names (--ignore-case, VRM expressions) resolved here once: the page applies the targets, never a name.
  for (const WeightOverride& w : weights.overrides) {
    Expected<std::vector<TargetRef>> refs = resolveOverride(*asset, w, weights.match);
    if (!refs) return reportFailure(options.file, refs.error());  // loadWeights kept only the names it resolved
    for (TargetRef ref : *refs) start.weights.push_back({ref, w.value});
  }
  if (weights.capture) start.capture_duration = weightTrackDuration(weights.capture->track);
  const std::string name = std::filesystem::path(options.file).filename().string();
  Expected<ViewPayload> payload = buildViewPayload(*asset, *prepared, name, start);
  if (!payload) return reportFailure(options.file, payload.error());

  ViewContent content;
  content.asset = &*asset;
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
