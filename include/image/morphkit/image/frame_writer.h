// SPDX-License-Identifier: MIT
// morphkit/image/frame_writer.h — the output stage of `render` and of the batch's frames: frames encoded to PNG on
// worker threads while the render loop draws the next ones, each file written atomically in frame order, and at most
// `max_in_flight` frames held in memory, so memory stays flat whatever the frame count. The writer starts its own
// encoder threads: an application's choice, made where it constructs one (the library's functions start none).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "morphkit/image/image.h"
#include "morphkit/model/error.h"

namespace morphkit {

// The first frame that could not be encoded or written, and why.
struct FrameWriteFailure {
  std::filesystem::path path;
  Failure failure;
};

class PngFrameWriter {
 public:
  // `threads` encoders (0: one per core); `max_in_flight` frames queued, encoding or waiting for their turn to be
  // written (0: twice the encoders).
  explicit PngFrameWriter(unsigned threads, unsigned max_in_flight = 0,
                          PngCompression compression = PngCompression::kFast);
  ~PngFrameWriter();  // finishes the queued frames
  PngFrameWriter(const PngFrameWriter&) = delete;
  PngFrameWriter& operator=(const PngFrameWriter&) = delete;

  // Queues `image` for `path`, written after every frame pushed before it; blocks while the queue is full.
  // False once a frame has failed: the caller stops rendering and finish() says which and why.
  bool push(std::filesystem::path path, RenderedImage image);
  // Waits for every queued frame; the first failure, if any.
  std::optional<FrameWriteFailure> finish();

  unsigned threads() const { return unsigned(workers_.size()); }
  double encodeMs() const;  // summed over every encoded frame (one core's time)

 private:
  struct Job {
    uint64_t order = 0;
    std::filesystem::path path;
    RenderedImage image;
  };
  // An encoded frame waiting for the frames before it to be written.
  struct Encoded {
    std::filesystem::path path;
    Expected<std::vector<uint8_t>> png = std::vector<uint8_t>();
  };
  void workerLoop();
  void encode(Job& job);
  void writeReadyFrames(std::unique_lock<std::mutex>& lock);

  std::vector<std::thread> workers_;
  mutable std::mutex mutex_;
  std::condition_variable work_, space_;
  std::deque<Job> queue_;
  uint64_t pushed_ = 0, written_ = 0;  // frames pushed; frames whose turn to be written has passed
  unsigned in_flight_ = 0, max_in_flight_ = 0;
  PngCompression compression_ = PngCompression::kFast;
  std::map<uint64_t, Encoded> ready_;  // by order: encoded, not yet written
  bool writing_ = false;               // one worker writes the ready frames in order, the others keep encoding
  bool stopping_ = false;
  std::optional<FrameWriteFailure> failure_;
  double encode_ms_ = 0;
};

}  // namespace morphkit
