// SPDX-License-Identifier: MIT
// morphkit-webgpu.js — the WebGPU morph module (docs/VIEW.md "The WGSL module"): an ES module without a build step
// that creates the pipelines, bind groups and buffers of morph.wgsl for a given GPUDevice and one primitive's packed
// data (the layouts src/pack builds: docs/LAYOUTS.md). Two paths draw the same pose:
//   vertex:  the base vertices as vertex buffers, deltas in a tiled rgba32float band texture read with textureLoad,
//            weights in the band-texture design's 32-byte uniform (<= 4 targets, position + normal bands) or an active list;
//   compute: storage buffers (dense f32, dense f16 via shader-f16 or unpack2x16float, or sparse CSR), one thread per
//            vertex, the output buffer bound as the vertex buffer of the draw.
// A primitive without targets takes the zero-target fallback (no texture, no delta buffers).
//
//   const wgsl = await loadMorphWgsl();
//   const d = createMorphDeformer(device, wgsl, primitive, {colorFormat, depthFormat});
//   d.setFrame({weights, matrices});           // per frame: Float32Arrays (below)
//   d.encodeCompute(encoder, 'dense_f32');     // compute path only
//   d.draw(pass, 'vertex' | 'compute', viewProj);
//   await d.readVertexPath(); await d.readCompute('sparse');   // Float32Array, 3 per vertex, world space
//
// `primitive` (every array little endian, as `morphkit view` serves them):
//   vertexCount, base (Float32Array, vertexFormat.stride floats per vertex), vertexFormat {stride, normal, tangent}
//   (float offsets; null when absent), indices (Uint32Array or null: non-indexed triangles),
//   targetCount, texture {width, height, rowsPerBand, bandsPerTarget, data: Float32Array} (null without targets),
//   deltaFormat {stride, position, normal, tangent} (component offsets; null when absent),
//   dense (Float32Array), denseF16 (Uint16Array), sparse {records: Uint32Array, rows: Uint32Array}: any may be
//   null when that layout is not used (or filled in before its first use); skin {sets, words: Uint32Array, joints}
//   or null. options.skinned (default: skin given) says whether this instance is skinned (glTF 2.0 §3.7.3);
//   options.joints: the palette's length (default skin.joints; the skin may list more joints than it uses).
// setFrame: weights (targetCount floats), matrices: skinned, the palette (joints × 16, column-major, world(joint) ·
// inverseBindMatrix); rigid, the world matrix then its normal matrix (32 floats).

const ABSENT = 0xffffffff;
const OBJECT_BYTES = 256;  // struct Object in morph.wgsl: 3 mat4x4f + 16 u32
const READBACK_WIDTH = 256;
export const LAYOUTS = ['dense_f32', 'dense_f16', 'sparse'];

export async function loadMorphWgsl(url = new URL('./morph.wgsl', import.meta.url)) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`morph.wgsl: HTTP ${response.status}`);
  return response.text();
}

// The named `// @section` blocks of morph.wgsl joined in order; `f16` puts `enable f16;` first.
export function shaderSource(wgsl, sections, {f16 = false} = {}) {
  const parts = new Map();
  let name = null;
  for (const line of wgsl.split('\n')) {
    const m = /^\/\/ @section (\w+)/.exec(line);
    if (m) {
      name = m[1];
      parts.set(name, []);
    } else if (name) {
      parts.get(name).push(line);
    }
  }
  const body = sections.map((s) => {
    if (!parts.has(s)) throw new Error(`morph.wgsl: no section ${s}`);
    return parts.get(s).join('\n');
  });
  return (f16 ? 'enable f16;\n' : '') + body.join('\n');
}

const off = (v) => (v === null || v === undefined ? ABSENT : v);

function buffer(device, usage, data, minBytes = 16) {
  const size = Math.max(minBytes, Math.ceil((data ? data.byteLength : 0) / 4) * 4);
  const b = device.createBuffer({size, usage: usage | GPUBufferUsage.COPY_DST, mappedAtCreation: !!data});
  if (data) {
    new Uint8Array(b.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    b.unmap();
  }
  return b;
}

async function readBuffer(device, source, bytes) {
  const staging = device.createBuffer({size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST});
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(source, 0, staging, 0, bytes);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const copy = new Uint8Array(staging.getMappedRange()).slice();
  staging.destroy();
  return copy.buffer;
}

export function createMorphDeformer(device, wgsl, primitive, options = {}) {
  return new MorphDeformer(device, wgsl, primitive, options);
}

export class MorphDeformer {
  constructor(device, wgsl, p, {
    colorFormat = 'bgra8unorm',
    depthFormat = 'depth24plus',
    skinned = !!p.skin,
    joints = p.skin ? p.skin.joints : 0
  } = {}) {
    this.device = device;
    this.p = p;
    this.wgsl = wgsl;
    this.f16 = device.features.has('shader-f16');
    this.skinned = skinned;
    const hasTargets = p.targetCount > 0;
    // Band-texture path: <= 4 targets with position + normal bands fit the 32-byte uniform; more take the active list.
    this.seed = hasTargets && p.targetCount <= 4 && p.texture.bandsPerTarget === 2;
    const place = skinned ? 'skin' : 'rigid';
    const morph = !hasTargets ? 'vertex_none' : this.seed ? 'vertex_seed' : 'vertex_list';
    this.variant = morph.slice('vertex_'.length);  // the vertex path's variant: none, seed or list
    const U = GPUBufferUsage;
    this.object = device.createBuffer({size: OBJECT_BYTES, usage: U.UNIFORM | U.COPY_DST});
    this.objectData = new ArrayBuffer(OBJECT_BYTES);
    this.base = buffer(device, U.VERTEX | U.STORAGE, p.base);
    this.indexCount = p.indices ? p.indices.length : p.vertexCount;
    this.indices = p.indices ? buffer(device, U.INDEX, p.indices) : null;
    this.output =
        device.createBuffer({size: Math.max(16, p.base.byteLength), usage: U.VERTEX | U.STORAGE | U.COPY_SRC});
    if (skinned) {
      this.skinWords = buffer(device, U.STORAGE, p.skin.words);
      this.joints = device.createBuffer({size: Math.max(64, joints * 64), usage: U.STORAGE | U.COPY_DST});
    }
    if (hasTargets) {
      const t = p.texture;
      this.texture = device.createTexture({
        size: [t.width, t.height],
        format: 'rgba32float',
        usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST
      });
      device.queue.writeTexture({texture: this.texture}, t.data, {bytesPerRow: t.width * 16}, [t.width, t.height]);
      this.seedUniform = device.createBuffer({size: 32, usage: U.UNIFORM | U.COPY_DST});
      this.active = device.createBuffer({size: Math.max(16, p.targetCount * 8), usage: U.STORAGE | U.COPY_DST});
      this.weights = device.createBuffer({size: Math.max(16, p.targetCount * 4), usage: U.STORAGE | U.COPY_DST});
    }
    this.activeCount = 0;
    this.deltaBuffers = new Map();  // layout -> {deltas, rows}, made on first use

    const vertexModule =
        device.createShaderModule({code: shaderSource(wgsl, ['common', place, morph, 'vertex', 'shade'])});
    const attrs = this.baseAttributes();
    const depthStencil = {format: depthFormat, depthWriteEnabled: true, depthCompare: 'less'};
    this.vertexPipeline = device.createRenderPipeline({
      layout: 'auto',
      vertex: {module: vertexModule, entryPoint: 'vs_main', buffers: [attrs]},
      fragment: {module: vertexModule, entryPoint: 'fs_main', targets: [{format: colorFormat}]},
      primitive: {topology: 'triangle-list', cullMode: 'none'},
      depthStencil,
    });
    this.readbackPipeline = device.createRenderPipeline({
      layout: 'auto',
      vertex: {module: vertexModule, entryPoint: 'vs_readback', buffers: [attrs]},
      fragment: {module: vertexModule, entryPoint: 'fs_readback', targets: [{format: 'rgba32float'}]},
      primitive: {topology: 'point-list'},
    });
    const drawModule = device.createShaderModule({code: shaderSource(wgsl, ['common', 'draw', 'shade'])});
    const nrm = off(p.vertexFormat.normal) === ABSENT ? 0 : p.vertexFormat.normal * 4;
    this.drawPipeline = device.createRenderPipeline({
      layout: 'auto',
      vertex: {
        module: drawModule,
        entryPoint: 'vs_draw',
        buffers: [{
          arrayStride: p.vertexFormat.stride * 4,
          attributes: [
            {shaderLocation: 0, offset: 0, format: 'float32x3'}, {shaderLocation: 1, offset: nrm, format: 'float32x3'}
          ]
        }]
      },
      fragment: {module: drawModule, entryPoint: 'fs_main', targets: [{format: colorFormat}]},
      primitive: {topology: 'triangle-list', cullMode: 'none'},
      depthStencil,
    });
    this.vertexGroup = this.renderGroup(this.vertexPipeline);
    this.readbackGroup = this.renderGroup(this.readbackPipeline);
    this.drawGroup = device.createBindGroup(
        {layout: this.drawPipeline.getBindGroupLayout(0), entries: [{binding: 0, resource: {buffer: this.object}}]});
    this.computePipelines = new Map();
  }

  // The base vertex buffer's attributes: position, normal, tangent (an absent one reads the position).
  baseAttributes() {
    const f = this.p.vertexFormat;
    const normal = off(f.normal), tangent = off(f.tangent);
    return {
      arrayStride: f.stride * 4,
      attributes: [
        {shaderLocation: 0, offset: 0, format: 'float32x3'},
        {shaderLocation: 1, offset: normal === ABSENT ? 0 : normal * 4, format: 'float32x3'},
        {
          shaderLocation: 2,
          offset: tangent === ABSENT ? 0 : tangent * 4,
          format: tangent === ABSENT ? 'float32x3' : 'float32x4'
        },
      ]
    };
  }

  renderGroup(pipeline) {
    const entries = [{binding: 0, resource: {buffer: this.object}}];
    if (this.skinned) {
      entries.push({binding: 4, resource: {buffer: this.skinWords}}, {binding: 5, resource: {buffer: this.joints}});
    }
    if (this.p.targetCount > 0) {
      entries.push(
          {binding: 2, resource: this.texture.createView()},
          {binding: 3, resource: {buffer: this.seed ? this.seedUniform : this.active}});
    }
    return this.device.createBindGroup({layout: pipeline.getBindGroupLayout(0), entries});
  }

  // The compute pipeline and bind group of one delta layout, made on first use.
  compute(layout) {
    if (this.computePipelines.has(layout)) return this.computePipelines.get(layout);
    const p = this.p, U = GPUBufferUsage, device = this.device;
    if (!LAYOUTS.includes(layout)) throw new Error(`unknown delta layout ${layout}`);
    // A layout the data lacks (f16 where a delta overflows it) draws as dense f32.
    if (p.targetCount > 0 && ((layout === 'dense_f16' && !p.denseF16) || (layout === 'sparse' && !p.sparse))) {
      return this.compute('dense_f32');
    }
    const hasTargets = p.targetCount > 0;
    // Zeros in place of deltas would draw the rest pose and be cached: refuse instead (dense f32 comes with targets).
    if (hasTargets && !p.dense) throw new Error(`${layout}: the delta layouts are not loaded yet`);
    let morph = ['compute_none'], deltas = null, rows = null, list = null;
    if (hasTargets && layout === 'sparse') {
      morph = ['compute_sparse'];
      deltas = buffer(device, U.STORAGE, p.sparse.records);
      rows = buffer(device, U.STORAGE, p.sparse.rows);
      list = this.weights;
    } else if (hasTargets) {
      const f16 = layout === 'dense_f16';
      morph = ['compute_dense_index', f16 ? (this.f16 ? 'compute_f16_native' : 'compute_f16_packed') : 'compute_f32'];
      deltas = buffer(device, U.STORAGE, f16 ? p.denseF16 : p.dense);
      list = this.active;
    }
    const code = shaderSource(
        this.wgsl, ['common', this.skinned ? 'skin' : 'rigid', 'compute_common', ...morph],
        {f16: this.f16 && layout === 'dense_f16'});
    const pipeline = device.createComputePipeline(
        {layout: 'auto', compute: {module: device.createShaderModule({code}), entryPoint: 'cs_main'}});
    const entries = [
      {binding: 0, resource: {buffer: this.object}}, {binding: 1, resource: {buffer: this.base}},
      {binding: 7, resource: {buffer: this.output}}
    ];
    if (this.skinned)
      entries.push({binding: 4, resource: {buffer: this.skinWords}}, {binding: 5, resource: {buffer: this.joints}});
    if (deltas) entries.push({binding: 2, resource: {buffer: deltas}}, {binding: 6, resource: {buffer: list}});
    if (rows) entries.push({binding: 3, resource: {buffer: rows}});
    const entry = {pipeline, group: device.createBindGroup({layout: pipeline.getBindGroupLayout(0), entries})};
    this.computePipelines.set(layout, entry);
    return entry;
  }

  // One frame's inputs (see the header); viewProj (16 floats) may be given here or to draw().
  setFrame({weights, matrices, viewProj}) {
    const p = this.p, device = this.device;
    const f = new Float32Array(this.objectData), u = new Uint32Array(this.objectData);
    if (!this.skinned) {
      f.set(matrices.subarray(0, 32), 0);
    } else {
      device.queue.writeBuffer(this.joints, 0, matrices);
    }
    if (viewProj) f.set(viewProj, 32);
    if (p.targetCount > 0) {
      // pack/active_targets.h: |w| > 0, ascending; an inactive weight is 0 where a path reads every weight.
      const list = new ArrayBuffer(p.targetCount * 8), lu = new Uint32Array(list), lf = new Float32Array(list);
      const all = new Float32Array(p.targetCount);
      let n = 0;
      for (let t = 0; t < p.targetCount; ++t) {
        const w = Math.fround(weights[t]);
        if (Math.abs(w) > 0) {
          lu[2 * n] = t;
          lf[2 * n + 1] = w;
          all[t] = w;
          ++n;
        }
      }
      this.activeCount = n;
      if (n > 0) device.queue.writeBuffer(this.active, 0, list, 0, n * 8);
      device.queue.writeBuffer(this.weights, 0, all);
      if (this.seed) {
        const s = new ArrayBuffer(32), sf = new Float32Array(s), su = new Uint32Array(s);
        sf.set(all.subarray(0, 4), 0);
        su[4] = p.targetCount;
        su[5] = p.texture.width;
        su[6] = p.texture.rowsPerBand;
        device.queue.writeBuffer(this.seedUniform, 0, s);
      }
    }
    const fmt = p.vertexFormat, dfmt = p.deltaFormat ?? {};
    u.set(
        [
          p.vertexCount, this.skinned ? p.skin.sets : 0, this.activeCount,
          (off(fmt.normal) !== ABSENT ? 1 : 0) | (off(fmt.tangent) !== ABSENT ? 2 : 0), fmt.stride, off(fmt.normal),
          off(fmt.tangent), p.targetCount, dfmt.stride ?? 0, off(dfmt.position), off(dfmt.normal), off(dfmt.tangent),
          READBACK_WIDTH, p.texture ? p.texture.width : 1, p.texture ? p.texture.rowsPerBand : 1,
          p.texture ? p.texture.bandsPerTarget : 2
        ],
        48);
    device.queue.writeBuffer(this.object, 0, this.objectData);
  }

  setViewProj(viewProj) {
    new Float32Array(this.objectData).set(viewProj, 32);
    this.device.queue.writeBuffer(this.object, 128, viewProj);
  }

  encodeCompute(encoder, layout = 'dense_f32') {
    const {pipeline, group} = this.compute(layout);
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(Math.ceil(this.p.vertexCount / 64));
    pass.end();
  }

  // Records the draw of one path into a render pass (the compute path draws its output buffer: encodeCompute first).
  draw(pass, path) {
    const compute = path === 'compute';
    pass.setPipeline(compute ? this.drawPipeline : this.vertexPipeline);
    pass.setBindGroup(0, compute ? this.drawGroup : this.vertexGroup);
    pass.setVertexBuffer(0, compute ? this.output : this.base);
    if (this.indices) {
      pass.setIndexBuffer(this.indices, 'uint32');
      pass.drawIndexed(this.indexCount);
    } else {
      pass.draw(this.indexCount);
    }
  }

  // The vertex path's deformed positions: a point list into an rgba32float target, one texel per vertex.
  async readVertexPath() {
    const n = this.p.vertexCount, rows = Math.ceil(n / READBACK_WIDTH), device = this.device;
    const target = device.createTexture({
      size: [READBACK_WIDTH, rows],
      format: 'rgba32float',
      usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC
    });
    const bytes = READBACK_WIDTH * 16 * rows;
    const copy = device.createBuffer({size: bytes, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST});
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginRenderPass(
        {colorAttachments: [{view: target.createView(), loadOp: 'clear', clearValue: [0, 0, 0, 0], storeOp: 'store'}]});
    pass.setPipeline(this.readbackPipeline);
    pass.setBindGroup(0, this.readbackGroup);
    pass.setVertexBuffer(0, this.base);
    pass.draw(n);
    pass.end();
    encoder.copyTextureToBuffer(
        {texture: target}, {buffer: copy, bytesPerRow: READBACK_WIDTH * 16}, [READBACK_WIDTH, rows]);
    device.queue.submit([encoder.finish()]);
    const texels = new Float32Array(await readBuffer(device, copy, bytes));
    target.destroy();
    copy.destroy();
    const out = new Float32Array(3 * n);
    for (let v = 0; v < n; ++v) out.set(texels.subarray(4 * v, 4 * v + 3), 3 * v);
    return out;
  }

  // The compute path's deformed positions for one layout.
  async readCompute(layout = 'dense_f32') {
    const encoder = this.device.createCommandEncoder();
    this.encodeCompute(encoder, layout);
    this.device.queue.submit([encoder.finish()]);
    const stride = this.p.vertexFormat.stride, n = this.p.vertexCount;
    const all = new Float32Array(await readBuffer(this.device, this.output, this.p.base.byteLength));
    const out = new Float32Array(3 * n);
    for (let v = 0; v < n; ++v) out.set(all.subarray(v * stride, v * stride + 3), 3 * v);
    return out;
  }
}
