// SPDX-License-Identifier: MIT
// The drop-direction-deltas pass: NORMAL and TANGENT deltas that are zero in every target of a primitive leave all of
// its targets (each engine then reads zero for all of them; exporters often write them anyway).
#include <string>

#include "morphkit/model/accessor.h"
#include "optimize_grids.h"
#include "optimize_passes.h"

namespace morphkit::optimize_detail {

void dropZeroDirectionDeltas(PassDocument& document, const OptimizeOptions&, OptimizePassReport& report) {
  Asset& asset = document.asset;
  for (uint32_t m = 0; m < asset.meshes.size(); ++m) {
    for (uint32_t p = 0; p < asset.meshes[m].primitives.size(); ++p) {
      Primitive& primitive = asset.meshes[m].primitives[p];
      for (const char* direction : {"NORMAL", "TANGENT"}) {
        bool present = false, moves = false;
        for (const MorphTarget& target : primitive.targets) {
          const uint32_t a = findAttribute(target.attributes, direction);
          if (a == kNone) continue;
          present = true;
          moves = moves || !allZero(readAccessorFloats(asset, a));
        }
        if (!present || moves) continue;
        for (MorphTarget& target : primitive.targets) {
          std::erase_if(target.attributes, [&](const Attribute& attribute) { return attribute.name == direction; });
        }
        report.changes.push_back(primitiveLabel(asset, m, p) + ": dropped its " + direction +
                                 " deltas, zero in every target");
      }
    }
  }
}

}  // namespace morphkit::optimize_detail
