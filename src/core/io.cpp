// SPDX-License-Identifier: MIT
#include "morphkit/io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

namespace morphkit {

Expected<std::vector<uint8_t>> readFile(const std::filesystem::path& path, size_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return fail(Error::kFileNotFound, "file not found");
  if (std::filesystem::is_directory(path, ec)) return fail(Error::kIo, "is a directory, not a file");
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return fail(Error::kIo, std::string("cannot open: ") + std::strerror(errno));
  std::vector<uint8_t> bytes;
  // Size from seeking, but trust only what fread returns: the file may change under us.
  if (std::fseek(file, 0, SEEK_END) == 0) {
    long size = std::ftell(file);
    if (size > 0 && size_t(size) > max_bytes) {
      std::fclose(file);
      return fail(Error::kTooLarge, "file is " + std::to_string(size) + " bytes, over the limit of " +
                                        std::to_string(max_bytes));
    }
    if (size > 0) bytes.resize(size_t(size));
    std::fseek(file, 0, SEEK_SET);
  }
  size_t got = bytes.empty() ? 0 : std::fread(bytes.data(), 1, bytes.size(), file);
  bool error = std::ferror(file);
  std::fclose(file);
  if (error) return fail(Error::kIo, "read error");
  bytes.resize(got);
  return bytes;
}

Status writeFileAtomic(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  std::random_device random;
  std::filesystem::path tmp = path;
  tmp += ".tmp-" + std::to_string(random() % 1000000);
  std::FILE* file = std::fopen(tmp.c_str(), "wb");
  if (!file) return fail(Error::kIo, path.string() + ": cannot create: " + std::strerror(errno));
  size_t written = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), file);
  bool ok = written == bytes.size() && std::fflush(file) == 0;
  ok = (std::fclose(file) == 0) && ok;
  std::error_code ec;
  if (ok) std::filesystem::rename(tmp, path, ec);
  if (!ok || ec) {
    std::filesystem::remove(tmp, ec);
    return fail(Error::kIo, path.string() + ": write failed");
  }
  return Ok{};
}

Status writeFileAtomic(const std::filesystem::path& path, std::string_view text) {
  return writeFileAtomic(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace morphkit
