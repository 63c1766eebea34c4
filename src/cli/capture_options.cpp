// SPDX-License-Identifier: MIT
// The capture options (capture_options.h): any capture format → the asset's targets, with one report.
#include "capture_options.h"

#include <fmt/core.h>

#include <cmath>
#include <filesystem>
#include <thread>

#include "command.h"
#include "morphkit/core/track_reduce.h"
#include "morphkit/io/capture_file.h"
#include "morphkit/io/capture_signal.h"
#include "morphkit/io/weight_files.h"
#include "morphkit/model/files.h"
#include "morphkit/model/text.h"
#include "morphkit/model/thread_pool.h"

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

CaptureOptions captureOptions(const WeightOptions& options) {
  CaptureOptions capture_options;
  parseCaptureFormatName(options.capture_format, capture_options.format);  // checked by CLI11
  capture_options.timecode_fps = options.csv_fps;
  capture_options.fps = options.capture_fps;
  capture_options.face = options.face;
  return capture_options;
}

// The options' usage errors (exit 2), the neutral face's file read, then io's cleanCapture (morphkit/io/
// capture_signal.h), whose step lines --verbose prints.
int cleanCaptureFromOptions(const WeightOptions& options, Capture& capture, std::vector<std::string>& steps) {
  // CLI11's ranges let NaN through (every comparison with it is false).
  for (auto [name, value] : {std::pair<const char*, double>{"--capture-offset", options.capture_offset},
                             {"--capture-scale", options.capture_scale},
                             {"--capture-fps", options.capture_fps},
                             {"--csv-fps", options.csv_fps},
                             {"--fps", options.resample_fps}}) {
    if (!std::isfinite(value)) return reportUsage(std::string(name) + ": must be a finite number");
  }
  if (!std::isfinite(options.max_error_mm)) {
    return reportUsage("--max-error: must be a finite number");
  }
  CaptureCleanup cleanup;
  cleanup.scale = float(options.capture_scale);
  cleanup.offset_seconds = options.capture_offset;
  cleanup.resample_fps = options.resample_fps;
  if (!options.smooth.empty()) {
    OneEuroParams smooth;
    if (!parseOneEuro(options.smooth, smooth)) {
      return reportUsage("--smooth '" + options.smooth +
                         "': expected one-euro or one-euro:MINCUTOFF,BETA (MINCUTOFF > 0, "
                         "BETA >= 0)");
    }
    cleanup.smooth = smooth;
  }
  Capture neutral_face;
  if (options.neutral.starts_with("first:")) {
    if (!parseFiniteDouble(std::string_view(options.neutral).substr(6), cleanup.neutral_seconds) ||
        cleanup.neutral_seconds < 0.0) {
      return reportUsage("--neutral '" + options.neutral +
                         "': expected first:SECONDS (SECONDS >= 0) or a capture file");
    }
  } else if (!options.neutral.empty()) {
    Expected<Capture> face = readCaptureFile(options.neutral, captureOptions(options));
    if (!face) return reportFailure(options.neutral, face.error());
    neutral_face = std::move(*face);
    cleanup.neutral_face = &neutral_face;
    cleanup.neutral_name = options.neutral;
  }
  Expected<CaptureCleanupReport> report = cleanCapture(capture, cleanup);
  if (!report) return reportFailure(options.csv, report.error());
  steps = std::move(report->steps);
  return 0;
}

// The one report line (as read: rows and duration before cleaning), then the names under --verbose.
void printReport(const WeightOptions& options, const Capture& capture, size_t rows, double duration,
                 const CaptureMatch& match) {
  if (outputFlags().quiet) return;
  const size_t unmatched = match.unmatched_columns.size() + match.unused_rotation_columns.size();
  const std::string skipped = capture.skipped_frames == 0 ? std::string()
                                                          : fmt::format(" ({} frames without face {} skipped)",
                                                                        capture.skipped_frames, options.face);
  fmt::print(stderr,
             "morphkit: {}: {}, {} rows{} over {:.3f} s; columns: {} matched, {} unmatched ({} rotation unused{}); "
             "targets: {} unmatched\n",
             options.csv, captureFormatName(capture.format), rows, skipped, duration, match.matched_columns.size(),
             unmatched, match.unused_rotation_columns.size(),
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

void addCaptureOptions(CLI::App& sub, WeightOptions& o, bool resample) {
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
  sub.add_option("--capture-scale", o.capture_scale,
                 "the capture value meaning fully on: values are divided by it (default: detected, 100 for 0-100 data)")
      ->check(CLI::Range(1e-6, 1e6));
  sub.add_option(
      "--neutral", o.neutral,
      "subtract the neutral face, clamped at 0: first:SECONDS (the mean of the first rows) or a capture FILE");
  sub.add_option("--smooth", o.smooth,
                 "smooth the channels: one-euro[:MINCUTOFF,BETA] (the One-Euro filter; default 1 Hz, beta 1)");
  sub.add_option("--capture-offset", o.capture_offset, "shift the capture in time by SECONDS (negative: earlier)")
      ->check(CLI::Range(-1e6, 1e6));
  if (resample) {
    sub.add_option("--fps", o.resample_fps, "resample the capture to this frame rate before baking (LINEAR)")
        ->check(CLI::Range(0.001, 1000.0));
    sub.add_option("--max-error", o.max_error_mm,
                   "keep the fewest keys such that no vertex moves more than MM millimetres from the full capture's "
                   "pose at any capture time (0: every key)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1e9));
  }
  sub.add_flag("--verbose", o.verbose, "list the capture's matched and unmatched names and each cleaning step");
}

int loadCapture(const Asset& asset, const std::string& asset_file, const WeightOptions& options, LoadedWeights& out) {
  CaptureMap map;
  std::string map_file;
  if (int code = loadMaps(options, map, map_file); code != 0) return code;
  Expected<Capture> capture = readCaptureFile(options.csv, captureOptions(options));
  if (!capture) return reportFailure(options.csv, capture.error());
  const size_t rows = capture->rows();
  const double duration = capture->times.back();
  std::vector<std::string> steps;
  if (int code = cleanCaptureFromOptions(options, *capture, steps); code != 0) return code;
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
  printReport(options, *capture, rows, duration, match);
  if (options.verbose) {
    for (const std::string& step : steps) fmt::print(stderr, "  {}\n", step);
  }
  out.capture = std::move(match);
  return 0;
}

std::string BakeReduction::describe() const {
  if (!applied) return {};
  return fmt::format("; keys {} -> {} within {:g} mm (largest vertex error {:.4g} mm at {:.3f} s)", keys_before,
                     keys_after, bound_mm, max_error_mm, at_time);
}

void BakeReduction::addJson(JsonWriter& json) const {
  if (!applied) return;
  json.field("keysBefore", uint32_t(keys_before));
  json.field("maxErrorMm", max_error_mm);
  json.field("maxErrorTime", at_time);
}

int reduceForBake(const Asset& asset, const std::string& asset_file, const WeightOptions& options, LoadedWeights& out,
                  BakeReduction& reduction) {
  if (options.max_error_mm == 0.0 || !out.capture) return 0;
  Expected<PosePrepared> prepared = preparePose(asset);
  if (!prepared) return reportFailure(asset_file, prepared.error());
  ThreadPool pool(std::max(1u, std::thread::hardware_concurrency()));
  Expected<TrackReduction> reduced =
      reduceWeightTrack(*prepared, out.capture->track, options.max_error_mm / 1000.0, &pool);
  if (!reduced) return reportFailure(asset_file, reduced.error());
  reduction.applied = true;
  reduction.keys_before = reduced->keys_before;
  reduction.keys_after = reduced->kept_rows.size();
  reduction.bound_mm = options.max_error_mm;
  reduction.max_error_mm = reduced->max_error * 1000.0;
  reduction.at_time = reduced->max_error_time;
  out.capture->track = std::move(reduced->track);
  return 0;
}

}  // namespace morphkit::cli
