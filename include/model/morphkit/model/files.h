// SPDX-License-Identifier: MIT
// morphkit/model/files.h — whole-file reads with a size guard (copied or mapped), and writes that never leave a partial
// file.
#pragma once
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "morphkit/model/buffer_bytes.h"
#include "morphkit/model/error.h"

namespace morphkit {

// Reads a whole file. Fails with kFileNotFound, kIo, or kTooLarge when it exceeds `max_bytes`. The vector has
// room for `spare_capacity` more bytes (a parser's padding) without reallocating.
Expected<std::vector<uint8_t>> readFile(const std::filesystem::path& path, size_t max_bytes = size_t(4) << 30,
                                        size_t spare_capacity = 0);

// A file's bytes without copying them: a regular file of at least kMapMinBytes is mapped read-only (mmap
// PROT_READ, MAP_PRIVATE) and returned as a view that holds the mapping (BufferBytes::isView()); the mapping lives as
// long as any copy of the view, after the file is renamed or deleted too. A smaller file, or one that cannot be
// mapped (a pipe, a device, mmap refused), is read into owned bytes as readFile does. Errors as readFile's.
// The mapped bytes are the file's: another process that writes into it changes them, and one that truncates it
// makes reading the lost pages raise SIGBUS (docs/SECURITY.md says when that matters; loadAsset's
// LoadOptions::map_files turns mapping off). Files that morphkit writes are replaced by rename, never truncated.
// The last four mappings (1 GiB at most) stay mapped after their last view is gone, and the next mapFile of the same
// inode at the same size shares one instead of mapping it again (a repeated load then takes no page fault); one
// whose name is gone or names another file is let go at the next call.
inline constexpr size_t kMapMinBytes = size_t(64) << 10;
Expected<BufferBytes> mapFile(const std::filesystem::path& path, size_t max_bytes = size_t(4) << 30);

// Writes to a new temporary "<name>.tmp-<16 random hex digits>" in the same folder and renames it over `path`
// only after every byte is written, so a failure (disk full, crash) never leaves a truncated output behind.
// Safe in a folder others can write to (/tmp): the temporary is created with O_CREAT|O_EXCL|O_NOFOLLOW, so a
// planted file or symlink is never written through; `path` itself is replaced, never followed if a symlink.
// Permissions are those of a plain write: 0666 minus the umask for a new file, an existing file's bits kept.
// The temporary is removed on every error path.
Status writeFileAtomic(const std::filesystem::path& path, std::span<const uint8_t> bytes);
Status writeFileAtomic(const std::filesystem::path& path, std::string_view text);
// The same for a file made of pieces written one after another (a header and a large array), so a caller need not
// first copy them into one buffer.
Status writeFileAtomic(const std::filesystem::path& path, std::span<const std::span<const uint8_t>> parts);

}  // namespace morphkit
