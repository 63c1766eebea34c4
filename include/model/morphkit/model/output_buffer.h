// SPDX-License-Identifier: MIT
// morphkit/model/output_buffer.h — floats for a large output that its writer fills in full once (posed arrays of many
// frames). Not zero-filled: a std::vector<float>(n) touches every page on one thread before the writer starts (for
// 1000 frames of a 20k-vertex face, 480 MB of positions and normals). The GPU stream into such arrays took 0.338
// ms a frame against 0.108 into reused results on the H200 host (docs/PERFORMANCE.md, goal 1); the zero fill's share
// of that was not measured apart. The writer's own first touch, on its threads, faults the pages in instead, on
// 2 MiB pages where the kernel allows them (madvise MADV_HUGEPAGE on Linux).
#pragma once
#include <cstddef>
#include <memory>
#include <span>

namespace morphkit {

class OutputBuffer {
 public:
  OutputBuffer() = default;
  explicit OutputBuffer(size_t floats);  // throws std::bad_alloc like a vector (the command's handler names it)
  std::span<float> span() { return {data_.get(), size_}; }
  std::span<const float> span() const { return {data_.get(), size_}; }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(float* p) const;
  };
  std::unique_ptr<float[], Free> data_;
  size_t size_ = 0;
};

}  // namespace morphkit
