// SPDX-License-Identifier: MIT
// The real engines' pose of a file, for `morphkit check`'s proof (tests/check/check_engines_test.cpp, docs/CHECK.md).
//
//   node tools/engines/engine_pose.mjs three|babylon FILE.glb [--frames rest|A:T[,...]]
//
// Prints JSON: {engine, frames: [{meshes: [{name, positions, normals | null, facts}]}]}, one frame per --frames item
// (the rest pose, or animation A at T seconds; default: rest), one mesh per primitive in the engine's traversal order,
// positions (and normals where the engine has a CPU path for them) in world space, glTF's right-handed axes. `facts` is
// what the engine's loader made of the file, the evidence for rules no CPU path shows:
//   three:   morph attributes loaded (position/normal/color), which targets got the base attribute as their delta,
//            the skin influences per vertex.
//   babylon: the MorphTargetManager's supportsPositions/Normals/Tangents/UVs/Colors (what its shaders morph), the
//            bone influences per vertex.
// three.js: GLTFLoader → AnimationMixer.setTime → Mesh.getVertexPosition (its CPU morph + skin path) → matrixWorld.
// Babylon.js: NullEngine, useRightHandedSystem, the glTF loader → AnimationGroup.goToFrame(t · 60) →
// getPositionData/getNormalsData(applySkeleton, applyMorph) → the world matrix.
import {readFileSync} from 'node:fs';

console.log = () => {};  // the engines' banners: stdout carries the JSON only

function usage(message) {
  process.stderr.write(`engine_pose.mjs: error: ${message}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
const engineName = args[0];
const file = args[1];
let frames = [{anim: null, time: 0}];
for (let i = 2; i < args.length; i++) {
  if (args[i] !== '--frames' || i + 1 >= args.length) usage(`unknown option ${args[i]}`);
  frames = args[++i].split(',').map((item) => {
    if (item === 'rest') return {anim: null, time: 0};
    const [a, t] = item.split(':');
    return {anim: parseInt(a, 10), time: parseFloat(t)};
  });
}
if (!file || !['three', 'babylon'].includes(engineName)) usage('usage: three|babylon FILE.glb [--frames rest|A:T,...]');
const bytes = readFileSync(file);  // a .glb: external files and images are not read (the test writes geometry only)
const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);

// three.js: every frame on a freshly parsed scene (a mixer leaves its last pose on the nodes).
async function poseThree() {
  const THREE = await import('three');
  const {GLTFLoader} = await import('three/examples/jsm/loaders/GLTFLoader.js');
  // EXT_meshopt_compression files (morphkit optimize's, gltfpack's) decode with meshoptimizer's own decoder.
  const {MeshoptDecoder} = await import('three/examples/jsm/libs/meshopt_decoder.module.js');
  const posed = [];
  for (const {anim, time} of frames) {
    const loader = new GLTFLoader().setMeshoptDecoder(MeshoptDecoder);
    const gltf = await new Promise((resolve, reject) => loader.parse(buffer, '', resolve, reject));
    const scene = gltf.scene;
    if (anim !== null) {
      const mixer = new THREE.AnimationMixer(scene);
      mixer.clipAction(gltf.animations[anim]).play();
      mixer.setTime(time);
    }
    scene.updateMatrixWorld(true);
    const meshes = [];
    const v = new THREE.Vector3();
    scene.traverse((o) => {
      if (!o.isMesh || !o.geometry.attributes.position) return;
      const geometry = o.geometry;
      const positions = [];
      for (let i = 0; i < geometry.attributes.position.count; i++) {
        o.getVertexPosition(i, v);
        v.applyMatrix4(o.matrixWorld);
        positions.push(v.x, v.y, v.z);
      }
      const morph = geometry.morphAttributes;
      const baseAsDelta = {};
      for (const kind of ['position', 'normal', 'color']) {
        if (morph[kind]) baseAsDelta[kind] = morph[kind].map((a) => a === geometry.attributes[kind]);
      }
      meshes.push({
        name: o.name,
        positions,
        normals: null,
        facts: {
          morphAttributes: Object.keys(morph),
          baseAsDelta,
          influences: o.morphTargetInfluences ? Array.from(o.morphTargetInfluences) : [],
          skinInfluencesPerVertex: geometry.attributes.skinIndex ? geometry.attributes.skinIndex.itemSize : 0,
        },
      });
    });
    posed.push({meshes});
  }
  return {engine: `three.js r${THREE.REVISION}`, frames: posed};
}

// Babylon.js: one load; each frame stops every group and seeks the one asked for (the rest pose: all stopped and
// reset to frame 0 of nothing, so a fresh load for it).
async function loadBabylon(BABYLON) {
  const engine = new BABYLON.NullEngine();
  const scene = new BABYLON.Scene(engine);
  scene.useRightHandedSystem = true;
  const container = await BABYLON.LoadAssetContainerAsync(new Uint8Array(buffer), scene, {pluginExtension: '.glb'});
  container.addAllToScene();
  for (const group of scene.animationGroups) group.stop();
  new BABYLON.FreeCamera('camera', new BABYLON.Vector3(0, 0, -10), scene);  // render() wants one
  return scene;
}

function babylonMeshes(BABYLON, scene) {
  const meshes = [];
  for (const mesh of scene.meshes) {
    if (!mesh.getTotalVertices || mesh.getTotalVertices() === 0) continue;
    mesh.computeWorldMatrix(true);
    const world = mesh.getWorldMatrix();
    const local = mesh.getPositionData(true, true);
    const positions = [];
    const p = new BABYLON.Vector3();
    for (let i = 0; i < local.length; i += 3) {
      BABYLON.Vector3.TransformCoordinatesFromFloatsToRef(local[i], local[i + 1], local[i + 2], world, p);
      positions.push(p.x, p.y, p.z);
    }
    let normals = null;
    if (mesh.isVerticesDataPresent(BABYLON.VertexBuffer.NormalKind)) {
      const n = mesh.getNormalsData(true, true);
      normals = [];
      for (let i = 0; i < n.length; i += 3) {
        BABYLON.Vector3.TransformNormalFromFloatsToRef(n[i], n[i + 1], n[i + 2], world, p);
        p.normalize();
        normals.push(p.x, p.y, p.z);
      }
    }
    const manager = mesh.morphTargetManager;
    meshes.push({
      name: mesh.name,
      positions,
      normals,
      facts: {
        morph: manager ? {
          supportsPositions: manager.supportsPositions,
          supportsNormals: manager.supportsNormals,
          supportsTangents: manager.supportsTangents,
          supportsUVs: manager.supportsUVs,
          supportsUV2s: manager.supportsUV2s,
          supportsColors: manager.supportsColors,
          influences: Array.from({length: manager.numTargets}, (_, t) => manager.getTarget(t).influence),
        } :
                         null,
        boneInfluencers: mesh.skeleton ? mesh.numBoneInfluencers : 0,
      },
    });
  }
  return meshes;
}

async function poseBabylon() {
  const BABYLON = await import('@babylonjs/core');
  await import('@babylonjs/loaders/glTF/index.js');
  const posed = [];
  for (const {anim, time} of frames) {
    const scene = await loadBabylon(BABYLON);
    if (anim !== null) {
      const group = scene.animationGroups[anim];
      group.start(false);
      group.pause();
      group.goToFrame(time * 60);
    }
    scene.render();
    posed.push({meshes: babylonMeshes(BABYLON, scene)});
    scene.getEngine().dispose();
  }
  return {engine: `Babylon.js ${BABYLON.Engine.Version}`, frames: posed};
}

const result =
    await (engineName === 'three' ? poseThree() : poseBabylon()).catch((e) => usage(`${file}: ${e.stack || e}`));
process.stdout.write(JSON.stringify(result) + '\n');
