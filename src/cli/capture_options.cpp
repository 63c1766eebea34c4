// SPDX-License-Identifier: MIT
// The capture options (capture_options.h): any capture format → the asset's targets, with one report.
#include "capture_options.h"

#include <fmt/core.h>

#include <filesystem>

#include "command.h"
#include "morphkit/capture_file.h"
#include "morphkit/io.h"
#include "morphkit/text.h"
#include "morphkit/weight_files.h"

namespace morphkit::cli {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + printable(n);
  return out.empty() ? "-" : out;
}

std::string builtinMapList() {
  std::string out;
  for (std::string_view name : builtinCaptureMapNames()) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

// Every --map: built-in maps first, then the files, so a file's entry wins over a built-in one (matchCapture takes
// the last entry for a channel). `file_name` gets the last file's name for the messages about its entries.
int loadMaps(const WeightOptions& options, CaptureMap& map, std::string& file_name) {
  std::vector<const std::string*> files;
  for (const std::string& name : options.maps) {
    if (const CaptureMap* builtin = builtinCaptureMap(name)) {
      map.entries.insert(map.entries.end(), builtin->entries.begin(), builtin->entries.end());
      continue;
    }
    std::error_code ec;
    if (!name.ends_with(".json") && !std::filesystem::exists(name, ec)) {
      return reportUsage("--map '" + name + "': neither a built-in map (" + builtinMapList() + ") nor a file");
    }
    files.push_back(&name);
  }
  for (const std::string* name : files) {
    Expected<std::vector<uint8_t>> bytes = readFile(*name, kMaxWeightsFileBytes);
    if (!bytes) return reportFailure(*name, bytes.error());
    Expected<CaptureMap> parsed =
        parseCaptureMapJson(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
    if (!parsed) return reportFailure(*name, parsed.error());
    map.entries.insert(map.entries.end(), parsed->entries.begin(), parsed->entries.end());
    file_name = *name;
  }
  return 0;
}

void printReport(const WeightOptions& options, const Capture& capture, const CaptureMatch& match) {
  if (outputFlags().quiet) return;
  const size_t unmatched = match.unmatched_columns.size() + match.unused_rotation_columns.size();
  const std::string skipped = capture.skipped_frames == 0 ? std::string()
                                                          : fmt::format(" ({} frames without face {} skipped)",
                                                                        capture.skipped_frames, options.face);
  fmt::print(stderr,
             "morphkit: {}: {}, {} rows{} over {:.3f} s; columns: {} matched, {} unmatched ({} rotation unused{}); "
             "targets: {} unmatched\n",
             options.csv, captureFormatName(capture.format), capture.rows(), skipped, double(capture.times.back()),
             match.matched_columns.size(), unmatched, match.unused_rotation_columns.size(),
             match.ignored_columns.empty() ? std::string()
                                           : fmt::format(", {} ignored by the map", match.ignored_columns.size()),
             match.unmatched_targets.size());
  if (!options.verbose) return;
  fmt::print(stderr, "  matched columns: {}\n", joined(match.matched_columns));
  fmt::print(stderr, "  unmatched columns: {}\n", joined(match.unmatched_columns));
  fmt::print(stderr, "  unused rotation columns: {}\n", joined(match.unused_rotation_columns));
  if (!match.ignored_columns.empty()) fmt::print(stderr, "  ignored columns: {}\n", joined(match.ignored_columns));
  fmt::print(stderr, "  unmatched targets: {}\n", joined(match.unmatched_targets));
}

}  // namespace

void addCaptureOptions(CLI::App& sub, WeightOptions& o) {
  sub.add_option("--capture,--weights-csv", o.csv,
                 "a face capture driving targets by name: Live Link Face or any timed CSV, MediaPipe JSON, "
                 "Audio2Face JSON, iFacialMocap packets (--weights-csv: the same)");
  std::vector<std::string> formats;
  for (CaptureFormat f : {CaptureFormat::kAuto, CaptureFormat::kLiveLink, CaptureFormat::kMediaPipe,
                          CaptureFormat::kA2f, CaptureFormat::kIFacialMocap, CaptureFormat::kCsv})
    formats.emplace_back(captureFormatName(f));
  sub.add_option("--capture-format", o.capture_format, "the capture's format (auto: by its content)")
      ->capture_default_str()
      ->check(CLI::IsMember(formats));
  sub.add_option("--face", o.face, "MediaPipe: the face N of frames that list several")
      ->capture_default_str()
      ->check(CLI::Range(0u, 1000u));
  sub.add_option("--capture-fps", o.capture_fps,
                 "frame rate of a capture without times (iFacialMocap packets); replaces Audio2Face's exportFps")
      ->check(CLI::Range(0.001, 1000.0));
  sub.add_option("--csv-fps", o.csv_fps, "frame rate of a CSV's timecodes (HH:MM:SS:FF)")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 1000.0));
  sub.add_option("--map", o.maps,
                 "capture channel -> target names: a built-in map (arkit, arkit-to-vrm, arkit-to-oculus-visemes) or a "
                 "JSON file; repeatable, a file's entries win")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub.add_flag("--verbose", o.verbose, "list the capture's matched and unmatched names");
}

int loadCapture(const Asset& asset, const std::string& asset_file, const WeightOptions& options, LoadedWeights& out) {
  CaptureMap map;
  std::string map_file;
  if (int code = loadMaps(options, map, map_file); code != 0) return code;
  Expected<std::vector<uint8_t>> bytes = readFile(options.csv, kMaxCaptureBytes);
  if (!bytes) return reportFailure(options.csv, bytes.error());
  CaptureOptions capture_options;
  parseCaptureFormatName(options.capture_format, capture_options.format);  // checked by CLI11
  capture_options.timecode_fps = options.csv_fps;
  capture_options.fps = options.capture_fps;
  capture_options.face = options.face;
  Expected<Capture> capture =
      parseCapture(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), capture_options);
  if (!capture) return reportFailure(options.csv, capture.error());
  if (capture->full_scale != 1.0f) {
    for (float& v : capture->values) v /= capture->full_scale;  // iFacialMocap's 0-100
  }
  CaptureMatch match = matchCapture(asset, *capture, options.maps.empty() ? nullptr : &map);

  for (const std::string& entry : match.unknown_map_targets) {
    const std::string target = entry.substr(entry.find(" -> ") + 4);
    const std::string message = "'" + printable(entry) + "': " + asset_file + " has no target named '" +
                                printable(target) + "' (closest: " + joined(closestTargetNames(asset, target)) + ")";
    if (!options.ignore_unknown)
      return reportFailure(map_file, fail(Error::kInvalidArgument, message + " (--ignore-unknown to skip it)"));
    reportWarning(fmt::format("{}: {}; ignored (--ignore-unknown)", map_file, message));
  }
  for (const std::string& column : match.unused_map_columns) {
    reportWarning(fmt::format("{}: '{}' names no column of {}", map_file, printable(column), options.csv));
  }
  if (match.track.names.empty()) {
    return reportFailure(options.csv,
                         fail(Error::kInvalidArgument, "no column matches a target name of " + asset_file + " (" +
                                                           std::to_string(match.unmatched_columns.size()) +
                                                           " unmatched columns; --map names them)"));
  }
  printReport(options, *capture, match);
  out.capture = std::move(match);
  return 0;
}

}  // namespace morphkit::cli
