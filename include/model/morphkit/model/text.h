// SPDX-License-Identifier: MIT
// morphkit/model/text.h — making untrusted text safe to print. Names, URIs, generator strings and extension names come
// from files anyone can write; printed raw they can retitle or clear a terminal, forge extra log lines, or flood
// one. Every such string goes through printable() (or quote()) before it reaches a terminal, a log or an error
// message; the CLI's error and warning sinks apply it once more to the whole line (it is idempotent).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace morphkit {

// Default cut for one untrusted string inside a message.
inline constexpr size_t kPrintableMaxBytes = 200;

// `text` escaped for one terminal line:
//   C0 controls and DEL    \n \r \t, else \xNN          (no raw ESC, BEL, line break ...)
//   C1 controls U+0080-9F  \u0085 ...                   (CSI U+009B, NEL U+0085 as UTF-8)
//   line/paragraph seps,   \u2028 \u2029 \u202e ...     (a forged line break; reordered text, "Trojan Source")
//   bidi controls
//   invalid UTF-8 bytes    \xNN
// Everything else (printable ASCII, backslash included, and valid UTF-8) passes unchanged, so escaping an
// already printable string changes nothing. When the escaped text exceeds `max_bytes` it is cut at a character
// boundary and "... (N bytes)" names the original size; the result never exceeds `max_bytes` (>= 32).
std::string printable(std::string_view text, size_t max_bytes = kPrintableMaxBytes);

// printable() between single quotes, the form error messages use: 'name'.
std::string quote(std::string_view text, size_t max_bytes = kPrintableMaxBytes);

// One UTF-8 sequence at the start of `text`: its code point and length, or length 0 when the bytes there are not
// well-formed UTF-8 (overlong forms, surrogates, > U+10FFFF and truncated sequences are all ill-formed).
struct Utf8Char {
  uint32_t code_point = 0;
  size_t length = 0;
};
Utf8Char decodeUtf8(std::string_view text);

// True for the code points printable() escapes: C0, DEL, C1, U+2028/2029 and the bidi controls.
bool isUnsafeCodePoint(uint32_t code_point);

// The whole of `text` as a decimal uint32 (no sign, no spaces, no overflow); false leaves `out` unspecified.
bool parseUint32(std::string_view text, uint32_t& out);
// The whole of `text` as a finite double (no leading '+', no spaces, no NaN or infinity); false leaves `out`
// unspecified.
bool parseFiniteDouble(std::string_view text, double& out);

}  // namespace morphkit
