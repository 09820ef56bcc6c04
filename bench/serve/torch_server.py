#!/usr/bin/python3
"""The PyTorch peer of `nsvm serve`: the same model, rebuilt in PyTorch from
its file, behind Python's http.server.ThreadingHTTPServer (what a researcher
would put up) or FastAPI on uvicorn (with uvloop and httptools, what
uvicorn[standard] gives).

It answers KServe's V1 predict, POST /v1/models/{name}:predict with
{"instances": [[x...], ...]}, with {"predictions": [labels]} for binary
classifiers. The network comes from bench/torch_nsvm.py's build_net with the
file's parameters; the head is the RBF kernel expansion of the file
(exp(-gamma*||z - sv||^2) . coef + bias), all in float32 except the sum of
the expansion (float64, as nsvm).

Usage: torch_server.py --model m.nsvm --name m --port 18081 [--server threading|fastapi]
"""

import argparse
import json
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from torch_nsvm import build_net  # noqa: E402


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    n, = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = header.pop("__metadata__", {})
    base = 8 + n
    dtypes = {"F32": np.float32, "F64": np.float64, "I64": np.int64}
    tensors = {}
    for name, t in header.items():
        lo, hi = t["data_offsets"]
        tensors[name] = np.frombuffer(data[base + lo:base + hi], dtype=dtypes[t["dtype"]]).reshape(t["shape"])
    return meta, tensors


class Model:
    def __init__(self, path):
        meta, ts = read_safetensors(path)
        if "classes" in meta or meta.get("task") == "regression":
            sys.exit("torch_server: only binary classifiers are served by this peer")
        kern = json.loads(meta["kernel"])
        if kern.get("name") != "rbf" or kern.get("normalized"):
            sys.exit("torch_server: only RBF heads are served by this peer")
        self.gamma = float(kern["gamma"])
        self.in_shape = json.loads(meta["in_shape"])
        self.net = None
        if meta.get("arch"):
            self.net, _, _ = build_net(meta["arch"], self.in_shape)
            state = {k[len("theta."):]: torch.from_numpy(v.copy()) for k, v in ts.items() if k.startswith("theta.")}
            self.net.load_state_dict(state)
            self.net.eval()
        self.sv = torch.from_numpy(ts["sv"].copy())
        self.sv_norms = (self.sv * self.sv).sum(1)
        self.coef = torch.from_numpy(ts["coef"].copy())
        self.bias = float(meta["bias"])
        self.neg, self.pos = float(meta["label_neg"]), float(meta["label_pos"])
        self.mean = torch.from_numpy(ts["input_mean"].copy()) if "input_mean" in ts else None
        self.std = torch.from_numpy(ts["input_std"].copy()) if "input_std" in ts else None
        self.d = int(np.prod(self.in_shape))

    @torch.no_grad()
    def predict(self, rows):
        x = torch.tensor(rows, dtype=torch.float32).reshape(-1, self.d)
        if self.mean is not None:
            x = ((x.double() - self.mean) / self.std).float()
        if self.net is not None:
            x = self.net(x.reshape([-1] + self.in_shape))
        z = x.reshape(x.shape[0], -1)
        sq = (z * z).sum(1, keepdim=True) + self.sv_norms[None, :] - 2 * z @ self.sv.T
        k = torch.exp(-self.gamma * sq.clamp(min=0))
        dec = k.double() @ self.coef + self.bias
        return [self.pos if v >= 0 else self.neg for v in dec.tolist()]


def serve_threading(model, name, port):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    path = "/v1/models/%s:predict" % name

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            if self.path != path:
                self.send_error(404)
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                out = json.dumps({"predictions": model.predict(json.loads(body)["instances"])}).encode()
                code = 200
            except Exception as e:  # a bad request, answered as such
                out, code = json.dumps({"error": str(e)}).encode(), 400
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


def serve_fastapi(model, name, port):
    import uvicorn
    from fastapi import FastAPI, Request
    from fastapi.responses import Response

    app = FastAPI()

    @app.post("/v1/models/%s:predict" % name)
    async def predict(request: Request):
        body = await request.body()
        out = json.dumps({"predictions": model.predict(json.loads(body)["instances"])})
        return Response(content=out, media_type="application/json")

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", loop="uvloop", http="httptools")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--name", default="m")
    ap.add_argument("--port", type=int, default=18081)
    ap.add_argument("--server", choices=["threading", "fastapi"], default="threading")
    a = ap.parse_args()
    model = Model(a.model)
    print("ready", flush=True)
    if a.server == "threading":
        serve_threading(model, a.name, a.port)
    else:
        serve_fastapi(model, a.name, a.port)


if __name__ == "__main__":
    main()
