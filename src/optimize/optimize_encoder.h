// SPDX-License-Identifier: MIT
// optimizeAsset's encoder (optimize_encode.cpp: attributes, targets and indices; optimize_encode_views.cpp:
// bufferViews, animations, skins and images). Private to morphkit::optimize.
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "optimize_grids.h"
#include "optimize_internal.h"
#include "optimize_passes.h"

namespace morphkit::optimize_detail {

// A skin's positions and their deltas stored as integers q = (p - center) / step on one grid over the skinned
// primitives' extent, undone by the skin's inverse bind matrices (IBM · D, D = translate(center) · scale(step)),
// which every engine applies to a skinned vertex and nothing else does (§3.7.3: a skinned mesh ignores its node's
// transform). Integers, not multiples of a coarser step on the normalized range: meshoptimizer's byte-wise deltas
// then carry only the bits the grid needs.
// An unskinned mesh's are the same, undone by the nodes that draw it (the node-dequantization pass's carriers: D folded
// into their local transform).
struct Dequant {
  bool valid = false;
  std::string role;  // "@skin2", "@mesh0": the done_ key's suffix, so one accessor gets one encoding per grid
  double center[3] = {0, 0, 0};
  double half = 1.0;  // half the largest side of the extent
  double step = 0.0;  // the grid step of the skin's positions and their deltas, object-space units (D's scale)
};

class OptimizeEncoder {
 public:
  OptimizeEncoder(const PassDocument& document, const EncodeBudget& budget, const EncodeExtensions& extensions,
                  std::span<const SkinnedDraw> draws, ThreadPool* pool)
      : input_(document.asset),
        carriers_(document.mesh_carriers),
        budget_(budget),
        meshopt_(extensions.meshopt),
        quantize_(extensions.quantization),
        draws_(draws),
        pool_(pool) {}

  Expected<EncodedAsset> run();

 private:
  uint32_t addView(std::span<const uint8_t> bytes, uint32_t stride, uint32_t target, ViewPart part,
                   bool compress_attributes);
  uint32_t pushAccessor(const Stream& stream, uint32_t view);
  uint32_t addAccessor(const Stream& stream, ViewPart part, uint32_t target, bool compress);
  uint32_t addShared(const Stream& stream, const std::string& group, ViewPart part = ViewPart::kTargets,
                     uint32_t target = kArrayBuffer);
  void writeShared();
  uint32_t floatCopy(uint32_t accessor, ViewPart part, uint32_t target, bool min_max);
  uint32_t rawCopy(uint32_t accessor, ViewPart part);
  void planDequants();
  void planMeshDequants();
  void foldDequantIntoNodes();
  uint32_t meshBase(uint32_t accessor, const Dequant& dequant);
  const Dequant* dequantOf(uint32_t mesh, const Primitive& primitive) const;
  uint32_t baseAttribute(const std::string& name, uint32_t accessor, const Dequant* dequant);
  uint32_t skinnedBase(uint32_t mesh, const Primitive& primitive, uint32_t accessor, const Dequant& dequant);
  std::vector<const SkinnedDraw*> drawsOf(uint32_t mesh, const Primitive& primitive) const;
  uint32_t skinWeights(uint32_t mesh, const Primitive& primitive, uint32_t set);
  template <class Int>
  uint32_t skinWeightSets(const std::vector<uint32_t>& ints, const std::vector<uint32_t>& sets, uint32_t set,
                          ComponentType component);
  uint32_t positionDelta(uint32_t accessor, uint32_t vertices, const Dequant* dequant, uint32_t base_accessor);
  uint32_t directionDelta(uint32_t accessor);
  uint32_t indices(const Primitive& primitive, uint32_t vertices);
  void encodePrimitive(uint32_t mesh, Primitive& primitive);
  void encodeAnimations();
  Stream storedElements(const Accessor& accessor, bool tight) const;
  void encodeSkinsAndImages();

  const Asset& input_;
  const std::vector<std::vector<uint32_t>>& carriers_;  // per mesh, PassDocument::mesh_carriers
  EncodeBudget budget_;
  bool meshopt_;
  bool quantize_;  // KHR_mesh_quantization may be written (EncodeExtensions::quantization)
  std::span<const SkinnedDraw> draws_;
  ThreadPool* pool_;  // the caller's (OptimizeOptions::pool): the roundings' per-vertex searches split across it
  EncodedAsset out_;
  std::map<std::pair<uint32_t, std::string>, uint32_t> done_;  // (input accessor, role) → output accessor
  std::vector<Dequant> skin_dequant_;                          // per skin
  std::vector<Dequant> mesh_dequant_;                          // per mesh (valid only for meshes with carriers)
  std::vector<uint32_t> mesh_skin_;  // per mesh: the one skin every instance uses, kNone (none or several)
  // Target streams of one kind and stride share a view, and so do base and animation streams: one meshoptimizer
  // stream, one bufferView in the JSON. The bytes, then (accessor, offset) for each accessor in it.
  struct SharedView {
    std::vector<uint8_t> bytes;
    uint32_t stride = 0;
    ViewPart part = ViewPart::kTargets;
    uint32_t target = kArrayBuffer;
    std::vector<std::pair<uint32_t, size_t>> accessors;
  };
  std::map<std::string, SharedView> shared_;
  // Per input POSITION-delta accessor: the vertices whose rounding roundSkinnedPositions chose.
  std::map<uint32_t, std::vector<DeltaRounding>> delta_rounding_;
};

}  // namespace morphkit::optimize_detail
