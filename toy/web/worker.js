// svm-toy's worker: trains and paints with the WebAssembly module
// (toy/wasm), off the page's thread, and posts the progress lines, a
// coarse picture, then the result.
'use strict';
importScripts('wasm_exec.js');

onmessage = async (e) => {
  const m = e.data;
  if (m.type === 'init') {
    try {
      const go = new Go();
      const started = new Promise((resolve) => { self.nsvmGoReady = resolve; });
      go.run(await WebAssembly.instantiate(m.module, go.importObject));
      await started;
      postMessage({ type: 'ready' });
    } catch (err) {
      postMessage({ type: 'error', message: String((err && err.message) || err) });
    }
    return;
  }
  if (m.type !== 'train') return;
  const id = m.id;
  const check = (v) => {
    if (v instanceof Error) throw v;
    return v;
  };
  try {
    const r = await nsvmGo.train(m.points, m.options, (status) => postMessage({ type: 'progress', id, status }));
    const done = { type: 'done', id, result: r };
    if (r.regression) {
      done.curve = check(nsvmGo.curve(m.size));
    } else {
      postMessage({ type: 'progress', id, status: 'painting the plane…' });
      const q = m.size / 4;
      const coarse = check(nsvmGo.paint(q, q));
      postMessage({ type: 'picture', id, picture: { w: q, h: q, label: coarse.label, margin: coarse.margin } });
      const full = check(nsvmGo.paint(m.size, m.size));
      done.picture = { w: m.size, h: m.size, label: full.label, margin: full.margin };
      if (r.network) done.features = nsvmGo.features(11, 41);
    }
    postMessage(done);
  } catch (err) {
    postMessage({ type: 'error', id, message: String((err && err.message) || err) });
  }
};
