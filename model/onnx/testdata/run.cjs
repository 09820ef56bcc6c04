// Runs ONNX models in onnxruntime-node for model/onnx's tests: node run.cjs
// JOBS.json OUT.json, where JOBS.json is a list of {model, feeds} with feeds
// {name: {type: "float32" or "string", dims, data}} (null in float data is
// NaN), and OUT.json receives a list of {name: {type, dims, data}} per job.
// onnxruntime-node is required from $NSVM_ONNXRUNTIME (a node_modules
// directory).
const fs = require('fs');
const path = require('path');
const ort = require(path.join(process.env.NSVM_ONNXRUNTIME, 'onnxruntime-node'));

(async () => {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const results = [];
  for (const job of jobs) {
    const session = await ort.InferenceSession.create(job.model);
    const feeds = {};
    for (const [name, f] of Object.entries(job.feeds)) {
      const data = f.type === 'string' ? f.data : Float32Array.from(f.data, v => (v === null ? NaN : v));
      feeds[name] = new ort.Tensor(f.type, data, f.dims);
    }
    const out = await session.run(feeds);
    const res = {};
    for (const [name, t] of Object.entries(out)) {
      res[name] = { type: t.type, dims: t.dims, data: Array.from(t.data, v => (typeof v === 'bigint' ? Number(v) : v)) };
    }
    results.push(res);
  }
  fs.writeFileSync(process.argv[3], JSON.stringify(results));
})().catch(e => { console.error(e); process.exit(1); });
