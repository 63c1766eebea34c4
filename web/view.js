// SPDX-License-Identifier: MIT
// morphkit view's page (docs/VIEW.md): fetches the packed data `morphkit view` serves (no glTF here), draws every
// posed primitive with morphkit-webgpu.js, and drives it from the sliders, the timeline and the capture. Each frame's
// inputs (weights, joint palettes, world matrices) come from the server, which samples the animation with morphkit's
// core; slider overrides apply here at once (weights.h order: animation, track, then overrides), so a slider change
// redraws in the next frame. Names are resolved by the server alone (the CLI's --weights parser, --ignore-case, VRM
// expressions): the page keeps overrides by (mesh, target) and sends them in --weights's syntax, as M:T=V.
// window.morphkit.check(pose) is the test hook.
import {createMorphDeformer, loadMorphWgsl} from './morphkit-webgpu.js';
import {lookAt, mul, perspective} from './view_math.js';

const $ = (id) => document.getElementById(id);
const state = {
  meta: null,
  device: null,
  context: null,
  format: null,
  deformers: [],
  depth: null,
  source: 'rest',
  time: 0,
  playing: false,
  overrides: new Map(),  // "MESH:TARGET" -> weight: the sliders and --weights, applied in the page
  poseWeights: {},       // setPose's {weights, targets}: sent with every frame request, applied by the server
  path: 'vertex',
  layout: 'dense_f32',
  frame: null,         // the server's inputs for (source, time): per instance {weights, matrices}
  computeReady: null,  // resolves once blob 1 (the compute layouts) is in
  camera: {yaw: 0.6, pitch: 0.25, distance: 1, target: [0, 0, 0], fov: 45, fixed: null},
  display: 'canvas',
  offscreen: null,
  dirty: true,
  busy: Promise.resolve(),
  lastCheck: 0,
  readoutDue: 0,
  inFlight: false,
};

// ---- the camera ----
function cameraEye(c) {
  if (c.fixed) return c.fixed.eye;
  const d = c.distance;
  return [
    c.target[0] + d * Math.cos(c.pitch) * Math.sin(c.yaw), c.target[1] + d * Math.sin(c.pitch),
    c.target[2] + d * Math.cos(c.pitch) * Math.cos(c.yaw)
  ];
}
function viewProj() {
  const c = state.camera, canvas = $('canvas');
  const eye = cameraEye(c), target = c.fixed ? c.fixed.target : c.target, fov = c.fixed ? c.fixed.fov : c.fov;
  const dist = Math.hypot(eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]);
  const up = Math.abs(eye[1] - target[1]) > 0.999 * dist ? [0, 0, 1] : [0, 1, 0];
  return mul(perspective(fov, canvas.width / canvas.height, dist * 0.01, dist * 100), lookAt(eye, target, up));
}

// ---- the server's data ----
async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${await response.text()}`);
  return response;
}
const view = (blobs, b, Type) => (b ? new Type(blobs[b.blob], b.offset, b.bytes / Type.BYTES_PER_ELEMENT) : null);

function primitiveData(p, blobs) {
  return {
    vertexCount: p.vertexCount,
    targetCount: p.targetCount,
    vertexFormat: p.vertexFormat,
    base: view(blobs, p.base, Float32Array),
    indices: p.triangles ? view(blobs, p.indices, Uint32Array) : null,
    triangles: p.triangles,
    deltaFormat: p.deltaFormat ?? null,
    texture: p.texture ? {...p.texture, data: view(blobs, p.texture.data, Float32Array)} : null,
    skin: p.skin ? {sets: p.skin.sets, joints: p.skin.joints, words: view(blobs, p.skin.words, Uint32Array)} : null,
    dense: null,
    denseF16: null,
    sparse: null,  // filled when blob 1 arrives (fillCompute)
  };
}
function fillCompute(data, p, blobs) {
  data.dense = view(blobs, p.dense, Float32Array);
  data.denseF16 = view(blobs, p.denseF16, Uint16Array);
  if (p.sparse)
    data.sparse = {records: view(blobs, p.sparse.records, Uint32Array), rows: view(blobs, p.sparse.rows, Uint32Array)};
}

// The query of a pose: {anim: name|index|'rest', time, capture, weights: {name: value}, targets: {index: value}}
// (targets: target N of every mesh, for files without names), then `overrides` ("M:T" -> value). Every weight is
// one w=KEY=VALUE item in --weights's syntax, read by the same parser (weight_options.h parseWeightItem).
function frameQuery(pose, overrides, reference) {
  const q = new URLSearchParams();
  if (pose.anim !== undefined && pose.anim !== null && pose.anim !== 'rest') {
    const index =
        typeof pose.anim === 'number' ? pose.anim : state.meta.animations.findIndex((a) => a.name === pose.anim);
    if (index < 0) throw new Error(`no animation named ${pose.anim}`);
    q.set('anim', String(index));
  }
  q.set('time', String(pose.time ?? 0));
  if (pose.capture) q.set('capture', '1');
  for (const [name, value] of Object.entries(pose.weights ?? {})) q.append('w', `${name}=${value}`);
  for (const [target, value] of Object.entries(pose.targets ?? {})) q.append('w', `${target}=${value}`);
  for (const [key, value] of overrides ?? []) q.append('w', `${key}=${value}`);
  if (reference) q.set('reference', '1');
  return `frame?${q}`;
}

// Splits a frame's bytes per instance (view_payload.h buildViewFrame).
async function fetchFrame(pose, reference, overrides = null) {
  const bytes = await (await fetchOk(frameQuery(pose, overrides, reference))).arrayBuffer();
  const f = new Float32Array(bytes);
  let at = 0;
  const instances = state.meta.instances.map((inst) => {
    const targets = state.meta.primitives[inst.data].targetCount;
    const weights = f.slice(at, at + targets);
    at += targets;
    const matrices = f.slice(at, at + inst.matrices * 16);
    at += inst.matrices * 16;
    return {weights, matrices};
  });
  if (reference) {
    for (const [i, inst] of state.meta.instances.entries()) {
      const n = 3 * state.meta.primitives[inst.data].vertexCount;
      instances[i].reference = f.slice(at, at + n);
      at += n;
    }
  }
  return instances;
}

function currentPose() {
  const pose = {time: state.time, ...state.poseWeights};
  if (state.source === 'capture')
    pose.capture = true;
  else if (state.source !== 'rest')
    pose.anim = Number(state.source);
  return pose;
}

// The overrides on top of the server's weights, by (mesh, target): no name is matched here.
function withOverrides(frame) {
  return frame.map((f, i) => {
    const mesh = state.meta.instances[i].mesh;
    const weights = f.weights.slice();
    for (let t = 0; t < weights.length; ++t) {
      const value = state.overrides.get(`${mesh}:${t}`);
      if (value !== undefined) weights[t] = value;
    }
    return {weights, matrices: f.matrices};
  });
}

// The "MESH:TARGET" keys of a slider: the targets that carry exactly its name (the sliders are the file's names).
function targetKeys(name) {
  const keys = new Set();
  for (const inst of state.meta.instances) {
    inst.targetNames.forEach((n, t) => {
      if (n === name) keys.add(`${inst.mesh}:${t}`);
    });
  }
  return [...keys];
}

// ---- drawing ----
// Resolves once the GPU has run what was submitted before: a one-word copy mapped for reading (Chromium 156's
// queue.onSubmittedWorkDone() rejects with "A valid external Instance reference no longer exists" on SwiftShader).
async function gpuDone(device) {
  const U = GPUBufferUsage;
  const src = device.createBuffer({size: 4, usage: U.COPY_SRC}),
        dst = device.createBuffer({size: 4, usage: U.COPY_DST | U.MAP_READ});
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(src, 0, dst, 0, 4);
  device.queue.submit([encoder.finish()]);
  await dst.mapAsync(GPUMapMode.READ);
  src.destroy();
  dst.destroy();
}

function resize() {
  const canvas = $('canvas'), dpr = window.devicePixelRatio || 1;
  const [width, height] = state.camera.fixed?.size ??
      [Math.max(1, Math.floor(canvas.clientWidth * dpr)), Math.max(1, Math.floor(canvas.clientHeight * dpr))];
  // Setting a canvas's size clears it, even to the same size: in 'copy' display the canvas would then show nothing
  // until this draw's present, and a screenshot taken meanwhile an empty frame.
  if (canvas.width !== width) canvas.width = width;
  if (canvas.height !== height) canvas.height = height;
  if (!state.depth || state.depth.width !== canvas.width || state.depth.height !== canvas.height) {
    state.depth?.destroy();
    state.depth = state.device.createTexture(
        {size: [canvas.width, canvas.height], format: 'depth24plus', usage: GPUTextureUsage.RENDER_ATTACHMENT});
  }
}

// display 'canvas': the WebGPU canvas. 'copy': draw into a texture and put it in a 2D canvas, for adapters that
// cannot present (Chromium 156 headless on SwiftShader finds no shared-image backing for the swap chain and loses the
// device on the first present; docs/VIEW.md).
function colorTarget() {
  if (state.display === 'canvas') return state.context.getCurrentTexture();
  const canvas = $('canvas');
  if (!state.offscreen || state.offscreen.width !== canvas.width || state.offscreen.height !== canvas.height) {
    state.offscreen?.destroy();
    state.offscreen = state.device.createTexture({
      size: [canvas.width, canvas.height],
      format: state.format,
      usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC
    });
  }
  return state.offscreen;
}

async function present(encoder) {
  if (state.display === 'canvas') {
    state.device.queue.submit([encoder.finish()]);
    return;
  }
  const {width, height} = state.offscreen, row = Math.ceil((width * 4) / 256) * 256;
  const staging =
      state.device.createBuffer({size: row * height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ});
  encoder.copyTextureToBuffer({texture: state.offscreen}, {buffer: staging, bytesPerRow: row}, [width, height]);
  state.device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const bytes = new Uint8Array(staging.getMappedRange()), image = new ImageData(width, height);
  for (let y = 0; y < height; ++y) image.data.set(bytes.subarray(y * row, y * row + width * 4), y * width * 4);
  staging.destroy();
  state.context.putImageData(image, 0, 0);
}

async function draw() {
  const started = performance.now();
  resize();
  const vp = viewProj(), device = state.device;
  const frame = withOverrides(state.frame);
  state.deformers.forEach((d, i) => d.setFrame({...frame[i], viewProj: vp}));
  const encoder = device.createCommandEncoder();
  const compute = state.path === 'compute';
  if (compute) state.deformers.forEach((d) => d.encodeCompute(encoder, state.layout));
  const background = state.camera.fixed?.background ?? [0.13, 0.14, 0.16, 1];
  const pass = encoder.beginRenderPass({
    colorAttachments: [{view: colorTarget().createView(), loadOp: 'clear', clearValue: background, storeOp: 'store'}],
    depthStencilAttachment:
        {view: state.depth.createView(), depthLoadOp: 'clear', depthClearValue: 1, depthStoreOp: 'store'},
  });
  state.deformers.forEach((d, i) => {
    if (state.meta.primitives[state.meta.instances[i].data].triangles) d.draw(pass, state.path);
  });
  pass.end();
  await present(encoder);
  window.morphkit.frames++;
  window.morphkit.lastFrame = {started, shown: performance.now()};
}

async function refreshFrame() {
  state.frame = await fetchFrame(currentPose(), false);
  state.dirty = true;
}

// The first frame is drawn (every hook below waits for it: before it, the meta, the frame and the compute layouts
// are not there), and blob 1 is in.
async function loaded() {
  await window.morphkit.ready;
  await state.computeReady;
}

// Runs `job` alone: the check and the display share the deformers' buffers.
function exclusive(job) {
  const run = state.busy.then(job, job);
  state.busy = run.catch(() => {});
  return run;
}

function maxDistance(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; i += 3)
    m = Math.max(m, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  return m;
}

// Frobenius norm of a matrix's 3×3: a bound on how far it stretches a delta error.
function matrixScale(m, at) {
  let s = 0;
  for (let c = 0; c < 3; ++c)
    for (let r = 0; r < 3; ++r) s += m[at + c * 4 + r] ** 2;
  return Math.sqrt(s);
}

// Both paths (and every compute layout) with `inputs` ({weights, matrices} per instance) against `references` (the
// CPU reference's positions per instance). Also says which vertex-path variants drew it (none: no targets; seed:
// the 32-byte uniform; list: the active list) and how many of the weights are not zero. Run inside exclusive().
async function measure(inputs, references) {
  let lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  const result = {vertex: 0, compute: 0, layouts: {}, f16Bound: 0, diag: 0, vertices: 0, nonZeroWeights: 0};
  // Every readback is queued before any is awaited: the queue runs them in order (one compute output buffer per
  // deformer is reused layout after layout), and the waits overlap.
  const reads = [];
  for (const [i, d] of state.deformers.entries()) {
    const f = inputs[i], ref = references[i];
    for (let v = 0; v < ref.length; v += 3)
      for (let k = 0; k < 3; ++k) {
        lo[k] = Math.min(lo[k], ref[v + k]);
        hi[k] = Math.max(hi[k], ref[v + k]);
      }
    d.setFrame({weights: f.weights, matrices: f.matrices});
    reads.push(d.readVertexPath().then((pos) => {
      result.vertex = Math.max(result.vertex, maxDistance(pos, ref));
    }));
    const p = state.meta.primitives[state.meta.instances[i].data];
    const layouts =
        p.targetCount === 0 ? ['dense_f32'] : ['dense_f32', 'sparse'].concat(p.denseF16 ? ['dense_f16'] : []);
    for (const layout of layouts) {
      reads.push(d.readCompute(layout).then((pos) => {
        result.layouts[layout] = Math.max(result.layouts[layout] ?? 0, maxDistance(pos, ref));
      }));
    }
    // f16's own resolution: Σ|w| · the largest position rounding, through the largest matrix.
    if (p.denseF16) {
      let scale = 0;
      for (let m = 0; m < f.matrices.length; m += 16) scale = Math.max(scale, matrixScale(f.matrices, m));
      if (!state.meta.instances[i].skinned) scale = matrixScale(f.matrices, 0);
      const sumW = f.weights.reduce((s, w) => s + Math.abs(w), 0);
      result.f16Bound = Math.max(result.f16Bound, sumW * p.f16PositionError * scale);
    }
    result.nonZeroWeights += f.weights.filter((w) => w !== 0).length;
    result.vertices += p.vertexCount;
  }
  await Promise.all(reads);
  result.compute = result.layouts.dense_f32;
  result.variants = [...new Set(state.deformers.map((d) => d.variant))];
  result.diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  state.dirty = true;  // the display's own frame goes back on the next draw
  return result;
}

// The test hook: one pose, its inputs and CPU reference both from the server. Waits for the first frame.
async function check(pose = {}) {
  await loaded();
  return exclusive(async () => {
    const frame = await fetchFrame(pose, true);
    return measure(frame, frame.map((f) => f.reference));
  });
}

// The pose on screen as the page draws it (the server's frame, then the page's overrides by target) against the
// CPU reference of the same pose with those overrides applied by the server.
async function checkShown() {
  await loaded();
  return exclusive(async () => {
    const pose = currentPose();
    const [frame, reference] = await Promise.all([fetchFrame(pose, false), fetchFrame(pose, true, state.overrides)]);
    return measure(withOverrides(frame), reference.map((f) => f.reference));
  });
}

// The readout: the shown pose's largest distance from the CPU reference, on the shown path.
async function updateReadout() {
  const r = await checkShown();
  // A model without targets draws every compute layout the same way (dense_f32 is the one checked); a model whose
  // deltas overflow f16 has no f16 layout (view_payload.cpp), and the compute path then draws dense f32.
  const layout = state.path === 'vertex'    ? 'vertex' :
      r.layouts[state.layout] !== undefined ? state.layout :
                                              'dense_f32';
  const e = state.path === 'vertex' ? r.vertex : r.layouts[layout];
  $('readout').textContent = `distance from the CPU reference (${layout}):\n` +
      `${e.toExponential(2)} = ${(e / (r.diag || 1)).toExponential(2)} of the diagonal ${r.diag.toPrecision(4)}`;
}

// ---- the panel ----
function buildPanel() {
  const meta = state.meta;
  $('file').textContent =
      `${meta.file}: ${meta.instances.length} primitive(s), ${meta.targetNames.length} target name(s)`;
  const source = $('source');
  source.add(new Option('rest pose', 'rest'));
  meta.animations.forEach((a, i) => source.add(new Option(`${i}: ${a.name || '(unnamed)'}`, String(i))));
  if (meta.capture) source.add(new Option('capture', 'capture'));
  if (meta.start.animation !== null)
    state.source = String(meta.start.animation);
  else if (meta.capture)
    state.source = 'capture';
  source.value = state.source;
  setDuration();
  for (const {mesh, target, value} of meta.start.targets) state.overrides.set(`${mesh}:${target}`, value);
  const sliders = $('sliders');
  for (const name of meta.targetNames) {
    const keys = targetKeys(name);
    const row = document.createElement('div');
    row.className = 'row';
    row.dataset.name = name.toLowerCase();
    const label = document.createElement('label');
    label.textContent = label.title = name;
    const input = Object.assign(document.createElement('input'), {type: 'range', min: 0, max: 1, step: 0.01});
    const out = document.createElement('output');
    row.sync = () => {  // shows the override of the name's first target that has one
      const value = keys.map((k) => state.overrides.get(k)).find((v) => v !== undefined);
      input.value = value ?? 0;
      out.textContent = value === undefined ? '–' : value.toFixed(2);
    };
    row.sync();
    input.addEventListener('input', () => {
      for (const k of keys) state.overrides.set(k, Number(input.value));
      out.textContent = Number(input.value).toFixed(2);
      state.dirty = true;
      state.readoutDue = performance.now() + 300;
    });
    row.append(label, input, out);
    sliders.append(row);
  }
  $('filter').addEventListener('input', (e) => {
    const f = e.target.value.toLowerCase();
    for (const row of sliders.children) row.style.display = row.dataset.name.includes(f) ? '' : 'none';
  });
  $('reset').addEventListener('click', () => {
    state.overrides.clear();
    for (const row of sliders.children) row.sync();
    state.dirty = true;
    state.readoutDue = performance.now() + 300;
  });
  source.addEventListener('change', () => {
    state.source = source.value;
    state.time = 0;
    setDuration();
    poseChanged();
  });
  $('time').addEventListener('input', (e) => {
    state.time = Number(e.target.value);
    poseChanged();
  });
  $('play').addEventListener('click', () => {
    state.playing = !state.playing;
    $('play').textContent = state.playing ? 'pause' : 'play';
  });
  $('path').addEventListener('change', async (e) => {
    const [path, layout] = e.target.value.split(':');
    if (path === 'compute') await loaded();
    state.path = path;
    state.layout = layout ?? state.layout;
    state.dirty = true;
    state.readoutDue = performance.now();
  });
}
function duration() {
  if (state.source === 'rest') return 0;
  return state.source === 'capture' ? state.meta.capture.duration :
                                      state.meta.animations[Number(state.source)].duration;
}
function setDuration() {
  const t = $('time');
  t.max = String(Math.max(duration(), 0.001));
  t.disabled = state.source === 'rest';
}
function poseChanged() {
  $('time').value = String(state.time);
  $('time-label').textContent = state.time.toFixed(2);
  // Scrubbing waits for 0.3 s of calm; playback keeps the once-a-second schedule tick() set.
  if (!state.playing || !state.readoutDue) state.readoutDue = performance.now() + 300;
  if (!state.inFlight) {
    state.inFlight = true;
    refreshFrame().finally(() => {
      state.inFlight = false;
    });
  }
}

function orbitControls() {
  const canvas = $('canvas');
  let drag = null;
  canvas.addEventListener('pointerdown', (e) => {
    drag = [e.clientX, e.clientY];
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener('pointerup', () => {
    drag = null;
  });
  canvas.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const c = state.camera;
    c.yaw -= (e.clientX - drag[0]) * 0.01;
    c.pitch = Math.max(-1.5, Math.min(1.5, c.pitch + (e.clientY - drag[1]) * 0.01));
    drag = [e.clientX, e.clientY];
    state.dirty = true;
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    state.camera.distance *= Math.exp(e.deltaY * 0.001);
    state.dirty = true;
  }, {passive: false});
  new ResizeObserver(() => {
    state.dirty = true;
  }).observe(canvas);
}

// ---- start ----
async function start() {
  if (!navigator.gpu) throw new Error('this browser has no WebGPU (navigator.gpu)');
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter');
  const features = adapter.features.has('shader-f16') ? ['shader-f16'] : [];
  const [device, meta, drawBlob, wgsl] = await Promise.all([
    adapter.requestDevice({requiredFeatures: features}), fetchOk('meta').then((r) => r.json()),
    fetchOk('blob/0').then((r) => r.arrayBuffer()), loadMorphWgsl()
  ]);
  device.addEventListener('uncapturederror', (e) => console.error(`WebGPU: ${e.error.message}`));
  Object.assign(state, {device, meta});
  const display = new URLSearchParams(location.search).get('display');
  state.display =
      display ?? (adapter.info?.isFallbackAdapter || adapter.info?.architecture === 'swiftshader' ? 'copy' : 'canvas');
  if (state.display === 'canvas') {
    state.format = navigator.gpu.getPreferredCanvasFormat();
    state.context = $('canvas').getContext('webgpu');
    state.context.configure({device, format: state.format, alphaMode: 'opaque'});
  } else {
    state.format = 'rgba8unorm';
    state.context = $('canvas').getContext('2d');
  }
  const blobs = [drawBlob, null];
  const data = meta.primitives.map((p) => primitiveData(p, blobs));
  state.deformers = meta.instances.map((inst) => {
    return createMorphDeformer(
        device, wgsl, data[inst.data], {colorFormat: state.format, skinned: inst.skinned, joints: inst.matrices});
  });
  buildPanel();
  orbitControls();
  const first = await fetchFrame(currentPose(), true, state.overrides);
  frameCamera(first);
  state.frame = await fetchFrame(currentPose(), false);
  await draw();
  await gpuDone(device);
  window.morphkit.firstFrameMs = performance.now();
  $('status').textContent = `first frame ${window.morphkit.firstFrameMs.toFixed(0)} ms after navigation`;
  state.computeReady = fetchOk('blob/1').then((r) => r.arrayBuffer()).then((b) => {
    blobs[1] = b;
    meta.primitives.forEach((p, i) => fillCompute(data[i], p, blobs));
  });
  requestAnimationFrame(tick);
  state.readoutDue = performance.now() + 500;
}

function frameCamera(frame) {
  let lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (const f of frame)
    for (let v = 0; v < f.reference.length; v += 3)
      for (let k = 0; k < 3; ++k) {
        lo[k] = Math.min(lo[k], f.reference[v + k]);
        hi[k] = Math.max(hi[k], f.reference[v + k]);
      }
  const diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) || 1;
  state.camera.target = lo.map((l, k) => (l + hi[k]) / 2);
  state.camera.distance = (0.6 * diag) / Math.tan((state.camera.fov * Math.PI) / 360);
}

let last = 0;
function tick(now) {
  if (state.playing && duration() > 0) {
    const dt = last ? (now - last) / 1000 : 0;
    state.time = (state.time + dt) % duration();
    poseChanged();
  }
  last = now;
  if (state.dirty) {
    state.dirty = false;
    exclusive(draw);
  }
  if (state.readoutDue && now >= state.readoutDue) {
    state.readoutDue = state.playing ? now + 1000 : 0;
    updateReadout().catch((e) => {
      $('readout').textContent = String(e.message ?? e);
    });
  }
  requestAnimationFrame(tick);
}

// The hook tests and scripts drive (docs/VIEW.md "Test hook").
window.morphkit = {
  check,
  checkShown,
  ready: null,
  firstFrameMs: null,
  frames: 0,        // frames drawn (and, in 'copy' display, put on the canvas)
  lastFrame: null,  // {started, shown}: performance.now() when the last draw began and when it was on the canvas
  // A fixed camera and canvas size (pixels) for screenshots: {eye, target, fov, size: [w, h], background}.
  async setCamera(camera) {
    await window.morphkit.ready;
    state.camera.fixed = camera;
    await exclusive(draw);
    await gpuDone(state.device);
  },
  // Draws now and waits for the GPU (a screenshot reads the canvas in the same task).
  async redraw() {
    await window.morphkit.ready;
    await exclusive(draw);
    await gpuDone(state.device);
  },
  // The overrides (sliders) are cleared; pose.weights and pose.targets go to the server with every frame request.
  async setPose(pose) {
    await window.morphkit.ready;
    const anim =
        typeof pose.anim === 'string' ? state.meta.animations.findIndex((a) => a.name === pose.anim) : pose.anim;
    state.source = pose.capture ? 'capture' : anim === undefined || anim < 0 ? 'rest' : String(anim);
    state.time = pose.time ?? 0;
    state.poseWeights = {weights: pose.weights ?? {}, targets: pose.targets ?? {}};
    state.overrides.clear();
    for (const row of $('sliders').children) row.sync();
    await refreshFrame();
  },
  async setPath(path, layout) {
    if (path === 'compute') await loaded();
    state.path = path;
    if (layout) state.layout = layout;
    state.dirty = true;
  },
};
window.morphkit.ready = start().catch((e) => {
  $('status').textContent = `error: ${e.message ?? e}`;
  console.error(e);
  throw e;
});
