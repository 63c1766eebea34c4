// morphkit/math.h — the little linear algebra the core needs (no third-party dependency).
// Conventions follow glTF: column-major 4x4 matrices, quaternions stored (x, y, z, w).
#pragma once
#include <array>
#include <cmath>

namespace morphkit {

struct Vec3 { float x = 0, y = 0, z = 0; };
struct Vec4 { float x = 0, y = 0, z = 0, w = 0; };
struct Quat { float x = 0, y = 0, z = 0, w = 1; };

// Column-major: m[col * 4 + row], as glTF `node.matrix` stores it.
struct Mat4 {
  std::array<float, 16> m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  float& operator()(int row, int col) { return m[col * 4 + row]; }
  float operator()(int row, int col) const { return m[col * 4 + row]; }
};

inline Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
inline float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline float length(Vec3 a) { return std::sqrt(dot(a, a)); }
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
