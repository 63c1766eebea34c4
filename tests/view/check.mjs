// SPDX-License-Identifier: MIT
// Drives `morphkit view` in headless Chromium (WebGPU on SwiftShader) through puppeteer-core (docs/VIEW.md "Tests"):
// for each model, one `morphkit view` process and the same browser page; window.morphkit.check() at the rest pose,
// every target alone and sampled animation times gives each path's largest distance from the CPU reference; the
// server's security is probed once (another token, paths outside, a foreign Host, other methods, the network
// interfaces); with --screenshot, the page's frame is compared with `morphkit render` of the same pose and camera.
// Writes OUT/view.json and prints a Markdown table.
//
// node tests/view/check.mjs --morphkit BIN --out DIR [--screenshot MODEL] [--capture MODEL:CSV] [--names] [--times N]
//   MODEL...   (--screenshot also checks check()/setPose() before the first frame; --names a VRM avatar's names)
// node tests/view/check.mjs --morphkit BIN --out DIR --first-frame MODEL   (docs/PERFORMANCE.md: `morphkit view`
//   started, then a fresh Chromium opens the URL; prints the milliseconds until the first frame is on the canvas)
// Dependencies: scripts/install-fidelity (chromium, puppeteer-core in tools/fidelity/node_modules).
import {execFileSync, spawn} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.join(here, '../../tools/fidelity/node_modules');

function parseArgs(argv) {
  const args = {models: [], times: 4};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a}: missing value`);
      return argv[++i];
    };
    if (a === '--morphkit')
      args.morphkit = next();
    else if (a === '--out')
      args.out = path.resolve(next());
    else if (a === '--screenshot')
      args.screenshot = path.resolve(next());
    else if (a === '--times')
      args.times = Number(next());
    else if (a === '--capture')
      args.capture = next();
    else if (a === '--names')
      args.names = true;
    else if (a === '--first-frame')
      args.firstFrame = path.resolve(next());
    else if (a.startsWith('--'))
      throw new Error(`unknown option ${a}`);
    else
      args.models.push(path.resolve(a));
  }
  if (!args.morphkit || !args.out || (args.models.length === 0 && !args.firstFrame))
    throw new Error('usage: check.mjs --morphkit BIN --out DIR [--screenshot MODEL] MODEL...');
  return args;
}

// Starts `morphkit view`; resolves with the process and the URL (the last line it prints on stdout).
function startView(bin, model, extra = []) {
  const started = performance.now();
  const child = spawn(bin, ['view', model, '--port', '0', '--no-open', ...extra], {stdio: ['ignore', 'pipe', 'pipe']});
  let out = '', err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/)$/m.exec(out);
      if (m) resolve({child, url: m[1], started, stderr: () => err});
    });
    child.on('exit', (code) => reject(new Error(`morphkit view ${model} exited ${code}: ${err}`)));
  });
}

// Leaves the page before its server stops: a request the page still makes (the readout, due 0.5 s after the first
// frame) would otherwise meet a closed port and log an error, depending on timing.
async function leave(page) {
  await page.goto('about:blank');
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.removeAllListeners('exit');
    child.on('exit', (code, signal) => resolve(code ?? signal));
    child.kill('SIGTERM');
  });
}

// A raw GET (no URL normalisation, any Host): the status code, or the socket error's code.
function rawGet(port, pathText, host = `127.0.0.1:${port}`, method = 'GET', address = '127.0.0.1') {
  return new Promise((resolve) => {
    const req = http.request({host: address, port, path: pathText, method, headers: {Host: host}}, (res) => {
      let bytes = 0;
      res.on('data', (d) => {
        bytes += d.length;
      });
      res.on('end', () => resolve({status: res.statusCode, bytes}));
    });
    req.on('error', (e) => resolve({status: e.code}));
    req.setTimeout(3000, () => req.destroy(Object.assign(new Error('timeout'), {code: 'TIMEOUT'})));
    req.end();
  });
}

async function probeSecurity(url) {
  const u = new URL(url), port = Number(u.port), token = u.pathname.split('/')[1];
  const wrong = token.replace(/^./, (c) => (c === '0' ? '1' : '0'));
  const probes = {
    ok: await rawGet(port, `/${token}/meta`),
    wrongToken: await rawGet(port, `/${wrong}/meta`),
    noToken: await rawGet(port, '/meta'),
    root: await rawGet(port, '/'),
    dotDot: await rawGet(port, `/${token}/../../../../etc/passwd`),
    encodedDotDot: await rawGet(port, `/${token}/%2e%2e/%2e%2e/etc/passwd`),
    sourceFile: await rawGet(port, `/${token}/../view_server.cpp`),
    otherFile: await rawGet(port, `/${token}/morph.glsl`),
    foreignHost: await rawGet(port, `/${token}/meta`, 'attacker.example:80'),
    post: await rawGet(port, `/${token}/meta`, undefined, 'POST'),
    // Another host reaches this one through its network interfaces: the server listens on none of them.
    interfaces: [],
  };
  for (const list of Object.values(os.networkInterfaces())) {
    for (const i of list ?? []) {
      if (i.internal) continue;
      const address = i.family === 'IPv6' || i.family === 6 ? `${i.address}%${''}` : i.address;
      if (i.family !== 'IPv4' && i.family !== 4) continue;  // IPv6 link-local needs a scope; IPv4 suffices
      probes.interfaces.push(
          {address, ...(await rawGet(port, `/${token}/meta`, `${address}:${port}`, 'GET', address))});
    }
  }
  return probes;
}

// The poses of one model: rest, every target alone (all others 0), each animation at `times` sampled times.
function poses(meta, times) {
  const list = [{label: 'rest', pose: {}}];
  const targets = Math.max(0, ...meta.primitives.map((p) => p.targetCount));
  for (let t = 0; t < targets; ++t) {
    const alone = {};
    for (let k = 0; k < targets; ++k) alone[k] = k === t ? 1 : 0;
    list.push({label: `target ${t}`, pose: {targets: alone}});
  }
  meta.animations.forEach((a, i) => {
    for (let k = 0; k < times; ++k) {
      const time = times === 1 ? 0 : (a.duration * k) / (times - 1);
      list.push({label: `anim ${i} t=${time.toFixed(3)}`, pose: {anim: i, time}});
    }
  });
  return list;
}

// Model pixels (not the background) of two RGBA images: intersection over union and the pixels of each.
function silhouettes(a, b, background) {
  const isModel = (d, i) =>
      Math.abs(d[i] - background[0]) + Math.abs(d[i + 1] - background[1]) + Math.abs(d[i + 2] - background[2]) > 6;
  let both = 0, either = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i += 4) {
    const x = isModel(a, i), y = isModel(b, i);
    na += x;
    nb += y;
    both += x && y;
    either += x || y;
  }
  return {iou: either ? both / either : 1, morphkitPixels: na, webgpuPixels: nb};
}

async function screenshotCheck(args, browser, page) {
  const size = 128, background = [64, 64, 64];
  const dir = path.join(args.out, 'screenshot');
  fs.mkdirSync(dir, {recursive: true});
  // Frame 0 of the first animation (morph and skin both at work where the model has them), else the rest pose.
  const summary = JSON.parse(execFileSync(
      args.morphkit,
      [
        'render', args.screenshot, '--frames', '0:1', '--size', `${size}x${size}`, '--msaa', '1', '--background',
        background.join(','), '--no-video', '--no-contact-sheet', '--force', '--out', dir, '--json'
      ],
      {encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']}));
  const png = path.join(dir, 'frame_0000.png');
  const [eye, target, fov] = summary.camera.split(':');
  const view = await startView(args.morphkit, args.screenshot);
  try {
    await page.goto(view.url);
    await page.evaluate('window.morphkit.ready');
    const anim = summary.animation ?? undefined;
    await page.evaluate(
        (pose) => window.morphkit.setPose(pose), anim === undefined ? {} : {anim, time: summary.time ?? 0});
    const camera = {
      eye: eye.split(',').map(Number),
      target: target.split(',').map(Number),
      fov: Number(fov),
      size: [size, size],
      background: [...background.map((c) => c / 255), 1]
    };
    const result = await page.evaluate(async (camera, pngBase64, background) => {
      await window.morphkit.setCamera(camera);
      const read = (source) => {
        const c = Object.assign(document.createElement('canvas'), {width: camera.size[0], height: camera.size[1]});
        const ctx = c.getContext('2d');
        ctx.drawImage(source, 0, 0, c.width, c.height);
        return ctx.getImageData(0, 0, c.width, c.height).data;
      };
      await window.morphkit.redraw();
      const canvas = document.getElementById('canvas');
      const webgpu = read(canvas);
      // While a later draw is in flight (begun, not yet presented) the canvas must still hold the last frame: a
      // screenshot taken at any moment shows a whole frame. Tried until a read lands inside a draw.
      let midDraw = null, tries = 0;
      while (midDraw === null && tries++ < 50) {
        const frames = window.morphkit.frames, drawing = window.morphkit.redraw();
        await new Promise((r) => setTimeout(r, 0));  // the draw has begun: its synchronous part ran
        if (window.morphkit.frames === frames) midDraw = read(canvas);
        await drawing;
      }
      const img = new Image();
      img.src = `data:image/png;base64,${pngBase64}`;
      await img.decode();
      const morphkit = read(img);
      return {webgpu: Array.from(webgpu), morphkit: Array.from(morphkit), midDraw: midDraw && Array.from(midDraw)};
    }, camera, fs.readFileSync(png).toString('base64'), background);
    // The page's frame beside morphkit's (frame_0000.png), for a person to look at; the check is the IoU below.
    await (await page.$('#canvas')).screenshot({path: path.join(dir, 'webgpu.png')});
    const slider = await sliderCheck(page);
    const midDraw = result.midDraw && silhouettes(result.morphkit, result.midDraw, background);
    return {camera: summary.camera, ...silhouettes(result.morphkit, result.webgpu, background), midDraw, slider};
  } finally {
    await leave(page);
    await stop(view.child);
  }
}

// A fresh profile each time (removed by close()), so nothing of an earlier run is reused.
async function launch() {
  const {default: puppeteer} =
      await import(path.join(modules, 'puppeteer-core', 'lib', 'puppeteer', 'puppeteer-core.js'));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'morphkit-view-'));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    userDataDir: profile,
    args: [
      '--no-sandbox', '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'
    ],
  });
  const close = browser.close.bind(browser);
  browser.close = async () => {
    await close();
    fs.rmSync(profile, {recursive: true, force: true});
  };
  return browser;
}

// `morphkit view` first, then a fresh browser, as a user starts it: milliseconds from the spawn to the first frame
// on the canvas (the page's window.morphkit.ready).
async function firstFrame(args) {
  const view = await startView(args.morphkit, args.firstFrame);
  const browser = await launch();
  try {
    const page = await browser.newPage();
    await page.goto(view.url);
    await page.evaluate('window.morphkit.ready');
    const ms = performance.now() - view.started;
    console.log(JSON.stringify({
      model: args.firstFrame,
      firstFrameMs: Math.round(ms),
      pageFirstFrameMs: Math.round(await page.evaluate('window.morphkit.firstFrameMs'))
    }));
  } finally {
    await browser.close();
    await stop(view.child);
  }
}

// A slider change: the next drawn frame has the new weight (the canvas changes), and how long that took.
async function sliderCheck(page) {
  return page.evaluate(async () => {
    const pixels = () => {
      const c = document.getElementById('canvas'),
            copy = Object.assign(document.createElement('canvas'), {width: c.width, height: c.height});
      copy.getContext('2d').drawImage(c, 0, 0);
      return copy.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    };
    const slider = document.querySelector('#sliders input[type=range]');
    const before = pixels(), frames = window.morphkit.frames, input = performance.now();
    slider.value = '1';
    slider.dispatchEvent(new Event('input'));
    while (window.morphkit.frames === frames || window.morphkit.lastFrame.started < input)
      await new Promise((r) => requestAnimationFrame(r));
    const after = pixels();
    let changed = 0;
    for (let i = 0; i < before.length; i += 4) changed += before[i] !== after[i] || before[i + 1] !== after[i + 1];
    return {
      target: slider.parentElement.dataset.name,
      changedPixels: changed,
      drawStartMs: window.morphkit.lastFrame.started - input,
      shownMs: window.morphkit.lastFrame.shown - input
    };
  });
}

// The largest distance of each path from the reference, over the diagonal; failures past check()'s bounds.
function relative(r) {
  const measures = {vertex: r.vertex, ...r.layouts}, rel = {}, failures = [];
  for (const [name, e] of Object.entries(measures)) {
    rel[name] = e / (r.diag || 1);
    const bound = 1e-5 * r.diag + (name === 'dense_f16' ? r.f16Bound : 0);
    if (!(e <= bound)) failures.push(`${name} ${e} > ${bound}`);
  }
  return {rel, failures, nonZeroWeights: r.nonZeroWeights};
}

// check() and setPose() called before window.morphkit.ready resolves (docs/VIEW.md "Test hook"): they wait for the
// first frame. The page is held at one request until both were called: blob/0 (the meta is not in yet), or the
// first frame without a reference (the deformers exist, the compute layouts are not in).
async function earlyCheck(args, page, model) {
  const results = [];
  for (const hold of ['blob/0', 'frame?']) {
    const view = await startView(args.morphkit, model);
    let arrived;
    const held = new Promise((resolve) => {
      arrived = resolve;
    });
    const onRequest = (req) => {
      const route = req.url().slice(view.url.length);
      if (route.startsWith(hold) && !route.includes('reference=1') && arrived) {
        arrived(req);
        arrived = null;
      } else {
        req.continue();
      }
    };
    await page.setRequestInterception(true);
    page.on('request', onRequest);
    try {
      await page.goto(view.url, {waitUntil: 'domcontentloaded'});
      const request = await held;
      // An animation pose with two targets on: the compute path reads their deltas, the vertex path the band texture.
      await page.evaluate((pose) => {
        const settle = (p) => p.then((value) => ({value}), (e) => ({error: String(e.message ?? e)}));
        window.early = Promise.all([
          settle(window.morphkit.check(pose)), settle(window.morphkit.setPose(pose))
        ]);
        return new Promise((r) => setTimeout(r, 0));  // both calls ran as far as they go before the first frame
      }, {anim: 0, time: 0.25, targets: {0: 1, 5: 0.5}});
      await request.continue();
      const [check, setPose] = await page.evaluate(() => window.early);
      results.push({
        hold,
        error: check.error ?? null,
        ...(check.value ? relative(check.value) : {}),
        setPose: setPose.error ?? 'ok'
      });
    } finally {
      page.off('request', onRequest);
      await page.setRequestInterception(false);
      await leave(page);
      await stop(view.child);
    }
  }
  return results;
}

// One name resolution for the page and the reference (docs/VIEW.md "Names"): a VRM avatar (make-demo --vrm) shown
// with an expression and a name in another case; the pose on screen (checkShown: the page's own weights) against
// the reference, and the frame query in --weights's syntax.
async function namesCheck(args, page) {
  const avatar = path.join(args.out, 'avatar.vrm');
  fs.rmSync(avatar, {force: true});  // a fresh file whatever the overwrite rule
  execFileSync(args.morphkit, ['make-demo', avatar, '--vrm', '--no-capture', '--vertices', '2000'], {stdio: 'ignore'});
  const view = await startView(args.morphkit, avatar, ['--ignore-case', '--weights', 'happy=1,jawopen=0.5']);
  try {
    await page.goto(view.url);
    await page.evaluate('window.morphkit.ready');
    const shown = relative(await page.evaluate(() => window.morphkit.checkShown()));
    const expression = relative(await page.evaluate(() => window.morphkit.check({weights: {happy: 1}})));
    const query = await page.evaluate(async () => {
      const status = async (item) => {
        const r = await fetch(`frame?${new URLSearchParams({w: item})}`);
        return {status: r.status, text: r.ok ? '' : await r.text()};
      };
      return {
        expression: await status('happy=1'),
        otherCase: await status('JAWOPEN=1'),
        meshTarget: await status('0:1=1'),
        oldSyntax: await status('jawOpen:1'),
        unknown: await status('nosuch=1'),
      };
    });
    return {shown, expression, query, stderr: view.stderr()};
  } finally {
    await leave(page);
    await stop(view.child);
  }
}

// --capture MODEL:CSV: the capture on the timeline, checked at 3 times against the CPU reference of the same capture.
async function captureCheck(args, page) {
  const colon = args.capture.lastIndexOf(':');
  const model = path.resolve(args.capture.slice(0, colon)), csv = path.resolve(args.capture.slice(colon + 1));
  const view = await startView(args.morphkit, model, ['--capture', csv]);
  try {
    await page.goto(view.url);
    await page.evaluate('window.morphkit.ready');
    const duration = await page.evaluate(() => fetch('meta').then((r) => r.json()).then((m) => m.capture.duration));
    const results = [];
    for (const time of [0, duration / 2, duration]) {
      const r = await page.evaluate((p) => window.morphkit.check(p), {capture: true, time});
      results.push({
        time,
        vertex: r.vertex / r.diag,
        ...Object.fromEntries(Object.entries(r.layouts).map(([k, v]) => [k, v / r.diag])),
        f16Bound: r.f16Bound / r.diag
      });
    }
    return {model: path.basename(model), csv: path.basename(csv), duration, results};
  } finally {
    await leave(page);
    await stop(view.child);
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  fs.mkdirSync(args.out, {recursive: true});
  if (args.firstFrame) return firstFrame(args);
  const browser = await launch();
  const report = {models: [], security: null, screenshot: null};
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    for (const model of args.models) {
      const view = await startView(args.morphkit, model);
      let entry = null;
      try {
        await page.goto(view.url);
        await page.evaluate('window.morphkit.ready');
        const firstFrameWallMs = performance.now() - view.started;
        if (process.env.VIEW_VERBOSE) console.error(`${model}: first frame ${firstFrameWallMs.toFixed(0)} ms`);
        if (!report.security) report.security = await probeSecurity(view.url);
        const meta = await page.evaluate(() => fetch('meta').then((r) => r.json()));
        entry = {
          model: path.relative(path.resolve(here, '../../..'), model),
          poses: 0,
          worst: {},
          firstFrameWallMs,
          firstFrameNavMs: await page.evaluate('window.morphkit.firstFrameMs'),
          vertices: 0,
          diag: 0,
          failures: []
        };
        for (const {label, pose} of poses(meta, args.times)) {
          if (process.env.VIEW_VERBOSE) console.error(`${entry.model}: ${label}`);
          const r = await page.evaluate((p) => window.morphkit.check(p), pose);
          entry.poses++;
          entry.vertices = r.vertices;
          entry.variants = r.variants;
          entry.diag = Math.max(entry.diag, r.diag);
          const rel = (e) => e / (r.diag || 1);
          const measures = {vertex: r.vertex, ...r.layouts};
          for (const [name, e] of Object.entries(measures)) {
            const w = entry.worst[name];
            if (!w || rel(e) > w.rel) entry.worst[name] = {rel: rel(e), abs: e, pose: label};
            const bound = 1e-5 * r.diag + (name === 'dense_f16' ? r.f16Bound : 0);
            if (!(e <= bound)) entry.failures.push(`${label}: ${name} ${e} > ${bound}`);
          }
        }
        entry.errors = errors.splice(0);
        entry.wallMs = performance.now() - view.started;
        report.models.push(entry);
      } finally {
        await leave(page);
        const stopping = performance.now();
        const code = await stop(view.child);  // SIGTERM: the server stops and exits 0
        if (entry) Object.assign(entry, {exit: code, stopMs: performance.now() - stopping});
      }
    }
    if (args.screenshot) report.screenshot = await screenshotCheck(args, browser, page);
    // A phase that throws is reported as {error} (view_test.cpp fails on it) and the next phase still runs.
    const phase = (run) => run().catch((e) => ({error: String(e.stack ?? e)}));
    if (args.screenshot) report.early = await phase(() => earlyCheck(args, page, args.screenshot));
    if (args.names) report.names = await phase(() => namesCheck(args, page));
    if (args.capture) report.capture = await captureCheck(args, page);
  } finally {
    await browser.close();
  }
  fs.writeFileSync(path.join(args.out, 'view.json'), JSON.stringify(report, null, 1));
  const layouts = ['vertex', 'dense_f32', 'dense_f16', 'sparse'];
  console.log(`| model | poses | vertices | vertex variant | ${layouts.join(' | ')} | first frame (ms) |`);
  console.log(`|---|---:|---:|---|${layouts.map(() => '---:').join('|')}|---:|`);
  for (const m of report.models) {
    const cells = layouts.map((l) => (m.worst[l] ? m.worst[l].rel.toExponential(1) : '–'));
    console.log(`| ${m.model} | ${m.poses} | ${m.vertices} | ${m.variants.join(', ')} | ${cells.join(' | ')} | ${
        m.firstFrameWallMs.toFixed(0)} |`);
  }
  if (report.screenshot) console.log(`screenshot: IoU ${report.screenshot.iou.toFixed(4)}`);
  const slider = report.screenshot?.slider;
  if (slider)
    console.log(`slider ${slider.target}: ${slider.changedPixels} pixels changed, on the canvas ${
        slider.shownMs.toFixed(1)} ms after the input`);
  if (report.capture)
    console.log(`capture ${report.capture.csv}: ${
        report.capture.results
            .map(
                (r) => `t=${r.time.toFixed(2)} vertex ${r.vertex.toExponential(1)} f32 ${r.dense_f32.toExponential(1)}`)
            .join(', ')}`);
}

main().catch((e) => {
  console.error(e.stack ?? String(e));
  process.exit(1);
});
