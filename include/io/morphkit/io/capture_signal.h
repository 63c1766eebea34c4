// SPDX-License-Identifier: MIT
// morphkit/io/capture_signal.h — cleaning a capture's signals before it drives targets, in this order (the CLI's
// --capture-scale, --neutral, --smooth, --capture-offset, animate --fps): scale to 0–1, subtract a neutral pose,
// smooth with the One-Euro filter, shift in time, resample to a frame rate. Each step works in place on a Capture
// (morphkit/io/capture.h); cleanCapture runs them all and says what each did, for --verbose. Rotation channels
// (kLiveLinkRotations, radians) are neither rescaled nor neutral-calibrated. Part of morphkit::io.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/io/capture.h"
#include "morphkit/model/error.h"

namespace morphkit {

// The value that means "fully on": the format's own (Capture::full_scale, 100 for iFacialMocap) when it is not 1,
// else 100 when a shape channel holds a value above 1.5 (a capture written in percent), else 1. `largest` gets
// the largest shape value seen.
float detectCaptureScale(const Capture& capture, float* largest = nullptr);
// Divides every shape channel's values by `full_scale` (> 0) and sets capture.full_scale to 1.
void scaleCapture(Capture& capture, float full_scale);

// The neutral pose: per channel, the mean of the rows at times <= `seconds` (the first row at least).
std::vector<float> neutralFromFirst(const Capture& capture, double seconds, size_t* rows_used = nullptr);
// The neutral pose from a capture of the neutral face (already scaled): per channel of `capture`, the mean of the
// `neutral` channel with the same normalized name; 0 for a channel `neutral` lacks. `missing` gets those names.
std::vector<float> neutralFromCapture(const Capture& capture, const Capture& neutral,
                                      std::vector<std::string>* missing = nullptr);
// value = max(0, value - neutral[channel]) for every shape channel (neutral: one value per channel).
void subtractNeutral(Capture& capture, std::span<const float> neutral);

// The One-Euro filter (Casiez, Roussel, Vogel, CHI 2012) on every channel over the capture's own time steps: a
// low-pass whose cutoff rises with the signal's speed, cutoff = min_cutoff + beta · |dx/dt| (Hz), the speed itself
// low-passed at d_cutoff. Little lag while the face moves fast, jitter removed while it rests. Returns the largest
// change made to a value.
struct OneEuroParams {
  double min_cutoff = 1.0;  // Hz, > 0: the cutoff at rest
  double beta = 1.0;        // >= 0: cutoff Hz added per unit/s of speed
  double d_cutoff = 1.0;    // Hz, > 0: the cutoff of the speed estimate (the paper's 1 Hz)
};
float smoothOneEuro(Capture& capture, const OneEuroParams& params);
// "one-euro" (the defaults) or "one-euro:MINCUTOFF,BETA" (MINCUTOFF > 0, BETA >= 0): the CLI's --smooth and
// Python's smooth=. False for anything else.
bool parseOneEuro(std::string_view text, OneEuroParams& params);

// Shifts every time by `seconds` (finite). A positive offset delays the capture (its first row holds from 0); a
// negative one drops what falls before 0, with a row interpolated at 0 when 0 lies between two rows. Returns the
// rows dropped; fails (kInvalidArgument) when nothing is left after 0.
Expected<size_t> offsetCapture(Capture& capture, double seconds);

// Replaces the rows by rows at times[0] + k / fps (LINEAR between the old rows), k = 0 .. while <= the last time;
// the last time is kept as the final row when it falls between two grid times. fps > 0.
void resampleCapture(Capture& capture, double fps);

// The whole clean-up, the one every front end runs (the CLI's capture options, Python's load_capture), in the
// order above; each step that runs adds its line to the report.
struct CaptureCleanup {
  float scale = 0.0f;                     // > 0: the value meaning fully on; 0: detectCaptureScale
  double neutral_seconds = -1.0;          // >= 0: subtract the mean of the rows up to this time
  const Capture* neutral_face = nullptr;  // else, when set: a capture of the neutral face as read (scaled here)
  std::string neutral_name;               // that capture's file, for its step line
  std::optional<OneEuroParams> smooth;
  double offset_seconds = 0.0;  // finite
  double resample_fps = 0.0;    // > 0: resample (LINEAR)
};
struct CaptureCleanupReport {
  float scale = 1.0f;    // the full scale the values were divided by
  float largest = 0.0f;  // the largest shape value before scaling
  std::vector<std::string> steps;
};
// Fails (kInvalidArgument) on a non-finite or out-of-range setting, or when the offset leaves no row after 0.
Expected<CaptureCleanupReport> cleanCapture(Capture& capture, const CaptureCleanup& cleanup);

}  // namespace morphkit
