// SPDX-License-Identifier: MIT
// pose_writers.cpp — a PoseResult as reference-schema JSON and as Wavefront OBJ.
#include "morphkit/io/pose_writers.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <vector>

#include "morphkit/core/pose_arrays.h"
#include "morphkit/io/json_writer.h"

namespace morphkit {

std::string writePoseJson(std::span<const PoseResult> cases, std::string_view model, bool pretty) {
  JsonWriter w(pretty);
  w.beginObject();
  w.field("model", model);
  w.field("engine", "morphkit");
  w.key("cases").beginArray();
  for (const PoseResult& c : cases) {
    w.beginObject();
    w.key("anim");
    if (c.animation == kNone) {
      w.null();
    } else {
      w.value(c.animation);
    }
    w.field("time", c.time);
    w.key("meshes").beginArray();
    for (const PosedPrimitive& m : c.meshes) {
      w.beginObject();
      w.field("node", m.node);
      w.field("mesh", m.mesh);
      w.field("primitive", m.primitive);
      w.field("skinned", m.skinned);
      w.field("vertexCount", m.vertex_count);
      w.key("weights").array(std::span<const float>(m.weights));
      w.key("positions").array(std::span<const float>(m.positions));
      w.key("normals");
      if (m.normals.empty()) {
        w.null();
      } else {
        w.array(std::span<const float>(m.normals));
      }
      w.endObject();
    }
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.endObject();
  return w.str();
}

namespace {

// The UVs an OBJ of this primitive carries: the base-colour texture's set and transform (see writePoseObj).
struct ObjUv {
  uint32_t set = 0;
  std::array<float, 6> m{1, 0, 0, 0, 1, 0};
};

ObjUv objUv(const Asset* asset, const PosedPrimitive& posed) {
  ObjUv uv;
  if (!asset || posed.mesh >= asset->meshes.size() || posed.primitive >= asset->meshes[posed.mesh].primitives.size()) {
    return uv;
  }
  const uint32_t material = asset->meshes[posed.mesh].primitives[posed.primitive].material;
  if (material >= asset->materials.size()) return uv;
  const TextureRef& ref = asset->materials[material].base_color_texture;
  if (ref.texture == kNone) return uv;
  uv.set = textureCoordinateSet(ref);
  uv.m = textureTransformMatrix(ref);
  return uv;
}

// OBJ text is built a line at a time in a stack buffer, numbers by std::to_chars (%.9g for floats: what
// printf would write, without its per-call cost), and appended as one block per line: a large pose was spending
// most of its time growing the string a character and a temporary std::string at a time (issue 56).
class ObjLine {
 public:
  ObjLine& text(std::string_view s) {
    std::copy(s.begin(), s.end(), end_);  // callers pass the few-byte keywords below
    end_ += s.size();
    return *this;
  }
  ObjLine& real(double v) {
    *end_++ = ' ';
    end_ = std::to_chars(end_, end_ + kNumberBytes, v, std::chars_format::general, 9).ptr;
    return *this;
  }
  ObjLine& index(size_t v) {
    end_ = std::to_chars(end_, end_ + kNumberBytes, v).ptr;
    return *this;
  }
  // A vertex reference of a face: v, v/vt, v//vn or v/vt/vn, each 1-based.
  ObjLine& ref(size_t v, bool has_vt, size_t vt, bool has_vn, size_t vn) {
    *end_++ = ' ';
    index(v);
    if (has_vt || has_vn) *end_++ = '/';
    if (has_vt) index(vt);
    if (has_vn) {
      *end_++ = '/';
      index(vn);
    }
    return *this;
  }
  void flush(std::string& out) {
    *end_++ = '\n';
    out.append(buffer_, size_t(end_ - buffer_));
    end_ = buffer_;
  }
  // Room left for one more number: a caller with many (an `l` or `p` line) flushes the line part when it is full.
  bool full() const { return size_t(end_ - buffer_) + kNumberBytes + 2 > sizeof(buffer_); }
  void spill(std::string& out) {
    out.append(buffer_, size_t(end_ - buffer_));
    end_ = buffer_;
  }

 private:
  static constexpr size_t kNumberBytes = 32;  // %.9g of a double: at most 16 characters; a size_t: 20
  char buffer_[256];
  char* end_ = buffer_;
};

// A line of vertex indices (`l 1 2 3`, `p 4 5`), however many: the buffer is appended whenever it fills.
void indexLine(std::string& out, std::string_view keyword, const std::vector<uint32_t>& idx, size_t n, size_t base,
               bool close_loop) {
  ObjLine line;
  line.text(keyword);
  auto put = [&](uint32_t i) {
    if (i >= n) return;
    if (line.full()) line.spill(out);
    line.text(" ").index(base + i);
  };
  for (uint32_t i : idx) put(i);
  if (close_loop && !idx.empty()) put(idx[0]);
  line.flush(out);
}

}  // namespace

std::string writePoseObj(const PoseResult& pose, const Asset* asset, std::string_view mtllib) {
  std::string out = "# morphkit pose\n";
  if (!mtllib.empty()) out += "mtllib " + std::string(mtllib) + "\n";
  size_t bytes = 0;  // about what the lines below take, so the text grows once
  for (const PosedPrimitive& m : pose.meshes)
    bytes += size_t(m.vertex_count) * 96 + std::max<size_t>(m.indices.size(), m.vertex_count) * 12;
  out.reserve(out.size() + bytes);
  size_t v_base = 1, vt_base = 1, vn_base = 1;  // OBJ indices are global and 1-based
  ObjLine line;
  for (const PosedPrimitive& m : pose.meshes) {
    out += "o " + posedPrimitiveName(m.node, m.mesh, m.primitive) + "\n";
    if (!mtllib.empty() && asset && m.mesh < asset->meshes.size() &&
        m.primitive < asset->meshes[m.mesh].primitives.size()) {
      const uint32_t material = asset->meshes[m.mesh].primitives[m.primitive].material;
      if (material < asset->materials.size()) out += "usemtl material" + std::to_string(material) + "\n";
    }
    const size_t n = m.vertex_count;
    for (size_t v = 0; v < n; ++v) {
      line.text("v").real(m.positions[3 * v]).real(m.positions[3 * v + 1]).real(m.positions[3 * v + 2]).flush(out);
    }
    const ObjUv uv = objUv(asset, m);
    const bool has_vt = uv.set < m.texcoords.size();
    const bool has_vn = !m.normals.empty();
    if (has_vt) {
      const std::vector<float>& t = m.texcoords[uv.set];
      for (size_t v = 0; v < n; ++v) {
        const double s = t[2 * v], r = t[2 * v + 1];
        const double u2 = double(uv.m[0]) * s + double(uv.m[1]) * r + double(uv.m[2]);
        const double v2 = double(uv.m[3]) * s + double(uv.m[4]) * r + double(uv.m[5]);
        line.text("vt").real(u2).real(1.0 - v2).flush(out);
      }
    }
    if (has_vn) {
      for (size_t v = 0; v < n; ++v)
        line.text("vn").real(m.normals[3 * v]).real(m.normals[3 * v + 1]).real(m.normals[3 * v + 2]).flush(out);
    }
    std::vector<uint32_t> idx = m.indices;
    if (idx.empty()) {
      idx.resize(n);
      for (uint32_t i = 0; i < n; ++i) idx[i] = i;
    }
    auto tri = [&](uint32_t a, uint32_t b, uint32_t c) {
      if (a >= n || b >= n || c >= n) return;
      line.text("f");
      for (uint32_t i : {a, b, c}) line.ref(v_base + i, has_vt, vt_base + i, has_vn, vn_base + i);
      line.flush(out);
    };
    switch (m.mode) {
      case PrimitiveMode::kTriangles:
        for (size_t i = 0; i + 2 < idx.size(); i += 3) tri(idx[i], idx[i + 1], idx[i + 2]);
        break;
      case PrimitiveMode::kTriangleStrip:  // glTF 2.0 §3.7.2.1: keep the winding of every second triangle
        for (size_t i = 0; i + 2 < idx.size(); ++i) {
          if (i % 2 == 0) {
            tri(idx[i], idx[i + 1], idx[i + 2]);
          } else {
            tri(idx[i + 1], idx[i], idx[i + 2]);
          }
        }
        break;
      case PrimitiveMode::kTriangleFan:
        for (size_t i = 1; i + 1 < idx.size(); ++i) tri(idx[0], idx[i], idx[i + 1]);
        break;
      case PrimitiveMode::kLines:
        for (size_t i = 0; i + 1 < idx.size(); i += 2) {
          if (idx[i] >= n || idx[i + 1] >= n) continue;
          line.text("l ").index(v_base + idx[i]).text(" ").index(v_base + idx[i + 1]).flush(out);
        }
        break;
      case PrimitiveMode::kLineStrip:
      case PrimitiveMode::kLineLoop:
        indexLine(out, "l", idx, n, v_base, m.mode == PrimitiveMode::kLineLoop && !idx.empty() && idx[0] < n);
        break;
      case PrimitiveMode::kPoints:
        indexLine(out, "p", idx, n, v_base, false);
        break;
    }
    v_base += n;
    if (has_vt) vt_base += n;
    if (has_vn) vn_base += n;
  }
  return out;
}

}  // namespace morphkit
