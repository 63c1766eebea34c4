// SPDX-License-Identifier: MIT
// BufferBytes (morphkit/model/buffer_bytes.h): owned or a shared read-only view, copied on write.
#include "morphkit/model/buffer_bytes.h"

#include <algorithm>
#include <cstring>

namespace morphkit {

BufferBytes BufferBytes::view(std::shared_ptr<const void> keeper, std::span<const uint8_t> bytes) noexcept {
  BufferBytes out;
  if (!keeper) return out;  // a view without an owner would dangle: empty instead
  out.keeper_ = std::move(keeper);
  out.view_ = bytes;
  return out;
}

BufferBytes BufferBytes::slice(size_t offset, size_t length) const {
  offset = std::min(offset, size());
  length = std::min(length, size() - offset);
  if (keeper_) return view(keeper_, view_.subspan(offset, length));
  return BufferBytes(
      std::vector<uint8_t>(owned_.begin() + std::ptrdiff_t(offset), owned_.begin() + std::ptrdiff_t(offset + length)));
}

std::vector<uint8_t>& BufferBytes::mutate() {
  if (keeper_) {
    // Copy before releasing the keeper: the view's bytes may die with it.
    owned_.assign(view_.begin(), view_.end());
    view_ = {};
    keeper_.reset();
  }
  return owned_;
}

void BufferBytes::resize(size_t size, uint8_t value) {
  if (keeper_ && size <= view_.size()) {
    view_ = view_.first(size);
    return;
  }
  mutate().resize(size, value);
}

bool BufferBytes::equal(std::span<const uint8_t> a, std::span<const uint8_t> b) noexcept {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

}  // namespace morphkit
