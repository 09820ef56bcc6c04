// Runs nsvm's ONNX models in headless Chromium with onnxruntime-web's wasm
// backend, for bench/onnx: node web.cjs JOB.json OUT.json, with the jobs
// of ort.cjs (timeRows is ignored) and the same outputs. Chromium is
// driven by playwright-core from $NSVM_ONNXRUNTIME (a node_modules
// directory that also holds onnxruntime-web) and started from
// $NSVM_CHROMIUM (Debian's /usr/bin/chromium). A local HTTP server serves
// the page, onnxruntime-web's files and the models.
const fs = require('fs');
const http = require('http');
const path = require('path');
const modules = process.env.NSVM_ONNXRUNTIME;
const { chromium } = require(path.join(modules, 'playwright-core'));
const dist = path.join(modules, 'onnxruntime-web', 'dist');

const page = `<!doctype html><meta charset="utf-8"><title>nsvm ONNX</title><script type="module">
import * as ort from '/ort/ort.wasm.min.mjs';
ort.env.wasm.wasmPaths = '/ort/';
ort.env.wasm.numThreads = 1;
window.runJob = async (i, job) => {
  const session = await ort.InferenceSession.create('/model/' + i, { executionProviders: ['wasm'] });
  const feeds = {};
  for (const inp of job.inputs) {
    const data = inp.type === 'string' ? inp.strings : Float32Array.from(inp.values, v => (v === null ? NaN : v));
    feeds[inp.name] = new ort.Tensor(inp.type, data, [job.rows, inp.cols]);
  }
  const out = await session.run(feeds);
  const res = {};
  for (const [name, t] of Object.entries(out)) {
    res[name] = { type: t.type, dims: t.dims, data: Array.from(t.data, v => (typeof v === 'bigint' ? Number(v) : v)) };
  }
  await session.release();
  return res;
};
window.ortVersion = ort.env.versions;
window.ready = true;
</script>`;

const types = { '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };

(async () => {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url.split('?')[0]);
    let file;
    if (url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(page);
    }
    if (url.startsWith('/ort/')) file = path.join(dist, path.basename(url));
    else if (url.startsWith('/model/')) file = (jobs[Number(url.slice(7))] || {}).model;
    if (!file || !fs.existsSync(file)) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise(r => server.listen(0, '127.0.0.1', r));
  const browser = await chromium.launch({
    executablePath: process.env.NSVM_CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const tab = await browser.newPage();
    const errors = [];
    tab.on('pageerror', e => errors.push(String(e)));
    await tab.goto(`http://127.0.0.1:${server.address().port}/`);
    await tab.waitForFunction(() => window.ready, null, { timeout: 60000 }).catch(e => {
      throw new Error(`the page did not load onnxruntime-web: ${e.message} ${errors.join('; ')}`);
    });
    const results = [];
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i];
      const inputs = job.inputs.map(inp => {
        if (inp.type === 'string') return inp;
        const b = fs.readFileSync(inp.file);
        const v = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
        return { ...inp, values: Array.from(v, x => (Number.isNaN(x) ? null : x)) };
      });
      const outputs = await tab.evaluate(([i, job]) => window.runJob(i, job), [i, { rows: job.rows, inputs }]);
      results.push({ outputs });
    }
    const versions = await tab.evaluate(() => window.ortVersion);
    fs.writeFileSync(process.argv[3], JSON.stringify({ versions, browser: browser.version(), results }));
  } finally {
    await browser.close();
    server.close();
  }
})().catch(e => { console.error(e); process.exit(1); });
