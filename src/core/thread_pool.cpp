// SPDX-License-Identifier: MIT
// thread_pool.cpp — fork-join over index ranges; owned by the application, never by the library.
#include "morphkit/thread_pool.h"

#include <algorithm>
#include <chrono>

namespace morphkit {

namespace {
constexpr std::chrono::microseconds kSpin{100};
}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

// Claims chunks until none is left. Called by the workers and by the thread that started the batch.
void ThreadPool::runChunks() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (next_ < count_) {
    const size_t begin = next_;
    const size_t end = std::min(count_, begin + grain_);
    next_ = end;
    const auto* fn = fn_;
    lock.unlock();
    (*fn)(begin, end);
    lock.lock();
    if (--chunks_left_ == 0) finished_.notify_all();
  }
}

void ThreadPool::workerLoop() {
  unsigned seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // Spin up to kSpin for the next batch before sleeping: a sleeping worker takes tens of µs to wake (40 µs
    // measured on the 2-core VM, bench/deform_bench.cpp BM_PoolRoundTrip), which is a third of a small mesh's
    // frame; batches that follow each other closely (one per primitive, frame after frame) then skip it.
    lock.unlock();
    const auto until = std::chrono::steady_clock::now() + kSpin;
    while (published_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < until) {
      std::this_thread::yield();
    }
    lock.lock();
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    ++busy_workers_;
    lock.unlock();
    runChunks();
    lock.lock();
    --busy_workers_;
    finished_.notify_all();
  }
}

void ThreadPool::parallelFor(size_t count, size_t grain, const std::function<void(size_t, size_t)>& fn) {
  if (count == 0) return;
  const size_t threads = threadCount();
  if (grain == 0) grain = (count + threads - 1) / threads;
  std::unique_lock<std::mutex> lock(mutex_);
  if (workers_.empty() || in_batch_ || count <= grain) {
    // No workers, a nested call, or a single chunk: inline on this thread.
    lock.unlock();
    for (size_t begin = 0; begin < count; begin += grain) fn(begin, std::min(count, begin + grain));
    return;
  }
  in_batch_ = true;
  fn_ = &fn;
  count_ = count;
  grain_ = grain;
  next_ = 0;
  chunks_left_ = (count + grain - 1) / grain;
  ++generation_;
  published_.store(generation_, std::memory_order_release);
  lock.unlock();
  wake_.notify_all();
  runChunks();
  lock.lock();
  // Every chunk finished and no worker still holds a pointer to this batch.
  finished_.wait(lock, [&] { return chunks_left_ == 0 && busy_workers_ == 0; });
  fn_ = nullptr;
  count_ = next_ = 0;
  in_batch_ = false;
}

void parallelFor(ThreadPool* pool, size_t count, size_t grain, const std::function<void(size_t, size_t)>& fn) {
  if (pool) {
    pool->parallelFor(count, grain, fn);
  } else if (count > 0) {
    fn(0, count);
  }
}

}  // namespace morphkit
