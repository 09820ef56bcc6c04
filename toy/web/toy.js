// svm-toy: the page's points, drawing and controls, and window.nsvmToy
// (documented in package toy). worker.js trains and paints with the
// WebAssembly module; the page runs a second instance of the same module
// for predict().
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const plane = $('plane');
  const ctx = plane.getContext('2d');
  const fcanvas = $('features');
  const fctx = fcanvas.getContext('2d');
  const W = plane.width;
  const H = plane.height;
  const colours = { 1: [215, 48, 31], 2: [43, 108, 176], 3: [47, 158, 68] };
  const colour = (l) => colours[l] || [120, 120, 120];
  const rgba = (c, a) => `rgba(${c[0]},${c[1]},${c[2]},${a})`;

  let points = []; // rows [x, y, label], x to the right, y upward, in [0, 1]
  let selected = 1;
  let regression = false;
  let shown = null; // what the latest run drew: picture or curve, features, support vectors
  let model = null; // the latest model file
  let generation = 0; // counts the changes that make a run's drawing stale
  let running = false;
  let worker = null;
  let nextID = 1;
  const pending = new Map();

  const api = {
    ready: null,
    points: () => points.map((p) => p.slice()),
    setPoints(rows) {
      points = rows.map((r) => [Number(r[0]), Number(r[1]), r.length > 2 ? Number(r[2]) : 1]);
      forget();
    },
    pointsText,
    setRegression,
    run: (options) => startRun(options),
    lastRun: null,
    predict: (x, y) => (model ? nsvmGo.predict(x, y) : NaN),
    modelFile: () => (model ? model.slice() : null),
    statusLog: [],
  };
  window.nsvmToy = api;

  function status(text, error) {
    $('status').textContent = text;
    $('status').classList.toggle('error', !!error);
    api.statusLog.push(text);
  }

  // The module: compiled once, run here (predict) and in the worker.
  api.ready = (async () => {
    const module = await WebAssembly.compileStreaming(fetch('nsvm-toy.wasm'));
    const go = new Go();
    const started = new Promise((resolve) => { window.nsvmGoReady = resolve; });
    go.run(await WebAssembly.instantiate(module, go.importObject));
    await started;
    worker = new Worker('worker.js');
    await new Promise((resolve, reject) => {
      worker.onmessage = (e) => (e.data.type === 'ready' ? resolve() : reject(new Error(e.data.message)));
      worker.onerror = (e) => reject(new Error(e.message));
      worker.postMessage({ type: 'init', module });
    });
    worker.onmessage = (e) => {
      const p = pending.get(e.data.id);
      if (p) p(e.data);
    };
    status('ready: click to add points, then Run');
  })();
  api.ready.catch((err) => status('the WebAssembly module did not start: ' + err.message, true));

  function pointsText() {
    return points.map(([x, y, l]) => (regression ? `${y} 1:${x}` : `${l} 1:${x} 2:${y}`)).join('\n') + (points.length ? '\n' : '');
  }

  function options() {
    const o = $('options').value.trim();
    return regression && !/(^|\s)--?task(\s|=|$)/.test(o) ? ('--task regression ' + o).trim() : o;
  }

  function startRun(opts) {
    if (opts !== undefined) $('options').value = opts;
    const p = train();
    api.lastRun = p;
    p.catch((err) => status('error: ' + err.message, true));
    return p;
  }

  async function train() {
    await api.ready;
    if (running) throw new Error('a run is under way');
    if (points.length === 0) throw new Error('add points first');
    running = true;
    $('run').disabled = true;
    api.statusLog = [];
    const o = options();
    const n = points.length;
    const gen = generation;
    status(`training on ${n} points ${o ? 'with ' + o : '(the default search)'}…`);
    const id = nextID++;
    try {
      const done = await new Promise((resolve, reject) => {
        pending.set(id, (m) => {
          if (m.type === 'progress') status(m.status);
          else if (m.type === 'picture' && gen === generation) draw({ picture: m.picture });
          else if (m.type === 'error') reject(new Error(m.message));
          else if (m.type === 'done') resolve(m);
        });
        worker.postMessage({ type: 'train', id, points: pointsText(), options: o, size: W });
      });
      const r = done.result;
      const err = nsvmGo.load(r.model);
      if (err) throw new Error(err);
      model = r.model;
      $('download').disabled = false;
      if (gen === generation) {
        shown = { picture: done.picture, curve: done.curve, features: done.features, isSV: r.isSV };
        draw(shown);
        drawFeatures(shown);
      }
      const what = r.selected ? `${r.algorithm} (selected: ${r.selected})` : r.algorithm;
      const score = r.regression ? `RMSE ${r.rmse.toPrecision(4)}, R² ${r.r2.toFixed(3)}` : `training accuracy ${(100 * r.trainAccuracy).toFixed(2)} %`;
      status(`trained ${what} on ${n} points in ${r.seconds.toFixed(2)}s: ${r.supportVectors} support vectors, ${score}`);
      const out = { trainAccuracy: r.regression ? null : r.trainAccuracy, supportVectors: r.supportVectors, seconds: r.seconds };
      if (r.regression) Object.assign(out, { rmse: r.rmse, r2: r.r2 });
      return out;
    } finally {
      pending.delete(id);
      running = false;
      $('run').disabled = false;
    }
  }

  // forget drops the latest run's drawing (the points changed) and redraws.
  function forget() {
    generation++;
    shown = null;
    draw(null);
    drawFeatures(null);
  }

  function setRegression(on) {
    regression = !!on;
    $('regression').checked = regression;
    for (const b of document.querySelectorAll('button.class')) b.disabled = regression;
    $('plane-caption').textContent = regression
      ? 'Click to add an (x, y) point; the model predicts y from x.'
      : 'Click to add a point of the selected class, then Run.';
    forget();
  }

  // Drawing. A canvas pixel (i, j) is the point ((i+½)/W, 1−(j+½)/H).
  const px = (x) => x * W;
  const py = (y) => (1 - y) * H;

  // pictureImage colours every pixel by its predicted class, deeper with
  // the decision value, dark where the class changes (the decision
  // boundary) and darker on the margin's edges.
  function pictureImage(pic) {
    const { w, h, label, margin } = pic;
    const img = new ImageData(w, h);
    const d = img.data;
    for (let j = 0; j < h; j++) {
      for (let i = 0; i < w; i++) {
        const k = j * w + i;
        const l = label[k];
        const m = margin[k];
        const c = colour(l);
        const right = i + 1 < w ? k + 1 : k;
        const down = j + 1 < h ? k + w : k;
        const boundary = label[right] !== l || label[down] !== l;
        const onMargin = (margin[right] >= 1) !== (m >= 1) || (margin[down] >= 1) !== (m >= 1);
        const a = 0.15 + 0.2 * Math.min(Math.max(m, 0), 2); // the class colour's share, over white
        for (let q = 0; q < 3; q++) {
          if (boundary) d[4 * k + q] = 35;
          else if (onMargin) d[4 * k + q] = 0.55 * c[q];
          else d[4 * k + q] = 255 + (c[q] - 255) * a;
        }
        d[4 * k + 3] = 255;
      }
    }
    return img;
  }

  function draw(s) {
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, W, H);
    if (s && s.picture) {
      const img = pictureImage(s.picture);
      if (img.width === W && img.height === H) ctx.putImageData(img, 0, 0);
      else {
        const c = new OffscreenCanvas(img.width, img.height);
        c.getContext('2d').putImageData(img, 0, 0);
        ctx.imageSmoothingEnabled = false;
        ctx.drawImage(c, 0, 0, W, H);
      }
    }
    if (s && s.curve) drawCurve(s.curve);
    const isSV = s && s.isSV;
    points.forEach(([x, y, l], i) => {
      const c = regression ? [40, 40, 40] : colour(l);
      const [X, Y] = [px(x), py(y)];
      ctx.beginPath();
      ctx.arc(X, Y, 3.5, 0, 2 * Math.PI);
      ctx.fillStyle = rgba(c, 1);
      ctx.fill();
      ctx.lineWidth = 1;
      ctx.strokeStyle = '#fff';
      ctx.stroke();
      if (isSV && isSV[i]) {
        ctx.beginPath();
        ctx.arc(X, Y, 7, 0, 2 * Math.PI);
        ctx.lineWidth = 1.5;
        ctx.strokeStyle = '#000';
        ctx.stroke();
      }
    });
  }

  // drawCurve draws a regressor's curve and its ε-tube.
  function drawCurve({ y, epsilon }) {
    const line = (shift) => {
      ctx.beginPath();
      for (let i = 0; i < y.length; i++) ctx.lineTo(i + 0.5, py(y[i] + shift));
    };
    if (epsilon > 0) {
      ctx.beginPath();
      for (let i = 0; i < y.length; i++) ctx.lineTo(i + 0.5, py(y[i] + epsilon));
      for (let i = y.length - 1; i >= 0; i--) ctx.lineTo(i + 0.5, py(y[i] - epsilon));
      ctx.closePath();
      ctx.fillStyle = 'rgba(43,108,176,0.15)';
      ctx.fill();
      ctx.setLineDash([5, 4]);
      ctx.lineWidth = 1;
      ctx.strokeStyle = '#2b6cb0';
      line(epsilon);
      ctx.stroke();
      line(-epsilon);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    ctx.lineWidth = 2;
    ctx.strokeStyle = '#1a4a80';
    line(0);
    ctx.stroke();
  }

  // drawFeatures draws an NSVM's feature map: the points, and the input
  // plane's grid lines, as the network maps them.
  function drawFeatures(s) {
    const f = s && s.features;
    $('features-view').hidden = !f;
    if (!f) return;
    fctx.fillStyle = '#fff';
    fctx.fillRect(0, 0, W, H);
    const L = f.lines;
    fctx.lineWidth = 1;
    for (let li = 0; li < 2 * f.nLines; li++) {
      for (let k = li * f.samples; k + 1 < (li + 1) * f.samples; k++) {
        fctx.beginPath();
        fctx.moveTo(px(L[2 * k]), py(L[2 * k + 1]));
        fctx.lineTo(px(L[2 * k + 2]), py(L[2 * k + 3]));
        fctx.strokeStyle = rgba(colour(f.lineLabel[k]), 0.45);
        fctx.stroke();
      }
    }
    const P = f.points;
    for (let i = 0; i < P.length / 2; i++) {
      const [X, Y] = [px(P[2 * i]), py(P[2 * i + 1])];
      fctx.beginPath();
      fctx.arc(X, Y, 3.5, 0, 2 * Math.PI);
      fctx.fillStyle = rgba(colour(points[i] ? points[i][2] : 0), 1);
      fctx.fill();
      if (s.isSV[i]) {
        fctx.beginPath();
        fctx.arc(X, Y, 7, 0, 2 * Math.PI);
        fctx.lineWidth = 1.5;
        fctx.strokeStyle = '#000';
        fctx.stroke();
        fctx.lineWidth = 1;
      }
    }
    const pct = (v) => (100 * v).toFixed(v < 0.01 ? 2 : 0);
    $('features-caption').textContent = `The points as the network maps them: the features the SVM sees, on their first two ` +
      `principal components (${pct(f.explained)} % of the variance; the vertical axis holds ${pct(f.second)} % of that, ` +
      `each axis scaled to fit), with the plane's grid lines mapped alike and coloured by the class predicted there; ` +
      `support vectors ringed.`;
  }

  // Controls.
  plane.addEventListener('click', (e) => {
    const round = (v) => Math.min(1, Math.max(0, Math.round(v * 1e4) / 1e4));
    const x = round(e.offsetX / plane.clientWidth);
    const y = round(1 - e.offsetY / plane.clientHeight);
    points.push([x, y, selected]);
    draw(shown);
  });
  for (const b of document.querySelectorAll('button.class')) {
    b.addEventListener('click', () => {
      selected = Number(b.dataset.class);
      for (const o of document.querySelectorAll('button.class')) o.classList.toggle('selected', o === b);
    });
  }
  $('regression').addEventListener('change', (e) => setRegression(e.target.checked));
  $('run').addEventListener('click', () => startRun());
  $('options').addEventListener('keydown', (e) => { if (e.key === 'Enter' && !running) startRun(); });
  $('clear').addEventListener('click', () => {
    points = [];
    forget();
    status('cleared');
  });
  const download = (bytes, name, type) => {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes], { type }));
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  $('save').addEventListener('click', () => download(pointsText(), regression ? 'points-regression.libsvm' : 'points.libsvm', 'text/plain'));
  $('download').addEventListener('click', () => model && download(model, 'toy.nsvm', 'application/octet-stream'));
  $('load').addEventListener('change', async (e) => {
    const file = e.target.files[0];
    e.target.value = '';
    if (!file) return;
    // LIBSVM text: "label 1:x 2:y" (classes), or "y 1:x" (regression).
    const rows = [];
    let reg = false;
    for (const line of (await file.text()).split('\n')) {
      const t = line.trim().split(/\s+/);
      if (!t[0] || t[0].startsWith('#')) continue;
      const v = { 1: 0, 2: 0 };
      let has2 = false;
      for (const f of t.slice(1)) {
        const [i, val] = f.split(':');
        v[i] = Number(val);
        has2 = has2 || i === '2';
      }
      if (!has2) reg = true;
      rows.push([v[1], v[2], Number(t[0])]);
    }
    const loaded = reg ? rows.map(([x, , y]) => [x, y, 1]) : rows;
    setRegression(reg);
    api.setPoints(loaded);
    status(`loaded ${loaded.length} points from ${file.name}${reg ? ' (regression)' : ''}`);
  });

  draw(null);
})();
