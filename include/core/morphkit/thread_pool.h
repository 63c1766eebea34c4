// SPDX-License-Identifier: MIT
// morphkit/thread_pool.h — a tiny fork-join pool the *application* owns and lends to jobs.
//
// The library never creates threads: functions that can run in parallel take an optional ThreadPool*
// (nullptr: run on the calling thread). The CLI creates one pool (--threads N) and passes it down.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace morphkit {

class ThreadPool {
 public:
  // `threads` is the total parallelism including the calling thread: 0 or 1 starts no worker.
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned threadCount() const { return unsigned(workers_.size()) + 1; }

  // Calls fn(begin, end) over disjoint chunks covering [0, count), each at most `grain` long (grain 0: split
  // evenly over the threads), and returns when every chunk is done. The caller's thread works too.
  // fn must not throw. Calls from inside fn (nested parallelFor) run inline on that thread. After a batch the
  // workers spin (yielding) up to 100 µs for the next one before they sleep, so back-to-back batches do not pay
  // a wake-up each.
  void parallelFor(size_t count, size_t grain, const std::function<void(size_t begin, size_t end)>& fn);

 private:
  void workerLoop();
  void runChunks();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  // The current batch (guarded by mutex_ except the chunk counter, which is claimed under the lock too).
  const std::function<void(size_t, size_t)>* fn_ = nullptr;
  size_t count_ = 0, grain_ = 1, next_ = 0, chunks_left_ = 0;
  unsigned generation_ = 0;
  std::atomic<unsigned> published_{0};  // generation_, readable without the lock (workers spin on it briefly)
  unsigned busy_workers_ = 0;
  bool stop_ = false;
  bool in_batch_ = false;
};

// Convenience: pool may be nullptr (runs fn(0, count) inline).
void parallelFor(ThreadPool* pool, size_t count, size_t grain, const std::function<void(size_t, size_t)>& fn);

}  // namespace morphkit
