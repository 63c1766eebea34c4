// SPDX-License-Identifier: MIT
// morphkit/model/json_syntax.h — where a text stops being JSON, for error messages: simdjson's DOM parser says what
// went wrong but not where, and a user fixing a job or weights file by hand needs the line and column.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace morphkit {

struct TextPosition {
  size_t line = 1;    // 1-based
  size_t column = 1;  // 1-based, in bytes
};

// The first byte at which `text` breaks RFC 8259's grammar (or nests deeper than 1024), or nullopt when the
// grammar holds (a text can still fail elsewhere, e.g. as invalid UTF-8).
std::optional<TextPosition> jsonSyntaxErrorAt(std::string_view text);

// "line L, column C: " for jsonSyntaxErrorAt, "" when it finds nothing: the prefix of a JSON parse error.
std::string jsonErrorWhere(std::string_view text);

}  // namespace morphkit
