// SPDX-License-Identifier: MIT
// The nearest points of a set to a query, on a uniform grid (pose_error.mjs matches a compressor's vertices to its
// input's with it: the demo face's 20k vertices in a fraction of a second, where comparing every pair takes
// seconds).

// A uniform grid over a point set (x, y, z, ... of `count` points), for the points nearest a query.
export class PointGrid {
  constructor(points, count) {
    this.points = points;
    this.lo = [Infinity, Infinity, Infinity];
    const hi = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < count; i++) {
      for (let a = 0; a < 3; a++) {
        this.lo[a] = Math.min(this.lo[a], points[3 * i + a]);
        hi[a] = Math.max(hi[a], points[3 * i + a]);
      }
    }
    const extent = Math.max(hi[0] - this.lo[0], hi[1] - this.lo[1], hi[2] - this.lo[2], 1e-30);
    this.cell = extent / Math.max(1, Math.cbrt(count));  // cbrt(count) cells a side: a few points a cell on a surface
    this.size = [0, 1, 2].map((a) => Math.floor((hi[a] - this.lo[a]) / this.cell) + 1);
    const keys = new Float64Array(count);
    const order = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      order[i] = i;
      keys[i] = this.key(this.cellOf(points, i));
    }
    order.sort((a, b) => keys[a] - keys[b]);
    this.order = order;
    this.ranges = new Map();
    for (let s = 0; s < count;) {
      let e = s;
      while (e < count && keys[order[e]] === keys[order[s]]) e++;
      this.ranges.set(keys[order[s]], [s, e]);
      s = e;
    }
  }
  cellOf(points, i) { return [0, 1, 2].map((a) => Math.floor((points[3 * i + a] - this.lo[a]) / this.cell)); }
  key([x, y, z]) { return x + this.size[0] * (y + this.size[1] * z); }
  // The points within `slack` of the nearest one to query point q of `queries`, nearest first.
  nearest(queries, q, slack) {
    const c = this.cellOf(queries, q);
    if (c.some((v, a) => v < -2 || v > this.size[a] + 1)) return this.scan(queries, q, slack);
    const found = [];
    let best = Infinity;
    const visit = (x, y, z) => {
      if (x < 0 || y < 0 || z < 0 || x >= this.size[0] || y >= this.size[1] || z >= this.size[2]) return;
      const range = this.ranges.get(this.key([x, y, z]));
      if (!range) return;
      for (let s = range[0]; s < range[1]; s++) {
        const i = this.order[s];
        const d = Math.hypot(
            this.points[3 * i] - queries[3 * q], this.points[3 * i + 1] - queries[3 * q + 1],
            this.points[3 * i + 2] - queries[3 * q + 2]);
        found.push([d, i]);
        best = Math.min(best, d);
      }
    };
    const reach = Math.max(...this.size, ...c.map((v, a) => Math.abs(v) + this.size[a]));
    for (let r = 0; r <= reach; r++) {
      // The cells at Chebyshev distance r; any point beyond them is at least r cells away.
      for (let dx = -r; dx <= r; dx++) {
        for (let dy = -r; dy <= r; dy++) {
          const edge = Math.abs(dx) === r || Math.abs(dy) === r;
          for (let dz = -r; dz <= r; dz += edge ? 1 : 2 * r || 1) visit(c[0] + dx, c[1] + dy, c[2] + dz);
        }
      }
      if (best + slack <= r * this.cell) break;
    }
    return found.filter(([d]) => d <= best + slack).sort((a, b) => a[0] - b[0]).map(([, i]) => i);
  }
  // A query far outside the grid (an output mesh moved away): every point, rather than rings up to it.
  scan(queries, q, slack) {
    const found = [];
    for (let i = 0; i < this.order.length; i++) {
      found.push([
        Math.hypot(
            this.points[3 * i] - queries[3 * q], this.points[3 * i + 1] - queries[3 * q + 1],
            this.points[3 * i + 2] - queries[3 * q + 2]),
        i
      ]);
    }
    const best = Math.min(...found.map(([d]) => d));
    return found.filter(([d]) => d <= best + slack).sort((a, b) => a[0] - b[0]).map(([, i]) => i);
  }
}
