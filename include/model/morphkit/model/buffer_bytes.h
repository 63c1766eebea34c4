// SPDX-License-Identifier: MIT
// morphkit/model/buffer_bytes.h — BufferBytes: a buffer's bytes, either owned (a vector) or a read-only view into
// memory someone else owns, such as a mapped file, kept alive by shared ownership. Reads look like a const std::vector;
// writing goes through mutate(), which copies a view into owned bytes first (copy on write).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

namespace morphkit {

class BufferBytes {
 public:
  using value_type = uint8_t;
  using const_iterator = const uint8_t*;
  using iterator = const_iterator;  // reads only: writing goes through mutate()

  BufferBytes() = default;
  BufferBytes(std::vector<uint8_t> owned) noexcept : owned_(std::move(owned)) {}  // NOLINT: implicit: owned bytes
  BufferBytes(std::initializer_list<uint8_t> bytes) : owned_(bytes) {}

  // A view of `bytes`, which must stay valid and unchanged while `keeper` (or a copy of it) lives: the view holds
  // `keeper`. Copies of a view share it; no byte is copied.
  static BufferBytes view(std::shared_ptr<const void> keeper, std::span<const uint8_t> bytes) noexcept;

  const uint8_t* data() const noexcept { return keeper_ ? view_.data() : owned_.data(); }
  size_t size() const noexcept { return keeper_ ? view_.size() : owned_.size(); }
  bool empty() const noexcept { return size() == 0; }
  const uint8_t& operator[](size_t i) const noexcept { return data()[i]; }
  const uint8_t* begin() const noexcept { return data(); }
  const uint8_t* end() const noexcept { return data() + size(); }
  std::span<const uint8_t> span() const noexcept { return {data(), size()}; }
  operator std::span<const uint8_t>() const noexcept { return span(); }  // NOLINT: implicit, as a vector's

  // True when the bytes are a view (e.g. into a mapped file) rather than owned.
  bool isView() const noexcept { return keeper_ != nullptr; }

  // `length` bytes from `offset` (clamped to size()): a view shares this view's keeper; owned bytes are copied.
  BufferBytes slice(size_t offset, size_t length) const;

  // The owned vector, for writing. A view is copied into it first and released (copy on write).
  std::vector<uint8_t>& mutate();

  // vector-like writers; all but a shrinking resize go through mutate(). Shrinking a view keeps it a view.
  void resize(size_t size, uint8_t value = 0);
  void assign(size_t count, uint8_t value) { mutate().assign(count, value); }
  template <class It>
  void assign(It first, It last) {
    *this = BufferBytes(std::vector<uint8_t>(first, last));
  }
  void clear() noexcept { *this = BufferBytes(); }

  friend bool operator==(const BufferBytes& a, const BufferBytes& b) noexcept { return equal(a.span(), b.span()); }
  friend bool operator==(const BufferBytes& a, const std::vector<uint8_t>& b) noexcept { return equal(a.span(), b); }

 private:
  static bool equal(std::span<const uint8_t> a, std::span<const uint8_t> b) noexcept;

  std::vector<uint8_t> owned_;
  std::shared_ptr<const void> keeper_;  // set for a view
  std::span<const uint8_t> view_;
};

}  // namespace morphkit
