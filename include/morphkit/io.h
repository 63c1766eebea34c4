// SPDX-License-Identifier: MIT
// morphkit/io.h — whole-file reads with a size guard, and writes that never leave a partial file.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "morphkit/error.h"

namespace morphkit {

// Reads a whole file. Fails with kFileNotFound, kIo, or kTooLarge when it exceeds `max_bytes`.
Expected<std::vector<uint8_t>> readFile(const std::filesystem::path& path, size_t max_bytes = size_t(4) << 30);

// Writes to "<path>.tmp-XXXX" in the same folder and renames over `path` only after every byte is
// flushed, so a failure (disk full, crash) never leaves a truncated output behind.
Status writeFileAtomic(const std::filesystem::path& path, std::span<const uint8_t> bytes);
Status writeFileAtomic(const std::filesystem::path& path, std::string_view text);

}  // namespace morphkit
