// SPDX-License-Identifier: MIT
// morphkit/io/json_writer.h — a small streaming JSON writer (core has no third-party dependencies).
// Commas and nesting are tracked for you; floats print with the shortest text that round-trips.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace morphkit {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = false) : pretty_(pretty) {}

  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view name);  // inside an object, before each value

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(double number);  // NaN/Inf become null (JSON has no such numbers)
  JsonWriter& value(float number);   // shortest float32 round-trip text
  JsonWriter& value(int64_t number);
  JsonWriter& value(uint64_t number);
  JsonWriter& value(int number) { return value(int64_t(number)); }
  JsonWriter& value(uint32_t number) { return value(uint64_t(number)); }
  JsonWriter& value(bool flag);
  JsonWriter& null();
  JsonWriter& array(std::span<const float> numbers);  // a whole float array, one line
  JsonWriter& array(std::span<const uint32_t> numbers);
  JsonWriter& array(std::span<const std::string> texts);

  // key + value in one call.
  template <class T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }

  const std::string& str() const { return out_; }

 private:
  void separate();  // comma/newline before a value or key
  void newline();
  void writeString(std::string_view text);  // quoted and escaped, no separator
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
  bool pretty_ = false;
};

}  // namespace morphkit
