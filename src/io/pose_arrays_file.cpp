// SPDX-License-Identifier: MIT
// PoseArrays and encodePoseArrays (morphkit/io/pose_writers.h): posed frames as .npy / .npz bytes.
#include <string>
#include <utility>

#include "morphkit/io/npy.h"
#include "morphkit/io/pose_writers.h"

namespace morphkit {

PoseArrays::PoseArrays(const PosePrepared& prepared, size_t frame_count, bool positions_only)
    : shapes(poseArrayShapes(prepared)), frames(frame_count) {
  for (PoseArrayShape& shape : shapes) {
    shape.has_normals = shape.has_normals && !positions_only;
    positions.emplace_back(frames * shape.vertex_count * 3);
    normals.emplace_back(shape.has_normals ? frames * shape.vertex_count * 3 : 0);
  }
  for (size_t i = 0; i < shapes.size(); ++i) views.push_back({positions[i].span(), normals[i].span(), {}});
}

uint64_t EncodedArrays::size() const {
  uint64_t total = 0;
  for (std::span<const uint8_t> part : parts) total += part.size();
  return total;
}

namespace {

Expected<std::vector<uint8_t>> encodeNpzArrays(const PoseArrays& arrays, const std::vector<double>& times) {
  auto shapeOf = [&](size_t i) {
    return std::vector<uint64_t>{uint64_t(arrays.frames), uint64_t(arrays.shapes[i].vertex_count), 3};
  };
  std::vector<NpzEntry> entries;
  Expected<std::vector<uint8_t>> time_array =
      encodeNpy(std::span<const double>(times), std::vector<uint64_t>{times.size()});
  if (!time_array) return time_array.error();
  entries.push_back({"times", std::move(*time_array)});
  for (size_t i = 0; i < arrays.shapes.size(); ++i) {
    const PoseArrayShape& s = arrays.shapes[i];
    const std::string name = posedPrimitiveName(s.node, s.mesh, s.primitive);
    Expected<std::vector<uint8_t>> p = encodeNpy(arrays.positions[i].span(), shapeOf(i));
    if (!p) return p.error();
    entries.push_back({name + "_positions", std::move(*p)});
    if (s.has_normals) {
      Expected<std::vector<uint8_t>> n = encodeNpy(arrays.normals[i].span(), shapeOf(i));
      if (!n) return n.error();
      entries.push_back({name + "_normals", std::move(*n)});
    }
  }
  return encodeNpz(entries);
}

}  // namespace

Expected<EncodedArrays> encodePoseArrays(std::string_view format, const PoseArrays& arrays,
                                         const std::vector<double>& times) {
  EncodedArrays encoded;
  if (format == "npy") {
    const std::span<const float> positions = arrays.positions[0].span();
    const std::vector<uint64_t> shape{uint64_t(arrays.frames), uint64_t(arrays.shapes[0].vertex_count), 3};
    Expected<std::vector<uint8_t>> header = encodeNpyHeader(positions, shape);
    if (!header) return header.error();
    encoded.owned = std::move(*header);
    encoded.parts = {encoded.owned, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(positions.data()),
                                                             positions.size_bytes())};
    return encoded;
  }
  Expected<std::vector<uint8_t>> archive = encodeNpzArrays(arrays, times);
  if (!archive) return archive.error();
  encoded.owned = std::move(*archive);
  encoded.parts = {encoded.owned};
  return encoded;
}

}  // namespace morphkit
