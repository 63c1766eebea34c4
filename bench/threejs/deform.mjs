// SPDX-License-Identifier: MIT
// The three.js peer of `morphkit bench FILE`: three.js's own CPU morph + skin path, same sampling.
//
//   node bench/threejs/deform.mjs FILE [--anim N|NAME] [--frames N] [--repetitions R] [--json] [--dump T OUT.json]
//
// three.js (r187, installed by scripts/install-three) loads FILE with its GLTFLoader; each frame then runs what a
// three.js application runs to get deformed vertices on the CPU (what raycasting and SkinnedMesh.computeBoundingBox
// do): AnimationMixer.setTime(t), scene.updateMatrixWorld(), and for every vertex of every mesh
// Mesh/SkinnedMesh.getVertexPosition(i, v) (morph accumulation over geometry.morphAttributes.position, then
// SkinnedMesh.applyBoneTransform), then v.applyMatrix4(mesh.matrixWorld) into a world-space Float32Array.
// three.js has no CPU path for normals or tangents, so this moves positions only (morphkit's rows also deform
// normals and tangents: the ratio is conservative).
//
// Sampling as `morphkit bench FILE`: frame i of N at t = i · d / N (d = clip duration); one warm-up pass (the JIT),
// then R passes; the best pass is reported in ms per frame.
// --dump T OUT.json writes the world-space positions at time T (checked against morphkit by compare.py).
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

function usage(message) {
  process.stderr.write(`threejs/deform.mjs: error: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { file: null, anim: null, frames: 30, repetitions: 3, json: false, dumpTime: null, dumpOut: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
    if (a === '--anim') o.anim = next();
    else if (a === '--frames') o.frames = parseInt(next(), 10);
    else if (a === '--repetitions') o.repetitions = parseInt(next(), 10);
    else if (a === '--json') o.json = true;
    else if (a === '--dump') { o.dumpTime = parseFloat(next()); o.dumpOut = next(); }
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else if (o.file === null) o.file = a;
    else usage(`unexpected argument ${a}`);
  }
  if (o.file === null) usage('FILE is required');
  if (!(o.frames >= 1) || !(o.repetitions >= 1)) usage('--frames and --repetitions must be >= 1');
  return o;
}

function load(file) {
  const bytes = readFileSync(file);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return new Promise((resolve, reject) => new GLTFLoader().parse(buffer, '', resolve, reject));
}

// Every mesh with a position attribute, in traversal order, with its world-space output array.
function meshesOf(scene) {
  const meshes = [];
  scene.traverse((o) => {
    if (o.isMesh && o.geometry.attributes.position) {
      meshes.push({ mesh: o, out: new Float32Array(3 * o.geometry.attributes.position.count) });
    }
  });
  return meshes;
}

const v = new THREE.Vector3();

// One frame: sample, propagate transforms, then every vertex through three.js's CPU morph + skin path.
function frame(mixer, scene, meshes, t) {
  if (mixer) mixer.setTime(t);
  scene.updateMatrixWorld(true);
  for (const { mesh, out } of meshes) {
    const count = mesh.geometry.attributes.position.count;
    const world = mesh.matrixWorld;
    for (let i = 0; i < count; i++) {
      mesh.getVertexPosition(i, v);
      v.applyMatrix4(world);
      out[3 * i] = v.x;
      out[3 * i + 1] = v.y;
      out[3 * i + 2] = v.z;
    }
  }
}

const o = parseArgs(process.argv.slice(2));
const gltf = await load(o.file).catch((e) => usage(`${o.file}: ${e.message || e}`));
const scene = gltf.scene;
let clip = null;
if (gltf.animations.length > 0) {
  if (o.anim === null) clip = gltf.animations[0];
  else if (/^\d+$/.test(o.anim)) clip = gltf.animations[parseInt(o.anim, 10)];
  else clip = gltf.animations.find((c) => c.name === o.anim);
  if (!clip) usage(`--anim ${o.anim}: no such animation`);
}
const mixer = clip ? new THREE.AnimationMixer(scene) : null;
if (mixer) mixer.clipAction(clip).play();
const duration = clip ? clip.duration : 0;
const meshes = meshesOf(scene);
const times = Array.from({ length: o.frames }, (_, i) => (duration * i) / o.frames);

if (o.dumpOut) {
  frame(mixer, scene, meshes, o.dumpTime);
  writeFileSync(o.dumpOut, JSON.stringify({ time: o.dumpTime, meshes: meshes.map(({ out }) => Array.from(out)) }));
}

for (const t of times) frame(mixer, scene, meshes, t);  // warm-up pass: the JIT compiles the hot loops
let best = Infinity;
for (let r = 0; r < o.repetitions; r++) {
  const start = performance.now();
  for (const t of times) frame(mixer, scene, meshes, t);
  best = Math.min(best, (performance.now() - start) / o.frames);
}
const vertices = meshes.reduce((n, m) => n + m.out.length / 3, 0);
const result = {
  engine: `three.js r${THREE.REVISION}`, node: process.version, file: o.file,
  animation: clip ? { index: gltf.animations.indexOf(clip), name: clip.name, duration } : null,
  frames: o.frames, repetitions: o.repetitions, vertices, meshes: meshes.length, ms_per_frame: best,
};
if (o.json) {
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
} else {
  process.stdout.write(`${result.engine} (node ${result.node}): ${o.file}, ${vertices} vertices, ` +
    `${clip ? `animation "${clip.name}" (${duration} s)` : 'rest pose'}, ${o.frames} frames: ${best.toFixed(3)} ms/frame\n`);
}
