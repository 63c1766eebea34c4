// SPDX-License-Identifier: MIT
// --weights / --weights-file for pose, render and animate, and the capture they hand to capture_options.cpp
// (weight_options.h).
#include "weight_options.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "capture_options.h"
#include "command.h"
#include "morphkit/core/expressions.h"
#include "morphkit/io/weight_files.h"
#include "morphkit/model/files.h"
#include "morphkit/model/text.h"

namespace morphkit::cli {

bool parseWeightItem(const Asset& asset, std::string_view item, NameMatch match, WeightOverride& out,
                     std::string& why) {
  const size_t eq = item.rfind('=');
  if (eq == std::string_view::npos || eq == 0) {
    why = "expected NAME=VALUE";
    return false;
  }
  const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
  double number = 0.0;
  if (!parseFiniteDouble(value, number) || !std::isfinite(float(number))) {
    why = "the value is not a finite number";
    return false;
  }
  out = WeightOverride{};
  out.value = float(number);
  if (findTargetsByName(asset, key, match).empty() && findExpression(asset, key, match) == kNone) {
    const size_t colon = key.find(':');
    uint32_t mesh = kNone, target = kNone;
    // At most 9 digits: kNone (every mesh) must not be spellable as an index.
    const auto index = [](std::string_view text, uint32_t& parsed) {
      return text.size() <= 9 && parseUint32(text, parsed);
    };
    if (colon == std::string_view::npos ? index(key, target)
                                        : index(key.substr(0, colon), mesh) && index(key.substr(colon + 1), target)) {
      out.mesh = mesh;
      out.target = target;
      return true;
    }
  }
  out.name = std::string(key);
  return true;
}

Expected<std::vector<WeightOverride>> applyExpressions(const Asset& asset, std::vector<WeightOverride> overrides,
                                                       NameMatch match) {
  std::vector<ExpressionValue> values;
  std::vector<WeightOverride> rest;
  for (WeightOverride& o : overrides) {
    const uint32_t expression = o.name.empty() ? kNone : findExpression(asset, o.name, match);
    if (expression != kNone) {
      values.push_back({expression, o.value});
    } else {
      rest.push_back(std::move(o));
    }
  }
  if (values.empty()) return rest;
  Expected<std::vector<WeightOverride>> weights = expressionWeights(asset, values);
  if (!weights) return weights.error();
  weights->insert(weights->end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
  return weights;
}

namespace {

// Unknown names: one error (exit 1), or with --ignore-unknown a warning and the entry dropped.
int resolveOverrides(const Asset& asset, const std::string& asset_file, const WeightOptions& options,
                     std::vector<WeightOverride>& overrides, NameMatch match) {
  std::vector<WeightOverride> known;
  for (WeightOverride& o : overrides) {
    Expected<std::vector<TargetRef>> refs = resolveOverride(asset, o, match);
    if (refs) {
      known.push_back(std::move(o));
    } else if (options.ignore_unknown) {
      reportWarning(fmt::format("{}: {}; ignored (--ignore-unknown)", asset_file, refs.error().message));
    } else {
      return reportFailure(asset_file,
                           fail(Error::kInvalidArgument, refs.error().message + " (--ignore-unknown to skip it)"));
    }
  }
  overrides = std::move(known);
  return 0;
}

}  // namespace

void addWeightOptions(CLI::App& sub, WeightOptions& o, unsigned sets) {
  if (sets & kOverrideOptions) {
    sub.add_option("--weights", o.weights,
                   "set weights: NAME=VALUE[,NAME=VALUE...] (NAME: a target, or a VRM avatar's expression such as "
                   "happy; N=V: target N of every mesh, M:N=V: of mesh M)")
        ->delimiter(',')
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    sub.add_option("--weights-file", o.weights_file, "set weights from a JSON file {\"NAME\": VALUE, ...}");
    sub.add_flag("--ignore-case", o.ignore_case,
                 "--weights / --weights-file names match target names case-insensitively");
  }
  if (sets & kCaptureOptions) addCaptureOptions(sub, o, (sets & kBakeOptions) != 0);
  sub.add_flag("--ignore-unknown", o.ignore_unknown, "an unknown target name is a warning, not an error");
}

WeightInputs LoadedWeights::inputs() const {
  WeightInputs inputs;
  inputs.track = capture ? &capture->track : nullptr;
  inputs.overrides = overrides;
  inputs.match = match;
  return inputs;
}

int loadWeights(const Asset& asset, const std::string& asset_file, const WeightOptions& options, LoadedWeights& out) {
  out = LoadedWeights{};
  out.match = options.ignore_case ? NameMatch::kCaseInsensitive : NameMatch::kExact;
  if (!options.maps.empty() && options.csv.empty()) return reportUsage("--map: needs --capture");
  if (!options.weights_file.empty()) {
    Expected<std::vector<uint8_t>> bytes = readFile(options.weights_file, kMaxWeightsFileBytes);
    if (!bytes) return reportFailure(options.weights_file, bytes.error());
    Expected<std::vector<WeightOverride>> parsed =
        parseWeightsJson(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
    if (!parsed) return reportFailure(options.weights_file, parsed.error());
    out.overrides = std::move(*parsed);
  }
  std::vector<WeightOverride> from_line;
  for (const std::string& item : options.weights) {
    WeightOverride o;
    std::string why;
    if (!parseWeightItem(asset, item, out.match, o, why)) {
      return reportUsage("--weights '" + item + "': " + why);
    }
    from_line.push_back(std::move(o));
  }
  out.overrides.insert(out.overrides.end(), from_line.begin(), from_line.end());  // the command line wins
  Expected<std::vector<WeightOverride>> expanded = applyExpressions(asset, std::move(out.overrides), out.match);
  if (!expanded) return reportFailure(asset_file, expanded.error());
  out.overrides = std::move(*expanded);
  if (int code = resolveOverrides(asset, asset_file, options, out.overrides, out.match); code != 0) return code;
  if (!options.csv.empty()) return loadCapture(asset, asset_file, options, out);
  return 0;
}

std::string describeOverrides(const std::vector<WeightOverride>& overrides) {
  std::string out;
  for (size_t i = 0; i < overrides.size(); ++i) {
    if (i == 8) return out + fmt::format(", ... ({} in all)", overrides.size());
    const WeightOverride& o = overrides[i];
    const std::string key = !o.name.empty()   ? printable(o.name)
                            : o.mesh == kNone ? std::to_string(o.target)
                                              : fmt::format("{}:{}", o.mesh, o.target);
    out += fmt::format("{}{}={:g}", i ? ", " : "", key, o.value);
  }
  return out;
}

std::string nonZeroWeights(const Mesh& mesh, const std::vector<float>& weights) {
  std::string out;
  for (size_t t = 0; t < weights.size(); ++t) {
    if (weights[t] == 0.0f) continue;
    const bool named = t < mesh.target_names.size() && !mesh.target_names[t].empty();
    out += fmt::format("{}{}={:.4g}", out.empty() ? "" : " ",
                       named ? printable(mesh.target_names[t]) : std::to_string(t), weights[t]);
  }
  return out;
}

}  // namespace morphkit::cli
