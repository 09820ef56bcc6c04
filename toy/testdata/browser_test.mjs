// Browser tests of svm-toy (package toy): nsvm toy serves the page, headless
// Chromium driven by playwright-core clicks points, trains in WebAssembly,
// reads pixels and screenshots, and compares the model files with nsvm
// train's. .ci/run runs it:
//
//   node toy/testdata/browser_test.mjs --nsvm NSVM --modules DIR [--chromium PATH]
//        [--measure] [--screenshot OUT.png]
//
// NSVM is a built nsvm command, DIR a directory whose node_modules holds
// playwright-core. --measure times the page's training against nsvm
// train's (best of three) and prints the page's transfer size;
// --screenshot writes a picture of the page for the README. The exit status
// is the number of failed tests.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const opt = { chromium: '/usr/bin/chromium' };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i].replace(/^--/, '');
  opt[a] = a === 'measure' ? true : process.argv[++i];
}
if (!opt.nsvm || !opt.modules) {
  console.error('usage: node browser_test.mjs --nsvm NSVM --modules DIR [--chromium PATH] [--measure] [--screenshot OUT.png]');
  process.exit(2);
}
const { chromium } = createRequire(path.join(path.resolve(opt.modules), 'noop.js'))('playwright-core');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nsvm-toy-'));
const nsvm = path.resolve(opt.nsvm);

// The class colours of toy.js.
const colours = { 1: [215, 48, 31], 2: [43, 108, 176], 3: [47, 158, 68] };

let failed = 0;
async function test(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    console.log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}: ${err.stack || err}`);
  }
}
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

// mulberry32: a small seeded generator, so that the points are the same on
// every run.
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const round4 = (v) => Math.round(v * 1e4) / 1e4;

// ring returns n points: class 1 on an inner ring (radius 0.05–0.2), class 2
// on an outer one (0.3–0.45), around the centre of the plane.
function ring(n, seed) {
  const rnd = random(seed);
  const rows = [];
  for (let i = 0; i < n; i++) {
    const inner = i % 2 === 0;
    const r = inner ? 0.05 + 0.15 * rnd() : 0.3 + 0.15 * rnd();
    const a = 2 * Math.PI * rnd();
    rows.push([round4(0.5 + r * Math.cos(a)), round4(0.5 + r * Math.sin(a)), inner ? 1 : 2]);
  }
  return rows;
}

// tint returns the class whose colour the pixel is a shade of (towards
// white or black), or 0 for grey.
function tint([r, g, b]) {
  const v = [r, g, b].map((x) => x - (r + g + b) / 3);
  if (Math.hypot(...v) < 12) return 0;
  let best = 0;
  let bestCos = -2;
  for (const [c, col] of Object.entries(colours)) {
    const u = col.map((x) => x - (col[0] + col[1] + col[2]) / 3);
    const cos = (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / Math.hypot(...u) / Math.hypot(...v);
    if (cos > bestCos) [best, bestCos] = [Number(c), cos];
  }
  return best;
}

// cliTrain runs nsvm train on the LIBSVM text and returns the model file.
// The page runs nsvm's pure-Go arithmetic (WebAssembly has no AVX2);
// GODEBUG=cpu.avx2=off gives nsvm train the same on every amd64 CPU (see
// package toy).
function cliTrain(text, options, env = { GODEBUG: 'cpu.avx2=off' }) {
  const data = path.join(tmp, 'points.libsvm');
  const model = path.join(tmp, 'cli.nsvm');
  fs.writeFileSync(data, text);
  const args = ['train', '--data', data, '--model', model, '--quiet', ...options.split(/\s+/).filter(Boolean)];
  const t0 = process.hrtime.bigint();
  const out = execFileSync(nsvm, [...args, '--json'], { encoding: 'utf8', env: { ...process.env, ...env } });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  return { bytes: fs.readFileSync(model), seconds: JSON.parse(out).train_seconds, wall };
}

// The server.
const server = spawn(nsvm, ['toy', '--addr', '127.0.0.1:0', '--cache', path.join(tmp, 'cache')], { stdio: ['ignore', 'inherit', 'pipe'] });
let serverLog = '';
const url = await new Promise((resolve, reject) => {
  server.stderr.on('data', (d) => {
    serverLog += d;
    const m = serverLog.match(/serving svm-toy on (http:\/\/\S+)/);
    if (m) resolve(m[1]);
  });
  server.on('exit', (code) => reject(new Error(`nsvm toy exited (${code}): ${serverLog}`)));
  setTimeout(() => reject(new Error('nsvm toy did not start in 10 minutes: ' + serverLog)), 600000);
});
const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));

const browser = await chromium.launch({
  executablePath: opt.chromium,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
});
const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1000, height: 620 } });
const page = await context.newPage();
const transfer = new Map();
page.on('requestfinished', async (req) => {
  const s = await req.sizes().catch(() => null);
  const p = new URL(req.url()).pathname;
  if (s) transfer.set(p, Math.max(transfer.get(p) || 0, s.responseBodySize + s.responseHeadersSize));
});
page.on('pageerror', (err) => {
  failed++;
  console.log('FAIL page error: ' + err.message);
});

const pixel = (x, y, id = 'plane') =>
  page.evaluate(([x, y, id]) => Array.from(document.getElementById(id).getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3)), [x, y, id]);
const points = () => page.evaluate(() => nsvmToy.points());
const pointsText = () => page.evaluate(() => nsvmToy.pointsText());
const modelFile = async () => Buffer.from(await page.evaluate(() => Array.from(nsvmToy.modelFile())));
const setPoints = (rows) => page.evaluate((rows) => nsvmToy.setPoints(rows), rows);
// runButton trains through #options and #run.
async function runButton(options) {
  await page.fill('#options', options);
  await page.click('#run');
  return page.evaluate(() => nsvmToy.lastRun);
}
// libsvm writes rows as the page documents its text.
const libsvm = (rows, regression) => rows.map(([x, y, l]) => (regression ? `${y} 1:${x}` : `${l} 1:${x} 2:${y}`)).join('\n') + '\n';

// drawn measures a screenshot (PNG) in the page: the share of pixels that
// are not white and the number of colours (3 bits a channel); a blank
// canvas fails it.
async function drawn(png) {
  const s = await page.evaluate(async (b64) => {
    const bmp = await createImageBitmap(await (await fetch('data:image/png;base64,' + b64)).blob());
    const c = new OffscreenCanvas(bmp.width, bmp.height);
    const g = c.getContext('2d');
    g.drawImage(bmp, 0, 0);
    const d = g.getImageData(0, 0, bmp.width, bmp.height).data;
    let ink = 0;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] < 245 || d[i + 1] < 245 || d[i + 2] < 245) ink++;
      seen.add(((d[i] >> 5) << 6) | ((d[i + 1] >> 5) << 3) | (d[i + 2] >> 5));
    }
    return { ink: ink / (d.length / 4), colours: seen.size };
  }, png.toString('base64'));
  return { ...s, ok: s.ink > 0.5 && s.colours >= 6 };
}

await page.goto(url);
await test('the page loads its WebAssembly module, in the page and in the worker', async () => {
  await page.evaluate(() => nsvmToy.ready);
  assert(/ready/.test(await page.textContent('#status')), 'status: ' + (await page.textContent('#status')));
});

await test('clicks add points of the selected class where clicked', async () => {
  const clicks = [[2, 100, 300], [1, 320.5, 80], [3, 200, 200], [2, 0.5, 399.5]];
  for (const [c, x, y] of clicks) {
    await page.click(`#class-${c}`);
    await page.locator('#plane').click({ position: { x, y } });
  }
  const pts = await points();
  assert(pts.length === clicks.length, `${pts.length} points`);
  clicks.forEach(([c, x, y], i) => {
    const [px, py, l] = pts[i];
    assert(l === c && Math.abs(px - x / 400) <= 1 / 400 && Math.abs(py - (1 - y / 400)) <= 1 / 400,
      `click ${i} at (${x}, ${y}) of class ${c}: point ${pts[i]}`);
  });
  for (const [c, x, y] of clicks.slice(0, 3)) {
    const p = await pixel(Math.floor(x), Math.floor(y));
    assert(tint(p) === c, `pixel at (${x}, ${y}) is ${p}, not class ${c}'s colour`);
  }
  assert((await pointsText()) === libsvm(pts), 'pointsText: ' + (await pointsText()));
  await page.click('#clear');
  assert((await points()).length === 0, 'clear left points');
});

const cases = {};
await test('the screenshot check fails on a blank canvas', async () => {
  const s = await drawn(await page.locator('#plane').screenshot());
  assert(!s.ok && s.ink < 0.05, `blank canvas: ${JSON.stringify(s)}`);
});

await test('a ring of 300 points, --algo smo --C 10 --gamma 10 through #options and #run: accuracy ≥ 0.97, centre and corners coloured apart', async () => {
  await setPoints(ring(300, 1));
  const r = await runButton('--algo smo --C 10 --gamma 10');
  cases.smo = { r, text: await pointsText(), model: await modelFile() };
  assert(r.trainAccuracy >= 0.97, 'training accuracy ' + r.trainAccuracy);
  assert(r.supportVectors > 0 && r.seconds > 0, JSON.stringify(r));
  const centre = tint(await pixel(200, 200));
  assert(centre === 1, `centre pixel of class ${centre}`);
  for (const [x, y] of [[4, 4], [395, 4], [4, 395], [395, 395]]) {
    const p = await pixel(x, y);
    assert(tint(p) === 2, `corner (${x}, ${y}) is ${p}`);
  }
  // Decision-value shading: deeper away from the boundary, among the outer
  // class's points (r = 0.4; in the empty corners an RBF's decision value
  // falls back towards the bias, as γ is in the units of the scaled inputs).
  const near = await pixel(200, 200 - 0.27 * 400);
  const far = await pixel(200, 200 - 0.4 * 400);
  assert(far[0] < near[0], `no shading: ${near} near the boundary, ${far} among the outer points`);
  assert(/trained smo\b.* on 300 points/.test(await page.textContent('#status')), await page.textContent('#status'));
});

await test('a screenshot of the trained plane passes the check', async () => {
  const s = await drawn(await page.locator('#plane').screenshot());
  assert(s.ok, JSON.stringify(s));
});

await test('predict(x, y) agrees with nsvm predict on the model file', async () => {
  const q = [];
  for (let i = 0; i < 7; i++) for (let j = 0; j < 7; j++) q.push([round4(0.04 + 0.15 * i), round4(0.03 + 0.155 * j)]);
  const labels = await page.evaluate((q) => q.map(([x, y]) => nsvmToy.predict(x, y)), q);
  const model = path.join(tmp, 'page.nsvm');
  fs.writeFileSync(model, cases.smo.model);
  fs.writeFileSync(path.join(tmp, 'q.libsvm'), q.map(([x, y]) => `0 1:${x} 2:${y}`).join('\n') + '\n');
  const out = execFileSync(nsvm, ['predict', '--model', model, '--data', path.join(tmp, 'q.libsvm')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const want = out.trim().split('\n').map((l) => Number(l.split(/\s+/)[0]));
  assert(JSON.stringify(labels) === JSON.stringify(want), `page ${labels}, nsvm predict ${want}`);
  assert(labels.includes(1) && labels.includes(2), 'one class predicted: ' + labels);
});

await test('--algo nsvm4 trains in the page with visible progress, the page responsive, and the feature view drawn', async () => {
  await page.evaluate(() => {
    const status = document.getElementById('status');
    window.seen = [];
    new MutationObserver(() => seen.push(status.textContent)).observe(status, { childList: true, characterData: true, subtree: true });
    window.ticks = [];
    window.ticker = setInterval(() => ticks.push(performance.now()), 10);
  });
  const r = await runButton('--algo nsvm4');
  const { seen, gap } = await page.evaluate(() => {
    clearInterval(ticker);
    let gap = 0;
    for (let i = 1; i < ticks.length; i++) gap = Math.max(gap, ticks[i] - ticks[i - 1]);
    return { seen, gap };
  });
  cases.nsvm4 = { r, text: await pointsText(), model: await modelFile() };
  const steps = seen.filter((s) => /Part I \(network\) step \d+ of \d+/.test(s));
  assert(steps.length >= 2, 'progress lines: ' + JSON.stringify(seen));
  assert(/trained nsvm4/.test(seen[seen.length - 1]), 'last line: ' + seen[seen.length - 1]);
  assert(gap < 500, `the page stalled ${gap.toFixed(0)} ms during the run`);
  assert(r.trainAccuracy >= 0.95, 'training accuracy ' + r.trainAccuracy);
  assert(await page.isVisible('#features'), 'no feature view');
  const s = await drawn(await page.locator('#features').screenshot());
  assert(s.ink > 0.02 && s.colours >= 4, 'feature view: ' + JSON.stringify(s));
  console.log(`     ${steps.length} progress lines, e.g. "${steps[Math.floor(steps.length / 2)]}"; longest pause of the page ${gap.toFixed(0)} ms`);
});

await test('the default search ends within 60 s on 300 points', async () => {
  const t0 = Date.now();
  const r = await runButton('');
  const secs = (Date.now() - t0) / 1000;
  cases.default = { r, text: await pointsText(), model: await modelFile() };
  assert(secs < 60, `${secs} s`);
  assert(r.trainAccuracy >= 0.97, 'training accuracy ' + r.trainAccuracy);
  assert(!(await page.isVisible('#features')), 'a feature view for an SVM');
  console.log(`     ${secs.toFixed(1)} s in the page (fit ${r.seconds.toFixed(2)} s)`);
});

await test('three classes', async () => {
  const rows = ring(240, 7);
  const rnd = random(8);
  for (let i = 0; i < 60; i++) rows.push([round4(0.8 + 0.15 * rnd()), round4(0.8 + 0.15 * rnd()), 3]);
  await setPoints(rows);
  const r = await runButton('--algo nsvm4 --steps 300 --seed 3');
  cases.three = { r, text: await pointsText(), model: await modelFile() };
  assert(r.trainAccuracy >= 0.9, 'training accuracy ' + r.trainAccuracy);
  const where = await page.evaluate(() => [nsvmToy.predict(0.5, 0.5), nsvmToy.predict(0.5, 0.125), nsvmToy.predict(0.875, 0.875)]);
  assert(where.join() === '1,2,3', 'predicted at the centre, on the outer ring and in the corner cluster: ' + where);
  assert(tint(await pixel(200, 200)) === 1, 'the centre is not painted as class 1');
  const painted = new Set();
  for (let x = 10; x < 400; x += 40) for (let y = 10; y < 400; y += 40) painted.add(tint(await pixel(x, y)));
  assert([1, 2, 3].every((c) => painted.has(c)), 'classes painted: ' + [...painted]);
  if (opt.screenshot) {
    const box = await page.evaluate(() => {
      const r = [...document.querySelectorAll('#views figure, #controls > *')].map((e) => e.getBoundingClientRect().right);
      return { x: 0, y: 0, width: Math.ceil(Math.max(...r)) + 12, height: Math.ceil(document.getElementById('status').getBoundingClientRect().bottom) + 10 };
    });
    await page.screenshot({ path: opt.screenshot, clip: box });
    console.log(`     wrote ${opt.screenshot} (${fs.statSync(opt.screenshot).size} bytes)`);
  }
});

await test('regression mode: the curve and the ε-tube', async () => {
  await page.check('#regression');
  const rnd = random(11);
  const rows = [];
  for (let i = 0; i < 80; i++) {
    const x = round4(rnd());
    rows.push([x, round4(0.5 + 0.3 * Math.sin(6 * x) + 0.03 * (rnd() - 0.5)), 1]);
  }
  await setPoints(rows);
  const r = await runButton('--algo smo --C 10 --gamma 20 --epsilon 0.05');
  cases.regression = { r, text: await pointsText(), model: await modelFile(), options: '--task regression --algo smo --C 10 --gamma 20 --epsilon 0.05' };
  assert(r.trainAccuracy === null && r.rmse < 0.05, JSON.stringify(r));
  assert((await pointsText()) === libsvm(rows, true), 'regression text');
  // At a column with no point near it: dark blue on the curve, light blue
  // inside the tube, white far from it.
  let col = 100;
  for (let i = 100; i < 300; i++) {
    const gap = (c) => Math.min(...rows.map(([x]) => Math.abs(x * 400 - c)));
    if (gap(i) > gap(col)) col = i;
  }
  const y = await page.evaluate((col) => nsvmToy.predict((col + 0.5) / 400, 0), col);
  const row = Math.floor((1 - y) * 400);
  const on = await pixel(col, row);
  const inTube = await pixel(col, row - 12);
  const off = await pixel(col, row > 200 ? row - 150 : row + 150);
  assert(tint(on) === 2 && on[2] < 200, `curve pixel ${on}`);
  assert(tint(inTube) === 2 && inTube[0] > 180, `tube pixel ${inTube}`);
  assert(off.every((v) => v === 255), `pixel off the tube ${off}`);
  await page.uncheck('#regression');
});

await test('the model files are byte for byte those of nsvm train (GODEBUG=cpu.avx2=off)', async () => {
  const opts = { smo: '--algo smo --C 10 --gamma 10', nsvm4: '--algo nsvm4', default: '', three: '--algo nsvm4 --steps 300 --seed 3' };
  const native = [];
  for (const [name, c] of Object.entries(cases)) {
    const o = c.options ?? opts[name];
    const cli = cliTrain(c.text, o);
    assert(cli.bytes.equals(c.model), `${name}: the page's model (${c.model.length} bytes) differs from nsvm train's (${cli.bytes.length} bytes)`);
    native.push(`${name} ${cliTrain(c.text, o, {}).bytes.equals(c.model) ? 'equal' : 'differs'}`);
  }
  console.log(`     ${Object.keys(cases).join(', ')}: equal; with this CPU's own kernels (no GODEBUG): ${native.join(', ')}`);
});

await test('save and load the points as LIBSVM text, download the model', async () => {
  await setPoints(ring(40, 5));
  await runButton('--algo smo --C 10 --gamma 10');
  const want = await pointsText();
  const [saved] = await Promise.all([page.waitForEvent('download'), page.click('#save')]);
  const text = fs.readFileSync(await saved.path(), 'utf8');
  assert(text === want, 'saved: ' + text.slice(0, 80));
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  assert(fs.readFileSync(await dl.path()).equals(await modelFile()), 'the downloaded model differs');
  await page.click('#clear');
  await page.setInputFiles('#load', { name: 'points.libsvm', mimeType: 'text/plain', buffer: Buffer.from(text) });
  await page.waitForFunction(() => nsvmToy.points().length === 40);
  assert((await pointsText()) === want, 'loaded points differ');
});

if (opt.measure) {
  await test('measure: the page against nsvm train, 300 points (best of 3)', async () => {
    await setPoints(ring(300, 1));
    const text = await pointsText();
    // Seconds: the fit in the page's worker and the whole run (with the
    // painting); nsvm train's fit (--json train_seconds) and process, with
    // the CPU's assembly and with the page's pure-Go arithmetic.
    console.log('     options                        page: fit  run     nsvm train: fit  process  fit (cpu.avx2=off)');
    const fmt = (v) => v.toFixed(3).padStart(7);
    for (const o of ['--algo smo --C 10 --gamma 10', '--algo nsvm4', '']) {
      const best = { fit: Infinity, run: Infinity, cli: Infinity, proc: Infinity, pure: Infinity };
      for (let k = 0; k < 3; k++) {
        const t0 = Date.now();
        const r = await runButton(o);
        best.run = Math.min(best.run, (Date.now() - t0) / 1000);
        best.fit = Math.min(best.fit, r.seconds);
        const c = cliTrain(text, o, {});
        best.cli = Math.min(best.cli, c.seconds);
        best.proc = Math.min(best.proc, c.wall);
        best.pure = Math.min(best.pure, cliTrain(text, o).seconds);
      }
      console.log(`     ${(o || '(default search)').padEnd(30)} ${fmt(best.fit)} ${fmt(best.run)}          ${fmt(best.cli)}  ${fmt(best.proc)}  ${fmt(best.pure)}`);
    }
    let total = 0;
    for (const [p, n] of transfer) {
      console.log(`     ${p.padEnd(20)} ${n} bytes transferred`);
      total += n;
    }
    console.log(`     the page: ${total} bytes transferred`);
  });
}

await browser.close();

await test('nsvm toy stops cleanly on Ctrl-C (SIGINT)', async () => {
  const t0 = Date.now();
  server.kill('SIGINT');
  const timeout = new Promise((resolve) => setTimeout(() => resolve(null), 10000));
  const e = await Promise.race([exited, timeout]);
  assert(e && e.code === 0, `after SIGINT: ${JSON.stringify(e)}`);
  console.log(`     exited 0 after ${e.at - t0} ms`);
});

fs.rmSync(tmp, { recursive: true, force: true });
console.log(failed ? `${failed} browser test(s) FAILED` : 'all browser tests passed');
process.exit(Math.min(failed, 100));
