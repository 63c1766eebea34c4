// SPDX-License-Identifier: MIT
// check_compare.cpp — the difference between two poses of the same prepared scene, vertex by vertex.
#include <algorithm>
#include <cmath>

#include "check_internal.h"

namespace morphkit::check_detail {

namespace {

double diagonal(const std::vector<float>& positions) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < positions.size(); ++i) {
    lo[i % 3] = std::min(lo[i % 3], double(positions[i]));
    hi[i % 3] = std::max(hi[i % 3], double(positions[i]));
  }
  if (positions.empty()) return 0.0;
  return std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                   (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

// The angle between two unit normals, in degrees (atan2 keeps small angles exact; zero normals: 0).
double angleDegrees(const float* a, const float* b) {
  const double cx = double(a[1]) * b[2] - double(a[2]) * b[1];
  const double cy = double(a[2]) * b[0] - double(a[0]) * b[2];
  const double cz = double(a[0]) * b[1] - double(a[1]) * b[0];
  const double dot = double(a[0]) * b[0] + double(a[1]) * b[1] + double(a[2]) * b[2];
  return std::atan2(std::sqrt(cx * cx + cy * cy + cz * cz), dot) * (180.0 / M_PI);
}

}  // namespace

void accumulateDeviation(const PoseResult& reference, const PoseResult& engine, Deviation& deviation) {
  bool differs = false;
  for (size_t m = 0; m < reference.meshes.size() && m < engine.meshes.size(); ++m) {
    const PosedPrimitive& a = reference.meshes[m];
    const PosedPrimitive& b = engine.meshes[m];
    const size_t n = std::min(a.positions.size(), b.positions.size()) / 3;
    const double diag = diagonal(a.positions);
    for (size_t v = 0; v < n; ++v) {
      const double dx = double(a.positions[3 * v]) - b.positions[3 * v];
      const double dy = double(a.positions[3 * v + 1]) - b.positions[3 * v + 1];
      const double dz = double(a.positions[3 * v + 2]) - b.positions[3 * v + 2];
      const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
      if (d == 0.0) continue;
      differs = true;
      if (diag > 0) deviation.position_percent = std::max(deviation.position_percent, 100.0 * d / diag);
      if (d > deviation.position) {
        deviation.position = d;
        deviation.node = a.node, deviation.mesh = a.mesh, deviation.primitive = a.primitive;
        deviation.vertex = uint32_t(v);
        deviation.animation = reference.animation;
        deviation.time = reference.time;
      }
    }
    auto angles = [&](const std::vector<float>& x, const std::vector<float>& y, size_t stride, double& worst) {
      if (x.size() != y.size()) return;
      for (size_t v = 0; v < x.size() / stride; ++v) {
        const double angle = angleDegrees(&x[stride * v], &y[stride * v]);
        if (angle == 0.0) continue;
        differs = true;
        worst = std::max(worst, angle);
      }
    };
    angles(a.normals, b.normals, 3, deviation.normal_degrees);
    angles(a.tangents, b.tangents, 4, deviation.tangent_degrees);
    auto components = [&](const std::vector<std::vector<float>>& x, const std::vector<std::vector<float>>& y) {
      for (size_t s = 0; s < x.size() && s < y.size(); ++s) {
        for (size_t i = 0; i < x[s].size() && i < y[s].size(); ++i) {
          const double d = std::abs(double(x[s][i]) - y[s][i]);
          if (d == 0.0) continue;
          differs = true;
          deviation.attribute = std::max(deviation.attribute, d);
        }
      }
    };
    components(a.texcoords, b.texcoords);
    components(a.colors, b.colors);
  }
  if (differs && deviation.frames_differing++ == 0) {
    deviation.first_animation = reference.animation;
    deviation.first_time = reference.time;
  }
  ++deviation.frames;
}

}  // namespace morphkit::check_detail
