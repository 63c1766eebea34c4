// SPDX-License-Identifier: MIT
// The page's matrix helpers: 4×4 column-major Float32Arrays, WebGPU clip space (depth 0..1).
export function mul(a, b) {
  const r = new Float32Array(16);
  for (let c = 0; c < 4; ++c)
    for (let i = 0; i < 4; ++i) {
      let s = 0;
      for (let k = 0; k < 4; ++k) s += a[k * 4 + i] * b[c * 4 + k];
      r[c * 4 + i] = s;
    }
  return r;
}
export function perspective(fovDeg, aspect, near, far) {
  const f = 1 / Math.tan((fovDeg * Math.PI) / 360), r = new Float32Array(16);
  r[0] = f / aspect;
  r[5] = f;
  r[10] = far / (near - far);
  r[11] = -1;
  r[14] = (near * far) / (near - far);
  return r;
}
export function lookAt(eye, target, up = [0, 1, 0]) {
  const sub = (a, b) => a.map((v, i) => v - b[i]);
  const norm = (v) => {
    const l = Math.hypot(...v) || 1;
    return v.map((x) => x / l);
  };
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const z = norm(sub(eye, target)), x = norm(cross(up, z)), y = cross(z, x);
  return new Float32Array(
      [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0, -dot(x, eye), -dot(y, eye), -dot(z, eye), 1]);
}
