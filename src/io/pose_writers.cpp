// SPDX-License-Identifier: MIT
// pose_writers.cpp — a PoseResult as reference-schema JSON and as Wavefront OBJ.
#include "morphkit/io/pose_writers.h"

#include <array>
#include <cstdio>
#include <string>

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

void appendf(std::string& out, const char* format, double a, double b, double c) {
  char buffer[128];
  int len = std::snprintf(buffer, sizeof(buffer), format, a, b, c);
  if (len > 0) out.append(buffer, size_t(std::min(len, int(sizeof(buffer) - 1))));
}

}  // namespace

std::string writePoseObj(const PoseResult& pose, const Asset* asset, std::string_view mtllib) {
  std::string out = "# morphkit pose\n";
  if (!mtllib.empty()) out += "mtllib " + std::string(mtllib) + "\n";
  size_t v_base = 1, vt_base = 1, vn_base = 1;  // OBJ indices are global and 1-based
  for (const PosedPrimitive& m : pose.meshes) {
    out += "o " + posedPrimitiveName(m.node, m.mesh, m.primitive) + "\n";
    if (!mtllib.empty() && asset && m.mesh < asset->meshes.size() &&
        m.primitive < asset->meshes[m.mesh].primitives.size()) {
      const uint32_t material = asset->meshes[m.mesh].primitives[m.primitive].material;
      if (material < asset->materials.size()) out += "usemtl material" + std::to_string(material) + "\n";
    }
    const size_t n = m.vertex_count;
    for (size_t v = 0; v < n; ++v)
      appendf(out, "v %.9g %.9g %.9g\n", m.positions[3 * v], m.positions[3 * v + 1], m.positions[3 * v + 2]);
    const ObjUv uv = objUv(asset, m);
    const bool has_vt = uv.set < m.texcoords.size();
    const bool has_vn = !m.normals.empty();
    if (has_vt) {
      const std::vector<float>& t = m.texcoords[uv.set];
      for (size_t v = 0; v < n; ++v) {
        const double s = t[2 * v], r = t[2 * v + 1];
        const double u2 = double(uv.m[0]) * s + double(uv.m[1]) * r + double(uv.m[2]);
        const double v2 = double(uv.m[3]) * s + double(uv.m[4]) * r + double(uv.m[5]);
        char buffer[96];
        int len = std::snprintf(buffer, sizeof(buffer), "vt %.9g %.9g\n", u2, 1.0 - v2);
        if (len > 0) out.append(buffer, size_t(len));
      }
    }
    if (has_vn) {
      for (size_t v = 0; v < n; ++v)
        appendf(out, "vn %.9g %.9g %.9g\n", m.normals[3 * v], m.normals[3 * v + 1], m.normals[3 * v + 2]);
    }
    auto ref = [&](uint32_t i) {
      std::string s = std::to_string(v_base + i);
      if (has_vt || has_vn) {
        s += '/';
        if (has_vt) s += std::to_string(vt_base + i);
      }
      if (has_vn) {
        s += '/';
        s += std::to_string(vn_base + i);
      }
      return s;
    };
    std::vector<uint32_t> idx = m.indices;
    if (idx.empty()) {
      idx.resize(n);
      for (uint32_t i = 0; i < n; ++i) idx[i] = i;
    }
    auto tri = [&](uint32_t a, uint32_t b, uint32_t c) {
      if (a >= n || b >= n || c >= n) return;
      out += "f " + ref(a) + " " + ref(b) + " " + ref(c) + "\n";
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
          out += "l ";
          out += std::to_string(v_base + idx[i]);
          out += ' ';
          out += std::to_string(v_base + idx[i + 1]);
          out += '\n';
        }
        break;
      case PrimitiveMode::kLineStrip:
      case PrimitiveMode::kLineLoop: {
        std::string line = "l";
        for (uint32_t i : idx) {
          if (i >= n) continue;
          line += ' ';
          line += std::to_string(v_base + i);
        }
        if (m.mode == PrimitiveMode::kLineLoop && !idx.empty() && idx[0] < n) {
          line += ' ';
          line += std::to_string(v_base + idx[0]);
        }
        out += line;
        out += '\n';
        break;
      }
      case PrimitiveMode::kPoints: {
        std::string line = "p";
        for (uint32_t i : idx) {
          if (i >= n) continue;
          line += ' ';
          line += std::to_string(v_base + i);
        }
        out += line;
        out += '\n';
        break;
      }
    }
    v_base += n;
    if (has_vt) vt_base += n;
    if (has_vn) vn_base += n;
  }
  return out;
}

}  // namespace morphkit
