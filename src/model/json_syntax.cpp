// SPDX-License-Identifier: MIT
// json_syntax.cpp — a grammar-only JSON scanner (RFC 8259) that finds where a text breaks
// (morphkit/model/json_syntax.h).
#include "morphkit/model/json_syntax.h"

#include <cstring>

namespace morphkit {
namespace {

constexpr int kMaxDepth = 1024;  // simdjson's default: deeper input fails there too

class Scanner {
 public:
  explicit Scanner(std::string_view text) : t_(text) {}

  // The byte offset of the first error, or npos.
  size_t firstError() {
    if (!value(0)) return p_;
    whitespace();
    return p_ == t_.size() ? std::string_view::npos : p_;
  }

 private:
  bool more() const { return p_ < t_.size(); }
  char at() const { return t_[p_]; }
  void whitespace() {
    while (more() && (at() == ' ' || at() == '\t' || at() == '\n' || at() == '\r')) ++p_;
  }
  bool digits() {
    const size_t start = p_;
    while (more() && at() >= '0' && at() <= '9') ++p_;
    return p_ > start;
  }
  bool literal(std::string_view word) {
    for (char c : word) {
      if (!more() || at() != c) return false;
      ++p_;
    }
    return true;
  }
  bool hex4() {
    for (int i = 0; i < 4; ++i, ++p_) {
      if (!more() || at() == '\0' || !std::strchr("0123456789abcdefABCDEF", at())) return false;
    }
    return true;
  }
  bool string() {
    ++p_;  // the opening quote
    while (more()) {
      const unsigned char c = static_cast<unsigned char>(at());
      if (c == '"') return ++p_, true;
      if (c < 0x20) return false;
      ++p_;
      if (c != '\\') continue;
      if (!more()) return false;
      if (at() == 'u') {
        ++p_;
        if (!hex4()) return false;
      } else if (at() != '\0' && std::strchr("\"\\/bfnrt", at())) {
        ++p_;
      } else {
        return false;
      }
    }
    return false;
  }
  bool number() {
    if (more() && at() == '-') ++p_;
    if (more() && at() == '0') {
      ++p_;
    } else if (!digits()) {
      return false;
    }
    if (more() && at() == '.' && (++p_, !digits())) return false;
    if (more() && (at() == 'e' || at() == 'E')) {
      ++p_;
      if (more() && (at() == '+' || at() == '-')) ++p_;
      if (!digits()) return false;
    }
    return true;
  }
  // Members of an object (`close` '}') or elements of an array (']'), after the opening bracket.
  bool members(int depth, char close) {
    if (depth > kMaxDepth) return false;
    ++p_;
    whitespace();
    if (more() && at() == close) return ++p_, true;
    while (true) {
      whitespace();
      if (close == '}') {
        if (!more() || at() != '"' || !string()) return false;
        whitespace();
        if (!more() || at() != ':') return false;
        ++p_;
      }
      if (!value(depth)) return false;
      whitespace();
      if (!more()) return false;
      if (at() == close) return ++p_, true;
      if (at() != ',') return false;
      ++p_;
    }
  }
  bool value(int depth) {
    whitespace();
    if (!more()) return false;
    switch (at()) {
      case '{':
        return members(depth + 1, '}');
      case '[':
        return members(depth + 1, ']');
      case '"':
        return string();
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return number();
    }
  }

  std::string_view t_;
  size_t p_ = 0;
};

}  // namespace

std::optional<TextPosition> jsonSyntaxErrorAt(std::string_view text) {
  const size_t offset = Scanner(text).firstError();
  if (offset == std::string_view::npos) return std::nullopt;
  TextPosition position;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++position.line;
      position.column = 1;
    } else {
      ++position.column;
    }
  }
  return position;
}

std::string jsonErrorWhere(std::string_view text) {
  const std::optional<TextPosition> at = jsonSyntaxErrorAt(text);
  if (!at) return {};
  return "line " + std::to_string(at->line) + ", column " + std::to_string(at->column) + ": ";
}

}  // namespace morphkit
