// SPDX-License-Identifier: MIT
// morph.wgsl — morphkit's morph-then-skin math in WGSL (docs/VIEW.md): the WebGPU twin of shaders/morph.glsl,
// skin.glsl and render/mesh.vert (vertex path) and morph.comp (compute path), reading the byte layouts src/pack
// builds (docs/LAYOUTS.md). WGSL has no preprocessor, so the file is cut into sections at `// @section NAME` lines
// and morphkit-webgpu.js joins the ones a pipeline needs (shaderSource()): `common`, one morph section, one place
// section, then the entry points. Every pipeline uses bind group 0; the bindings of a section are listed with it.
//
// Order (glTF 2.0 §3.7.2.2, §3.7.3.3; morphkit/deform.h): morph in object space, then skin (linear blend over
// every JOINTS_n/WEIGHTS_n set; the node's own transform does not apply) or the node's rigid transform; normals
// and tangents take the same 3×3 (skinned) or the normal matrix (rigid) and are renormalized.

// @section common
// binding 0: the per-instance uniform, shared by both paths.
struct Object {
  model: mat4x4f,          // rigid: the node's world matrix
  normal_matrix: mat4x4f,  // rigid: inverse-transpose of the 3×3 of model (column 3 unused)
  view_proj: mat4x4f,      // display: the camera; readback: unused
  vertex_count: u32,
  skin_sets: u32,          // JOINTS_n/WEIGHTS_n sets (skinned)
  active_count: u32,       // listed targets this frame (dense compute, vertex list)
  features: u32,           // FEATURE_* below
  vertex_stride: u32,      // floats per base/output vertex (VertexFormat)
  vertex_normal: u32,      // float offset of the normal in a vertex, or ABSENT
  vertex_tangent: u32,     // float offset of the tangent (xyzw), or ABSENT
  target_count: u32,
  delta_stride: u32,       // components per delta record (DeltaFormat)
  delta_position: u32,     // component offsets in a record, or ABSENT
  delta_normal: u32,
  delta_tangent: u32,
  readback_width: u32,     // vertex readback: texels per row
  tex_width: u32,          // vertex path: the band texture's width ...
  rows_per_band: u32,      // ... rows per band ...
  bands_per_target: u32,   // ... and bands per target (2 or 3)
}
@group(0) @binding(0) var<uniform> object: Object;

const ABSENT: u32 = 0xFFFFFFFFu;
const FEATURE_NORMALS: u32 = 1u;
const FEATURE_TANGENTS: u32 = 2u;

// s + w·Δ, one term of the sum in the order every path adds it. WGSL's fma may or may not fuse; the tolerance the
// checks use (1e-5 of the diagonal) is far above one rounding.
fn morphAdd3(s: vec3f, w: f32, delta: vec3f) -> vec3f {
  return fma(vec3f(w), delta, s);
}

// A deformed normal or tangent back to unit length; a zero-length vector stays as it is (never NaN).
fn renormalize(v: vec3f) -> vec3f {
  let len = length(v);
  return select(v, v / len, len > 0.0);
}

struct Deformed {
  position: vec3f,
  normal: vec3f,
  tangent: vec3f,
}

// @section skin
// bindings 4, 5: the skin stream (per vertex 4·sets u32 joints, then 4·sets f32 weights as bits) and the palette
// (world(joint)·inverseBindMatrix per joint, column-major).
@group(0) @binding(4) var<storage, read> skin_words: array<u32>;
@group(0) @binding(5) var<storage, read> joint_matrices: array<mat4x4f>;

// Σ wⱼ·Mⱼ over the influences of `vertex` (zero weights skipped), then the morphed vertex through it.
fn place(vertex: u32, m: Deformed) -> Deformed {
  var blend = mat4x4f();
  let n = 4u * object.skin_sets;
  let base = vertex * 2u * n;
  for (var j = 0u; j < n; j++) {
    let w = bitcast<f32>(skin_words[base + n + j]);
    if (w != 0.0) {
      blend += w * joint_matrices[skin_words[base + j]];
    }
  }
  let m3 = mat3x3f(blend[0].xyz, blend[1].xyz, blend[2].xyz);
  return Deformed((blend * vec4f(m.position, 1.0)).xyz, renormalize(m3 * m.normal), renormalize(m3 * m.tangent));
}

// @section rigid
// An unskinned node: its world matrix, and the normal matrix for normals.
fn place(vertex: u32, m: Deformed) -> Deformed {
  let model3 = mat3x3f(object.model[0].xyz, object.model[1].xyz, object.model[2].xyz);
  let normal3 = mat3x3f(object.normal_matrix[0].xyz, object.normal_matrix[1].xyz, object.normal_matrix[2].xyz);
  return Deformed((object.model * vec4f(m.position, 1.0)).xyz, renormalize(normal3 * m.normal),
                  renormalize(model3 * m.tangent));
}

// @section vertex_none
// The zero-target fallback (no MSH_HAS_MORPH_TARGETS): nothing to add.
fn morphVertex(vertex: u32, m: Deformed) -> Deformed {
  return m;
}

// @section vertex_seed
// Band-texture path: at most 4 targets; binding 2 the band texture (rgba32float, read with textureLoad), binding 3 the
// 32-byte weights uniform (weights, then count, texWidth, rowsPerBand; render_shared.h MorphUniforms).
struct MorphUniforms {
  weights: vec4f,
  count: u32,
  tex_width: u32,
  rows_per_band: u32,
  pad: u32,
}
@group(0) @binding(2) var morph_texture: texture_2d<f32>;
@group(0) @binding(3) var<uniform> morph: MorphUniforms;

fn bandDelta(band: u32, vertex: u32) -> vec3f {
  let xy = vec2u(vertex % morph.tex_width, band * morph.rows_per_band + vertex / morph.tex_width);
  return textureLoad(morph_texture, xy, 0).xyz;
}

fn morphVertex(vertex: u32, m: Deformed) -> Deformed {
  var r = m;
  for (var k = 0u; k < morph.count; k++) {
    let w = morph.weights[k];
    if (w == 0.0) {
      continue;
    }
    r.position = morphAdd3(r.position, w, bandDelta(k * 2u, vertex));
    r.normal = morphAdd3(r.normal, w, bandDelta(k * 2u + 1u, vertex));
  }
  return r;
}

// @section vertex_list
// Beyond the band-texture design: any number of targets. Binding 2 the band texture, binding 3 the active list (pack/
// active_targets.h: target, weight; |w| > 0 only, ascending), object.active_count entries.
struct ActiveTarget {
  index: u32,  // the target
  weight: f32,
}
@group(0) @binding(2) var morph_texture: texture_2d<f32>;
@group(0) @binding(3) var<storage, read> active_list: array<ActiveTarget>;

fn bandDelta(band: u32, vertex: u32) -> vec3f {
  let xy = vec2u(vertex % object.tex_width, band * object.rows_per_band + vertex / object.tex_width);
  return textureLoad(morph_texture, xy, 0).xyz;
}

fn morphVertex(vertex: u32, m: Deformed) -> Deformed {
  var r = m;
  let bands = object.bands_per_target;
  for (var k = 0u; k < object.active_count; k++) {
    let w = active_list[k].weight;
    let band0 = active_list[k].index * bands;
    r.position = morphAdd3(r.position, w, bandDelta(band0, vertex));
    r.normal = morphAdd3(r.normal, w, bandDelta(band0 + 1u, vertex));
    if (bands > 2u) {
      r.tangent = morphAdd3(r.tangent, w, bandDelta(band0 + 2u, vertex));
    }
  }
  return r;
}

// @section vertex
// The vertex path's entry points: the display (vs_main/fs_main) and the readback (vs_readback/fs_readback: a
// point list, one rgba32float texel per vertex, so the deformed positions come back exactly as the shader made them).
struct VertexIn {
  @builtin(vertex_index) vertex: u32,
  @location(0) position: vec3f,
  @location(1) normal: vec3f,   // bound to the position when absent (object.features says so)
  @location(2) tangent: vec4f,  // bound to the position when absent
}

fn deformInput(v: VertexIn) -> Deformed {
  let has_normal = (object.features & FEATURE_NORMALS) != 0u;
  let has_tangent = (object.features & FEATURE_TANGENTS) != 0u;
  let m = Deformed(v.position, select(vec3f(0.0), v.normal, has_normal), select(vec3f(0.0), v.tangent.xyz, has_tangent));
  return place(v.vertex, morphVertex(v.vertex, m));
}

struct ShadeOut {
  @builtin(position) clip: vec4f,
  @location(0) normal: vec3f,
}

@vertex
fn vs_main(v: VertexIn) -> ShadeOut {
  let d = deformInput(v);
  return ShadeOut(object.view_proj * vec4f(d.position, 1.0), d.normal);
}

struct PointOut {
  @builtin(position) clip: vec4f,
  @location(0) @interpolate(flat) position: vec3f,
}

@vertex
fn vs_readback(v: VertexIn) -> PointOut {
  let d = deformInput(v);
  let w = object.readback_width;
  let rows = (object.vertex_count + w - 1u) / w;
  let texel = vec2f(f32(v.vertex % w) + 0.5, f32(v.vertex / w) + 0.5);
  let ndc = vec2f(texel.x / f32(w) * 2.0 - 1.0, 1.0 - texel.y / f32(rows) * 2.0);
  return PointOut(vec4f(ndc, 0.0, 1.0), d.position);
}

@fragment
fn fs_readback(p: PointOut) -> @location(0) vec4f {
  return vec4f(p.position, 1.0);
}

// @section compute_common
// The compute path (compute-path design): one thread per vertex. Binding 1 the base vertices (interleaved f32, VertexFormat),
// binding 7 the output in the same format: it is bound as the vertex buffer of the draw.
@group(0) @binding(1) var<storage, read> base_vertices: array<f32>;
@group(0) @binding(7) var<storage, read_write> out_vertices: array<f32>;

fn loadVec3(offset: u32) -> vec3f {
  return vec3f(base_vertices[offset], base_vertices[offset + 1u], base_vertices[offset + 2u]);
}

@compute @workgroup_size(64)
fn cs_main(@builtin(global_invocation_id) id: vec3u) {
  let v = id.x;
  if (v >= object.vertex_count) {
    return;
  }
  let at = v * object.vertex_stride;
  var m = Deformed(loadVec3(at), vec3f(0.0), vec3f(0.0));
  if (object.vertex_normal != ABSENT) {
    m.normal = loadVec3(at + object.vertex_normal);
  }
  if (object.vertex_tangent != ABSENT) {
    m.tangent = loadVec3(at + object.vertex_tangent);
  }
  let d = place(v, morphRecords(v, m));
  // Everything the morph does not touch (tangent w, texcoords, colors) is copied as it is.
  for (var i = 0u; i < object.vertex_stride; i++) {
    out_vertices[at + i] = base_vertices[at + i];
  }
  for (var i = 0u; i < 3u; i++) {
    out_vertices[at + i] = d.position[i];
  }
  if (object.vertex_normal != ABSENT) {
    for (var i = 0u; i < 3u; i++) {
      out_vertices[at + object.vertex_normal + i] = d.normal[i];
    }
  }
  if (object.vertex_tangent != ABSENT) {
    for (var i = 0u; i < 3u; i++) {
      out_vertices[at + object.vertex_tangent + i] = d.tangent[i];
    }
  }
}

// @section compute_none
fn morphRecords(vertex: u32, m: Deformed) -> Deformed {
  return m;
}

// @section compute_dense_index
// The dense layouts' order (pack/packed_deltas.h denseElementIndex): tiles of 64 vertices, per tile one slab per
// target, each slab split into planes of up to 4 components.
const TILE: u32 = 64u;
fn denseIndex(t: u32, vertex: u32, component: u32) -> u32 {
  let stride = object.delta_stride;
  let slab = (vertex / TILE) * object.target_count + t;
  let plane = component / 4u;
  let width = min(4u, stride - 4u * plane);
  return slab * TILE * stride + TILE * 4u * plane + (vertex % TILE) * width + component % 4u;
}

struct ActiveTarget {
  index: u32,  // the target
  weight: f32,
}
@group(0) @binding(6) var<storage, read> active_list: array<ActiveTarget>;

fn recordVec3(t: u32, vertex: u32, offset: u32) -> vec3f {
  return vec3f(deltaAt(denseIndex(t, vertex, offset)), deltaAt(denseIndex(t, vertex, offset + 1u)),
               deltaAt(denseIndex(t, vertex, offset + 2u)));
}

// Σ over the active list (dense layouts read every listed target's record).
fn morphRecords(vertex: u32, m: Deformed) -> Deformed {
  var r = m;
  for (var k = 0u; k < object.active_count; k++) {
    let t = active_list[k].index;
    let w = active_list[k].weight;
    if (object.delta_position != ABSENT) {
      r.position = morphAdd3(r.position, w, recordVec3(t, vertex, object.delta_position));
    }
    if (object.delta_normal != ABSENT) {
      r.normal = morphAdd3(r.normal, w, recordVec3(t, vertex, object.delta_normal));
    }
    if (object.delta_tangent != ABSENT) {
      r.tangent = morphAdd3(r.tangent, w, recordVec3(t, vertex, object.delta_tangent));
    }
  }
  return r;
}

// @section compute_f32
// Binding 2: dense f32 deltas.
@group(0) @binding(2) var<storage, read> deltas: array<f32>;
fn deltaAt(index: u32) -> f32 {
  return deltas[index];
}

// @section compute_f16_packed
// Binding 2: dense f16 deltas read as u32 pairs (little endian: element 2i is the low half) and unpacked with
// unpack2x16float, for adapters without shader-f16.
@group(0) @binding(2) var<storage, read> deltas: array<u32>;
fn deltaAt(index: u32) -> f32 {
  let pair = unpack2x16float(deltas[index >> 1u]);
  return select(pair.x, pair.y, (index & 1u) == 1u);
}

// @section compute_f16_native
// Binding 2: dense f16 deltas as array<f16> (the adapter has shader-f16; shaderSource() puts `enable f16;` first).
@group(0) @binding(2) var<storage, read> deltas: array<f16>;
fn deltaAt(index: u32) -> f32 {
  return f32(deltas[index]);
}

// @section compute_sparse
// The sparse layout (per-vertex CSR): binding 3 rows (vertex_count + 1 record offsets), binding 2 the records
// (target u32, then delta_stride f32 as bits), binding 6 every target's weight (0 where inactive).
@group(0) @binding(2) var<storage, read> records: array<u32>;
@group(0) @binding(3) var<storage, read> rows: array<u32>;
@group(0) @binding(6) var<storage, read> weights: array<f32>;

fn recordVec3(record: u32, offset: u32) -> vec3f {
  let at = record + 1u + offset;
  return vec3f(bitcast<f32>(records[at]), bitcast<f32>(records[at + 1u]), bitcast<f32>(records[at + 2u]));
}

fn morphRecords(vertex: u32, m: Deformed) -> Deformed {
  var r = m;
  let words = 1u + object.delta_stride;
  for (var i = rows[vertex]; i < rows[vertex + 1u]; i++) {
    let record = i * words;
    let w = weights[records[record]];
    if (w == 0.0) {
      continue;
    }
    if (object.delta_position != ABSENT) {
      r.position = morphAdd3(r.position, w, recordVec3(record, object.delta_position));
    }
    if (object.delta_normal != ABSENT) {
      r.normal = morphAdd3(r.normal, w, recordVec3(record, object.delta_normal));
    }
    if (object.delta_tangent != ABSENT) {
      r.tangent = morphAdd3(r.tangent, w, recordVec3(record, object.delta_tangent));
    }
  }
  return r;
}

// @section draw
// Draws what the compute path wrote (already morphed, skinned, in world space), bound as the vertex buffer.
struct DrawIn {
  @location(0) position: vec3f,
  @location(1) normal: vec3f,  // bound to the position when absent
}
struct DrawOut {
  @builtin(position) clip: vec4f,
  @location(0) normal: vec3f,
}
@vertex
fn vs_draw(v: DrawIn) -> DrawOut {
  let n = select(vec3f(0.0), v.normal, (object.features & FEATURE_NORMALS) != 0u);
  return DrawOut(object.view_proj * vec4f(v.position, 1.0), n);
}

// @section shade
// A headlight and a hemisphere term: enough to read the shape (the PBR look is `morphkit render`'s business).
@fragment
fn fs_main(@location(0) normal: vec3f) -> @location(0) vec4f {
  let len = length(normal);
  if (len == 0.0) {
    return vec4f(0.72, 0.72, 0.75, 1.0);
  }
  let n = normal / len;
  let light = normalize(vec3f(0.3, 0.6, 0.75));
  let diffuse = abs(dot(n, light));
  let sky = 0.5 + 0.5 * n.y;
  let c = vec3f(0.78, 0.74, 0.70) * (0.25 + 0.6 * diffuse) + vec3f(0.08, 0.09, 0.12) * sky;
  return vec4f(c, 1.0);
}
