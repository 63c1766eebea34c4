// SPDX-License-Identifier: MIT
// writePosedGlb (morphkit/gltf/glb_writer.h): one posed frame as a static .glb, beside the other writers.
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "morphkit/core/pose_arrays.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/model/asset_builder.h"

namespace morphkit {
namespace {

// The source's materials, textures, samplers and images, copied into `asset` with the same indices and written as
// the source's document has them (KHR_texture_transform travels with the posed TEXCOORDs, which are stored as in
// the file; KTX2 textures keep their KHR_texture_basisu source). Images stored in bufferViews are copied into the
// new buffer; URIs are kept as they are.
void copyMaterials(const Asset& source, Asset& asset) {
  asset.materials = source.materials;
  asset.textures = source.textures;
  asset.samplers = source.samplers;
  for (const Image& image : source.images) {
    Image copy = image;
    if (image.buffer_view != kNone) {
      const BufferView& view = source.buffer_views[image.buffer_view];
      const uint8_t* begin = source.buffers[view.buffer].data.data() + view.byte_offset;
      copy.buffer_view = appendBufferView(asset, std::span<const uint8_t>(begin, view.byte_length));
    }
    asset.images.push_back(std::move(copy));
  }
  // The writer keeps these objects as the source's document has them (every extension and extras) and declares
  // what it writes; the source's required list says which of those stay required.
  static constexpr std::string_view kParts[] = {"materials", "textures", "samplers", "images"};
  asset.source_json = documentParts(source, kParts);
  asset.extensions_used = source.extensions_used;
  asset.extensions_required = source.extensions_required;
}

}  // namespace

// A static glTF of posed meshes: one mesh + node per posed primitive, world-space attributes, no skin, no
// morph targets, the source's materials. Built with the glb_writer builder helpers.
Expected<std::vector<uint8_t>> writePosedGlb(const PoseResult& pose, const Asset& source) {
  Asset asset;
  asset.generator = "morphkit pose";
  asset.scenes.emplace_back();
  asset.scene = 0;
  copyMaterials(source, asset);
  AppendAccessorOptions vertex_options;
  vertex_options.target = kArrayBuffer;
  for (const PosedPrimitive& m : pose.meshes) {
    if (m.vertex_count == 0) continue;
    Primitive primitive;
    primitive.mode = m.mode;
    primitive.material = source.meshes[m.mesh].primitives[m.primitive].material;
    AppendAccessorOptions position_options = vertex_options;
    position_options.min_max = true;  // §3.7.2.1: POSITION needs min/max
    primitive.attributes.push_back({"POSITION", appendAccessor(asset, std::span<const float>(m.positions),
                                                               AccessorType::kVec3, position_options)});
    if (!m.normals.empty()) {
      primitive.attributes.push_back(
          {"NORMAL", appendAccessor(asset, std::span<const float>(m.normals), AccessorType::kVec3, vertex_options)});
    }
    if (!m.tangents.empty()) {
      primitive.attributes.push_back(
          {"TANGENT", appendAccessor(asset, std::span<const float>(m.tangents), AccessorType::kVec4, vertex_options)});
    }
    for (size_t s = 0; s < m.texcoords.size(); ++s) {
      primitive.attributes.push_back(
          {"TEXCOORD_" + std::to_string(s),
           appendAccessor(asset, std::span<const float>(m.texcoords[s]), AccessorType::kVec2, vertex_options)});
    }
    for (size_t s = 0; s < m.colors.size(); ++s) {
      primitive.attributes.push_back(
          {"COLOR_" + std::to_string(s),
           appendAccessor(asset, std::span<const float>(m.colors[s]), AccessorType::kVec4, vertex_options)});
    }
    if (!m.indices.empty()) {
      AppendAccessorOptions index_options;
      index_options.target = kElementArrayBuffer;
      primitive.indices =
          appendAccessor(asset, std::span<const uint32_t>(m.indices), AccessorType::kScalar, index_options);
    }
    Mesh mesh;
    mesh.name = posedPrimitiveName(m.node, m.mesh, m.primitive);
    mesh.primitives.push_back(std::move(primitive));
    Node node;
    node.name = mesh.name;
    node.mesh = uint32_t(asset.meshes.size());
    asset.meshes.push_back(std::move(mesh));
    asset.scenes[0].nodes.push_back(uint32_t(asset.nodes.size()));
    asset.nodes.push_back(std::move(node));
  }
  return writeGlb(asset);
}

}  // namespace morphkit
