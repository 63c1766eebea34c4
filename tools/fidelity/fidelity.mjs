// SPDX-License-Identifier: MIT
// The three.js fidelity harness (docs/RENDER.md "Fidelity against three.js"). For each model: morphkit renders
// frame 0 with the auto camera, the HDR environment as the only light, Neutral tone mapping, no antialiasing and
// a colour background (`render --json` says the camera it used); three.js r187 renders the same frame in
// headless Chromium (SwiftShader WebGL2) with that camera and the same settings; the two are compared over the
// model's pixels. Writes OUT/fidelity.json, OUT/<model>_side_by_side.png (three.js | morphkit | |Δ|×4) and
// prints a Markdown table.
//
// node tools/fidelity/fidelity.mjs --morphkit BIN --environment FILE.hdr [--size 256x256] [--background 64,64,64]
//      [--tone-mapping neutral] --out DIR MODEL...
// Dependencies: scripts/install-fidelity (chromium, puppeteer-core, three in tools/fidelity/node_modules).
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.join(here, 'node_modules');

function parseArgs(argv) {
  const args = {size: '256x256', background: '64,64,64', toneMapping: 'neutral', models: []};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a}: missing value`);
      return argv[++i];
    };
    if (a === '--morphkit')
      args.morphkit = next();
    else if (a === '--environment')
      args.environment = path.resolve(next());
    else if (a === '--size')
      args.size = next();
    else if (a === '--background')
      args.background = next();
    else if (a === '--tone-mapping')
      args.toneMapping = next();
    else if (a === '--out')
      args.out = path.resolve(next());
    else if (a.startsWith('--'))
      throw new Error(`unknown option ${a}`);
    else
      args.models.push(path.resolve(a));
  }
  if (!args.morphkit || !args.environment || !args.out || args.models.length === 0) {
    throw new Error('usage: fidelity.mjs --morphkit BIN --environment FILE.hdr --out DIR MODEL...');
  }
  return args;
}

// A local server for the page, three's module tree and the files the page loads (models, HDR, morphkit's PNGs).
function serve() {
  const types = {
    '.js': 'text/javascript',
    '.mjs': 'text/javascript',
    '.html': 'text/html',
    '.wasm': 'application/wasm',
    '.json': 'application/json',
    '.png': 'image/png',
    '.bin': 'application/octet-stream'
  };
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file;
    if (url.startsWith('/three/'))
      file = path.join(modules, 'three', url.slice('/three/'.length));
    else if (url.startsWith('/files/'))
      file = url.slice('/files'.length);
    else
      file = path.join(here, url === '/' ? 'page.html' : url.slice(1));
    fs.readFile(file, (err, data) => {
      if (err) {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(200, {'Content-Type': types[path.extname(file)] || 'application/octet-stream'});
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function parseCamera(text) {
  const [eye, target, fov] = text.split(':');
  const e = eye.split(',').map(Number), t = target.split(',').map(Number);
  const distance = Math.hypot(e[0] - t[0], e[1] - t[1], e[2] - t[2]);
  return {eye: e, target: t, fov: Number(fov), near: distance * 0.01, far: distance * 100};
}

function stemOf(file) { return path.basename(file).replace(/\.(gltf|glb)$/i, ''); }

async function main() {
  const args = parseArgs(process.argv.slice(2));
  fs.mkdirSync(args.out, {recursive: true});
  const {default: puppeteer} =
      await import(path.join(modules, 'puppeteer-core', 'lib', 'puppeteer', 'puppeteer-core.js'));
  const server = await serve();
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
  });
  const results = [];
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error(`page: ${e.message}`));
    await page.goto(`${base}/`);
    await page.waitForFunction('window.harnessReady === true', {timeout: 60000});
    const [width, height] = args.size.split('x').map(Number);
    const background = args.background.split(',').map(Number);
    const names = new Set();
    for (const model of args.models) {
      let name = stemOf(model);
      if (names.has(name)) name = `${name}_${path.basename(path.dirname(model))}`;
      names.add(name);
      const dir = path.join(args.out, `${name}_morphkit`);
      const summary = JSON.parse(execFileSync(
          args.morphkit,
          [
            'render',
            model,
            '--frames',
            '0:1',
            '--size',
            args.size,
            '--environment',
            args.environment,
            '--light',
            'none',
            '--tone-mapping',
            args.toneMapping,
            '--msaa',
            '1',
            '--background',
            args.background,
            '--no-video',
            '--no-contact-sheet',
            '--force',
            '--out',
            dir,
            '--json'
          ],
          {encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']}));
      const job = {
        size: [width, height],
        model: `${base}/files${model}`,
        environment: `${base}/files${args.environment}`,
        background,
        toneMapping: args.toneMapping,
        camera: parseCamera(summary.camera),
        animation: summary.animation === null ? -1 : summary.animation,
        time: 0
      };
      const threePng = await page.evaluate((j) => window.renderThree(j), job);
      const morphkitPng =
          `data:image/png;base64,${fs.readFileSync(path.join(dir, 'frame_0000.png')).toString('base64')}`;
      const m = await page.evaluate(
          (a, b, w, h, bg) => window.compareImages(a, b, w, h, bg), threePng, morphkitPng, width, height, background);
      fs.writeFileSync(
          path.join(args.out, `${name}_side_by_side.png`), Buffer.from(m.sideBySide.split(',')[1], 'base64'));
      fs.writeFileSync(path.join(args.out, `${name}_three.png`), Buffer.from(threePng.split(',')[1], 'base64'));
      delete m.sideBySide;
      results.push({model: name, file: model, camera: summary.camera, ...m});
      console.error(`${name}: mean |Δ| ${m.meanAbs.toFixed(2)}/255, within 16/255 ${(100 * m.within16).toFixed(1)} %`);
    }
  } finally {
    await browser.close();
    server.close();
  }
  fs.writeFileSync(
      path.join(args.out, 'fidelity.json'),
      JSON.stringify(
          {
            size: args.size,
            environment: args.environment,
            background: args.background,
            toneMapping: args.toneMapping,
            models: results
          },
          null, 2));
  console.log('| model | model pixels | mean abs diff (1/255) | within 16/255 | dark three.js | dark morphkit |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
        `| ${r.model} | ${r.modelPixels} | ${r.meanAbs.toFixed(2)} | ${(100 * r.within16).toFixed(1)} % | ` +
        `${(100 * r.darkThree).toFixed(1)} % | ${(100 * r.darkMorphkit).toFixed(1)} % |`);
  }
}

main().catch((e) => {
  console.error(`fidelity: ${e.message}`);
  process.exit(1);
});
