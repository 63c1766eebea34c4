// SPDX-License-Identifier: MIT
// demo_capture.cpp — a synthetic face performance in the Live Link Face CSV layout, matching the demo asset's
// ARKit-named targets: blinks, speech (jaw and lips at a syllable rhythm), a smile that builds up, brow accents,
// gaze and head sway with the matching rotation columns.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include "morphkit/demo/demo.h"
#include "morphkit/io/capture.h"

namespace morphkit {

namespace {

constexpr double kTau = 6.283185307179586;

// splitmix64: seeded phases and jitter, the same on every platform.
uint64_t nextRandom(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double uniform(uint64_t& state) {
  return double(nextRandom(state) >> 11) * 0x1.0p-53;
}

double clamp01(double v) {
  return std::clamp(v, 0.0, 1.0);
}
double smoothstep(double a, double b, double t) {
  const double x = clamp01((t - a) / (b - a));
  return x * x * (3 - 2 * x);
}

size_t columnOf(std::string_view name) {
  for (size_t c = 0; c < kLiveLinkBlendShapes.size(); ++c) {
    if (kLiveLinkBlendShapes[c] == name) return c;
  }
  for (size_t c = 0; c < kLiveLinkRotations.size(); ++c) {
    if (kLiveLinkRotations[c] == name) return kLiveLinkBlendShapes.size() + c;
  }
  return SIZE_MAX;
}

// One frame of the performance at `t` seconds of `duration`; `phase` holds seeded phases (one per column).
void performance(double t, double duration, const std::vector<double>& phase, std::vector<double>& out) {
  std::fill(out.begin(), out.end(), 0.0);
  auto set = [&](std::string_view name, double value) { out[columnOf(name)] = value; };
  // Idle motion for every shape: a small, slow, seeded wobble (what a real capture never lacks).
  for (size_t c = 0; c < kLiveLinkBlendShapes.size(); ++c) {
    out[c] = 0.04 * (1 + std::sin(kTau * (0.31 + 0.05 * double(c % 7)) * t + phase[c]));
  }
  // Blinks every ~1.7 s (the right eye a frame later), 0.16 s long.
  double blink = 0.0;
  for (double b = 0.6 + 0.3 * phase[0] / kTau; b < duration + 1.0; b += 1.7)
    blink = std::max(blink, 1.0 - std::fabs(t - b) / 0.08);
  double blink_right = 0.0;
  for (double b = 0.6 + 0.3 * phase[0] / kTau + 0.017; b < duration + 1.0; b += 1.7) {
    blink_right = std::max(blink_right, 1.0 - std::fabs(t - b) / 0.08);
  }
  // Speech between 0.3 s and 0.8 s before the end: the jaw opens at a syllable rhythm of ~3.7 Hz.
  const double speaking = smoothstep(0.2, 0.4, t) * (1.0 - smoothstep(duration - 0.9, duration - 0.7, t));
  const double syllable = std::max(0.0, std::sin(kTau * 3.7 * t + 0.8 * std::sin(kTau * 0.9 * t)));
  const double jaw = 0.6 * speaking * std::pow(syllable, 1.5);
  const double round = speaking * std::pow(std::max(0.0, std::sin(kTau * 1.3 * t + phase[1])), 3.0);
  // A smile builds up in the second half; brows rise on accents.
  const double smile = 0.75 * smoothstep(0.45 * duration, 0.6 * duration, t);
  const double accent = std::pow(std::max(0.0, std::sin(kTau * 0.45 * t + phase[2])), 6.0);
  const double gaze = 0.6 * std::sin(kTau * 0.35 * t + phase[3]);  // + toward the character's left
  const double look_up = 0.4 * std::sin(kTau * 0.5 * t + phase[4]);

  set("EyeBlinkLeft", std::max(blink, 0.0));
  set("EyeBlinkRight", std::max(blink_right, 0.0));
  set("EyeSquintLeft", 0.35 * smile);
  set("EyeSquintRight", 0.35 * smile);
  set("EyeLookOutLeft", std::max(0.0, gaze));
  set("EyeLookInRight", std::max(0.0, gaze));
  set("EyeLookInLeft", std::max(0.0, -gaze));
  set("EyeLookOutRight", std::max(0.0, -gaze));
  set("EyeLookUpLeft", std::max(0.0, look_up));
  set("EyeLookUpRight", std::max(0.0, look_up));
  set("EyeLookDownLeft", std::max(0.0, -look_up));
  set("EyeLookDownRight", std::max(0.0, -look_up));
  set("EyeWideLeft", 0.5 * accent);
  set("EyeWideRight", 0.5 * accent);
  set("JawOpen", jaw);
  set("MouthClose", 0.25 * speaking * (1.0 - std::min(1.0, 3.0 * jaw)));
  set("MouthFunnel", 0.45 * round * (1.0 - smile));
  set("MouthPucker", 0.55 * round * (1.0 - smile));
  set("MouthLowerDownLeft", 0.5 * jaw);
  set("MouthLowerDownRight", 0.5 * jaw);
  set("MouthUpperUpLeft", 0.25 * jaw + 0.2 * smile);
  set("MouthUpperUpRight", 0.25 * jaw + 0.2 * smile);
  set("MouthSmileLeft", smile);
  set("MouthSmileRight", 0.9 * smile);
  set("MouthDimpleLeft", 0.3 * smile);
  set("MouthDimpleRight", 0.3 * smile);
  set("CheekSquintLeft", 0.5 * smile);
  set("CheekSquintRight", 0.45 * smile);
  set("BrowInnerUp", 0.8 * accent);
  set("BrowOuterUpLeft", 0.5 * accent);
  set("BrowOuterUpRight", 0.5 * accent);
  set("TongueOut", 0.0);
  for (size_t c = 0; c < kLiveLinkBlendShapes.size(); ++c) out[c] = clamp01(out[c]);
  // Rotations in radians, as the app writes them: head sway, and the eyes following the gaze.
  const size_t r = kLiveLinkBlendShapes.size();
  out[r + 0] = 0.12 * std::sin(kTau * 0.25 * t + phase[5]);              // HeadYaw
  out[r + 1] = 0.05 * std::sin(kTau * 0.4 * t + phase[6]) + 0.05 * jaw;  // HeadPitch
  out[r + 2] = 0.04 * std::sin(kTau * 0.3 * t + phase[7]);               // HeadRoll
  for (size_t eye = 0; eye < 2; ++eye) {
    out[r + 3 + 3 * eye] = 0.3 * gaze;      // LeftEyeYaw / RightEyeYaw
    out[r + 4 + 3 * eye] = -0.2 * look_up;  // pitch: + looks down
    out[r + 5 + 3 * eye] = 0.0;             // roll
  }
}

}  // namespace

Expected<std::string> makeDemoCapture(const DemoCaptureOptions& options) {
  if (!(options.seconds > 0.0 && options.seconds <= kDemoMaxCaptureSeconds)) {
    return fail(Error::kInvalidArgument, "make-demo: capture seconds outside (0, 3600]");
  }
  if (!(options.fps >= 1.0 && options.fps <= 240.0) || options.fps != std::floor(options.fps)) {
    return fail(Error::kInvalidArgument, "make-demo: capture fps must be a whole number in 1..240");
  }
  const size_t columns = kLiveLinkBlendShapes.size() + kLiveLinkRotations.size();
  uint64_t state = options.seed;
  std::vector<double> phase(columns);
  for (double& p : phase) p = kTau * uniform(state);
  const size_t fps = size_t(options.fps);
  const size_t rows = std::max<size_t>(1, size_t(std::llround(options.seconds * options.fps)));

  std::string text = "Timecode,BlendShapeCount";
  for (std::string_view c : kLiveLinkBlendShapes) (text += ',') += c;
  for (std::string_view c : kLiveLinkRotations) (text += ',') += c;
  text += "\r\n";  // the app's line ending
  std::vector<double> values(columns);
  const size_t start = 10 * 3600 * fps;  // 10:00:00:00, frames since midnight
  for (size_t i = 0; i < rows; ++i) {
    // The app stamps each frame with a fractional frame number: capture moments are not exactly frame-aligned.
    const double sub = std::floor(uniform(state) * 300.0) / 1000.0;  // .000 ... .299
    const size_t frame = start + i;
    char timecode[48];
    std::snprintf(timecode, sizeof timecode, "%02zu:%02zu:%02zu:%02zu.%03d", frame / (3600 * fps) % 24,
                  frame / (60 * fps) % 60, frame / fps % 60, frame % fps, int(std::lround(sub * 1000.0)));
    text += timecode;
    (text += ',') += std::to_string(columns);
    performance((double(i) + sub) / options.fps, options.seconds, phase, values);
    for (double v : values) {
      char number[32];
      std::snprintf(number, sizeof number, ",%.8f", v);
      text += number;
    }
    text += "\r\n";
  }
  return text;
}

}  // namespace morphkit
