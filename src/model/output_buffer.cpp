// SPDX-License-Identifier: MIT
// OutputBuffer (morphkit/model/output_buffer.h).
#include "morphkit/model/output_buffer.h"

#include <cstdlib>
#include <new>
#ifdef __linux__
#include <sys/mman.h>
#endif

namespace morphkit {
namespace {

constexpr size_t kHugePage = size_t(2) << 20;

}  // namespace

OutputBuffer::OutputBuffer(size_t floats) : size_(floats) {
  if (floats == 0) return;
  const size_t bytes = (floats * sizeof(float) + kHugePage - 1) / kHugePage * kHugePage;
  void* memory = std::aligned_alloc(kHugePage, bytes);
  if (!memory) throw std::bad_alloc();
#ifdef __linux__
  (void)madvise(memory, bytes, MADV_HUGEPAGE);  // advice only: without it the pages are 4 KiB
#endif
  data_.reset(static_cast<float*>(memory));
}

void OutputBuffer::Free::operator()(float* p) const {
  std::free(p);
}

}  // namespace morphkit
