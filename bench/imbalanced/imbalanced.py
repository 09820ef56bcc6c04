#!/usr/bin/env python3
"""nsvm against class-weighted scikit-learn models on imbalanced binary data.

Data (written as CSV into --dir, default $NSVM_BENCH_DIR or /tmp/nsvm-bench):
  digits-8        scikit-learn's bundled digits, 8 against the rest (9.7 % positive)
  breast-cancer   bundled breast_cancer, malignant = positive, subsampled (seeded)
                  to 23 of 380 rows (6.1 %)
  wine-3          bundled wine, the third cultivar against the rest (27 %)
  insurance       insurance.py: 6000 customers, 85 columns (62 categorical text),
                  5.8 % positive, weak signal
For every data set and seed: a stratified 75/25 split (train_test_split with
that random_state), written as train.csv and test.csv (header, label last,
numbers as %.9g), and on those files:
  nsvm     nsvm train --data train.csv --model M (no other flag), then
           nsvm predict --model M --data test.csv ("label decision" lines)
  svc      StandardScaler + SVC(class_weight='balanced')
  logreg   StandardScaler + LogisticRegression(class_weight='balanced', max_iter=1000)
  hgb      HistGradientBoostingClassifier(class_weight='balanced')
Text columns go through OneHotEncoder(handle_unknown='ignore') for svc and
logreg and through OrdinalEncoder as categorical features for hgb (the peers
run with OMP_WAIT_POLICY=passive, see below). Scores:
balanced accuracy of the predicted labels and ROC AUC of the decision values
(svc, nsvm) or probabilities (logreg, hgb) on the test rows. Seconds: nsvm's
whole train process, the peers' fit. A failed run keeps its row, with its
error. Writes results.md and results.jsonl next to this file.
"""
import argparse, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchrun import ResultLog, error_summary, timed, write_results  # noqa: E402

# OpenMP threads (HistGradientBoosting's) sleep when idle instead of spinning:
# on a machine shared with other work, spinning threads made its fit on the
# insurance table 30–50× slower (0.9 s against 31–43 s). Set before numpy and
# scikit-learn load libgomp; an explicit setting is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def load_set(name, a):
    """(DataFrame of features, 0/1 labels) of a data set."""
    from sklearn import datasets
    if name == "digits-8":
        d = datasets.load_digits()
        return pd.DataFrame(d.data, columns=[f"pixel{i}" for i in range(d.data.shape[1])]), (d.target == 8).astype(int)
    if name == "breast-cancer":
        d = datasets.load_breast_cancer()
        y = (d.target == 0).astype(int)  # 0 = malignant in scikit-learn's coding
        rng = np.random.default_rng(a.data_seed)
        pos = np.flatnonzero(y == 1)
        keep = np.sort(np.concatenate([np.flatnonzero(y == 0), rng.choice(pos, size=23, replace=False)]))
        cols = [c.replace(" ", "_") for c in d.feature_names]
        return pd.DataFrame(d.data[keep], columns=cols), y[keep]
    if name == "wine-3":
        d = datasets.load_wine()
        return pd.DataFrame(d.data, columns=d.feature_names), (d.target == 2).astype(int)
    if name == "insurance":
        import insurance
        df = insurance.generate(6000, a.data_seed + 1999)
        y = df.pop("caravan_policy").to_numpy()
        return df, y
    raise SystemExit(f"unknown data set {name}")


def write_csv(path, X, y):
    df = X.copy()
    df["label"] = y
    df.to_csv(path, index=False, float_format="%.9g")


def scores(y, pred, score):
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score
    return {"balanced_accuracy": float(balanced_accuracy_score(y, pred)), "auc": float(roc_auc_score(y, score)),
            "predicted_positive": float(np.mean(pred == 1))}


def run_nsvm(nsvm, train, test, yte, work, timeout):
    model = os.path.join(work, "m.nsvm")
    if os.path.exists(model):
        os.remove(model)
    t = time.time()
    try:
        p = subprocess.run([nsvm, "train", "--data", train, "--model", model], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"stopped after {timeout} s", "seconds": time.time() - t}
    secs = time.time() - t
    if p.returncode != 0:
        return {"error": error_summary(p.stderr), "seconds": secs}
    sel = next((l.strip().split(": ")[0] for l in p.stdout.splitlines() if l.startswith("selected")), "")
    q = subprocess.run([nsvm, "predict", "--model", model, "--data", test], capture_output=True, text=True, timeout=timeout)
    if q.returncode != 0:
        return {"error": "nsvm predict: " + error_summary(q.stderr), "seconds": secs}
    rows = [l.split() for l in q.stdout.splitlines() if l.strip()]
    if len(rows) != len(yte) or any(len(r) != 2 for r in rows):
        return {"error": f"nsvm predict printed {len(rows)} lines for {len(yte)} rows, not 'label decision'", "seconds": secs}
    pred = np.array([int(float(r[0])) for r in rows])
    dec = np.array([float(r[1]) for r in rows])
    # A decision ≥ 0 is the model's positive label; orient the scores to label 1.
    pos = {int(float(r[0])) for r, d in zip(rows, dec) if d >= 0}
    neg = {int(float(r[0])) for r, d in zip(rows, dec) if d < 0}
    flip = (1 in neg) or (0 in pos)
    return dict(scores(yte, pred, -dec if flip else dec), seconds=secs, selected=sel)


def run_peer(method, Xtr, ytr, Xte, yte):
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler
    from sklearn.svm import SVC
    cat = [c for c in Xtr.columns if Xtr[c].dtype == object]
    num = [c for c in Xtr.columns if c not in cat]
    if method in ("svc", "logreg"):
        pre = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), cat), ("num", StandardScaler(), num)]) if cat else StandardScaler()
        est = SVC(class_weight="balanced") if method == "svc" else LogisticRegression(class_weight="balanced", max_iter=1000)
        m = make_pipeline(pre, est)
    else:
        kw = {}
        try:
            HistGradientBoostingClassifier(class_weight="balanced")
            kw["class_weight"] = "balanced"
        except TypeError:
            pass
        if cat:
            pre = ColumnTransformer([("cat", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=np.nan), cat),
                                     ("num", "passthrough", num)])
            est = HistGradientBoostingClassifier(categorical_features=list(range(len(cat))), random_state=0, **kw)
            m = make_pipeline(pre, est)
        else:
            m = HistGradientBoostingClassifier(random_state=0, **kw)
    t = time.time()
    m.fit(Xtr, ytr)
    secs = time.time() - t
    score = m.decision_function(Xte) if method == "svc" else m.predict_proba(Xte)[:, 1]
    return dict(scores(yte, m.predict(Xte), score), seconds=secs)


NAMES = {"nsvm": "nsvm train (no flags)", "svc": "SVC(class_weight='balanced')",
         "logreg": "LogisticRegression(class_weight='balanced')", "hgb": "HistGradientBoosting(class_weight='balanced')"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nsvm", required=True)
    ap.add_argument("--dir", default=os.environ.get("NSVM_BENCH_DIR", "/tmp/nsvm-bench"))
    ap.add_argument("--sets", default="digits-8,breast-cancer,wine-3,insurance")
    ap.add_argument("--seeds", default="1,2,3", help="split seeds")
    ap.add_argument("--data-seed", type=int, default=1, help="seed of the breast-cancer subsample and the insurance table (+1999)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds before nsvm train is stopped")
    a = ap.parse_args()
    from sklearn.model_selection import train_test_split
    import sklearn
    os.makedirs(a.dir, exist_ok=True)
    load0 = os.getloadavg()
    work = tempfile.mkdtemp(prefix="imbalanced-", dir=a.dir)
    # One throw-away fit of each peer first: the first fit in a process pays
    # for imports and thread-pool start-up, which are not training time.
    rng = np.random.default_rng(0)
    Xw = pd.DataFrame(rng.normal(size=(200, 4)), columns=list("abcd"))
    yw = (Xw["a"] > 0.8).astype(int).to_numpy()
    for method in ["svc", "logreg", "hgb"]:
        run_peer(method, Xw, yw, Xw, yw)
    log = ResultLog(os.path.join(HERE, "results.jsonl"))
    rows = log.rows
    for name in a.sets.split(","):
        X, y = load_set(name, a)
        for seed in [int(s) for s in a.seeds.split(",")]:
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
            d = os.path.join(a.dir, "imbalanced", f"{name}-{seed}")
            os.makedirs(d, exist_ok=True)
            train, test = os.path.join(d, "train.csv"), os.path.join(d, "test.csv")
            write_csv(train, Xtr, ytr)
            write_csv(test, Xte, yte)
            # The peers read the same files back, as nsvm does.
            tr, te = pd.read_csv(train), pd.read_csv(test)
            ytr_f, yte_f = tr.pop("label").to_numpy(), te.pop("label").to_numpy()
            info = {"set": name, "seed": seed, "n": len(ytr), "d": X.shape[1], "n_test": len(yte),
                    "pos_train": int(ytr.sum()), "pos_test": int(yte.sum()), "categorical": int(sum(X[c].dtype == object for c in X))}
            for method in ["nsvm", "svc", "logreg", "hgb"]:
                try:
                    r = run_nsvm(a.nsvm, train, test, yte_f, work, a.timeout) if method == "nsvm" else run_peer(method, tr, ytr_f, te, yte_f)
                except Exception as e:  # noqa: BLE001
                    r = {"error": f"{type(e).__name__}: {e}"[:300]}
                log.emit(dict(info, method=method, **r))
    log.close()
    import shutil
    shutil.rmtree(work, ignore_errors=True)

    def ms(v):
        return f"{np.mean(v):.3f} ± {np.std(v):.3f}" if len(v) > 1 else f"{v[0]:.3f}"

    table = ["| data | train rows × columns (positive) | test positives | method | balanced accuracy | ROC AUC | predicted positive | seconds | note |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name in a.sets.split(","):
        for method in ["nsvm", "svc", "logreg", "hgb"]:
            rs = [r for r in rows if r["set"] == name and r["method"] == method]
            if not rs:
                continue
            r0 = rs[0]
            size = f"{r0['n']:,} × {r0['d']}" + (f" ({r0['categorical']} text)" if r0["categorical"] else "") + f" ({100 * r0['pos_train'] / r0['n']:.1f} %)"
            pos = "/".join(str(r["pos_test"]) for r in rs)
            ok = [r for r in rs if "error" not in r]
            errs = sorted({r["error"] for r in rs if "error" in r})
            note = "; ".join(e.replace("|", "\\|") for e in errs)
            if errs:
                note = f"**error** on {len(rs) - len(ok)} of {len(rs)} splits: " + note
            sels = sorted({r["selected"] for r in ok if r.get("selected")})
            if sels:
                note = (note + "; " if note else "") + "; ".join(sels)
            if ok:
                ba, auc = ms([r["balanced_accuracy"] for r in ok]), ms([r["auc"] for r in ok])
                pp = f"{100 * np.mean([r['predicted_positive'] for r in ok]):.1f} %"
            else:
                ba = auc = "**error**"
                pp = ""
            secs = f"{np.mean([r['seconds'] for r in rs if 'seconds' in r] or [float('nan')]):.2f}"
            table.append(f"| {name} | {size} | {pos} | {NAMES[method]} | {ba} | {auc} | {pp} | {secs} | {note} |")
    text = "\n".join(table) + "\n"
    text += (f"\nseeds {a.seeds}; scores: mean ± sd over the splits that did not fail; seconds: mean over all splits; scikit-learn {sklearn.__version__}; "
             f"load average {load0[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end ({os.cpu_count()} cores)\n")
    write_results(os.path.join(HERE, "results.md"), text)


if __name__ == "__main__":
    main()
