// SPDX-License-Identifier: MIT
// Half-edge collapses under quadric error measured at every pose (simplify.h). Written for morphkit: Garland and
// Heckbert's plane quadrics, one set per pose, and a lazily re-evaluated priority queue.
#include "simplify.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <queue>
#include <unordered_map>

#include "morphkit/model/contract.h"

namespace morphkit::optimize_detail {
namespace {

// Σ area × (n·p + d)² over planes (n unit), as p'Ap + 2b'p + c, with the summed area.
struct Quadric {
  double a00 = 0, a01 = 0, a02 = 0, a11 = 0, a12 = 0, a22 = 0;
  double b0 = 0, b1 = 0, b2 = 0, c = 0, area = 0;

  void addPlane(const double n[3], double d, double weight) {
    a00 += weight * n[0] * n[0];
    a01 += weight * n[0] * n[1];
    a02 += weight * n[0] * n[2];
    a11 += weight * n[1] * n[1];
    a12 += weight * n[1] * n[2];
    a22 += weight * n[2] * n[2];
    b0 += weight * d * n[0];
    b1 += weight * d * n[1];
    b2 += weight * d * n[2];
    c += weight * d * d;
    area += weight;
  }
  void add(const Quadric& q) {
    a00 += q.a00, a01 += q.a01, a02 += q.a02, a11 += q.a11, a12 += q.a12, a22 += q.a22;
    b0 += q.b0, b1 += q.b1, b2 += q.b2, c += q.c, area += q.area;
  }
  double evaluate(const float* p) const {
    const double x = p[0], y = p[1], z = p[2];
    return x * (a00 * x + a01 * y + a02 * z) + y * (a01 * x + a11 * y + a12 * z) + z * (a02 * x + a12 * y + a22 * z) +
           2 * (b0 * x + b1 * y + b2 * z) + c;
  }
};

using Triangle = std::array<uint32_t, 3>;

void cross(const float* a, const float* b, const float* c, double n[3]) {
  const double e1[3] = {double(b[0]) - a[0], double(b[1]) - a[1], double(b[2]) - a[2]};
  const double e2[3] = {double(c[0]) - a[0], double(c[1]) - a[1], double(c[2]) - a[2]};
  n[0] = e1[1] * e2[2] - e1[2] * e2[1];
  n[1] = e1[2] * e2[0] - e1[0] * e2[2];
  n[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

struct Candidate {
  double cost;
  uint32_t from, to, version;
  bool operator>(const Candidate& other) const { return cost > other.cost; }
};

class Simplifier {
 public:
  explicit Simplifier(const SimplifyInput& input) : in_(input), poses_(input.poses.size()) {}

  SimplifyResult run() {
    buildTriangles();
    lockOpenEdges();
    buildQuadrics();
    SimplifyResult result;
    const auto target = uint32_t(std::floor(in_.target_ratio * double(triangles_.size()) + 0.5));
    // Every vertex's first candidate, found in parallel (each reads only the unchanged mesh), queued in vertex order.
    std::vector<std::optional<Option>> first(in_.vertex_count);
    parallelFor(in_.pool, in_.vertex_count, 512, [&](size_t begin, size_t end) {
      for (size_t v = begin; v < end; ++v) first[v] = bestOption(uint32_t(v));
    });
    for (uint32_t v = 0; v < in_.vertex_count; ++v) {
      ++version_[v];
      if (first[v]) queue_.push({first[v]->cost, v, first[v]->to, version_[v]});
    }
    result.stop = SimplifyStop::kNoCollapse;
    while (true) {
      if (live_ <= target) {
        result.stop = SimplifyStop::kRatio;
        break;
      }
      if (queue_.empty()) break;
      const Candidate top = queue_.top();
      queue_.pop();
      if (removed_[top.from] || top.version != version_[top.from]) continue;  // superseded
      // The neighbourhood may have changed since the entry was pushed: re-check it, and requeue it at its cost now.
      if (removed_[top.to] || !collapseAllowed(top.from, top.to)) {
        pushBest(top.from);
        continue;
      }
      const double cost = collapseCost(top.from, top.to);
      if (cost > top.cost * (1 + 1e-9) + 1e-300) {
        pushBest(top.from);  // dearer now than when queued: another neighbour may be cheaper
        continue;
      }
      if (cost > in_.max_error) {
        result.stop = SimplifyStop::kErrorLimit;
        break;
      }
      collapse(top.from, top.to);
      result.max_error = std::max(result.max_error, cost);
      ++result.collapses;
    }
    compact(result);
    return result;
  }

 private:
  const float* position(size_t pose, uint32_t v) const { return in_.poses[pose].data() + 3 * size_t(v); }
  Quadric& quadric(uint32_t v, size_t pose) { return quadrics_[size_t(v) * poses_ + pose]; }
  const Quadric& quadric(uint32_t v, size_t pose) const { return quadrics_[size_t(v) * poses_ + pose]; }

  void buildTriangles() {
    vertex_triangles_.resize(in_.vertex_count);
    for (size_t i = 0; i + 2 < in_.indices.size(); i += 3) {
      const Triangle t = {in_.indices[i], in_.indices[i + 1], in_.indices[i + 2]};
      if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) continue;
      for (uint32_t v : t) vertex_triangles_[v].push_back(uint32_t(triangles_.size()));
      triangles_.push_back(t);
    }
    alive_.assign(triangles_.size(), 1);
    live_ = uint32_t(triangles_.size());
    removed_.assign(in_.vertex_count, 0);
    version_.assign(in_.vertex_count, 0);
    locked_.assign(in_.vertex_count, 0);
    for (size_t v = 0; v < in_.locked.size(); ++v) locked_[v] = in_.locked[v] != 0;
  }

  // A vertex on an edge that is not shared by exactly two triangles (an open border, or a non-manifold edge) is
  // never removed: a half-edge collapse there would pull the border in, or tear the surface.
  void lockOpenEdges() {
    std::vector<uint64_t> edges;
    edges.reserve(triangles_.size() * 3);
    for (const Triangle& t : triangles_) {
      for (int e = 0; e < 3; ++e) {
        const uint32_t a = std::min(t[size_t(e)], t[size_t(e + 1) % 3]);
        const uint32_t b = std::max(t[size_t(e)], t[size_t(e + 1) % 3]);
        edges.push_back(uint64_t(a) << 32 | b);
      }
    }
    std::sort(edges.begin(), edges.end());
    for (size_t i = 0; i < edges.size();) {
      size_t j = i;
      while (j < edges.size() && edges[j] == edges[i]) ++j;
      if (j - i != 2) {
        locked_[uint32_t(edges[i] >> 32)] = 1;
        locked_[uint32_t(edges[i] & 0xffffffffu)] = 1;
      }
      i = j;
    }
  }

  void buildQuadrics() {
    quadrics_.assign(size_t(in_.vertex_count) * poses_, Quadric{});
    first_normals_.assign(triangles_.size() * poses_ * 3, 0.0);
    for (size_t i = 0; i < triangles_.size(); ++i) {
      const Triangle& t = triangles_[i];
      for (size_t k = 0; k < poses_; ++k) {
        double* n = &first_normals_[(i * poses_ + k) * 3];
        cross(position(k, t[0]), position(k, t[1]), position(k, t[2]), n);
        const double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(length > 0)) continue;  // degenerate in this pose: no plane to keep
        const double unit[3] = {n[0] / length, n[1] / length, n[2] / length};
        const float* p = position(k, t[0]);
        const double d = -(unit[0] * p[0] + unit[1] * p[1] + unit[2] * p[2]);
        for (uint32_t v : t) quadric(v, k).addPlane(unit, d, 0.5 * length);
      }
    }
  }

  // The worst pose's area-weighted RMS distance from `to` to the planes merged into it.
  double collapseCost(uint32_t from, uint32_t to) const {
    double worst = 0;
    for (size_t k = 0; k < poses_; ++k) {
      Quadric q = quadric(from, k);
      q.add(quadric(to, k));
      if (!(q.area > 0)) continue;
      worst = std::max(worst, std::max(0.0, q.evaluate(position(k, to))) / q.area);
    }
    return std::sqrt(worst);
  }

  // The vertices that share a live triangle with v, sorted (collapse keeps each vertex's list to live triangles).
  std::vector<uint32_t> neighbours(uint32_t v) const {
    std::vector<uint32_t> result;
    for (uint32_t t : vertex_triangles_[v]) {
      if (!alive_[t]) continue;
      for (uint32_t w : triangles_[t]) {
        if (w != v) result.push_back(w);
      }
    }
    std::sort(result.begin(), result.end());
    result.erase(std::unique(result.begin(), result.end()), result.end());
    return result;
  }

  static bool contains(const Triangle& t, uint32_t v) { return t[0] == v || t[1] == v || t[2] == v; }

  // The link condition (the surface stays a manifold): every vertex next to both ends spans a triangle with them;
  // and no triangle moved onto `to` duplicates one `to` has already.
  bool keepsManifold(uint32_t from, uint32_t to) const {
    const std::vector<uint32_t> from_ring = neighbours(from);
    const std::vector<uint32_t> to_ring = neighbours(to);
    std::vector<uint32_t> spanned;
    for (uint32_t t : vertex_triangles_[from]) {
      if (!contains(triangles_[t], to)) continue;
      for (uint32_t w : triangles_[t]) {
        if (w != from && w != to) spanned.push_back(w);
      }
    }
    for (uint32_t w : from_ring) {
      if (w == to || !std::binary_search(to_ring.begin(), to_ring.end(), w)) continue;
      if (std::find(spanned.begin(), spanned.end(), w) == spanned.end()) return false;
    }
    for (uint32_t t : vertex_triangles_[from]) {
      const Triangle& moved = triangles_[t];
      if (contains(moved, to)) continue;
      for (uint32_t s : vertex_triangles_[to]) {
        const Triangle& kept = triangles_[s];
        int shared = 0;
        for (uint32_t w : moved) shared += w != from && contains(kept, w);
        if (shared == 2) return false;
      }
    }
    return true;
  }

  // No triangle that moves onto `to` turns over or degenerates at any pose where it had an orientation: each turns by
  // less than about 85 degrees in this collapse, and stays within about 80 degrees of the input triangle it descends
  // from (so a run of small turns cannot fold it either).
  bool keepsOrientation(uint32_t from, uint32_t to) const {
    for (uint32_t t : vertex_triangles_[from]) {
      const Triangle& tri = triangles_[t];
      if (!alive_[t] || contains(tri, to)) continue;
      for (size_t k = 0; k < poses_; ++k) {
        const float* p[3];
        for (int c = 0; c < 3; ++c) p[c] = position(k, tri[size_t(c)]);
        double before[3], after[3];
        cross(p[0], p[1], p[2], before);
        for (int c = 0; c < 3; ++c) {
          if (tri[size_t(c)] == from) p[c] = position(k, to);
        }
        cross(p[0], p[1], p[2], after);
        const double* first = &first_normals_[(size_t(t) * poses_ + k) * 3];
        if (!turnsLessThan(before, after, 0.08) || !turnsLessThan(first, after, 0.17)) return false;
      }
    }
    return true;
  }

  // Whether `after` is within acos(cosine) of `before` and not shrunk to nothing; true where `before` is degenerate.
  static bool turnsLessThan(const double before[3], const double after[3], double cosine) {
    const double b2 = before[0] * before[0] + before[1] * before[1] + before[2] * before[2];
    if (!(b2 > 0)) return true;
    const double a2 = after[0] * after[0] + after[1] * after[1] + after[2] * after[2];
    const double dot = before[0] * after[0] + before[1] * after[1] + before[2] * after[2];
    return dot > cosine * std::sqrt(b2 * a2) && a2 > 1e-12 * b2;
  }

  bool collapseAllowed(uint32_t from, uint32_t to) const {
    return !locked_[from] && keepsManifold(from, to) && keepsOrientation(from, to);
  }

  // `from`'s cheapest allowed collapse onto a neighbour, if any.
  struct Option {
    double cost;
    uint32_t to;
  };
  std::optional<Option> bestOption(uint32_t from) const {
    if (locked_[from] || removed_[from]) return std::nullopt;
    std::vector<std::pair<double, uint32_t>> options;
    for (uint32_t to : neighbours(from)) options.push_back({collapseCost(from, to), to});
    std::sort(options.begin(), options.end());
    for (const auto& [cost, to] : options) {
      if (collapseAllowed(from, to)) return Option{cost, to};
    }
    return std::nullopt;
  }

  // Queues `from`'s cheapest allowed collapse, superseding its earlier entries.
  void pushBest(uint32_t from) {
    ++version_[from];
    if (const std::optional<Option> best = bestOption(from)) queue_.push({best->cost, from, best->to, version_[from]});
  }

  void collapse(uint32_t from, uint32_t to) {
    for (uint32_t t : vertex_triangles_[from]) {
      if (!alive_[t]) continue;
      Triangle& tri = triangles_[t];
      if (contains(tri, to)) {
        alive_[t] = 0;
        --live_;
        for (uint32_t w : tri) {
          if (w != from) std::erase(vertex_triangles_[w], t);
        }
        continue;
      }
      for (uint32_t& w : tri) w = w == from ? to : w;
      vertex_triangles_[to].push_back(t);
    }
    vertex_triangles_[from].clear();
    removed_[from] = 1;
    for (size_t k = 0; k < poses_; ++k) quadric(to, k).add(quadric(from, k));
    // Every vertex whose ring or whose cheapest target changed looks again.
    pushBest(to);
    for (uint32_t w : neighbours(to)) pushBest(w);
  }

  void compact(SimplifyResult& result) const {
    std::vector<uint32_t> remap(in_.vertex_count, std::numeric_limits<uint32_t>::max());
    for (size_t t = 0; t < triangles_.size(); ++t) {
      if (!alive_[t]) continue;
      for (uint32_t v : triangles_[t]) remap[v] = 0;
    }
    for (uint32_t v = 0; v < in_.vertex_count; ++v) {
      if (remap[v] == 0) {
        remap[v] = uint32_t(result.kept_vertices.size());
        result.kept_vertices.push_back(v);
      }
    }
    for (size_t t = 0; t < triangles_.size(); ++t) {
      if (!alive_[t]) continue;
      for (uint32_t v : triangles_[t]) result.indices.push_back(remap[v]);
    }
  }

  const SimplifyInput& in_;
  size_t poses_;
  std::vector<Triangle> triangles_;
  std::vector<uint8_t> alive_;
  std::vector<std::vector<uint32_t>> vertex_triangles_;
  std::vector<uint8_t> locked_, removed_;
  std::vector<uint32_t> version_;
  std::vector<Quadric> quadrics_;      // vertex-major: poses_ per vertex
  std::vector<double> first_normals_;  // per triangle, per pose: its input normal (area-scaled)
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue_;
  uint32_t live_ = 0;
};

}  // namespace

const char* simplifyStopName(SimplifyStop stop) {
  switch (stop) {
    case SimplifyStop::kRatio:
      return "ratio reached";
    case SimplifyStop::kErrorLimit:
      return "error limit reached";
    case SimplifyStop::kNoCollapse:
      return "no collapse left";
  }
  return "?";
}

SimplifyResult simplifyTriangles(const SimplifyInput& input) {
  MORPHKIT_EXPECTS(!input.poses.empty());
  MORPHKIT_EXPECTS(input.indices.size() % 3 == 0);
  MORPHKIT_EXPECTS(input.locked.empty() || input.locked.size() == input.vertex_count);
  MORPHKIT_EXPECTS(input.target_ratio > 0 && input.target_ratio <= 1);
  MORPHKIT_EXPECTS(input.max_error > 0);
  for (std::span<const float> pose : input.poses) MORPHKIT_EXPECTS(pose.size() == 3 * size_t(input.vertex_count));
  for (uint32_t i : input.indices) MORPHKIT_EXPECTS(i < input.vertex_count);
  return Simplifier(input).run();
}

std::vector<uint8_t> sharedPositionVertices(std::span<const float> rest, uint32_t vertex_count) {
  MORPHKIT_EXPECTS(rest.size() == 3 * size_t(vertex_count));
  struct Key {
    uint32_t bits[3];
    bool operator==(const Key& other) const { return std::memcmp(bits, other.bits, sizeof bits) == 0; }
  };
  struct Hash {
    size_t operator()(const Key& k) const {
      return (size_t(k.bits[0]) * 73856093u) ^ (size_t(k.bits[1]) * 19349663u) ^ (size_t(k.bits[2]) * 83492791u);
    }
  };
  std::unordered_map<Key, uint32_t, Hash> first;  // position -> the first vertex there
  std::vector<uint8_t> shared(vertex_count, 0);
  for (uint32_t v = 0; v < vertex_count; ++v) {
    Key key;
    std::memcpy(key.bits, rest.data() + 3 * size_t(v), sizeof key.bits);
    const auto [it, inserted] = first.emplace(key, v);
    if (!inserted) shared[v] = shared[it->second] = 1;
  }
  return shared;
}

}  // namespace morphkit::optimize_detail
