#!/usr/bin/env python3
"""Real text for bench/sparse: Debian package descriptions labelled by section.

Every binary package of a Debian release has a description written by its
maintainer (a one-line synopsis and a long description of a few sentences to
a few paragraphs) and a section (python, games, science, net, …). The
package index with the long English descriptions is what `apt-get update`
fetches with Acquire::Languages=en; this script fetches it, with apt-get
itself, into a lists directory of its own (the system's lists are not
touched), unless that directory already holds it.

The corpus: the release's main/binary-amd64 packages (not -updates or
-security), one document per distinct description (synopsis + long
description), labelled by the package's section; the 20 largest sections are
kept. The split is by source package, so that the binary packages built from
one source (libfoo1, libfoo-dev, libfoo-doc, whose descriptions share
paragraphs) fall on the same side: a seeded 20 % of the source packages are
the test set. Features: scikit-learn's TfidfVectorizer() with its defaults,
fitted on the training documents (--ngrams 2: words and word pairs; --min-df: seen in
at least that many training documents). --train-docs keeps a seeded random
subset of the training documents (the vectorizer is fitted on them; the test
set stays whole). Writes train.libsvm, test.libsvm (labels 1…20) and
sections.txt (label k on line k) to --out.
"""
import argparse, collections, glob, os, re, subprocess, sys

import numpy as np


def fetch_lists(lists):
    """apt-get update with English descriptions into the directory lists.

    apt verifies the release files as its unprivileged sandbox user; where
    that user cannot run the verification (some containers), the update is
    tried once more as the calling user (APT::Sandbox::User), the
    signatures still checked."""
    os.makedirs(os.path.join(lists, "partial"), exist_ok=True)
    cmd = ["apt-get", "update", "-o", "Acquire::Languages=en", "-o", f"Dir::State::Lists={lists}",
           "-o", "Acquire::GzipIndexes=false", "-o", "Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0 and os.geteuid() == 0:
        cmd += ["-o", "APT::Sandbox::User=root"]
        p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{p.stderr[-1000:]}")


def paragraphs(path):
    """The stanzas of a Debian control file as dicts (continuation lines joined with newlines)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        rec, key = {}, None
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if rec:
                    yield rec
                rec, key = {}, None
            elif line[0] in " \t" and key:
                rec[key] += "\n" + line[1:]
            else:
                key, _, val = line.partition(":")
                rec[key] = val.strip()
        if rec:
            yield rec


def release_files(lists, kind):
    """The lists files of the release's main component (no -updates, -security)."""
    pat = {"packages": "*_dists_*_main_binary-amd64_Packages", "translation": "*_dists_*_main_i18n_Translation-en"}[kind]
    return [p for p in sorted(glob.glob(os.path.join(lists, pat))) if "-" not in re.search(r"_dists_([^_]+)_", p).group(1)]


def clean(desc):
    """A Description-en field as plain text: synopsis, then the long description without the ' .' paragraph marks."""
    lines = [l for l in desc.split("\n") if l.strip() != "."]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lists", required=True, help="apt lists directory (fetched into when it holds no Translation-en)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--classes", type=int, default=20)
    ap.add_argument("--test-share", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ngrams", type=int, default=1, help="TfidfVectorizer's ngram_range=(1, NGRAMS)")
    ap.add_argument("--min-df", type=int, default=1, help="TfidfVectorizer's min_df")
    ap.add_argument("--train-docs", type=int, default=0, help="keep this many training documents (0: all)")
    a = ap.parse_args()
    if not release_files(a.lists, "translation") or not release_files(a.lists, "packages"):
        fetch_lists(a.lists)
    pk, tr = release_files(a.lists, "packages"), release_files(a.lists, "translation")
    if not pk or not tr:
        raise SystemExit(f"no Packages or Translation-en of a release's main component in {a.lists}")
    text = {}
    for p in tr:
        for r in paragraphs(p):
            if "Description-md5" in r and "Description-en" in r:
                text[r["Description-md5"]] = clean(r["Description-en"])
    docs = {}  # md5 -> (section, source); the first package with a description keeps it
    for p in pk:
        for r in paragraphs(p):
            md5, sec = r.get("Description-md5"), r.get("Section")
            if not md5 or not sec or md5 not in text or md5 in docs:
                continue
            src = r.get("Source", r["Package"]).split()[0]
            docs[md5] = (sec.split("/")[-1], src)
    counts = collections.Counter(s for s, _ in docs.values())
    sections = [s for s, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[: a.classes]]
    label = {s: k + 1 for k, s in enumerate(sections)}
    keys = sorted(k for k, (s, _) in docs.items() if s in label)
    sources = sorted({docs[k][1] for k in keys})
    rng = np.random.default_rng(a.seed)
    test_src = set(np.array(sources)[rng.permutation(len(sources))[: int(round(a.test_share * len(sources)))]])
    tr_keys = [k for k in keys if docs[k][1] not in test_src]
    te_keys = [k for k in keys if docs[k][1] in test_src]
    if 0 < a.train_docs < len(tr_keys):
        keep = np.random.default_rng(a.seed + 1).permutation(len(tr_keys))[: a.train_docs]
        tr_keys = [tr_keys[i] for i in sorted(keep)]

    from sklearn.datasets import dump_svmlight_file
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(ngram_range=(1, a.ngrams), min_df=a.min_df)
    Xtr = vec.fit_transform([text[k] for k in tr_keys])
    Xte = vec.transform([text[k] for k in te_keys])
    ytr = np.array([label[docs[k][0]] for k in tr_keys])
    yte = np.array([label[docs[k][0]] for k in te_keys])
    os.makedirs(a.out, exist_ok=True)
    for name, X, y in [("train", Xtr, ytr), ("test", Xte, yte)]:
        tmp = os.path.join(a.out, name + ".libsvm.tmp")
        dump_svmlight_file(X, y, tmp, zero_based=False)
        os.replace(tmp, os.path.join(a.out, name + ".libsvm"))
    with open(os.path.join(a.out, "sections.txt"), "w") as f:
        f.write("".join(f"{s}\t{counts[s]}\n" for s in sections))
    print(f"{len(tr_keys)} train / {len(te_keys)} test documents, {Xtr.shape[1]} features, "
          f"{Xtr.nnz / Xtr.shape[0]:.1f} nonzeros a training row; sections: {', '.join(sections)}", file=sys.stderr)


if __name__ == "__main__":
    main()
