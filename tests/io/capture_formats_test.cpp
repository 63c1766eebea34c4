// SPDX-License-Identifier: MIT
// Tests for the capture formats (morphkit/io/capture.h, morphkit/io/capture_file.h): one capture written as MediaPipe
// (Python and JS layouts), Audio2Face, iFacialMocap and a plain CSV reads back to the same channels and values;
// detection by content; every truncated prefix of each format is a shorter capture or one error line; the bad
// inputs each name their frame and field; the name normalizer and the built-in maps.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "capture_formats_util.h"
#include "capture_test_util.h"
#include "gltf_test_util.h"
#include "morphkit/demo/demo.h"
#include "morphkit/io/capture_file.h"

namespace morphkit {
namespace {

Capture appCapture(size_t rows) {
  Expected<Capture> csv = parseCaptureCsv(test::appCsv(rows));
  EXPECT_TRUE(csv.ok()) << csv.error().message;
  return csv ? std::move(*csv) : Capture{};
}

// A tiny capture for the prefix sweeps: 3 frames of 3 shapes.
Capture tinyCapture() {
  Capture c;
  c.columns = {"JawOpen", "EyeBlinkLeft", "MouthSmileRight"};
  c.times = {0.0f, 1.0f / 30, 2.0f / 30};
  c.values = {0.25f, 0.5f, 0.75f, 0.125f, 1.0f, 0.0f, 0.375f, 0.0625f, 0.5f};
  return c;
}

std::string errorOf(std::string_view text, const CaptureOptions& options = {}) {
  Expected<Capture> parsed = parseCapture(text, options);
  EXPECT_FALSE(parsed.ok()) << "parsed: " << text.substr(0, 120);
  return parsed ? std::string() : parsed.error().message;
}

struct Written {
  const char* name;
  CaptureFormat format;
  std::string text;
};

std::vector<Written> everyFormat(const Capture& capture) {
  return {{"mediapipe python", CaptureFormat::kMediaPipe, test::toMediaPipePython(capture)},
          {"mediapipe js lines", CaptureFormat::kMediaPipe, test::toMediaPipeJsLines(capture)},
          {"a2f", CaptureFormat::kA2f, test::toA2f(capture, 60.0)},
          {"ifacialmocap", CaptureFormat::kIFacialMocap, test::toIFacialMocap(capture)},
          {"csv", CaptureFormat::kCsv, test::toTimeCsv(capture)}};
}

TEST(CaptureFormats, EveryFormatReadsBackTheSameChannelsAndValues) {
  const Capture source = appCapture(20);
  const std::vector<size_t> shapes = test::shapeColumns(source);
  ASSERT_EQ(shapes.size(), 52u);
  for (const Written& w : everyFormat(source)) {
    SCOPED_TRACE(w.name);
    Expected<CaptureFormat> detected = detectCaptureFormat(w.text);
    ASSERT_TRUE(detected.ok()) << detected.error().message;
    EXPECT_EQ(*detected, w.format);
    Expected<Capture> parsed = parseCapture(w.text);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->format, w.format);
    ASSERT_EQ(parsed->rows(), source.rows());
    const size_t extra = w.format == CaptureFormat::kMediaPipe && std::string(w.name) == "mediapipe python" ? 1 : 0;
    ASSERT_EQ(parsed->columns.size(), shapes.size() + extra);
    for (size_t s = 0; s < shapes.size(); ++s) {
      EXPECT_EQ(normalizeCaptureName(parsed->columns[s + extra]), normalizeCaptureName(source.columns[shapes[s]]));
    }
    for (size_t r = 0; r < source.rows(); ++r) {
      if (w.format == CaptureFormat::kA2f) {
        EXPECT_FLOAT_EQ(parsed->times[r], float(double(r) / 60.0));
      } else {
        EXPECT_NEAR(parsed->times[r], source.times[r], 1e-6) << r;
      }
      for (size_t s = 0; s < shapes.size(); ++s) {
        const float want = source.values[r * source.columns.size() + shapes[s]];
        const float got = parsed->values[r * parsed->columns.size() + s + extra] / parsed->full_scale;
        if (w.format == CaptureFormat::kIFacialMocap) {
          EXPECT_NEAR(got, want, 0.005f + 1e-6f);
        } else {
          EXPECT_EQ(got, want) << r << " " << s;
        }
      }
    }
  }
  // The Live Link CSV itself.
  Expected<CaptureFormat> livelink = detectCaptureFormat(test::appCsv(2));
  ASSERT_TRUE(livelink.ok());
  EXPECT_EQ(*livelink, CaptureFormat::kLiveLink);
}

TEST(CaptureFormats, EveryTruncatedPrefixIsAShorterCaptureOrOneErrorLine) {
  const Capture tiny = tinyCapture();
  std::vector<Written> formats = everyFormat(tiny);
  formats.push_back({"livelink", CaptureFormat::kLiveLink,
                     "Timecode,BlendShapeCount,JawOpen,EyeBlinkLeft\n00:00:01:00.000,61,0.5,0.25\n"
                     "00:00:01:01.500,61,0.75,0\n"});
  for (const Written& w : formats) {
    SCOPED_TRACE(w.name);
    size_t parsed = 0;
    for (size_t n = 0; n <= w.text.size(); ++n) {
      const std::string_view prefix(w.text.data(), n);
      for (CaptureFormat format : {CaptureFormat::kAuto, w.format}) {
        CaptureOptions options;
        options.format = format;
        Expected<Capture> capture = parseCapture(prefix, options);
        if (capture) {
          ++parsed;
          EXPECT_GE(capture->rows(), 1u);
          EXPECT_LE(capture->rows(), 3u);
          EXPECT_EQ(capture->values.size(), capture->rows() * capture->columns.size());
        } else {
          EXPECT_FALSE(capture.error().message.empty());
          EXPECT_EQ(capture.error().message.find('\n'), std::string::npos) << capture.error().message;
        }
      }
    }
    EXPECT_GT(parsed, 0u);  // the whole text at least
  }
}

TEST(CaptureFormats, BadMediaPipeNamesTheFrameAndField) {
  EXPECT_EQ(errorOf("[{\"blendshapes\": []}]"), "frames[0]: no timestamp_ms (or timestampMs)");
  EXPECT_EQ(errorOf("[{\"timestamp_ms\": \"0\", \"blendshapes\": []}]"),
            "frames[0].timestamp_ms: must be a finite number");
  EXPECT_EQ(errorOf("[{\"timestamp_ms\": 0}]"), "frames[0]: no blendshapes (or faceBlendshapes, face_blendshapes)");
  EXPECT_EQ(errorOf("[{\"timestamp_ms\": 0, \"blendshapes\": [{\"category_name\": \"jawOpen\", \"score\": \"x\"}]}]"),
            "frames[0].blendshapes[0].score: must be a finite number");
  EXPECT_EQ(errorOf("[{\"timestamp_ms\": 0, \"blendshapes\": [{\"category_name\": 3, \"score\": 1}]}]"),
            "frames[0].blendshapes[0].category_name: must be a non-empty string");
  const std::string two = R"([{"timestamp_ms": 10, "blendshapes": [{"category_name": "jawOpen", "score": 1}]},
 {"timestamp_ms": 5, "blendshapes": [{"category_name": "jawOpen", "score": 1}]}])";
  EXPECT_EQ(errorOf(two), "frames[1].timestamp_ms: 5.000000 is not after frames[0]'s (timestamps must increase)");
  const std::string nan = R"([{"timestamp_ms": 0, "blendshapes": [{"category_name": "jawOpen", "score": NaN}]}])";
  const std::string nan_error = errorOf(nan);
  EXPECT_NE(nan_error.find("NaN and Infinity are not JSON numbers"), std::string::npos) << nan_error;
  EXPECT_EQ(nan_error.rfind("line 1, column ", 0), 0u) << nan_error;
  EXPECT_EQ(errorOf("{\"timestampMs\": 0, \"faceBlendshapes\": [{\"categories\": 4}]}\n"),
            "line 1: frames[0].faceBlendshapes[0].categories: must be an array of categories");
  const std::string lines =
      "{\"timestampMs\": 0, \"blendshapes\": [{\"categoryName\": \"a\", \"score\": 0}]}\n"
      "{\"timestampMs\": 1, \"blendshapes\": [{\"categoryName\": \"b\", \"score\": 0}]}\n";
  EXPECT_EQ(errorOf(lines), "line 2: frames[1].blendshapes[0]: 'b' is not a category of the first frame");
  EXPECT_EQ(errorOf("[1, 2]"), "frames[0]: a frame must be an object");
  EXPECT_EQ(errorOf("[]"), "no frames (expected [{\"timestamp_ms\": ..., \"blendshapes\": [...]}, ...])");
}

TEST(CaptureFormats, MediaPipeFacePicksOneOfSeveralAndSkipsFramesWithout) {
  const std::string text = R"([
 {"timestamp_ms": 0, "face_blendshapes": [[{"category_name": "jawOpen", "score": 0.1}],
                                          [{"category_name": "jawOpen", "score": 0.9}]]},
 {"timestamp_ms": 40, "face_blendshapes": [[{"category_name": "jawOpen", "score": 0.2}]]},
 {"timestamp_ms": 80, "face_blendshapes": [[{"category_name": "jawOpen", "score": 0.3}],
                                           [{"category_name": "jawOpen", "score": 0.7}]]}])";
  Expected<Capture> first = parseCapture(text);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->values, (std::vector<float>{0.1f, 0.2f, 0.3f}));
  EXPECT_EQ(first->skipped_frames, 0u);
  CaptureOptions second_face;
  second_face.face = 1;
  Expected<Capture> second = parseCapture(text, second_face);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->values, (std::vector<float>{0.9f, 0.7f}));
  EXPECT_EQ(second->times, (std::vector<float>{0.0f, 0.08f}));
  EXPECT_EQ(second->skipped_frames, 1u);
  second_face.face = 2;
  EXPECT_EQ(errorOf(text, second_face), "none of the 3 frames has face 2 (--face picks another)");
}

TEST(CaptureFormats, BadAudio2FaceNamesTheField) {
  auto a2f = [](std::string body) { return "{\"facsNames\": [\"jawOpen\", \"eyeBlinkLeft\"], " + body + "}"; };
  EXPECT_EQ(errorOf(a2f("\"numPoses\": 2, \"numFrames\": 1, \"weightMat\": [[0, 1]]")),
            "exportFps: missing (or give --capture-fps)");
  EXPECT_EQ(errorOf(a2f("\"exportFps\": 30, \"numPoses\": 2.5, \"numFrames\": 1, \"weightMat\": [[0, 1]]")),
            "numPoses: must be a whole number >= 0");
  EXPECT_EQ(errorOf(a2f("\"exportFps\": 30, \"numPoses\": 3, \"numFrames\": 1, \"weightMat\": [[0, 1]]")),
            "facsNames: 2 names, numPoses is 3");
  EXPECT_EQ(errorOf(a2f("\"exportFps\": 30, \"numPoses\": 2, \"numFrames\": 2, \"weightMat\": [[0, 1]]")),
            "weightMat: 1 frames, numFrames is 2");
  EXPECT_EQ(errorOf(a2f("\"exportFps\": 30, \"numPoses\": 2, \"numFrames\": 2, \"weightMat\": [[0, 1], [0]]")),
            "weightMat[1]: 1 values, numPoses is 2");
  EXPECT_EQ(errorOf(a2f("\"exportFps\": 30, \"numPoses\": 2, \"numFrames\": 1, \"weightMat\": [[0, null]]")),
            "weightMat[0][1] (eyeBlinkLeft): must be a finite number");
  EXPECT_EQ(errorOf(a2f("\"exportFps\": -1, \"numPoses\": 2, \"numFrames\": 1, \"weightMat\": [[0, 1]]")),
            "exportFps: must be a number > 0");
  EXPECT_EQ(errorOf("{\"facsNames\": [\"a\", \"a\"], \"exportFps\": 30, \"numPoses\": 2, \"numFrames\": 1, "
                    "\"weightMat\": [[0, 1]]}"),
            "facsNames[1]: 'a' repeats facsNames[0]");
  const std::string cut = errorOf("{\"facsNames\": [\"jawOpen\"], \"weightMat\": [[0.5,");
  EXPECT_EQ(cut.rfind("line 1, column ", 0), 0u) << cut;
  // --capture-fps replaces exportFps.
  CaptureOptions fps;
  fps.fps = 10;
  Expected<Capture> ten = parseCapture(
      a2f("\"exportFps\": 30, \"numPoses\": 2, \"numFrames\": 3, \"weightMat\": [[0, 1], [1, 0], [0.5, 0.5]]"), fps);
  ASSERT_TRUE(ten.ok()) << ten.error().message;
  EXPECT_EQ(ten->times, (std::vector<float>{0.0f, 0.1f, 0.2f}));
}

TEST(CaptureFormats, BadIFacialMocapNamesTheLineAndItem) {
  EXPECT_EQ(errorOf("eyeBlink_L-54|jawOpen-12|\n"),
            "line 1: the packets carry no times; give their frame rate (--capture-fps)");
  CaptureOptions fps;
  fps.fps = 60;
  Expected<Capture> ok = parseCapture("eyeBlink_L-54|jawOpen-12|=head#1,2,3,4,5,6|\njawOpen-0|eyeBlink_L-100|\n", fps);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->columns, (std::vector<std::string>{"eyeBlink_L", "jawOpen"}));
  EXPECT_EQ(ok->values, (std::vector<float>{54, 12, 100, 0}));
  EXPECT_EQ(ok->times, (std::vector<float>{0.0f, float(1.0 / 60)}));
  EXPECT_EQ(ok->full_scale, 100.0f);
  EXPECT_EQ(errorOf("jawOpen-101|\n", fps), "line 1, item 1 (jawOpen): '101' is not an integer 0-100");
  EXPECT_EQ(errorOf("jawOpen-0.5|\n", fps), "line 1, item 1 (jawOpen): '0.5' is not an integer 0-100");
  EXPECT_EQ(errorOf("jawOpen|\n", fps), "line 1, item 1 (jawOpen): expected NAME-VALUE");
  EXPECT_EQ(errorOf("jawOpen-1|\njawOpen-2|mouthClose-3|\n", fps),
            "line 2, item 2 (mouthClose): not in the first packet");
  EXPECT_EQ(errorOf("jawOpen-1|mouthClose-3|\njawOpen-2|\n", fps), "line 2: no 'mouthClose' (the first packet has it)");
  EXPECT_EQ(errorOf("jawOpen-1|jawOpen-3|\n", fps), "line 1, item 2 (jawOpen): listed twice in the packet");
  EXPECT_EQ(errorOf("0.5,jawOpen-1|\n0.25,jawOpen-3|\n"),
            "line 2, time: '0.25' goes back before line 1's (times must increase)");
  EXPECT_EQ(errorOf("0.5,jawOpen-1|\njawOpen-3|\n"), "line 2: no leading time (line 1 has one)");
  EXPECT_EQ(errorOf("nan,jawOpen-1|\n"), "line 1, time: 'nan' is not a time in seconds");
}

TEST(CaptureFormats, BadCsvAndUnknownFormats) {
  EXPECT_EQ(errorOf("time,jawOpen\n0,0.5\n0.5,nan\n"), "line 3, column 2 (jawOpen): 'nan' is not a finite number");
  EXPECT_EQ(errorOf("time,jawOpen\n0,0.5\n0,0.25\n"),
            "line 3, column 1 (time): 0 repeats line 2's 0 (times must increase)");
  EXPECT_EQ(errorOf("time,jawOpen\n0,0.5\n00:00:01:00,0.25\n"),
            "line 3, column 1 (time): '00:00:01:00' is not a time in seconds (a finite number, as on the first row)");
  CaptureOptions fps30;
  fps30.timecode_fps = 30;
  Expected<Capture> timecodes = parseCapture("t,jawOpen\n01:00:00:00,0\n01:00:00:15,1\n", fps30);
  ASSERT_TRUE(timecodes.ok()) << timecodes.error().message;
  EXPECT_EQ(timecodes->times, (std::vector<float>{0.0f, 0.5f}));
  EXPECT_EQ(timecodes->format, CaptureFormat::kCsv);
  EXPECT_EQ(errorOf(""), "empty file (not a capture)");
  EXPECT_EQ(errorOf("hello world\n"),
            "line 1: 'hello world' is not a known capture format (a CSV header, iFacialMocap packets NAME-VALUE|..., "
            "or MediaPipe / Audio2Face JSON; --capture-format names the format)");
  EXPECT_NE(errorOf(std::string("\x89PNG\r\n\x1a\n\0\0", 10)).find("is not a known capture format"), std::string::npos);
  CaptureFormat format;
  EXPECT_FALSE(parseCaptureFormatName("bvh", format));
  EXPECT_TRUE(parseCaptureFormatName("ifacialmocap", format));
  EXPECT_EQ(format, CaptureFormat::kIFacialMocap);
}

TEST(CaptureNames, OneNormalizerForCaseSeparatorsSidesAndPrefixes) {
  for (const char* name : {"EyeBlinkLeft", "eyeBlinkLeft", "eyeBlink_L", "eye_blink_left", "EYE-BLINK-L",
                           "blendShape1.eyeBlinkLeft", "Face.eyeBlink_L", "eye blink Left"}) {
    EXPECT_EQ(normalizeCaptureName(name), "eyeblinkl") << name;
  }
  EXPECT_EQ(normalizeCaptureName("mouthRight"), "mouthr");
  EXPECT_EQ(normalizeCaptureName("jawOpen"), "jawopen");
  EXPECT_EQ(normalizeCaptureName("left"), "left");  // a bare side word is not a suffix
  const std::vector<std::string> meshes = {"Head_Mesh"};
  EXPECT_EQ(normalizeCaptureName("head_mesh_jawOpen", meshes), "jawopen");
  EXPECT_EQ(normalizeCaptureName("HeadMesh-jawOpen", meshes), "jawopen");
  EXPECT_EQ(normalizeCaptureName("headmeshjawOpen", meshes), "headmeshjawopen");  // no separator: not a prefix
}

// The demo head with its targets renamed to `names` (the rest keep their ARKit names).
Asset renamedHead(const std::vector<std::pair<std::string, std::string>>& names) {
  Expected<Asset> demo = makeDemoAsset({.targets = 52, .vertices = 300, .bones = 2});
  EXPECT_TRUE(demo.ok());
  Asset asset = std::move(*demo);
  for (const auto& [from, to] : names) {
    auto& list = asset.meshes[0].target_names;
    auto it = std::find(list.begin(), list.end(), from);
    EXPECT_NE(it, list.end()) << from;
    if (it != list.end()) *it = to;
  }
  return test::validated(std::move(asset));
}

TEST(CaptureNames, BuiltinMapsDriveVrmPresetsAndVisemes) {
  EXPECT_EQ(builtinCaptureMapNames().size(), 3u);
  EXPECT_EQ(builtinCaptureMap("nosuch"), nullptr);
  const Capture capture = appCapture(4);
  auto value = [&](size_t row, std::string_view column) {
    const size_t c =
        size_t(std::find(capture.columns.begin(), capture.columns.end(), column) - capture.columns.begin());
    return capture.values[row * capture.columns.size() + c];
  };
  auto trackValue = [](const CaptureMatch& m, size_t row, std::string_view name) {
    const size_t c = size_t(std::find(m.track.names.begin(), m.track.names.end(), name) - m.track.names.begin());
    EXPECT_LT(c, m.track.names.size()) << name;
    return c < m.track.names.size() ? m.track.keys.values[row * m.track.names.size() + c] : -1.0f;
  };
  const Asset vrm = renamedHead(
      {{"eyeBlinkLeft", "blinkLeft"}, {"jawOpen", "aa"}, {"mouthSmileLeft", "happy"}, {"mouthPucker", "ou"}});
  const CaptureMatch to_vrm = matchCapture(vrm, capture, builtinCaptureMap("arkit-to-vrm"));
  EXPECT_TRUE(to_vrm.unknown_map_targets.empty());
  for (size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(trackValue(to_vrm, r, "blinkLeft"), value(r, "EyeBlinkLeft"));
    EXPECT_EQ(trackValue(to_vrm, r, "aa"), value(r, "JawOpen"));
    EXPECT_EQ(trackValue(to_vrm, r, "ou"), value(r, "MouthPucker"));
    EXPECT_FLOAT_EQ(trackValue(to_vrm, r, "happy"), 0.5f * (value(r, "MouthSmileLeft") + value(r, "MouthSmileRight")));
  }
  // Entries whose preset the rig lacks (blinkRight, ...) are unmatched channels, not unknown-target errors.
  EXPECT_NE(std::find(to_vrm.unmatched_columns.begin(), to_vrm.unmatched_columns.end(), "EyeBlinkRight"),
            to_vrm.unmatched_columns.end());
  const Asset oculus =
      renamedHead({{"jawOpen", "viseme_aa"}, {"mouthFunnel", "viseme_O"}, {"mouthPressLeft", "viseme_PP"}});
  const CaptureMatch to_oculus = matchCapture(oculus, capture, builtinCaptureMap("arkit-to-oculus-visemes"));
  for (size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(trackValue(to_oculus, r, "viseme_aa"), value(r, "JawOpen"));
    EXPECT_EQ(trackValue(to_oculus, r, "viseme_O"), value(r, "MouthFunnel"));
    EXPECT_FLOAT_EQ(trackValue(to_oculus, r, "viseme_PP"),
                    0.5f * (value(r, "MouthPressLeft") + value(r, "MouthPressRight")));
  }
  const Asset arkit = renamedHead({});
  const CaptureMatch identity = matchCapture(arkit, capture, builtinCaptureMap("arkit"));
  EXPECT_EQ(identity.matched_columns.size(), 52u);
  EXPECT_TRUE(identity.unmatched_targets.empty());
}

}  // namespace
}  // namespace morphkit
