// SPDX-License-Identifier: MIT
#include "morphkit/io/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "morphkit/model/text.h"

namespace morphkit {

void JsonWriter::newline() {
  if (!pretty_) return;
  out_ += '\n';
  out_.append(first_.size() * 2, ' ');
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) out_ += ',';
  first_.back() = false;
  newline();
}

JsonWriter& JsonWriter::beginObject() {
  separate();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::endObject() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += '}';
  return *this;
}

JsonWriter& JsonWriter::beginArray() {
  separate();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::endArray() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += ']';
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  separate();
  writeString(name);
  out_ += pretty_ ? ": " : ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  separate();
  writeString(text);
  return *this;
}

// Strings may come from a file: besides JSON's own escapes (RFC 8259 §7), C1 controls, line separators and bidi
// controls become \uXXXX (so the output is safe on a terminal and in JavaScript), and bytes that are not UTF-8
// become U+FFFD (JSON text must be UTF-8, RFC 8259 §8.1).
void JsonWriter::writeString(std::string_view text) {
  out_ += '"';
  size_t i = 0;
  while (i < text.size()) {
    Utf8Char c = decodeUtf8(text.substr(i));
    if (c.length == 0) {
      out_ += "\\ufffd";
      ++i;
      continue;
    }
    switch (c.code_point) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\r':
        out_ += "\\r";
        break;
      case '\t':
        out_ += "\\t";
        break;
      default:
        if (isUnsafeCodePoint(c.code_point)) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c.code_point));
          out_ += buf;
        } else {
          out_.append(text.substr(i, c.length));
        }
    }
    i += c.length;
  }
  out_ += '"';
}

JsonWriter& JsonWriter::value(double number) {
  separate();
  if (!std::isfinite(number)) {
    out_ += "null";
    return *this;
  }
  char buf[32];
  auto result = std::to_chars(buf, buf + sizeof buf, number);
  out_.append(buf, result.ptr);
  return *this;
}

JsonWriter& JsonWriter::value(float number) {
  separate();
  if (!std::isfinite(number)) {
    out_ += "null";
    return *this;
  }
  char buf[32];
  auto result = std::to_chars(buf, buf + sizeof buf, number);
  out_.append(buf, result.ptr);
  return *this;
}

JsonWriter& JsonWriter::value(int64_t number) {
  separate();
  out_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t number) {
  separate();
  out_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  separate();
  out_ += flag ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}

// Arrays of numbers stay on one line even in pretty mode: vertex arrays would otherwise explode.
JsonWriter& JsonWriter::array(std::span<const float> numbers) {
  bool pretty = pretty_;
  beginArray();
  pretty_ = false;
  for (float n : numbers) value(n);
  endArray();
  pretty_ = pretty;
  return *this;
}

JsonWriter& JsonWriter::array(std::span<const uint32_t> numbers) {
  bool pretty = pretty_;
  beginArray();
  pretty_ = false;
  for (uint32_t n : numbers) value(n);
  endArray();
  pretty_ = pretty;
  return *this;
}

JsonWriter& JsonWriter::array(std::span<const std::string> texts) {
  bool pretty = pretty_;
  beginArray();
  pretty_ = false;
  for (const auto& t : texts) value(std::string_view(t));
  endArray();
  pretty_ = pretty;
  return *this;
}

}  // namespace morphkit
