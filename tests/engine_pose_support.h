// SPDX-License-Identifier: MIT
// What the tests that compare morphkit with the real engines share: running tools/engines/engine_pose.mjs and
// reading its JSON, and the two measures they compare poses with.
#pragma once
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace morphkit::test {

// What `command` printed on stdout; a non-zero exit fails the test.
inline std::string commandOutput(const std::string& command) {
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char chunk[65536];
    for (size_t n; (n = fread(chunk, 1, sizeof chunk, pipe)) > 0;) out.append(chunk, n);
    EXPECT_EQ(pclose(pipe), 0) << command;
  }
  return out;
}

// engine_pose.mjs's positions: [frame][mesh (the engine's traversal order)] → x, y, z, ... in world space.
using EnginePositions = std::vector<std::vector<std::vector<double>>>;
inline EnginePositions parseEnginePositions(std::string_view json) {
  EnginePositions frames;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json.data(), json.size()).get(doc) != simdjson::SUCCESS) return frames;
  for (simdjson::dom::element frame : doc["frames"].get_array()) {
    auto& meshes = frames.emplace_back();
    for (simdjson::dom::element m : frame["meshes"].get_array()) {
      auto& positions = meshes.emplace_back();
      for (double v : m["positions"].get_array()) positions.push_back(v);
    }
  }
  return frames;
}

// The bounding-box diagonal of x, y, z, ... positions.
inline double diagonal(const std::vector<float>& p) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < p.size(); ++i) {
    lo[i % 3] = std::min(lo[i % 3], double(p[i]));
    hi[i % 3] = std::max(hi[i % 3], double(p[i]));
  }
  return std::hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

// The largest distance between corresponding points of two position arrays.
template <class A, class B>
double maxDifference(const std::vector<A>& a, const std::vector<B>& b) {
  double worst = 0;
  for (size_t v = 0; v + 2 < a.size() && v + 2 < b.size(); v += 3) {
    worst = std::max(worst, std::hypot(double(a[v]) - double(b[v]), double(a[v + 1]) - double(b[v + 1]),
                                       double(a[v + 2]) - double(b[v + 2])));
  }
  return worst;
}

}  // namespace morphkit::test
