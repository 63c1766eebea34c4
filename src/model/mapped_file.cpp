// SPDX-License-Identifier: MIT
// mapFile (morphkit/model/files.h): a file's bytes as a read-only mapping held by shared ownership.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

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
  return BufferBytes::view(mapping, std::span<const uint8_t>(static_cast<const uint8_t*>(address), size));
}

}  // namespace morphkit
