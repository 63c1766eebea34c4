// SPDX-License-Identifier: MIT
#include "morphkit/model/asset.h"

#include <cmath>

#include "morphkit/model/error.h"

namespace morphkit {

const char* errorName(Error error) {
  switch (error) {
    case Error::kFileNotFound:
      return "file_not_found";
    case Error::kIo:
      return "io";
    case Error::kInvalidJson:
      return "invalid_json";
    case Error::kInvalidCsv:
      return "invalid_csv";
    case Error::kInvalidGlb:
      return "invalid_glb";
    case Error::kInvalidGltf:
      return "invalid_gltf";
    case Error::kUnsupportedExtension:
      return "unsupported_extension";
    case Error::kPathEscapesFolder:
      return "path_escapes_folder";
    case Error::kTooLarge:
      return "too_large";
    case Error::kInvalidArgument:
      return "invalid_argument";
    case Error::kNoDevice:
      return "no_device";
    case Error::kVulkan:
      return "vulkan";
    case Error::kOutOfMemory:
      return "out_of_memory";
    case Error::kDeviceLost:
      return "device_lost";
  }
  return "unknown";
}

std::array<float, 6> textureTransformMatrix(const TextureRef& ref) {
  if (!ref.has_transform) return {1, 0, 0, 0, 1, 0};
  // KHR_texture_transform: T · R · S with R = [cos sin; -sin cos] (the extension's matrices, row-major).
  const TextureTransform& t = ref.transform;
  const double c = std::cos(double(t.rotation)), s = std::sin(double(t.rotation));
  return {float(c * t.scale[0]),  float(s * t.scale[1]), t.offset[0],
          float(-s * t.scale[0]), float(c * t.scale[1]), t.offset[1]};
}

bool isKtx2Image(const Asset& asset, uint32_t image) {
  if (image >= asset.images.size()) return false;
  const Image& i = asset.images[image];
  if (i.mime_type == "image/ktx2") return true;
  const std::string& uri = i.uri;
  return uri.size() >= 5 && uri.compare(uri.size() - 5, 5, ".ktx2") == 0 && uri.rfind("data:", 0) != 0;
}

uint32_t drawnTextureImage(const Asset& asset, const Texture& texture) {
  if (texture.webp_source != kNone) return texture.webp_source;
  return texture.source != kNone && !isKtx2Image(asset, texture.source) ? texture.source : kNone;
}

Expected<std::span<const uint8_t>> imageBytes(const Asset& asset, uint32_t index) {
  const std::string where = "images[" + std::to_string(index) + "]";
  if (index >= asset.images.size()) return fail(Error::kInvalidArgument, where + ": no such image");
  const Image& image = asset.images[index];
  if (image.buffer_view != kNone) {
    // Validation keeps the view inside its buffer's byteLength (glTF 2.0 §3.6.1); the bytes present may still be
    // fewer (an EXT_meshopt_compression fallback buffer holds none), so they are checked here.
    const BufferView& view = asset.buffer_views[image.buffer_view];
    const BufferBytes& data = asset.buffers[view.buffer].data;
    if (view.byte_offset > data.size() || view.byte_length > data.size() - view.byte_offset) {
      return fail(Error::kInvalidArgument,
                  where + ": bufferView " + std::to_string(image.buffer_view) + " has no bytes");
    }
    return std::span<const uint8_t>(data.data() + view.byte_offset, view.byte_length);
  }
  if (!image.data_error.empty()) return fail(Error::kInvalidArgument, where + ": " + image.data_error);
  if (image.data.empty()) return fail(Error::kInvalidArgument, where + ": no uri and no bufferView");
  return std::span<const uint8_t>(image.data);
}

uint32_t textureCoordinateSet(const TextureRef& ref) {
  return ref.has_transform && ref.transform.texcoord != kNone ? ref.transform.texcoord : ref.texcoord;
}

uint32_t componentSize(ComponentType type) {
  switch (type) {
    case ComponentType::kByte:
    case ComponentType::kUnsignedByte:
      return 1;
    case ComponentType::kShort:
    case ComponentType::kUnsignedShort:
      return 2;
    case ComponentType::kUnsignedInt:
    case ComponentType::kFloat:
      return 4;
  }
  return 0;
}

uint32_t componentCount(AccessorType type) {
  switch (type) {
    case AccessorType::kScalar:
      return 1;
    case AccessorType::kVec2:
      return 2;
    case AccessorType::kVec3:
      return 3;
    case AccessorType::kVec4:
      return 4;
    case AccessorType::kMat2:
      return 4;
    case AccessorType::kMat3:
      return 9;
    case AccessorType::kMat4:
      return 16;
  }
  return 0;
}

// §3.6.2.4: matrix columns start on 4-byte boundaries, so MAT2/MAT3 of 1-byte and MAT3 of 2-byte
// components carry padding after each column.
static uint32_t columnStride(ComponentType component, uint32_t rows) {
  uint32_t bytes = componentSize(component) * rows;
  return (bytes + 3u) & ~3u;
}

uint32_t elementSize(ComponentType component, AccessorType type) {
  switch (type) {
    case AccessorType::kMat2:
      return 2 * columnStride(component, 2);
    case AccessorType::kMat3:
      return 3 * columnStride(component, 3);
    case AccessorType::kMat4:
      return 4 * columnStride(component, 4);
    default:
      return componentSize(component) * componentCount(type);
  }
}

const char* componentTypeName(ComponentType type) {
  switch (type) {
    case ComponentType::kByte:
      return "i8";
    case ComponentType::kUnsignedByte:
      return "u8";
    case ComponentType::kShort:
      return "i16";
    case ComponentType::kUnsignedShort:
      return "u16";
    case ComponentType::kUnsignedInt:
      return "u32";
    case ComponentType::kFloat:
      return "f32";
  }
  return "?";
}

const char* accessorTypeName(AccessorType type) {
  switch (type) {
    case AccessorType::kScalar:
      return "SCALAR";
    case AccessorType::kVec2:
      return "VEC2";
    case AccessorType::kVec3:
      return "VEC3";
    case AccessorType::kVec4:
      return "VEC4";
    case AccessorType::kMat2:
      return "MAT2";
    case AccessorType::kMat3:
      return "MAT3";
    case AccessorType::kMat4:
      return "MAT4";
  }
  return "?";
}

uint32_t findAttribute(const std::vector<Attribute>& attributes, std::string_view name) {
  for (const auto& attribute : attributes) {
    if (attribute.name == name) return attribute.accessor;
  }
  return kNone;
}

uint32_t targetCount(const Mesh& mesh) {
  return mesh.primitives.empty() ? 0 : uint32_t(mesh.primitives[0].targets.size());
}

}  // namespace morphkit
