// SPDX-License-Identifier: MIT
// PngFrameWriter (morphkit/image/frame_writer.h).
#include "morphkit/image/frame_writer.h"

#include <algorithm>
#include <chrono>

#include "morphkit/model/files.h"

namespace morphkit {

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
    encode(job);
  }
}

// Encodes outside the lock (in parallel) and parks the bytes; the frames are written in frame order, so an
// interrupted render leaves a prefix of the frames, which --resume completes. A worker whose frame is not next does
// not wait for its turn: it takes the next frame to encode (a slow frame no longer idles the other encoders).
void PngFrameWriter::encode(Job& job) {
  const auto start = std::chrono::steady_clock::now();
  bool failed = false;
  {
    std::lock_guard lock(mutex_);
    failed = failure_.has_value();
  }
  Encoded encoded{std::move(job.path),
                  failed ? Expected<std::vector<uint8_t>>(std::vector<uint8_t>())
                         : encodePng(job.image.rgba, job.image.width, job.image.height, compression_)};
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  job.image = RenderedImage();  // the pixels go as soon as they are encoded

  std::unique_lock lock(mutex_);
  encode_ms_ += ms;
  ready_.emplace(job.order, std::move(encoded));
  if (!writing_) writeReadyFrames(lock);
}

// Writes (unlocked) every parked frame whose turn has come, in order; the first failure stops the writes, and the
// frames after it only release their place in flight.
void PngFrameWriter::writeReadyFrames(std::unique_lock<std::mutex>& lock) {
  writing_ = true;
  for (auto next = ready_.find(written_); next != ready_.end(); next = ready_.find(written_)) {
    Encoded frame = std::move(next->second);
    ready_.erase(next);
    if (!failure_ && !frame.png) failure_ = FrameWriteFailure{{}, frame.png.error()};
    if (!failure_) {
      lock.unlock();
      Status s = writeFileAtomic(frame.path, std::span<const uint8_t>(*frame.png));
      lock.lock();
      if (!s && !failure_) failure_ = FrameWriteFailure{frame.path, s.error()};
    }
    ++written_;
    --in_flight_;
    space_.notify_all();
  }
  writing_ = false;
}

}  // namespace morphkit
