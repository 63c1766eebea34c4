// SPDX-License-Identifier: MIT
// The largest two-sided surface distance between two glTF files at every pose three.js shows: the independent measure
// of simplification (issue 55; bench/simplify_peers.py, docs/OPTIMIZE.md), in three.js and three-mesh-bvh alone (no
// morphkit code).
//
//   node tools/engines/surface_distance.mjs INPUT OUTPUT [--samples N] [--seed S]
//
// Poses, by category: rest (every morph weight 0, nodes as written), targets (each target index alone at weight 1, on
// every mesh that has it), animations (each clip at every key time of its channels, every midpoint between two keys
// and the clip end). Both files are posed by three.js (GLTFLoader → AnimationMixer.setTime → Mesh.getVertexPosition,
// its CPU morph + skin path → matrixWorld); each file's world-space triangles of all meshes make one surface. A
// surface's sample points are its vertices plus N area-weighted points (rest-pose areas, barycentric coordinates from
// a seeded generator, so the same points follow the surface through the poses); each sample's distance to the other
// surface is three-mesh-bvh's closestPointToPoint (one BVH per file, built at rest and refit at each pose).
//
// Prints JSON: {input, output, triangles: {input, output}, diagonal (m, of the input's rest bounding box), samples,
// categories: {rest|targets|animations: {poses, mm, mmPerM, pose, direction, at, nearest} | null}, seconds}.
// `mm` assumes glTF's metres; `mmPerM` (mm per metre of the diagonal) does not. `at` is the sample point where the
// largest distance occurs, `nearest` its closest point on the other surface, both in world space.
import {readFileSync} from 'node:fs';
import {dirname, extname, join} from 'node:path';

console.log = () => {};  // stdout carries the JSON only

function usage(message) {
  process.stderr.write(`surface_distance.mjs: error: ${message}\n`);
  process.exit(2);
}

function parseArguments(argv) {
  const options = {files: [], samples: 100000, seed: 55};
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--samples' || argv[i] === '--seed') {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 0) usage(`${argv[i - 1]} needs a whole number`);
      options[argv[i - 1].slice(2)] = value;
    } else if (argv[i].startsWith('--')) {
      usage(`unknown option ${argv[i]}`);
    } else {
      options.files.push(argv[i]);
    }
  }
  if (options.files.length !== 2) usage('usage: surface_distance.mjs INPUT OUTPUT [--samples N] [--seed S]');
  return options;
}

// ---- Reading: one in-memory .glb with geometry only ----

const kGlbMagic = 0x46546c67, kJsonChunk = 0x4e4f534a, kBinChunk = 0x004e4942;

// The JSON and the binary chunk of a .glb (glTF 2.0 §4.4), or the JSON of a .gltf.
function readDocument(path) {
  const bytes = readFileSync(path);
  if (bytes.length >= 12 && bytes.readUInt32LE(0) === kGlbMagic) {
    let json = null, bin = null;
    for (let at = 12; at + 8 <= bytes.length;) {
      const length = bytes.readUInt32LE(at), type = bytes.readUInt32LE(at + 4);
      const body = bytes.subarray(at + 8, at + 8 + length);
      if (type === kJsonChunk) json = JSON.parse(body.toString('utf8'));
      if (type === kBinChunk && bin === null) bin = body;
      at += 8 + length;
    }
    if (!json) throw new Error(`${path}: a .glb without a JSON chunk`);
    return {json, bin};
  }
  return {json: JSON.parse(bytes.toString('utf8')), bin: null};
}

// A buffer's bytes: the .glb's binary chunk (buffer 0 without a uri), a data: URI, a file beside the document; null for
// a buffer with no data (EXT_meshopt_compression's fallback buffer).
function bufferBytes(buffer, index, bin, folder) {
  if (buffer.uri === undefined) return index === 0 && bin ? bin : null;
  if (buffer.uri.startsWith('data:')) return Buffer.from(buffer.uri.slice(buffer.uri.indexOf(',') + 1), 'base64');
  return readFileSync(join(folder, decodeURIComponent(buffer.uri)));
}

// Every buffer with data merged into buffer 0 (views remapped, meshopt's compressed views too), so that the loader
// reads nothing from disk or network (Node's fetch has no file: URLs).
function mergeBuffers(json, bin, folder) {
  const parts = [], remap = [], kept = [{}];
  let length = 0;
  (json.buffers || []).forEach((buffer, i) => {
    const data = bufferBytes(buffer, i, bin, folder);
    if (data === null) {
      remap.push({buffer: kept.length, offset: 0});
      kept.push(buffer);
      return;
    }
    length = Math.ceil(length / 16) * 16;
    remap.push({buffer: 0, offset: length});
    parts.push({data, at: length});
    length += data.length;
  });
  const merged = Buffer.alloc(Math.ceil(length / 4) * 4);
  for (const {data, at} of parts) data.copy(merged, at);
  const move = (view) => {
    const to = remap[view.buffer];
    view.buffer = to.buffer;
    view.byteOffset = (view.byteOffset || 0) + to.offset;
  };
  for (const view of json.bufferViews || []) {
    move(view);
    for (const name of ['EXT_meshopt_compression', 'KHR_meshopt_compression']) {
      if (view.extensions && view.extensions[name]) move(view.extensions[name]);
    }
  }
  kept[0] = {byteLength: merged.length};
  json.buffers = kept;
  return merged;
}

// Images, textures and samplers out (Node has no image decoder; the geometry needs none); materials emptied so that no
// texture index dangles.
function stripImages(json) {
  delete json.images;
  delete json.textures;
  delete json.samplers;
  if (json.materials) json.materials = json.materials.map((m) => ({name: m.name}));
  const textureExtensions = ['KHR_texture_basisu', 'EXT_texture_webp', 'EXT_texture_avif', 'KHR_texture_transform'];
  for (const key of ['extensionsUsed', 'extensionsRequired']) {
    if (json[key]) json[key] = json[key].filter((name) => !textureExtensions.includes(name));
  }
}

function packGlb(json, bin) {
  const text = Buffer.from(JSON.stringify(json), 'utf8');
  const jsonChunk = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const total = 12 + 8 + jsonChunk.length + 8 + bin.length;
  const header = Buffer.alloc(20);
  header.writeUInt32LE(kGlbMagic, 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(total, 8);
  header.writeUInt32LE(jsonChunk.length, 12);
  header.writeUInt32LE(kJsonChunk, 16);
  const binHeader = Buffer.alloc(8);
  binHeader.writeUInt32LE(bin.length, 0);
  binHeader.writeUInt32LE(kBinChunk, 4);
  const glb = Buffer.concat([header, jsonChunk, binHeader, bin]);
  return glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength);
}

function geometryOnlyGlb(path) {
  const {json, bin} = readDocument(path);
  if (extname(path).toLowerCase() === '.gltf' && bin) throw new Error(`${path}: binary data in a .gltf`);
  const merged = mergeBuffers(json, bin, dirname(path));
  stripImages(json);
  return packGlb(json, merged);
}

// ---- Posing in three.js ----

async function loadThree() {
  const THREE = await import('three');
  const {GLTFLoader} = await import('three/examples/jsm/loaders/GLTFLoader.js');
  const {MeshoptDecoder} = await import('three/examples/jsm/libs/meshopt_decoder.module.js');
  const {MeshBVH} = await import('three-mesh-bvh');
  return {THREE, GLTFLoader, MeshoptDecoder, MeshBVH};
}

// One file parsed once: its meshes, each node's transform as written (restored before every pose) and a mixer.
async function loadFile(lib, path) {
  const loader = new lib.GLTFLoader().setMeshoptDecoder(lib.MeshoptDecoder);
  const glb = geometryOnlyGlb(path);
  const gltf = await new Promise((resolve, reject) => loader.parse(glb, '', resolve, reject));
  const meshes = [], nodes = [];
  gltf.scene.traverse((o) => {
    nodes.push({o, position: o.position.clone(), quaternion: o.quaternion.clone(), scale: o.scale.clone()});
    if (o.isMesh && o.geometry.attributes.position) meshes.push(o);
  });
  return {
    path,
    scene: gltf.scene,
    clips: gltf.animations,
    meshes,
    nodes,
    mixer: new lib.THREE.AnimationMixer(gltf.scene)
  };
}

function targetCount(file) {
  return Math.max(0, ...file.meshes.map((m) => (m.morphTargetInfluences ? m.morphTargetInfluences.length : 0)));
}

// Nodes as written, every weight 0, no action running (a stopped action restores what it bound).
function resetPose(file) {
  file.mixer.stopAllAction();
  for (const {o, position, quaternion, scale} of file.nodes) {
    o.position.copy(position);
    o.quaternion.copy(quaternion);
    o.scale.copy(scale);
  }
  for (const mesh of file.meshes) {
    if (mesh.morphTargetInfluences) mesh.morphTargetInfluences.fill(0);
  }
}

// Pose `file` at `pose` ({category: 'rest'} | {category: 'targets', target} | {category: 'animations', clip, time}).
function applyPose(lib, file, pose) {
  resetPose(file);
  if (pose.category === 'targets') {
    for (const mesh of file.meshes) {
      if (mesh.morphTargetInfluences && pose.target < mesh.morphTargetInfluences.length) {
        mesh.morphTargetInfluences[pose.target] = 1;
      }
    }
  } else if (pose.category === 'animations') {
    const clip = file.clips[pose.clip];
    if (!clip) throw new Error(`${file.path}: no animation ${pose.clip}`);
    // Once and clamped: the clip end shows the last keys (a looping action wraps to t = 0 there).
    const action = file.mixer.clipAction(clip).setLoop(lib.THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.reset().play();
    file.mixer.setTime(pose.time);
  }
  file.scene.updateMatrixWorld(true);
}

// Every key time of the clip's channels, every midpoint between two consecutive ones, and the clip end.
function clipTimes(clip) {
  const keys = [...new Set(clip.tracks.flatMap((track) => Array.from(track.times)))].sort((a, b) => a - b);
  const times = [];
  keys.forEach((t, i) => {
    if (i > 0) times.push((keys[i - 1] + t) / 2);
    times.push(t);
  });
  if (!keys.length || keys[keys.length - 1] < clip.duration) times.push(clip.duration);
  return times;
}

// The output's clips are posed by the input's indices: they must be the same clips in the same order.
function checkClips(input, output) {
  input.clips.forEach((clip, c) => {
    const other = output.clips[c];
    if (!other) throw new Error(`${output.path} has no animation ${c} ('${clip.name}')`);
    if (clip.name && other.name && clip.name !== other.name) {
      throw new Error(`animation ${c} is '${clip.name}' in ${input.path} but '${other.name}' in ${output.path}`);
    }
  });
}

function allPoses(input) {
  const poses = [{category: 'rest', label: 'rest'}];
  const names = input.meshes.find((m) => m.morphTargetDictionary)?.morphTargetDictionary || {};
  const nameOf = Object.fromEntries(Object.entries(names).map(([name, t]) => [t, name]));
  for (let t = 0; t < targetCount(input); t++) {
    poses.push({category: 'targets', target: t, label: `target ${t}${nameOf[t] ? ` (${nameOf[t]})` : ''}`});
  }
  input.clips.forEach((clip, c) => {
    for (const time of clipTimes(clip)) {
      poses.push({category: 'animations', clip: c, time, label: `animation ${c} (${clip.name}) at ${time} s`});
    }
  });
  return poses;
}

// ---- One file's posed surface: merged world-space triangles, a BVH, sample points ----

function makeSurface(lib, file) {
  const ranges = [];
  let vertexCount = 0;
  const triangles = [];
  for (const mesh of file.meshes) {
    const geometry = mesh.geometry;
    const count = geometry.attributes.position.count;
    const index = geometry.index ? geometry.index.array : null;
    const corners = index ? index.length : count;
    for (let k = 0; k + 2 < corners; k += 3) {
      for (let j = 0; j < 3; j++) triangles.push(vertexCount + (index ? index[k + j] : k + j));
    }
    ranges.push({mesh, first: vertexCount, count});
    vertexCount += count;
  }
  const positions = new Float32Array(vertexCount * 3);
  const geometry = new lib.THREE.BufferGeometry();
  geometry.setAttribute('position', new lib.THREE.BufferAttribute(positions, 3));
  // The BVH reorders its index in place: it gets a copy, `triangles` stays in file order for the samples.
  geometry.setIndex(new lib.THREE.BufferAttribute(Uint32Array.from(triangles), 1));
  return {file, ranges, positions, triangles: Uint32Array.from(triangles), geometry, bvh: null, samples: null};
}

// Every vertex of the surface at the file's current pose, in world space; the BVH built once, then refit.
function writePositions(lib, surface) {
  const v = new lib.THREE.Vector3();
  for (const {mesh, first, count} of surface.ranges) {
    for (let i = 0; i < count; i++) {
      mesh.getVertexPosition(i, v);
      v.applyMatrix4(mesh.matrixWorld);
      v.toArray(surface.positions, 3 * (first + i));
    }
  }
  if (surface.bvh)
    surface.bvh.refit();
  else
    surface.bvh = new lib.MeshBVH(surface.geometry);
}

// A small seeded generator (mulberry32), so that runs sample the same points.
function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function triangleArea(p, a, b, c) {
  const ux = p[3 * b] - p[3 * a], uy = p[3 * b + 1] - p[3 * a + 1], uz = p[3 * b + 2] - p[3 * a + 2];
  const vx = p[3 * c] - p[3 * a], vy = p[3 * c + 1] - p[3 * a + 1], vz = p[3 * c + 2] - p[3 * a + 2];
  return 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
}

// The sample points, at the rest pose: each vertex a triangle uses (barycentric (1, 0) of one of its triangles), then
// `count` points spread by area, uniform within their triangle.
function chooseSamples(surface, count, seed) {
  const {triangles, positions} = surface;
  const triangleCount = triangles.length / 3;
  const seen = new Uint8Array(positions.length / 3);
  const tri = [], u = [], v = [];
  for (let t = 0; t < triangleCount; t++) {
    for (let j = 0; j < 3; j++) {
      const vertex = triangles[3 * t + j];
      if (seen[vertex]) continue;
      seen[vertex] = 1;
      tri.push(t);
      u.push(j === 1 ? 1 : 0);
      v.push(j === 2 ? 1 : 0);
    }
  }
  const cumulative = new Float64Array(triangleCount);
  let total = 0;
  for (let t = 0; t < triangleCount; t++) {
    total += triangleArea(positions, triangles[3 * t], triangles[3 * t + 1], triangles[3 * t + 2]);
    cumulative[t] = total;
  }
  const random = seededRandom(seed);
  for (let s = 0; s < count && total > 0; s++) {
    const target = random() * total;
    let lo = 0, hi = triangleCount - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] <= target)
        lo = mid + 1;
      else
        hi = mid;
    }
    let r1 = random(), r2 = random();
    if (r1 + r2 > 1) [r1, r2] = [1 - r1, 1 - r2];
    tri.push(lo);
    u.push(r1);
    v.push(r2);
  }
  surface.samples = {tri: Uint32Array.from(tri), u: Float64Array.from(u), v: Float64Array.from(v)};
}

function samplePoint(surface, s, out) {
  const {triangles, positions, samples} = surface;
  const t = samples.tri[s], u = samples.u[s], v = samples.v[s];
  const a = 3 * triangles[3 * t], b = 3 * triangles[3 * t + 1], c = 3 * triangles[3 * t + 2];
  out.set(
      positions[a] + u * (positions[b] - positions[a]) + v * (positions[c] - positions[a]),
      positions[a + 1] + u * (positions[b + 1] - positions[a + 1]) + v * (positions[c + 1] - positions[a + 1]),
      positions[a + 2] + u * (positions[b + 2] - positions[a + 2]) + v * (positions[c + 2] - positions[a + 2]));
  return out;
}

// Where each of `from`'s samples last found a point of `to` (a triangle of `to`'s BVH index and barycentric
// coordinates): at the next pose that point, re-posed, bounds the sample's distance from above.
function makeHitCache(from) {
  const n = from.samples.tri.length;
  return {tri: new Int32Array(n).fill(-1), u: new Float64Array(n), v: new Float64Array(n)};
}

// The distance from p to the point at barycentric (u, v) of triangle t of `to`'s BVH index, at the current pose.
function cachedDistance(to, t, u, v, p) {
  const index = to.bvh.geometry.index.array, q = to.positions;
  const a = 3 * index[3 * t], b = 3 * index[3 * t + 1], c = 3 * index[3 * t + 2];
  const x = q[a] + u * (q[b] - q[a]) + v * (q[c] - q[a]) - p.x;
  const y = q[a + 1] + u * (q[b + 1] - q[a + 1]) + v * (q[c + 1] - q[a + 1]) - p.y;
  const z = q[a + 2] + u * (q[b + 2] - q[a + 2]) + v * (q[c + 2] - q[a + 2]) - p.z;
  return Math.hypot(x, y, z);
}

function rememberHit(lib, to, cache, s, hit) {
  const index = to.bvh.geometry.index.array, q = to.positions, t = hit.faceIndex;
  const corner = (k) => new lib.THREE.Vector3().fromArray(q, 3 * index[3 * t + k]);
  const weights = lib.THREE.Triangle.getBarycoord(hit.point, corner(0), corner(1), corner(2), new lib.THREE.Vector3());
  if (!weights) return;  // a degenerate triangle: no cached bound for this sample
  cache.tri[s] = t;
  cache.u[s] = weights.y;
  cache.v[s] = weights.z;
}

// The largest distance from `from`'s samples to `to`'s surface, when it beats `worst` (then `worst` is updated with
// where). Exact, and fast for three reasons that never drop a larger distance: a sample whose cached point of `to`
// (previous pose) is within the worst so far is skipped, since its distance can only be smaller; closestPointToPoint's
// minThreshold stops a query at the first triangle nearer than the worst so far; the BVH is refit, not rebuilt.
function directedWorst(lib, from, to, cache, worst, pose, direction) {
  const p = new lib.THREE.Vector3(), hit = {point: new lib.THREE.Vector3(), distance: 0, faceIndex: 0};
  for (let s = 0; s < from.samples.tri.length; s++) {
    samplePoint(from, s, p);
    if (cache.tri[s] >= 0 && cachedDistance(to, cache.tri[s], cache.u[s], cache.v[s], p) <= worst.distance) continue;
    if (!to.bvh.closestPointToPoint(p, hit, worst.distance)) continue;
    rememberHit(lib, to, cache, s, hit);
    if (hit.distance <= worst.distance) continue;
    Object.assign(
        worst, {distance: hit.distance, pose: pose.label, direction, at: p.toArray(), nearest: hit.point.toArray()});
  }
}

function restDiagonal(positions) {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i++) {
    lo[i % 3] = Math.min(lo[i % 3], positions[i]);
    hi[i % 3] = Math.max(hi[i % 3], positions[i]);
  }
  return positions.length ? Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) : 0;
}

function report(worst, diagonal) {
  if (!worst.poses) return null;
  const mm = worst.distance * 1000;
  return {
    poses: worst.poses,
    mm,
    mmPerM: diagonal > 0 ? mm / diagonal : null,
    pose: worst.pose,
    direction: worst.direction,
    at: worst.at,
    nearest: worst.nearest
  };
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const started = performance.now();
  const lib = await loadThree();
  const [input, output] = [await loadFile(lib, options.files[0]), await loadFile(lib, options.files[1])];
  checkClips(input, output);
  const surfaces = [makeSurface(lib, input), makeSurface(lib, output)];
  const worst = {};
  for (const category of ['rest', 'targets', 'animations']) worst[category] = {distance: 0, poses: 0};
  let diagonal = 0, caches = null;
  for (const pose of allPoses(input)) {
    for (const surface of surfaces) {
      applyPose(lib, surface.file, pose);
      writePositions(lib, surface);
    }
    if (pose.category === 'rest') {
      diagonal = restDiagonal(surfaces[0].positions);
      surfaces.forEach((surface, i) => chooseSamples(surface, options.samples, options.seed + i));
      caches = surfaces.map(makeHitCache);
    }
    const w = worst[pose.category];
    w.poses++;
    directedWorst(lib, surfaces[0], surfaces[1], caches[0], w, pose, 'input→output');
    directedWorst(lib, surfaces[1], surfaces[0], caches[1], w, pose, 'output→input');
  }
  const categories = {};
  for (const [category, w] of Object.entries(worst)) categories[category] = report(w, diagonal);
  return {
    input: options.files[0],
    output: options.files[1],
    engine: `three.js r${lib.THREE.REVISION}`,
    triangles: {input: surfaces[0].triangles.length / 3, output: surfaces[1].triangles.length / 3},
    diagonal,
    samples: {input: surfaces[0].samples.tri.length, output: surfaces[1].samples.tri.length},
    categories,
    seconds: (performance.now() - started) / 1000,
  };
}

const result = await main().catch((e) => usage(e.stack || String(e)));
process.stdout.write(JSON.stringify(result) + '\n');
