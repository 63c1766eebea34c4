// SPDX-License-Identifier: MIT
// morphkit/model/budget.h — what loading and posing one file may cost, decided before the work is done.
//
// A few kilobytes of glTF can reference one large accessor from thousands of primitives, targets or nodes, or
// declare accessors with no bufferView (zeros) that decode to gigabytes. Every cost below is computed from the
// asset's structure alone (counts, types, references), in a pass linear in the JSON, before anything large is
// decoded; the loader refuses the asset when a cost exceeds its budget. The defaults fit every real asset
// morphkit has met (the largest: < 300k vertices × 256 targets) with room to spare; raise them for bigger ones
// (LoadOptions::budget; CLI --max-decoded-mb, --max-posed-mb). docs/SECURITY.md has the figures.
#pragma once
#include <cstdint>

#include "morphkit/model/asset.h"
#include "morphkit/model/error.h"

namespace morphkit {

struct Budget {
  // Bytes of accessor data decoded to floats/integers: the larger of (a) every accessor once, as validation may
  // read it, and (b) what preparePose keeps: each distinct primitive's attributes, skin and target deltas (plus
  // the fast path's packed copy of the deltas), the inverse bind matrices of used skins, used animation samplers.
  // (b) counts the distinct primitives of every mesh, instanced or not (inspect reads them all).
  uint64_t max_decoded_bytes = uint64_t(8) << 30;
  // Bytes of one pose of every mesh instance (node × primitive): posed attributes, index copies, per-node
  // transforms and weights, joint matrices. Posing several times at once (pose --time a,b,c) multiplies it.
  uint64_t max_posed_bytes = uint64_t(1) << 30;
};

struct AssetCost {
  uint64_t accessor_bytes = 0;  // (a) above
  uint64_t prepare_bytes = 0;   // (b) above
  uint64_t posed_bytes = 0;     // one pose
  uint64_t decodedBytes() const { return accessor_bytes > prepare_bytes ? accessor_bytes : prepare_bytes; }
};

// Linear in the asset's JSON objects; tolerates out-of-range indices (they cost nothing here; validation
// reports them), so it can run before validation. Saturates instead of overflowing.
AssetCost estimateCost(const Asset& asset);

// kTooLarge naming the budget and how to raise it, e.g. "budget: one pose of every mesh instance needs
// 16800 MiB, over the posed-data budget of 1024 MiB (raise it with --max-posed-mb)". `poses`: how many poses
// are held at once.
Status checkBudget(const AssetCost& cost, const Budget& budget, uint64_t poses = 1);

}  // namespace morphkit
