// SPDX-License-Identifier: MIT
// Browser side of the fidelity harness: renders one model with three.js r187 as fidelity.mjs asks
// (window.renderThree) and compares two PNGs pixel by pixel (window.compareImages). No antialiasing, the HDR file
// as the only light (scene.environment through three's PMREM, EquirectangularReflectionMapping), Neutral tone
// mapping, a colour background, the camera morphkit used.
import * as THREE from 'three';
import {MeshoptDecoder} from 'three/addons/libs/meshopt_decoder.module.js';
import {DRACOLoader} from 'three/addons/loaders/DRACOLoader.js';
import {GLTFLoader} from 'three/addons/loaders/GLTFLoader.js';
import {HDRLoader} from 'three/addons/loaders/HDRLoader.js';

async function renderThree(job) {
  const [width, height] = job.size;
  const renderer = new THREE.WebGLRenderer({antialias: false, preserveDrawingBuffer: true, alpha: false});
  renderer.setPixelRatio(1);
  renderer.setSize(width, height);
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  renderer.toneMapping = job.toneMapping === 'aces' ? THREE.ACESFilmicToneMapping :
      job.toneMapping === 'none'                    ? THREE.NoToneMapping :
                                                      THREE.NeutralToneMapping;
  renderer.toneMappingExposure = Math.pow(2, job.exposure || 0);
  document.body.appendChild(renderer.domElement);

  const scene = new THREE.Scene();
  scene.background = new THREE.Color().setRGB(
      job.background[0] / 255, job.background[1] / 255, job.background[2] / 255, THREE.SRGBColorSpace);
  const hdr = await new HDRLoader().loadAsync(job.environment);
  hdr.mapping = THREE.EquirectangularReflectionMapping;
  scene.environment = hdr;
  scene.environmentRotation.y = (job.environmentRotation || 0) * Math.PI / 180;

  const loader = new GLTFLoader();
  const draco = new DRACOLoader();
  draco.setDecoderPath('/three/examples/jsm/libs/draco/gltf/');
  loader.setDRACOLoader(draco);
  loader.setMeshoptDecoder(MeshoptDecoder);
  const gltf = await loader.loadAsync(job.model);
  const root = gltf.scene || gltf.scenes[0];
  scene.add(root);
  if (gltf.animations.length > 0 && job.animation >= 0) {
    const mixer = new THREE.AnimationMixer(root);
    mixer.clipAction(gltf.animations[job.animation]).play();
    mixer.setTime(job.time || 0);
  }
  root.updateMatrixWorld(true);

  const c = job.camera;
  const camera = new THREE.PerspectiveCamera(c.fov, width / height, c.near, c.far);
  camera.position.set(c.eye[0], c.eye[1], c.eye[2]);
  camera.up.set(0, 1, 0);
  camera.lookAt(c.target[0], c.target[1], c.target[2]);
  renderer.render(scene, camera);
  const png = renderer.domElement.toDataURL('image/png');
  renderer.dispose();
  renderer.domElement.remove();
  return png;
}

function pixelsOf(url, width, height) {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      const ctx = canvas.getContext('2d', {colorSpace: 'srgb'});
      ctx.drawImage(image, 0, 0);
      resolve(ctx.getImageData(0, 0, width, height).data);
    };
    image.onerror = reject;
    image.src = url;
  });
}

// Over the model's pixels (where either image differs from the background colour): the mean |difference| per
// channel (RGB, in 1/255), the share of pixels whose largest channel difference is at most 16, the shares darker
// than 8/255 in each image; and a side-by-side PNG: three.js | morphkit | |difference| × 4.
async function compareImages(threeUrl, morphkitUrl, width, height, background) {
  const a = await pixelsOf(threeUrl, width, height);
  const b = await pixelsOf(morphkitUrl, width, height);
  const side = document.createElement('canvas');
  side.width = width * 3;
  side.height = height;
  const ctx = side.getContext('2d');
  const out = ctx.createImageData(width * 3, height);
  let model = 0, sum = 0, within = 0, darkThree = 0, darkMorphkit = 0;
  const isBackground = (p, i) => Math.abs(p[i] - background[0]) <= 1 && Math.abs(p[i + 1] - background[1]) <= 1 &&
      Math.abs(p[i + 2] - background[2]) <= 1;
  for (let y = 0; y < height; ++y) {
    for (let x = 0; x < width; ++x) {
      const i = (y * width + x) * 4;
      let worst = 0;
      for (let k = 0; k < 3; ++k) {
        const d = Math.abs(a[i + k] - b[i + k]);
        worst = Math.max(worst, d);
        const o = (y * width * 3 + x) * 4;
        out.data[o + k] = a[i + k];
        out.data[o + width * 4 + k] = b[i + k];
        out.data[o + width * 8 + k] = Math.min(255, d * 4);
      }
      const o = (y * width * 3 + x) * 4;
      out.data[o + 3] = out.data[o + width * 4 + 3] = out.data[o + width * 8 + 3] = 255;
      if (isBackground(a, i) && isBackground(b, i)) continue;
      ++model;
      sum += Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]);
      if (worst <= 16) ++within;
      if (Math.max(a[i], a[i + 1], a[i + 2]) < 8) ++darkThree;
      if (Math.max(b[i], b[i + 1], b[i + 2]) < 8) ++darkMorphkit;
    }
  }
  ctx.putImageData(out, 0, 0);
  return {
    modelPixels: model,
    meanAbs: model ? sum / (3 * model) : 0,
    within16: model ? within / model : 1,
    darkThree: model ? darkThree / model : 0,
    darkMorphkit: model ? darkMorphkit / model : 0,
    sideBySide: side.toDataURL('image/png'),
  };
}

window.renderThree = renderThree;
window.compareImages = compareImages;
window.harnessReady = true;
