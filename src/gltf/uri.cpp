// SPDX-License-Identifier: MIT
#include "uri.h"

#include <system_error>

#include "morphkit/model/text.h"

namespace morphkit::gltf_detail {

bool isDataUri(std::string_view uri) {
  return uri.substr(0, 5) == "data:";
}

static int base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

static std::string_view payloadOf(std::string_view uri, bool* base64) {
  size_t comma = uri.find(',');
  if (comma == std::string_view::npos) return {};
  std::string_view header = uri.substr(5, comma - 5);
  *base64 = header.size() >= 7 && header.substr(header.size() - 7) == ";base64";
  return uri.substr(comma + 1);
}

size_t dataUriDecodedSize(std::string_view uri) {
  bool base64 = false;
  std::string_view payload = payloadOf(uri, &base64);
  return base64 ? payload.size() / 4 * 3 + 3 : payload.size();
}

Expected<std::vector<uint8_t>> decodeDataUri(std::string_view uri) {
  if (uri.find(',') == std::string_view::npos) return fail(Error::kInvalidGltf, "data URI has no ',' separator");
  bool base64 = false;
  std::string_view payload = payloadOf(uri, &base64);
  if (!base64) return fail(Error::kInvalidGltf, "data URI is not base64-encoded (glTF 2.0 §2.8 requires base64)");
  std::vector<uint8_t> out;
  out.reserve(payload.size() / 4 * 3 + 3);
  uint32_t accum = 0;
  int bits = 0;
  for (char c : payload) {
    if (c == '=') break;
    int value = base64Value(c);
    if (value < 0) return fail(Error::kInvalidGltf, "data URI has an invalid base64 character");
    accum = (accum << 6) | uint32_t(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(uint8_t((accum >> bits) & 0xFFu));
    }
  }
  return out;
}

static int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Expected<std::string> percentDecode(std::string_view uri) {
  std::string out;
  out.reserve(uri.size());
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] != '%') {
      out += uri[i];
      continue;
    }
    if (i + 2 >= uri.size()) return fail(Error::kInvalidGltf, "URI has a truncated %-escape");
    int hi = hexValue(uri[i + 1]);
    int lo = hexValue(uri[i + 2]);
    if (hi < 0 || lo < 0) return fail(Error::kInvalidGltf, "URI has a malformed %-escape");
    char decoded = char(hi * 16 + lo);
    if (decoded == '\0') return fail(Error::kInvalidGltf, "URI contains an encoded NUL byte");
    out += decoded;
    i += 2;
  }
  return out;
}

static bool isInside(const std::filesystem::path& path, const std::filesystem::path& folder) {
  auto p = path.begin();
  for (auto f = folder.begin(); f != folder.end(); ++f, ++p) {
    if (f->empty()) continue;  // trailing separator
    if (p == path.end() || *p != *f) return false;
  }
  return true;
}

Expected<std::filesystem::path> resolveUri(std::string_view uri, const std::filesystem::path& base_dir,
                                           bool allow_external) {
  auto decoded = percentDecode(uri);
  if (!decoded) return decoded.error();
  const std::string& text = decoded.value();
  if (text.empty()) return fail(Error::kInvalidGltf, "URI is empty");
  size_t colon = text.find(':');
  size_t slash = text.find('/');
  bool has_scheme = colon != std::string::npos && (slash == std::string::npos || colon < slash) && colon > 1;
  if (has_scheme)
    return fail(Error::kInvalidGltf,
                "URI scheme is not supported (only relative paths and data: URIs): " + quote(text));
  std::filesystem::path relative(text);
  if (relative.is_absolute() && !allow_external) {
    return fail(Error::kPathEscapesFolder,
                "URI " + quote(text) + " is an absolute path outside the asset's folder (use --allow-external-paths)");
  }
  std::filesystem::path full = relative.is_absolute() ? relative : base_dir / relative;
  if (allow_external) return full;
  std::filesystem::path lexical = relative.lexically_normal();
  if (!lexical.empty() && *lexical.begin() == "..") {
    return fail(Error::kPathEscapesFolder,
                "URI " + quote(text) + " leaves the asset's folder (use --allow-external-paths)");
  }
  // Symlinks: compare the canonical forms (weakly: the file may not exist yet; that error comes later).
  std::error_code ec;
  std::filesystem::path folder = std::filesystem::weakly_canonical(base_dir, ec);
  std::filesystem::path target = std::filesystem::weakly_canonical(full, ec);
  if (!ec && !isInside(target, folder)) {
    return fail(
        Error::kPathEscapesFolder,
        "URI " + quote(text) + " resolves (through a symlink) outside the asset's folder (use --allow-external-paths)");
  }
  return full;
}

}  // namespace morphkit::gltf_detail
