// SPDX-License-Identifier: MIT
// morphkit/model/thread_pool.h — a tiny fork-join pool the *application* owns and lends to jobs.
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

  // The same, but each thread starts on its own contiguous share of [0, count) (boundaries on multiples of
  // `grain`) and walks it front to back in chunks of at most `grain` (0 counts as 1); a thread whose share is done
  // takes chunks from the back of the share with the most left. Neighbouring chunks stay on one thread, so its
  // caches and prefetchers run ahead into its own data rather than into another thread's, and uneven work still
  // balances. Measured on the 20k-vertex demo pose with 1024-vertex chunks: 8–12 % less time than claiming in
  // order on 2 threads, 20 % on 16 (docs/PERFORMANCE.md, "Two threads at 20k").
  void parallelForShares(size_t count, size_t grain, const std::function<void(size_t begin, size_t end)>& fn);

 private:
  struct Share {
    size_t front = 0, back = 0;  // [front, back) not yet claimed
  };
  void workerLoop(size_t slot);
  void runChunks(size_t slot);
  bool claim(size_t slot, size_t& begin, size_t& end);
  void runBatch(size_t count, size_t grain, bool by_shares, const std::function<void(size_t, size_t)>& fn);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  // The current batch, guarded by mutex_: in order, [next_, count_) is unclaimed; by shares, each thread's
  // share (slot 0: the calling thread, slot i: worker i); done_ items have finished.
  const std::function<void(size_t, size_t)>* fn_ = nullptr;
  size_t count_ = 0, grain_ = 1, next_ = 0, done_ = 0;
  bool by_shares_ = false;
  std::vector<Share> shares_;
  unsigned generation_ = 0;
  std::atomic<unsigned> published_{0};  // generation_, readable without the lock (workers spin on it briefly)
  unsigned busy_workers_ = 0;
  bool stop_ = false;
  bool in_batch_ = false;
};

// Convenience: pool may be nullptr (runs fn(0, count) inline).
void parallelFor(ThreadPool* pool, size_t count, size_t grain, const std::function<void(size_t, size_t)>& fn);
void parallelForShares(ThreadPool* pool, size_t count, size_t grain, const std::function<void(size_t, size_t)>& fn);

}  // namespace morphkit
