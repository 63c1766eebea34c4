// SPDX-License-Identifier: MIT
// Output folders that are safe to split across workers and to re-run: morphkit's own file names, and the
// refuse / --force / --resume policy for a folder that already holds files.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "morphkit/model/error.h"

namespace morphkit::cli {

enum class ExistingOutput : uint8_t {
  kRefuse,  // a non-empty folder is an error: stale frames would end up in the video
  kForce,   // morphkit's own outputs in the folder are removed first; other files stay
  kResume,  // frames already written are kept and not rendered again
};

// "frame_0030.png": frames are named by their real index at --fps, at least four digits.
std::string frameFileName(uint32_t frame);
// frame_<digits>.png, contact_sheet.png, animation.mp4, and writeFileAtomic's "<one of those>.tmp-N" leftovers.
bool isRenderOutputName(std::string_view name);

// Creates `dir` when missing; then applies `policy` to what it holds. Fails (kIo) when the folder cannot be
// created or listed, or (kInvalidArgument) for kRefuse and a non-empty folder, naming what it found.
Status prepareOutputFolder(const std::filesystem::path& dir, ExistingOutput policy);

// The overwrite rule for a single-file output (docs/CLI.md, "The overwrite rule"), the one place every command's
// file goes through: writeFileAtomic after creating the folders it goes into, so an existing file is replaced
// whole (a reader sees the old file or the new one). Returns whether a file was there before, which the caller
// says ("replaced"). When the write fails, the folders this call created are removed again, so a failure leaves
// nothing behind.
Expected<bool> writeOutputFile(const std::filesystem::path& file, std::span<const uint8_t> bytes);
Expected<bool> writeOutputFile(const std::filesystem::path& file, std::string_view text);
Expected<bool> writeOutputFile(const std::filesystem::path& file, std::span<const std::span<const uint8_t>> parts);

// writeOutputFile, then the one summary line for it on stderr, "morphkit: wrote FILE (N bytes)" or "morphkit:
// replaced FILE (N bytes)" (none with --quiet). "-" writes to stdout, with no line. Returns 0, or the exit code
// after printing the error line.
int writeReportedOutput(const std::filesystem::path& file, std::span<const uint8_t> bytes);
int writeReportedOutput(const std::filesystem::path& file, std::string_view text);
int writeReportedOutput(const std::filesystem::path& file, std::span<const std::span<const uint8_t>> parts);

// True when `path`'s extension is `ext` (".glb"), ignoring ASCII case.
bool hasExtension(const std::filesystem::path& path, std::string_view ext);

}  // namespace morphkit::cli
