// SPDX-License-Identifier: MIT
// pose_output.cpp — the files `morphkit pose --out` writes (pose_output.h).
#include "pose_output.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <span>
#include <string_view>
#include <utility>

#include "command.h"
#include "morphkit/gltf/glb_writer.h"
#include "morphkit/io/json_writer.h"
#include "morphkit/io/npy.h"
#include "morphkit/io/pose_writers.h"
#include "morphkit/model/files.h"
#include "output_folder.h"

namespace morphkit::cli {

PoseArrays::PoseArrays(const PosePrepared& prepared, size_t frame_count, bool positions_only)
    : shapes(poseArrayShapes(prepared)), frames(frame_count) {
  for (PoseArrayShape& shape : shapes) {
    shape.has_normals = shape.has_normals && !positions_only;
    positions.emplace_back(frames * shape.vertex_count * 3);
    normals.emplace_back(shape.has_normals ? frames * shape.vertex_count * 3 : 0);
  }
  for (size_t i = 0; i < shapes.size(); ++i) views.push_back({positions[i].span(), normals[i].span(), {}});
}

int resolvePoseOutput(const std::string& out, const std::string& format, PoseOutput& output) {
  output = PoseOutput{out, format};
  if (out.empty()) return format.empty() ? 0 : reportUsage("--format " + format + ": needs --out");
  constexpr std::string_view kKnown[] = {"json", "obj", "glb", "npy", "npz"};
  auto known = [&](std::string_view f) {
    return std::find(std::begin(kKnown), std::end(kKnown), f) != std::end(kKnown);
  };
  if (!format.empty() && !known(format)) return reportUsage("--format " + format + ": expected " + kPoseFormats);
  if (out == "-") {
    if (format.empty())
      return reportUsage(std::string("--out -: give the format with --format (") + kPoseFormats + ")");
    return 0;
  }
  std::string ext = std::filesystem::path(out).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  const std::string from_name = ext.empty() ? std::string() : ext.substr(1);
  if (!known(from_name)) {
    return reportUsage(
        fmt::format("--out {}: unknown format (use .json, .obj, .glb, .npy or .npz, or --out - --format F)", out));
  }
  if (!format.empty() && from_name != format)
    return reportUsage("--out " + out + ": the name's extension contradicts --format " + format);
  output.format = from_name;
  return 0;
}

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

// A static glTF of posed meshes: one mesh + node per posed primitive, world-space attributes, no skin, no
// morph targets, the source's materials. Built with the glb_writer builder helpers.
Expected<std::vector<uint8_t>> posedGlb(const PoseResult& pose, const Asset& source) {
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
    mesh.name =
        "node" + std::to_string(m.node) + "_mesh" + std::to_string(m.mesh) + "_prim" + std::to_string(m.primitive);
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

// ".png" / ".jpg" for a base-colour image an .mtl can name, from its mimeType or URI; "" for anything else (KTX2).
std::string imageExtension(const Image& image) {
  if (image.mime_type == "image/png") return ".png";
  if (image.mime_type == "image/jpeg") return ".jpg";
  std::string ext = std::filesystem::path(image.uri).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg" ? ext : std::string();
}

// The materials the posed primitives use, in first-use order.
std::vector<uint32_t> usedMaterials(const PoseResult& pose, const Asset& asset) {
  std::vector<uint32_t> used;
  for (const PosedPrimitive& m : pose.meshes) {
    const uint32_t material = asset.meshes[m.mesh].primitives[m.primitive].material;
    if (material < asset.materials.size() && std::find(used.begin(), used.end(), material) == used.end())
      used.push_back(material);
  }
  return used;
}

struct MtlFile {
  std::string text;
  std::vector<std::pair<std::string, std::span<const uint8_t>>> images;  // file name beside the OBJ, bytes
};

// One newmtl per used material (Kd: the base colour factor, d: its alpha) with map_Kd naming the base-colour
// texture's image, which travels as a copy beside the OBJ: <stem>_image<N>.png|.jpg.
MtlFile posedMtl(const PoseResult& pose, const Asset& asset, const std::string& stem, const std::string& model) {
  MtlFile mtl;
  mtl.text = "# morphkit pose\n";
  for (uint32_t index : usedMaterials(pose, asset)) {
    const Material& material = asset.materials[index];
    const float* f = material.base_color_factor;
    mtl.text += fmt::format("\nnewmtl material{}\nKd {:.9g} {:.9g} {:.9g}\nd {:.9g}\n", index, f[0], f[1], f[2], f[3]);
    const uint32_t texture = material.base_color_texture.texture;
    if (texture >= asset.textures.size() || asset.textures[texture].source >= asset.images.size()) continue;
    const uint32_t image = asset.textures[texture].source;
    const std::string ext = imageExtension(asset.images[image]);
    Expected<std::span<const uint8_t>> bytes = imageBytes(asset, image);
    if (ext.empty() || !bytes || bytes->empty()) {
      reportWarning(fmt::format("{}: images[{}]: {}; the .mtl names no texture for materials[{}]", model, image,
                                !bytes ? bytes.error().message : std::string("not a PNG or JPEG"), index));
      continue;
    }
    const std::string name = fmt::format("{}_image{}{}", stem, image, ext);
    mtl.text += "map_Kd " + name + "\n";
    if (std::none_of(mtl.images.begin(), mtl.images.end(), [&](const auto& i) { return i.first == name; }))
      mtl.images.emplace_back(name, *bytes);
  }
  return mtl;
}

// OUT.obj, OUT.mtl and the images beside them (the OBJ last: once it is there, what it names is too). To stdout
// the OBJ goes alone.
int writeObjOutput(const std::string& out, const PoseResult& pose, const Asset& asset, const std::string& model) {
  if (out == "-") return writeReportedOutput(out, writePoseObj(pose, &asset));
  const std::filesystem::path obj(out);
  const std::string stem = obj.stem().string();
  const MtlFile mtl = posedMtl(pose, asset, stem, model);
  for (const auto& [name, bytes] : mtl.images) {
    if (int code = writeReportedOutput(obj.parent_path() / name, bytes); code != 0) return code;
  }
  if (int code = writeReportedOutput(obj.parent_path() / (stem + ".mtl"), mtl.text); code != 0) return code;
  return writeReportedOutput(obj, writePoseObj(pose, &asset, stem + ".mtl"));
}

}  // namespace

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

int writeArrayOutput(const PoseOutput& output, const PoseArrays& arrays, const std::vector<double>& times) {
  const std::string& out = output.path;
  if (output.format == "npy" && arrays.shapes.size() != 1) {
    return reportUsage(fmt::format("--out {}: .npy holds one posed primitive and the scene has {}; use .npz", out,
                                   arrays.shapes.size()));
  }
  Expected<EncodedArrays> encoded = encodePoseArrays(output.format, arrays, times);
  if (!encoded) return reportFailure(out, encoded.error());
  return writeReportedOutput(out, std::span<const std::span<const uint8_t>>(encoded->parts));
}

int writePoseOutput(const PoseOutput& output, const std::vector<PoseResult>& cases, const std::string& model,
                    const Asset& asset) {
  const std::string& out = output.path;
  if (output.format == "json") return writeReportedOutput(out, writePoseJson(cases, model));
  if (cases.size() != 1) {
    return reportUsage(
        fmt::format("--out {}: {} holds one pose; give a single --time (or use json)", out, output.format));
  }
  if (output.format == "obj") return writeObjOutput(out, cases[0], asset, model);
  Expected<std::vector<uint8_t>> glb = posedGlb(cases[0], asset);
  if (!glb) return reportFailure(out, glb.error());
  return writeReportedOutput(out, std::span<const uint8_t>(*glb));
}

}  // namespace morphkit::cli
