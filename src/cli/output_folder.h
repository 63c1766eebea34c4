// SPDX-License-Identifier: MIT
// Output folders that are safe to split across workers and to re-run: morphkit's own file names, and the
// refuse / --force / --resume policy for a folder that already holds files.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "morphkit/error.h"

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

}  // namespace morphkit::cli
