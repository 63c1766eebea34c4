// SPDX-License-Identifier: MIT
// EXT_meshopt_compression
// (https://github.com/KhronosGroup/glTF/tree/main/extensions/2.0/Vendor/EXT_meshopt_compression): every rule of the
// extension is checked before a byte is decoded, then meshoptimizer (Debian's libmeshoptimizer) decodes each bufferView
// into its parent bufferView's bytes.
#include <meshoptimizer.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "compression.h"

namespace morphkit::gltf_detail {

namespace {

// The extension's section names, cited by every message.
constexpr const char* kMeshoptSchemaSection = "EXT_meshopt_compression, JSON schema updates";
constexpr const char* kFallback = "EXT_meshopt_compression, Fallback buffers";
constexpr const char* kBitstream = "EXT_meshopt_compression, Appendix A";

// The attribute codec cannot expand data more than 64×: per 256-element block, each byte column needs at least a
// 4-byte header (2 bits per group of 16). The index codecs expand less (≥ 1 byte per triangle or index). So a
// claimed decoded size above this is a lie, refused before it is allocated.
constexpr size_t kMaxExpansion = 64;

std::string viewWhere(size_t i) {
  return "bufferViews[" + std::to_string(i) + "].extensions.EXT_meshopt_compression";
}

Failure invalidMeshopt(const std::string& where, const std::string& what, const char* section = kMeshoptSchemaSection) {
  return fail(Error::kInvalidGltf, where + ": " + what + " (" + section + ")");
}

const char* modeName(MeshoptView::Mode mode) {
  switch (mode) {
    case MeshoptView::Mode::kAttributes:
      return "ATTRIBUTES";
    case MeshoptView::Mode::kTriangles:
      return "TRIANGLES";
    case MeshoptView::Mode::kIndices:
      return "INDICES";
  }
  return "?";
}

const char* filterName(MeshoptView::Filter filter) {
  switch (filter) {
    case MeshoptView::Filter::kNone:
      return "NONE";
    case MeshoptView::Filter::kOctahedral:
      return "OCTAHEDRAL";
    case MeshoptView::Filter::kQuaternion:
      return "QUATERNION";
    case MeshoptView::Filter::kExponential:
      return "EXPONENTIAL";
  }
  return "?";
}

// The extension's "For the extension object to be valid, the following must hold" list, plus the ranges.
Status checkView(const Asset& asset, const CompressedData& data, const std::vector<uint8_t>& placeholders, size_t i) {
  const MeshoptView& m = data.meshopt_views[i];
  const BufferView& parent = asset.buffer_views[i];
  const std::string where = viewWhere(i);
  if (m.buffer >= asset.buffers.size()) {
    return invalidMeshopt(where + ".buffer", std::to_string(m.buffer) + " is out of range (" +
                                                 std::to_string(asset.buffers.size()) + " buffers exist)");
  }
  if (data.meshopt_fallback[m.buffer]) {
    return invalidMeshopt(
        where + ".buffer",
        "buffer " + std::to_string(m.buffer) + " is a fallback buffer; compressed data MUST NOT come from one",
        kFallback);
  }
  if (placeholders[m.buffer]) {
    return invalidMeshopt(where + ".buffer", "buffer " + std::to_string(m.buffer) + " holds no bytes (no uri)",
                          kFallback);
  }
  const size_t source_size = asset.buffers[m.buffer].data.size();
  if (m.byte_offset > source_size || m.byte_length > source_size - m.byte_offset) {
    return invalidMeshopt(where, "byteOffset " + std::to_string(m.byte_offset) + " + byteLength " +
                                     std::to_string(m.byte_length) + " exceeds buffer " + std::to_string(m.buffer) +
                                     " (" + std::to_string(source_size) + " bytes)");
  }
  const uint32_t stride = m.byte_stride;
  if (m.mode == MeshoptView::Mode::kAttributes) {
    if (stride == 0 || stride % 4 != 0 || stride > 256) {
      return invalidMeshopt(where + ".byteStride",
                            std::to_string(stride) + " must be a multiple of 4 in [4, 256] for ATTRIBUTES");
    }
  } else {
    if (stride != 2 && stride != 4) {
      return invalidMeshopt(where + ".byteStride", std::to_string(stride) + " must be 2 or 4 for " + modeName(m.mode));
    }
    if (m.filter != MeshoptView::Filter::kNone) {
      return invalidMeshopt(where + ".filter", std::string(filterName(m.filter)) + " is not allowed with " +
                                                   modeName(m.mode) + " (only NONE)");
    }
  }
  if (m.mode == MeshoptView::Mode::kTriangles && m.count % 3 != 0) {
    return invalidMeshopt(where + ".count", std::to_string(m.count) + " is not a multiple of 3 for TRIANGLES");
  }
  if (m.filter == MeshoptView::Filter::kOctahedral && stride != 4 && stride != 8) {
    return invalidMeshopt(where + ".byteStride", std::to_string(stride) + " must be 4 or 8 for the OCTAHEDRAL filter");
  }
  if (m.filter == MeshoptView::Filter::kQuaternion && stride != 8) {
    return invalidMeshopt(where + ".byteStride", std::to_string(stride) + " must be 8 for the QUATERNION filter");
  }
  if (m.filter == MeshoptView::Filter::kExponential && stride % 4 != 0) {
    return invalidMeshopt(where + ".byteStride",
                          std::to_string(stride) + " must be a multiple of 4 for the EXPONENTIAL filter");
  }
  if (parent.byte_stride != 0 && parent.byte_stride != stride) {
    return invalidMeshopt(where + ".byteStride", std::to_string(stride) + " differs from the bufferView's byteStride " +
                                                     std::to_string(parent.byte_stride));
  }
  if (size_t(m.count) * stride != parent.byte_length) {
    return invalidMeshopt(where, "count " + std::to_string(m.count) + " x byteStride " + std::to_string(stride) +
                                     " = " + std::to_string(size_t(m.count) * stride) +
                                     " differs from the bufferView's byteLength " + std::to_string(parent.byte_length));
  }
  if (parent.byte_length / kMaxExpansion > m.byte_length) {
    return fail(Error::kTooLarge, where + ": " + std::to_string(parent.byte_length) +
                                      " decoded bytes cannot come from " + std::to_string(m.byte_length) +
                                      " compressed bytes (the codec expands at most " + std::to_string(kMaxExpansion) +
                                      "x; " + kBitstream + ")");
  }
  // Decoding writes into the parent's buffer before the validation pass runs: its reference is checked here.
  if (parent.buffer >= asset.buffers.size()) {
    return invalidMeshopt(
        "bufferViews[" + std::to_string(i) + "].buffer",
        std::to_string(parent.buffer) + " is out of range (" + std::to_string(asset.buffers.size()) + " buffers exist)",
        "glTF 2.0 §3.6.1");
  }
  const size_t target_size = placeholders[parent.buffer] ? SIZE_MAX : asset.buffers[parent.buffer].data.size();
  if (parent.byte_offset > target_size || parent.byte_length > target_size - parent.byte_offset) {
    return invalidMeshopt("bufferViews[" + std::to_string(i) + "]",
                          "byteOffset + byteLength exceeds buffer " + std::to_string(parent.buffer), "glTF 2.0 §3.6.1");
  }
  return Ok{};
}

// The codecs' header byte is 0xa0 (attributes), 0xe0 (triangles) or 0xd0 (indices) | version; this build of
// meshoptimizer may be older than the encoder, and "unsupported version" is a more useful message than "corrupt".
std::string describeFailure(const MeshoptView& m, const uint8_t* src, int code) {
  const uint8_t expected = m.mode == MeshoptView::Mode::kAttributes  ? 0xa0
                           : m.mode == MeshoptView::Mode::kTriangles ? 0xe0
                                                                     : 0xd0;
  if (m.byte_length > 0 && (src[0] & 0xf0) == expected && (src[0] & 0x0f) != 0) {
    return std::string(modeName(m.mode)) + " stream uses bitstream version " + std::to_string(src[0] & 0x0f) +
           ", which meshoptimizer " + std::to_string(MESHOPTIMIZER_VERSION / 1000) + "." +
           std::to_string(MESHOPTIMIZER_VERSION % 1000 / 10) +
           " does not decode (re-encode with gltfpack -c, or use a newer meshoptimizer)";
  }
  return std::string(modeName(m.mode)) + " stream is corrupt or truncated (meshoptimizer error " +
         std::to_string(code) + "; " + kBitstream + ")";
}

// Appendix B, filter 1 (octahedral), exactly as the extension's pseudocode states it, in float32. Debian's
// meshoptimizer 0.18 decodes this filter with an approximate reciprocal square root: within the one-ULP slack the
// extension grants, but one unit off from the decoders three.js and Babylon.js ship on ~0.6 % of vectors, which
// turns an i8 normal by up to 7e-3 (the references' normal tolerance is 1e-4). The other filters agree exactly.
template <class T>
void decodeOctahedral(uint8_t* bytes, size_t count) {
  const float max = sizeof(T) == 1 ? 127.0f : 32767.0f;
  for (size_t i = 0; i < count; ++i) {
    T e[4];
    std::memcpy(e, bytes + i * sizeof(e), sizeof(e));
    const float one = float(e[2]);  // K-bit 1.0; other values are invalid and decode to something unspecified
    if (one == 0.0f) continue;
    float x = float(e[0]) / one, y = float(e[1]) / one;
    const float z = 1.0f - std::fabs(x) - std::fabs(y);
    const float t = std::min(z, 0.0f);
    x -= std::copysign(t, x);
    y -= std::copysign(t, y);
    const float len = std::sqrt(x * x + y * y + z * z);
    e[0] = T(std::lround(x / len * max));
    e[1] = T(std::lround(y / len * max));
    e[2] = T(std::lround(z / len * max));
    std::memcpy(bytes + i * sizeof(e), e, sizeof(e));
  }
}

Status decodeView(Asset& asset, const CompressedData& data, size_t i) {
  const MeshoptView& m = data.meshopt_views[i];
  const BufferView& parent = asset.buffer_views[i];
  // The destination first: making a mapped buffer writable copies it (BufferBytes::mutate), and `src` may lie in it.
  uint8_t* dst = asset.buffers[parent.buffer].data.mutate().data() + parent.byte_offset;
  const uint8_t* src = asset.buffers[m.buffer].data.data() + m.byte_offset;
  int code = 0;
  switch (m.mode) {
    case MeshoptView::Mode::kAttributes:
      code = meshopt_decodeVertexBuffer(dst, m.count, m.byte_stride, src, m.byte_length);
      break;
    case MeshoptView::Mode::kTriangles:
      code = meshopt_decodeIndexBuffer(dst, m.count, m.byte_stride, src, m.byte_length);
      break;
    case MeshoptView::Mode::kIndices:
      code = meshopt_decodeIndexSequence(dst, m.count, m.byte_stride, src, m.byte_length);
      break;
  }
  if (code != 0) {
    std::fill_n(dst, parent.byte_length, uint8_t(0));  // nothing half-decoded survives (the load fails anyway)
    return fail(Error::kInvalidGltf,
                "bufferViews[" + std::to_string(i) + "]: EXT_meshopt_compression " + describeFailure(m, src, code));
  }
  // Appendix B: filters run in place on the decoded elements.
  switch (m.filter) {
    case MeshoptView::Filter::kNone:
      break;
    case MeshoptView::Filter::kOctahedral:
      if (m.byte_stride == 4)
        decodeOctahedral<int8_t>(dst, m.count);
      else
        decodeOctahedral<int16_t>(dst, m.count);
      break;
    case MeshoptView::Filter::kQuaternion:
      meshopt_decodeFilterQuat(dst, m.count, m.byte_stride);
      break;
    case MeshoptView::Filter::kExponential:
      meshopt_decodeFilterExp(dst, m.count, m.byte_stride);
      break;
  }
  return Ok{};
}

}  // namespace

Status parseMeshoptView(object view, const std::string& where, MeshoptView& out) {
  element e;
  object extensions, ext;
  if (view.at_key("extensions").get(e) != simdjson::SUCCESS || e.get_object().get(extensions) != simdjson::SUCCESS ||
      extensions.at_key(kMeshoptExtension).get(e) != simdjson::SUCCESS) {
    return Ok{};
  }
  const std::string here = where + ".extensions.EXT_meshopt_compression";
  if (e.get_object().get(ext) != simdjson::SUCCESS) return fail(Error::kInvalidGltf, here + ": must be an object");
  out.present = true;
  MORPHKIT_TRY(readIndex(kGltfError, ext, "buffer", out.buffer, here, true));
  MORPHKIT_TRY(readSize(kGltfError, ext, "byteOffset", out.byte_offset, here));
  MORPHKIT_TRY(readSize(kGltfError, ext, "byteLength", out.byte_length, here, true));
  MORPHKIT_TRY(readIndex(kGltfError, ext, "byteStride", out.byte_stride, here, true));
  MORPHKIT_TRY(readIndex(kGltfError, ext, "count", out.count, here, true));
  std::string mode, filter = "NONE";
  MORPHKIT_TRY(readString(kGltfError, ext, "mode", mode, here, true));
  MORPHKIT_TRY(readString(kGltfError, ext, "filter", filter, here));
  if (mode == "ATTRIBUTES")
    out.mode = MeshoptView::Mode::kAttributes;
  else if (mode == "TRIANGLES")
    out.mode = MeshoptView::Mode::kTriangles;
  else if (mode == "INDICES")
    out.mode = MeshoptView::Mode::kIndices;
  else
    return invalidMeshopt(here + ".mode", "'" + mode + "' is not ATTRIBUTES, TRIANGLES or INDICES");
  if (filter == "NONE")
    out.filter = MeshoptView::Filter::kNone;
  else if (filter == "OCTAHEDRAL")
    out.filter = MeshoptView::Filter::kOctahedral;
  else if (filter == "QUATERNION")
    out.filter = MeshoptView::Filter::kQuaternion;
  else if (filter == "EXPONENTIAL")
    out.filter = MeshoptView::Filter::kExponential;
  else
    return invalidMeshopt(here + ".filter", "'" + filter + "' is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL");
  return Ok{};
}

Status parseMeshoptBuffer(object buffer, const std::string& where, uint8_t& fallback) {
  fallback = 0;
  element e;
  object extensions, ext;
  if (buffer.at_key("extensions").get(e) != simdjson::SUCCESS || e.get_object().get(extensions) != simdjson::SUCCESS ||
      extensions.at_key(kMeshoptExtension).get(e) != simdjson::SUCCESS) {
    return Ok{};
  }
  const std::string here = where + ".extensions.EXT_meshopt_compression";
  if (e.get_object().get(ext) != simdjson::SUCCESS) return fail(Error::kInvalidGltf, here + ": must be an object");
  bool flag = false;
  MORPHKIT_TRY(readBool(kGltfError, ext, "fallback", flag, here));
  fallback = flag ? 1 : 0;
  return Ok{};
}

std::vector<uint8_t> meshoptPlaceholders(const Asset& asset, const CompressedData& data, bool glb_has_bin) {
  std::vector<uint8_t> placeholder(asset.buffers.size(), 0);
  if (data.meshopt_views.empty()) return placeholder;
  // A uri-less buffer that is not the GLB chunk can only be filled by decoding: a placeholder when every view
  // that refers to it is compressed (otherwise resolveBuffers reports the missing uri).
  std::vector<uint8_t> compressed_only(asset.buffers.size(), 1), referenced(asset.buffers.size(), 0);
  for (size_t v = 0; v < asset.buffer_views.size() && v < data.meshopt_views.size(); ++v) {
    const uint32_t b = asset.buffer_views[v].buffer;
    if (b >= asset.buffers.size()) continue;
    referenced[b] = 1;
    if (!data.meshopt_views[v].present) compressed_only[b] = 0;
  }
  for (size_t b = 0; b < asset.buffers.size(); ++b) {
    const bool glb_chunk = b == 0 && glb_has_bin && asset.buffers[b].uri.empty();
    const bool no_bytes = asset.buffers[b].uri.empty() && !glb_chunk;
    // A fallback buffer is skipped even when it has a uri: decoding is possible, so the compressed data is used.
    if (data.meshopt_fallback[b] || (no_bytes && referenced[b] && compressed_only[b])) placeholder[b] = 1;
  }
  return placeholder;
}

Status decodeMeshopt(Asset& asset, const CompressedData& data, const std::vector<uint8_t>& placeholders,
                     const LoadOptions& options) {
  if (data.meshopt_views.empty()) return Ok{};
  // Fallback buffers: every reference MUST come from a compressed bufferView.
  for (size_t v = 0; v < asset.buffer_views.size(); ++v) {
    const uint32_t b = asset.buffer_views[v].buffer;
    if (b < asset.buffers.size() && data.meshopt_fallback[b] && !data.meshopt_views[v].present) {
      return invalidMeshopt(
          "bufferViews[" + std::to_string(v) + "]",
          "refers to buffers[" + std::to_string(b) + "], a fallback buffer, without EXT_meshopt_compression",
          kFallback);
    }
  }
  // Validate every view first: nothing is allocated or decoded for a file that breaks a rule.
  std::vector<size_t> needed(asset.buffers.size(), 0);  // placeholder buffers: bytes their views cover
  for (size_t v = 0; v < asset.buffer_views.size(); ++v) {
    if (!data.meshopt_views[v].present) continue;
    MORPHKIT_TRY(checkView(asset, data, placeholders, v));
    const BufferView& parent = asset.buffer_views[v];
    if (parent.byte_offset > options.max_buffer_bytes) {
      return fail(Error::kTooLarge, "bufferViews[" + std::to_string(v) +
                                        "].byteOffset: " + std::to_string(parent.byte_offset) +
                                        " exceeds the limit of " + std::to_string(options.max_buffer_bytes) + " bytes");
    }
    if (parent.buffer < asset.buffers.size() && placeholders[parent.buffer]) {
      needed[parent.buffer] = std::max(needed[parent.buffer], parent.byte_offset + parent.byte_length);
    }
  }
  for (size_t b = 0; b < asset.buffers.size(); ++b) {
    if (!placeholders[b]) continue;
    Buffer& buffer = asset.buffers[b];
    const std::string where = "buffers[" + std::to_string(b) + "]";
    if (needed[b] > buffer.byte_length) {
      return invalidMeshopt(where + ".byteLength",
                            std::to_string(buffer.byte_length) +
                                " is too small for the bufferViews that refer to it (" + std::to_string(needed[b]) +
                                " bytes); it MUST hold them all",
                            kFallback);
    }
    if (needed[b] > options.max_buffer_bytes) {
      return fail(Error::kTooLarge, where + ": " + std::to_string(needed[b]) + " decoded bytes exceed the limit of " +
                                        std::to_string(options.max_buffer_bytes));
    }
    // Only the bytes the views cover are allocated; byteLength follows, so the placeholder's (possibly larger)
    // declared size is never trusted with an allocation.
    buffer.data.assign(needed[b], 0);
    buffer.byte_length = needed[b];
  }
  for (size_t v = 0; v < asset.buffer_views.size(); ++v) {
    if (data.meshopt_views[v].present) MORPHKIT_TRY(decodeView(asset, data, v));
  }
  return Ok{};
}

}  // namespace morphkit::gltf_detail
