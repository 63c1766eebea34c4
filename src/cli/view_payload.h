// SPDX-License-Identifier: MIT
// `morphkit view`'s data (docs/VIEW.md "What the server sends"): the packed primitives the page uploads as they are
// (src/pack's layouts: interleaved base vertices, the band texture, dense f32/f16 and sparse deltas, the skin
// stream) and each frame's inputs and CPU reference, so the page parses no glTF and samples no animation.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/core/weights.h"
#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"

namespace morphkit::cli {

// Two blobs, so the first frame waits only for what the vertex path draws: kDraw holds the base vertices, indices,
// band textures and skin streams; kCompute the dense f32, dense f16 and sparse deltas.
enum ViewBlob : uint32_t { kDrawBlob = 0, kComputeBlob = 1 };

struct ViewPayload {
  std::string meta_json;                // the layout of everything (docs/VIEW.md): every offset is into a blob
  std::vector<uint8_t> blobs[2];        // little-endian arrays, each starting at a multiple of 16 bytes
  std::vector<uint32_t> matrix_counts;  // per instance: floats/16 of its matrices in a frame (palette, or 2)
};

// A weight on one (mesh, target): --weights resolved once, for the page's sliders and the reference alike.
struct TargetWeight {
  TargetRef ref;
  float value = 0.0f;
};

// What the page shows first: --anim and --weights (the sliders start there), the capture's length.
struct ViewStart {
  uint32_t animation = kNone;         // kNone: the rest pose
  std::vector<TargetWeight> weights;  // in order: a later one wins for the same target
  double capture_duration = -1;       // < 0: no capture was given
};

// Fails when a primitive's deltas do not pack (e.g. the band texture
// exceeds 8192 rows, WebGPU's guaranteed maxTextureDimension2D).
Expected<ViewPayload> buildViewPayload(const Asset& asset, const PosePrepared& prepared, const std::string& file_name,
                                       const ViewStart& start);

// One frame as little-endian f32: per instance its weights (target count) then its matrices (skinned: the palette,
// joints × 16; rigid: world then normal matrix, 32), column-major; with `reference`, then per instance the CPU
// reference's posed positions (3 × vertex count, world space).
Expected<std::vector<uint8_t>> buildViewFrame(const PosePrepared& prepared, const FrameRequest& request,
                                              bool reference);

}  // namespace morphkit::cli
