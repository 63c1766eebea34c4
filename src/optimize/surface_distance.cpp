// SPDX-License-Identifier: MIT
// Sampled two-sided surface distance (surface_distance.h): lattice samples on each triangle, each looked up against
// the other surface's triangles through a uniform grid searched in growing shells of cells.
#include "surface_distance.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "morphkit/model/contract.h"

namespace morphkit::optimize_detail {
namespace {

using Vec = std::array<double, 3>;

Vec sub(const Vec& a, const Vec& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
double dot(const Vec& a, const Vec& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
Vec along(const Vec& a, const Vec& d, double t) {
  return {a[0] + t * d[0], a[1] + t * d[1], a[2] + t * d[2]};
}
double distance2(const Vec& a, const Vec& b) {
  return dot(sub(a, b), sub(a, b));
}

Vec vertex(const TriangleSurface& s, uint32_t v) {
  return {s.positions[3 * size_t(v)], s.positions[3 * size_t(v) + 1], s.positions[3 * size_t(v) + 2]};
}

double segmentDistance2(const Vec& p, const Vec& a, const Vec& b) {
  const Vec ab = sub(b, a);
  const double length2 = dot(ab, ab);
  const double t = length2 > 0 ? std::clamp(dot(sub(p, a), ab) / length2, 0.0, 1.0) : 0.0;
  return distance2(p, along(a, ab, t));
}

// Squared distance from p to triangle abc: which corner, edge or the face is nearest follows from the signs of p's
// projections on the two edges at each corner.
double triangleDistance2(const Vec& p, const Vec& a, const Vec& b, const Vec& c) {
  const Vec ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
  const double d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return distance2(p, a);
  const Vec bp = sub(p, b);
  const double d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return distance2(p, b);
  const Vec cp = sub(p, c);
  const double d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return distance2(p, c);
  const double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return segmentDistance2(p, a, b);
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return segmentDistance2(p, a, c);
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) return segmentDistance2(p, b, c);
  const double sum = va + vb + vc;
  if (!(sum > 0)) {  // degenerate: its nearest point is on an edge
    return std::min({segmentDistance2(p, a, b), segmentDistance2(p, b, c), segmentDistance2(p, a, c)});
  }
  const double v = vb / sum, w = vc / sum;
  const Vec q = {a[0] + ab[0] * v + ac[0] * w, a[1] + ab[1] * v + ac[1] * w, a[2] + ab[2] * v + ac[2] * w};
  return distance2(p, q);
}

// A triangle's box of cells.
struct CellBox {
  int from[3], to[3];
};

// The triangles of one surface bucketed by the cells their bounds overlap (compressed rows).
class TriangleGrid {
 public:
  TriangleGrid(const TriangleSurface& surface, const double lo[3], const double hi[3]) : surface_(surface) {
    const size_t triangles = surface.indices.size() / 3;
    // About two mean edges a cell (measured on every 16th triangle): a handful of triangles in each cell a surface
    // crosses.
    double edges = 0;
    size_t measured = 0;
    for (size_t t = 0; t < triangles; t += 16, ++measured) edges += std::sqrt(distance2(corner(t, 0), corner(t, 1)));
    cell_ = measured > 0 ? 2 * edges / double(measured) : 1.0;
    double extent = 0;
    for (int i = 0; i < 3; ++i) extent = std::max(extent, hi[i] - lo[i]);
    cell_ = std::max({cell_, extent / 256, 1e-12});
    // A surface crosses few of a box's cells: no more cells than two a triangle, so the grid's build (its per-cell
    // counts) stays proportional to the triangles. A fine face in a large box had 256³ cells, 30 % of optimize's time.
    const size_t most_cells = std::max<size_t>(4096, 2 * triangles);
    for (;;) {
      size_t cells = 1;
      for (int i = 0; i < 3; ++i) {
        lo_[i] = lo[i];
        n_[i] = std::max(1, int(std::ceil((hi[i] - lo[i]) / cell_)));
        cells *= size_t(n_[i]);
      }
      if (cells <= most_cells) break;
      cell_ *= 1.26;  // about twice the volume a cell
    }
    per_cell_ = 1.0 / cell_;
    std::vector<CellBox> boxes;
    cellBoxes(boxes);
    std::vector<uint32_t> counts(cells() + 1, 0);
    forEachCell(boxes, n_, [&](size_t cell, size_t) { ++counts[cell + 1]; });
    for (size_t i = 1; i < counts.size(); ++i) counts[i] += counts[i - 1];
    start_ = counts;
    items_.resize(counts.back());
    forEachCell(boxes, n_, [&](size_t cell, size_t t) { items_[counts[cell]++] = uint32_t(t); });
    stamp_.assign(triangles, 0);
  }

  uint32_t triangles() const { return uint32_t(surface_.indices.size() / 3); }

  double distance2To(const Vec& p, uint32_t t) const {
    return triangleDistance2(p, corner(t, 0), corner(t, 1), corner(t, 2));
  }

  // Whether some triangle lies within sqrt(limit2) of p (its index to `found`): only the cells that close to p are
  // searched, most often one. Returns nullopt where that box of cells is large (nearest2 is the better search then).
  std::optional<bool> anyWithin2(const Vec& p, double limit2, uint32_t& found) {
    const double reach = std::sqrt(limit2);
    int from[3], to[3];
    size_t count = 1;
    for (int i = 0; i < 3; ++i) {
      from[i] = cellOf(p[size_t(i)] - reach, i);
      to[i] = cellOf(p[size_t(i)] + reach, i);
      count *= size_t(to[i] - from[i] + 1);
    }
    if (count > 27) return std::nullopt;
    ++query_;
    double best = std::numeric_limits<double>::infinity();
    for (int z = from[2]; z <= to[2]; ++z) {
      for (int y = from[1]; y <= to[1]; ++y) {
        for (int x = from[0]; x <= to[0]; ++x) {
          if (cellNearest2(p, (size_t(z) * size_t(n_[1]) + size_t(y)) * size_t(n_[0]) + size_t(x), best, found,
                           limit2)) {
            return true;
          }
        }
      }
    }
    return false;
  }

  // The squared distance from p to the nearest triangle, whose index goes to `nearest`; or, as soon as some triangle
  // is within sqrt(enough2), that triangle's (the caller only asks whether p passes that distance).
  double nearest2(const Vec& p, uint32_t& nearest, double enough2) {
    ++query_;
    int c[3];
    for (int i = 0; i < 3; ++i) c[i] = cellOf(p[size_t(i)], i);
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0;; ++r) {
      // The shell: the cells of the box c ± r that the box c ± (r - 1) does not hold, clipped to the grid.
      const int z0 = std::max(c[2] - r, 0), z1 = std::min(c[2] + r, n_[2] - 1);
      const int y0 = std::max(c[1] - r, 0), y1 = std::min(c[1] + r, n_[1] - 1);
      const int x0 = std::max(c[0] - r, 0), x1 = std::min(c[0] + r, n_[0] - 1);
      for (int z = z0; z <= z1; ++z) {
        for (int y = y0; y <= y1; ++y) {
          const bool face = std::abs(z - c[2]) == r || std::abs(y - c[1]) == r;
          const int step = face || r == 0 ? 1 : 2 * r;  // inside the box's z and y faces only its x ends are new
          for (int x = face ? x0 : c[0] - r; x <= x1; x += step) {
            if (x < x0) continue;
            if (cellNearest2(p, (size_t(z) * size_t(n_[1]) + size_t(y)) * size_t(n_[0]) + size_t(x), best, nearest,
                             enough2)) {
              return best;
            }
          }
        }
      }
      // Cells beyond this shell are at least as far as the nearest face of the shell's box.
      double reach = std::numeric_limits<double>::infinity();
      for (int i = 0; i < 3; ++i) {
        if (c[i] - r > 0) reach = std::min(reach, p[size_t(i)] - (lo_[i] + (c[i] - r) * cell_));
        if (c[i] + r + 1 < n_[i]) reach = std::min(reach, lo_[i] + (c[i] + r + 1) * cell_ - p[size_t(i)]);
      }
      if (reach == std::numeric_limits<double>::infinity() || best <= reach * reach) return best;
    }
  }

 private:
  Vec corner(size_t t, int c) const { return vertex(surface_, surface_.indices[3 * t + size_t(c)]); }
  size_t cells() const { return size_t(n_[0]) * size_t(n_[1]) * size_t(n_[2]); }
  int cellOf(double x, int axis) const {
    return std::clamp(int(std::floor((x - lo_[axis]) * per_cell_)), 0, n_[axis] - 1);
  }

  // Each triangle's box of cells, found once: both passes over the triangles (counting, then filling) read it.
  void cellBoxes(std::vector<CellBox>& boxes) const {
    boxes.resize(surface_.indices.size() / 3);
    for (size_t t = 0; t < boxes.size(); ++t) {
      const float* p[3];
      for (int c = 0; c < 3; ++c) p[c] = &surface_.positions[3 * size_t(surface_.indices[3 * t + size_t(c)])];
      for (int i = 0; i < 3; ++i) {
        const float lo = std::min({p[0][i], p[1][i], p[2][i]}), hi = std::max({p[0][i], p[1][i], p[2][i]});
        boxes[t].from[i] = cellOf(lo, i);
        boxes[t].to[i] = cellOf(hi, i);
      }
    }
  }

  template <typename Visit>
  static void forEachCell(const std::vector<CellBox>& boxes, const int n[3], Visit visit) {
    for (size_t t = 0; t < boxes.size(); ++t) {
      const CellBox& box = boxes[t];
      for (int z = box.from[2]; z <= box.to[2]; ++z) {
        for (int y = box.from[1]; y <= box.to[1]; ++y) {
          for (int x = box.from[0]; x <= box.to[0]; ++x) {
            visit((size_t(z) * size_t(n[1]) + size_t(y)) * size_t(n[0]) + size_t(x), t);
          }
        }
      }
    }
  }

  // `cell`'s triangles not met yet in this query, into `best` / `nearest` where nearer; true as soon as one is within
  // sqrt(enough2) (the caller then needs no more).
  bool cellNearest2(const Vec& p, size_t cell, double& best, uint32_t& nearest, double enough2) {
    for (uint32_t i = start_[cell]; i < start_[cell + 1]; ++i) {
      const uint32_t t = items_[i];
      if (stamp_[t] == query_) continue;  // met in another cell already
      stamp_[t] = query_;
      const double d2 = distance2To(p, t);
      if (d2 < best) {
        best = d2;
        nearest = t;
        if (best <= enough2) return true;
      }
    }
    return false;
  }

  const TriangleSurface& surface_;
  double lo_[3] = {0, 0, 0};
  double cell_ = 1.0;
  double per_cell_ = 1.0;  // 1 / cell_: a grid is built at every pose, and cellOf runs six times a triangle
  int n_[3] = {1, 1, 1};
  std::vector<uint32_t> start_, items_, stamp_;
  uint32_t query_ = 0;
};

void bounds(const TriangleSurface& s, double lo[3], double hi[3]) {
  for (uint32_t v : s.indices) {
    for (int i = 0; i < 3; ++i) {
      lo[i] = std::min(lo[i], double(s.positions[3 * size_t(v) + size_t(i)]));
      hi[i] = std::max(hi[i], double(s.positions[3 * size_t(v) + size_t(i)]));
    }
  }
}

// Where a sample farther than the largest distance so far raises it.
void consider(const Vec& p, TriangleGrid& to, bool on_first, uint32_t& hint, double& worst2, SurfaceDistance& result) {
  // A sample already within the largest distance of some triangle cannot raise it: no search needed.
  if (to.distance2To(p, hint) <= worst2) return;
  // Most samples are within the largest distance of a triangle in their own cell: found without the full search.
  if (worst2 > 0) {
    const std::optional<bool> within = to.anyWithin2(p, worst2, hint);
    if (within && *within) return;
  }
  const double d2 = to.nearest2(p, hint, worst2);
  if (d2 <= worst2) return;
  worst2 = d2;
  result.distance = std::sqrt(d2);
  for (size_t k = 0; k < 3; ++k) result.where[k] = float(p[k]);
  result.on_first = on_first;
}

// The largest distance from `from`'s samples to `to`'s triangles, into `result` where it grows: each vertex once,
// then each triangle's lattice points other than its corners (most triangles of a fine mesh have none).
void oneSide(const TriangleSurface& from, TriangleGrid& to, double spacing, bool on_first, SurfaceDistance& result,
             std::vector<uint32_t>& hints) {
  double worst2 = result.distance * result.distance;
  uint32_t hint = 0;  // the previous sample's triangle: neighbouring samples mostly share it
  size_t sample = 0;
  auto visit = [&](const Vec& p) {
    // Its own triangle of last time, when that one is within reach; else the neighbour's.
    if (sample < hints.size() && hints[sample] < to.triangles() && to.distance2To(p, hints[sample]) <= worst2) {
      hint = hints[sample];
    }
    consider(p, to, on_first, hint, worst2, result);
    if (sample < hints.size()) {
      hints[sample] = hint;
    } else {
      hints.push_back(hint);
    }
    ++sample;
  };
  std::vector<bool> sampled(from.positions.size() / 3, false);
  for (uint32_t v : from.indices) {
    if (sampled[v]) continue;
    sampled[v] = true;
    visit(vertex(from, v));
  }
  for (size_t t = 0; t < from.indices.size(); t += 3) {
    const Vec a = vertex(from, from.indices[t]), b = vertex(from, from.indices[t + 1]);
    const Vec c = vertex(from, from.indices[t + 2]);
    const double longest = std::sqrt(std::max({distance2(a, b), distance2(b, c), distance2(a, c)}));
    // At most 1024 samples along an edge (a sliver far longer than the spacing): the lattice stays bounded.
    const int n = int(std::clamp(std::ceil(longest / spacing), 1.0, 1024.0));
    for (int i = 0; i <= n; ++i) {
      for (int j = 0; i + j <= n; ++j) {
        if ((i == 0 && j == 0) || i == n || j == n) continue;  // the corners: sampled as vertices
        const double u = double(i) / n, v = double(j) / n, w = 1 - u - v;
        visit({w * a[0] + u * b[0] + v * c[0], w * a[1] + u * b[1] + v * c[1], w * a[2] + u * b[2] + v * c[2]});
      }
    }
  }
}

}  // namespace

SurfaceDistance surfaceDistance(const TriangleSurface& a, const TriangleSurface& b, double spacing, double known,
                                SurfaceHints* hints) {
  MORPHKIT_EXPECTS(spacing > 0);
  MORPHKIT_EXPECTS(a.indices.size() % 3 == 0 && b.indices.size() % 3 == 0);
  for (const TriangleSurface* s : {&a, &b}) {
    for (uint32_t v : s->indices) MORPHKIT_EXPECTS(3 * size_t(v) + 2 < s->positions.size());
  }
  SurfaceDistance result;
  result.distance = std::max(known, 0.0);
  if (a.indices.empty() || b.indices.empty()) {
    result.distance =
        a.indices.empty() && b.indices.empty() ? result.distance : std::numeric_limits<double>::infinity();
    return result;
  }
  // One box around both surfaces for both grids: every sample then starts its search inside its grid.
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  bounds(a, lo, hi);
  bounds(b, lo, hi);
  SurfaceHints none;
  SurfaceHints& last = hints ? *hints : none;
  TriangleGrid grid_b(b, lo, hi);
  oneSide(a, grid_b, spacing, true, result, last.from_a);
  TriangleGrid grid_a(a, lo, hi);
  oneSide(b, grid_a, spacing, false, result, last.from_b);
  return result;
}

}  // namespace morphkit::optimize_detail
