// SPDX-License-Identifier: MIT
// capture_signal.cpp — scale, neutral calibration, One-Euro smoothing, time offset and resampling of a Capture.
#include "morphkit/io/capture_signal.h"

#include <algorithm>
#include <cmath>

namespace morphkit {

namespace {

constexpr double kPi = 3.14159265358979323846;

std::vector<bool> shapeChannels(const Capture& capture) {
  std::vector<bool> shape(capture.columns.size(), true);
  for (size_t c = 0; c < capture.columns.size(); ++c) {
    const std::string name = normalizeCaptureName(capture.columns[c]);
    for (std::string_view r : kLiveLinkRotations) shape[c] = shape[c] && normalizeCaptureName(r) != name;
  }
  return shape;
}

// The values at `time` (LINEAR between rows; the end rows hold outside) into `out`.
void sampleRow(const Capture& capture, double time, size_t& cursor, float* out) {
  const size_t columns = capture.columns.size();
  const size_t rows = capture.rows();
  while (cursor + 1 < rows && double(capture.times[cursor + 1]) <= time) ++cursor;
  const float* a = &capture.values[cursor * columns];
  if (cursor + 1 >= rows || time <= double(capture.times[cursor])) {
    std::copy_n(a, columns, out);
    return;
  }
  const float* b = &capture.values[(cursor + 1) * columns];
  const double t0 = capture.times[cursor], t1 = capture.times[cursor + 1];
  const double u = (time - t0) / (t1 - t0);
  for (size_t c = 0; c < columns; ++c) out[c] = float(double(a[c]) + u * (double(b[c]) - double(a[c])));
}

double smoothingFactor(double cutoff, double dt) {
  const double tau = 1.0 / (2.0 * kPi * cutoff);
  return 1.0 / (1.0 + tau / dt);
}

}  // namespace

float detectCaptureScale(const Capture& capture, float* largest) {
  const std::vector<bool> shape = shapeChannels(capture);
  float most = 0.0f;
  for (size_t i = 0; i < capture.values.size(); ++i) {
    if (shape[i % capture.columns.size()]) most = std::max(most, capture.values[i]);
  }
  if (largest) *largest = most;
  if (capture.full_scale != 1.0f) return capture.full_scale;
  return most > 1.5f ? 100.0f : 1.0f;
}

void scaleCapture(Capture& capture, float full_scale) {
  const std::vector<bool> shape = shapeChannels(capture);
  for (size_t i = 0; i < capture.values.size(); ++i) {
    if (shape[i % capture.columns.size()]) capture.values[i] /= full_scale;
  }
  capture.full_scale = 1.0f;
}

std::vector<float> neutralFromFirst(const Capture& capture, double seconds, size_t* rows_used) {
  const size_t columns = capture.columns.size();
  std::vector<double> sum(columns, 0.0);
  size_t rows = 0;
  // Compared as float, the times' own precision: "first:0.4" takes the row stamped 0.4.
  while (rows < capture.rows() && (rows == 0 || capture.times[rows] <= float(seconds))) {
    for (size_t c = 0; c < columns; ++c) sum[c] += capture.values[rows * columns + c];
    ++rows;
  }
  if (rows_used) *rows_used = rows;
  std::vector<float> mean(columns);
  for (size_t c = 0; c < columns; ++c) mean[c] = float(sum[c] / double(rows));
  return mean;
}

std::vector<float> neutralFromCapture(const Capture& capture, const Capture& neutral,
                                      std::vector<std::string>* missing) {
  const std::vector<float> mean = neutralFromFirst(neutral, INFINITY);
  std::vector<float> out(capture.columns.size(), 0.0f);
  for (size_t c = 0; c < capture.columns.size(); ++c) {
    const std::string want = normalizeCaptureName(capture.columns[c]);
    size_t n = 0;
    while (n < neutral.columns.size() && normalizeCaptureName(neutral.columns[n]) != want) ++n;
    if (n < neutral.columns.size()) {
      out[c] = mean[n];
    } else if (missing) {
      missing->push_back(capture.columns[c]);
    }
  }
  return out;
}

void subtractNeutral(Capture& capture, std::span<const float> neutral) {
  const std::vector<bool> shape = shapeChannels(capture);
  const size_t columns = capture.columns.size();
  for (size_t i = 0; i < capture.values.size(); ++i) {
    const size_t c = i % columns;
    if (shape[c]) capture.values[i] = std::max(0.0f, capture.values[i] - neutral[c]);
  }
}

float smoothOneEuro(Capture& capture, const OneEuroParams& params) {
  const size_t columns = capture.columns.size();
  float largest = 0.0f;
  for (size_t c = 0; c < columns; ++c) {
    double x_hat = capture.values[c], dx_hat = 0.0;
    for (size_t r = 1; r < capture.rows(); ++r) {
      const double dt = double(capture.times[r]) - double(capture.times[r - 1]);
      float& value = capture.values[r * columns + c];
      const double x = value;
      // The speed estimate is low-passed first; the cutoff follows it.
      const double dx = (x - x_hat) / dt;
      dx_hat += smoothingFactor(params.d_cutoff, dt) * (dx - dx_hat);
      const double cutoff = params.min_cutoff + params.beta * std::fabs(dx_hat);
      x_hat += smoothingFactor(cutoff, dt) * (x - x_hat);
      largest = std::max(largest, float(std::fabs(x_hat - x)));
      value = float(x_hat);
    }
  }
  return largest;
}

Expected<size_t> offsetCapture(Capture& capture, double seconds) {
  if (seconds >= 0.0) {
    for (float& t : capture.times) t = float(double(t) + seconds);
    return size_t(0);
  }
  const size_t columns = capture.columns.size();
  const double shift = -seconds;
  size_t first = 0;
  while (first < capture.rows() && double(capture.times[first]) < shift) ++first;
  if (first == capture.rows()) {
    return fail(Error::kInvalidArgument, "the capture offset " + std::to_string(seconds) +
                                             " s moves every row before 0 (the capture lasts " +
                                             std::to_string(capture.times.back()) + " s)");
  }
  std::vector<float> times, values;
  const bool interpolated = first > 0 && double(capture.times[first]) > shift;
  if (interpolated) {  // a row at 0, between two rows
    size_t cursor = first - 1;
    values.resize(columns);
    sampleRow(capture, shift, cursor, values.data());
    times.push_back(0.0f);
  }
  for (size_t r = first; r < capture.rows(); ++r) {
    times.push_back(float(double(capture.times[r]) - shift));
    values.insert(values.end(), capture.values.begin() + ptrdiff_t(r * columns),
                  capture.values.begin() + ptrdiff_t((r + 1) * columns));
  }
  // Float rounding may put two shifted times together; drop the later one rather than break monotonicity.
  size_t kept = 1;
  for (size_t r = 1; r < times.size(); ++r) {
    if (!(times[r] > times[kept - 1])) continue;
    times[kept] = times[r];
    std::copy_n(&values[r * columns], columns, &values[kept * columns]);
    ++kept;
  }
  times.resize(kept);
  values.resize(kept * columns);
  const size_t dropped = capture.rows() + (interpolated ? 1 : 0) - kept;
  capture.times = std::move(times);
  capture.values = std::move(values);
  return dropped;
}

void resampleCapture(Capture& capture, double fps) {
  const size_t columns = capture.columns.size();
  const double start = capture.times.front(), end = capture.times.back();
  std::vector<float> times, values;
  size_t cursor = 0;
  for (size_t k = 0;; ++k) {
    double t = start + double(k) / fps;
    if (t > end + 1e-9) {
      if (!times.empty() && double(times.back()) < end)
        t = end;  // keep the last row's moment
      else
        break;
    }
    const float time = float(t);
    if (!times.empty() && !(time > times.back())) break;
    times.push_back(time);
    values.resize(values.size() + columns);
    sampleRow(capture, t, cursor, &values[values.size() - columns]);
    if (t >= end) break;
  }
  capture.times = std::move(times);
  capture.values = std::move(values);
}

}  // namespace morphkit
