// SPDX-License-Identifier: MIT
// `morphkit check FILE [--engines three,babylon,filament,godot,bevy|all] [--times N] [--json] [--fail-above MM]`
// How each engine will show the file: the glTF pose against each engine profile's pose (morphkit/check/check.h,
// docs/CHECK.md), per engine the rules that apply, their deviation in millimetres, % of the bounding box and
// degrees, and the hazards (load refusals, dropped targets, extensions) apart.
#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "command.h"
#include "morphkit/check/check.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/model/text.h"

namespace morphkit::cli {
namespace {

struct CheckCommandOptions {
  std::string file;
  std::string engines = "all";
  uint32_t times = 10;
  uint32_t threads = 1;
  bool json = false;
  double fail_above = -1;  // mm; negative: never fail
  FileAccessFlags file_access;
  BudgetFlags budget;
};

// "three,bevy" or "all" → profiles; an unknown name is a usage error naming the known ones.
Expected<std::vector<const EngineProfile*>> parseEngines(const std::string& text) {
  std::vector<std::string> names;
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    names.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return engineProfilesNamed(names, "--engines");
}

std::string frameName(const Asset& asset, uint32_t animation, double time) {
  if (animation == kNone) return "rest pose";
  const std::string& name = asset.animations[animation].name;
  return fmt::format("animation {}{} t={:.4g}s", animation, name.empty() ? "" : " " + quote(name), time);
}

std::string describe(const Asset& asset, const Deviation& d) {
  if (d.frames_differing == 0) return fmt::format("no difference in {} frames", d.frames);
  std::string out = fmt::format("{:.4g} mm ({:.3g} % of bbox), normals {:.3g} deg", d.position * 1000.0,
                                d.position_percent, d.normal_degrees);
  if (d.tangent_degrees > 0) out += fmt::format(", tangents {:.3g} deg", d.tangent_degrees);
  if (d.attribute > 0) out += fmt::format(", texcoords/colors {:.3g}", d.attribute);
  if (d.vertex != kNone) {
    out += fmt::format("; worst node {} mesh {} primitive {} vertex {}, {}", d.node, d.mesh, d.primitive, d.vertex,
                       frameName(asset, d.animation, d.time));
  }
  return out + fmt::format("; differs in {} of {} frames", d.frames_differing, d.frames);
}

void printReport(const Asset& asset, const CheckReport& report) {
  fmt::print("{}: scene {}, {} frames\n", shown(report.file), report.scene, report.frames);
  for (const EngineReport& e : report.engines) {
    fmt::print("{} ({}){}: {}\n", e.profile->name, e.profile->engine, e.loads ? "" : ", REFUSES TO LOAD",
               e.measured ? describe(asset, e.deviation) : "no geometric rule applies");
    for (const RuleReport& r : e.rules) {
      if (!isGeometricRule(r.rule->kind)) continue;  // hazards are listed below
      fmt::print("  {:<22} {}{}{}\n", ruleId(r.rule->kind), r.rule->verified ? "" : "[unverified] ",
                 r.applies ? shown(r.where) : "not applicable: " + r.where,
                 r.measured ? " -> " + describe(asset, r.deviation) : "");
    }
    for (const Hazard& h : e.hazards) {
      fmt::print("  hazard: {}{}{}\n", h.refuses_load ? "load refused: " : "", shown(h.message),
                 h.measured ? "; had they been dropped instead: " + describe(asset, h.deviation) : "");
    }
  }
}

int run(const CheckCommandOptions& options) {
  Expected<std::vector<const EngineProfile*>> engines = parseEngines(options.engines);
  if (!engines) return reportUsage(engines.error().message);
  LoadOptions load;
  options.file_access.applyTo(load);
  load.budget = options.budget.budget();
  Expected<Asset> asset = loadAsset(options.file, load);
  if (!asset) return reportFailure(options.file, asset.error());
  const unsigned threads = options.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : options.threads;
  ThreadPool pool(threads);
  CheckOptions check;
  check.engines = *engines;
  check.times = options.times;
  check.pool = &pool;
  Expected<CheckReport> report = checkAsset(*asset, check);
  if (!report) return reportFailure(options.file, report.error());
  if (options.json) {
    fmt::print("{}\n", checkReportJson(*report));
  } else {
    printReport(*asset, *report);
  }
  if (options.fail_above >= 0) {
    const double worst = worstDeviationMm(*report);
    if (worst > options.fail_above) {
      return reportFailure(
          options.file, fail(Error::kInvalidArgument, fmt::format("--fail-above {:g}: an engine deviates by {:.4g} mm",
                                                                  options.fail_above, worst)));
    }
  }
  return 0;
}

const CommandRegistration kCheckCommand(
    {35, [](CLI::App& app, int& exit_code) {
       auto options = std::make_shared<CheckCommandOptions>();
       CLI::App* sub = app.add_subcommand(
           "check", "How each engine will show the file: its deviation from the glTF pose in mm, per rule");
       sub->add_option("FILE", options->file, "a .gltf or .glb file")->required();
       sub->add_option(
           "--engines", options->engines,
           "comma-separated engines: three, babylon, filament, godot, bevy, playcanvas, univrm; or all (default)");
       sub->add_option("--times", options->times, "sample times per animation, over its duration (default 10)")
           ->check(CLI::Range(1u, 100000u));
       sub->add_option("--threads", options->threads, "worker threads including the main one (0: all cores)")
           ->check(CLI::Range(0u, 256u));
       sub->add_flag("--json", options->json, "print the report as JSON (docs/CHECK.md)");
       sub->add_option("--fail-above", options->fail_above,
                       "exit 1 when an engine's position deviation exceeds MM millimetres (for asset CI)")
           ->check(CLI::Range(0.0, 1e30));
       addFileAccessOptions(sub, options->file_access);
       addBudgetOptions(sub, options->budget);
       sub->callback([options, &exit_code] { exit_code = run(*options); });
     }});

}  // namespace
}  // namespace morphkit::cli
