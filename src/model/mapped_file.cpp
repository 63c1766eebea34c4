// SPDX-License-Identifier: MIT
// mapFile (morphkit/model/files.h): a file's bytes as a read-only mapping held by shared ownership, the last few
// kept mapped for the next load of the same file.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "morphkit/model/files.h"

namespace morphkit {

namespace {

// Owns one mapping; the last BufferBytes view holding it unmaps.
struct Mapping {
  void* address = nullptr;
  size_t length = 0;
  Mapping(void* a, size_t n) : address(a), length(n) {}
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() { ::munmap(address, length); }
};

// Closes the descriptor on every path; the mapping does not need it.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Which file a mapping is of: the inode, and the length mapped.
struct FileId {
  dev_t device = 0;
  ino_t inode = 0;
  size_t size = 0;
  bool operator==(const FileId&) const = default;
};

FileId fileId(const struct stat& info) {
  return {info.st_dev, info.st_ino, size_t(info.st_size)};
}

// The last kKeptFiles mappings (at most kKeptBytes together), kept after their last view is gone, so that loading
// the same file again in this process reuses a mapping whose pages are already in the page tables instead of
// faulting every page in again (and unmapping it after): most of a repeated load of a large .glb
// (docs/PERFORMANCE.md, "Repeated loads"). A kept mapping is reused only for the same inode at the same size, and a
// read-only MAP_PRIVATE mapping that nothing wrote shows the file's current bytes, so it reads exactly what a fresh
// mapping would. A kept file whose name is gone or names another file now is let go at the next mapFile call.
constexpr size_t kKeptFiles = 4;
constexpr size_t kKeptBytes = size_t(1) << 30;

class KeptMappings {
 public:
  std::shared_ptr<const Mapping> find(const FileId& id) {
    std::lock_guard lock(mutex_);
    dropStale();
    for (const Kept& kept : kept_) {
      if (kept.id == id) return kept.mapping;
    }
    return nullptr;
  }

  void keep(const std::filesystem::path& path, const FileId& id, std::shared_ptr<const Mapping> mapping) {
    if (id.size > kKeptBytes) return;
    std::error_code ec;
    std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    if (ec) return;
    std::lock_guard lock(mutex_);
    kept_.push_back({std::move(absolute), id, std::move(mapping)});
    size_t bytes = 0;
    for (const Kept& kept : kept_) bytes += kept.id.size;
    while (kept_.size() > kKeptFiles || bytes > kKeptBytes) {  // the oldest go first
      bytes -= kept_.front().id.size;
      kept_.erase(kept_.begin());
    }
  }

 private:
  struct Kept {
    std::filesystem::path path;
    FileId id;
    std::shared_ptr<const Mapping> mapping;
  };

  // Lets go of files renamed, deleted or replaced since they were mapped, so a kept mapping does not hold a deleted
  // file's disk space for long.
  void dropStale() {
    std::erase_if(kept_, [](const Kept& kept) {
      struct stat info;
      return ::stat(kept.path.c_str(), &info) != 0 || !(fileId(info) == kept.id);
    });
  }

  std::mutex mutex_;
  std::vector<Kept> kept_;  // oldest first
};

// Never destroyed: a thread still loading while the process exits must not find it gone (the kernel unmaps at exit).
KeptMappings& keptMappings() {
  static KeptMappings* kept = new KeptMappings;
  return *kept;
}

}  // namespace

Expected<BufferBytes> mapFile(const std::filesystem::path& path, size_t max_bytes) {
  // Not found, a folder, unreadable: readFile words these errors; it gets every case not mapped here.
  auto read = [&]() -> Expected<BufferBytes> {
    auto bytes = readFile(path, max_bytes);
    if (!bytes) return bytes.error();
    return BufferBytes(std::move(bytes).value());
  };
  Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) return read();
  struct stat info;
  if (::fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size < 0 ||
      size_t(info.st_size) < kMapMinBytes) {
    return read();
  }
  const size_t size = size_t(info.st_size);
  if (size > max_bytes) {
    return fail(Error::kTooLarge,
                "file is " + std::to_string(size) + " bytes, over the limit of " + std::to_string(max_bytes));
  }
  const FileId id = fileId(info);
  if (std::shared_ptr<const Mapping> kept = keptMappings().find(id)) {
    return BufferBytes::view(kept, std::span<const uint8_t>(static_cast<const uint8_t*>(kept->address), size));
  }
  // MAP_PRIVATE: nothing morphkit does can write to the file; PROT_READ: nothing in morphkit writes the pages.
  void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (address == MAP_FAILED) return read();
  std::shared_ptr<const Mapping> mapping;
  try {
    mapping = std::make_shared<const Mapping>(address, size);
  } catch (...) {
    ::munmap(address, size);
    throw;  // std::bad_alloc: the loader's catchOutOfMemory turns it into kOutOfMemory
  }
  keptMappings().keep(path, id, mapping);
  return BufferBytes::view(mapping, std::span<const uint8_t>(static_cast<const uint8_t*>(address), size));
}

}  // namespace morphkit
