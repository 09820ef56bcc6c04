// Runs nsvm's ONNX models in onnxruntime-node for bench/onnx: node ort.cjs
// JOB.json OUT.json. JOB.json is a list of
//   {model, rows, inputs: [{name, type: "float32" | "string", cols, file | strings}],
//    timeRows, batch}
// where a float32 input's rows × cols values are little-endian in file (NaN
// for a missing value) and a string input's rows are in strings. OUT.json
// receives per job the outputs on those rows ({name: {type, dims, data}}),
// and, with timeRows > 0, the seconds ONNX Runtime takes for timeRows rows
// (the rows repeated) in batches of batch rows, after one batch to warm up.
// onnxruntime-node is required from $NSVM_ONNXRUNTIME (a node_modules
// directory), as a user installs it: npm install onnxruntime-node.
const fs = require('fs');
const path = require('path');
const ort = require(path.join(process.env.NSVM_ONNXRUNTIME, 'onnxruntime-node'));

// columns returns each input's values: a Float32Array or an array of strings.
function columns(job) {
  return job.inputs.map(inp => {
    if (inp.type === 'string') return inp.strings;
    const b = fs.readFileSync(inp.file);
    return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  });
}

// feeds returns the tensors of rows [lo, lo + n) of the job's rows repeated.
function feeds(job, cols, lo, n) {
  const out = {};
  job.inputs.forEach((inp, k) => {
    const src = cols[k];
    const c = inp.cols;
    const data = inp.type === 'string' ? new Array(n * c) : new Float32Array(n * c);
    for (let i = 0; i < n; i++) {
      const r = (lo + i) % job.rows;
      for (let j = 0; j < c; j++) data[i * c + j] = src[r * c + j];
    }
    out[inp.name] = new ort.Tensor(inp.type, data, [n, c]);
  });
  return out;
}

function plain(t) {
  return { type: t.type, dims: t.dims, data: Array.from(t.data, v => (typeof v === 'bigint' ? Number(v) : v)) };
}

(async () => {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const results = [];
  for (const job of jobs) {
    const session = await ort.InferenceSession.create(job.model);
    const cols = columns(job);
    const out = await session.run(feeds(job, cols, 0, job.rows));
    const res = { outputs: {} };
    for (const [name, t] of Object.entries(out)) res.outputs[name] = plain(t);
    if (job.timeRows > 0) {
      const batches = [];
      for (let lo = 0; lo < job.timeRows; lo += job.batch) batches.push(feeds(job, cols, lo, Math.min(job.batch, job.timeRows - lo)));
      await session.run(batches[0]);
      const t0 = process.hrtime.bigint();
      for (const f of batches) await session.run(f);
      res.seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    }
    await session.release();
    results.push(res);
  }
  fs.writeFileSync(process.argv[3], JSON.stringify({ versions: ort.env.versions, results }));
})().catch(e => { console.error(e); process.exit(1); });
