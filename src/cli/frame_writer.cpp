// SPDX-License-Identifier: MIT
#ifdef HAVE_morphkit_render  // render's output stage (a CPU-only build has no render command)
#include "frame_writer.h"

#include <algorithm>
#include <chrono>

#include "morphkit/io.h"

namespace morphkit::cli {

PngFrameWriter::PngFrameWriter(unsigned threads, unsigned max_in_flight, PngCompression compression)
    : compression_(compression) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  max_in_flight_ = max_in_flight > 0 ? max_in_flight : 2 * threads;
  workers_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { workerLoop(); });
}

PngFrameWriter::~PngFrameWriter() {
  finish();
}

bool PngFrameWriter::push(std::filesystem::path path, RenderedImage image) {
  std::unique_lock lock(mutex_);
  space_.wait(lock, [&] { return in_flight_ < max_in_flight_ || failure_; });
  if (failure_) return false;
  queue_.push_back(Job{pushed_++, std::move(path), std::move(image)});
  ++in_flight_;
  work_.notify_one();
  return true;
}

std::optional<FrameWriteFailure> PngFrameWriter::finish() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
  std::lock_guard lock(mutex_);
  return failure_;
}

double PngFrameWriter::encodeMs() const {
  std::lock_guard lock(mutex_);
  return encode_ms_;
}

void PngFrameWriter::workerLoop() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      work_.wait(lock, [&] { return !queue_.empty() || stopping_; });
      if (queue_.empty()) return;  // stopping, and nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    encodeAndWrite(job);
  }
}

// Encodes outside the lock (in parallel), then waits for the frame's turn so that files appear in frame order: an
// interrupted render leaves a prefix of the frames, which --resume completes.
void PngFrameWriter::encodeAndWrite(Job& job) {
  const auto start = std::chrono::steady_clock::now();
  bool failed = false;
  {
    std::lock_guard lock(mutex_);
    failed = failure_.has_value();
  }
  Expected<std::vector<uint8_t>> png = failed
                                           ? Expected<std::vector<uint8_t>>(std::vector<uint8_t>())
                                           : encodePng(job.image.rgba, job.image.width, job.image.height, compression_);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  job.image = RenderedImage();  // the pixels go as soon as they are encoded

  std::unique_lock lock(mutex_);
  encode_ms_ += ms;
  turn_.wait(lock, [&] { return written_ == job.order; });
  if (!failure_ && !png) failure_ = FrameWriteFailure{{}, png.error()};
  if (!failure_) {
    lock.unlock();  // the write runs unlocked; later frames wait for `written_`
    Status s = writeFileAtomic(job.path, std::span<const uint8_t>(*png));
    lock.lock();
    if (!s && !failure_) failure_ = FrameWriteFailure{job.path, s.error()};
  }
  ++written_;
  --in_flight_;
  turn_.notify_all();
  space_.notify_all();
}

}  // namespace morphkit::cli
#endif  // HAVE_morphkit_render
