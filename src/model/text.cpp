// SPDX-License-Identifier: MIT
#include "morphkit/model/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace morphkit {

bool parseUint32(std::string_view text, uint32_t& out) {
  const char* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, out);
  return !text.empty() && ec == std::errc() && stop == end;
}

bool parseFiniteDouble(std::string_view text, double& out) {
  const char* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, out);
  return !text.empty() && ec == std::errc() && stop == end && std::isfinite(out);
}

Utf8Char decodeUtf8(std::string_view text) {
  if (text.empty()) return {};
  const auto byte = [&](size_t i) { return uint8_t(text[i]); };
  const uint8_t lead = byte(0);
  if (lead < 0x80) return {lead, 1};
  size_t length = 0;
  uint32_t cp = 0, min = 0;
  if ((lead & 0xE0) == 0xC0)
    length = 2, cp = lead & 0x1F, min = 0x80;
  else if ((lead & 0xF0) == 0xE0)
    length = 3, cp = lead & 0x0F, min = 0x800;
  else if ((lead & 0xF8) == 0xF0)
    length = 4, cp = lead & 0x07, min = 0x10000;
  else
    return {};
  if (text.size() < length) return {};
  for (size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return {};
    cp = cp << 6 | (byte(i) & 0x3F);
  }
  // Overlong encodings, UTF-16 surrogates and code points past U+10FFFF are not UTF-8 (RFC 3629 §3).
  if (cp < min || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return {};
  return {cp, length};
}

bool isUnsafeCodePoint(uint32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) ||           // C0, DEL, C1
         cp == 0x2028 || cp == 0x2029 ||                                    // line and paragraph separators
         cp == 0x200E || cp == 0x200F || cp == 0x061C ||                    // directional marks
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);  // bidi embeddings and isolates
}

namespace {

// The escaped form of one character (or of one invalid byte when `c.length` is 0).
void appendEscaped(std::string& out, std::string_view text, Utf8Char c) {
  char buffer[16];
  if (c.length == 0) {
    std::snprintf(buffer, sizeof buffer, "\\x%02x", unsigned(uint8_t(text[0])));
  } else if (c.code_point == '\n') {
    std::snprintf(buffer, sizeof buffer, "\\n");
  } else if (c.code_point == '\r') {
    std::snprintf(buffer, sizeof buffer, "\\r");
  } else if (c.code_point == '\t') {
    std::snprintf(buffer, sizeof buffer, "\\t");
  } else if (c.code_point < 0x80) {
    std::snprintf(buffer, sizeof buffer, "\\x%02x", unsigned(c.code_point));
  } else if (isUnsafeCodePoint(c.code_point)) {
    std::snprintf(buffer, sizeof buffer, "\\u%04x", unsigned(c.code_point));
  } else {
    out.append(text.substr(0, c.length));
    return;
  }
  out += buffer;
}

}  // namespace

std::string printable(std::string_view text, size_t max_bytes) {
  // A cut string ends with "... (N bytes)", at most 32 bytes; it is kept within max_bytes so that printing it
  // again changes nothing.
  constexpr size_t kSuffixRoom = 32;
  const size_t keep_limit = max_bytes > kSuffixRoom ? max_bytes - kSuffixRoom : 0;
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 8);
  size_t keep = 0;  // out.size() at the last character boundary within keep_limit
  size_t i = 0;
  while (i < text.size()) {
    Utf8Char c = decodeUtf8(text.substr(i));
    if (c.length != 0 && !isUnsafeCodePoint(c.code_point)) {
      out.append(text.substr(i, c.length));
    } else {
      appendEscaped(out, text.substr(i), c);
    }
    if (out.size() > max_bytes) {
      out.resize(keep);  // whole characters and escapes only
      out += "... (" + std::to_string(text.size()) + " bytes)";
      return out;
    }
    if (out.size() <= keep_limit) keep = out.size();
    i += c.length ? c.length : 1;
  }
  return out;
}

// Appended, not "'" + std::string&&: GCC 12 reports a false -Wrestrict on that operator+ in Release.
std::string quote(std::string_view text, size_t max_bytes) {
  std::string out = "'";
  (out += printable(text, max_bytes)) += '\'';
  return out;
}

}  // namespace morphkit
