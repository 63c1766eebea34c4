// SPDX-License-Identifier: MIT
// How far a compressed file strays from its input at every pose three.js shows, measured by three.js on both
// (issue 53's fair comparison: bench/optimize_peers.py, docs/OPTIMIZE.md; tested by tests/python/test_pose_error.py).
//
//   node tools/engines/pose_error.mjs INPUT.gltf|glb OUTPUT.gltf|glb
//
// Prints JSON: {engine, diagonalM, vertices: {input, output}, poses: {rest, targets, animations}, missing,
// largest, categories: {rest, targets, animations}}; each measure is {m, mmPerM, pose, inputMesh, inputVertex,
// outputMesh, outputVertex}: the largest world-space distance (metres, and mm per metre of the input's rest
// bounding-box diagonal) between an output vertex and the input vertex it stands for, and where.
// The poses, each on both files:
//   rest        the file's default weights (mesh.weights, node.weights), no animation;
//   targets     each target of each input mesh alone at weight 1, every other weight 0;
//   animations  every key time of every animation, every midpoint between two consecutive keys, and the clip end.
// Output vertices stand for input vertices by rest position: compressors weld, reorder and move meshes into new
// nodes, so each output vertex takes the nearest input vertex in world space at rest. Input vertices that coincide
// there (seams, touching meshes) are all candidates, one of the same mesh name preferred; each output vertex keeps
// the candidate it stays closest to over every pose. An output mesh poses a target of the input mesh most of its
// vertices stand for; an output animation stands for the input's of the same name, else of the same index.
// three.js: GLTFLoader → AnimationMixer.setTime → Mesh.getVertexPosition (its CPU morph + skin path) → matrixWorld,
// as engine_pose.mjs. Materials and images are stripped before loading: Node has no image decoder and no material
// moves a vertex.
import {readFileSync} from 'node:fs';
import path from 'node:path';

import {PointGrid} from './point_grid.mjs';

console.log = () => {};  // three's warnings: stdout carries the JSON only

function fail(message) {
  process.stderr.write(`pose_error.mjs: error: ${message}\n`);
  process.exit(2);
}

// ---- Loading ----

// The document and its binary data as one .glb would hold them: a .glb's BIN chunk and every buffer with a URI
// (external files, data: URIs) in one BIN, so three's loader reads no file (its FileLoader wants a browser).
function readDocument(file) {
  const bytes = readFileSync(file);
  let json;
  let bin = null;
  if (bytes.readUInt32LE(0) === 0x46546c67) {  // 'glTF' (glTF 2.0 §4.4.3)
    let offset = 12;
    while (offset + 8 <= bytes.length) {
      const length = bytes.readUInt32LE(offset);
      const type = bytes.readUInt32LE(offset + 4);
      const body = bytes.subarray(offset + 8, offset + 8 + length);
      if (type === 0x4e4f534a) json = JSON.parse(body.toString('utf8'));
      if (type === 0x004e4942) bin = body;
      offset += 8 + length;
    }
  } else {
    json = JSON.parse(bytes.toString('utf8'));
  }
  return {json, bin: mergeBuffers(json, bin, path.dirname(file))};
}

// Buffer 0 becomes the concatenation of the BIN chunk and every buffer with a URI, each at a 16-byte boundary (typed
// arrays need their element alignment); buffers without data (meshopt fallbacks) follow it. Returns the new BIN.
function mergeBuffers(json, bin, folder) {
  const buffers = json.buffers || [];
  const parts = [];
  let size = 0;
  const kept = [{byteLength: 0}];
  const where = buffers.map((buffer, b) => {
    let data = null;
    if (buffer.uri === undefined && b === 0 && bin) data = bin;
    if (buffer.uri !== undefined && buffer.uri.startsWith('data:')) {
      data = Buffer.from(buffer.uri.slice(buffer.uri.indexOf(',') + 1), 'base64');
    } else if (buffer.uri !== undefined) {
      data = readFileSync(path.join(folder, decodeURIComponent(buffer.uri)));
    }
    if (data === null) {
      kept.push(buffer);
      return {buffer: kept.length - 1, offset: 0};
    }
    size += (16 - (size % 16)) % 16;
    parts.push({data, offset: size});
    size += data.length;
    return {buffer: 0, offset: parts[parts.length - 1].offset};
  });
  if (!parts.length) return null;
  const merged = Buffer.alloc(size);
  for (const {data, offset} of parts) data.copy(merged, offset);
  kept[0] = {byteLength: size};
  json.buffers = kept;
  const move = (reference) => {
    const target = where[reference.buffer];
    reference.byteOffset = (reference.byteOffset || 0) + target.offset;
    reference.buffer = target.buffer;
  };
  for (const view of json.bufferViews || []) {
    move(view);
    for (const name of ['EXT_meshopt_compression', 'KHR_meshopt_compression']) {
      if (view.extensions && view.extensions[name]) move(view.extensions[name]);
    }
  }
  return merged;
}

// Materials, textures and images out: three would decode every image (Node cannot), and none moves a vertex.
function stripMaterials(json) {
  for (const key of ['materials', 'textures', 'images', 'samplers']) delete json[key];
  for (const mesh of json.meshes || []) {
    for (const primitive of mesh.primitives) {
      delete primitive.material;
      if (primitive.extensions) delete primitive.extensions.KHR_materials_variants;
    }
  }
  if (json.extensions) delete json.extensions.KHR_materials_variants;
  const isMaterialExtension = (name) => /^(KHR_materials_|KHR_texture_|EXT_texture_)/.test(name);
  for (const key of ['extensionsUsed', 'extensionsRequired']) {
    if (json[key]) json[key] = json[key].filter((name) => !isMaterialExtension(name));
  }
}

// What GLTFLoader.parse takes: a .glb (JSON + BIN chunks, glTF 2.0 §4.4.3) or, without BIN, the JSON text.
function loaderInput({json, bin}) {
  const text = JSON.stringify(json);
  if (!bin) return text;
  const pad = (n) => (4 - (n % 4)) % 4;
  const jsonBytes = Buffer.from(text + ' '.repeat(pad(Buffer.byteLength(text))), 'utf8');
  const binBytes = Buffer.concat([bin, Buffer.alloc(pad(bin.length))]);
  const out = Buffer.alloc(12 + 8 + jsonBytes.length + 8 + binBytes.length);
  out.writeUInt32LE(0x46546c67, 0);
  out.writeUInt32LE(2, 4);
  out.writeUInt32LE(out.length, 8);
  out.writeUInt32LE(jsonBytes.length, 12);
  out.writeUInt32LE(0x4e4f534a, 16);
  jsonBytes.copy(out, 20);
  out.writeUInt32LE(binBytes.length, 20 + jsonBytes.length);
  out.writeUInt32LE(0x004e4942, 24 + jsonBytes.length);
  binBytes.copy(out, 28 + jsonBytes.length);
  return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength);
}

// A file as three.js loads it: its scene, every mesh with its glTF mesh index, a mixer, and the state every pose
// starts from (a mixer leaves its last pose on the nodes; restoring this is cheaper than parsing again).
async function loadScene(THREE, GLTFLoader, MeshoptDecoder, file) {
  const document = readDocument(file);
  stripMaterials(document.json);
  const loader = new GLTFLoader().setMeshoptDecoder(MeshoptDecoder);
  const gltf = await new Promise((resolve, reject) => loader.parse(loaderInput(document), '', resolve, reject));
  const scene = gltf.scene;
  scene.updateMatrixWorld(true);
  const meshes = [];
  let vertexCount = 0;
  scene.traverse((object) => {
    if (!object.isMesh || !object.geometry.attributes.position) return;
    const association = gltf.parser.associations.get(object) || {};
    const count = object.geometry.attributes.position.count;
    meshes.push({object, name: object.name, gltfMesh: association.meshes ?? -1, first: vertexCount, count});
    vertexCount += count;
  });
  const nodes = [];
  scene.traverse((object) => nodes.push(object));
  const saved = nodes.map((o) => ({
                            position: o.position.clone(),
                            quaternion: o.quaternion.clone(),
                            scale: o.scale.clone(),
                            influences: o.morphTargetInfluences ? [...o.morphTargetInfluences] : null,
                          }));
  const restore = () => {
    nodes.forEach((o, i) => {
      o.position.copy(saved[i].position);
      o.quaternion.copy(saved[i].quaternion);
      o.scale.copy(saved[i].scale);
      if (saved[i].influences) o.morphTargetInfluences.splice(0, Infinity, ...saved[i].influences);
    });
  };
  return {scene, meshes, vertexCount, animations: gltf.animations, mixer: new THREE.AnimationMixer(scene), restore};
}

// ---- Posing ----

// Every vertex of every mesh in world space, as three.js poses it on the CPU, into `out` (x, y, z, ...).
function worldPositions(THREE, loaded, out) {
  loaded.scene.updateMatrixWorld(true);
  const v = new THREE.Vector3();
  for (const {object, first, count} of loaded.meshes) {
    for (let i = 0; i < count; i++) {
      object.getVertexPosition(i, v);
      v.applyMatrix4(object.matrixWorld);
      out[3 * (first + i)] = v.x;
      out[3 * (first + i) + 1] = v.y;
      out[3 * (first + i) + 2] = v.z;
    }
  }
}

// Target `target` of the meshes in `meshes` at weight 1, every other weight of the scene 0.
function setTargetAlone(loaded, meshes, target) {
  loaded.restore();
  for (const {object} of loaded.meshes) {
    if (object.morphTargetInfluences) object.morphTargetInfluences.fill(0);
  }
  for (const {object} of meshes) {
    if (object.morphTargetInfluences && target < object.morphTargetInfluences.length) {
      object.morphTargetInfluences[target] = 1;
    }
  }
}

// Clip `clip` at `time`. LoopOnce with clamping, so the clip end shows the last key rather than wrapping to the
// first; reset() each time, since a clamped action is paused and would ignore the next setTime.
function setAnimationTime(THREE, loaded, clip, time) {
  loaded.mixer.stopAllAction();  // first: stopping restores what the action's bindings saved
  loaded.restore();
  const action = loaded.mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.reset().play();
  loaded.mixer.setTime(time);
}

// Every key time of the clip, every midpoint between consecutive ones, and the clip end.
function clipTimes(clip) {
  const keys = new Set();
  for (const track of clip.tracks)
    for (const t of track.times) keys.add(t);
  const sorted = [...keys].sort((a, b) => a - b);
  const times = [];
  sorted.forEach((t, i) => {
    if (i > 0) times.push((sorted[i - 1] + t) / 2);
    times.push(t);
  });
  if (!sorted.length || sorted[sorted.length - 1] < clip.duration) times.push(clip.duration);
  return times;
}

// ---- Matching output vertices to input vertices ----

// Each output vertex's candidate input vertices at rest: (pairOutput[p], pairInput[p]) for every pair p.
function matchCandidates(input, output, inputRest, outputRest, slack) {
  const grid = new PointGrid(inputRest, input.vertexCount);
  const inputMeshOf = meshOfVertex(input);
  const pairOutput = [];
  const pairInput = [];
  for (const mesh of output.meshes) {
    for (let v = mesh.first; v < mesh.first + mesh.count; v++) {
      const all = grid.nearest(outputRest, v, slack).slice(0, 16);
      const sameName = all.filter((i) => input.meshes[inputMeshOf[i]].name === mesh.name);
      for (const i of sameName.length ? sameName : all) {
        pairOutput.push(v);
        pairInput.push(i);
      }
    }
  }
  return {pairOutput: Int32Array.from(pairOutput), pairInput: Int32Array.from(pairInput)};
}

function meshOfVertex(loaded) {
  const of = new Int32Array(loaded.vertexCount);
  loaded.meshes.forEach((mesh, m) => of.fill(m, mesh.first, mesh.first + mesh.count));
  return of;
}

// For each input glTF mesh, the output meshes most of whose vertices stand for its vertices.
function outputMeshesFor(input, output, pairs) {
  const inputMeshOf = meshOfVertex(input);
  const outputMeshOf = meshOfVertex(output);
  const votes = output.meshes.map(() => new Map());
  for (let p = 0; p < pairs.pairOutput.length; p++) {
    const gltfMesh = input.meshes[inputMeshOf[pairs.pairInput[p]]].gltfMesh;
    const tally = votes[outputMeshOf[pairs.pairOutput[p]]];
    tally.set(gltfMesh, (tally.get(gltfMesh) || 0) + 1);
  }
  const result = new Map();
  output.meshes.forEach((mesh, m) => {
    const [winner] = [...votes[m]].sort((a, b) => b[1] - a[1])[0] || [];
    if (winner === undefined) return;
    if (!result.has(winner)) result.set(winner, []);
    result.get(winner).push(mesh);
  });
  return result;
}

// ---- Measuring ----

const CATEGORIES = ['rest', 'targets', 'animations'];

// The poses of each category, each a label and how to set it on the input and on the output.
function poses(THREE, input, output, pairs) {
  const list = [{category: 'rest', label: 'rest', onInput: () => input.restore(), onOutput: () => output.restore()}];
  const outputFor = outputMeshesFor(input, output, pairs);
  const seen = new Set();
  for (const mesh of input.meshes) {
    if (seen.has(mesh.gltfMesh) || !mesh.object.morphTargetInfluences) continue;
    seen.add(mesh.gltfMesh);
    const inputMeshes = input.meshes.filter((m) => m.gltfMesh === mesh.gltfMesh);
    const names = Object.entries(mesh.object.morphTargetDictionary || {});
    for (let t = 0; t < mesh.object.morphTargetInfluences.length; t++) {
      const name = (names.find(([, index]) => index === t) || [])[0];
      list.push({
        category: 'targets',
        label: `target ${t}${name && name !== String(t) ? ` (${name})` : ''} of mesh ${mesh.name}`,
        onInput: () => setTargetAlone(input, inputMeshes, t),
        onOutput: () => setTargetAlone(output, outputFor.get(mesh.gltfMesh) || [], t),
      });
    }
  }
  const missing = [];
  input.animations.forEach((clip, a) => {
    const named = output.animations.filter((o) => clip.name && o.name === clip.name);
    const counterpart = named.length === 1 ? named[0] : output.animations[a];
    if (!counterpart) {
      missing.push(`animation ${a} (${clip.name})`);
      return;
    }
    for (const time of clipTimes(clip)) {
      list.push({
        category: 'animations',
        label: `animation ${a} (${clip.name}) at ${+ time.toFixed(6)} s`,
        onInput: () => setAnimationTime(THREE, input, clip, time),
        onOutput: () => setAnimationTime(THREE, output, counterpart, time),
      });
    }
  });
  return {list, missing};
}

function measure(THREE, input, output) {
  const inputPose = new Float64Array(3 * input.vertexCount);
  const outputPose = new Float64Array(3 * output.vertexCount);
  input.restore();
  output.restore();
  worldPositions(THREE, input, inputPose);
  worldPositions(THREE, output, outputPose);
  const diagonal = boxDiagonal(inputPose);
  const pairs = matchCandidates(input, output, inputPose, outputPose, 1e-5 * diagonal);
  const {list, missing} = poses(THREE, input, output, pairs);
  // Per pair and category: its largest distance and the pose of it.
  const pairCount = pairs.pairOutput.length;
  const worst = new Float64Array(3 * pairCount);
  const worstPose = new Int32Array(3 * pairCount).fill(-1);
  list.forEach((pose, index) => {
    pose.onInput();
    pose.onOutput();
    worldPositions(THREE, input, inputPose);
    worldPositions(THREE, output, outputPose);
    const c = CATEGORIES.indexOf(pose.category);
    for (let p = 0; p < pairCount; p++) {
      const o = 3 * pairs.pairOutput[p];
      const i = 3 * pairs.pairInput[p];
      const d = Math.hypot(
          outputPose[o] - inputPose[i], outputPose[o + 1] - inputPose[i + 1], outputPose[o + 2] - inputPose[i + 2]);
      if (d > worst[3 * p + c] || worstPose[3 * p + c] < 0) {
        worst[3 * p + c] = d;
        worstPose[3 * p + c] = index;
      }
    }
  });
  const chosen = chooseCandidates(pairs, worst);
  const inputMeshOf = meshOfVertex(input);
  const outputMeshOf = meshOfVertex(output);
  const categories = {};
  CATEGORIES.forEach((category, c) => {
    let best = {m: 0, p: -1};
    for (const p of chosen) {
      if (worstPose[3 * p + c] >= 0 && (best.p < 0 || worst[3 * p + c] > best.m)) best = {m: worst[3 * p + c], p};
    }
    const where = (p) => {
      const i = pairs.pairInput[p];
      const o = pairs.pairOutput[p];
      const inMesh = input.meshes[inputMeshOf[i]];
      const outMesh = output.meshes[outputMeshOf[o]];
      return {
        pose: list[worstPose[3 * p + c]].label,
        inputMesh: inMesh.name,
        inputVertex: i - inMesh.first,
        outputMesh: outMesh.name,
        outputVertex: o - outMesh.first
      };
    };
    categories[category] = {
      m: best.m,
      mmPerM: diagonal > 0 ? (best.m * 1000) / diagonal : 0,
      ...(best.p >= 0 ? where(best.p) : {pose: null})
    };
  });
  const largest = CATEGORIES.map((c) => ({category: c, ...categories[c]})).sort((a, b) => b.m - a.m)[0];
  const count = (c) => list.filter((pose) => pose.category === c).length;
  return {
    diagonalM: diagonal,
    vertices: {input: input.vertexCount, output: output.vertexCount},
    poses: {rest: count('rest'), targets: count('targets'), animations: count('animations')},
    missing,
    largest,
    categories,
  };
}

// For each output vertex, the candidate pair whose largest distance over every pose is least.
function chooseCandidates(pairs, worst) {
  const chosen = [];
  const overall = (p) => Math.max(worst[3 * p], worst[3 * p + 1], worst[3 * p + 2]);
  for (let p = 0; p < pairs.pairOutput.length;) {
    let best = p;
    let e = p;
    for (; e < pairs.pairOutput.length && pairs.pairOutput[e] === pairs.pairOutput[p]; e++) {
      if (overall(e) < overall(best)) best = e;
    }
    chosen.push(best);
    p = e;
  }
  return chosen;
}

function boxDiagonal(points) {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < points.length; i++) {
    lo[i % 3] = Math.min(lo[i % 3], points[i]);
    hi[i % 3] = Math.max(hi[i % 3], points[i]);
  }
  return points.length ? Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) : 0;
}

const [inputFile, outputFile, ...extra] = process.argv.slice(2);
if (!inputFile || !outputFile || extra.length) fail('usage: pose_error.mjs INPUT.gltf|glb OUTPUT.gltf|glb');
try {
  const THREE = await import('three');
  const {GLTFLoader} = await import('three/examples/jsm/loaders/GLTFLoader.js');
  const {MeshoptDecoder} = await import('three/examples/jsm/libs/meshopt_decoder.module.js');
  const input = await loadScene(THREE, GLTFLoader, MeshoptDecoder, inputFile);
  const output = await loadScene(THREE, GLTFLoader, MeshoptDecoder, outputFile);
  process.stdout.write(
      JSON.stringify({engine: `three.js r${THREE.REVISION}`, ...measure(THREE, input, output)}) + '\n');
} catch (e) {
  fail(`${inputFile} / ${outputFile}: ${e.stack || e}`);
}
