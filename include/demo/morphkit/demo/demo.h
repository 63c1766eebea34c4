// SPDX-License-Identifier: MIT
// morphkit/demo/demo.h — a built-in, procedurally generated test asset: a skinned "head" with facial morph
// targets and animations (docs/DEMO.md describes it in full). Part of morphkit::core: no dependencies.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"

namespace morphkit {

// Bounds of DemoOptions (inclusive). makeDemoAsset rejects anything outside with kInvalidArgument.
inline constexpr uint32_t kDemoMaxTargets = 4096;
inline constexpr uint32_t kDemoMinVertices = 8;
inline constexpr uint32_t kDemoMaxVertices = 5'000'000;
inline constexpr uint32_t kDemoMinBones = 1;
inline constexpr uint32_t kDemoMaxBones = 256;
// targets × vertices bound: the dense POSITION+NORMAL+TANGENT deltas take 36 bytes per (target, vertex),
// so this caps them at ~600 MB and keeps the .glb far below the 4 GiB GLB limit.
inline constexpr uint64_t kDemoMaxTargetVertices = uint64_t(1) << 24;
// DemoOptions::texture_size: 4096² is the largest texture avatars commonly ship (three of them are 192 MiB RGBA8).
inline constexpr uint32_t kDemoMinTextureSize = 16;
inline constexpr uint32_t kDemoMaxTextureSize = 4096;

// The head's material (docs/DEMO.md "Materials"): the default skin, or a variant that exercises one shading
// feature (the fidelity set renders each against three.js, docs/RENDER.md).
enum class DemoMaterial : uint8_t {
  kSkin,          // dielectric skin tone, roughness 0.55
  kMetallic,      // gold: metallic 1, roughness 0.35
  kTextured,      // skin textures on TEXCOORD_0: base colour, normal, occlusion-roughness-metallic (embedded PNGs)
  kUnlit,         // KHR_materials_unlit
  kEmissive,      // emissive colour × KHR_materials_emissive_strength 4
  kIor,           // KHR_materials_ior 2.4
  kSpecular,      // KHR_materials_specular: factor 0.7, a red F0 tint
  kClearcoat,     // KHR_materials_clearcoat over a rough red base
  kSheen,         // KHR_materials_sheen over a dark blue base
  kVertexColors,  // COLOR_0 (unsigned byte, normalized, RGBA) multiplying a white base
};
// "skin", "metallic", "textured", "unlit", "emissive", "ior", "specular", "clearcoat", "sheen", "vertex-colors".
const char* demoMaterialName(DemoMaterial material);
std::span<const DemoMaterial> demoMaterials();  // every variant, in the order above

struct DemoOptions {
  uint32_t targets = 52;      // morph targets: 0..kDemoMaxTargets (the first 52 carry ARKit names)
  uint32_t vertices = 20000;  // requested vertex count; the mesh gets the closest count its grid allows
  uint32_t bones = 4;         // skin joints in one chain: root, neck, head, jaw, joint4, ...
  uint64_t seed = 1;          // same options + same seed → byte-identical asset
  DemoMaterial material = DemoMaterial::kSkin;
  // kTextured: the side of its square images, kDemoMinTextureSize..kDemoMaxTextureSize, any whole number (glTF
  // and the encoders need no power of two). 2048 is what a face scan or an avatar's head ships with: the file's
  // bytes are then mostly images (docs/DEMO.md "Materials").
  uint32_t texture_size = 2048;
};

// Builds the demo asset in memory: one mesh ("Head") with one indexed triangle primitive that is a closed
// surface (every edge shared by exactly two triangles), POSITION/NORMAL/TANGENT/TEXCOORD_0/JOINTS_0/
// WEIGHTS_0, `targets` localized morph targets (POSITION, NORMAL, TANGENT deltas; each moves 3–15 % of
// the vertices), mesh.extras.targetNames, a skin of `bones` joints, one material and up to three
// animations ("talk", "blink", "express") using LINEAR, STEP and CUBICSPLINE samplers on weights and
// joint rotations. Everything lives in buffers[0] (no uri), ready for writeGlb (morphkit/gltf/glb_writer.h).
// Errors: kInvalidArgument "make-demo: <option> <value> outside <bounds>".
Expected<Asset> makeDemoAsset(const DemoOptions& options = {});

// Rewrites the asset's morph-weight channels (core "weights" channels with a node) as KHR_animation_pointer
// channels that play the same weights, one pointer form per animation index: a % 3 == 0 "/nodes/{n}/weights",
// a % 3 == 1 "/meshes/{m}/weights" (a sampler of only 0/1 values stored as normalized UNSIGNED_BYTE; for assets
// whose mesh has one node without weights of its own, as the demo's), a % 3 == 2 one "/nodes/{n}/weights/{i}"
// channel per weight, each with its own scalar sampler. Adds the extension to extensionsUsed. The demo's clips
// "talk", "blink", "express" take the three forms in that order (make-demo --animation-pointer).
void useAnimationPointers(Asset& asset);

// Gives the demo asset VRM expressions (Asset::vrm): the 18 VRM 1.0 presets and one custom "smirk", bound to its
// ARKit-named targets on node 0 (VRM 1.0) or mesh 0 (`vrm0`: VRM 0.x, where "surprised" is custom and overrides do
// not exist), with weights and overrides as docs/FACE_CAPTURE.md tables them; adds VRMC_vrm (or VRM) to
// extensionsUsed. A bind whose target the asset lacks (fewer than 52 targets) is left out.
void addDemoExpressions(Asset& asset, bool vrm0 = false);

// The name makeDemoAsset gives target `index`: ARKit blend-shape names for 0..51, then "extra052", ...
std::string demoTargetName(uint32_t index);

// A sample face capture for the demo asset (docs/FACE_CAPTURE.md), in the Live Link Face CSV layout
// (morphkit/io/capture.h): Timecode,BlendShapeCount, the 52 ARKit blend shapes, the 9 head/eye rotation columns.
inline constexpr double kDemoMaxCaptureSeconds = 3600.0;
struct DemoCaptureOptions {
  double seconds = 4.0;  // (0, kDemoMaxCaptureSeconds]; rows = round(seconds × fps)
  double fps = 60.0;     // a whole number in 1..240; timecodes start at 10:00:00:00 with fractional frames
  uint64_t seed = 1;     // same options + same seed → identical text
};
// A synthetic performance: blinks every ~1.7 s, speech (jawOpen at ~3.7 Hz with lips and funnel/pucker) from
// 0.3 s to 0.8 s before the end, a smile building up in the second half, brow accents, gaze with the matching
// eye rotation columns, head sway. Blend shapes in [0, 1], rotations in radians, 8 decimals, CRLF lines.
// Errors: kInvalidArgument "make-demo: capture ...".
Expected<std::string> makeDemoCapture(const DemoCaptureOptions& options = {});

}  // namespace morphkit
