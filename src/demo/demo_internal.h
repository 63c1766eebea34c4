// SPDX-License-Identifier: MIT
// What the demo asset's files share (demo.cpp: geometry and targets; demo_rig.cpp: the skeleton and skin;
// demo_animation.cpp: the clips).
#pragma once
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "morphkit/demo/demo.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/math.h"

namespace morphkit::demo_detail {

constexpr float kPi = std::numbers::pi_v<float>;

// splitmix64: tiny, well-mixed and fully specified (std distributions are not portable bit-for-bit).
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
  float range(float lo, float hi) { return lo + (hi - lo) * uniform(); }
};

enum class Region : uint8_t { kBlink, kEye, kBrow, kMouth, kJaw, kCheek, kNose, kExtra };

// A vertex's three floats in an xyz array.
inline Vec3 load3(const std::vector<float>& a, uint32_t v) {
  return {a[3 * v], a[3 * v + 1], a[3 * v + 2]};
}
inline void store3(std::vector<float>& a, uint32_t v, Vec3 x) {
  a[3 * v] = x.x;
  a[3 * v + 1] = x.y;
  a[3 * v + 2] = x.z;
}

// The rig (demo_rig.cpp): a chain of `bones` joints, each with its pivot and the spot of the head it pulls on.
struct DemoRig {
  std::vector<Vec3> pivot, influence;
  std::vector<std::string> names;
};
struct SkinStreams {
  std::vector<uint8_t> joints;
  std::vector<float> weights;
};

DemoRig makeRig(uint32_t bones);
// Up to four joints per vertex of `position` (xyz), by a compact falloff around each joint's spot; weights sum to 1.
SkinStreams bindSkin(const std::vector<float>& position, const DemoRig& rig);
// The material, the nodes (0 = the skinned mesh, 1 + b = joint b), the skin and the scene, appended to `asset`.
void appendRigAndScene(Asset& asset, const DemoRig& rig);

// materials[0] for options.material (demo_material.cpp): its factors, extensions (also in extensionsUsed) and, for
// kTextured, the PNG images (base colour, normal map, occlusion-roughness-metallic; options.texture_size on a side),
// textures and sampler; for kClearcoat, the coat's normal map; for kVertexColors, COLOR_0 on every primitive of
// meshes[0]. `position` is the head's base positions (3 floats per vertex), which the vertex colours follow.
// Fails only where an image cannot be encoded (out of memory).
Status appendDemoMaterial(Asset& asset, const DemoOptions& options, const std::vector<float>& position);

// The textured material's images (demo_textures.cpp), RGBA8, size × size, top row first: a skin's base colour
// (sRGB), its tangent-space normal map and its occlusion (R), roughness (G), metallic (B) map, all from one height
// field of multi-octave value noise and pores. Same size and seed → same pixels.
struct SkinTextures {
  uint32_t size = 0;
  std::vector<uint8_t> base_color, normal, occlusion_roughness_metallic;
};
SkinTextures makeSkinTextures(uint32_t size, uint64_t seed);

// The three clips, appended to `asset` (its mesh is node 0, joint b is node 1 + b). `target_region` gives each
// morph target's region; `rng` continues the asset's stream, so the bytes depend only on the options.
void addDemoAnimations(Asset& asset, uint32_t targets, const std::vector<Region>& target_region, uint32_t bones,
                       Rng& rng);

}  // namespace morphkit::demo_detail
