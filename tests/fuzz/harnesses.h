// SPDX-License-Identifier: MIT
// The bodies of the libFuzzer harnesses, one function per harness, shared by the harness mains (fuzz_<name>.cpp,
// clang + libFuzzer) and by tests/fuzz/fuzz_replay_test.cpp (the g++ suite replays every crasher through the same
// code). Each returns 0, or -1 for an input that belongs to another harness (libFuzzer then keeps it out of the
// corpus). The node-material harness is in harness_node_material.h: its header belongs to the material layer, which the
// glTF harnesses do not link.
// EXTENSION POINT: a new harness is a function here (or in its own header when it needs another layer), a
// fuzz_<name>.cpp main, an entry in tests/fuzz/CMakeLists.txt (MORPHKIT_FUZZ_HARNESSES), in kHarnesses of
// tests/fuzz/fuzz_replay_test.cpp and, for its seeds, in scripts/fuzz-corpus.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "morphkit/core/animation.h"
#include "morphkit/core/expressions.h"
#include "morphkit/core/pose.h"
#include "morphkit/core/weights.h"
#include "morphkit/gltf/animation_pointer.h"
#include "morphkit/gltf/gltf.h"
#include "morphkit/io/capture.h"
#include "morphkit/io/capture_file.h"
#include "morphkit/io/pose_writers.h"
#include "morphkit/io/weight_files.h"

namespace morphkit::fuzz {

// Small budgets keep one input cheap; URIs resolve against a folder that does not exist, so no input can make
// the harness read the machine's files.
inline LoadOptions loadOptions() {
  LoadOptions options;
  options.max_buffer_bytes = size_t(16) << 20;
  options.budget.max_decoded_bytes = uint64_t(64) << 20;
  options.budget.max_posed_bytes = uint64_t(64) << 20;
  return options;
}

inline Expected<Asset> load(const uint8_t* data, size_t size) {
  static const std::filesystem::path kNoFolder = "/nonexistent/morphkit-fuzz";
  return loadAssetFromMemory(std::span<const uint8_t>(data, size), kNoFolder, loadOptions());
}

inline bool isGlb(const uint8_t* data, size_t size) {
  return size >= 4 && std::memcmp(data, "glTF", 4) == 0;
}

// .gltf JSON text: parsing, buffer resolution (data: URIs), the budget, validation.
inline int gltf(const uint8_t* data, size_t size) {
  if (isGlb(data, size)) return -1;
  (void)load(data, size);
  return 0;
}

// .glb containers: header, chunk walk, the BIN chunk as buffer 0, then as gltf().
inline int glb(const uint8_t* data, size_t size) {
  if (!isGlb(data, size)) return -1;
  (void)load(data, size);
  return 0;
}

// What one input may cost the posing harnesses (issue 56: inputs of 370 KB took 3.6-7.1 s, most of it writing OBJ
// text of every pose): the posed vertices of all poses together, and the text written (only poses up to
// kMaxWrittenVertices are written; the writers are linear in the vertices, so larger ones reach no new code).
inline constexpr size_t kMaxPosedVertices = size_t(1) << 18;
inline constexpr size_t kMaxWrittenVertices = size_t(1) << 12;

// The work poseAsset did, for the test that holds it to the bounds above (fuzz_replay_test.cpp).
struct PoseWork {
  size_t poses = 0;
  size_t posed_vertices = 0;
  size_t written_bytes = 0;
};

inline size_t posedVertices(const PoseResult& result) {
  size_t vertices = 0;
  for (const PosedPrimitive& m : result.meshes) vertices += m.vertex_count;
  return vertices;
}

// Load (either container), then pose on the CPU as `morphkit pose` does: the rest pose and the first two
// animations at a few times, on the reference and the fast path, until kMaxPosedVertices; then the OBJ and JSON
// writers on the reference path's small poses. `inputs`: weights from outside the file (VRM expressions), applied
// at every frame.
inline PoseWork poseAsset(const Asset& asset, const WeightInputs& inputs = {}) {
  PoseWork work;
  Expected<PosePrepared> prepared = preparePose(asset);
  if (!prepared) return work;
  const uint32_t animations = uint32_t(std::min<size_t>(prepared->animations.size(), 2));
  for (uint32_t a = 0; a <= animations; ++a) {
    const uint32_t animation = a == animations ? kNone : a;
    const double end = animation == kNone ? 0.0 : prepared->animations[animation].duration;
    for (double time : {0.0, 0.37 * end, end, end + 1.0}) {
      SamplingContext sampling;
      for (CpuPath path : {CpuPath::kReference, CpuPath::kFast}) {
        if (work.posed_vertices >= kMaxPosedVertices) return work;
        PoseOptions options;
        options.animation = animation;
        options.time = time;
        options.path = path;
        options.sampling = &sampling;
        options.weights = inputs;
        Expected<PoseResult> result = evaluatePose(*prepared, options);
        if (!result) continue;
        ++work.poses;
        const size_t vertices = posedVertices(*result);
        work.posed_vertices += std::max<size_t>(vertices, 1);
        if (path != CpuPath::kReference || vertices > kMaxWrittenVertices) continue;
        work.written_bytes += writePoseObj(*result).size();
        work.written_bytes += writePoseJson(std::span<const PoseResult>(&*result, 1), "fuzz").size();
      }
      if (animation == kNone) break;
    }
  }
  return work;
}

inline int pose(const uint8_t* data, size_t size) {
  Expected<Asset> asset = load(data, size);
  if (asset) (void)poseAsset(*asset);
  return 0;
}

// The face-capture inputs: the Live Link Face CSV parser, then matching and sampling the capture against a face
// with ARKit's 52 target names (camelCase, so matching folds case); the same bytes also go through the two small
// JSON parsers of weights by name (weights file, capture map), which reject CSV text at once.
inline const Asset& arkitFace() {
  static const Asset face = [] {
    Asset asset;
    // One triangle of zeros, an accessor without a bufferView (glTF 2.0 §3.6.2.3), as POSITION and as every
    // target's delta: the fixture is valid glTF, as every Asset handed to morphkit must be (morphkit/model/contract.h).
    Accessor zeros;
    zeros.count = 3;
    zeros.type = AccessorType::kVec3;
    zeros.min = {0, 0, 0};
    zeros.max = {0, 0, 0};
    asset.accessors.push_back(zeros);
    Mesh mesh;
    Primitive primitive;
    primitive.attributes.push_back({"POSITION", 0});
    primitive.targets.assign(kLiveLinkBlendShapes.size(), MorphTarget{{{"POSITION", 0}}});
    mesh.primitives.push_back(primitive);
    for (std::string_view column : kLiveLinkBlendShapes) {
      std::string name(column);
      name[0] = char(name[0] - 'A' + 'a');
      mesh.target_names.push_back(name);
    }
    asset.meshes.push_back(mesh);
    Node node;
    node.mesh = 0;
    asset.nodes.push_back(node);
    if (Status valid = validateAsset(asset); !valid) {  // a harness bug, not a finding: stop at once, saying so
      std::fprintf(stderr, "arkitFace fixture fails validateAsset: %s\n", valid.error().message.c_str());
      std::abort();
    }
    return asset;
  }();
  return face;
}

// A parsed capture matched against the face (by name, or through `map`) and its track sampled before, inside and
// after its time span, as `pose --capture` does every frame.
inline void sampleCapture(const Capture& capture, const CaptureMap* map = nullptr) {
  if (capture.times.empty()) return;
  const Asset& face = arkitFace();
  CaptureMatch match = matchCapture(face, capture, map);
  if (match.track.names.empty()) return;
  WeightInputs inputs;
  inputs.track = &match.track;
  std::vector<std::vector<float>> node_weights(1, std::vector<float>(kLiveLinkBlendShapes.size(), 0.0f));
  const double end = capture.times.back();
  for (double time : {-1.0, 0.0, 0.5 * end, end, end + 1.0})
    (void)applyWeightInputs(face, inputs, time, nullptr, node_weights);
}

inline int captureCsv(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)parseWeightsJson(text);
  Expected<CaptureMap> map = parseCaptureMapJson(text);
  Expected<Capture> capture = parseCaptureCsv(text);
  (void)parseCapture(text);  // every format, by content (morphkit/io/capture_file.h)
  for (CaptureFormat format :
       {CaptureFormat::kCsv, CaptureFormat::kIFacialMocap, CaptureFormat::kMediaPipe, CaptureFormat::kA2f})
    (void)parseCapture(text, {.format = format, .fps = 30.0});
  if (capture) sampleCapture(*capture, map ? &*map : nullptr);
  return 0;
}

// ---- One harness per capture format (morphkit/io/capture.h, morphkit/io/capture_file.h) ----
// Each parser alone, with the options that change its path (a face index, a frame rate replacing the file's), then
// the result sampled against the face. fuzz_capture_csv sends every input through every parser by content; these
// start from seeds of their own format (scripts/fuzz-corpus), so mutations stay inside one grammar.

inline std::string_view textOf(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// MediaPipe face-landmarker blendshapes: JSON array or JSON Lines, Python and JS field spellings, several faces.
inline int mediaPipe(const uint8_t* data, size_t size) {
  for (uint32_t face : {0u, 1u}) {
    Expected<Capture> capture = parseMediaPipeCapture(textOf(data, size), {.face = face});
    if (capture) sampleCapture(*capture);
  }
  return 0;
}

// NVIDIA Audio2Face blendshape export: {"exportFps", "numPoses", "numFrames", "facsNames", "weightMat"}.
inline int a2f(const uint8_t* data, size_t size) {
  for (double fps : {0.0, 24.0}) {
    Expected<Capture> capture = parseA2fCapture(textOf(data, size), {.fps = fps});
    if (capture) sampleCapture(*capture);
  }
  return 0;
}

// iFacialMocap text packets ("time_s," optional, "name-value|...", "=head#..." transforms).
inline int iFacialMocap(const uint8_t* data, size_t size) {
  for (double fps : {0.0, 30.0}) {
    Expected<Capture> capture = parseIFacialMocap(textOf(data, size), fps);
    if (capture) sampleCapture(*capture);
  }
  return 0;
}

// Any CSV with a time column first (seconds or HH:MM:SS:FF[.fff] timecodes), and format detection by content.
inline int timedCsv(const uint8_t* data, size_t size) {
  (void)detectCaptureFormat(textOf(data, size));
  for (double timecode_fps : {60.0, 29.97}) {
    Expected<Capture> capture = parseTimeCsv(textOf(data, size), timecode_fps);
    if (capture) sampleCapture(*capture);
  }
  return 0;
}

// ---- glTF extensions with a harness of their own: seeds that use them (.gltf or .glb: the loader tells them
// apart by the magic), then everything they drive ----

// VRM expressions (VRMC_vrm 1.0, VRM 0.x blendShapeMaster): read and checked by the loader, then every expression
// (up to 16) through expressionWeights, a track whose columns name them through expressionTrack, and the asset posed
// with those weights from outside the file.
inline int vrmExpressions(const uint8_t* data, size_t size) {
  Expected<Asset> asset = load(data, size);
  if (!asset) return 0;
  const std::vector<std::string> names = expressionNames(*asset);
  std::vector<ExpressionValue> values;
  for (uint32_t e = 0; e < names.size() && e < 16; ++e) {
    (void)findExpression(*asset, names[e], NameMatch::kCaseInsensitive);
    values.push_back({e, e % 2 ? 0.5f : 1.0f});
  }
  Expected<std::vector<WeightOverride>> overrides = expressionWeights(*asset, values);
  WeightTrack track;
  for (size_t e = 0; e < values.size(); ++e) track.names.push_back(names[e]);
  track.names.push_back("notAnExpression");
  track.keys.components = uint32_t(track.names.size());
  track.keys.times = {0.0f, 1.0f};
  for (size_t row = 0; row < 2; ++row) {
    for (size_t c = 0; c < track.names.size(); ++c) track.keys.values.push_back(row ? 1.0f : float(c % 3) * 0.25f);
  }
  Expected<WeightTrack> expanded = expressionTrack(*asset, track, NameMatch::kExact);
  WeightInputs inputs;
  if (expanded && checkWeightTrack(*expanded)) inputs.track = &*expanded;
  if (overrides) inputs.overrides = *overrides;
  (void)poseAsset(*asset, inputs);
  return 0;
}

// KHR_animation_pointer: the pointers read and classified by the loader, every animation decoded (morph-weight
// pointers become weight channels), the note on ignored pointers, then posing as fuzz_pose does.
inline int animationPointer(const uint8_t* data, size_t size) {
  Expected<Asset> asset = load(data, size);
  if (!asset) return 0;
  (void)ignoredPointerWarning(*asset);
  for (uint32_t a = 0; a < asset->animations.size() && a < 4; ++a) {
    (void)decodeAnimation(*asset, a);
    (void)animationDuration(*asset, a);
  }
  (void)poseAsset(*asset);
  return 0;
}

// ---- Compressed geometry (EXT_meshopt_compression, KHR_draco_mesh_compression) ----
// The input's tail is the compressed stream, put in the BIN chunk of a fixed GLB whose JSON takes its parameters
// from the first bytes: mutations reach the codec and the loader's handling of its output, not the JSON around
// it (fuzz_glb covers that). scripts/fuzz-corpus extracts seeds in this format from ../shared/field/assets.

inline std::vector<uint8_t> glbOf(std::string json, const uint8_t* bin, size_t bin_size) {
  while (json.size() % 4) json += ' ';
  const size_t padded = (bin_size + 3) & ~size_t(3);
  std::vector<uint8_t> out;
  auto word = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
  };
  word(0x46546C67u);
  word(2);
  word(uint32_t(12 + 8 + json.size() + 8 + padded));
  word(uint32_t(json.size()));
  word(0x4E4F534Au);
  out.insert(out.end(), json.begin(), json.end());
  word(uint32_t(padded));
  word(0x004E4942u);
  out.insert(out.end(), bin, bin + bin_size);
  out.resize(out.size() + (padded - bin_size), 0);
  return out;
}

// Header: mode (ATTRIBUTES, TRIANGLES, INDICES), filter (NONE, OCTAHEDRAL, QUATERNION, EXPONENTIAL), byteStride
// code, count (u16); then the compressed bytes of one bufferView.
inline int meshopt(const uint8_t* data, size_t size) {
  if (size < 5) return -1;
  static const char* kModes[] = {"ATTRIBUTES", "TRIANGLES", "INDICES"};
  static const char* kFilters[] = {"NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"};
  const uint32_t mode = data[0] % 3, filter = mode == 0 ? data[1] % 4 : 0;
  const uint32_t stride = mode == 0 ? 4 * (1 + data[2] % 64) : (data[2] & 1 ? 4 : 2);
  uint32_t count = 1 + (uint32_t(data[3]) | uint32_t(data[4]) << 8);
  if (mode == 1) count = 3 * ((count + 2) / 3);
  const size_t payload = size - 5;
  if (payload == 0) return 0;
  const std::string bytes = std::to_string(size_t(count) * stride);
  const std::string json =
      "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"EXT_meshopt_compression\"],"
      "\"extensionsRequired\":[\"EXT_meshopt_compression\"],"
      "\"buffers\":[{\"byteLength\":" +
      std::to_string(payload) + "},{\"byteLength\":" + bytes +
      ",\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}],"
      "\"bufferViews\":[{\"buffer\":1,\"byteLength\":" +
      bytes + (mode == 0 ? ",\"byteStride\":" + std::to_string(stride) : "") +
      ",\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,\"byteLength\":" + std::to_string(payload) +
      ",\"byteStride\":" + std::to_string(stride) + ",\"count\":" + std::to_string(count) + ",\"mode\":\"" +
      kModes[mode] + "\",\"filter\":\"" + kFilters[filter] + "\"}}}]}";
  const std::vector<uint8_t> glb_bytes = glbOf(json, data + 5, payload);
  (void)load(glb_bytes.data(), glb_bytes.size());
  return 0;
}

// Header: vertex count (u16), triangle count (u16), flags (bit 0: NORMAL, bit 1: TEXCOORD_0, bit 2: 16-bit
// indices); then one Draco mesh. The primitive maps POSITION/NORMAL/TEXCOORD_0 to Draco attributes 0/1/2.
inline int draco(const uint8_t* data, size_t size) {
  if (size < 5) return -1;
  const uint32_t vertices = 1 + (uint32_t(data[0]) | uint32_t(data[1]) << 8);
  const uint32_t indices = 3 * (1 + (uint32_t(data[2]) | uint32_t(data[3]) << 8));
  const bool normal = data[4] & 1, texcoord = data[4] & 2;
  const char* index_type = data[4] & 4 ? "5123" : "5125";
  const size_t payload = size - 5;
  if (payload == 0) return 0;
  std::string accessors = "{\"componentType\":5126,\"count\":" + std::to_string(vertices) +
                          ",\"type\":\"VEC3\",\"min\":[-1e9,-1e9,-1e9],\"max\":[1e9,1e9,1e9]},"
                          "{\"componentType\":" +
                          index_type + ",\"count\":" + std::to_string(indices) + ",\"type\":\"SCALAR\"}";
  std::string attributes = "\"POSITION\":0", ids = "\"POSITION\":0";
  uint32_t next = 2;
  if (normal) {
    accessors += ",{\"componentType\":5126,\"count\":" + std::to_string(vertices) + ",\"type\":\"VEC3\"}";
    attributes += ",\"NORMAL\":" + std::to_string(next++);
    ids += ",\"NORMAL\":1";
  }
  if (texcoord) {
    accessors += ",{\"componentType\":5126,\"count\":" + std::to_string(vertices) + ",\"type\":\"VEC2\"}";
    attributes += ",\"TEXCOORD_0\":" + std::to_string(next++);
    ids += ",\"TEXCOORD_0\":2";
  }
  const std::string json =
      "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"KHR_draco_mesh_compression\"],"
      "\"extensionsRequired\":[\"KHR_draco_mesh_compression\"],"
      "\"buffers\":[{\"byteLength\":" +
      std::to_string(payload) +
      "}],"
      "\"bufferViews\":[{\"buffer\":0,\"byteLength\":" +
      std::to_string(payload) +
      "}],"
      "\"accessors\":[" +
      accessors +
      "],"
      "\"meshes\":[{\"primitives\":[{\"attributes\":{" +
      attributes +
      "},\"indices\":1,"
      "\"extensions\":{\"KHR_draco_mesh_compression\":{\"bufferView\":0,\"attributes\":{" +
      ids +
      "}}}}]}],"
      "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]}";
  const std::vector<uint8_t> glb_bytes = glbOf(json, data + 5, payload);
  (void)pose(glb_bytes.data(), glb_bytes.size());  // a decoded mesh goes on to posing
  return 0;
}

}  // namespace morphkit::fuzz
