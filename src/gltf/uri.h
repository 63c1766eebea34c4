// SPDX-License-Identifier: MIT
// URI helpers for buffers and images (glTF 2.0 §2.8: relative URIs, RFC 3986 percent-encoding, base64 data URIs).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/model/error.h"

namespace morphkit::gltf_detail {

bool isDataUri(std::string_view uri);
// Decodes "data:[<mime>][;base64],<payload>"; only base64 payloads are allowed (§2.8).
Expected<std::vector<uint8_t>> decodeDataUri(std::string_view uri);
// Upper bound of the decoded size of a data URI, computed without decoding (guards declared byteLength).
size_t dataUriDecodedSize(std::string_view uri);
// "%20" → " "; a malformed escape is an error.
Expected<std::string> percentDecode(std::string_view uri);
// Resolves a relative URI against `base_dir`. Refuses absolute paths, schemes (http:, file:), ".." escapes and
// symlinks pointing outside `base_dir` unless `allow_external`.
Expected<std::filesystem::path> resolveUri(std::string_view uri, const std::filesystem::path& base_dir,
                                           bool allow_external);

}  // namespace morphkit::gltf_detail
