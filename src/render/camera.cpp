// SPDX-License-Identifier: MIT
// Cameras: morph- and skin-aware auto framing (bounds of CPU-posed vertices), the file's cameras, --camera text.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "morphkit/core/pose.h"
#include "morphkit/core/scene.h"
#include "morphkit/render/render.h"

namespace morphkit {

namespace {

// Calls visit(p) for every finite CPU-posed vertex position of `count` poses spread over [t0, t1].
template <class Visit>
Status visitPosedPoints(const PosePrepared& prepared, uint32_t animation, double t0, double t1, uint32_t count,
                        const WeightInputs& weights, Visit&& visit) {
  SamplingContext sampling;
  for (uint32_t i = 0; i < count; ++i) {
    PoseOptions options;
    options.animation = animation;
    options.time = count == 1 ? t0 : t0 + (t1 - t0) * double(i) / double(count - 1);
    options.path = CpuPath::kFast;
    options.sampling = &sampling;
    options.weights = weights;
    Expected<PoseResult> pose = evaluatePose(prepared, options);
    if (!pose) return pose.error();
    for (const PosedPrimitive& mesh : pose->meshes) {
      for (size_t v = 0; v + 2 < mesh.positions.size(); v += 3) {
        const Vec3 p{mesh.positions[v], mesh.positions[v + 1], mesh.positions[v + 2]};
        if (std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z)) visit(p);
      }
    }
  }
  return Ok{};
}

}  // namespace

Expected<Bounds> posedBounds(const Asset& asset, uint32_t scene, uint32_t animation, double t0, double t1,
                             uint32_t samples, const WeightInputs& weights) {
  Expected<PosePrepared> prepared = preparePose(asset, scene);
  if (!prepared) return prepared.error();
  Bounds bounds;
  const uint32_t count = animation == kNone && !weights.track ? 1 : std::max(samples, 1u);
  Status s = visitPosedPoints(*prepared, animation, t0, t1, count, weights, [&](Vec3 p) {
    bounds.min = {std::min(bounds.min.x, p.x), std::min(bounds.min.y, p.y), std::min(bounds.min.z, p.z)};
    bounds.max = {std::max(bounds.max.x, p.x), std::max(bounds.max.y, p.y), std::max(bounds.max.z, p.z)};
  });
  if (!s) return s.error();
  if (bounds.empty()) return bounds;
  // The sphere around the box's centre through the farthest point: as centred as the box, tighter than its
  // circumscribed sphere, and independent of the vertex order (the same model in another encoding frames alike).
  bounds.sphere_center = (bounds.min + bounds.max) * 0.5f;
  float farthest = 0.0f;
  s = visitPosedPoints(*prepared, animation, t0, t1, count, weights,
                       [&](Vec3 p) { farthest = std::max(farthest, length(p - bounds.sphere_center)); });
  if (!s) return s.error();
  bounds.sphere_radius = farthest;
  return bounds;
}

RenderCamera frameBounds(const Bounds& bounds, float aspect) {
  RenderCamera camera;
  if (bounds.empty()) return camera;
  Vec3 center = (bounds.min + bounds.max) * 0.5f;
  float radius = length(bounds.max - bounds.min) * 0.5f;
  if (bounds.sphere_radius >= 0.0f && bounds.sphere_radius <= radius) {
    center = bounds.sphere_center;
    radius = bounds.sphere_radius;
  }
  if (!(radius > 1e-6f)) radius = 1.0f;
  // The sphere's silhouette (half-angle asin(r / d)) spans kFrameFill of the smaller half field of view's tangent.
  const float half_v = camera.yfov * 0.5f;
  const float half_h = std::atan(std::tan(half_v) * std::max(aspect, 1e-3f));
  const float silhouette = std::atan(kFrameFill * std::tan(std::min(half_v, half_h)));
  const float distance = radius / std::sin(silhouette);
  const Vec3 direction = normalize(Vec3{0.35f, 0.3f, 1.0f});  // front (+Z), a little right and above
  camera.target = center;
  camera.eye = center + direction * distance;
  camera.znear = distance * 0.01f;  // parseCamera's rule: --camera cameraText(c) renders the same image
  camera.zfar = distance * 100.0f;
  return camera;
}

std::string cameraText(const RenderCamera& c) {
  char text[256];
  std::snprintf(text, sizeof text, "%.9g,%.9g,%.9g:%.9g,%.9g,%.9g:%.9g", c.eye.x, c.eye.y, c.eye.z, c.target.x,
                c.target.y, c.target.z, c.yfov * 180.0f / 3.14159265f);
  return text;
}

Expected<RenderCamera> fileCamera(const Asset& asset, uint32_t scene, uint32_t camera) {
  Expected<uint32_t> resolved = resolveScene(asset, scene);
  if (!resolved) return resolved.error();
  Expected<SceneState> state = evaluateScene(asset, *resolved);
  if (!state) return state.error();
  for (uint32_t node : state->scene_nodes) {
    const uint32_t c = asset.nodes[node].camera;
    if (c == kNone || c >= asset.cameras.size() || (camera != kNone && c != camera)) continue;
    const Camera& cam = asset.cameras[c];
    if (!cam.perspective) {
      return fail(Error::kInvalidArgument,
                  "cameras[" + std::to_string(c) + "]: orthographic cameras are not supported");
    }
    // glTF 2.0 §3.10: the camera looks down its local −Z with +Y up.
    const Mat4 world = toFloat(state->world[node]);
    RenderCamera out;
    out.eye = transformPoint(world, {0, 0, 0});
    out.target = out.eye + normalize(transformVector(world, {0, 0, -1}));
    out.up = normalize(transformVector(world, {0, 1, 0}));
    out.yfov = cam.yfov;
    out.znear = cam.znear > 0 ? cam.znear : 0.01f;
    out.zfar = cam.zfar > out.znear ? cam.zfar : out.znear * 1e5f;
    return out;
  }
  return fail(Error::kInvalidArgument, camera == kNone
                                           ? std::string("cameras: no node of the scene has a camera")
                                           : "cameras[" + std::to_string(camera) + "]: no node of the scene uses it");
}

namespace {
bool parseFloats(std::string_view text, float* out, int count) {
  for (int i = 0; i < count; ++i) {
    const size_t comma = text.find(',');
    std::string_view part = i + 1 < count ? text.substr(0, comma) : text;
    if (i + 1 < count && comma == std::string_view::npos) return false;
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out[i]);
    if (ec != std::errc() || end != part.data() + part.size() || !std::isfinite(out[i])) return false;
    if (i + 1 < count) text.remove_prefix(comma + 1);
  }
  return true;
}
}  // namespace

std::optional<RenderCamera> parseCamera(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(colon + 1);
  const size_t colon2 = rest.find(':');
  float eye[3], target[3], fov = 0;
  if (!parseFloats(text.substr(0, colon), eye, 3)) return std::nullopt;
  if (!parseFloats(rest.substr(0, colon2), target, 3)) return std::nullopt;
  RenderCamera camera;
  if (colon2 != std::string_view::npos) {
    if (!parseFloats(rest.substr(colon2 + 1), &fov, 1) || !(fov > 1.0f && fov < 179.0f)) return std::nullopt;
    camera.yfov = fov * 3.14159265f / 180.0f;
  }
  camera.eye = {eye[0], eye[1], eye[2]};
  camera.target = {target[0], target[1], target[2]};
  const float distance = length(camera.target - camera.eye);
  if (!(distance > 0.0f)) return std::nullopt;
  camera.znear = distance * 0.01f;
  camera.zfar = distance * 100.0f;
  return camera;
}

}  // namespace morphkit
