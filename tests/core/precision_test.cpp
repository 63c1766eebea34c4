// SPDX-License-Identifier: MIT
// precision_test.cpp — far from the origin. A small primitive (about 0.17 units across) 22 units from the origin,
// under node transforms that mirror and scale non-uniformly, rigid and skinned. The expected world positions are
// computed here in long double straight from the numbers written into the JSON (an evaluation independent of
// morphkit's scene code), so every path is held to 1e-5 of the primitive's bounding-box diagonal: the CPU
// reference path, the CPU fast path and the GPU compute path. Each prints the error it measured.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gltf_test_util.h"
#include "morphkit/core/pose.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/vk/gpu_pose.h"
#include "vk_test_support.h"

namespace morphkit {
namespace {

using Real = long double;
using M4 = std::array<Real, 16>;  // column-major, as glTF

M4 mul(const M4& a, const M4& b) {
  M4 r{};
  for (int c = 0; c < 4; ++c) {
    for (int row = 0; row < 4; ++row) {
      Real s = 0;
      for (int k = 0; k < 4; ++k) s += a[size_t(k * 4 + row)] * b[size_t(c * 4 + k)];
      r[size_t(c * 4 + row)] = s;
    }
  }
  return r;
}

// glTF 2.0 §3.5.3: T · R · S, the quaternion normalized in long double.
M4 trs(const double t[3], const double q_in[4], const double s[3]) {
  const Real n =
      std::sqrt(Real(q_in[0]) * q_in[0] + Real(q_in[1]) * q_in[1] + Real(q_in[2]) * q_in[2] + Real(q_in[3]) * q_in[3]);
  const Real x = q_in[0] / n, y = q_in[1] / n, z = q_in[2] / n, w = q_in[3] / n;
  const Real r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z),     2 * (x * z - w * y),
                     2 * (x * y - w * z),     1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                     2 * (x * z + w * y),     2 * (y * z - w * x),     1 - 2 * (x * x + y * y)};
  M4 m{};
  for (int c = 0; c < 3; ++c) {
    for (int row = 0; row < 3; ++row) m[size_t(c * 4 + row)] = r[c * 3 + row] * s[c];
  }
  m[12] = t[0], m[13] = t[1], m[14] = t[2], m[15] = 1;
  return m;
}

std::array<Real, 3> place(const M4& m, const float p[3]) {
  std::array<Real, 3> out{};
  for (int row = 0; row < 3; ++row) {
    out[size_t(row)] =
        m[size_t(row)] * p[0] + m[size_t(4 + row)] * p[1] + m[size_t(8 + row)] * p[2] + m[size_t(12 + row)];
  }
  return out;
}

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
std::string nums(const double* v, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + num(v[i]);
  return s + "]";
}

// The scene. Node 0 (root): a matrix = T·R·S with a mirrored, non-uniform scale, 70 units out. Node 1 (its child):
// TRS whose translation brings the subtree back to 22 units from the origin (as a scene offset and a character
// offset that nearly cancel do). Node 2 (child of 1): TRS, mirrored again and non-uniform, holding mesh 0 (rigid).
// Nodes 3 and 4 (children of 1): joints of skin 0, which deforms mesh 1 on node 5 (the same box, weights 0.3 / 0.7
// on the two joints, whose inverse bind matrices are float data).
struct Scene {
  double root_t[3] = {57.312345678912345, -31.123456789123456, 40.987654321098765};
  double target[3] = {21.734567891234567, -3.3112233445566778, 5.9314159265358979};  // where node 1 lands
  double mid_t[3] = {0, 0, 0};                                                       // solved in the constructor
  double mid_q[4] = {0.2236067977, 0.1732050808, -0.3162277660, 0.9055385138};
  double mid_s[3] = {1.3456789, -0.8765432, 1.1234567};
  double root_q[4] = {0.12345678901234, -0.4321098765432, 0.2718281828459, 0.8414709848079};
  double root_s[3] = {-1.2987654321, 0.7123456789, 1.0456789123};
  double child_t[3] = {0.3712345678901, 0.2198765432109, -0.4412345678912};
  double child_q[4] = {-0.3141592653589, 0.1414213562373, 0.5772156649015, 0.7320508075688};
  double child_s[3] = {0.9123456789, -1.1098765432, 0.6543219876};
  double joint_t[2][3] = {{0.5123456789, -0.2345678912, 0.3456789123}, {0.6234567891, -0.1234567891, 0.2345678912}};
  double joint_q[2][4] = {{0.05, 0.1, -0.2, 0.97}, {-0.15, 0.25, 0.1, 0.95}};
  double joint_s[2][3] = {{1.1, -0.9, 1.3}, {0.8, 1.2, -1.05}};
  float ibm[2][16] = {{0.9f, 0.1f, 0.0f, 0, -0.1f, 0.95f, 0.05f, 0, 0.0f, -0.05f, 1.05f, 0, -0.2f, 0.3f, -0.1f, 1},
                      {1.05f, 0.0f, 0.1f, 0, 0.0f, 1.1f, 0.0f, 0, -0.1f, 0.0f, 0.9f, 0, 0.1f, -0.25f, 0.2f, 1}};
  // A box 0.1 across, off its node's origin.
  std::vector<float> box;
  Scene() {
    // glTF rotations are unit quaternions: normalize the literals in double before they are written.
    for (double* q : {root_q, mid_q, child_q, joint_q[0], joint_q[1]}) {
      const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      for (int k = 0; k < 4; ++k) q[k] /= n;
    }
    for (int i = 0; i < 8; ++i) {
      box.push_back(0.031f + ((i & 1) ? 0.03f : -0.03f));
      box.push_back(-0.017f + ((i & 2) ? 0.03f : -0.03f));
      box.push_back(0.023f + ((i & 4) ? 0.03f : -0.03f));
    }
    // mid_t = inverse(root 3×3) · (target − root_t), by Cramer's rule in long double.
    const M4 r = root();
    const Real a[3][3] = {{r[0], r[4], r[8]}, {r[1], r[5], r[9]}, {r[2], r[6], r[10]}};
    const Real b[3] = {target[0] - root_t[0], target[1] - root_t[1], target[2] - root_t[2]};
    auto det3 = [](const Real m[3][3]) {
      return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
             m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    };
    const Real d = det3(a);
    for (int c = 0; c < 3; ++c) {
      Real m[3][3];
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) m[i][j] = j == c ? b[i] : a[i][j];
      }
      mid_t[c] = double(det3(m) / d);
    }
  }

  M4 root() const { return trs(root_t, root_q, root_s); }
  M4 mid() const { return mul(root(), trs(mid_t, mid_q, mid_s)); }
  std::array<std::vector<Real>, 2> expected() const {
    const M4 rigid = mul(mid(), trs(child_t, child_q, child_s));
    M4 joints[2];
    for (int j = 0; j < 2; ++j) {
      M4 ibm_l{};
      for (int k = 0; k < 16; ++k) ibm_l[size_t(k)] = ibm[j][k];
      joints[j] = mul(mul(mid(), trs(joint_t[j], joint_q[j], joint_s[j])), ibm_l);
    }
    std::array<std::vector<Real>, 2> out;
    for (size_t v = 0; v < 8; ++v) {
      const std::array<Real, 3> r = place(rigid, &box[3 * v]);
      const std::array<Real, 3> a = place(joints[0], &box[3 * v]), b = place(joints[1], &box[3 * v]);
      for (int c = 0; c < 3; ++c) {
        out[0].push_back(r[size_t(c)]);
        out[1].push_back(Real(0.3f) * a[size_t(c)] + Real(0.7f) * b[size_t(c)]);
      }
    }
    return out;
  }

  std::string gltf() const {
    test::Bytes bytes;
    for (float f : box) bytes.put<float>(f);                                 // 0: POSITION, 96 bytes
    for (int v = 0; v < 8; ++v) bytes.put<uint8_t>({0, 1, 0, 0});            // 96: JOINTS_0, 32 bytes
    for (int v = 0; v < 8; ++v) bytes.put<float>({0.3f, 0.7f, 0.0f, 0.0f});  // 128: WEIGHTS_0, 128 bytes
    for (const auto& m : ibm) {
      for (float f : m) bytes.put<float>(f);  // 256: inverse bind matrices, 128 bytes
    }
    const M4 r = root();
    double root_matrix[16];
    for (int k = 0; k < 16; ++k) root_matrix[k] = double(r[size_t(k)]);
    const std::string body =
        "\"buffers\":[" + test::bufferJson(bytes.data) +
        "],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":96},{\"buffer\":0,\"byteOffset\":96,\"byteLength\":32},"
        "{\"buffer\":0,\"byteOffset\":128,\"byteLength\":128},{\"buffer\":0,\"byteOffset\":256,\"byteLength\":128}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":8,\"type\":\"VEC3\","
        "\"min\":[0.001,-0.047,-0.007],\"max\":[0.061,0.013,0.053]},"
        "{\"bufferView\":1,\"componentType\":5121,\"count\":8,\"type\":\"VEC4\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":8,\"type\":\"VEC4\"},"
        "{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]},"
        "{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
        "\"skins\":[{\"joints\":[3,4],\"inverseBindMatrices\":3}],"
        "\"nodes\":[{\"matrix\":" +
        nums(root_matrix, 16) +
        ",\"children\":[1]},"
        "{\"translation\":" +
        nums(mid_t, 3) + ",\"rotation\":" + nums(mid_q, 4) + ",\"scale\":" + nums(mid_s, 3) +
        ",\"children\":[2,3,4,5]},"
        "{\"translation\":" +
        nums(child_t, 3) + ",\"rotation\":" + nums(child_q, 4) + ",\"scale\":" + nums(child_s, 3) +
        ",\"mesh\":0},"
        "{\"translation\":" +
        nums(joint_t[0], 3) + ",\"rotation\":" + nums(joint_q[0], 4) + ",\"scale\":" + nums(joint_s[0], 3) +
        "},"
        "{\"translation\":" +
        nums(joint_t[1], 3) + ",\"rotation\":" + nums(joint_q[1], 4) + ",\"scale\":" + nums(joint_s[1], 3) +
        "},"
        "{\"mesh\":1,\"skin\":0}],"
        "\"scenes\":[{\"nodes\":[0]}]";
    return test::gltfJson(body);
  }
};

// |got - expected| / bbox diagonal of the expected positions, the worst over the primitive.
double relativeError(const std::vector<float>& got, const std::vector<Real>& want) {
  Real lo[3] = {1e30L, 1e30L, 1e30L}, hi[3] = {-1e30L, -1e30L, -1e30L};
  for (size_t k = 0; k < want.size(); ++k) {
    lo[k % 3] = std::min(lo[k % 3], want[k]);
    hi[k % 3] = std::max(hi[k % 3], want[k]);
  }
  const Real diagonal = std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                                  (hi[2] - lo[2]) * (hi[2] - lo[2]));
  Real worst = 0;
  for (size_t k = 0; k < want.size(); ++k) worst = std::max(worst, std::fabs(Real(got[k]) - want[k]));
  return double(worst / diagonal);
}

void expectPrecise(const PoseResult& pose, const char* path) {
  const Scene scene;
  const std::array<std::vector<Real>, 2> want = scene.expected();
  ASSERT_EQ(pose.meshes.size(), 2u);
  for (size_t m = 0; m < 2; ++m) {
    ASSERT_EQ(pose.meshes[m].positions.size(), want[m].size());
    const double error = relativeError(pose.meshes[m].positions, want[m]);
    std::printf("  far from the origin, %s, %s: %.3g of the bbox diagonal\n", m == 0 ? "rigid" : "skinned", path,
                error);
    EXPECT_LE(error, 1e-5) << path << (m == 0 ? " rigid" : " skinned");
  }
}

TEST(FarFromOrigin, SceneIsWhatTheTestSays) {
  const Scene scene;
  const std::array<std::vector<Real>, 2> want = scene.expected();
  Real lo[3] = {1e30L, 1e30L, 1e30L}, hi[3] = {-1e30L, -1e30L, -1e30L};
  for (size_t k = 0; k < want[0].size(); ++k) {
    lo[k % 3] = std::min(lo[k % 3], want[0][k]);
    hi[k % 3] = std::max(hi[k % 3], want[0][k]);
  }
  const Real diagonal = std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                                  (hi[2] - lo[2]) * (hi[2] - lo[2]));
  EXPECT_GT(diagonal, 0.1L);
  EXPECT_LT(diagonal, 0.25L);
  EXPECT_GT(std::fabs(want[0][0]), 20.0L);  // 22 units out
  const M4 root = scene.root();
  const Real det = root[0] * (root[5] * root[10] - root[9] * root[6]) -
                   root[4] * (root[1] * root[10] - root[9] * root[2]) +
                   root[8] * (root[1] * root[6] - root[5] * root[2]);
  EXPECT_LT(det, 0.0L);  // mirrored
}

TEST(FarFromOrigin, CpuReferencePathWithin1e5) {
  Expected<Asset> asset = test::loadJson(Scene().gltf());
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  PoseOptions options;
  options.path = CpuPath::kReference;
  Expected<PoseResult> pose = poseAsset(*asset, kNone, options);
  ASSERT_TRUE(pose.ok()) << pose.error().message;
  expectPrecise(*pose, "CPU reference");
}

TEST(FarFromOrigin, CpuFastPathWithin1e5) {
  Expected<Asset> asset = test::loadJson(Scene().gltf());
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  PoseOptions options;
  options.path = CpuPath::kFast;
  Expected<PoseResult> pose = poseAsset(*asset, kNone, options);
  ASSERT_TRUE(pose.ok()) << pose.error().message;
  expectPrecise(*pose, "CPU fast");
}

class FarFromOriginGpu : public test::VulkanTest {};

TEST_F(FarFromOriginGpu, ComputePathWithin1e5) {
  MORPHKIT_REQUIRE_GPU(context_);
  Expected<Asset> asset = test::loadJson(Scene().gltf());
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  Expected<PoseResult> pose = poseAssetGpu(*context_, *asset, kNone, GpuPoseOptions{});
  ASSERT_TRUE(pose.ok()) << pose.error().message;
  expectPrecise(*pose, "GPU compute");
}

}  // namespace
}  // namespace morphkit
