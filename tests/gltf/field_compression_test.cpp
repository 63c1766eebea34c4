// SPDX-License-Identifier: MIT
// Field files, compressed and extended: meshopt and Draco rules and corrupt streams, KHR_texture_transform and
// KHR_texture_basisu through inspect and pose, and inspect --help listing every supported extension.
#include <gtest/gtest.h>

#include <set>
#include <string_view>

#include "field_support.h"
#include "morphkit/image/image.h"
#include "morphkit/model/extensions.h"
#include "texture_support.h"

namespace morphkit {
namespace {

TEST(Meshopt, EveryRuleOfTheExtensionIsChecked) {
  MORPHKIT_REQUIRE_SHARED();
  const GlbFile original = readGlb(fieldDir() / "assets" / "Fox_meshopt.glb");
  ASSERT_TRUE(loadGlb(original).ok());
  struct Case {
    std::string from, to;
    std::vector<const char*> message;
  };
  const std::string v = kFoxMeshoptView1;
  const std::vector<Case> cases = {
      {v,
       "\"buffer\":7,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"ATTRIBUTES\"",
       {"bufferViews[1].extensions.EXT_meshopt_compression.buffer: 7 is out of range"}},
      {v,
       "\"buffer\":1,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"ATTRIBUTES\"",
       {"buffer 1 is a fallback buffer", "Fallback buffers"}},
      {v,
       "\"buffer\":0,\"byteOffset\":46764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"ATTRIBUTES\"",
       {"bufferViews[1].extensions.EXT_meshopt_compression: byteOffset 46764 + byteLength 2125 exceeds buffer 0"}},
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"STRIPS\"",
       {"mode: 'STRIPS' is not ATTRIBUTES, TRIANGLES or INDICES"}},
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":6,\"mode\":\"ATTRIBUTES\"",
       {"byteStride: 6 must be a multiple of 4 in [4, 256] for ATTRIBUTES"}},
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":4,\"mode\":\"ATTRIBUTES\"",
       {"byteStride: 4 differs from the bufferView's byteStride 8"}},
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"INDICES\"",
       {"byteStride: 8 must be 2 or 4 for INDICES"}},
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"ATTRIBUTES\",\"filter\":"
       "\"QUATERNION\"",
       {"byteStride: 8"}},  // QUATERNION needs 8: passes the filter rule, then the stream is decoded
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":2125,\"byteStride\":8,\"mode\":\"ATTRIBUTES\",\"filter\":"
       "\"OCTAGON\"",
       {"filter: 'OCTAGON' is not NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL"}},
      {"\"mode\":\"ATTRIBUTES\",\"count\":434",
       "\"mode\":\"ATTRIBUTES\",\"count\":433",
       {"count 433 x byteStride 8 = 3464 differs from the bufferView's byteLength 3472"}},
      {v,
       "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":20,\"byteStride\":8,\"mode\":\"ATTRIBUTES\"",
       {"3472 decoded bytes cannot come from 20 compressed bytes"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to);
    GlbFile edited = original;
    if (c.from == "\"mode\":\"ATTRIBUTES\",\"count\":434") {
      // bufferView 1 and 2 share this text; edit the first one only.
      const size_t at = edited.json.find(c.from);
      ASSERT_NE(at, std::string::npos);
      edited.json.replace(at, c.from.size(), c.to);
    } else {
      replaceOnce(edited.json, c.from, c.to);
    }
    Expected<Asset> asset = loadGlb(edited);
    if (c.to.find("QUATERNION") != std::string::npos) continue;  // a valid combination: only must not crash
    ASSERT_FALSE(asset.ok());
    for (const char* fragment : c.message) {
      EXPECT_NE(asset.error().message.find(fragment), std::string::npos) << asset.error().message;
    }
    EXPECT_NE(asset.error().message.find("EXT_meshopt_compression"), std::string::npos) << asset.error().message;
  }
}

TEST(Meshopt, FallbackBuffersAreOnlyReferencedByCompressedViews) {
  MORPHKIT_REQUIRE_SHARED();
  GlbFile glb = readGlb(fieldDir() / "assets" / "Fox_meshopt.glb");
  // An image bufferView moved onto the fallback buffer: a plain reference, which the extension forbids.
  replaceOnce(glb.json, "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":26764}",
              "{\"buffer\":1,\"byteOffset\":0,\"byteLength\":26764}");
  Expected<Asset> asset = loadGlb(glb);
  ASSERT_FALSE(asset.ok());
  EXPECT_NE(asset.error().message.find(
                "bufferViews[0]: refers to buffers[1], a fallback buffer, without EXT_meshopt_compression"),
            std::string::npos)
      << asset.error().message;
}

// Every truncated prefix of a compressed stream (the view's byteLength shortened) is refused with a message that
// names the bufferView, and never reads outside the stream (ASan).
TEST(Meshopt, EveryTruncatedStreamIsAnError) {
  MORPHKIT_REQUIRE_SHARED();
  const GlbFile original = readGlb(fieldDir() / "assets" / "Fox_meshopt.glb");
  for (size_t length = 2125 / 64; length < 2125; length += 7) {
    GlbFile edited = original;
    replaceOnce(edited.json, kFoxMeshoptView1,
                "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":" + std::to_string(length) +
                    ",\"byteStride\":8,\"mode\":\"ATTRIBUTES\"");
    Expected<Asset> asset = loadGlb(edited);
    ASSERT_FALSE(asset.ok()) << "length " << length;
    // Below 3472 / 64 bytes the expansion bound refuses it before decoding; above, the decoder does.
    const char* expected =
        length < 3472 / 64 ? "bufferViews[1].extensions.EXT_meshopt_compression: 3472 decoded bytes cannot come from"
                           : "bufferViews[1]: EXT_meshopt_compression ATTRIBUTES stream is corrupt or truncated";
    EXPECT_NE(asset.error().message.find(expected), std::string::npos) << asset.error().message;
  }
}

// Flipped bytes anywhere in every compressed stream: a clean error or (the codec has no checksum) garbage that the
// validation pass then judges; never a crash or an out-of-bounds read.
TEST(Meshopt, FlippedBytesNeverCrash) {
  MORPHKIT_REQUIRE_SHARED();
  const GlbFile original = readGlb(fieldDir() / "assets" / "Fox_meshopt.glb");
  size_t refused = 0, loaded = 0;
  for (size_t offset = 26764; offset < original.bin.size(); offset += 29) {
    GlbFile edited = original;
    edited.bin[offset] ^= 0x5a;
    Expected<Asset> asset = loadGlb(edited);
    if (asset.ok()) {
      ++loaded;
      ASSERT_TRUE(preparePose(*asset).ok());
    } else {
      ++refused;
      EXPECT_EQ(asset.error().message.find('\n'), std::string::npos);
    }
  }
  EXPECT_GT(refused, 0u);
  std::printf("  flipped bytes: %zu refused, %zu decoded to other data\n", refused, loaded);
}

TEST(Draco, AccessorsMustAgreeWithTheDecodedMesh) {
  MORPHKIT_REQUIRE_SHARED();
  const GlbFile original = readGlb(fieldDir() / "assets" / "Fox_draco.glb");
  ASSERT_TRUE(loadGlb(original).ok());
  struct Case {
    std::string from, to, message;
  };
  const std::vector<Case> cases = {
      {"{\"type\":\"VEC2\",\"componentType\":5126,\"count\":434}",
       "{\"type\":\"VEC2\",\"componentType\":5126,\"count\":435}",
       "TEXCOORD_0: accessor 2 (VEC2 f32, count 435) disagrees with the 434 decoded points"},
      {"{\"type\":\"VEC2\",\"componentType\":5126,\"count\":434}",
       "{\"type\":\"VEC3\",\"componentType\":5126,\"count\":434}",
       "TEXCOORD_0: accessor 2 (VEC3 f32, count 434) disagrees with the decoded attribute's 2 components"},
      // Fewer indices than the stream declares faces: refused before decoding (the stream's header is read first).
      {"{\"type\":\"SCALAR\",\"componentType\":5123,\"count\":1728}",
       "{\"type\":\"SCALAR\",\"componentType\":5123,\"count\":1725}",
       "bufferView 3: the Draco stream declares 576 faces but indices accessor 0 holds 1725 indices"},
      // More: found after decoding.
      {"{\"type\":\"SCALAR\",\"componentType\":5123,\"count\":1728}",
       "{\"type\":\"SCALAR\",\"componentType\":5123,\"count\":1731}",
       "indices: accessor 0 (SCALAR, count 1731) disagrees with the 1728 decoded indices"},
      {"\"TEXCOORD_0\":1,", "\"TEXCOORD_0\":9,", "TEXCOORD_0: Draco attribute id 9 is not in the stream"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.to);
    GlbFile edited = original;
    replaceOnce(edited.json, c.from, c.to);
    Expected<Asset> asset = loadGlb(edited);
    ASSERT_FALSE(asset.ok());
    EXPECT_NE(asset.error().message.find(c.message), std::string::npos) << asset.error().message;
    EXPECT_NE(asset.error().message.find("meshes[0].primitives[0]"), std::string::npos) << asset.error().message;
  }
}

// Draco's own stream: truncations and flipped bytes. Draco is not checksummed either; what decodes must still
// pass the accessor checks and the validation pass, and nothing crashes.
TEST(Draco, TruncatedAndFlippedStreamsNeverCrash) {
  MORPHKIT_REQUIRE_SHARED();
  const GlbFile original = readGlb(fieldDir() / "assets" / "Fox_draco.glb");
  // bufferViews[3] is the Draco stream: {"buffer":0,"byteOffset":70640,"byteLength":3566}.
  const std::string view = "{\"buffer\":0,\"byteOffset\":70640,\"byteLength\":3566}";
  ASSERT_NE(original.json.find(view), std::string::npos);
  size_t refused = 0;
  for (size_t length = 1; length < 3566; length += 53) {
    GlbFile edited = original;
    replaceOnce(edited.json, view, "{\"buffer\":0,\"byteOffset\":70640,\"byteLength\":" + std::to_string(length) + "}");
    Expected<Asset> asset = loadGlb(edited);
    ASSERT_FALSE(asset.ok()) << "length " << length;
    EXPECT_NE(asset.error().message.find("KHR_draco_mesh_compression"), std::string::npos) << asset.error().message;
    ++refused;
  }
  for (size_t offset = 70640; offset < 70640 + 3566; offset += 17) {
    GlbFile edited = original;
    edited.bin[offset] ^= 0xa5;
    Expected<Asset> asset = loadGlb(edited);
    if (asset.ok())
      ASSERT_TRUE(preparePose(*asset).ok());
    else
      ++refused;
  }
  EXPECT_GT(refused, 0u);
}

// The CLI on corrupt files: exit 1, exactly one line on stderr naming the object, no crash under ASan.
TEST(CompressedCli, CorruptStreamsAreOneLineErrors) {
  MORPHKIT_REQUIRE_SHARED();
  const std::filesystem::path dir = test::scratchDir();
  GlbFile meshopt = readGlb(fieldDir() / "assets" / "Fox_meshopt.glb");
  replaceOnce(meshopt.json, kFoxMeshoptView1,
              "\"buffer\":0,\"byteOffset\":26764,\"byteLength\":1000,\"byteStride\":8,\"mode\":\"ATTRIBUTES\"");
  test::writeBytes(dir / "truncated_meshopt.glb", assemble(meshopt));
  GlbFile draco = readGlb(fieldDir() / "assets" / "Fox_draco.glb");
  for (size_t k = 0; k < 8; ++k) draco.bin[70640 + k] ^= 0xff;  // the "DRACO" magic and version
  test::writeBytes(dir / "flipped_draco.glb", assemble(draco));
  for (const auto& [file, fragment] : {std::pair{"truncated_meshopt.glb", "bufferViews[1]: EXT_meshopt_compression"},
                                       std::pair{"flipped_draco.glb", "KHR_draco_mesh_compression"}}) {
    for (const char* command : {"inspect", "pose"}) {
      test::CliRun run = test::runMorphkit(dir, std::string(command) + " " + file);
      EXPECT_EQ(run.exit_code, 1) << file << ": " << run.err;
      EXPECT_EQ(run.err.rfind(std::string("morphkit: error: ") + file + ": ", 0), 0u) << run.err;
      EXPECT_NE(run.err.find(fragment), std::string::npos) << run.err;
      EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
      EXPECT_TRUE(run.out.empty()) << run.out;
    }
  }
}

TEST(TextureTransform, MatrixFollowsTheExtension) {
  TextureRef ref;
  EXPECT_EQ(textureTransformMatrix(ref), (std::array<float, 6>{1, 0, 0, 0, 1, 0}));
  ref.has_transform = true;
  ref.transform.offset[0] = 0.25f;
  ref.transform.offset[1] = 0.5f;
  ref.transform.scale[0] = 2.0f;
  ref.transform.scale[1] = 3.0f;
  ref.transform.rotation = float(M_PI / 2);
  // T · R · S with R = [cos sin; -sin cos]: at 90°, u' = 3v + 0.25 and v' = -2u + 0.5.
  const std::array<float, 6> m = textureTransformMatrix(ref);
  const float expected[6] = {0, 3, 0.25f, -2, 0, 0.5f};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(m[k], expected[k], 1e-6) << k;
  EXPECT_EQ(textureCoordinateSet(ref), 0u);
  ref.transform.texcoord = 1;  // the extension's texCoord overrides textureInfo.texCoord
  EXPECT_EQ(textureCoordinateSet(ref), 1u);
}

TEST(TextureTransform, LoadedFromTheFile) {
  MORPHKIT_REQUIRE_SHARED();
  Expected<Asset> asset = loadAsset(fieldDir() / "assets" / "Fox_gltfpack.glb");
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  EXPECT_TRUE(asset->notes.empty()) << asset->notes[0];  // no "not supported; ignored" note any more
  const TextureRef& ref = asset->materials[0].base_color_texture;
  ASSERT_TRUE(ref.has_transform);
  EXPECT_FLOAT_EQ(ref.transform.offset[0], 0.0204429999f);
  EXPECT_FLOAT_EQ(ref.transform.offset[1], 0.0197620001f);
  EXPECT_FLOAT_EQ(ref.transform.scale[0], 15.405014f);
  EXPECT_FLOAT_EQ(ref.transform.scale[1], 15.4472961f);
  EXPECT_EQ(ref.transform.rotation, 0.0f);
}

// Fox.glb (float UVs) and Fox_gltfpack.glb (u16 UVs whose scale and offset live in KHR_texture_transform), each
// posed to OBJ by the CLI: every triangle of one is found in the other by its corner positions, and the corners'
// UVs agree within gltfpack's quantization step (the transform's scale / 65535).
TEST(TextureTransform, ObjUvsOfBothFoxFilesAgree) {
  MORPHKIT_REQUIRE_SHARED();
  const std::filesystem::path dir = test::scratchDir();
  const std::string fox = (test::assetsDir() / "Fox/glTF-Binary/Fox.glb").string();
  const std::string packed = (fieldDir() / "assets" / "Fox_gltfpack.glb").string();
  ASSERT_EQ(test::runMorphkit(dir, "pose '" + fox + "' --out fox.obj").exit_code, 0);
  test::CliRun run = test::runMorphkit(dir, "pose '" + packed + "' --out packed.obj");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const ObjMesh a = parseObj(test::slurp(dir / "fox.obj"));
  const ObjMesh b = parseObj(test::slurp(dir / "packed.obj"));
  ASSERT_EQ(a.faces.size(), b.faces.size());
  ASSERT_FALSE(b.vt.empty());
  // Each triangle of the gltfpack file is matched to the Fox.glb triangles whose corners lie at the same places
  // (within 0.02 units of a 176-unit model; gltfpack's positions are within 3e-5 of it), in the same winding from
  // any start; a triangle may exist twice (both sides of a UV seam), so the closest UVs count.
  auto near = [](const std::array<double, 3>& p, const std::array<double, 3>& q) {
    return std::fabs(p[0] - q[0]) < 0.02 && std::fabs(p[1] - q[1]) < 0.02 && std::fabs(p[2] - q[2]) < 0.02;
  };
  const double step = 15.45 / 65535.0;  // the larger scale of the transform / the u16 range
  double worst = 0;
  size_t matched = 0;
  for (const auto& fb : b.faces) {
    double best = HUGE_VAL;
    for (const auto& fa : a.faces) {
      for (int rotation = 0; rotation < 3; ++rotation) {
        bool same = true;
        for (int k = 0; k < 3 && same; ++k) {
          same = near(a.v[size_t(fa[size_t((k + rotation) % 3)])], b.v[size_t(fb[size_t(k)])]);
        }
        if (!same) continue;
        double d = 0;
        for (int k = 0; k < 3; ++k) {
          const auto& ua = a.vt[size_t(fa[size_t((k + rotation) % 3) + 3])];
          const auto& ub = b.vt[size_t(fb[size_t(k) + 3])];
          d = std::max({d, std::fabs(ua[0] - ub[0]), std::fabs(ua[1] - ub[1])});
        }
        best = std::min(best, d);
      }
    }
    if (best == HUGE_VAL) continue;
    worst = std::max(worst, best);
    ++matched;
  }
  EXPECT_EQ(matched, b.faces.size());
  EXPECT_LE(worst, step) << "worst UV difference " << worst << " vs the quantization step " << step;
  std::printf("  OBJ UVs: %zu of %zu triangles matched, worst UV difference %.3g (step %.3g)\n", matched,
              b.faces.size(), worst, step);
}

// The posed .glb stores the file's TEXCOORDs, so the material keeps KHR_texture_transform as it was.
TEST(TextureTransform, PosedGlbKeepsTheExtension) {
  MORPHKIT_REQUIRE_SHARED();
  const std::filesystem::path dir = test::scratchDir();
  const std::string packed = (fieldDir() / "assets" / "Fox_gltfpack.glb").string();
  test::CliRun run = test::runMorphkit(dir, "pose '" + packed + "' --out posed.glb");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Expected<Asset> posed = loadAsset(dir / "posed.glb");
  ASSERT_TRUE(posed.ok()) << posed.error().message;
  Expected<Asset> source = loadAsset(packed);
  ASSERT_TRUE(source.ok());
  EXPECT_NE(std::find(posed->extensions_used.begin(), posed->extensions_used.end(), "KHR_texture_transform"),
            posed->extensions_used.end());
  ASSERT_EQ(posed->materials.size(), 1u);
  ASSERT_EQ(posed->meshes[0].primitives[0].material, 0u);
  const TextureRef& ref = posed->materials[0].base_color_texture;
  const TextureRef& want = source->materials[0].base_color_texture;
  ASSERT_TRUE(ref.has_transform);
  EXPECT_EQ(textureTransformMatrix(ref), textureTransformMatrix(want));
  ASSERT_EQ(posed->images.size(), 1u);
  EXPECT_NE(posed->images[0].buffer_view, kNone);  // the PNG travels inside the .glb
  // TEXCOORD_0 as stored (dequantized u16, not transformed).
  const uint32_t uv = findAttribute(posed->meshes[0].primitives[0].attributes, "TEXCOORD_0");
  const uint32_t source_uv = findAttribute(source->meshes[0].primitives[0].attributes, "TEXCOORD_0");
  EXPECT_EQ(readAccessorFloats(*posed, uv), readAccessorFloats(*source, source_uv));
}

TEST(TextureBasisu, InspectAndPoseWorkAndNameTheKtx2Textures) {
  const std::filesystem::path dir = test::scratchDir();
  for (bool fallback : {false, true}) {
    SCOPED_TRACE(fallback ? "with fallback" : "KTX2 only");
    test::writeText(dir / "ktx2.gltf", basisuTriangle(fallback));
    Expected<Asset> asset = loadAsset(dir / "ktx2.gltf");
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    EXPECT_EQ(asset->textures[0].basisu_source, 0u);
    EXPECT_TRUE(isKtx2Image(*asset, 0));
    test::CliRun run = test::runMorphkit(dir, "inspect ktx2.gltf");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("textures[0]: images[0] is KTX2"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find(fallback ? "render uses the fallback images[1]" : "no fallback"), std::string::npos)
        << run.out;
    run = test::runMorphkit(dir, "inspect --json ktx2.gltf");
    ASSERT_EQ(run.exit_code, 0);
    test::Json doc;
    ASSERT_TRUE(test::JsonParser(run.out).parse(doc));
    const test::Json& t = doc.get("textures")->items.at(0);
    EXPECT_TRUE(t.get("ktx2")->boolean);
    EXPECT_EQ(t.get("ktx2Image")->number, 0);
    EXPECT_EQ(t.get("drawable")->boolean, fallback);
    run = test::runMorphkit(dir, "pose ktx2.gltf --out ktx2.obj");
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_TRUE(std::filesystem::exists(dir / "ktx2.obj"));
  }
}

// EXT_texture_webp: the texture's image is the extension's source (the fallback `source` kept beside it); every
// command that loads files takes it: inspect names it, pose, check and render's loader read the file.
TEST(TextureWebp, LoadsAndEveryCommandReadsIt) {
  const std::vector<uint8_t> pixels = {200, 40, 40, 255, 40, 200, 40, 255, 40, 40, 200, 255, 90, 90, 90, 255};
  auto webp = encodeWebp(pixels, 2, 2, {.lossless = true, .quality = 50});
  auto png = encodePng(pixels, 2, 2);
  ASSERT_TRUE(webp.ok() && png.ok());
  const std::filesystem::path dir = test::scratchDir();
  for (bool fallback : {false, true}) {
    SCOPED_TRACE(fallback ? "with fallback" : "WebP only");
    test::writeText(dir / "webp.gltf", fallback ? test::webpTriangle(*webp, *png) : test::webpTriangle(*webp));
    Expected<Asset> asset = loadAsset(dir / "webp.gltf");
    ASSERT_TRUE(asset.ok()) << asset.error().message;
    EXPECT_EQ(asset->textures[0].webp_source, 0u);
    EXPECT_EQ(asset->textures[0].source, fallback ? 1u : kNone);
    EXPECT_EQ(drawnTextureImage(*asset, asset->textures[0]), 0u);
    auto bytes = imageBytes(*asset, drawnTextureImage(*asset, asset->textures[0]));
    ASSERT_TRUE(bytes.ok());
    auto decoded = decodeImage(*bytes);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    EXPECT_EQ(decoded->rgba, pixels);
    test::CliRun run = test::runMorphkit(dir, "inspect --json webp.gltf");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    test::Json doc;
    ASSERT_TRUE(test::JsonParser(run.out).parse(doc));
    const test::Json& t = doc.get("textures")->items.at(0);
    EXPECT_EQ(t.get("webpImage")->number, 0);
    EXPECT_TRUE(t.get("drawable")->boolean);
    EXPECT_FALSE(t.get("ktx2")->boolean);
    run = test::runMorphkit(dir, "pose webp.gltf --out webp.obj");
    EXPECT_EQ(run.exit_code, 0) << run.err;
    // The .mtl names the PNG fallback; a lone WebP is no .mtl texture, and pose says so.
    EXPECT_EQ(run.err.find("images[0]: not a PNG or JPEG") == std::string::npos, fallback) << run.err;
    run = test::runMorphkit(dir, "check webp.gltf");
    EXPECT_NE(run.out.find("webp.gltf"), std::string::npos) << run.out << run.err;
    EXPECT_EQ(run.err.find("EXT_texture_webp"), std::string::npos) << run.err;
  }
}

TEST(SupportedExtensions, InspectHelpListsEveryOne) {
  const std::filesystem::path dir = test::scratchDir();
  test::CliRun run = test::runMorphkit(dir, "inspect --help");
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_GE(gltfExtensions().size(), 5u);
  for (const GltfExtension& e : gltfExtensions()) {
    EXPECT_NE(run.out.find(std::string(e.name) + ": " + std::string(e.summary)), std::string::npos) << e.name;
  }
  // docs/CLI.md lists them too.
  const std::string cli_md = test::slurp(test::sourceDir() / "docs" / "CLI.md");
  for (const GltfExtension& e : gltfExtensions()) EXPECT_NE(cli_md.find(e.name), std::string::npos) << e.name;
}

// The one registry: a row per name, found by name; what inspect reports follows its columns; the writers drop only
// the decoded extensions they do not write (Draco) and require what a reader needs (quantization, meshopt).
TEST(SupportedExtensions, TheRegistryIsOneRowPerExtension) {
  std::set<std::string_view> names;
  for (const GltfExtension& e : gltfExtensions()) {
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
    EXPECT_EQ(findGltfExtension(e.name), &e);
    EXPECT_FALSE(e.summary.empty()) << e.name;
    EXPECT_TRUE(e.written || e.decoded) << e.name;
  }
  EXPECT_EQ(findGltfExtension("EXT_mesh_gpu_instancing"), nullptr);
  EXPECT_EQ(extensionHandling("EXT_mesh_gpu_instancing"), "not implemented");
  EXPECT_EQ(extensionHandling(kDracoExtension), "decoded at load");
  EXPECT_EQ(extensionHandling("KHR_materials_sheen"), "shaded");
  EXPECT_EQ(extensionHandling(kMeshQuantizationExtension), "read");
  EXPECT_FALSE(findGltfExtension(kDracoExtension)->written);
  EXPECT_TRUE(findGltfExtension(kMeshQuantizationExtension)->required_when_written);
  EXPECT_TRUE(findGltfExtension(kMeshoptExtension)->required_when_written);
}

}  // namespace
}  // namespace morphkit
