// SPDX-License-Identifier: MIT
// The built-in demo asset (morphkit/demo/demo.h, docs/DEMO.md). Everything is computed from the options and a
// seeded splitmix64 generator with our own uniform mapping, so the bytes are identical on every platform.
#include "morphkit/demo/demo.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "demo_internal.h"
#include "morphkit/gltf/glb_writer.h"

namespace morphkit {

using namespace demo_detail;

namespace {

// A facial shape: where it acts (angles on the head, degrees; azimuth + toward the character's left = +x,
// 0 = front = +z; elevation + up) and how it moves (object-space displacement at the centre, head units).
// `mirror`: the shape acts on both sides (x mirrored), like cheekPuff.
struct ShapeSpec {
  const char* name;
  float azimuth, elevation;
  float dx, dy, dz;
  Region region;
  bool mirror = false;
};

// The 52 ARKit blend shapes, in ARKit's documented order.
constexpr std::array<ShapeSpec, 52> kArkitShapes = {{
    {"eyeBlinkLeft", 30, 12, 0, -0.08f, 0.01f, Region::kBlink},
    {"eyeLookDownLeft", 30, 12, 0, -0.03f, 0, Region::kEye},
    {"eyeLookInLeft", 30, 12, -0.03f, 0, 0, Region::kEye},
    {"eyeLookOutLeft", 30, 12, 0.03f, 0, 0, Region::kEye},
    {"eyeLookUpLeft", 30, 12, 0, 0.03f, 0, Region::kEye},
    {"eyeSquintLeft", 30, 8, 0, 0.03f, -0.01f, Region::kEye},
    {"eyeWideLeft", 30, 14, 0, 0.05f, 0.01f, Region::kEye},
    {"eyeBlinkRight", -30, 12, 0, -0.08f, 0.01f, Region::kBlink},
    {"eyeLookDownRight", -30, 12, 0, -0.03f, 0, Region::kEye},
    {"eyeLookInRight", -30, 12, 0.03f, 0, 0, Region::kEye},
    {"eyeLookOutRight", -30, 12, -0.03f, 0, 0, Region::kEye},
    {"eyeLookUpRight", -30, 12, 0, 0.03f, 0, Region::kEye},
    {"eyeSquintRight", -30, 8, 0, 0.03f, -0.01f, Region::kEye},
    {"eyeWideRight", -30, 14, 0, 0.05f, 0.01f, Region::kEye},
    {"jawForward", 0, -55, 0, 0, 0.08f, Region::kJaw},
    {"jawLeft", 0, -55, 0.08f, 0, 0, Region::kJaw},
    {"jawRight", 0, -55, -0.08f, 0, 0, Region::kJaw},
    {"jawOpen", 0, -52, 0, -0.15f, -0.02f, Region::kJaw},
    {"mouthClose", 0, -30, 0, 0.04f, 0, Region::kMouth},
    {"mouthFunnel", 0, -30, 0, 0, 0.06f, Region::kMouth},
    {"mouthPucker", 0, -30, 0, 0, 0.08f, Region::kMouth},
    {"mouthLeft", 0, -30, 0.06f, 0, 0, Region::kMouth},
    {"mouthRight", 0, -30, -0.06f, 0, 0, Region::kMouth},
    {"mouthSmileLeft", 22, -30, 0.03f, 0.05f, -0.01f, Region::kMouth},
    {"mouthSmileRight", -22, -30, -0.03f, 0.05f, -0.01f, Region::kMouth},
    {"mouthFrownLeft", 22, -30, 0.01f, -0.05f, 0, Region::kMouth},
    {"mouthFrownRight", -22, -30, -0.01f, -0.05f, 0, Region::kMouth},
    {"mouthDimpleLeft", 24, -28, 0.02f, 0, -0.03f, Region::kMouth},
    {"mouthDimpleRight", -24, -28, -0.02f, 0, -0.03f, Region::kMouth},
    {"mouthStretchLeft", 22, -32, 0.05f, -0.01f, 0, Region::kMouth},
    {"mouthStretchRight", -22, -32, -0.05f, -0.01f, 0, Region::kMouth},
    {"mouthRollLower", 0, -36, 0, 0.01f, -0.04f, Region::kMouth},
    {"mouthRollUpper", 0, -24, 0, -0.01f, -0.04f, Region::kMouth},
    {"mouthShrugLower", 0, -38, 0, 0.03f, 0.02f, Region::kMouth},
    {"mouthShrugUpper", 0, -24, 0, 0.03f, 0.01f, Region::kMouth},
    {"mouthPressLeft", 20, -30, 0, 0, -0.02f, Region::kMouth},
    {"mouthPressRight", -20, -30, 0, 0, -0.02f, Region::kMouth},
    {"mouthLowerDownLeft", 10, -36, 0, -0.05f, 0, Region::kMouth},
    {"mouthLowerDownRight", -10, -36, 0, -0.05f, 0, Region::kMouth},
    {"mouthUpperUpLeft", 10, -24, 0, 0.05f, 0, Region::kMouth},
    {"mouthUpperUpRight", -10, -24, 0, 0.05f, 0, Region::kMouth},
    {"browDownLeft", 28, 28, 0, -0.05f, 0, Region::kBrow},
    {"browDownRight", -28, 28, 0, -0.05f, 0, Region::kBrow},
    {"browInnerUp", 0, 26, 0, 0.06f, 0, Region::kBrow},
    {"browOuterUpLeft", 38, 28, 0, 0.06f, 0, Region::kBrow},
    {"browOuterUpRight", -38, 28, 0, 0.06f, 0, Region::kBrow},
    {"cheekPuff", 40, -15, 0.06f, 0, 0.04f, Region::kCheek, true},
    {"cheekSquintLeft", 40, -5, 0, 0.04f, 0, Region::kCheek},
    {"cheekSquintRight", -40, -5, 0, 0.04f, 0, Region::kCheek},
    {"noseSneerLeft", 10, 0, 0, 0.04f, 0, Region::kNose},
    {"noseSneerRight", -10, 0, 0, 0.04f, 0, Region::kNose},
    {"tongueOut", 0, -33, 0, -0.02f, 0.1f, Region::kMouth},
}};

// The UV-sphere grid: a top pole (vertex 0), `rings` rings of `columns` vertices (vertex 1 + ring*columns
// + column), a bottom pole (last vertex). No vertex is duplicated, so the index buffer alone is closed.
struct Grid {
  uint32_t columns = 0, rings = 0;
  uint32_t vertexCount() const { return rings * columns + 2; }
  uint32_t at(uint32_t ring, uint32_t column) const { return 1 + ring * columns + column % columns; }
  uint32_t bottom() const { return vertexCount() - 1; }
};

// The grid whose vertex count is closest to `vertices` with about twice as many columns as rings.
Grid chooseGrid(uint32_t vertices) {
  double inner = double(vertices) - 2.0;
  uint32_t c0 = std::max<uint32_t>(3, uint32_t(std::lround(std::sqrt(2.0 * inner))));
  Grid best;
  double best_error = 1e300;
  uint32_t lo = std::max<uint32_t>(3, uint32_t(c0 * 0.8)), hi = std::max<uint32_t>(lo, uint32_t(c0 * 1.25) + 1);
  for (uint32_t c = lo; c <= hi; ++c) {
    uint32_t r = std::max<uint32_t>(1, uint32_t(std::lround(inner / c)));
    double error = std::abs(double(r) * c + 2 - double(vertices)) + 1e-6 * std::abs(double(c) - c0);
    if (error < best_error) {
      best_error = error;
      best = {c, r};
    }
  }
  return best;
}

// Unit direction for azimuth θ (0 = +z, +π/2 = +x) and polar angle φ from +y.
Vec3 direction(float theta, float phi) {
  return {std::sin(phi) * std::sin(theta), std::cos(phi), std::sin(phi) * std::cos(theta)};
}

float gaussian(float x, float sigma) {
  return std::exp(-(x * x) / (sigma * sigma));
}

float wrapAngle(float a) {
  while (a > kPi) a -= 2 * kPi;
  while (a < -kPi) a += 2 * kPi;
  return a;
}

// The head: an ellipsoid (narrower than tall, a bit deep) with radial bumps for the nose, brow ridge and
// chin, narrowed at the jaw. Radial bumps keep the surface star-shaped, so it never self-intersects.
Vec3 headPoint(float theta, float phi) {
  Vec3 d = direction(theta, phi);
  float elevation = kPi / 2 - phi;
  float front = std::max(0.0f, d.z);
  float bump = 0.14f * gaussian(wrapAngle(theta), 0.16f) * gaussian(elevation + 0.02f, 0.2f)    // nose
               + 0.05f * front * front * gaussian(elevation - 0.42f, 0.12f)                     // brow ridge
               + 0.06f * gaussian(wrapAngle(theta), 0.35f) * gaussian(elevation + 1.0f, 0.2f);  // chin
  float jaw = 1.0f - 0.18f * std::max(0.0f, -d.y) * std::max(0.0f, -d.y);
  float r = 1.0f + bump;
  return {0.80f * d.x * jaw * r, 1.0f * d.y * r, 0.90f * d.z * r};
}

Vec3 headPointDegrees(float azimuth, float elevation) {
  return headPoint(azimuth * kPi / 180.0f, kPi / 2 - elevation * kPi / 180.0f);
}

// Area-weighted vertex normals need each vertex's triangles: compressed rows (offsets + triangle ids).
struct VertexTriangles {
  std::vector<uint32_t> offsets, triangles;
};

VertexTriangles buildVertexTriangles(const std::vector<uint32_t>& indices, uint32_t vertex_count) {
  VertexTriangles vt;
  vt.offsets.assign(vertex_count + 1, 0);
  for (uint32_t v : indices) ++vt.offsets[v + 1];
  for (uint32_t v = 0; v < vertex_count; ++v) vt.offsets[v + 1] += vt.offsets[v];
  vt.triangles.resize(indices.size());
  std::vector<uint32_t> fill(vt.offsets.begin(), vt.offsets.end() - 1);
  for (size_t i = 0; i < indices.size(); ++i) vt.triangles[fill[indices[i]]++] = uint32_t(i / 3);
  return vt;
}

// The surface geometry shared by the base mesh and every morphed copy: normals and tangents are always
// recomputed by these two functions, so a target's normal/tangent deltas are exactly zero wherever its
// position deltas cannot reach (outside the moved vertices and their one-ring).
struct Surface {
  Grid grid;
  std::vector<uint32_t> indices;
  VertexTriangles vertex_triangles;

  template <class Position>
  Vec3 normalAt(uint32_t v, const Position& position) const {
    Vec3 sum;
    for (uint32_t k = vertex_triangles.offsets[v]; k < vertex_triangles.offsets[v + 1]; ++k) {
      uint32_t t = vertex_triangles.triangles[k];
      Vec3 a = position(indices[3 * t]), b = position(indices[3 * t + 1]), c = position(indices[3 * t + 2]);
      sum = sum + cross(b - a, c - a);  // |cross| = 2 × area: area weighting for free
    }
    return normalize(sum);
  }

  // Tangent along increasing u (glTF 2.0 §3.7.2.1: XYZ unit, W = ±1 handedness). u = 1 - |1 - 2j/C|
  // mirrors the texture left/right, so T flips on the second half and W flips with it; W is chosen so
  // that cross(N, T) × W points toward increasing v (down the head).
  template <class Position>
  Vec4 tangentAt(uint32_t v, Vec3 n, const Position& position) const {
    const uint32_t c = grid.columns;
    Vec3 along;
    Vec3 down;
    if (v == 0 || v == grid.bottom()) {
      along = {1, 0, 0};
      down = v == 0 ? Vec3{0, 0, 1} : Vec3{0, 0, -1};  // any direction off the pole; only W depends on it
    } else {
      uint32_t ring = (v - 1) / c, column = (v - 1) % c;
      bool second_half = 2 * column >= c;
      along = position(grid.at(ring, column + 1)) - position(grid.at(ring, column + c - 1));
      if (second_half) along = along * -1.0f;
      uint32_t up_v = ring == 0 ? 0 : grid.at(ring - 1, column);
      uint32_t down_v = ring + 1 == grid.rings ? grid.bottom() : grid.at(ring + 1, column);
      down = position(down_v) - position(up_v);
    }
    Vec3 t = normalize(along - n * dot(along, n));
    if (length(t) < 0.5f) t = normalize(cross(n, Vec3{0, 0, 1}));  // degenerate: any unit vector ⟂ n
    float w = dot(cross(n, t), down) >= 0 ? 1.0f : -1.0f;
    return {t.x, t.y, t.z, w};
  }
};

std::string formatIndex(uint32_t i) {
  std::string digits = std::to_string(i);
  return std::string(digits.size() < 3 ? 3 - digits.size() : 0, '0') + digits;
}

std::string outOfBounds(const char* option, uint64_t value, uint64_t lo, uint64_t hi) {
  return std::string("make-demo: ") + option + " " + std::to_string(value) + " outside " + std::to_string(lo) + ".." +
         std::to_string(hi);
}

struct BaseGeometry {
  std::vector<float> position, texcoord, normal, tangent;
};
Status checkDemoOptions(const DemoOptions& options) {
  if (options.targets > kDemoMaxTargets)
    return fail(Error::kInvalidArgument, outOfBounds("targets", options.targets, 0, kDemoMaxTargets));
  if (options.vertices < kDemoMinVertices || options.vertices > kDemoMaxVertices)
    return fail(Error::kInvalidArgument, outOfBounds("vertices", options.vertices, kDemoMinVertices, kDemoMaxVertices));
  if (options.bones < kDemoMinBones || options.bones > kDemoMaxBones)
    return fail(Error::kInvalidArgument, outOfBounds("bones", options.bones, kDemoMinBones, kDemoMaxBones));
  if (options.texture_size < kDemoMinTextureSize || options.texture_size > kDemoMaxTextureSize) {
    return fail(Error::kInvalidArgument,
                outOfBounds("texture-size", options.texture_size, kDemoMinTextureSize, kDemoMaxTextureSize));
  }
  if (uint64_t(options.targets) * options.vertices > kDemoMaxTargetVertices) {
    return fail(Error::kInvalidArgument,
                "make-demo: targets × vertices = " + std::to_string(uint64_t(options.targets) * options.vertices) +
                    " exceeds " + std::to_string(kDemoMaxTargetVertices) +
                    " (the dense deltas would take over 600 MB)");
  }
  return Ok{};
}

// The base head: a UV sphere of `surface.grid` (poles at top and bottom), its triangles (filled into `surface`),
// normals and tangents from the surface.
BaseGeometry buildBaseGeometry(Surface& surface) {
  const Grid& grid = surface.grid;
  const uint32_t vertex_count = grid.vertexCount();
  BaseGeometry g;
  std::vector<float>& position = g.position;
  std::vector<float>& texcoord = g.texcoord;
  position.assign(3 * size_t(vertex_count), 0.0f);
  texcoord.assign(2 * size_t(vertex_count), 0.0f);
  auto ringPhi = [&](uint32_t ring) { return kPi * float(ring + 1) / float(grid.rings + 1); };
  auto columnTheta = [&](uint32_t column) { return 2 * kPi * float(column) / float(grid.columns) - kPi; };
  store3(position, 0, headPoint(0, 0));
  texcoord[0] = 0.5f;
  texcoord[1] = 0.0f;
  for (uint32_t ring = 0; ring < grid.rings; ++ring) {
    for (uint32_t column = 0; column < grid.columns; ++column) {
      uint32_t v = grid.at(ring, column);
      store3(position, v, headPoint(columnTheta(column), ringPhi(ring)));
      texcoord[2 * v] = 1.0f - std::abs(1.0f - 2.0f * float(column) / float(grid.columns));
      texcoord[2 * v + 1] = float(ring + 1) / float(grid.rings + 1);
    }
  }
  store3(position, grid.bottom(), headPoint(0, kPi));
  texcoord[2 * grid.bottom()] = 0.5f;
  texcoord[2 * grid.bottom() + 1] = 1.0f;

  // Counter-clockwise seen from outside (glTF 2.0 §3.7.2.1: front faces are CCW).
  std::vector<uint32_t>& indices = surface.indices;
  indices.reserve(size_t(6) * grid.columns * grid.rings);
  for (uint32_t j = 0; j < grid.columns; ++j) {
    indices.insert(indices.end(), {0u, grid.at(0, j), grid.at(0, j + 1)});
  }
  for (uint32_t i = 0; i + 1 < grid.rings; ++i) {
    for (uint32_t j = 0; j < grid.columns; ++j) {
      uint32_t a = grid.at(i, j), b = grid.at(i, j + 1), c = grid.at(i + 1, j), d = grid.at(i + 1, j + 1);
      indices.insert(indices.end(), {a, c, b, b, c, d});
    }
  }
  for (uint32_t j = 0; j < grid.columns; ++j) {
    indices.insert(indices.end(), {grid.at(grid.rings - 1, j), grid.bottom(), grid.at(grid.rings - 1, j + 1)});
  }
  surface.vertex_triangles = buildVertexTriangles(indices, vertex_count);

  auto basePosition = [&](uint32_t v) { return load3(position, v); };
  std::vector<float>& normal = g.normal;
  std::vector<float>& tangent = g.tangent;
  normal.assign(3 * size_t(vertex_count), 0.0f);
  tangent.assign(4 * size_t(vertex_count), 0.0f);
  for (uint32_t v = 0; v < vertex_count; ++v) store3(normal, v, surface.normalAt(v, basePosition));
  for (uint32_t v = 0; v < vertex_count; ++v) {
    Vec4 t = surface.tangentAt(v, load3(normal, v), basePosition);
    tangent[4 * v] = t.x;
    tangent[4 * v + 1] = t.y;
    tangent[4 * v + 2] = t.z;
    tangent[4 * v + 3] = t.w;
  }
  return g;
}

// The primitive's base attributes and indices, appended to the asset's buffer.
Primitive appendBaseAttributes(Asset& asset, const BaseGeometry& g, const SkinStreams& skin,
                               const std::vector<uint32_t>& indices) {
  const uint32_t vertex_count = uint32_t(g.position.size() / 3);
  const std::vector<float>& position = g.position;
  const std::vector<float>& normal = g.normal;
  const std::vector<float>& tangent = g.tangent;
  const std::vector<float>& texcoord = g.texcoord;
  const std::vector<uint8_t>& joints = skin.joints;
  const std::vector<float>& skin_weights = skin.weights;
  const AccessorType kScalar = AccessorType::kScalar, kVec3 = AccessorType::kVec3;
  Primitive primitive;
  primitive.attributes.push_back({"POSITION", appendAccessor(asset, std::span<const float>(position), kVec3,
                                                             {.target = kArrayBuffer, .min_max = true})});
  primitive.attributes.push_back(
      {"NORMAL", appendAccessor(asset, std::span<const float>(normal), kVec3, {.target = kArrayBuffer})});
  primitive.attributes.push_back({"TANGENT", appendAccessor(asset, std::span<const float>(tangent), AccessorType::kVec4,
                                                            {.target = kArrayBuffer})});
  primitive.attributes.push_back({"TEXCOORD_0", appendAccessor(asset, std::span<const float>(texcoord),
                                                               AccessorType::kVec2, {.target = kArrayBuffer})});
  primitive.attributes.push_back({"JOINTS_0", appendAccessor(asset, std::span<const uint8_t>(joints),
                                                             AccessorType::kVec4, {.target = kArrayBuffer})});
  primitive.attributes.push_back({"WEIGHTS_0", appendAccessor(asset, std::span<const float>(skin_weights),
                                                              AccessorType::kVec4, {.target = kArrayBuffer})});
  if (vertex_count <= 65535) {
    // §3.7.2.1: indices must not use the primitive-restart value (65535 for u16).
    std::vector<uint16_t> small(indices.begin(), indices.end());
    primitive.indices =
        appendAccessor(asset, std::span<const uint16_t>(small), kScalar, {.target = kElementArrayBuffer});
  } else {
    primitive.indices =
        appendAccessor(asset, std::span<const uint32_t>(indices), kScalar, {.target = kElementArrayBuffer});
  }
  primitive.material = 0;
  return primitive;
}

// Scratch space of the target loop, reused from target to target.
struct TargetScratch {
  std::vector<float> distance, scratch, dpos, dnormal, dtangent;
  std::vector<uint32_t> stamp, moved, affected;
  std::vector<uint8_t> mirrored;
  explicit TargetScratch(uint32_t vertex_count)
      : distance(vertex_count),
        scratch(vertex_count),
        dpos(3 * size_t(vertex_count)),
        dnormal(3 * size_t(vertex_count)),
        dtangent(3 * size_t(vertex_count)),
        stamp(vertex_count, 0),
        mirrored(vertex_count, 0) {}
};

// Morph target t: an ARKit shape (or a seeded extra one) displacing a smooth region of the head, with the normal
// and tangent deltas of exactly the vertices it changes. Appended to `primitive` and `mesh`; returns its region.
Region appendMorphTarget(Asset& asset, uint32_t t, const Surface& surface, const BaseGeometry& g, Rng& rng,
                         TargetScratch& work, Primitive& primitive, Mesh& mesh) {
  const uint32_t vertex_count = surface.grid.vertexCount();
  const AccessorType kVec3 = AccessorType::kVec3;
  const std::vector<float>& position = g.position;
  const std::vector<float>& normal = g.normal;
  const std::vector<float>& tangent = g.tangent;
  const std::vector<uint32_t>& indices = surface.indices;
  std::vector<float>&distance = work.distance, &scratch = work.scratch, &dpos = work.dpos, &dnormal = work.dnormal,
  &dtangent = work.dtangent;
  std::vector<uint32_t>&stamp = work.stamp, &moved = work.moved, &affected = work.affected;
  std::vector<uint8_t>& mirrored = work.mirrored;

  ShapeSpec spec{};
  if (t < kArkitShapes.size()) {
    spec = kArkitShapes[t];
  } else {
    Vec3 dir = normalize(Vec3{rng.range(-1, 1), rng.range(-1, 1), rng.range(-1, 1)});
    float amount = rng.range(0.03f, 0.1f);
    spec = {
        "", rng.range(-100, 100), rng.range(-60, 60), dir.x * amount, dir.y * amount, dir.z * amount, Region::kExtra};
  }
  // Small seeded jitter: shapes differ per seed, and exact distance ties between vertices are avoided.
  float azimuth = spec.azimuth + rng.range(-2, 2), elevation = spec.elevation + rng.range(-2, 2);
  float scale = rng.range(0.8f, 1.2f);
  float fraction = rng.range(0.04f, 0.12f);
  Vec3 center = headPointDegrees(azimuth, elevation);
  Vec3 mirror_center{-center.x, center.y, center.z};
  for (uint32_t v = 0; v < vertex_count; ++v) {
    Vec3 p = load3(position, v);
    float d = length(p - center);
    mirrored[v] = 0;
    if (spec.mirror) {
      float dm = length(p - mirror_center);
      if (dm < d) d = dm, mirrored[v] = 1;
    }
    distance[v] = d;
  }
  // The region: the k nearest vertices, k between 3 % and 15 % of the mesh (at least one vertex).
  uint32_t lo = std::max<uint32_t>(1, uint32_t(std::ceil(0.03 * vertex_count)));
  uint32_t hi = std::max<uint32_t>(lo, uint32_t(std::floor(0.15 * vertex_count)));
  uint32_t k = std::clamp<uint32_t>(uint32_t(std::lround(fraction * vertex_count)), lo, hi);
  scratch = distance;
  std::nth_element(scratch.begin(), scratch.begin() + (k - 1), scratch.end());
  float dk1 = scratch[k - 1];
  float dk = k < vertex_count ? *std::min_element(scratch.begin() + k, scratch.end()) : dk1 * 2 + 1;
  float radius = dk > dk1 ? dk : dk1 * 1.0001f + 1e-6f;

  std::fill(dpos.begin(), dpos.end(), 0.0f);
  std::fill(dnormal.begin(), dnormal.end(), 0.0f);
  std::fill(dtangent.begin(), dtangent.end(), 0.0f);
  moved.clear();
  Vec3 disp{spec.dx * scale, spec.dy * scale, spec.dz * scale};
  for (uint32_t v = 0; v < vertex_count; ++v) {
    if (distance[v] >= radius) continue;
    float x = distance[v] / radius;
    float falloff = (1 - x * x) * (1 - x * x);  // C1 at the border: no crease where the region ends
    Vec3 dv = disp * falloff;
    if (mirrored[v]) dv.x = -dv.x;
    if (dv.x == 0 && dv.y == 0 && dv.z == 0) continue;
    store3(dpos, v, dv);
    moved.push_back(v);
  }
  // Normals and tangents change on the moved vertices and their one-ring: recompute exactly those.
  const uint32_t mark = t + 1;
  affected.clear();
  for (uint32_t v : moved) {
    for (uint32_t q = surface.vertex_triangles.offsets[v]; q < surface.vertex_triangles.offsets[v + 1]; ++q) {
      uint32_t tri = surface.vertex_triangles.triangles[q];
      for (int corner = 0; corner < 3; ++corner) {
        uint32_t a = indices[3 * tri + corner];
        if (stamp[a] != mark) stamp[a] = mark, affected.push_back(a);
      }
    }
  }
  auto morphedPosition = [&](uint32_t v) { return load3(position, v) + load3(dpos, v); };
  for (uint32_t v : affected) {
    Vec3 n = surface.normalAt(v, morphedPosition);
    Vec4 tg = surface.tangentAt(v, n, morphedPosition);
    store3(dnormal, v, n - load3(normal, v));
    store3(dtangent, v, Vec3{tg.x - tangent[4 * v], tg.y - tangent[4 * v + 1], tg.z - tangent[4 * v + 2]});
  }
  MorphTarget target;
  // §3.7.2.2: a target's POSITION accessor must have min and max too.
  target.attributes.push_back({"POSITION", appendAccessor(asset, std::span<const float>(dpos), kVec3,
                                                          {.target = kArrayBuffer, .min_max = true})});
  target.attributes.push_back(
      {"NORMAL", appendAccessor(asset, std::span<const float>(dnormal), kVec3, {.target = kArrayBuffer})});
  target.attributes.push_back(
      {"TANGENT", appendAccessor(asset, std::span<const float>(dtangent), kVec3, {.target = kArrayBuffer})});
  primitive.targets.push_back(std::move(target));
  mesh.target_names.push_back(demoTargetName(t));
  return spec.region;
}

}  // namespace

std::string demoTargetName(uint32_t index) {
  if (index < kArkitShapes.size()) return kArkitShapes[index].name;
  return "extra" + formatIndex(index);
}

Expected<Asset> makeDemoAsset(const DemoOptions& options) {
  if (Status s = checkDemoOptions(options); !s) return s.error();
  Rng rng{options.seed ^ 0x6D6F7270686B6974ull};  // "morphkit"
  Surface surface;
  surface.grid = chooseGrid(options.vertices);
  const BaseGeometry geometry = buildBaseGeometry(surface);
  const DemoRig rig = makeRig(options.bones);
  const SkinStreams skin = bindSkin(geometry.position, rig);

  Asset asset;
  asset.generator = "morphkit make-demo";
  asset.buffers.emplace_back();
  Primitive primitive = appendBaseAttributes(asset, geometry, skin, surface.indices);
  Mesh mesh;
  mesh.name = "Head";
  std::vector<Region> target_region(options.targets);
  TargetScratch work(surface.grid.vertexCount());
  for (uint32_t t = 0; t < options.targets; ++t)
    target_region[t] = appendMorphTarget(asset, t, surface, geometry, rng, work, primitive, mesh);
  mesh.primitives.push_back(std::move(primitive));
  if (options.targets > 0) mesh.weights.assign(options.targets, 0.0f);
  asset.meshes.push_back(std::move(mesh));
  appendRigAndScene(asset, rig);
  if (Status s = appendDemoMaterial(asset, options, geometry.position); !s) return s.error();
  addDemoAnimations(asset, options.targets, target_region, options.bones, rng);
  return asset;
}

}  // namespace morphkit
