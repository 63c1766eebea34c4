// SPDX-License-Identifier: MIT
// math.cpp — the linear algebra of morphkit/model/math.h. Column-major matrices, (x, y, z, w) quaternions (glTF 2.0
// §3.5.3).
#include "morphkit/model/math.h"

#include <cmath>
#include <type_traits>

namespace morphkit {

namespace {

// Column-major 4×4 product, accumulated in the matrices' own precision (float for Mat4, double for DMat4).
template <class M>
M multiply(const M& a, const M& b) {
  M r;
  for (int col = 0; col < 4; ++col) {
    for (int row = 0; row < 4; ++row) {
      std::remove_cvref_t<decltype(a(0, 0))> sum = 0;
      for (int k = 0; k < 4; ++k) sum += a(row, k) * b(k, col);
      r(row, col) = sum;
    }
  }
  return r;
}

}  // namespace

Mat4 operator*(const Mat4& a, const Mat4& b) {
  return multiply(a, b);
}

std::vector<DMat4> toDouble(std::span<const Mat4> matrices) {
  return std::vector<DMat4>(matrices.begin(), matrices.end());
}

Mat4 toFloat(const DMat4& m) {
  Mat4 r;
  for (size_t i = 0; i < 16; ++i) r.m[i] = float(m.m[i]);
  return r;
}

std::vector<Mat4> toFloat(std::span<const DMat4> matrices) {
  std::vector<Mat4> out;
  out.reserve(matrices.size());
  for (const DMat4& m : matrices) out.push_back(toFloat(m));
  return out;
}

DMat4 operator*(const DMat4& a, const DMat4& b) {
  return multiply(a, b);
}

DMat4 composeTRSDouble(DVec3 t, DQuat q, DVec3 s) {
  const double x = q.x, y = q.y, z = q.z, w = q.w;
  DMat4 r;
  r(0, 0) = (1 - 2 * (y * y + z * z)) * s.x;
  r(1, 0) = (2 * (x * y + w * z)) * s.x;
  r(2, 0) = (2 * (x * z - w * y)) * s.x;
  r(3, 0) = 0;
  r(0, 1) = (2 * (x * y - w * z)) * s.y;
  r(1, 1) = (1 - 2 * (x * x + z * z)) * s.y;
  r(2, 1) = (2 * (y * z + w * x)) * s.y;
  r(3, 1) = 0;
  r(0, 2) = (2 * (x * z + w * y)) * s.z;
  r(1, 2) = (2 * (y * z - w * x)) * s.z;
  r(2, 2) = (1 - 2 * (x * x + y * y)) * s.z;
  r(3, 2) = 0;
  r(0, 3) = t.x;
  r(1, 3) = t.y;
  r(2, 3) = t.z;
  r(3, 3) = 1;
  return r;
}

Vec3 transformPoint(const Mat4& m, Vec3 p) {
  return {m(0, 0) * p.x + m(0, 1) * p.y + m(0, 2) * p.z + m(0, 3),
          m(1, 0) * p.x + m(1, 1) * p.y + m(1, 2) * p.z + m(1, 3),
          m(2, 0) * p.x + m(2, 1) * p.y + m(2, 2) * p.z + m(2, 3)};
}

Vec3 transformVector(const Mat4& m, Vec3 v) {
  return {m(0, 0) * v.x + m(0, 1) * v.y + m(0, 2) * v.z, m(1, 0) * v.x + m(1, 1) * v.y + m(1, 2) * v.z,
          m(2, 0) * v.x + m(2, 1) * v.y + m(2, 2) * v.z};
}

// glTF 2.0 §3.5.3: M = T * R * S. The rotation is used as stored; callers normalize when they need to
// (the spec requires unit quaternions; normalizing here would hide the non-unit input SimpleSkin has).
Mat4 composeTRS(Vec3 t, Quat q, Vec3 s) {
  const float x = q.x, y = q.y, z = q.z, w = q.w;
  const float xx = x * x, yy = y * y, zz = z * z;
  const float xy = x * y, xz = x * z, yz = y * z;
  const float wx = w * x, wy = w * y, wz = w * z;
  Mat4 r;
  r(0, 0) = (1 - 2 * (yy + zz)) * s.x;
  r(1, 0) = (2 * (xy + wz)) * s.x;
  r(2, 0) = (2 * (xz - wy)) * s.x;
  r(3, 0) = 0;
  r(0, 1) = (2 * (xy - wz)) * s.y;
  r(1, 1) = (1 - 2 * (xx + zz)) * s.y;
  r(2, 1) = (2 * (yz + wx)) * s.y;
  r(3, 1) = 0;
  r(0, 2) = (2 * (xz + wy)) * s.z;
  r(1, 2) = (2 * (yz - wx)) * s.z;
  r(2, 2) = (1 - 2 * (xx + yy)) * s.z;
  r(3, 2) = 0;
  r(0, 3) = t.x;
  r(1, 3) = t.y;
  r(2, 3) = t.z;
  r(3, 3) = 1;
  return r;
}

// Inverse-transpose of A (3x3) = cofactor(A) / det(A). The cofactor matrix alone has the right direction for
// any A (and for a singular A it is the only sensible answer), so we divide by |det| only when det != 0;
// the sign of det is kept so a mirroring transform still flips normals as it must.
Mat4 normalMatrix(const Mat4& m) {
  const double a00 = m(0, 0), a01 = m(0, 1), a02 = m(0, 2);
  const double a10 = m(1, 0), a11 = m(1, 1), a12 = m(1, 2);
  const double a20 = m(2, 0), a21 = m(2, 1), a22 = m(2, 2);
  // Cofactors C(i,j); inverse-transpose(i,j) = C(i,j) / det.
  double c[3][3] = {{a11 * a22 - a12 * a21, -(a10 * a22 - a12 * a20), a10 * a21 - a11 * a20},
                    {-(a01 * a22 - a02 * a21), a00 * a22 - a02 * a20, -(a00 * a21 - a01 * a20)},
                    {a01 * a12 - a02 * a11, -(a00 * a12 - a02 * a10), a00 * a11 - a01 * a10}};
  const double det = a00 * c[0][0] + a01 * c[0][1] + a02 * c[0][2];
  const double scale = det != 0.0 ? 1.0 / det : 1.0;
  Mat4 r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) r(i, j) = float(c[i][j] * scale);
  }
  return r;
}

// Cofactor expansion in double; a singular (or non-finite) matrix returns identity as the header promises.
Mat4 inverse(const Mat4& m) {
  double a[16];
  for (int i = 0; i < 16; ++i) a[i] = m.m[size_t(i)];
  double inv[16];
  inv[0] = a[5] * a[10] * a[15] - a[5] * a[11] * a[14] - a[9] * a[6] * a[15] + a[9] * a[7] * a[14] +
           a[13] * a[6] * a[11] - a[13] * a[7] * a[10];
  inv[4] = -a[4] * a[10] * a[15] + a[4] * a[11] * a[14] + a[8] * a[6] * a[15] - a[8] * a[7] * a[14] -
           a[12] * a[6] * a[11] + a[12] * a[7] * a[10];
  inv[8] = a[4] * a[9] * a[15] - a[4] * a[11] * a[13] - a[8] * a[5] * a[15] + a[8] * a[7] * a[13] +
           a[12] * a[5] * a[11] - a[12] * a[7] * a[9];
  inv[12] = -a[4] * a[9] * a[14] + a[4] * a[10] * a[13] + a[8] * a[5] * a[14] - a[8] * a[6] * a[13] -
            a[12] * a[5] * a[10] + a[12] * a[6] * a[9];
  inv[1] = -a[1] * a[10] * a[15] + a[1] * a[11] * a[14] + a[9] * a[2] * a[15] - a[9] * a[3] * a[14] -
           a[13] * a[2] * a[11] + a[13] * a[3] * a[10];
  inv[5] = a[0] * a[10] * a[15] - a[0] * a[11] * a[14] - a[8] * a[2] * a[15] + a[8] * a[3] * a[14] +
           a[12] * a[2] * a[11] - a[12] * a[3] * a[10];
  inv[9] = -a[0] * a[9] * a[15] + a[0] * a[11] * a[13] + a[8] * a[1] * a[15] - a[8] * a[3] * a[13] -
           a[12] * a[1] * a[11] + a[12] * a[3] * a[9];
  inv[13] = a[0] * a[9] * a[14] - a[0] * a[10] * a[13] - a[8] * a[1] * a[14] + a[8] * a[2] * a[13] +
            a[12] * a[1] * a[10] - a[12] * a[2] * a[9];
  inv[2] = a[1] * a[6] * a[15] - a[1] * a[7] * a[14] - a[5] * a[2] * a[15] + a[5] * a[3] * a[14] + a[13] * a[2] * a[7] -
           a[13] * a[3] * a[6];
  inv[6] = -a[0] * a[6] * a[15] + a[0] * a[7] * a[14] + a[4] * a[2] * a[15] - a[4] * a[3] * a[14] -
           a[12] * a[2] * a[7] + a[12] * a[3] * a[6];
  inv[10] = a[0] * a[5] * a[15] - a[0] * a[7] * a[13] - a[4] * a[1] * a[15] + a[4] * a[3] * a[13] +
            a[12] * a[1] * a[7] - a[12] * a[3] * a[5];
  inv[14] = -a[0] * a[5] * a[14] + a[0] * a[6] * a[13] + a[4] * a[1] * a[14] - a[4] * a[2] * a[13] -
            a[12] * a[1] * a[6] + a[12] * a[2] * a[5];
  inv[3] = -a[1] * a[6] * a[11] + a[1] * a[7] * a[10] + a[5] * a[2] * a[11] - a[5] * a[3] * a[10] - a[9] * a[2] * a[7] +
           a[9] * a[3] * a[6];
  inv[7] = a[0] * a[6] * a[11] - a[0] * a[7] * a[10] - a[4] * a[2] * a[11] + a[4] * a[3] * a[10] + a[8] * a[2] * a[7] -
           a[8] * a[3] * a[6];
  inv[11] = -a[0] * a[5] * a[11] + a[0] * a[7] * a[9] + a[4] * a[1] * a[11] - a[4] * a[3] * a[9] - a[8] * a[1] * a[7] +
            a[8] * a[3] * a[5];
  inv[15] = a[0] * a[5] * a[10] - a[0] * a[6] * a[9] - a[4] * a[1] * a[10] + a[4] * a[2] * a[9] + a[8] * a[1] * a[6] -
            a[8] * a[2] * a[5];
  const double det = a[0] * inv[0] + a[1] * inv[4] + a[2] * inv[8] + a[3] * inv[12];
  if (det == 0.0 || !std::isfinite(det)) return Mat4{};
  Mat4 r;
  for (int i = 0; i < 16; ++i) r.m[size_t(i)] = float(inv[i] / det);
  return r;
}

Quat normalize(Quat q) {
  const float len = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  if (!(len > 0.0f)) return q;  // zero (or NaN) length: left as is, never divided by zero
  const float inv = 1.0f / len;
  return {q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}

// glTF 2.0 Appendix C (spherical linear interpolation): flip `b` when dot < 0 so the path is the shorter
// of the two arcs (q and -q are the same rotation). Near-parallel inputs (sin θ ≈ 0) use normalized lerp,
// which is the limit of slerp there and avoids dividing by ~0.
Quat slerp(Quat a, Quat b, float t) {
  // Exact ends and equal keys return the stored value untouched (slerp(a, a, t) = a), so a key that is not
  // exactly unit length (SimpleSkin stores 0.707) is reproduced as the file has it, as three.js does.
  if (t == 0.0f || (a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w)) return a;
  if (t == 1.0f) return b;
  double d = double(a.x) * b.x + double(a.y) * b.y + double(a.z) * b.z + double(a.w) * b.w;
  double bx = b.x, by = b.y, bz = b.z, bw = b.w;
  if (d < 0.0) {
    d = -d;
    bx = -bx, by = -by, bz = -bz, bw = -bw;
  }
  double wa, wb;
  if (d > 0.9995) {
    wa = 1.0 - t;
    wb = t;
    Quat r{float(wa * a.x + wb * bx), float(wa * a.y + wb * by), float(wa * a.z + wb * bz), float(wa * a.w + wb * bw)};
    return normalize(r);
  }
  const double theta = std::acos(d);
  const double sin_theta = std::sin(theta);
  wa = std::sin((1.0 - t) * theta) / sin_theta;
  wb = std::sin(t * theta) / sin_theta;
  return {float(wa * a.x + wb * bx), float(wa * a.y + wb * by), float(wa * a.z + wb * bz), float(wa * a.w + wb * bw)};
}

}  // namespace morphkit
