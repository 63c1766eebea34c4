// SPDX-License-Identifier: MIT
// Internal seam of writeFileAtomic for tests: the temporary names come from `next_suffix`, so a test can plant
// symlinks or files under exactly the names the writer will try. Not installed, not public API.
#pragma once
#include <filesystem>
#include <functional>
#include <span>
#include <string>

#include "morphkit/model/error.h"

namespace morphkit::files_detail {

Status writeFileAtomic(const std::filesystem::path& path, std::span<const std::span<const uint8_t>> parts,
                       const std::function<std::string()>& next_suffix);
inline Status writeFileAtomic(const std::filesystem::path& path, std::span<const uint8_t> bytes,
                              const std::function<std::string()>& next_suffix) {
  return writeFileAtomic(path, std::span<const std::span<const uint8_t>>(&bytes, 1), next_suffix);
}

}  // namespace morphkit::files_detail
