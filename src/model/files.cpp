// SPDX-License-Identifier: MIT
// readFile and writeFileAtomic (morphkit/model/files.h).
#include "morphkit/model/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <system_error>

#include "files_internal.h"

namespace morphkit {

Expected<std::vector<uint8_t>> readFile(const std::filesystem::path& path, size_t max_bytes, size_t spare_capacity) {
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
      return fail(Error::kTooLarge,
                  "file is " + std::to_string(size) + " bytes, over the limit of " + std::to_string(max_bytes));
    }
    if (size > 0) {
      bytes.reserve(size_t(size) + spare_capacity);
      bytes.resize(size_t(size));
    }
    std::fseek(file, 0, SEEK_SET);
  }
  size_t got = bytes.empty() ? 0 : std::fread(bytes.data(), 1, bytes.size(), file);
  bool error = std::ferror(file);
  std::fclose(file);
  if (error) return fail(Error::kIo, "read error");
  bytes.resize(got);
  return bytes;
}

namespace {

// 64 unpredictable bits per name: getrandom(2) through std::random_device (libstdc++ reads the kernel's pool).
std::string randomSuffix() {
  std::random_device random;
  uint64_t bits = (uint64_t(random()) << 32) ^ uint64_t(random());
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(bits));
  return text;
}

// Writes every byte, retrying short writes and EINTR.
bool writeAll(int fd, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

}  // namespace

namespace files_detail {

// The temporary sits in the destination's own folder (so rename(2) is atomic) and is created with
// O_CREAT|O_EXCL|O_NOFOLLOW: an existing name, a planted symlink included, is never opened, only skipped.
// Mode 0666 lets the umask apply exactly as for a plain fopen("w"); replacing an existing regular file keeps
// its permission bits. Every failure after creation removes the temporary.
Status writeFileAtomic(const std::filesystem::path& path, std::span<const std::span<const uint8_t>> parts,
                       const std::function<std::string()>& next_suffix) {
  const std::filesystem::path folder = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  // NAME_MAX is 255 on Linux: keep room for ".tmp-" and the suffix however long the output's name is.
  std::string stem = path.filename().string().substr(0, 200);
  int fd = -1;
  std::filesystem::path tmp;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    tmp = folder / (stem + ".tmp-" + next_suffix());
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) return fail(Error::kIo, path.string() + ": cannot create a temporary file: " + std::strerror(errno));
  struct stat existing;
  if (::lstat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) {
    (void)::fchmod(fd, existing.st_mode & 0777);  // a plain write would have kept these bits
  }
  bool ok = true;
  for (std::span<const uint8_t> bytes : parts) ok = ok && writeAll(fd, bytes);
  int saved = errno;
  ok = (::close(fd) == 0) && ok;
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return fail(Error::kIo, path.string() + ": write failed: " + std::strerror(saved));
  }
  return Ok{};
}

}  // namespace files_detail

Status writeFileAtomic(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  return files_detail::writeFileAtomic(path, bytes, randomSuffix);
}

Status writeFileAtomic(const std::filesystem::path& path, std::span<const std::span<const uint8_t>> parts) {
  return files_detail::writeFileAtomic(path, parts, randomSuffix);
}

Status writeFileAtomic(const std::filesystem::path& path, std::string_view text) {
  return writeFileAtomic(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace morphkit
