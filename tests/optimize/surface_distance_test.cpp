// SPDX-License-Identifier: MIT
// The sampled two-sided surface distance (src/optimize/surface_distance.h) on surfaces whose distance is known.
#include "surface_distance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace morphkit::optimize_detail {
namespace {

struct Mesh {
  std::vector<float> positions;
  std::vector<uint32_t> indices;
  TriangleSurface surface() const { return {positions, indices}; }
};

// An n × n quad grid over [x0, x0 + size] × [y0, y0 + size] at height z, split along one diagonal or the other.
Mesh grid(uint32_t n, float size, float z, bool other_diagonal = false, float x0 = 0, float y0 = 0) {
  Mesh mesh;
  for (uint32_t j = 0; j <= n; ++j) {
    for (uint32_t i = 0; i <= n; ++i) {
      mesh.positions.insert(mesh.positions.end(),
                            {x0 + size * float(i) / float(n), y0 + size * float(j) / float(n), z});
    }
  }
  for (uint32_t j = 0; j < n; ++j) {
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
      if (other_diagonal) {
        mesh.indices.insert(mesh.indices.end(), {a, b, c, b, d, c});
      } else {
        mesh.indices.insert(mesh.indices.end(), {a, b, d, a, d, c});
      }
    }
  }
  return mesh;
}

// A UV sphere of radius 1 around `center`.
Mesh sphere(float cx, uint32_t rings = 16, uint32_t segments = 24) {
  Mesh mesh;
  const double pi = 3.14159265358979323846;
  for (uint32_t r = 0; r <= rings; ++r) {
    const double polar = pi * r / rings;
    for (uint32_t s = 0; s < segments; ++s) {
      const double azimuth = 2 * pi * s / segments;
      mesh.positions.insert(mesh.positions.end(), {cx + float(std::sin(polar) * std::cos(azimuth)),
                                                   float(std::cos(polar)), float(std::sin(polar) * std::sin(azimuth))});
    }
  }
  for (uint32_t r = 0; r < rings; ++r) {
    for (uint32_t s = 0; s < segments; ++s) {
      const uint32_t a = r * segments + s, b = r * segments + (s + 1) % segments, c = a + segments, d = b + segments;
      mesh.indices.insert(mesh.indices.end(), {a, c, d, a, d, b});
    }
  }
  return mesh;
}

TEST(SurfaceDistance, APlaneAndTheSamePlaneRaisedAreTheirGapApart) {
  const Mesh low = grid(10, 1.0f, 0.0f), high = grid(7, 1.0f, 0.03f);
  EXPECT_NEAR(surfaceDistance(low.surface(), high.surface(), 0.05).distance, 0.03, 1e-6);
}

TEST(SurfaceDistance, AMeshIsNoDistanceFromItselfOrARetriangulation) {
  const Mesh ball = sphere(0);
  EXPECT_NEAR(surfaceDistance(ball.surface(), ball.surface(), 0.05).distance, 0.0, 1e-6);
  const Mesh plane = grid(8, 1.0f, 0.0f), other = grid(5, 1.0f, 0.0f, true);
  EXPECT_NEAR(surfaceDistance(plane.surface(), other.surface(), 0.02).distance, 0.0, 1e-6);
}

TEST(SurfaceDistance, OneRaisedVertexIsFoundWhereItIs) {
  const Mesh flat = grid(10, 1.0f, 0.0f);
  Mesh bumped = flat;
  const uint32_t raised = 3 * 11 + 4;  // (0.4, 0.3)
  bumped.positions[3 * raised + 2] = 0.25f;
  const SurfaceDistance d = surfaceDistance(flat.surface(), bumped.surface(), 0.01);
  EXPECT_NEAR(d.distance, 0.25, 1e-6);
  EXPECT_FALSE(d.on_first);  // the bump's tip lies on the second surface
  EXPECT_NEAR(d.where[0], 0.4, 1e-6);
  EXPECT_NEAR(d.where[1], 0.3, 1e-6);
}

TEST(SurfaceDistance, IsTwoSided) {
  // Every point of the small square lies on the large one; the large one's far corner is √½ from the small one.
  const Mesh small = grid(3, 0.5f, 0.0f), large = grid(4, 1.0f, 0.0f);
  const SurfaceDistance d = surfaceDistance(small.surface(), large.surface(), 0.05);
  EXPECT_NEAR(d.distance, std::sqrt(0.5), 1e-6);
  EXPECT_FALSE(d.on_first);
  const SurfaceDistance swapped = surfaceDistance(large.surface(), small.surface(), 0.05);
  EXPECT_NEAR(swapped.distance, std::sqrt(0.5), 1e-6);
  EXPECT_TRUE(swapped.on_first);
}

TEST(SurfaceDistance, FarApartSurfacesAreSearchedToTheEnd) {
  // Two unit spheres 10 apart: the Hausdorff distance of the smooth spheres is 10; the polygons are within 2 %.
  const Mesh a = sphere(0), b = sphere(10);
  EXPECT_NEAR(surfaceDistance(a.surface(), b.surface(), 0.1).distance, 10.0, 0.2);
  // Beside each other with a gap: the grid spans both, and distant cells must still be searched.
  const Mesh near = grid(4, 1.0f, 0.0f), far = grid(4, 1.0f, 0.0f, false, 3.0f, 0.0f);
  EXPECT_NEAR(surfaceDistance(near.surface(), far.surface(), 0.05).distance, 3.0, 1e-6);
}

TEST(SurfaceDistance, AnEmptySurfaceIsInfinitelyFar) {
  const Mesh plane = grid(2, 1.0f, 0.0f), none;
  EXPECT_TRUE(std::isinf(surfaceDistance(plane.surface(), none.surface(), 0.1).distance));
  EXPECT_EQ(surfaceDistance(none.surface(), none.surface(), 0.1).distance, 0.0);
}

}  // namespace
}  // namespace morphkit::optimize_detail
