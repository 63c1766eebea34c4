// SPDX-License-Identifier: MIT
// morphkit/model/math.h — the little linear algebra the core needs (no third-party dependency).
// Conventions follow glTF: column-major 4x4 matrices, quaternions stored (x, y, z, w).
#pragma once
#include <array>
#include <cmath>
#include <span>
#include <vector>

namespace morphkit {

struct Vec3 {
  float x = 0, y = 0, z = 0;
};
struct Vec4 {
  float x = 0, y = 0, z = 0, w = 0;
};
struct Quat {
  float x = 0, y = 0, z = 0, w = 1;
};

// Column-major: m[col * 4 + row], as glTF `node.matrix` stores it.
struct Mat4 {
  std::array<float, 16> m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  float& operator()(int row, int col) { return m[col * 4 + row]; }
  float operator()(int row, int col) const { return m[col * 4 + row]; }
};

// Double precision for composing transforms: a node hierarchy is composed in double and rounded to float once, by
// whoever needs float (far from the origin, float composition loses the digits a small primitive needs: a float
// at 22 units is only good to 1.9e-6, 1e-5 of a 0.17-unit primitive). Same conventions as the float types.
struct DVec3 {
  double x = 0, y = 0, z = 0;
};
struct DQuat {
  double x = 0, y = 0, z = 0, w = 1;
};
struct DMat4 {
  std::array<double, 16> m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  DMat4() = default;
  DMat4(const Mat4& f) {  // exact (every float is a double); implicit on purpose
    for (size_t i = 0; i < 16; ++i) m[i] = f.m[i];
  }
  double& operator()(int row, int col) { return m[size_t(col * 4 + row)]; }
  double operator()(int row, int col) const { return m[size_t(col * 4 + row)]; }
};

inline DVec3 toDouble(Vec3 v) {
  return {v.x, v.y, v.z};
}
inline DQuat toDouble(Quat q) {
  return {q.x, q.y, q.z, q.w};
}
std::vector<DMat4> toDouble(std::span<const Mat4> matrices);
Mat4 toFloat(const DMat4& m);  // each element rounded once
std::vector<Mat4> toFloat(std::span<const DMat4> matrices);
DMat4 operator*(const DMat4& a, const DMat4& b);
// translation * rotation * scale in double (glTF 2.0 §3.5.3); the rotation is used as stored, like composeTRS.
DMat4 composeTRSDouble(DVec3 t, DQuat r, DVec3 s);

inline Vec3 operator+(Vec3 a, Vec3 b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline Vec3 operator-(Vec3 a, Vec3 b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
inline Vec3 operator*(Vec3 a, float s) {
  return {a.x * s, a.y * s, a.z * s};
}
inline float dot(Vec3 a, Vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline float length(Vec3 a) {
  return std::sqrt(dot(a, a));
}
// Returns `a` unchanged when it has zero length (a degenerate normal stays degenerate, never NaN).
inline Vec3 normalize(Vec3 a) {
  float len = length(a);
  return len > 0.0f ? a * (1.0f / len) : a;
}

Mat4 operator*(const Mat4& a, const Mat4& b);
Vec3 transformPoint(const Mat4& m, Vec3 p);
Vec3 transformVector(const Mat4& m, Vec3 v);  // linear part only
// translation * rotation * scale, the glTF node TRS order (glTF 2.0 §3.5.3).
Mat4 composeTRS(Vec3 t, Quat r, Vec3 s);
// Inverse-transpose of the upper 3x3, stored in a Mat4 with zero translation: transforms normals.
// A singular matrix yields the transposed cofactor matrix, which still gives the right normal direction.
Mat4 normalMatrix(const Mat4& m);
Mat4 inverse(const Mat4& m);  // general 4x4 inverse; a singular matrix returns identity

Quat normalize(Quat q);
// Spherical linear interpolation along the shortest arc (flips b when dot < 0: the double cover).
Quat slerp(Quat a, Quat b, float t);

}  // namespace morphkit
