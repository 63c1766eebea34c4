// SPDX-License-Identifier: MIT
// thread_pool.cpp — fork-join over index ranges; owned by the application, never by the library.
#include "morphkit/model/thread_pool.h"

#include <algorithm>
#include <chrono>

namespace morphkit {

namespace {
constexpr std::chrono::microseconds kSpin{100};
}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  shares_.resize(std::max(threads, 1u));
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

// The next chunk for the thread in `slot`, or false when none is left. In order: the next `grain` items. By
// shares: `grain` items from the front of the thread's own share, else from the back of the share with most left.
bool ThreadPool::claim(size_t slot, size_t& begin, size_t& end) {
  if (!by_shares_) {
    if (next_ >= count_) return false;
    begin = next_;
    end = std::min(count_, begin + grain_);
    next_ = end;
    return true;
  }
  Share& own = shares_[slot];
  if (own.front < own.back) {
    begin = own.front;
    end = std::min(own.back, begin + grain_);
    own.front = end;
    return true;
  }
  Share* most = nullptr;
  for (Share& share : shares_) {
    if (share.back - share.front > (most ? most->back - most->front : 0)) most = &share;
  }
  if (!most) return false;
  end = most->back;
  begin = end - std::min(end - most->front, grain_);
  most->back = begin;
  return true;
}

// Claims chunks until none is left. Called by the workers (slots 1..) and by the thread that started the batch
// (slot 0).
void ThreadPool::runChunks(size_t slot) {
  std::unique_lock<std::mutex> lock(mutex_);
  size_t begin = 0, end = 0;
  while (claim(slot, begin, end)) {
    const auto* fn = fn_;
    lock.unlock();
    (*fn)(begin, end);
    lock.lock();
    done_ += end - begin;
    if (done_ == count_) finished_.notify_all();
  }
}

void ThreadPool::workerLoop(size_t slot) {
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
    runChunks(slot);
    lock.lock();
    --busy_workers_;
    finished_.notify_all();
  }
}

void ThreadPool::parallelFor(size_t count, size_t grain, const std::function<void(size_t, size_t)>& fn) {
  runBatch(count, grain, false, fn);
}

void ThreadPool::parallelForShares(size_t count, size_t grain, const std::function<void(size_t, size_t)>& fn) {
  runBatch(count, std::max<size_t>(grain, 1), true, fn);
}

void ThreadPool::runBatch(size_t count, size_t grain, bool by_shares, const std::function<void(size_t, size_t)>& fn) {
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
  by_shares_ = by_shares;
  next_ = done_ = 0;
  for (size_t t = 0; t < threads; ++t) {
    // Share boundaries on multiples of the grain, so that a share's chunks start where the caller's blocks do.
    shares_[t].front = t == 0 ? 0 : shares_[t - 1].back;
    shares_[t].back = t + 1 == threads ? count : std::max(shares_[t].front, count * (t + 1) / threads / grain * grain);
  }
  ++generation_;
  published_.store(generation_, std::memory_order_release);
  lock.unlock();
  wake_.notify_all();
  runChunks(0);
  lock.lock();
  // Every chunk finished and no worker still holds a pointer to this batch.
  finished_.wait(lock, [&] { return done_ == count_ && busy_workers_ == 0; });
  fn_ = nullptr;
  count_ = next_ = done_ = 0;
  in_batch_ = false;
}

void parallelFor(ThreadPool* pool, size_t count, size_t grain, const std::function<void(size_t, size_t)>& fn) {
  if (pool) {
    pool->parallelFor(count, grain, fn);
  } else if (count > 0) {
    fn(0, count);
  }
}

void parallelForShares(ThreadPool* pool, size_t count, size_t grain, const std::function<void(size_t, size_t)>& fn) {
  if (pool) {
    pool->parallelForShares(count, grain, fn);
  } else if (count > 0) {
    fn(0, count);
  }
}

}  // namespace morphkit
