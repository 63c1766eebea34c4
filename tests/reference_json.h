// SPDX-License-Identifier: MIT
// reference_json.h — reading ../shared/reference (and ../shared/field/reference) files and comparing a PoseResult
// with one of their cases, with the tolerances their README.md states. Shared by the CPU and GPU differential tests.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "morphkit/core/pose.h"
#include "morphkit/model/files.h"

namespace morphkit::test {

// ---- A tiny JSON reader, enough for the reference files (numeric arrays are kept as doubles) ------------------
struct Json {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Json> items;                           // arrays of non-numbers
  std::vector<double> numbers;                       // arrays of numbers only
  std::vector<std::pair<std::string, Json>> fields;  // objects

  const Json* get(std::string_view key) const {
    for (const auto& [k, v] : fields) {
      if (k == key) return &v;
    }
    return nullptr;
  }
};

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : s_(text) {}
  bool parse(Json& out) {
    if (!value(out)) return false;
    ws();
    return pos_ == s_.size();
  }

 private:
  void ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool number(double& out) {
    const char* begin = s_.data() + pos_;
    char* end = nullptr;
    out = std::strtod(begin, &end);
    if (end == begin) return false;
    pos_ += size_t(end - begin);
    return true;
  }
  bool string(std::string& out) {
    if (s_[pos_] != '"') return false;
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ++pos_;  // escapes kept literally (only names here)
      out += s_[pos_++];
    }
    if (pos_ >= s_.size()) return false;
    ++pos_;
    return true;
  }
  bool value(Json& out) {
    ws();
    if (pos_ >= s_.size()) return false;
    const char c = s_[pos_];
    if (c == 'n') return out.kind = Json::kNull, literal("null");
    if (c == 't') return out.kind = Json::kBool, out.boolean = true, literal("true");
    if (c == 'f') return out.kind = Json::kBool, out.boolean = false, literal("false");
    if (c == '"') return out.kind = Json::kString, string(out.text);
    if (c == '[') {
      out.kind = Json::kArray;
      ++pos_;
      ws();
      if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
      const bool numeric = s_[pos_] == '-' || std::isdigit(static_cast<unsigned char>(s_[pos_]));
      for (;;) {
        if (numeric) {
          double d;
          ws();
          if (!number(d)) return false;
          out.numbers.push_back(d);
        } else {
          out.items.emplace_back();
          if (!value(out.items.back())) return false;
        }
        ws();
        if (pos_ >= s_.size()) return false;
        if (s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (s_[pos_] == ']') return ++pos_, true;
        return false;
      }
    }
    if (c == '{') {
      out.kind = Json::kObject;
      ++pos_;
      ws();
      if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
      for (;;) {
        ws();
        std::string key;
        if (pos_ >= s_.size() || !string(key)) return false;
        ws();
        if (pos_ >= s_.size() || s_[pos_] != ':') return false;
        ++pos_;
        out.fields.emplace_back(std::move(key), Json{});
        if (!value(out.fields.back().second)) return false;
        ws();
        if (pos_ >= s_.size()) return false;
        if (s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (s_[pos_] == '}') return ++pos_, true;
        return false;
      }
    }
    out.kind = Json::kNumber;
    return number(out.number);
  }
  std::string_view s_;
  size_t pos_ = 0;
};

// Reads and parses a reference file; fails the current test (and returns false) when it cannot.
inline bool loadReference(const std::filesystem::path& path, Json& out) {
  Expected<std::vector<uint8_t>> bytes = readFile(path);
  if (!bytes.ok()) {
    ADD_FAILURE() << path << ": " << bytes.error().message;
    return false;
  }
  if (!JsonParser(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size())).parse(out)) {
    ADD_FAILURE() << "unparsable reference " << path;
    return false;
  }
  const Json* cases = out.get("cases");
  if (!cases || cases->kind != Json::kArray || cases->items.empty()) {
    ADD_FAILURE() << path << ": no cases";
    return false;
  }
  return true;
}

// A reference case's animation (kNone for null) and time.
inline uint32_t caseAnimation(const Json& c) {
  const Json* anim = c.get("anim");
  return anim && anim->kind == Json::kNumber ? uint32_t(anim->number) : kNone;
}
inline double caseTime(const Json& c) {
  const Json* time = c.get("time");
  return time ? time->number : 0.0;
}

struct ReferenceStats {
  int cases = 0;
  double worst_position_ratio = 0;     // max |Δ| / tolerance over every position
  double worst_position_relative = 0;  // max |Δ| / bbox diagonal
  double worst_normal = 0;
};

inline double bboxDiagonalOf(const std::vector<double>& xyz) {
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (size_t k = 0; k < xyz.size(); ++k) {
    lo[k % 3] = std::min(lo[k % 3], xyz[k]);
    hi[k % 3] = std::max(hi[k % 3], xyz[k]);
  }
  if (xyz.empty()) return 0;
  return std::sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                   (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

// Compares `got` with one reference case: same (node, mesh, primitive) entries, weights within 1e-6, positions
// within position_tolerance × the entry's bounding-box diagonal, normals within 1e-4 (README.md).
inline void expectMatchesCase(const PoseResult& got_pose, const Json& c, double position_tolerance,
                              ReferenceStats& stats) {
  const Json* meshes = c.get("meshes");
  ASSERT_TRUE(meshes && meshes->kind == Json::kArray);
  ASSERT_EQ(got_pose.meshes.size(), meshes->items.size());
  ++stats.cases;
  for (size_t i = 0; i < meshes->items.size(); ++i) {
    const Json& want = meshes->items[i];
    const PosedPrimitive& got = got_pose.meshes[i];
    ASSERT_EQ(got.node, uint32_t(want.get("node")->number));
    ASSERT_EQ(got.mesh, uint32_t(want.get("mesh")->number));
    ASSERT_EQ(got.primitive, uint32_t(want.get("primitive")->number));
    EXPECT_EQ(got.skinned, want.get("skinned")->boolean);
    ASSERT_EQ(got.vertex_count, uint32_t(want.get("vertexCount")->number));
    const std::vector<double>& ww = want.get("weights")->numbers;
    ASSERT_EQ(got.weights.size(), ww.size());
    for (size_t k = 0; k < ww.size(); ++k) EXPECT_NEAR(got.weights[k], ww[k], 1e-6) << "weight " << k;

    const std::vector<double>& wp = want.get("positions")->numbers;
    ASSERT_EQ(got.positions.size(), wp.size());
    const double diagonal = bboxDiagonalOf(wp);
    const double tol = std::max(position_tolerance * diagonal, 1e-7);
    int reported = 0;
    for (size_t k = 0; k < wp.size(); ++k) {
      const double err = std::fabs(double(got.positions[k]) - wp[k]);
      stats.worst_position_ratio = std::max(stats.worst_position_ratio, err / tol);
      if (diagonal > 0) stats.worst_position_relative = std::max(stats.worst_position_relative, err / diagonal);
      if (!(err <= tol) && reported++ < 5) {
        ADD_FAILURE() << "mesh entry " << i << " position[" << k << "] = " << got.positions[k] << ", reference "
                      << wp[k] << " (tolerance " << tol << ")";
      }
    }
    const Json* wn = want.get("normals");
    if (wn->kind == Json::kNull) {
      EXPECT_TRUE(got.normals.empty());
    } else {
      ASSERT_EQ(got.normals.size(), wn->numbers.size());
      for (size_t k = 0; k < wn->numbers.size(); ++k) {
        const double err = std::fabs(double(got.normals[k]) - wn->numbers[k]);
        stats.worst_normal = std::max(stats.worst_normal, err);
        if (!(err <= 1e-4) && reported++ < 10) {
          ADD_FAILURE() << "mesh entry " << i << " normal[" << k << "] = " << got.normals[k] << ", reference "
                        << wn->numbers[k];
        }
      }
    }
  }
}

inline std::string caseName(const std::string& model, const Json& c) {
  const uint32_t anim = caseAnimation(c);
  return model + " anim " + (anim == kNone ? std::string("null") : std::to_string(anim)) +
         " t=" + std::to_string(caseTime(c));
}

}  // namespace morphkit::test
