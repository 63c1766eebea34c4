// SPDX-License-Identifier: MIT
// The levels-of-detail simplifier (src/optimize/simplify.h): collapses priced at every pose keep the vertices an
// expression or a bend needs, never flip a triangle at any pose, and stop at the ratio or the error limit and say
// which.
#include "simplify.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace morphkit::optimize_detail {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Mesh {
  std::vector<float> rest;  // 3 per vertex
  std::vector<uint32_t> indices;
  uint32_t vertexCount() const { return uint32_t(rest.size() / 3); }
};

// An n × n quad grid on [0, 1]² at z = 0, each quad two triangles facing +z.
Mesh grid(uint32_t n) {
  Mesh mesh;
  for (uint32_t j = 0; j <= n; ++j) {
    for (uint32_t i = 0; i <= n; ++i) mesh.rest.insert(mesh.rest.end(), {float(i) / float(n), float(j) / float(n), 0});
  }
  for (uint32_t j = 0; j < n; ++j) {
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      mesh.indices.insert(mesh.indices.end(), {a, b, d, a, d, c});
    }
  }
  return mesh;
}

SimplifyResult simplify(const Mesh& mesh, const std::vector<std::vector<float>>& poses, double ratio,
                        double max_error = std::numeric_limits<double>::infinity()) {
  std::vector<std::span<const float>> spans(poses.begin(), poses.end());
  SimplifyInput input;
  input.indices = mesh.indices;
  input.vertex_count = mesh.vertexCount();
  input.poses = spans;
  input.target_ratio = ratio;
  input.max_error = max_error;
  return simplifyTriangles(input);
}

template <typename Predicate>
size_t keptWhere(const Mesh& mesh, const SimplifyResult& result, Predicate inside) {
  size_t kept = 0;
  for (uint32_t v : result.kept_vertices) kept += inside(&mesh.rest[3 * size_t(v)]);
  return kept;
}

template <typename Predicate>
size_t countWhere(const Mesh& mesh, Predicate inside) {
  size_t count = 0;
  for (uint32_t v = 0; v < mesh.vertexCount(); ++v) count += inside(&mesh.rest[3 * size_t(v)]);
  return count;
}

TEST(Simplify, TheCornerATargetMovesKeepsItsVertices) {
  const Mesh mesh = grid(20);
  // The target raises a smooth bump in the corner around (0.2, 0.2); the rest of the grid stays flat.
  std::vector<float> raised = mesh.rest;
  const auto inBump = [](const float* p) {
    return std::hypot(p[0] - 0.2, p[1] - 0.2) < 0.18 && p[0] > 0 && p[1] > 0;  // interior vertices only
  };
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    const double r = std::hypot(mesh.rest[3 * v] - 0.2, mesh.rest[3 * v + 1] - 0.2);
    if (r < 0.2) raised[3 * v + 2] = float(0.1 * (1 + std::cos(kPi * r / 0.2)));
  }
  const SimplifyResult rest_only = simplify(mesh, {mesh.rest}, 0.5);
  const SimplifyResult posed = simplify(mesh, {mesh.rest, raised}, 0.5);
  EXPECT_EQ(posed.stop, SimplifyStop::kRatio);
  EXPECT_LE(posed.indices.size() / 3, 400u);
  const size_t in_bump = countWhere(mesh, inBump);
  ASSERT_GT(in_bump, 20u);
  // At rest the grid is flat, so a rest-only simplification removes bump vertices as readily as any other.
  EXPECT_LT(keptWhere(mesh, rest_only, inBump), in_bump * 3 / 4);
  EXPECT_EQ(keptWhere(mesh, posed, inBump), in_bump);
}

// A tube along y, open at both ends: `rings` rings of `segments` vertices, radius 0.2, from y = 0 to y = 2.
Mesh tube(uint32_t rings, uint32_t segments) {
  Mesh mesh;
  for (uint32_t r = 0; r < rings; ++r) {
    for (uint32_t s = 0; s < segments; ++s) {
      const double angle = 2 * kPi * s / segments;
      mesh.rest.insert(mesh.rest.end(),
                       {float(0.2 * std::cos(angle)), float(2.0 * r / (rings - 1)), float(0.2 * std::sin(angle))});
    }
  }
  for (uint32_t r = 0; r + 1 < rings; ++r) {
    for (uint32_t s = 0; s < segments; ++s) {
      const uint32_t a = r * segments + s, b = r * segments + (s + 1) % segments;
      const uint32_t c = a + segments, d = b + segments;
      mesh.indices.insert(mesh.indices.end(), {a, c, d, a, d, b});
    }
  }
  return mesh;
}

// Two bones, linear blend skinning: the upper half turns 90 degrees about the z axis through (0, 1, 0), its weight
// easing from 0 at y = 0.8 to 1 at y = 1.2.
std::vector<float> bent(const Mesh& mesh) {
  std::vector<float> out = mesh.rest;
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    const double x = mesh.rest[3 * v], y = mesh.rest[3 * v + 1];
    const double t = std::clamp((y - 0.8) / 0.4, 0.0, 1.0);
    const double w = t * t * (3 - 2 * t);
    const double rx = -(y - 1.0), ry = x + 1.0;  // (x, y - 1) turned 90 degrees, back about (0, 1)
    out[3 * v] = float((1 - w) * x + w * rx);
    out[3 * v + 1] = float((1 - w) * y + w * ry);
  }
  return out;
}

TEST(Simplify, TheBendOfASkinnedTubeKeepsItsRings) {
  const Mesh mesh = tube(21, 16);
  const auto inBend = [](const float* p) { return p[1] > 0.85f && p[1] < 1.15f; };  // rings at y = 0.9, 1.0, 1.1
  const SimplifyResult rest_only = simplify(mesh, {mesh.rest}, 0.5);
  const SimplifyResult posed = simplify(mesh, {mesh.rest, bent(mesh)}, 0.5);
  EXPECT_EQ(posed.stop, SimplifyStop::kRatio);
  EXPECT_LE(posed.indices.size() / 3, 320u);
  const size_t in_bend = countWhere(mesh, inBend);
  ASSERT_EQ(in_bend, 48u);
  // Straight at rest: collapses along the tube are free everywhere, the bend's rings included.
  EXPECT_LT(keptWhere(mesh, rest_only, inBend), in_bend);
  EXPECT_EQ(keptWhere(mesh, posed, inBend), in_bend);
}

// A height field over an n × n grid in each of two poses, with slopes steep enough to tempt folds.
TEST(Simplify, NoTriangleFlipsAtAnyPose) {
  const Mesh mesh = grid(30);
  std::vector<float> waved = mesh.rest, rippled = mesh.rest;
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    const double x = mesh.rest[3 * v], y = mesh.rest[3 * v + 1];
    waved[3 * v + 2] = float(0.08 * std::sin(9 * x) * std::cos(7 * y));
    rippled[3 * v + 2] = float(0.05 * std::sin(23 * (x + y)));
  }
  const std::vector<std::vector<float>> poses = {waved, rippled};
  const SimplifyResult result = simplify(mesh, poses, 0.05);
  ASSERT_GT(result.collapses, 100u);
  // Every input triangle faces +z (a height field over a grid): so must every output one, in every pose.
  for (const std::vector<float>& pose : poses) {
    for (size_t t = 0; t < result.indices.size(); t += 3) {
      const float* p[3];
      for (int c = 0; c < 3; ++c) p[c] = &pose[3 * size_t(result.kept_vertices[result.indices[t + size_t(c)]])];
      const double z =
          double(p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - double(p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
      EXPECT_GT(z, 0.0) << "triangle " << t / 3 << " folds over";
    }
  }
}

// An icosahedron subdivided `levels` times onto the unit sphere: closed, no border.
Mesh sphere(int levels) {
  const double g = (1 + std::sqrt(5.0)) / 2;
  Mesh mesh;
  const double corners[12][3] = {{-1, g, 0},  {1, g, 0},  {-1, -g, 0}, {1, -g, 0}, {0, -1, g},  {0, 1, g},
                                 {0, -1, -g}, {0, 1, -g}, {g, 0, -1},  {g, 0, 1},  {-g, 0, -1}, {-g, 0, 1}};
  const auto add = [&mesh](double x, double y, double z) {
    const double length = std::sqrt(x * x + y * y + z * z);
    mesh.rest.insert(mesh.rest.end(), {float(x / length), float(y / length), float(z / length)});
    return mesh.vertexCount() - 1;
  };
  for (const auto& c : corners) add(c[0], c[1], c[2]);
  mesh.indices = {0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4,  11, 10, 2,  10, 7, 6, 7, 1, 8,
                  3, 9,  4, 3, 4, 2, 3, 2, 6, 3, 6, 8,  3, 8,  9,  4, 9, 5, 2, 4,  11, 6,  2,  10, 8,  6, 7, 9, 8, 1};
  for (int level = 0; level < levels; ++level) {
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> middles;
    const auto middle = [&](uint32_t a, uint32_t b) {
      const auto key = std::minmax(a, b);
      const auto found = middles.find(key);
      if (found != middles.end()) return found->second;
      const float* p = &mesh.rest[3 * size_t(a)];
      const float* q = &mesh.rest[3 * size_t(b)];
      const uint32_t m = add(double(p[0]) + q[0], double(p[1]) + q[1], double(p[2]) + q[2]);
      middles.emplace(key, m);
      return m;
    };
    std::vector<uint32_t> finer;
    for (size_t t = 0; t < mesh.indices.size(); t += 3) {
      const uint32_t a = mesh.indices[t], b = mesh.indices[t + 1], c = mesh.indices[t + 2];
      const uint32_t ab = middle(a, b), bc = middle(b, c), ca = middle(c, a);
      finer.insert(finer.end(), {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca});
    }
    mesh.indices = std::move(finer);
  }
  return mesh;
}

TEST(Simplify, AClosedMeshStopsAtTheRatioAndStaysClosed) {
  const Mesh mesh = sphere(3);
  ASSERT_EQ(mesh.indices.size() / 3, 1280u);
  const SimplifyResult result = simplify(mesh, {mesh.rest}, 0.25);
  EXPECT_EQ(result.stop, SimplifyStop::kRatio);
  const size_t triangles = result.indices.size() / 3;
  EXPECT_LE(triangles, 320u);
  EXPECT_GE(triangles, 318u);
  // Euler's formula for a closed genus-0 surface, V = F / 2 + 2: no collapse tore it or pinched it.
  EXPECT_EQ(result.kept_vertices.size(), triangles / 2 + 2);
  EXPECT_GT(result.max_error, 0.0);
}

TEST(Simplify, AClosedMeshSimplifiedAsFarAsItGoesStaysAManifold) {
  // Down to a handful of triangles a half-edge collapse can close a tunnel or fold two faces onto each other; none
  // may: the result stays a closed genus-0 surface with no two triangles on the same three vertices.
  for (int levels : {1, 2}) {
    const Mesh mesh = sphere(levels);
    const std::vector<float> squashed = [&] {
      std::vector<float> p = mesh.rest;
      for (size_t v = 0; v < p.size(); v += 3) p[v + 1] *= p[v] > 0 ? 0.2f : 1.0f;  // a second, lopsided pose
      return p;
    }();
    for (const auto& poses : {std::vector<std::vector<float>>{mesh.rest}, {mesh.rest, squashed}}) {
      const SimplifyResult result = simplify(mesh, poses, 0.001);
      const size_t triangles = result.indices.size() / 3;
      EXPECT_EQ(result.stop, SimplifyStop::kNoCollapse);
      EXPECT_GE(triangles, 4u);  // a tetrahedron is the smallest closed surface
      EXPECT_EQ(result.kept_vertices.size(), triangles / 2 + 2) << levels;
      std::set<std::array<uint32_t, 3>> faces;
      for (size_t t = 0; t < result.indices.size(); t += 3) {
        std::array<uint32_t, 3> face = {result.indices[t], result.indices[t + 1], result.indices[t + 2]};
        std::sort(face.begin(), face.end());
        EXPECT_TRUE(faces.insert(face).second)
            << "two triangles on vertices " << face[0] << ", " << face[1] << ", " << face[2];
      }
    }
  }
}

TEST(Simplify, AnErrorLimitStopsEarlyAndSaysSo) {
  const Mesh mesh = sphere(3);
  const SimplifyResult free = simplify(mesh, {mesh.rest}, 0.1);
  const SimplifyResult limited = simplify(mesh, {mesh.rest}, 0.1, 0.2 * free.max_error);
  EXPECT_EQ(free.stop, SimplifyStop::kRatio);
  EXPECT_EQ(limited.stop, SimplifyStop::kErrorLimit);
  EXPECT_STREQ(simplifyStopName(limited.stop), "error limit reached");
  EXPECT_GT(limited.indices.size(), free.indices.size());
  EXPECT_LE(limited.max_error, 0.2 * free.max_error);
}

TEST(Simplify, SeamsAndBordersAreKept) {
  Mesh mesh = grid(10);
  // Split the grid along x = 0.5 as a UV seam would: the right half's column at x = 0.5 gets vertices of its own.
  std::map<uint32_t, uint32_t> twin;
  for (uint32_t v = 0; v < 121; ++v) {
    if (v % 11 != 5) continue;
    twin[v] = mesh.vertexCount();
    mesh.rest.insert(mesh.rest.end(), {mesh.rest[3 * v], mesh.rest[3 * v + 1], mesh.rest[3 * v + 2]});
  }
  for (size_t t = 0; t < mesh.indices.size(); t += 3) {
    bool right = false;
    for (size_t c = 0; c < 3; ++c) right = right || mesh.indices[t + c] % 11 > 5;
    if (!right) continue;
    for (size_t c = 0; c < 3; ++c) {
      if (twin.count(mesh.indices[t + c])) mesh.indices[t + c] = twin[mesh.indices[t + c]];
    }
  }
  const std::vector<uint8_t> seam = sharedPositionVertices(mesh.rest, mesh.vertexCount());
  EXPECT_EQ(std::count(seam.begin(), seam.end(), 1), 22);
  std::vector<uint8_t> locked = seam;
  const uint32_t pinned = 5 * 11 + 2;  // an interior vertex the caller wants kept
  locked[pinned] = 1;
  std::vector<std::span<const float>> poses = {mesh.rest};
  SimplifyInput input;
  input.indices = mesh.indices;
  input.vertex_count = mesh.vertexCount();
  input.poses = poses;
  input.locked = locked;
  input.target_ratio = 0.2;
  const SimplifyResult result = simplifyTriangles(input);
  EXPECT_GT(result.collapses, 20u);
  const auto kept = [&](uint32_t v) {
    return std::binary_search(result.kept_vertices.begin(), result.kept_vertices.end(), v);
  };
  for (uint32_t v = 0; v < mesh.vertexCount(); ++v) {
    const float x = mesh.rest[3 * v], y = mesh.rest[3 * v + 1];
    const bool border = x == 0 || y == 0 || x == 1 || y == 1;
    if (locked[v] || border) {
      EXPECT_TRUE(kept(v)) << "vertex " << v;
    }
  }
}

}  // namespace
}  // namespace morphkit::optimize_detail
