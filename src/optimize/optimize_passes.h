// SPDX-License-Identifier: MIT
// optimize's passes (docs/OPTIMIZE.md, "Passes"): each edits a copy of the input's document before the encoding, in
// a file of its own, and says what it changed. Private to morphkit::optimize.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "morphkit/model/asset.h"
#include "morphkit/optimize/optimize.h"

namespace morphkit::optimize_detail {

// What the passes edit, and what they leave for the encoder.
struct PassDocument {
  Asset asset;  // a copy of the input; mesh, primitive and accessor indices stay the input's
  // Per mesh: the node whose local transform carries the mesh's dequantization (node-dequantization), or kNone.
  std::vector<std::vector<uint32_t>> mesh_carriers;
  // Per mesh, per primitive: the output vertex of each input vertex (weld); empty where vertices kept their order.
  std::vector<std::vector<std::vector<uint32_t>>> vertex_remap;
  std::vector<OptimizeTextureReport> textures;  // the textures pass's rows (OptimizeReport::textures)
  Status status = Ok{};  // a pass that cannot go on (a missing encoder, a corrupt image) sets it: runPasses stops there
  bool simplified = false;  // the simplify pass changed a primitive's triangles (verified by surface distance then)
  // The document before the reorder pass (the last), where it reordered something: optimizeAsset keeps whichever of the
  // two makes the smaller gzipped file.
  std::shared_ptr<const PassDocument> before_reorder;
};

using PassFunction = void (*)(PassDocument& document, const OptimizeOptions& options, OptimizePassReport& report);

void dropUnreadAttributes(PassDocument& document, const OptimizeOptions& options, OptimizePassReport& report);
void dropZeroDirectionDeltas(PassDocument& document, const OptimizeOptions& options, OptimizePassReport& report);
void weldIdenticalVertices(PassDocument& document, const OptimizeOptions& options, OptimizePassReport& report);
void planNodeDequantization(PassDocument& document, const OptimizeOptions& options, OptimizePassReport& report);
void encodeTextures(PassDocument& document, const OptimizeOptions& options, OptimizePassReport& report);
void simplifyMeshes(PassDocument& document, const OptimizeOptions& options, OptimizePassReport& report);
void reorderForCompression(PassDocument& document, const OptimizeOptions& options, OptimizePassReport& report);

// Runs every pass of kOptimizePassNames in order on a copy of `input`, skipping options.skip_passes; fails
// (kInvalidArgument) for a skipped name that is no pass, and with a pass's PassDocument::status.
Expected<PassDocument> runPasses(const Asset& input, const OptimizeOptions& options,
                                 std::vector<OptimizePassReport>& reports);

// Whether some targets of `primitive` move POSITION and others do not: three.js then adds weight × the *base* position
// for the others (docs/CHECK.md, missing-delta-is-base), so its pose depends on the frame the positions are stored in,
// and no grid with an offset (node or skin dequantization) may change that frame.
bool positionDeltaMissingSomewhere(const Primitive& primitive);

// A new accessor holding accessor `index`'s elements at `kept`, in that order (the passes that drop or merge vertices):
// unsigned integers at their own width (JOINTS_n), everything else as floats, which the encoder quantizes afterwards
// (a sparse accessor is written dense); min/max with `min_max`.
uint32_t keptElements(Asset& asset, uint32_t index, std::span<const uint32_t> kept, bool min_max);

// "meshes[2] 'Face'.primitives[0]": how the passes' change lines name a primitive.
std::string primitiveLabel(const Asset& asset, uint32_t mesh, uint32_t primitive);

}  // namespace morphkit::optimize_detail
